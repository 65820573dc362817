/*
 * commands.c - the command table behind the console and the /cmd endpoint.
 *
 * At launch the table is indexed (names and aliases into hash maps) and
 * checked; handlers run only when a command arrives. Families of similar
 * commands (numeric settings, switches) are stamped out by macros.
 */
#include "launchpad.h"
#include "session.h"

#include "widgets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CMD_ADMIN = 1, CMD_HIDDEN = 2, CMD_SETTING = 4, CMD_UI = 8 };

static int usage_error(strbuf *out, const char *name, const char *what) {
  sb_appendf(out, "%s: %s (try 'help %s')\n", name, what, name);
  return 64;
}

/* Reads an integer argument; expressions are allowed: "set-volume 50+5". */
static int int_arg(const char *text, long lo, long hi, long *out, strbuf *err, const char *name) {
  double v;
  char msg[96];
  if (expr_eval_text(text, NULL, NULL, &v, msg, sizeof msg) != 0) {
    sb_appendf(err, "%s: '%s': %s\n", name, text, msg);
    return -1;
  }
  if (v < (double)lo || v > (double)hi) {
    sb_appendf(err, "%s: %g is outside [%ld, %ld]\n", name, v, lo, hi);
    return -1;
  }
  *out = (long)v;
  return 0;
}

/* ---- numeric settings ---- */

#define SETTING_COMMAND(IDENT, KEY, LO, HI, UNIT)                                                     \
  static int cmd_##IDENT(app *a, int argc, char **argv, strbuf *out) {                               \
    long old = cfg_get_int(&a->cfg, KEY, LO);                                                        \
    if (argc == 1) {                                                                                 \
      sb_appendf(out, "%s = %ld%s\n", KEY, old, UNIT);                                               \
      return 0;                                                                                      \
    }                                                                                                \
    long v;                                                                                          \
    const char *arg = argv[1];                                                                       \
    int relative = arg[0] == '+' || (arg[0] == '-' && arg[1] != '\0');                               \
    if (int_arg(relative ? arg + 1 : arg, relative ? 0 : (LO), HI, &v, out, argv[0]) != 0) return 65; \
    if (relative) v = arg[0] == '+' ? old + v : old - v;                                             \
    if (v < (LO)) v = (LO);                                                                          \
    if (v > (HI)) v = (HI);                                                                          \
    char text[32];                                                                                   \
    snprintf(text, sizeof text, "%ld", v);                                                           \
    if (cfg_set(&a->cfg, KEY, text) != 0) return 70;                                                 \
    sb_appendf(out, "%s: %ld%s -> %ld%s\n", KEY, old, UNIT, v, UNIT);                                \
    return 0;                                                                                        \
  }

SETTING_COMMAND(set_volume, "audio.volume", 0, 100, "%")
SETTING_COMMAND(set_brightness, "display.brightness", 5, 100, "%")
SETTING_COMMAND(set_width, "ui.width", 20, 400, " cols")
SETTING_COMMAND(set_height, "ui.height", 8, 200, " rows")
SETTING_COMMAND(set_font_size, "ui.font_size", 6, 48, "pt")
SETTING_COMMAND(set_workers, "workers.count", 1, 64, "")
SETTING_COMMAND(set_queue, "workers.queue", 4, 4096, "")
SETTING_COMMAND(set_glyph_cache, "cache.glyphs", 16, 65536, " entries")
SETTING_COMMAND(set_icon_cache, "cache.icons", 1, 1024, " entries")
SETTING_COMMAND(set_route_cache, "cache.routes", 1, 256, " entries")
SETTING_COMMAND(set_evict, "cache.evict_percent", 0, 100, "%")
SETTING_COMMAND(set_max_body, "server.max_body", 1024, 1 << 26, " bytes")
SETTING_COMMAND(set_timeout, "server.timeout_ms", 10, 600000, " ms")
SETTING_COMMAND(set_backlog, "server.backlog", 1, 4096, "")
SETTING_COMMAND(set_keepalive, "server.keepalive_s", 0, 3600, " s")
SETTING_COMMAND(set_history, "console.history", 0, 10000, " lines")
SETTING_COMMAND(set_scrollback, "console.scrollback", 100, 100000, " lines")
SETTING_COMMAND(set_tab_width, "editor.tab_width", 1, 16, "")
SETTING_COMMAND(set_autosave, "editor.autosave_s", 0, 3600, " s")
SETTING_COMMAND(set_undo_depth, "editor.undo_depth", 1, 100000, "")
SETTING_COMMAND(set_retry, "net.retries", 0, 20, "")
SETTING_COMMAND(set_retry_delay, "net.retry_delay_ms", 0, 60000, " ms")
SETTING_COMMAND(set_mtu, "net.mtu", 576, 9000, " bytes")
SETTING_COMMAND(set_dpi, "display.dpi", 72, 600, " dpi")
SETTING_COMMAND(set_refresh, "display.refresh_hz", 24, 360, " Hz")
SETTING_COMMAND(set_gamma, "display.gamma_pct", 50, 300, "%")
SETTING_COMMAND(set_log_size, "log.max_kib", 16, 1 << 20, " KiB")
SETTING_COMMAND(set_log_files, "log.keep", 1, 100, " files")

