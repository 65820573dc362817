/*
 * kinds.c - the widget kinds libwidgets exports as plugins.
 *
 * Every kind has the same entry points (measure, draw, accessible, on_event,
 * serialize, describe) with per-kind parameters, so they are stamped out by
 * one macro. At launch the host registers every kind
 * (describe), measures the initial window and draws it; events, the
 * accessibility tree and saved state are only asked for later, if at all.
 */
#include "widgets.h"

#include <stdio.h>
#include <string.h>

enum {
  K_TEXT = 1,      /* shows its text */
  K_FOCUS = 2,     /* takes keyboard focus */
  K_VALUE = 4,     /* has a numeric value drawn as a bar */
  K_CONTAINER = 8, /* sizes to its children */
  K_SCROLL = 16,   /* reacts to the wheel */
};

static int kind_children_extent(const wg_widget *w, const wg_theme *t, int horizontal) {
  int total = 0;
  for (int i = 0; i < w->nchildren; i++) {
    wg_size s = w->children[i]->kind->measure(w->children[i], t);
    if (horizontal)
      total += s.w + t->padding;
    else
      total = s.w > total ? s.w : total;
  }
  return total;
}

static void kind_draw_value_bar(const wg_widget *w, wg_canvas *c, int max) {
  int inner = w->frame.w - 2;
  if (inner <= 0 || max <= 0) return;
  int filled = w->value * inner / max;
  if (filled > inner) filled = inner;
  wg_rect bar = {w->frame.x + 1, w->frame.y + w->frame.h - 1, filled, 1};
  wg_canvas_fill(c, bar, '=');
}

