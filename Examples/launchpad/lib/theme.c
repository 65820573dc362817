/*
 * theme.c - colours, themes and font metrics for libwidgets.
 *
 * Themes are small "key: value" texts; the built-in ones are compiled in.
 * Font metrics come from a synthetic font: widths per character class,
 * scaled to the point size.
 */
#include "widgets.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct named_color {
  const char *name;
  uint32_t rgb;
};

static const struct named_color named_colors[] = {
    {"black", 0x000000},     {"white", 0xffffff},   {"red", 0xff0000},      {"green", 0x008000},
    {"blue", 0x0000ff},      {"yellow", 0xffff00},  {"cyan", 0x00ffff},     {"magenta", 0xff00ff},
    {"gray", 0x808080},      {"silver", 0xc0c0c0},  {"maroon", 0x800000},   {"olive", 0x808000},
    {"navy", 0x000080},      {"teal", 0x008080},    {"purple", 0x800080},   {"orange", 0xffa500},
    {"slate", 0x708090},     {"ivory", 0xfffff0},   {"coral", 0xff7f50},    {"crimson", 0xdc143c},
    {"gold", 0xffd700},      {"indigo", 0x4b0082},  {"khaki", 0xf0e68c},    {"lavender", 0xe6e6fa},
    {"linen", 0xfaf0e6},     {"mint", 0x98ff98},    {"orchid", 0xda70d6},   {"peru", 0xcd853f},
    {"plum", 0xdda0dd},      {"salmon", 0xfa8072},  {"sienna", 0xa0522d},   {"tan", 0xd2b48c},
    {"tomato", 0xff6347},    {"wheat", 0xf5deb3},   {"charcoal", 0x36454f}, {"snow", 0xfffafa},
};

static int color_from_rgb(uint32_t rgb, uint8_t alpha, wg_color *out) {
  out->r = (uint8_t)(rgb >> 16);
  out->g = (uint8_t)(rgb >> 8);
  out->b = (uint8_t)rgb;
  out->a = alpha;
  return 0;
}

static int parse_hex_color(const char *s, wg_color *out) {
  size_t n = strlen(s);
  unsigned v = 0;
  for (size_t i = 0; i < n; i++) {
    int c = tolower((unsigned char)s[i]);
    if (!isxdigit(c)) return -1;
    v = v * 16 + (unsigned)(isdigit(c) ? c - '0' : c - 'a' + 10);
  }
  switch (n) {
  case 3:
    return color_from_rgb(((v >> 8) * 0x11) << 16 | ((v >> 4 & 15) * 0x11) << 8 | (v & 15) * 0x11, 255, out);
  case 6: return color_from_rgb(v, 255, out);
  case 8: return color_from_rgb(v >> 8, (uint8_t)v, out);
  default: return -1;
  }
}

double wg_color_luminance(wg_color c) {
  double ch[3] = {c.r / 255.0, c.g / 255.0, c.b / 255.0};
  for (int i = 0; i < 3; i++) ch[i] = ch[i] <= 0.03928 ? ch[i] / 12.92 : pow((ch[i] + 0.055) / 1.055, 2.4);
  return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
}

static int parse_rgb_function(const char *s, wg_color *out) {
  int r, g, b, a = 255;
  if (sscanf(s, "rgba(%d,%d,%d,%d)", &r, &g, &b, &a) == 4 || sscanf(s, "rgb(%d,%d,%d)", &r, &g, &b) == 3) {
    if (r < 0 || r > 255 || g < 0 || g > 255 || b < 0 || b > 255 || a < 0 || a > 255) return -1;
    out->r = (uint8_t)r;
    out->g = (uint8_t)g;
    out->b = (uint8_t)b;
    out->a = (uint8_t)a;
    return 0;
  }
  return -1;
}