/* ---- switches ---- */

#define TOGGLE_COMMAND(IDENT, KEY, DESCR)                                                             \
  static int cmd_##IDENT(app *a, int argc, char **argv, strbuf *out) {                               \
    int cur = cfg_get_bool(&a->cfg, KEY, 0), next;                                                   \
    if (argc == 1) {                                                                                 \
      sb_appendf(out, "%s is %s\n", DESCR, cur ? "on" : "off");                                      \
      return 0;                                                                                      \
    }                                                                                                \
    if (strcmp(argv[1], "toggle") == 0) next = !cur;                                                 \
    else if (sv_to_bool(sv(argv[1]), &next) != 0) return usage_error(out, argv[0], "expected on, off or toggle"); \
    if (cfg_set(&a->cfg, KEY, next ? "on" : "off") != 0) return 70;                                  \
    sb_appendf(out, "%s %s%s\n", DESCR, next ? "enabled" : "disabled", next == cur ? " (unchanged)" : ""); \
    return 0;                                                                                        \
  }

TOGGLE_COMMAND(animations, "ui.animations", "animations")
TOGGLE_COMMAND(sound, "audio.enabled", "sound")
TOGGLE_COMMAND(notifications, "ui.notifications", "notifications")
TOGGLE_COMMAND(autosave, "editor.autosave", "autosave")
TOGGLE_COMMAND(word_wrap, "editor.wrap", "word wrap")
TOGGLE_COMMAND(line_numbers, "editor.line_numbers", "line numbers")
TOGGLE_COMMAND(telemetry, "app.telemetry", "telemetry")
TOGGLE_COMMAND(strict_plugins, "plugins.strict", "strict plugin loading")
TOGGLE_COMMAND(compression, "server.compression", "response compression")
TOGGLE_COMMAND(keepalive, "server.keepalive", "keep-alive")
TOGGLE_COMMAND(ipv6, "net.ipv6", "IPv6")
TOGGLE_COMMAND(proxy, "net.proxy", "proxy")
TOGGLE_COMMAND(high_contrast, "ui.high_contrast", "high contrast")
TOGGLE_COMMAND(reduce_motion, "ui.reduce_motion", "reduced motion")

/* ---- general commands ---- */

static int cmd_help_command(app *a, int argc, char **argv, strbuf *out);

static int cmd_version(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  (void)argv;
  sb_appendf(out, "%s 2.4.1 (%s, config v%d)\n", a->name, wg_library_version(), a->cfg.version);
  return 0;
}

static int cmd_echo(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  for (int i = 1; i < argc; i++) {
    if (i > 1) sb_append_char(out, ' ');
    sb_append(out, argv[i]);
  }
  sb_append_char(out, '\n');
  return 0;
}

static int config_lookup(void *ctx, const char *name, double *out) {
  const config *c = ctx;
  const char *raw = cfg_get_str(c, name, NULL);
  return raw && sv_to_double(sv(raw), out) == 0 ? 0 : -1;
}

static int cmd_calc(app *a, int argc, char **argv, strbuf *out) {
  strbuf text;
  sb_init(&text);
  for (int i = 1; i < argc; i++) {
    if (i > 1) sb_append_char(&text, ' ');
    sb_append(&text, argv[i]);
  }
  double v;
  char err[96];
  int rc = expr_eval_text(sb_cstr(&text), config_lookup, &a->cfg, &v, err, sizeof err);
  if (rc == 0) sb_appendf(out, "%.10g\n", v);
  else sb_appendf(out, "calc: %s\n", err);
  sb_free(&text);
  return rc == 0 ? 0 : 65;
}

static int cmd_config_get(app *a, int argc, char **argv, strbuf *out) {
  for (int i = 1; i < argc; i++) {
    const char *v = cfg_get_str(&a->cfg, argv[i], NULL);
    if (v) sb_appendf(out, "%s = %s\n", argv[i], v);
    else sb_appendf(out, "%s is not set\n", argv[i]);
  }
  return 0;
}

static int cmd_config_set(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  if (cfg_set(&a->cfg, argv[1], argv[2]) != 0) return usage_error(out, argv[0], "bad key");
  sb_appendf(out, "%s = %s\n", argv[1], argv[2]);
  return 0;
}

static int cmd_config_dump(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  (void)argv;
  return cfg_dump(&a->cfg, out) >= 0 ? 0 : 70;
}

static int cmd_config_check(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  (void)argv;
  int bad = cfg_validate(&a->cfg, out);
  if (bad == 0) sb_append(out, "configuration is valid\n");
  return bad ? 65 : 0;
}

static int cmd_plugins(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  (void)argv;
  reg_describe(&a->plugins, out);
  sb_appendf(out, "%zu active, %zu failed, %zu disabled\n", reg_count_state(&a->plugins, PLUGIN_ACTIVE),
             reg_count_state(&a->plugins, PLUGIN_FAILED), reg_count_state(&a->plugins, PLUGIN_DISABLED));
  return 0;
}

