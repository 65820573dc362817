/*
 * widgets.c - the widget tree, the text canvas widgets draw on, and the
 * library's own set-up.
 */
#include "widgets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static wg_theme library_theme;
static int library_ready;

wg_widget *wg_create(const wg_kind *kind, const char *id, const char *text) {
  if (!kind) return NULL;
  wg_widget *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->kind = kind;
  snprintf(w->id, sizeof w->id, "%s", id);
  snprintf(w->text, sizeof w->text, "%s", text ? text : "");
  return w;
}

int wg_remove_child(wg_widget *parent, wg_widget *child) {
  for (int i = 0; i < parent->nchildren; i++) {
    if (parent->children[i] != child) continue;
    memmove(&parent->children[i], &parent->children[i + 1],
            (size_t)(parent->nchildren - i - 1) * sizeof parent->children[0]);
    parent->nchildren--;
    child->parent = NULL;
    return 0;
  }
  return -1;
}

void wg_destroy(wg_widget *w) {
  if (!w) return;
  for (int i = 0; i < w->nchildren; i++) wg_destroy(w->children[i]);
  free(w);
}

int wg_add_child(wg_widget *parent, wg_widget *child) {
  if (!parent || !child) return -1;
  if (parent->nchildren >= (int)(sizeof parent->children / sizeof parent->children[0])) return -1;
  parent->children[parent->nchildren++] = child;
  child->parent = parent;
  return 0;
}

wg_widget *wg_hit_test(wg_widget *root, int x, int y) {
  if (!root) return NULL;
  wg_rect r = root->frame;
  if (x < r.x || y < r.y || x >= r.x + r.w || y >= r.y + r.h) return NULL;
  for (int i = root->nchildren - 1; i >= 0; i--) {
    wg_widget *hit = wg_hit_test(root->children[i], x, y);
    if (hit) return hit;
  }
  return root;
}

wg_widget *wg_find(wg_widget *root, const char *id) {
  if (!root) return NULL;
  if (strcmp(root->id, id) == 0) return root;
  for (int i = 0; i < root->nchildren; i++) {
    wg_widget *found = wg_find(root->children[i], id);
    if (found) return found;
  }
  return NULL;
}

int wg_set_text(wg_widget *w, const char *text) {
  size_t n = strlen(text);
  if (n >= sizeof w->text) return -1;
  memcpy(w->text, text, n + 1);
  return 0;
}

int wg_dispatch(wg_widget *root, const wg_event *e) {
  if (e->type == WG_EV_CLICK) {
    wg_widget *target = wg_hit_test(root, e->x, e->y);
    for (wg_widget *w = target; w; w = w->parent)
      if (w->kind->on_event(w, e)) return 1;
    return 0;
  }
  if (e->type == WG_EV_RESIZE) return root->kind->on_event(root, e);
  for (int i = 0; i < root->nchildren; i++)
    if (wg_dispatch(root->children[i], e)) return 1;
  return root->kind->on_event(root, e);
}

int wg_set_value(wg_widget *w, int value) {
  if (value < 0) return -1;
  w->value = value;
  return 0;
}

size_t wg_count(const wg_widget *root) {
  if (!root) return 0;
  size_t n = 1;
  for (int i = 0; i < root->nchildren; i++) n += wg_count(root->children[i]);
  return n;
}

int wg_depth(const wg_widget *w) {
  int d = 0;
  while (w && w->parent) {
    d++;
    w = w->parent;
  }
  return d;
}

wg_size wg_measure(const wg_widget *w, const wg_theme *t) { return w->kind->measure(w, t); }

void wg_arrange(wg_widget *w, wg_rect r, const wg_theme *t) {
  w->frame = r;
  wg_layout l;
  wg_layout_default(&l, r.h <= 5 ? WG_LAYOUT_ROW : WG_LAYOUT_COLUMN);
  if (w->nchildren > 0) wg_layout_apply(w, &l, t);
}

static int describe_rec(const wg_widget *w, char *out, size_t cap, int depth) {
  int n = 0;
  if (cap > 0) n = snprintf(out, cap, "%*s", depth * 2, "");
  if (n < 0 || (size_t)n >= cap) return -1;
  int k = w->kind->describe(w, out + n, cap - (size_t)n);
  if (k < 0 || (size_t)(n + k + 1) >= cap) return -1;
  n += k;
  out[n++] = '\n';
  out[n] = '\0';
  for (int i = 0; i < w->nchildren; i++) {
    int c = describe_rec(w->children[i], out + n, cap - (size_t)n, depth + 1);
    if (c < 0) return -1;
    n += c;
  }
  return n;
}

void wg_render(const wg_widget *root, const wg_theme *t, wg_canvas *c) {
  wg_canvas_clear(c, ' ');
  root->kind->draw(root, t, c);
}