int wg_color_parse(const char *text, wg_color *out) {
  while (isspace((unsigned char)*text)) text++;
  if (*text == '#') return parse_hex_color(text + 1, out);
  if (strncmp(text, "rgb", 3) == 0) return parse_rgb_function(text, out);
  for (size_t i = 0; i < sizeof named_colors / sizeof named_colors[0]; i++)
    if (strcmp(named_colors[i].name, text) == 0) return color_from_rgb(named_colors[i].rgb, 255, out);
  return -1;
}

double wg_color_contrast(wg_color a, wg_color b) {
  double la = wg_color_luminance(a) + 0.05, lb = wg_color_luminance(b) + 0.05;
  return la > lb ? la / lb : lb / la;
}

void wg_color_format(wg_color c, char out[10]) {
  if (c.a == 255)
    snprintf(out, 10, "#%02x%02x%02x", c.r, c.g, c.b);
  else
    snprintf(out, 10, "#%02x%02x%02x%02x", c.r, c.g, c.b, c.a);
}

wg_color wg_color_blend(wg_color a, wg_color b, int percent) {
  wg_color r;
  if (percent < 0) percent = 0;
  if (percent > 100) percent = 100;
  r.r = (uint8_t)((a.r * (100 - percent) + b.r * percent) / 100);
  r.g = (uint8_t)((a.g * (100 - percent) + b.g * percent) / 100);
  r.b = (uint8_t)((a.b * (100 - percent) + b.b * percent) / 100);
  r.a = (uint8_t)((a.a * (100 - percent) + b.a * percent) / 100);
  return r;
}

wg_color wg_color_lighten(wg_color c, int percent) {
  wg_color white = {255, 255, 255, c.a};
  return wg_color_blend(c, white, percent);
}

wg_color wg_color_darken(wg_color c, int percent) {
  wg_color black = {0, 0, 0, c.a};
  return wg_color_blend(c, black, percent);
}

static const char *const builtin_themes[] = {
    "name: slate\nfg: #e0e6ee\nbg: slate\naccent: #4f9dde\nborder: charcoal\n"
    "muted: gray\nerror: crimson\nfont-size: 13\npadding: 4\nradius: 3\ndark: 1\n",
    "name: paper\nfg: #202020\nbg: ivory\naccent: navy\nborder: silver\n"
    "muted: #777\nerror: maroon\nfont-size: 12\npadding: 3\nradius: 2\ndark: 0\n",
    "name: contrast\nfg: white\nbg: black\naccent: yellow\nborder: white\n"
    "muted: silver\nerror: red\nfont-size: 15\npadding: 6\nradius: 0\ndark: 1\n",
    "name: dusk\nfg: wheat\nbg: #2b2235\naccent: orchid\nborder: indigo\n"
    "muted: plum\nerror: tomato\nfont-size: 13\npadding: 4\nradius: 6\ndark: 1\n",
};

static int theme_set(wg_theme *t, const char *key, const char *value) {
  struct {
    const char *key;
    wg_color *slot;
  } colors[] = {{"fg", &t->fg},         {"bg", &t->bg},       {"accent", &t->accent},
                {"border", &t->border}, {"muted", &t->muted}, {"error", &t->error}};
  for (size_t i = 0; i < sizeof colors / sizeof colors[0]; i++)
    if (strcmp(key, colors[i].key) == 0) return wg_color_parse(value, colors[i].slot);
  if (strcmp(key, "name") == 0) {
    snprintf(t->name, sizeof t->name, "%s", value);
    return 0;
  }
  char *end;
  long v = strtol(value, &end, 10);
  if (*end != '\0') return -1;
  if (strcmp(key, "font-size") == 0) t->font_size = (int)v;
  else if (strcmp(key, "padding") == 0) t->padding = (int)v;
  else if (strcmp(key, "radius") == 0) t->radius = (int)v;
  else if (strcmp(key, "dark") == 0) t->dark = v != 0;
  else return -1;
  return 0;
}

void wg_theme_dark_variant(const wg_theme *in, wg_theme *out) {
  *out = *in;
  if (in->dark) return;
  out->fg = in->bg;
  out->bg = wg_color_darken(in->fg, 20);
  out->border = wg_color_darken(in->border, 50);
  out->muted = wg_color_darken(in->muted, 30);
  out->dark = 1;
  snprintf(out->name, sizeof out->name, "%.26s-dark", in->name);
}