static int cmd_plugin_info(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  plugin *p = reg_find(&a->plugins, argv[1]);
  if (!p) {
    sb_appendf(out, "no plugin named '%s'\n", argv[1]);
    return 65;
  }
  sb_appendf(out, "%s: %s\n  requires: %s\n  priority: %d, activation order: %d\n", p->name, p->summary,
             p->requires ? p->requires : "(nothing)", p->priority, p->order);
  return 0;
}

static int cmd_plugin_disable(app *a, int argc, char **argv, strbuf *out) {
  for (int i = 1; i < argc; i++) {
    if (reg_disable(&a->plugins, argv[i]) != 0) {
      sb_appendf(out, "no plugin named '%s'\n", argv[i]);
      return 65;
    }
    sb_appendf(out, "disabled %s\n", argv[i]);
  }
  return 0;
}

static int cmd_plugin_unload(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  if (reg_unload(&a->plugins, argv[1]) != 0) {
    sb_appendf(out, "cannot unload '%s'\n", argv[1]);
    return 65;
  }
  sb_appendf(out, "unloaded %s\n", argv[1]);
  return 0;
}

static int cmd_caches(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  (void)argv;
  for (size_t i = 0; i < a->ncaches; i++) cache_format_stats(a->caches[i], out);
  return 0;
}

static int cmd_cache_evict(app *a, int argc, char **argv, strbuf *out) {
  long keep = 0;
  if (argc > 2 && int_arg(argv[2], 0, 1 << 20, &keep, out, argv[0]) != 0) return 65;
  for (size_t i = 0; i < a->ncaches; i++) {
    if (strcmp(cache_name(a->caches[i]), argv[1]) != 0) continue;
    int n = cache_evict(a->caches[i], (size_t)keep);
    sb_appendf(out, "evicted %d entries from %s\n", n, argv[1]);
    return 0;
  }
  sb_appendf(out, "no cache named '%s'\n", argv[1]);
  return 65;
}

static int cmd_log_tail(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  long lines = 10;
  if (argc > 1 && int_arg(argv[1], 1, 1000, &lines, out, argv[0]) != 0) return 65;
  char buf[8192];
  log_tail(buf, sizeof buf, (unsigned)lines);
  sb_append(out, buf);
  return 0;
}

static int cmd_log_level(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  if (argc == 1) {
    sb_appendf(out, "log level is %s\n", log_level_name(log_get_level()));
    return 0;
  }
  log_level lv;
  if (log_level_from_name(argv[1], &lv) != 0) return usage_error(out, argv[0], "unknown level");
  log_set_level(lv);
  sb_appendf(out, "log level set to %s\n", log_level_name(lv));
  return 0;
}

static int cmd_log_rotate(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  (void)argc;
  (void)argv;
  log_rotate();
  sb_append(out, "log rotated\n");
  return 0;
}

static int cmd_widgets(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  (void)argv;
  char buf[8192];
  if (!a->root_widget || wg_describe_tree(a->root_widget, buf, sizeof buf) < 0) {
    sb_append(out, "no window\n");
    return 70;
  }
  sb_append(out, buf);
  return 0;
}

static int cmd_render(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  (void)argv;
  const wg_theme *t = wg_library_theme();
  wg_widget *root = a->root_widget;
  if (!root || !t) return 70;
  wg_canvas c;
  if (wg_canvas_init(&c, root->frame.w, root->frame.h) != 0) return 70;
  wg_render(root, t, &c);
  for (int y = 0; y < c.h; y++) {
    sb_append_n(out, c.cells + y * c.w, (size_t)c.w);
    sb_append_char(out, '\n');
  }
  wg_canvas_free(&c);
  return 0;
}

static int cmd_find_widget(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  wg_widget *w = a->root_widget ? wg_find(a->root_widget, argv[1]) : NULL;
  if (!w) {
    sb_appendf(out, "no widget '%s'\n", argv[1]);
    return 65;
  }
  char buf[256];
  w->kind->describe(w, buf, sizeof buf);
  sb_appendf(out, "%s (depth %d)\n", buf, wg_depth(w));
  return 0;
}

static int cmd_click(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  long x, y;
  if (int_arg(argv[1], 0, 1000, &x, out, argv[0]) != 0 || int_arg(argv[2], 0, 1000, &y, out, argv[0]) != 0)
    return 65;
  wg_event e = {WG_EV_CLICK, (int)x, (int)y, 0, 0};
  int handled = a->root_widget ? wg_dispatch(a->root_widget, &e) : 0;
  wg_widget *hit = a->root_widget ? wg_hit_test(a->root_widget, (int)x, (int)y) : NULL;
  sb_appendf(out, "click at %ld,%ld: %s (%s)\n", x, y, hit ? hit->id : "nothing", handled ? "handled" : "ignored");
  return 0;
}

static int cmd_type(app *a, int argc, char **argv, strbuf *out) {
  int handled = 0;
  for (int i = 1; i < argc; i++) {
    for (const char *p = argv[i]; *p; p++) {
      wg_event e = {WG_EV_KEY, 0, 0, *p, 0};
      handled += a->root_widget && wg_dispatch(a->root_widget, &e);
    }
  }
  sb_appendf(out, "%d keys handled\n", handled);
  return 0;
}

static int cmd_a11y(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  (void)argv;
  char buf[8192];
  if (!a->root_widget || wg_accessibility_tree(a->root_widget, buf, sizeof buf) < 0) return 70;
  sb_append(out, buf);
  return 0;
}

