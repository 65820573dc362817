/*
 * config.c - the configuration file: INI-style sections, quoted strings,
 * lists, computed values ("= expression"), profile sections that override
 * the base ones, and LAUNCHPAD_SECTION_KEY environment overrides.
 */
#include "launchpad.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char default_config[] =
    "# launchpad default configuration\n"
    "version = 2\n"
    "\n"
    "[app]\n"
    "name = \"launchpad\"\n"
    "profile = desktop\n"
    "locale = en_US\n"
    "greeting = \"ready when you are\\n\"\n"
    "\n"
    "[log]\n"
    "level = info\n"
    "file = \"\"\n"
    "\n"
    "[workers]\n"
    "count = 4\n"
    "queue = 64\n"
    "stack_kib = = kib(256) / 1024\n"
    "\n"
    "[ui]\n"
    "theme = slate\n"
    "width = 72\n"
    "height = 20\n"
    "font_size = 13\n"
    "layout = column\n"
    "animations = on\n"
    "scale = 1.25\n"
    "\n"
    "[cache]\n"
    "glyphs = = clamp(workers.count * 96, 256, 4096)\n"
    "icons = 48\n"
    "locale_entries = = pow2(ui.width * 3)\n"
    "routes = 32\n"
    "evict_percent = 25\n"
    "\n"
    "[server]\n"
    "listen = 127.0.0.1:8080\n"
    "max_body = = kib(64)\n"
    "timeout_ms = = 30 * 1000\n"
    "routes = /, /status, /config/*, /calc, /plugins, /widgets/*, /metrics, /health\n"
    "\n"
    "[plugins]\n"
    "enabled = window, panel, label, button, textbox, listview, toolbar, statusbar, menubar, progress\n"
    "disabled = datepick, colorpick\n"
    "strict = yes\n"
    "\n"
    "[profile.server]\n"
    "ui.theme = contrast\n"
    "workers.count = 8\n"
    "plugins.strict = no\n"
    "\n"
    "[profile.desktop]\n"
    "ui.animations = on\n"
    "cache.icons = 64\n";

static const char *const known_sections[] = {"app", "log", "workers", "ui", "cache", "server", "plugins"};

typedef struct {
  config *c;
  const char *origin;
  int line;
  char section[48];
  int errors;
} load_state;

static void cfg_warn(load_state *st, const char *fmt, const char *detail) {
  char msg[160];
  snprintf(msg, sizeof msg, fmt, detail);
  log_write(LOG_WARN, "config", "%s:%d: %s", st->origin, st->line, msg);
  st->c->warnings++;
}

static int is_known_section(const char *s) {
  for (size_t i = 0; i < sizeof known_sections / sizeof known_sections[0]; i++)
    if (strcmp(known_sections[i], s) == 0) return 1;
  return strncmp(s, "profile.", 8) == 0;
}

static char *cfg_unquote(arena *a, strview v, int *ok) {
  *ok = 1;
  if (v.n < 2 || v.p[0] != '"') return sv_dup(v, a);
  if (v.p[v.n - 1] != '"') {
    *ok = 0;
    return sv_dup(v, a);
  }
  char *out = arena_alloc_aligned(a, v.n, 1);
  size_t o = 0;
  for (size_t i = 1; i + 1 < v.n; i++) {
    char ch = v.p[i];
    if (ch == '\\' && i + 2 < v.n) {
      ch = v.p[++i];
      switch (ch) {
      case 'n': ch = '\n'; break;
      case 't': ch = '\t'; break;
      case '"': case '\\': break;
      default: *ok = 0; break;
      }
    }
    out[o++] = ch;
  }
  out[o] = '\0';
  return out;
}

static int cfg_migrate_v1(config *c) {
  /* Version 1 called the worker count "threads" and sized caches in KiB. */
  static const char *const renames[][2] = {{"app.threads", "workers.count"}, {"ui.font", "ui.font_size"}};
  int changed = 0;
  for (size_t i = 0; i < sizeof renames / sizeof renames[0]; i++) {
    cfg_entry *e = hm_get(&c->entries, renames[i][0]);
    if (!e) continue;
    cfg_set(c, renames[i][1], e->raw);
    hm_remove(&c->entries, renames[i][0]);
    changed++;
  }
  c->version = 2;
  log_write(LOG_WARN, "config", "migrated a version 1 configuration (%d keys renamed)", changed);
  return changed;
}