int wg_theme_load(const char *text, wg_theme *out) {
  memset(out, 0, sizeof *out);
  out->font_size = 12;
  char line[128];
  while (*text) {
    size_t n = strcspn(text, "\n");
    if (n >= sizeof line) return -1;
    memcpy(line, text, n);
    line[n] = '\0';
    text += n + (text[n] == '\n');
    char *colon = strchr(line, ':');
    if (!colon) continue;
    *colon = '\0';
    char *value = colon + 1;
    while (*value == ' ') value++;
    if (theme_set(out, line, value) != 0) return -1;
  }
  return out->name[0] ? 0 : -1;
}

int wg_theme_check_contrast(const wg_theme *t, char *why, size_t cap) {
  double fg = wg_color_contrast(t->fg, t->bg);
  double accent = wg_color_contrast(t->accent, t->bg);
  if (fg < 4.5) {
    snprintf(why, cap, "text contrast %.2f below 4.5", fg);
    return -1;
  }
  if (accent < 3.0) {
    snprintf(why, cap, "accent contrast %.2f below 3.0", accent);
    return -1;
  }
  return 0;
}

int wg_theme_builtin(const char *name, wg_theme *out) {
  for (size_t i = 0; i < sizeof builtin_themes / sizeof builtin_themes[0]; i++) {
    wg_theme t;
    if (wg_theme_load(builtin_themes[i], &t) == 0 && strcmp(t.name, name) == 0) {
      *out = t;
      return 0;
    }
  }
  return -1;
}

uint32_t wg_theme_fingerprint(const wg_theme *t) {
  uint32_t h = 2166136261u;
  const wg_color *cs[] = {&t->fg, &t->bg, &t->accent, &t->border, &t->muted, &t->error};
  for (size_t i = 0; i < 6; i++) {
    h = (h ^ cs[i]->r) * 16777619u;
    h = (h ^ cs[i]->g) * 16777619u;
    h = (h ^ cs[i]->b) * 16777619u;
  }
  h = (h ^ (uint32_t)t->font_size) * 16777619u;
  h = (h ^ (uint32_t)t->padding) * 16777619u;
  return h;
}

/* Synthetic font: widths in 1/16 em by character class. */
static int glyph_class_width(uint32_t cp) {
  if (cp == ' ') return 5;
  if (cp == 'i' || cp == 'l' || cp == 'j' || cp == '!' || cp == '.' || cp == ',' || cp == '\'') return 4;
  if (cp == 'm' || cp == 'w' || cp == 'M' || cp == 'W') return 13;
  if (cp >= 'A' && cp <= 'Z') return 10;
  if (cp >= '0' && cp <= '9') return 9;
  if (cp < 0x80) return 8;
  if (cp >= 0x4E00 && cp <= 0x9FFF) return 16;
  return 9;
}

void wg_glyph_measure(uint32_t cp, int size, wg_glyph_metrics *m) {
  int w = glyph_class_width(cp);
  m->advance = (w * size + 8) / 16;
  m->ascent = (size * 12 + 8) / 16;
  m->descent = (size * 4 + 8) / 16;
  m->bearing = cp >= 'A' && cp <= 'Z' ? size / 16 : 0;
  if (cp == 'g' || cp == 'j' || cp == 'p' || cp == 'q' || cp == 'y') m->descent += size / 10;
}

int wg_text_width(const char *s, size_t n, int size) {
  int total = 0;
  size_t i = 0;
  while (i < n) {
    uint32_t cp;
    int k = wg_utf8_decode(s + i, n - i, &cp);
    if (k <= 0) {
      cp = 0xFFFD;
      k = 1;
    }
    wg_glyph_metrics m;
    wg_glyph_measure(cp, size, &m);
    total += m.advance;
    i += (size_t)k;
  }
  return total;
}