int wg_describe_tree(const wg_widget *root, char *out, size_t cap) { return describe_rec(root, out, cap, 0); }

uint32_t wg_tree_fingerprint(const wg_widget *root) {
  uint32_t h = wg_crc32(0, root->id, strlen(root->id));
  h = wg_crc32(h, &root->frame, sizeof root->frame);
  for (int i = 0; i < root->nchildren; i++) h ^= wg_tree_fingerprint(root->children[i]) * 31u;
  return h;
}

static int accessible_rec(const wg_widget *w, char *out, size_t cap, int depth) {
  int n = snprintf(out, cap, "%*s", depth * 2, "");
  if (n < 0 || (size_t)n >= cap) return -1;
  int k = w->kind->accessible(w, out + n, cap - (size_t)n);
  if (k < 0 || (size_t)(n + k + 1) >= cap) return -1;
  n += k;
  out[n++] = '\n';
  out[n] = '\0';
  for (int i = 0; i < w->nchildren; i++) {
    int c = accessible_rec(w->children[i], out + n, cap - (size_t)n, depth + 1);
    if (c < 0) return -1;
    n += c;
  }
  return n;
}

int wg_accessibility_tree(const wg_widget *root, char *out, size_t cap) { return accessible_rec(root, out, cap, 0); }

long wg_save_state(const wg_widget *root, uint8_t *out, size_t cap) {
  int n = root->kind->serialize(root, out, cap);
  if (n < 0) return -1;
  long total = n;
  for (int i = 0; i < root->nchildren; i++) {
    long c = wg_save_state(root->children[i], out + total, cap - (size_t)total);
    if (c < 0) return -1;
    total += c;
  }
  return total;
}

/* ---- canvas ---- */

int wg_canvas_init(wg_canvas *c, int w, int h) {
  c->cells = malloc((size_t)w * (size_t)h);
  if (!c->cells) return -1;
  c->w = w;
  c->h = h;
  c->ops = 0;
  memset(c->cells, ' ', (size_t)w * (size_t)h);
  return 0;
}

static int clip(const wg_canvas *c, wg_rect *r) {
  if (r->x < 0) {
    r->w += r->x;
    r->x = 0;
  }
  if (r->y < 0) {
    r->h += r->y;
    r->y = 0;
  }
  if (r->x + r->w > c->w) r->w = c->w - r->x;
  if (r->y + r->h > c->h) r->h = c->h - r->y;
  return r->w > 0 && r->h > 0;
}

void wg_canvas_free(wg_canvas *c) {
  free(c->cells);
  c->cells = NULL;
}

void wg_canvas_clear(wg_canvas *c, char fill) {
  memset(c->cells, fill, (size_t)c->w * (size_t)c->h);
  c->ops++;
}

void wg_canvas_fill(wg_canvas *c, wg_rect r, char fill) {
  if (!clip(c, &r)) return;
  for (int y = r.y; y < r.y + r.h; y++) memset(c->cells + y * c->w + r.x, fill, (size_t)r.w);
  c->ops++;
}

void wg_canvas_rect(wg_canvas *c, wg_rect r, char edge) {
  wg_rect top = {r.x, r.y, r.w, 1}, bottom = {r.x, r.y + r.h - 1, r.w, 1};
  wg_rect left = {r.x, r.y, 1, r.h}, right = {r.x + r.w - 1, r.y, 1, r.h};
  wg_canvas_fill(c, top, edge);
  wg_canvas_fill(c, bottom, edge);
  wg_canvas_fill(c, left, edge);
  wg_canvas_fill(c, right, edge);
}

uint32_t wg_canvas_checksum(const wg_canvas *c) { return wg_crc32(0, c->cells, (size_t)c->w * (size_t)c->h); }

void wg_canvas_text(wg_canvas *c, int x, int y, const char *s, int max) {
  if (y < 0 || y >= c->h) return;
  for (int i = 0; s[i] && i < max; i++) {
    int cx = x + i;
    if (cx < 0) continue;
    if (cx >= c->w) break;
    c->cells[y * c->w + cx] = s[i];
  }
  c->ops++;
}

/* ---- library ---- */

const char *wg_library_version(void) { return "libwidgets 3.2.0"; }

int wg_library_init(int abi, const char *theme_name) {
  if (abi != WG_ABI_VERSION) return -1;
  if (wg_theme_builtin(theme_name, &library_theme) != 0) return -2;
  char why[64];
  if (wg_theme_check_contrast(&library_theme, why, sizeof why) != 0) {
    wg_theme dark;
    wg_theme_dark_variant(&library_theme, &dark);
    library_theme = dark;
  }
  library_ready = 1;
  return 0;
}

void wg_library_shutdown(void) {
  library_ready = 0;
  memset(&library_theme, 0, sizeof library_theme);
}

const wg_theme *wg_library_theme(void) { return library_ready ? &library_theme : NULL; }