static int cmd_save_state(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  (void)argv;
  uint8_t buf[4096];
  long n = a->root_widget ? wg_save_state(a->root_widget, buf, sizeof buf) : -1;
  if (n < 0) return 70;
  sb_appendf(out, "window state: %ld bytes, crc %08x\n", n, wg_crc32(0, buf, (size_t)n));
  return 0;
}

static int cmd_theme(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  (void)argc;
  (void)argv;
  const wg_theme *t = wg_library_theme();
  if (!t) return 70;
  char fg[10], bg[10], accent[10];
  wg_color_format(t->fg, fg);
  wg_color_format(t->bg, bg);
  wg_color_format(t->accent, accent);
  sb_appendf(out, "%s: fg %s bg %s accent %s, %dpt, contrast %.2f\n", t->name, fg, bg, accent, t->font_size,
             wg_color_contrast(t->fg, t->bg));
  return 0;
}

static int cmd_contrast(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  (void)argc;
  wg_color x, y;
  if (wg_color_parse(argv[1], &x) != 0 || wg_color_parse(argv[2], &y) != 0)
    return usage_error(out, argv[0], "expected two colours");
  double r = wg_color_contrast(x, y);
  sb_appendf(out, "contrast %.2f:1 (%s)\n", r, r >= 7 ? "AAA" : r >= 4.5 ? "AA" : r >= 3 ? "AA large" : "fail");
  return 0;
}

static int cmd_blend(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  wg_color x, y;
  long pct = 50;
  if (wg_color_parse(argv[1], &x) != 0 || wg_color_parse(argv[2], &y) != 0)
    return usage_error(out, argv[0], "expected two colours");
  if (argc > 3 && int_arg(argv[3], 0, 100, &pct, out, argv[0]) != 0) return 65;
  char buf[10];
  wg_color_format(wg_color_blend(x, y, (int)pct), buf);
  sb_appendf(out, "%s\n", buf);
  return 0;
}

static int cmd_layout(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  long total, gap = 1;
  int weights[16], sizes[16], n = 0;
  if (int_arg(argv[1], 1, 10000, &total, out, argv[0]) != 0) return 65;
  for (int i = 2; i < argc && n < 16; i++) {
    long w;
    if (int_arg(argv[i], 1, 100, &w, out, argv[0]) != 0) return 65;
    weights[n++] = (int)w;
  }
  if (wg_layout_distribute((int)total, weights, n, (int)gap, sizes) != 0) {
    sb_append(out, "layout: not enough room\n");
    return 65;
  }
  for (int i = 0; i < n; i++) sb_appendf(out, "%s%d", i ? " " : "", sizes[i]);
  sb_append_char(out, '\n');
  return 0;
}

static int cmd_base64(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  (void)argc;
  int decode = strcmp(argv[1], "-d") == 0;
  const char *in = decode ? argv[2] : argv[1];
  if (!in) return usage_error(out, argv[0], "missing input");
  size_t n = strlen(in);
  char *buf = malloc(wg_base64_encoded_size(n) + 1);
  if (!buf) return 70;
  if (decode) {
    long m = wg_base64_decode(in, n, (uint8_t *)buf);
    if (m < 0) sb_append(out, "base64: malformed input\n");
    else {
      sb_append_n(out, buf, (size_t)m);
      sb_append_char(out, '\n');
    }
  } else {
    wg_base64_encode((const uint8_t *)in, n, buf);
    sb_appendf(out, "%s\n", buf);
  }
  free(buf);
  return 0;
}

static int cmd_checksum(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  for (int i = 1; i < argc; i++) {
    size_t n = strlen(argv[i]);
    sb_appendf(out, "%08x %08x  %s\n", wg_crc32(0, argv[i], n), wg_adler32(1, argv[i], n), argv[i]);
  }
  return 0;
}

static int cmd_hex(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  (void)argc;
  size_t n = strlen(argv[1]);
  char *buf = malloc(2 * n + 1);
  if (!buf) return 70;
  wg_hex_encode((const uint8_t *)argv[1], n, buf);
  sb_appendf(out, "%s\n", buf);
  free(buf);
  return 0;
}

static int cmd_utf8(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  for (int i = 1; i < argc; i++) {
    size_t n = strlen(argv[i]);
    if (!wg_utf8_valid(argv[i], n)) sb_appendf(out, "%s: not valid UTF-8\n", argv[i]);
    else sb_appendf(out, "%s: %zu code points, %zu bytes\n", argv[i], wg_utf8_length(argv[i], n), n);
  }
  return 0;
}

static int cmd_wrap(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  long width;
  if (int_arg(argv[1], 8, 200, &width, out, argv[0]) != 0) return 65;
  strbuf text;
  sb_init(&text);
  for (int i = 2; i < argc; i++) {
    if (i > 2) sb_append_char(&text, ' ');
    sb_append(&text, argv[i]);
  }
  str_wrap(sb_cstr(&text), (int)width, out);
  sb_append_char(out, '\n');
  sb_free(&text);
  return 0;
}