static void classify_value(cfg_entry *e) {
  strview v = sv(e->raw);
  int b;
  if (sv_to_long(v, &e->i) == 0) {
    e->type = CV_INT;
    e->d = (double)e->i;
  } else if (sv_to_double(v, &e->d) == 0) {
    e->type = CV_DOUBLE;
    e->i = (long)e->d;
  } else if (sv_to_bool(v, &b) == 0) {
    e->type = CV_BOOL;
    e->i = b;
    e->d = b;
  } else if (sv_index_of(v, ',') >= 0) {
    e->type = CV_LIST;
  } else {
    e->type = CV_STRING;
  }
}

static int lookup_number(void *ctx, const char *name, double *out) {
  const config *c = ctx;
  const cfg_entry *e = hm_get(&c->entries, name);
  if (!e || (e->type != CV_INT && e->type != CV_DOUBLE && e->type != CV_BOOL)) return -1;
  *out = e->type == CV_DOUBLE ? e->d : (double)e->i;
  return 0;
}

static int cfg_store(config *c, const char *key, const char *raw, int line) {
  cfg_entry *e = hm_get(&c->entries, key);
  if (!e) {
    e = arena_calloc(&c->mem, 1, sizeof *e);
    e->key = arena_strdup(&c->mem, key);
    if (hm_put(&c->entries, e->key, e) < 0) return -1;
  }
  e->raw = arena_strdup(&c->mem, raw);
  e->line = line;
  classify_value(e);
  return 0;
}

static int eval_computed(load_state *st, const char *key, strview text) {
  char err[96];
  double v;
  char *src = sv_dup(text, &st->c->mem);
  if (expr_eval_text(src, lookup_number, st->c, &v, err, sizeof err) != 0) {
    cfg_warn(st, "cannot compute value: %s", err);
    return -1;
  }
  char buf[48];
  if (v == (double)(long)v)
    snprintf(buf, sizeof buf, "%ld", (long)v);
  else
    snprintf(buf, sizeof buf, "%.6g", v);
  LOGD("config", "%s = %s (computed from '%s')", key, buf, src);
  return cfg_store(st->c, key, buf, st->line);
}

static int parse_section_header(load_state *st, strview line) {
  if (!sv_ends_with(line, "]")) {
    cfg_warn(st, "unterminated section header%s", "");
    return -1;
  }
  strview name = sv_trim(sv_n(line.p + 1, line.n - 2));
  if (name.n == 0 || name.n >= sizeof st->section) {
    cfg_warn(st, "bad section name%s", "");
    return -1;
  }
  memcpy(st->section, name.p, name.n);
  st->section[name.n] = '\0';
  if (!is_known_section(st->section)) cfg_warn(st, "unknown section [%s]", st->section);
  return 0;
}

static int parse_key_value(load_state *st, strview line) {
  long eq = sv_index_of(line, '=');
  if (eq < 0) {
    cfg_warn(st, "expected 'key = value'%s", "");
    return -1;
  }
  strview key = sv_trim(sv_n(line.p, (size_t)eq));
  strview value = sv_trim(sv_n(line.p + eq + 1, line.n - (size_t)eq - 1));
  char full[96];
  int n = st->section[0] ? snprintf(full, sizeof full, "%s.%.*s", st->section, (int)key.n, key.p)
                         : snprintf(full, sizeof full, "%.*s", (int)key.n, key.p);
  if (n <= 0 || (size_t)n >= sizeof full || !str_is_identifier(full)) {
    cfg_warn(st, "bad key%s", "");
    return -1;
  }
  if (value.n > 0 && value.p[0] == '=') return eval_computed(st, full, sv_trim(sv_n(value.p + 1, value.n - 1)));
  int ok;
  char *raw = cfg_unquote(&st->c->mem, value, &ok);
  if (!ok) cfg_warn(st, "bad string literal for %s", full);
  return cfg_store(st->c, full, raw, st->line);
}

