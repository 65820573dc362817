/*
 * main.c - launchpad's start-up sequence.
 *
 *   1. early init   logging, metrics, allocators, configuration
 *   2. main init    libwidgets, plugin registry, commands, routes, the saved
 *                   session, main window
 *   3. warm-up      worker threads fill the caches while the main thread
 *                   lays out and draws the window
 *   4. ready        launch_ready(): the point a release build is recorded up to
 *                   (orderfile record --until launch_ready), and where an
 *                   instrumented build calls orderfile_startup_complete()
 *   5. post-launch  a handful of requests, then a clean exit
 */
#include "launchpad.h"

#include "session.h"
#include "widgets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef ORDERFILE_INSTRUMENTED
#include "orderfile.h"
#endif

static void die(const char *phase, const char *what) {
  fprintf(stderr, "launchpad: %s failed: %s\n", phase, what);
  log_flush(2);
  exit(70);
}

/* ---- phase 1: early init ---- */

static void early_init(app *a) {
  log_init(getenv("LAUNCHPAD_LOG"));
  metrics_init();
  arena_init(&a->scratch, 8192);
  if (cfg_load_default(&a->cfg) != 0) die("early init", "default configuration has errors");
  cfg_apply_profile(&a->cfg, cfg_get_str(&a->cfg, "app.profile", "desktop"));
  cfg_apply_env(&a->cfg, "LAUNCHPAD");
  strbuf problems;
  sb_init(&problems);
  if (cfg_validate(&a->cfg, &problems) != 0) {
    fprintf(stderr, "launchpad: invalid configuration:\n%s", sb_cstr(&problems));
    exit(65);
  }
  sb_free(&problems);
  log_level lv;
  if (log_level_from_name(cfg_get_str(&a->cfg, "log.level", "info"), &lv) == 0 && !getenv("LAUNCHPAD_LOG"))
    log_set_level(lv);
  const char *file = cfg_get_str(&a->cfg, "log.file", "");
  if (*file) log_open_file(file);
  snprintf(a->name, sizeof a->name, "%s", cfg_get_str(&a->cfg, "app.name", "launchpad"));
  snprintf(a->locale, sizeof a->locale, "%s", cfg_get_str(&a->cfg, "app.locale", "C"));
  metrics_add("config_keys", cfg_count(&a->cfg));
}

/* ---- phase 2: main init ---- */

static wg_widget *add(wg_widget *parent, const registry *r, const char *kind, const char *id, const char *text) {
  const plugin *p = reg_find((registry *)r, kind);
  if (!p || p->state != PLUGIN_ACTIVE) {
    LOGD("ui", "skipping %s: plugin %s not active", id, kind);
    return NULL;
  }
  wg_widget *w = wg_create(p->impl, id, text);
  if (parent && wg_add_child(parent, w) != 0) {
    wg_destroy(w);
    return NULL;
  }
  return w;
}

static wg_widget *build_main_window(app *a) {
  registry *r = &a->plugins;
  wg_widget *root = add(NULL, r, "window", "main", a->name);
  if (!root) return NULL;
  add(root, r, "menubar", "menu", "File  Edit  View  Help");
  wg_widget *tools = add(root, r, "toolbar", "tools", "");
  static const char *const buttons[] = {"Open", "Save", "Search", "Run"};
  for (size_t i = 0; tools && i < sizeof buttons / sizeof buttons[0]; i++) {
    char id[16];
    snprintf(id, sizeof id, "btn%zu", i);
    add(tools, r, "button", id, buttons[i]);
  }
  wg_widget *body = add(root, r, "panel", "body", "");
  wg_widget *list = add(body, r, "listview", "recent", "");
  static const char *const recent[] = {"notes.txt", "budget.ods", "plan.md", "photo.png"};
  for (size_t i = 0; list && i < sizeof recent / sizeof recent[0]; i++) {
    char id[16];
    snprintf(id, sizeof id, "recent%zu", i);
    add(list, r, "label", id, recent[i]);
  }
  add(body, r, "textbox", "query", "search...");
  wg_widget *bar = add(root, r, "progress", "loading", "");
  if (bar) wg_set_value(bar, 40);
  add(root, r, "statusbar", "status", "Ready");
  add(root, r, "datepick", "date", "today"); /* disabled by default: skipped */
  return root;
}