static int cmd_upper(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  for (int i = 1; i < argc; i++) {
    str_to_upper(argv[i]);
    sb_appendf(out, "%s%s", i > 1 ? " " : "", argv[i]);
  }
  sb_append_char(out, '\n');
  return 0;
}

static int cmd_lower(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  for (int i = 1; i < argc; i++) {
    str_to_lower(argv[i]);
    sb_appendf(out, "%s%s", i > 1 ? " " : "", argv[i]);
  }
  sb_append_char(out, '\n');
  return 0;
}

static int cmd_replace(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  (void)argc;
  char *r = str_replace_all(argv[1], argv[2], argv[3]);
  if (!r) return 70;
  sb_appendf(out, "%s\n", r);
  free(r);
  return 0;
}

static int cmd_glob(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  int matched = 0;
  for (int i = 2; i < argc; i++) {
    if (!str_glob_match(argv[1], argv[i])) continue;
    sb_appendf(out, "%s\n", argv[i]);
    matched++;
  }
  return matched ? 0 : 1;
}

static int cmd_distance(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  (void)argc;
  sb_appendf(out, "%d\n", str_levenshtein(argv[1], argv[2]));
  return 0;
}

static int cmd_metrics(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  int json = argc > 1 && strcmp(argv[1], "--json") == 0;
  return (json ? metrics_render_json(out) : metrics_render_text(out)) == 0 ? 0 : 70;
}

static int cmd_metrics_reset(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  (void)argc;
  (void)argv;
  metrics_reset();
  sb_append(out, "metrics reset\n");
  return 0;
}

static int cmd_status(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  (void)argv;
  sb_appendf(out, "%s: %s, %zu config keys, %zu plugins active, %u requests (%u errors)\n", a->name,
             a->startup_done ? "running" : "starting", cfg_count(&a->cfg),
             reg_count_state(&a->plugins, PLUGIN_ACTIVE), a->requests, a->request_errors);
  return 0;
}

static int cmd_arena(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  (void)argv;
  char buf[160];
  arena_format_stats(&a->cfg.mem, buf, sizeof buf);
  sb_appendf(out, "config arena: %s\n", buf);
  arena_format_stats(&a->scratch, buf, sizeof buf);
  sb_appendf(out, "scratch arena: %s\n", buf);
  if (arena_check(&a->cfg.mem, buf, sizeof buf) != 0) sb_appendf(out, "config arena damaged: %s\n", buf);
  return 0;
}

static int cmd_hashstats(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  (void)argv;
  char buf[160];
  hm_format_stats(&a->cfg.entries, buf, sizeof buf);
  sb_appendf(out, "config: %s\n", buf);
  hm_format_stats(&a->commands, buf, sizeof buf);
  sb_appendf(out, "commands: %s\n", buf);
  if (hm_check(&a->commands, buf, sizeof buf) != 0) sb_appendf(out, "command index damaged: %s\n", buf);
  return 0;
}

static int cmd_alias(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  if (!cmd_find(argv[2])) {
    sb_appendf(out, "alias: no command '%s'\n", argv[2]);
    return 65;
  }
  hm_put(&a->aliases, arena_strdup(&a->scratch, argv[1]), (void *)cmd_find(argv[2]));
  sb_appendf(out, "%s is now an alias of %s\n", argv[1], argv[2]);
  return 0;
}

static int cmd_unalias(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  if (hm_remove(&a->aliases, argv[1]) != 0) {
    sb_appendf(out, "unalias: '%s' is not an alias\n", argv[1]);
    return 65;
  }
  return 0;
}

static int cmd_repeat(app *a, int argc, char **argv, strbuf *out) {
  long n;
  if (int_arg(argv[1], 1, 100, &n, out, argv[0]) != 0) return 65;
  strbuf line;
  sb_init(&line);
  for (int i = 2; i < argc; i++) {
    if (i > 2) sb_append_char(&line, ' ');
    sb_append(&line, argv[i]);
  }
  int rc = 0;
  for (long i = 0; i < n && rc == 0; i++) rc = cmd_execute(a, sb_cstr(&line), out);
  sb_free(&line);
  return rc;
}

static int cmd_reload(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  (void)argv;
  config fresh;
  if (cfg_load_default(&fresh) != 0) {
    sb_append(out, "reload: configuration has errors, keeping the old one\n");
    cfg_free(&fresh);
    return 65;
  }
  cfg_apply_profile(&fresh, a->cfg.profile);
  int changes = cfg_diff(&a->cfg, &fresh, out);
  sb_appendf(out, "reload: %d changes\n", changes);
  cfg_free(&a->cfg);
  a->cfg = fresh;
  return 0;
}

static int cmd_quit(app *a, int argc, char **argv, strbuf *out) {
  (void)argc;
  (void)argv;
  pool_cancel_pending(a->workers);
  sb_append(out, "bye\n");
  return 0;
}

static int cmd_records(app *a, int argc, char **argv, strbuf *out) {
  for (size_t d = 0; d < rec_domain_count; d++) {
    sb_appendf(out, "%s:", rec_domains[d].name);
    for (size_t i = 0; i < *rec_domains[d].count; i++) sb_appendf(out, " %s", rec_domains[d].records[i].name);
    sb_append_char(out, '\n');
  }
  sb_appendf(out, "%zu records in %zu domains\n", rec_total_count(), rec_domain_count);
  return 0;
}