static strview strip_comment(strview line) {
  int quoted = 0;
  for (size_t i = 0; i < line.n; i++) {
    if (line.p[i] == '"' && (i == 0 || line.p[i - 1] != '\\')) quoted = !quoted;
    if (!quoted && line.p[i] == '#') return sv_n(line.p, i);
  }
  return line;
}

static int parse_line(load_state *st, strview line) {
  line = sv_trim(strip_comment(line));
  if (line.n == 0) return 0;
  if (line.p[0] == '[') return parse_section_header(st, line);
  return parse_key_value(st, line);
}

int cfg_load(config *c, const char *text, const char *origin) {
  load_state st = {.c = c, .origin = origin};
  strview rest = sv(text), line;
  while (sv_split_next(&rest, '\n', &line)) {
    st.line++;
    if (parse_line(&st, line) != 0) st.errors++;
  }
  c->version = (int)cfg_get_int(c, "version", 1);
  if (c->version == 1) cfg_migrate_v1(c);
  LOGI("config", "%s: %zu keys, %d errors, %u warnings", origin, hm_len(&c->entries), st.errors, c->warnings);
  return st.errors ? -1 : 0;
}

int cfg_dump(const config *c, strbuf *out) {
  const char *keys[256];
  size_t n = hm_sorted_keys(&c->entries, keys, 256);
  for (size_t i = 0; i < n; i++) {
    const cfg_entry *e = hm_get(&c->entries, keys[i]);
    sb_appendf(out, "%s = ", keys[i]);
    if (e->type == CV_STRING) sb_append_json_string(out, e->raw);
    else sb_append(out, e->raw);
    sb_append_char(out, '\n');
  }
  return (int)n;
}

int cfg_load_default(config *c) {
  arena_init(&c->mem, 8192);
  if (hm_init(&c->entries, 128) != 0) return -1;
  c->warnings = 0;
  c->profile[0] = '\0';
  return cfg_load(c, default_config, "<default>");
}

void cfg_free(config *c) {
  hm_free(&c->entries);
  arena_destroy(&c->mem);
}

const char *cfg_get_str(const config *c, const char *key, const char *fallback) {
  const cfg_entry *e = hm_get(&c->entries, key);
  return e ? e->raw : fallback;
}

int cfg_diff(const config *a, const config *b, strbuf *out) {
  const char *keys[256];
  int changes = 0;
  size_t n = hm_sorted_keys(&a->entries, keys, 256);
  for (size_t i = 0; i < n; i++) {
    const cfg_entry *ea = hm_get(&a->entries, keys[i]), *eb = hm_get(&b->entries, keys[i]);
    if (!eb) sb_appendf(out, "- %s = %s\n", keys[i], ea->raw);
    else if (strcmp(ea->raw, eb->raw) != 0) sb_appendf(out, "~ %s: %s -> %s\n", keys[i], ea->raw, eb->raw);
    else continue;
    changes++;
  }
  n = hm_sorted_keys(&b->entries, keys, 256);
  for (size_t i = 0; i < n; i++) {
    if (hm_contains(&a->entries, keys[i])) continue;
    sb_appendf(out, "+ %s = %s\n", keys[i], cfg_get_str(b, keys[i], ""));
    changes++;
  }
  return changes;
}

long cfg_get_int(const config *c, const char *key, long fallback) {
  const cfg_entry *e = hm_get(&c->entries, key);
  if (!e) return fallback;
  if (e->type == CV_INT || e->type == CV_BOOL) return e->i;
  if (e->type == CV_DOUBLE) return (long)e->d;
  log_write(LOG_WARN, "config", "%s is not a number: '%s'", key, e->raw);
  return fallback;
}