static void main_init(app *a) {
  int rc = wg_library_init(WG_ABI_VERSION, cfg_get_str(&a->cfg, "ui.theme", "slate"));
  if (rc != 0) die("main init", rc == -1 ? "libwidgets ABI mismatch" : "unknown theme");
  if (reg_init(&a->plugins) != 0) die("main init", "registry");
  reg_load_widget_plugins(&a->plugins);
  strbuf err;
  sb_init(&err);
  if (reg_resolve_order(&a->plugins, &err) < 0) die("main init", sb_cstr(&err));
  sb_free(&err);
  if (reg_activate_all(&a->plugins, &a->cfg) < 0) die("main init", "plugin activation");
  if (cmd_table_init(a) != 0) die("main init", "command table");
  if (router_init(a) != 0) die("main init", "route table");
  static session saved;
  char why[160];
  if (session_restore(&saved, NULL, why, sizeof why) != 0) die("session restore", why);
  a->session = &saved;
  a->root_widget = build_main_window(a);
  if (!a->root_widget) die("main init", "main window");
}

/* ---- phase 3: warm-up on worker threads ---- */

typedef struct {
  app *a;
  cache *c;
  int kind;
  int result;
} warm_job;

static void run_warm_job(void *arg) {
  warm_job *j = arg;
  switch (j->kind) {
  case 0: j->result = warm_glyph_cache(j->c, (int)cfg_get_int(&j->a->cfg, "ui.font_size", 13)); break;
  case 1: j->result = warm_icon_cache(j->c); break;
  case 2: j->result = warm_locale_cache(j->c, j->a->locale); break;
  case 3: j->result = warm_route_cache(j->c); break;
  case 4: j->result = warm_completion_cache(j->c); break;
  }
  LOGD("warmup", "%s: %d entries", cache_name(j->c), j->result);
}

static void layout_and_draw(app *a) {
  const wg_theme *t = wg_library_theme();
  wg_widget *root = a->root_widget;
  int w = (int)cfg_get_int(&a->cfg, "ui.width", 72), h = (int)cfg_get_int(&a->cfg, "ui.height", 20);
  wg_size want = wg_measure(root, t);
  if (want.w > w) LOGW("ui", "window wants %d columns, has %d", want.w, w);
  wg_arrange(root, (wg_rect){0, 0, w, h}, t);
  wg_canvas c;
  if (wg_canvas_init(&c, w, h) != 0) die("warm-up", "canvas");
  wg_render(root, t, &c);
  a->ui_checksum = wg_canvas_checksum(&c) ^ wg_tree_fingerprint(root) ^ wg_theme_fingerprint(t);
  wg_canvas_free(&c);
}

static void warm_up(app *a, warm_job jobs[5]) {
  static const struct {
    const char *name;
    const char *capacity_key;
    long fallback;
  } specs[5] = {{"glyphs", "cache.glyphs", 512},
                {"icons", "cache.icons", 48},
                {"locale", "cache.locale_entries", 256},
                {"routes", "cache.routes", 32},
                {"complete", "cache.completions", 512}};
  a->workers = pool_create((int)cfg_get_int(&a->cfg, "workers.count", 4), "warm");
  if (!a->workers) die("warm-up", "thread pool");
  for (int i = 0; i < 5; i++) {
    a->caches[i] = cache_create(specs[i].name, (size_t)cfg_get_int(&a->cfg, specs[i].capacity_key, specs[i].fallback));
    if (!a->caches[i]) die("warm-up", "cache");
    jobs[i] = (warm_job){a, a->caches[i], i, 0};
    pool_submit(a->workers, run_warm_job, &jobs[i]);
  }
  a->ncaches = 5;
  layout_and_draw(a); /* meanwhile, on the main thread */
  pool_wait(a->workers);
}

/* ---- phase 5: post-launch ---- */