static int cmd_record(app *a, int argc, char **argv, strbuf *out) {
  if (argc % 2 != 0) {
    sb_appendf(out, "record: '%s' has no value (give field value pairs)\n", argv[argc - 1]);
    return 2;
  }
  char domain[32];
  const char *dot = strchr(argv[1], '.');
  if (!dot || (size_t)(dot - argv[1]) >= sizeof domain) {
    sb_appendf(out, "record: expected DOMAIN.Record, got '%s'\n", argv[1]);
    return 2;
  }
  memcpy(domain, argv[1], (size_t)(dot - argv[1]));
  domain[dot - argv[1]] = 0;
  const rec_type *t = rec_find(domain, dot + 1);
  if (!t) {
    sb_appendf(out, "record: no record %s (see 'records')\n", argv[1]);
    return 1;
  }
  arena scratch;
  arena_init(&scratch, 4096);
  void *value = arena_calloc(&scratch, 1, t->size);
  int rc = 0;
  if (value) {
    t->init(value);
    for (int i = 2; i + 1 < argc; i += 2) {
      if (t->set(value, argv[i], argv[i + 1]) != 0) {
        sb_appendf(out, "record: cannot set %s to '%s'\n", argv[i], argv[i + 1]);
        rc = 2;
        break;
      }
    }
    char why[160];
    if (rc == 0 && t->validate(value, why, sizeof why) != 0) {
      sb_appendf(out, "record: %s\n", why);
      rc = 2;
    }
    if (rc == 0) t->print(value, out);
  }
  arena_destroy(&scratch);
  return rc;
}

static int cmd_session(app *a, int argc, char **argv, strbuf *out) {
  if (session_print(a->session, argc > 1 ? argv[1] : NULL, out) == 0) {
    sb_appendf(out, "session: nothing matches '%s'\n", argv[1]);
    return 1;
  }
  return 0;
}

static int cmd_session_diff(app *a, int argc, char **argv, strbuf *out) {
  int n = session_diff_defaults(a->session, out);
  sb_appendf(out, "%d fields differ from the defaults\n", n);
  return 0;
}

static int cmd_session_merge(app *a, int argc, char **argv, strbuf *out) {
  strbuf text;
  sb_init(&text);
  for (int i = 1; i < argc; i++) {
    sb_append(&text, argv[i]);
    sb_append_char(&text, '\n');
  }
  char err[160];
  int rc = session_merge_text(a->session, sb_cstr(&text), err, sizeof err);
  sb_free(&text);
  if (rc != 0) {
    sb_appendf(out, "session-merge: %s\n", err);
    return 2;
  }
  sb_append(out, "merged\n");
  return 0;
}

/* ---- the table ---- */

#define SETTING(NAME, IDENT, SUMMARY) {NAME, SUMMARY, 0, 1, CMD_SETTING, cmd_##IDENT}
#define TOGGLE(NAME, IDENT, SUMMARY) {NAME, SUMMARY, 0, 1, CMD_SETTING, cmd_##IDENT}