double cfg_get_double(const config *c, const char *key, double fallback) {
  const cfg_entry *e = hm_get(&c->entries, key);
  if (!e) return fallback;
  if (e->type == CV_DOUBLE) return e->d;
  if (e->type == CV_INT) return (double)e->i;
  return fallback;
}

int cfg_get_bool(const config *c, const char *key, int fallback) {
  const cfg_entry *e = hm_get(&c->entries, key);
  if (!e) return fallback;
  if (e->type == CV_BOOL || e->type == CV_INT) return e->i != 0;
  return fallback;
}

int cfg_get_list(const config *c, const char *key, strview *items, int max) {
  const cfg_entry *e = hm_get(&c->entries, key);
  if (!e) return 0;
  strview rest = sv(e->raw), item;
  int n = 0;
  while (n < max && sv_split_next(&rest, ',', &item)) {
    item = sv_trim(item);
    if (item.n) items[n++] = item;
  }
  return n;
}

int cfg_set(config *c, const char *key, const char *value) {
  if (!str_is_identifier(key) || strchr(key, '.') == NULL) {
    log_write(LOG_WARN, "config", "refusing to set malformed key '%s'", key);
    return -1;
  }
  return cfg_store(c, key, value, 0);
}

int cfg_apply_env(config *c, const char *prefix) {
  /* LAUNCHPAD_UI_THEME=paper overrides ui.theme. */
  int applied = 0;
  const char *keys[256];
  size_t n = hm_sorted_keys(&c->entries, keys, 256);
  for (size_t i = 0; i < n; i++) {
    char var[128];
    int k = snprintf(var, sizeof var, "%s_%s", prefix, keys[i]);
    if (k <= 0 || (size_t)k >= sizeof var) continue;
    for (char *p = var; *p; p++) *p = *p == '.' ? '_' : (char)toupper((unsigned char)*p);
    const char *v = getenv(var);
    if (!v) continue;
    cfg_set(c, keys[i], v);
    LOGI("config", "%s overridden from the environment", keys[i]);
    applied++;
  }
  return applied;
}

size_t cfg_count(const config *c) { return hm_len(&c->entries); }

int cfg_apply_profile(config *c, const char *profile) {
  char prefix[64];
  int k = snprintf(prefix, sizeof prefix, "profile.%s.", profile);
  if (k <= 0 || (size_t)k >= sizeof prefix) return -1;
  const char *keys[256];
  size_t n = hm_sorted_keys(&c->entries, keys, 256);
  int applied = 0;
  for (size_t i = 0; i < n; i++) {
    if (strncmp(keys[i], prefix, (size_t)k) != 0) continue;
    const cfg_entry *e = hm_get(&c->entries, keys[i]);
    if (cfg_set(c, keys[i] + k, e->raw) == 0) applied++;
  }
  snprintf(c->profile, sizeof c->profile, "%s", profile);
  LOGI("config", "profile %s: %d overrides", profile, applied);
  return applied;
}

int cfg_validate(const config *c, strbuf *problems) {
  static const struct {
    const char *key;
    long lo, hi;
  } ranges[] = {
      {"workers.count", 1, 64},    {"workers.queue", 4, 4096}, {"ui.width", 20, 400},
      {"ui.height", 8, 200},       {"ui.font_size", 6, 48},    {"cache.glyphs", 16, 65536},
      {"cache.icons", 1, 1024},    {"cache.routes", 1, 256},   {"server.max_body", 1024, 1 << 26},
      {"cache.evict_percent", 0, 100},
  };
  int bad = 0;
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
    long v = cfg_get_int(c, ranges[i].key, ranges[i].lo);
    if (v < ranges[i].lo || v > ranges[i].hi) {
      sb_appendf(problems, "%s = %ld is outside [%ld, %ld]\n", ranges[i].key, v, ranges[i].lo, ranges[i].hi);
      bad++;
    }
  }
  const char *level = cfg_get_str(c, "log.level", "info");
  log_level lv;
  if (log_level_from_name(level, &lv) != 0) {
    sb_appendf(problems, "log.level '%s' is not a level\n", level);
    bad++;
  }
  return bad;
}