#define WIDGET_KIND(NAME, MINW, MINH, PAD, EDGE, FLAGS, VMAX, PRIO, REQ)                               \
  static wg_size NAME##_measure(const wg_widget *w, const wg_theme *t) {                             \
    wg_size s = {MINW, MINH};                                                                        \
    if ((FLAGS) & K_TEXT) {                                                                          \
      int cell = t->font_size > 1 ? t->font_size / 2 : 1;                                            \
      int tw = wg_text_width(w->text, strlen(w->text), t->font_size) / cell + 2 * (PAD);             \
      if (tw > s.w) s.w = tw;                                                                        \
    }                                                                                                \
    if ((FLAGS) & K_CONTAINER) {                                                                     \
      int cw = kind_children_extent(w, t, (MINH) <= 2) + 2 * (PAD);                                  \
      if (cw > s.w) s.w = cw;                                                                        \
      s.h += w->nchildren * ((MINH) > 1 ? 1 : 0);                                                    \
    }                                                                                                \
    if ((FLAGS) & K_VALUE) s.h += 1;                                                                 \
    s.w += t->padding / 2;                                                                           \
    return s;                                                                                        \
  }                                                                                                  \
  static void NAME##_draw(const wg_widget *w, const wg_theme *t, wg_canvas *c) {                     \
    if (w->frame.w <= 0 || w->frame.h <= 0) return;                                                  \
    if ((EDGE) != ' ') wg_canvas_rect(c, w->frame, (EDGE));                                          \
    if ((FLAGS) & K_TEXT) {                                                                          \
      int room = w->frame.w - 2 * (PAD);                                                             \
      int x = w->frame.x + (PAD);                                                                    \
      if (t->dark && room > 2) x += 0;                                                               \
      wg_canvas_text(c, x, w->frame.y + (w->frame.h > 2 ? 1 : 0), w->text, room);                    \
    }                                                                                                \
    if ((FLAGS) & K_VALUE) kind_draw_value_bar(w, c, (VMAX));                                        \
    if ((FLAGS) & K_FOCUS && (w->flags & 1)) {                                                       \
      wg_rect mark = {w->frame.x, w->frame.y, 1, 1};                                                 \
      wg_canvas_fill(c, mark, '*');                                                                  \
    }                                                                                                \
    for (int i = 0; i < w->nchildren; i++) w->children[i]->kind->draw(w->children[i], t, c);         \
  }                                                                                                  \
  static int NAME##_accessible(const wg_widget *w, char *out, size_t cap) {                          \
    static const char *const roles[] = {"generic", "text", "button", "input", "slider", "group"};    \
    int role = (FLAGS) & K_CONTAINER ? 5                                                             \
               : (FLAGS) & K_VALUE  ? 4                                                              \
               : ((FLAGS) & (K_FOCUS | K_TEXT)) == (K_FOCUS | K_TEXT) ? ((EDGE) == '|' ? 3 : 2)      \
               : (FLAGS) & K_TEXT   ? 1                                                              \
                                    : 0;                                                             \
    int n = snprintf(out, cap, "role=%s name=\"%s\"", roles[role], w->text[0] ? w->text : w->id);    \
    if (n < 0 || (size_t)n >= cap) return -1;                                                        \
    if ((FLAGS) & K_VALUE)                                                                           \
      n += snprintf(out + n, cap - (size_t)n, " value=%d/%d", w->value, (VMAX) ? (VMAX) : 1);        \
    if ((FLAGS) & K_FOCUS && (size_t)n < cap)                                                        \
      n += snprintf(out + n, cap - (size_t)n, " focusable%s", w->flags & 1 ? " focused" : "");      \
    if ((FLAGS) & K_SCROLL && (size_t)n < cap) n += snprintf(out + n, cap - (size_t)n, " scrollable"); \
    return (size_t)n < cap ? n : -1;                                                                 \
  }                                                                                                  \
  static int NAME##_on_event(wg_widget *w, const wg_event *e) {                                      \
    switch (e->type) {                                                                               \
    case WG_EV_CLICK:                                                                                \
      if (!((FLAGS) & K_FOCUS)) return 0;                                                            \
      w->flags |= 1;                                                                                 \
      if ((FLAGS) & K_VALUE) {                                                                       \
        int span = w->frame.w > 2 ? w->frame.w - 2 : 1;                                              \
        w->value = (e->x - w->frame.x - 1) * (VMAX) / span;                                          \
        if (w->value < 0) w->value = 0;                                                              \
        if (w->value > (VMAX)) w->value = (VMAX);                                                    \
      }                                                                                              \
      return 1;                                                                                      \
    case WG_EV_KEY:                                                                                  \
      if (!((FLAGS) & K_FOCUS) || !(w->flags & 1)) return 0;                                         \
      if ((FLAGS) & K_VALUE) {                                                                       \
        w->value += e->key == '+' ? 1 : e->key == '-' ? -1 : 0;                                      \
        if (w->value < 0) w->value = 0;                                                              \
        if (w->value > (VMAX)) w->value = (VMAX);                                                    \
        return 1;                                                                                    \
      }                                                                                              \
      if ((FLAGS) & K_TEXT) {                                                                        \
        size_t n = strlen(w->text);                                                                  \
        if (e->key == 8 && n > 0) w->text[n - 1] = '\0';                                             \
        else if (e->key >= 32 && e->key < 127 && n + 1 < sizeof w->text) {                           \
          w->text[n] = (char)e->key;                                                                 \
          w->text[n + 1] = '\0';                                                                     \
        }                                                                                            \
        return 1;                                                                                    \
      }                                                                                              \
      return 0;                                                                                      \
    case WG_EV_SCROLL:                                                                               \
      if (!((FLAGS) & K_SCROLL)) return 0;                                                           \
      w->value += e->delta;                                                                          \
      if (w->value < 0) w->value = 0;                                                                \
      return 1;                                                                                      \
    case WG_EV_FOCUS:                                                                                \
      if ((FLAGS) & K_FOCUS) w->flags |= 1;                                                          \
      return (FLAGS) & K_FOCUS ? 1 : 0;                                                              \
    case WG_EV_BLUR:                                                                                 \
      w->flags &= ~1;                                                                                \
      return 1;                                                                                      \
    case WG_EV_RESIZE:                                                                               \
      w->frame.w = e->x > (MINW) ? e->x : (MINW);                                                    \
      w->frame.h = e->y > (MINH) ? e->y : (MINH);                                                    \
      return 1;                                                                                      \
    }                                                                                                \
    return 0;                                                                                        \
  }                                                                                                  \
  static int NAME##_serialize(const wg_widget *w, uint8_t *out, size_t cap) {                       \
    /* id, text, value, flags, frame: length-prefixed strings and varints. */                        \
    size_t idn = strlen(w->id), tn = (FLAGS) & K_TEXT ? strlen(w->text) : 0, o = 0;                  \
    if (cap < idn + tn + 2 + 6 * 10) return -1;                                                      \
    out[o++] = (uint8_t)idn;                                                                         \
    memcpy(out + o, w->id, idn);                                                                     \
    o += idn;                                                                                        \
    out[o++] = (uint8_t)tn;                                                                          \
    memcpy(out + o, w->text, tn);                                                                    \
    o += tn;                                                                                         \
    o += wg_varint_put((uint64_t)((FLAGS) & K_VALUE ? w->value : 0), out + o);                       \
    o += wg_varint_put((uint64_t)(w->flags & 0xff), out + o);                                        \
    const int *f = &w->frame.x;                                                                      \
    for (int i = 0; i < 4; i++) o += wg_varint_put((uint64_t)(uint32_t)f[i], out + o);              \
    return (int)o;                                                                                   \
  }                                                                                                  \
  static int NAME##_describe(const wg_widget *w, char *out, size_t cap) {                            \
    if (!w)                                                                                          \
      return snprintf(out, cap, "%s(min %dx%d, pad %d%s%s%s%s)", #NAME, MINW, MINH, PAD,             \
                      (FLAGS) & K_TEXT ? ", text" : "", (FLAGS) & K_FOCUS ? ", focus" : "",          \
                      (FLAGS) & K_VALUE ? ", value" : "", (FLAGS) & K_CONTAINER ? ", container" : ""); \
    return snprintf(out, cap, "%s#%s \"%s\" [%d,%d %dx%d]%s", #NAME, w->id, w->text, w->frame.x,     \
                    w->frame.y, w->frame.w, w->frame.h, (FLAGS) & K_VALUE ? " value" : "");          \
  }                                                                                                  \
  static const wg_kind NAME##_kind = {#NAME,           WG_ABI_VERSION,   PRIO,                       \
                                      REQ,             NAME##_measure,   NAME##_draw,                \
                                      NAME##_on_event, NAME##_describe,  NAME##_accessible,          \
                                      NAME##_serialize};

