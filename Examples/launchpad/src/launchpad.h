/*
 * launchpad.h - internal interfaces of the launchpad application core.
 */
#ifndef LAUNCHPAD_H
#define LAUNCHPAD_H

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* ---- log.c ---- */
typedef enum { LOG_TRACE, LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR, LOG_FATAL } log_level;

int log_init(const char *level_name);
void log_set_level(log_level level);
log_level log_get_level(void);
int log_level_from_name(const char *name, log_level *out);
const char *log_level_name(log_level level);
void log_write(log_level level, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void log_vwrite(log_level level, const char *component, const char *fmt, va_list ap);
unsigned log_count(log_level level);
size_t log_tail(char *out, size_t cap, unsigned lines);
void log_flush(int fd);
void log_dump_hex(const char *component, const void *data, size_t n);
int log_open_file(const char *path);
void log_rotate(void);
void log_shutdown(void);

#define LOGI(comp, ...) log_write(LOG_INFO, comp, __VA_ARGS__)
#define LOGD(comp, ...) log_write(LOG_DEBUG, comp, __VA_ARGS__)
#define LOGW(comp, ...) log_write(LOG_WARN, comp, __VA_ARGS__)
#define LOGE(comp, ...) log_write(LOG_ERROR, comp, __VA_ARGS__)

/* ---- arena.c ---- */
typedef struct arena_block arena_block;
typedef struct {
  arena_block *head;
  size_t block_size;
  size_t used;
  size_t peak;
  unsigned blocks;
} arena;

typedef struct {
  arena_block *block;
  size_t offset;
  size_t used;
} arena_mark;

void arena_init(arena *a, size_t block_size);
void *arena_alloc(arena *a, size_t n);
void *arena_alloc_aligned(arena *a, size_t n, size_t align);
void *arena_calloc(arena *a, size_t count, size_t size);
char *arena_strdup(arena *a, const char *s);
char *arena_strndup(arena *a, const char *s, size_t n);
void *arena_memdup(arena *a, const void *p, size_t n);
char *arena_sprintf(arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
arena_mark arena_get_mark(const arena *a);
void arena_rewind(arena *a, arena_mark m);
void arena_reset(arena *a);
void arena_destroy(arena *a);
size_t arena_bytes_used(const arena *a);
int arena_check(const arena *a, char *why, size_t cap);
int arena_format_stats(const arena *a, char *out, size_t cap);

/* ---- str.c ---- */
typedef struct {
  const char *p;
  size_t n;
} strview;

typedef struct {
  char *p;
  size_t n, cap;
  int oom;
} strbuf;

strview sv(const char *s);
strview sv_n(const char *s, size_t n);
strview sv_trim(strview s);
strview sv_ltrim(strview s);
strview sv_rtrim(strview s);
int sv_eq(strview a, strview b);
int sv_eq_cstr(strview a, const char *b);
int sv_eq_nocase(strview a, strview b);
int sv_starts_with(strview s, const char *prefix);
int sv_ends_with(strview s, const char *suffix);
long sv_index_of(strview s, char c);
long sv_find(strview s, const char *needle);
int sv_split_next(strview *rest, char sep, strview *out);
int sv_to_long(strview s, long *out);
int sv_to_double(strview s, double *out);
int sv_to_bool(strview s, int *out);
uint32_t sv_hash(strview s);
char *sv_dup(strview s, arena *a);
strview sv_take_while(strview *s, int (*pred)(int));

void sb_init(strbuf *b);
int sb_reserve(strbuf *b, size_t extra);
void sb_append(strbuf *b, const char *s);
void sb_append_n(strbuf *b, const char *s, size_t n);
void sb_append_sv(strbuf *b, strview s);
void sb_append_char(strbuf *b, char c);
void sb_appendf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_append_json_string(strbuf *b, const char *s);
void sb_append_escaped(strbuf *b, const char *s);
void sb_append_padded(strbuf *b, const char *s, int width, int right);
void sb_clear(strbuf *b);
const char *sb_cstr(strbuf *b);
void sb_free(strbuf *b);

void str_to_lower(char *s);
void str_to_upper(char *s);
int str_is_identifier(const char *s);
int str_glob_match(const char *pattern, const char *s);
int str_levenshtein(const char *a, const char *b);
size_t str_count_char(const char *s, char c);
char *str_replace_all(const char *s, const char *from, const char *to);
int str_wrap(const char *text, int width, strbuf *out);
int str_split_words(char *s, char **words, int max);
int str_url_decode(const char *in, size_t n, char *out, size_t cap);
const char *str_closest(const char *word, const char *const *candidates, size_t n);

/* ---- hashmap.c ---- */
typedef struct {
  const char *key;
  uint32_t hash;
  void *value;
} hm_entry;

typedef struct {
  hm_entry *slots;
  size_t cap, len, tombstones;
  size_t probes; /* slots inspected by inserts and removals */
} hashmap;

typedef struct {
  const hashmap *map;
  size_t i;
} hm_iter;

int hm_init(hashmap *m, size_t cap);
void hm_free(hashmap *m);
void *hm_get(const hashmap *m, const char *key);
int hm_put(hashmap *m, const char *key, void *value);
int hm_remove(hashmap *m, const char *key);
int hm_contains(const hashmap *m, const char *key);
size_t hm_len(const hashmap *m);
void hm_iter_init(hm_iter *it, const hashmap *m);
const hm_entry *hm_iter_next(hm_iter *it);
void hm_clear(hashmap *m);
size_t hm_sorted_keys(const hashmap *m, const char **out, size_t cap);
int hm_merge(hashmap *dst, const hashmap *src, int overwrite);
int hm_check(const hashmap *m, char *why, size_t cap);
double hm_load_factor(const hashmap *m);
int hm_format_stats(const hashmap *m, char *out, size_t cap);

/* ---- expr.c ---- */
typedef struct expr expr;
typedef int (*expr_lookup_fn)(void *ctx, const char *name, double *out);

expr *expr_parse(const char *text, arena *a, char *err, size_t errcap);
int expr_eval(const expr *e, expr_lookup_fn lookup, void *ctx, double *out, char *err, size_t errcap);
int expr_eval_text(const char *text, expr_lookup_fn lookup, void *ctx, double *out, char *err, size_t errcap);
int expr_is_constant(const expr *e);
int expr_format(const expr *e, strbuf *out);
size_t expr_node_count(const expr *e);

/* ---- config.c ---- */
typedef enum { CV_STRING, CV_INT, CV_DOUBLE, CV_BOOL, CV_LIST } cfg_value_type;

typedef struct cfg_entry {
  char *key; /* "section.name" */
  char *raw;
  cfg_value_type type;
  long i;
  double d;
  int line;
} cfg_entry;

typedef struct {
  arena mem;
  hashmap entries;
  char profile[32];
  int version;
  unsigned warnings;
} config;

int cfg_load(config *c, const char *text, const char *origin);
int cfg_load_default(config *c);
void cfg_free(config *c);
const char *cfg_get_str(const config *c, const char *key, const char *fallback);
long cfg_get_int(const config *c, const char *key, long fallback);
double cfg_get_double(const config *c, const char *key, double fallback);
int cfg_get_bool(const config *c, const char *key, int fallback);
int cfg_get_list(const config *c, const char *key, strview *items, int max);
int cfg_set(config *c, const char *key, const char *value);
int cfg_apply_env(config *c, const char *prefix);
int cfg_apply_profile(config *c, const char *profile);
int cfg_validate(const config *c, strbuf *problems);
int cfg_dump(const config *c, strbuf *out);
int cfg_diff(const config *a, const config *b, strbuf *out);
size_t cfg_count(const config *c);

/* ---- registry.c ---- */
typedef enum { PLUGIN_LOADED, PLUGIN_ACTIVE, PLUGIN_FAILED, PLUGIN_DISABLED } plugin_state;

typedef struct plugin {
  char name[32];
  const char *requires;
  int priority;
  int order;
  plugin_state state;
  const void *impl; /* const wg_kind * for widget plugins */
  char summary[96];
} plugin;

typedef struct {
  plugin items[64];
  size_t n;
  hashmap by_name;
  unsigned activations, failures;
} registry;

int reg_init(registry *r);
void reg_free(registry *r);
int reg_register(registry *r, const char *name, const char *requires, int priority, const void *impl,
                 const char *summary);
plugin *reg_find(registry *r, const char *name);
int reg_resolve_order(registry *r, strbuf *err);
int reg_activate_all(registry *r, const config *c);
int reg_disable(registry *r, const char *name);
int reg_unload(registry *r, const char *name);
int reg_describe(const registry *r, strbuf *out);
size_t reg_count_state(const registry *r, plugin_state state);
int reg_load_widget_plugins(registry *r);

/* ---- metrics.c ---- */
typedef struct {
  const char *name;
  uint64_t count;
  uint64_t sum;
  uint64_t buckets[12];
} histogram;

void metrics_init(void);
void metrics_inc(const char *name);
void metrics_add(const char *name, uint64_t v);
uint64_t metrics_get(const char *name);
void metrics_observe(const char *name, uint64_t v);
uint64_t metrics_quantile(const char *name, double q);
int metrics_render_text(strbuf *out);
int metrics_render_json(strbuf *out);
void metrics_reset(void);
uint64_t metrics_now_us(void);

/* ---- cache.c ---- */
typedef struct cache cache;

cache *cache_create(const char *name, size_t capacity);
void cache_destroy(cache *c);
int cache_put(cache *c, const char *key, const void *data, size_t n);
const void *cache_get(cache *c, const char *key, size_t *n);
int cache_evict(cache *c, size_t keep);
size_t cache_len(const cache *c);
size_t cache_bytes(const cache *c);
uint32_t cache_checksum(const cache *c);
const char *cache_name(const cache *c);
int cache_format_stats(const cache *c, strbuf *out);

int warm_glyph_cache(cache *c, int font_size);
int warm_icon_cache(cache *c);
int warm_locale_cache(cache *c, const char *locale);
int warm_route_cache(cache *c);
int warm_completion_cache(cache *c);

/* ---- workers.c ---- */
typedef void (*job_fn)(void *arg);
typedef struct pool pool;

pool *pool_create(int threads, const char *name);
int pool_submit(pool *p, job_fn fn, void *arg);
void pool_wait(pool *p);
void pool_destroy(pool *p);
int pool_cancel_pending(pool *p);
unsigned pool_completed(const pool *p);
int pool_threads(const pool *p);

/* ---- commands.c ---- */
typedef struct app app;

typedef struct command {
  const char *name;
  const char *summary;
  int min_args, max_args;
  int flags;
  int (*run)(app *a, int argc, char **argv, strbuf *out);
} command;

int cmd_table_init(app *a);
const command *cmd_find(const char *name);
const command *cmd_at(size_t i);
int cmd_execute(app *a, const char *line, strbuf *out);
size_t cmd_count(void);
int cmd_help(strbuf *out, const char *topic);

/* ---- router.c ---- */
typedef struct {
  int status;
  strbuf headers;
  strbuf body;
} response;

int router_init(app *a);
int router_handle(app *a, const char *request_text, response *resp);
void response_init(response *r);
void response_free(response *r);
const char *status_text(int status);
size_t router_route_count(void);
int router_match_index(const char *method, const char *path);

/* ---- the application ---- */
struct app {
  config cfg;
  registry plugins;
  pool *workers;
  cache *caches[5];
  size_t ncaches;
  arena scratch;
  hashmap commands;
  hashmap aliases;
  void *root_widget;  /* wg_widget * */
  struct session *session; /* the restored session (session.h) */
  uint32_t ui_checksum;
  int startup_done;
  unsigned requests, request_errors;
  char name[32];
  char locale[16];
};

#endif /* LAUNCHPAD_H */
