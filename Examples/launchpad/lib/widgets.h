/*
 * widgets.h - public API of libwidgets, the UI toolkit launchpad loads at
 * start-up: widget kinds (exported as plugins), themes, layout and a few
 * codecs the toolkit needs for its icons.
 */
#ifndef WIDGETS_H
#define WIDGETS_H

#include <stddef.h>
#include <stdint.h>

#define WG_ABI_VERSION 3

/* ---- codecs (codec.c) ---- */
size_t wg_base64_encoded_size(size_t n);
size_t wg_base64_decoded_size(const char *text, size_t n);
size_t wg_base64_encode(const uint8_t *in, size_t n, char *out);
long wg_base64_decode(const char *in, size_t n, uint8_t *out);
uint32_t wg_crc32(uint32_t crc, const void *data, size_t n);
uint32_t wg_adler32(uint32_t adler, const void *data, size_t n);
size_t wg_rle_encode(const uint8_t *in, size_t n, uint8_t *out, size_t cap);
long wg_rle_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap);
int wg_utf8_decode(const char *s, size_t n, uint32_t *cp);
int wg_utf8_encode(uint32_t cp, char out[4]);
int wg_utf8_valid(const char *s, size_t n);
size_t wg_utf8_length(const char *s, size_t n);
size_t wg_hex_encode(const uint8_t *in, size_t n, char *out);
long wg_hex_decode(const char *in, size_t n, uint8_t *out);
size_t wg_varint_put(uint64_t v, uint8_t *out);
size_t wg_varint_get(const uint8_t *in, size_t n, uint64_t *v);
const char *wg_codec_error(int code);

/* ---- themes (theme.c) ---- */
typedef struct { uint8_t r, g, b, a; } wg_color;

typedef struct wg_theme {
  char name[32];
  wg_color fg, bg, accent, border, muted, error;
  int font_size;
  int padding;
  int radius;
  int dark;
} wg_theme;

int wg_color_parse(const char *text, wg_color *out);
void wg_color_format(wg_color c, char out[10]);
wg_color wg_color_blend(wg_color a, wg_color b, int percent);
wg_color wg_color_lighten(wg_color c, int percent);
wg_color wg_color_darken(wg_color c, int percent);
double wg_color_luminance(wg_color c);
double wg_color_contrast(wg_color a, wg_color b);
int wg_theme_load(const char *text, wg_theme *out);
int wg_theme_builtin(const char *name, wg_theme *out);
void wg_theme_dark_variant(const wg_theme *in, wg_theme *out);
int wg_theme_check_contrast(const wg_theme *t, char *why, size_t cap);
uint32_t wg_theme_fingerprint(const wg_theme *t);

/* ---- fonts (theme.c) ---- */
typedef struct { int advance, ascent, descent, bearing; } wg_glyph_metrics;
void wg_glyph_measure(uint32_t cp, int size, wg_glyph_metrics *m);
int wg_text_width(const char *s, size_t n, int size);

/* ---- widgets (widgets.c, kinds.c) ---- */
typedef struct wg_widget wg_widget;

typedef struct { int w, h; } wg_size;
typedef struct { int x, y, w, h; } wg_rect;

typedef struct wg_canvas {
  int w, h;
  char *cells;
  uint32_t ops;
} wg_canvas;

typedef enum { WG_EV_CLICK, WG_EV_KEY, WG_EV_SCROLL, WG_EV_FOCUS, WG_EV_BLUR, WG_EV_RESIZE } wg_event_type;

typedef struct { wg_event_type type; int x, y, key, delta; } wg_event;

typedef struct wg_kind {
  const char *name;
  int abi;
  int priority;
  const char *requires;
  wg_size (*measure)(const wg_widget *w, const wg_theme *t);
  void (*draw)(const wg_widget *w, const wg_theme *t, wg_canvas *c);
  int (*on_event)(wg_widget *w, const wg_event *e);
  int (*describe)(const wg_widget *w, char *out, size_t cap);
  int (*accessible)(const wg_widget *w, char *out, size_t cap);
  int (*serialize)(const wg_widget *w, uint8_t *out, size_t cap);
} wg_kind;

struct wg_widget {
  const wg_kind *kind;
  char id[24];
  char text[64];
  int value;
  int flags;
  wg_rect frame;
  wg_widget *parent;
  wg_widget *children[16];
  int nchildren;
};

size_t wg_kind_count(void);
const wg_kind *wg_kind_at(size_t i);
const wg_kind *wg_kind_find(const char *name);

wg_widget *wg_create(const wg_kind *kind, const char *id, const char *text);
void wg_destroy(wg_widget *w);
int wg_add_child(wg_widget *parent, wg_widget *child);
int wg_remove_child(wg_widget *parent, wg_widget *child);
wg_widget *wg_find(wg_widget *root, const char *id);
int wg_set_text(wg_widget *w, const char *text);
int wg_set_value(wg_widget *w, int value);
size_t wg_count(const wg_widget *root);
int wg_depth(const wg_widget *w);
wg_size wg_measure(const wg_widget *w, const wg_theme *t);
void wg_arrange(wg_widget *w, wg_rect r, const wg_theme *t);
void wg_render(const wg_widget *root, const wg_theme *t, wg_canvas *c);
wg_widget *wg_hit_test(wg_widget *root, int x, int y);
int wg_dispatch(wg_widget *root, const wg_event *e);
int wg_describe_tree(const wg_widget *root, char *out, size_t cap);
uint32_t wg_tree_fingerprint(const wg_widget *root);
int wg_accessibility_tree(const wg_widget *root, char *out, size_t cap);
long wg_save_state(const wg_widget *root, uint8_t *out, size_t cap);

int wg_canvas_init(wg_canvas *c, int w, int h);
void wg_canvas_free(wg_canvas *c);
void wg_canvas_clear(wg_canvas *c, char fill);
void wg_canvas_rect(wg_canvas *c, wg_rect r, char edge);
void wg_canvas_fill(wg_canvas *c, wg_rect r, char fill);
void wg_canvas_text(wg_canvas *c, int x, int y, const char *s, int max);
uint32_t wg_canvas_checksum(const wg_canvas *c);

/* ---- layout (layout.c) ---- */
typedef enum { WG_LAYOUT_ROW, WG_LAYOUT_COLUMN, WG_LAYOUT_GRID, WG_LAYOUT_STACK } wg_layout_mode;

typedef struct {
  wg_layout_mode mode;
  int gap;
  int columns;
  int weights[16];
} wg_layout;

void wg_layout_default(wg_layout *l, wg_layout_mode mode);
int wg_layout_apply(wg_widget *container, const wg_layout *l, const wg_theme *t);
int wg_layout_distribute(int total, const int *weights, int n, int gap, int *out);
wg_layout_mode wg_layout_mode_from_name(const char *name);
const char *wg_layout_mode_name(wg_layout_mode m);

/* ---- library ---- */
int wg_library_init(int abi, const char *theme_name);
const char *wg_library_version(void);
const wg_theme *wg_library_theme(void);
void wg_library_shutdown(void);

#endif /* WIDGETS_H */