static const command commands[] = {
    {"help", "list commands or explain one", 0, 1, 0, cmd_help_command},
    {"version", "print version information", 0, 0, 0, cmd_version},
    {"echo", "print the arguments", 0, 32, CMD_HIDDEN, cmd_echo},
    {"calc", "evaluate an expression", 1, 32, 0, cmd_calc},
    {"status", "summarise the application state", 0, 0, 0, cmd_status},
    {"config-get", "print configuration values", 1, 16, 0, cmd_config_get},
    {"config-set", "set a configuration value", 2, 2, CMD_ADMIN, cmd_config_set},
    {"config-dump", "print the whole configuration", 0, 0, 0, cmd_config_dump},
    {"config-check", "validate the configuration", 0, 0, 0, cmd_config_check},
    {"reload", "reload the configuration", 0, 0, CMD_ADMIN, cmd_reload},
    {"plugins", "list plugins and their state", 0, 0, 0, cmd_plugins},
    {"plugin-info", "describe one plugin", 1, 1, 0, cmd_plugin_info},
    {"plugin-disable", "disable plugins", 1, 8, CMD_ADMIN, cmd_plugin_disable},
    {"plugin-unload", "unload a plugin", 1, 1, CMD_ADMIN, cmd_plugin_unload},
    {"caches", "cache statistics", 0, 0, 0, cmd_caches},
    {"cache-evict", "evict entries from a cache", 1, 2, CMD_ADMIN, cmd_cache_evict},
    {"log-tail", "print the last log lines", 0, 1, 0, cmd_log_tail},
    {"log-level", "get or set the log level", 0, 1, 0, cmd_log_level},
    {"log-rotate", "start a fresh log", 0, 0, CMD_ADMIN, cmd_log_rotate},
    {"widgets", "print the widget tree", 0, 0, CMD_UI, cmd_widgets},
    {"render", "draw the window as text", 0, 0, CMD_UI, cmd_render},
    {"find-widget", "describe a widget by id", 1, 1, CMD_UI, cmd_find_widget},
    {"click", "send a click to the window", 2, 2, CMD_UI, cmd_click},
    {"type", "send key presses to the window", 1, 16, CMD_UI, cmd_type},
    {"a11y", "print the accessibility tree", 0, 0, CMD_UI, cmd_a11y},
    {"save-state", "serialise the window state", 0, 0, CMD_UI, cmd_save_state},
    {"theme", "describe the current theme", 0, 0, CMD_UI, cmd_theme},
    {"contrast", "contrast ratio of two colours", 2, 2, CMD_UI, cmd_contrast},
    {"blend", "blend two colours", 2, 3, CMD_UI, cmd_blend},
    {"layout", "distribute space by weights", 2, 17, CMD_UI, cmd_layout},
    {"base64", "encode (or -d decode) base64", 1, 2, 0, cmd_base64},
    {"checksum", "CRC-32 and Adler-32 of strings", 1, 16, 0, cmd_checksum},
    {"hex", "hex-encode a string", 1, 1, 0, cmd_hex},
    {"utf8", "check and count UTF-8 strings", 1, 16, 0, cmd_utf8},
    {"wrap", "wrap text to a width", 2, 64, 0, cmd_wrap},
    {"upper", "upper-case the arguments", 1, 32, CMD_HIDDEN, cmd_upper},
    {"lower", "lower-case the arguments", 1, 32, CMD_HIDDEN, cmd_lower},
    {"replace", "replace every occurrence in a string", 3, 3, CMD_HIDDEN, cmd_replace},
    {"glob", "filter words by a glob pattern", 2, 64, 0, cmd_glob},
    {"distance", "edit distance of two words", 2, 2, CMD_HIDDEN, cmd_distance},
    {"metrics", "print metrics (--json)", 0, 1, 0, cmd_metrics},
    {"metrics-reset", "zero all metrics", 0, 0, CMD_ADMIN, cmd_metrics_reset},
    {"arena", "allocator statistics", 0, 0, CMD_HIDDEN, cmd_arena},
    {"hashstats", "hash table statistics", 0, 0, CMD_HIDDEN, cmd_hashstats},
    {"alias", "define a command alias", 2, 2, 0, cmd_alias},
    {"unalias", "remove a command alias", 1, 1, 0, cmd_unalias},
    {"repeat", "run a command several times", 2, 32, 0, cmd_repeat},
    {"quit", "stop accepting work", 0, 0, 0, cmd_quit},
    {"records", "list the record types", 0, 0, 0, cmd_records},
    {"record", "print a record: DOMAIN.Record [field value]...", 1, 17, 0, cmd_record},
    {"session", "print the restored session (or one domain or record)", 0, 1, 0, cmd_session},
    {"session-diff", "session fields that differ from the defaults", 0, 0, 0, cmd_session_diff},
    {"session-merge", "merge domain.Record.field=value settings (defaults change nothing, lists append)", 1, 16, CMD_ADMIN, cmd_session_merge},
    SETTING("volume", set_volume, "audio volume (0-100)"),
    SETTING("brightness", set_brightness, "display brightness"),
    SETTING("width", set_width, "window width in columns"),
    SETTING("height", set_height, "window height in rows"),
    SETTING("font-size", set_font_size, "font size in points"),
    SETTING("workers", set_workers, "worker thread count"),
    SETTING("queue", set_queue, "worker queue length"),
    SETTING("glyph-cache", set_glyph_cache, "glyph cache size"),
    SETTING("icon-cache", set_icon_cache, "icon cache size"),
    SETTING("route-cache", set_route_cache, "route cache size"),
    SETTING("evict", set_evict, "cache eviction percentage"),
    SETTING("max-body", set_max_body, "largest request body"),
    SETTING("timeout", set_timeout, "request timeout"),
    SETTING("backlog", set_backlog, "listen backlog"),
    SETTING("keepalive-time", set_keepalive, "keep-alive time"),
    SETTING("history", set_history, "console history length"),
    SETTING("scrollback", set_scrollback, "console scrollback"),
    SETTING("tab-width", set_tab_width, "editor tab width"),
    SETTING("autosave-time", set_autosave, "autosave interval"),
    SETTING("undo-depth", set_undo_depth, "undo depth"),
    SETTING("retries", set_retry, "network retries"),
    SETTING("retry-delay", set_retry_delay, "delay between retries"),
    SETTING("mtu", set_mtu, "network MTU"),
    SETTING("dpi", set_dpi, "display DPI"),
    SETTING("refresh", set_refresh, "display refresh rate"),
    SETTING("gamma", set_gamma, "display gamma"),
    SETTING("log-size", set_log_size, "largest log file"),
    SETTING("log-files", set_log_files, "log files kept"),
    TOGGLE("animations", animations, "interface animations"),
    TOGGLE("sound", sound, "sound effects"),
    TOGGLE("notifications", notifications, "desktop notifications"),
    TOGGLE("autosave", autosave, "automatic saving"),
    TOGGLE("word-wrap", word_wrap, "editor word wrap"),
    TOGGLE("line-numbers", line_numbers, "editor line numbers"),
    TOGGLE("telemetry", telemetry, "usage telemetry"),
    TOGGLE("strict-plugins", strict_plugins, "fail on plugin errors"),
    TOGGLE("compression", compression, "compress responses"),
    TOGGLE("keepalive", keepalive, "HTTP keep-alive"),
    TOGGLE("ipv6", ipv6, "IPv6 sockets"),
    TOGGLE("proxy", proxy, "outgoing proxy"),
    TOGGLE("high-contrast", high_contrast, "high-contrast theme"),
    TOGGLE("reduce-motion", reduce_motion, "reduced motion"),
};