/*          name       minw minh pad edge flags                         vmax prio requires */
WIDGET_KIND(window,     40, 12, 1, '#', K_CONTAINER | K_TEXT,              0, 100, NULL)
WIDGET_KIND(dialog,     30,  8, 1, '#', K_CONTAINER | K_TEXT | K_FOCUS,    0,  40, "window")
WIDGET_KIND(panel,      10,  4, 1, '+', K_CONTAINER,                       0,  90, NULL)
WIDGET_KIND(label,       4,  1, 0, ' ', K_TEXT,                            0,  80, NULL)
WIDGET_KIND(button,      6,  3, 1, '+', K_TEXT | K_FOCUS,                  0,  80, "label")
WIDGET_KIND(checkbox,    4,  1, 0, ' ', K_TEXT | K_FOCUS | K_VALUE,        1,  50, "label")
WIDGET_KIND(radio,       4,  1, 0, ' ', K_TEXT | K_FOCUS | K_VALUE,        1,  45, "label")
WIDGET_KIND(textbox,    12,  3, 1, '|', K_TEXT | K_FOCUS,                  0,  70, "label")
WIDGET_KIND(textarea,   20,  6, 1, '|', K_TEXT | K_FOCUS | K_SCROLL,       0,  35, "textbox")
WIDGET_KIND(slider,     10,  2, 0, '-', K_FOCUS | K_VALUE,               100,  55, NULL)
WIDGET_KIND(progress,   10,  2, 0, '-', K_VALUE,                         100,  60, NULL)
WIDGET_KIND(spinner,     3,  1, 0, ' ', K_VALUE,                           8,  30, NULL)
WIDGET_KIND(listview,   12,  6, 1, '|', K_CONTAINER | K_FOCUS | K_SCROLL, 0,  65, "label")
WIDGET_KIND(treeview,   14,  6, 1, '|', K_CONTAINER | K_FOCUS | K_SCROLL, 0,  25, "listview")
WIDGET_KIND(tableview,  20,  8, 1, '|', K_CONTAINER | K_FOCUS | K_SCROLL, 0,  20, "listview")
WIDGET_KIND(tabbar,     20,  2, 0, '_', K_CONTAINER | K_FOCUS,             0,  50, "button")
WIDGET_KIND(menubar,    20,  1, 0, ' ', K_CONTAINER | K_TEXT,              0,  85, "label")
WIDGET_KIND(menu,        8,  4, 1, '+', K_CONTAINER | K_FOCUS,             0,  30, "menubar")
WIDGET_KIND(toolbar,    20,  2, 0, '_', K_CONTAINER,                       0,  75, "button")
WIDGET_KIND(statusbar,  20,  1, 0, ' ', K_TEXT,                            0,  75, "label")
WIDGET_KIND(image,       4,  4, 0, '.', 0,                                 0,  40, NULL)
WIDGET_KIND(canvasview, 16,  8, 0, '.', K_FOCUS | K_SCROLL,                0,  15, NULL)
WIDGET_KIND(splitter,   20,  8, 0, ' ', K_CONTAINER | K_VALUE,           100,  20, "panel")
WIDGET_KIND(scrollview, 12,  6, 0, '|', K_CONTAINER | K_SCROLL,            0,  45, "panel")
WIDGET_KIND(tooltip,     6,  1, 1, '~', K_TEXT,                            0,  10, "label")
WIDGET_KIND(colorpick,  12,  6, 1, '+', K_FOCUS | K_VALUE,               255,  12, "slider")
WIDGET_KIND(datepick,   14,  8, 1, '+', K_TEXT | K_FOCUS,                  0,  12, "textbox")
WIDGET_KIND(separator,   1,  1, 0, '-', 0,                                 0,  70, NULL)

static const wg_kind *const all_kinds[] = {
    &window_kind,   &dialog_kind,    &panel_kind,     &label_kind,      &button_kind,   &checkbox_kind,
    &radio_kind,    &textbox_kind,   &textarea_kind,  &slider_kind,     &progress_kind, &spinner_kind,
    &listview_kind, &treeview_kind,  &tableview_kind, &tabbar_kind,     &menubar_kind,  &menu_kind,
    &toolbar_kind,  &statusbar_kind, &image_kind,     &canvasview_kind, &splitter_kind, &scrollview_kind,
    &tooltip_kind,  &colorpick_kind, &datepick_kind,  &separator_kind,
};

size_t wg_kind_count(void) { return sizeof all_kinds / sizeof all_kinds[0]; }

const wg_kind *wg_kind_at(size_t i) { return i < wg_kind_count() ? all_kinds[i] : NULL; }

const wg_kind *wg_kind_find(const char *name) {
  for (size_t i = 0; i < wg_kind_count(); i++)
    if (strcmp(all_kinds[i]->name, name) == 0) return all_kinds[i];
  return NULL;
}
