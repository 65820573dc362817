/*
 * layout.c - box layout for libwidgets: rows, columns, grids and stacks,
 * with weighted distribution of the free space.
 */
#include "widgets.h"

#include <string.h>

static const char *const mode_names[] = {"row", "column", "grid", "stack"};

void wg_layout_default(wg_layout *l, wg_layout_mode mode) {
  memset(l, 0, sizeof *l);
  l->mode = mode;
  l->gap = 1;
  l->columns = 2;
  for (int i = 0; i < 16; i++) l->weights[i] = 1;
}

const char *wg_layout_mode_name(wg_layout_mode m) {
  return (unsigned)m < sizeof mode_names / sizeof mode_names[0] ? mode_names[m] : "?";
}

int wg_layout_distribute(int total, const int *weights, int n, int gap, int *out) {
  if (n <= 0) return 0;
  int avail = total - gap * (n - 1);
  if (avail < n) return -1;
  int sum = 0;
  for (int i = 0; i < n; i++) sum += weights[i] > 0 ? weights[i] : 1;
  int used = 0;
  for (int i = 0; i < n; i++) {
    int wgt = weights[i] > 0 ? weights[i] : 1;
    out[i] = avail * wgt / sum;
    used += out[i];
  }
  /* Hand the rounding remainder to the first slots, one cell each. */
  for (int i = 0; used < avail; i = (i + 1) % n, used++) out[i]++;
  return 0;
}

wg_layout_mode wg_layout_mode_from_name(const char *name) {
  for (size_t i = 0; i < sizeof mode_names / sizeof mode_names[0]; i++)
    if (strcmp(mode_names[i], name) == 0) return (wg_layout_mode)i;
  return WG_LAYOUT_STACK;
}

static void layout_grid(wg_widget *c, const wg_layout *l, wg_rect inner, const wg_theme *t) {
  int cols = l->columns > 0 ? l->columns : 1;
  int rows = (c->nchildren + cols - 1) / cols;
  int cw[16], rh[16], ones[16];
  for (int i = 0; i < 16; i++) ones[i] = 1;
  if (wg_layout_distribute(inner.w, l->weights, cols, l->gap, cw) != 0) return;
  if (wg_layout_distribute(inner.h, ones, rows, l->gap, rh) != 0) return;
  int y = inner.y;
  for (int r = 0; r < rows; r++) {
    int x = inner.x;
    for (int k = 0; k < cols && r * cols + k < c->nchildren; k++) {
      wg_rect cell = {x, y, cw[k], rh[r]};
      wg_arrange(c->children[r * cols + k], cell, t);
      x += cw[k] + l->gap;
    }
    y += rh[r] + l->gap;
  }
}

static void layout_linear(wg_widget *c, const wg_layout *l, wg_rect inner, const wg_theme *t) {
  int sizes[16];
  int horizontal = l->mode == WG_LAYOUT_ROW;
  int weights[16];
  for (int i = 0; i < c->nchildren; i++) {
    wg_size want = wg_measure(c->children[i], t);
    weights[i] = l->weights[i] * (horizontal ? want.w : want.h);
    if (weights[i] <= 0) weights[i] = 1;
  }
  if (wg_layout_distribute(horizontal ? inner.w : inner.h, weights, c->nchildren, l->gap, sizes) != 0) {
    /* Not enough room: stack everything at minimum size instead. */
    for (int i = 0; i < c->nchildren; i++) wg_arrange(c->children[i], inner, t);
    return;
  }
  int pos = horizontal ? inner.x : inner.y;
  for (int i = 0; i < c->nchildren; i++) {
    wg_rect r = horizontal ? (wg_rect){pos, inner.y, sizes[i], inner.h} : (wg_rect){inner.x, pos, inner.w, sizes[i]};
    wg_arrange(c->children[i], r, t);
    pos += sizes[i] + l->gap;
  }
}

int wg_layout_apply(wg_widget *c, const wg_layout *l, const wg_theme *t) {
  int pad = t->padding > 0 ? 1 : 0;
  wg_rect inner = {c->frame.x + pad, c->frame.y + pad, c->frame.w - 2 * pad, c->frame.h - 2 * pad};
  if (inner.w <= 0 || inner.h <= 0 || c->nchildren == 0) return -1;
  switch (l->mode) {
  case WG_LAYOUT_GRID: layout_grid(c, l, inner, t); break;
  case WG_LAYOUT_STACK:
    for (int i = 0; i < c->nchildren; i++) wg_arrange(c->children[i], inner, t);
    break;
  default: layout_linear(c, l, inner, t); break;
  }
  return 0;
}