static const struct {
  const char *alias, *target;
} default_aliases[] = {
    {"?", "help"}, {"h", "help"}, {"ver", "version"}, {"=", "calc"}, {"get", "config-get"},
    {"set", "config-set"}, {"ls", "plugins"}, {"q", "quit"}, {"exit", "quit"}, {"vol", "volume"},
};

static hashmap command_index;

size_t cmd_count(void) { return sizeof commands / sizeof commands[0]; }

const command *cmd_at(size_t i) { return i < cmd_count() ? &commands[i] : NULL; }

const command *cmd_find(const char *name) { return hm_get(&command_index, name); }

static int check_command(const command *c, strbuf *problems) {
  int bad = 0;
  if (!str_is_identifier(c->name) && strcmp(c->name, "?") != 0) {
    sb_appendf(problems, "command '%s': name is not an identifier\n", c->name);
    bad++;
  }
  if (c->min_args > c->max_args) {
    sb_appendf(problems, "command '%s': min_args %d > max_args %d\n", c->name, c->min_args, c->max_args);
    bad++;
  }
  if (!c->run || !c->summary || !*c->summary) {
    sb_appendf(problems, "command '%s': missing handler or summary\n", c->name);
    bad++;
  }
  return bad;
}

int cmd_table_init(app *a) {
  strbuf problems;
  sb_init(&problems);
  if (hm_init(&command_index, cmd_count() * 2) != 0 || hm_init(&a->aliases, 32) != 0) return -1;
  int bad = 0;
  for (size_t i = 0; i < cmd_count(); i++) {
    bad += check_command(&commands[i], &problems);
    if (hm_put(&command_index, commands[i].name, (void *)&commands[i]) == 1) {
      sb_appendf(&problems, "command '%s' defined twice\n", commands[i].name);
      bad++;
    }
  }
  for (size_t i = 0; i < sizeof default_aliases / sizeof default_aliases[0]; i++) {
    const command *target = cmd_find(default_aliases[i].target);
    if (!target) {
      sb_appendf(&problems, "alias '%s' names unknown command '%s'\n", default_aliases[i].alias,
                 default_aliases[i].target);
      bad++;
      continue;
    }
    hm_put(&a->aliases, default_aliases[i].alias, (void *)target);
  }
  if (bad) log_write(LOG_ERROR, "commands", "%d problems in the command table:\n%s", bad, sb_cstr(&problems));
  sb_free(&problems);
  a->commands = command_index;
  LOGI("commands", "%zu commands, %zu aliases", cmd_count(), hm_len(&a->aliases));
  return bad ? -1 : 0;
}

static int suggest(const char *word, strbuf *out) {
  const char *names[sizeof commands / sizeof commands[0]];
  for (size_t i = 0; i < cmd_count(); i++) names[i] = commands[i].name;
  const char *best = str_closest(word, names, cmd_count());
  if (best) sb_appendf(out, "unknown command '%s'; did you mean '%s'?\n", word, best);
  else sb_appendf(out, "unknown command '%s'\n", word);
  return 64;
}

int cmd_execute(app *a, const char *line, strbuf *out) {
  char buf[512];
  char *argv[33];
  if (strlen(line) >= sizeof buf) return usage_error(out, "console", "line too long");
  strcpy(buf, line);
  int argc = str_split_words(buf, argv, 32);
  if (argc == 0) return 0;
  argv[argc] = NULL;
  const command *c = hm_get(&a->aliases, argv[0]);
  if (!c) c = cmd_find(argv[0]);
  if (!c) return suggest(argv[0], out);
  if (argc - 1 < c->min_args || argc - 1 > c->max_args) return usage_error(out, c->name, "wrong number of arguments");
  metrics_inc("commands_run");
  int rc = c->run(a, argc, argv, out);
  if (rc != 0) metrics_inc("commands_failed");
  return rc;
}

int cmd_help(strbuf *out, const char *topic) {
  if (topic) {
    const command *c = cmd_find(topic);
    if (!c) return suggest(topic, out);
    sb_appendf(out, "%s: %s (%d to %d arguments)%s\n", c->name, c->summary, c->min_args, c->max_args,
               c->flags & CMD_ADMIN ? " [admin]" : "");
    return 0;
  }
  int shown = 0;
  for (size_t i = 0; i < cmd_count(); i++) {
    if (commands[i].flags & CMD_HIDDEN) continue;
    sb_append_padded(out, commands[i].name, 16, 0);
    sb_appendf(out, "%s\n", commands[i].summary);
    shown++;
  }
  sb_appendf(out, "%d commands (%zu including hidden ones)\n", shown, cmd_count());
  return 0;
}

static int cmd_help_command(app *a, int argc, char **argv, strbuf *out) {
  (void)a;
  return cmd_help(out, argc > 1 ? argv[1] : NULL);
}