static const char *const requests[] = {
    "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "GET /status HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "GET /calc?e=max(3%2C+4)*2+%2B+workers.count HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "GET /config/ui.theme HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "POST /cmd HTTP/1.1\r\nAuthorization: token\r\nContent-Length: 11\r\n\r\nvolume 50+5",
    "GET /i18n?key=app.ready HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "GET /widgets/status HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "GET /nowhere HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "DELETE /status HTTP/1.1\r\nHost: localhost\r\n\r\n",
};

static void post_launch(app *a, unsigned *ok, unsigned *client_err, unsigned *server_err, uint32_t *sum) {
  for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++) {
    response rs;
    response_init(&rs);
    int status = router_handle(a, requests[i], &rs);
    if (status < 400) (*ok)++;
    else if (status < 500) (*client_err)++;
    else (*server_err)++;
    /* /metrics holds timings: leave it out of the checksum. */
    if (!strstr(sb_cstr(&rs.headers), "no-store")) *sum = wg_crc32(*sum, sb_cstr(&rs.body), rs.body.n) ^ (uint32_t)status;
    response_free(&rs);
  }
}

/* The end of the launch, kept out of line so that the release binary has it to name. */
__attribute__((noinline)) static void launch_ready(app *a) {
  a->startup_done = 1;
#ifdef ORDERFILE_INSTRUMENTED
  orderfile_startup_complete();
#endif
}

int main(int argc, char **argv) {
  int verbose = getenv("LAUNCHPAD_VERBOSE") != NULL;
  const char *console[16];
  int nconsole = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-v") == 0) {
      verbose = 1;
    } else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc && nconsole < 16) {
      console[nconsole++] = argv[++i];
    } else {
      fprintf(stderr, "usage: launchpad [-v] [-c command]...\n");
      return 64;
    }
  }

  static app a;
  early_init(&a);
  main_init(&a);
  warm_job jobs[5];
  warm_up(&a, jobs);
  launch_ready(&a);

  size_t entries = 0;
  uint32_t cache_sum = 0;
  for (size_t i = 0; i < a.ncaches; i++) {
    entries += cache_len(a.caches[i]);
    cache_sum ^= cache_checksum(a.caches[i]);
  }
  printf("%s: profile %s, %zu config keys, theme %s\n", a.name, a.cfg.profile, cfg_count(&a.cfg),
         wg_library_theme()->name);
  printf("plugins: %zu active, %zu disabled, %zu failed (%s)\n", reg_count_state(&a.plugins, PLUGIN_ACTIVE),
         reg_count_state(&a.plugins, PLUGIN_DISABLED), reg_count_state(&a.plugins, PLUGIN_FAILED),
         wg_library_version());
  printf("window: %zu widgets, checksum %08x\n", wg_count(a.root_widget), a.ui_checksum);
  printf("session: %zu records restored (%zu bytes), checksum %08x\n", a.session->count, a.session->wire_bytes,
         a.session->checksum);
  printf("warm-up: %d threads, %zu caches, %zu entries, checksum %08x\n", pool_threads(a.workers), a.ncaches,
         entries, cache_sum);
  printf("startup complete\n");

  unsigned ok = 0, client_err = 0, server_err = 0;
  uint32_t sum = 0;
  post_launch(&a, &ok, &client_err, &server_err, &sum);
  printf("requests: %u ok, %u client errors, %u server errors, checksum %08x\n", ok, client_err, server_err, sum);

  for (int i = 0; i < nconsole; i++) {
    strbuf out;
    sb_init(&out);
    int rc = cmd_execute(&a, console[i], &out);
    fputs(sb_cstr(&out), stdout);
    if (rc != 0) printf("(exit status %d)\n", rc);
    sb_free(&out);
  }

  pool_destroy(a.workers);
  for (size_t i = 0; i < a.ncaches; i++) cache_destroy(a.caches[i]);
  wg_destroy(a.root_widget);
  wg_library_shutdown();
  session_free(a.session);
  if (verbose) log_flush(2);
  log_shutdown();
  return 0;
}
