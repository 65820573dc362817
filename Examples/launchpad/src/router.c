/*
 * router.c - HTTP-style request handling once the application is up.
 *
 * The route table is checked (and a lookup cache warmed) during launch;
 * the parsing and handlers below only run for requests, after launch.
 */
#include "launchpad.h"

#include "widgets.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char method[8];
  char path[128];
  char query[256];
  struct {
    char name[32];
    char value[96];
  } headers[16];
  int nheaders;
  const char *body;
  size_t body_len;
} request;

typedef int (*handler_fn)(app *a, const request *rq, response *rs);

typedef struct {
  const char *method;
  const char *pattern;
  handler_fn handler;
  int admin;
} route;

/* ---- responses ---- */

void response_init(response *r) {
  r->status = 200;
  sb_init(&r->headers);
  sb_init(&r->body);
}

void response_free(response *r) {
  sb_free(&r->headers);
  sb_free(&r->body);
}

const char *status_text(int status) {
  switch (status) {
  case 200: return "OK";
  case 201: return "Created";
  case 204: return "No Content";
  case 301: return "Moved Permanently";
  case 304: return "Not Modified";
  case 400: return "Bad Request";
  case 401: return "Unauthorized";
  case 403: return "Forbidden";
  case 404: return "Not Found";
  case 405: return "Method Not Allowed";
  case 413: return "Payload Too Large";
  case 422: return "Unprocessable Entity";
  case 429: return "Too Many Requests";
  case 500: return "Internal Server Error";
  case 503: return "Service Unavailable";
  default: return "Unknown";
  }
}

static void set_header(response *rs, const char *name, const char *value) {
  sb_appendf(&rs->headers, "%s: %s\r\n", name, value);
}

static int respond_error(response *rs, int status, const char *detail) {
  rs->status = status;
  sb_clear(&rs->body);
  sb_append(&rs->body, "{\"error\":");
  sb_append_json_string(&rs->body, status_text(status));
  sb_append(&rs->body, ",\"detail\":");
  sb_append_json_string(&rs->body, detail);
  sb_append(&rs->body, "}\n");
  set_header(rs, "Content-Type", "application/json");
  return status;
}

/* ---- request parsing ---- */

static int parse_request_line(request *rq, strview line) {
  strview method, target, version;
  if (!sv_split_next(&line, ' ', &method) || !sv_split_next(&line, ' ', &target) ||
      !sv_split_next(&line, ' ', &version))
    return -1;
  if (method.n == 0 || method.n >= sizeof rq->method || !sv_starts_with(version, "HTTP/1.")) return -1;
  memcpy(rq->method, method.p, method.n);
  rq->method[method.n] = '\0';
  long q = sv_index_of(target, '?');
  strview path = q >= 0 ? sv_n(target.p, (size_t)q) : target;
  if (str_url_decode(path.p, path.n, rq->path, sizeof rq->path) < 0 || rq->path[0] != '/') return -1;
  if (q >= 0) {
    strview query = sv_n(target.p + q + 1, target.n - (size_t)q - 1);
    if (query.n >= sizeof rq->query) return -1;
    memcpy(rq->query, query.p, query.n);
    rq->query[query.n] = '\0';
  }
  return 0;
}

static int parse_header(request *rq, strview line) {
  long colon = sv_index_of(line, ':');
  if (colon <= 0 || rq->nheaders == 16) return -1;
  strview name = sv_trim(sv_n(line.p, (size_t)colon));
  strview value = sv_trim(sv_n(line.p + colon + 1, line.n - (size_t)colon - 1));
  if (name.n >= sizeof rq->headers[0].name || value.n >= sizeof rq->headers[0].value) return -1;
  memcpy(rq->headers[rq->nheaders].name, name.p, name.n);
  rq->headers[rq->nheaders].name[name.n] = '\0';
  memcpy(rq->headers[rq->nheaders].value, value.p, value.n);
  rq->headers[rq->nheaders].value[value.n] = '\0';
  rq->nheaders++;
  return 0;
}

static const char *header_value(const request *rq, const char *name) {
  for (int i = 0; i < rq->nheaders; i++)
    if (sv_eq_nocase(sv(rq->headers[i].name), sv(name))) return rq->headers[i].value;
  return NULL;
}

static int parse_request(const char *text, request *rq) {
  memset(rq, 0, sizeof *rq);
  long end = sv_find(sv(text), "\r\n\r\n");
  if (end < 0) return -1;
  strview head = sv_n(text, (size_t)end), line;
  if (!sv_split_next(&head, '\n', &line) || parse_request_line(rq, sv_rtrim(line)) != 0) return -1;
  while (sv_split_next(&head, '\n', &line)) {
    line = sv_rtrim(line);
    if (line.n && parse_header(rq, line) != 0) return -1;
  }
  rq->body = text + end + 4;
  rq->body_len = strlen(rq->body);
  const char *cl = header_value(rq, "Content-Length");
  long declared;
  if (cl && (sv_to_long(sv(cl), &declared) != 0 || declared != (long)rq->body_len)) return -1;
  return 0;
}

static int query_param(const request *rq, const char *name, char *out, size_t cap) {
  strview rest = sv(rq->query), pair;
  size_t n = strlen(name);
  while (sv_split_next(&rest, '&', &pair)) {
    if (pair.n > n && memcmp(pair.p, name, n) == 0 && pair.p[n] == '=')
      return str_url_decode(pair.p + n + 1, pair.n - n - 1, out, cap);
  }
  return -1;
}

/* ---- handlers ---- */

static int h_index(app *a, const request *rq, response *rs) {
  (void)rq;
  sb_appendf(&rs->body, "<html><head><title>%s</title></head><body>\n", a->name);
  sb_appendf(&rs->body, "<h1>%s</h1>\n<ul>\n", a->name);
  strview advertised[32];
  int n = cfg_get_list(&a->cfg, "server.routes", advertised, 32);
  for (int i = 0; i < n; i++) {
    if (sv_index_of(advertised[i], '*') >= 0) continue; /* only links that lead somewhere */
    sb_append(&rs->body, "<li><a href=\"");
    sb_append_sv(&rs->body, advertised[i]);
    sb_append(&rs->body, "\">");
    sb_append_sv(&rs->body, advertised[i]);
    sb_append(&rs->body, "</a></li>\n");
  }
  sb_append(&rs->body, "</ul></body></html>\n");
  set_header(rs, "Content-Type", "text/html");
  return 200;
}

static int h_status(app *a, const request *rq, response *rs) {
  (void)rq;
  sb_append(&rs->body, "{\"name\":");
  sb_append_json_string(&rs->body, a->name);
  sb_appendf(&rs->body, ",\"startup_done\":%s,\"config_keys\":%zu,\"plugins_active\":%zu,\"caches\":%zu}\n",
             a->startup_done ? "true" : "false", cfg_count(&a->cfg), reg_count_state(&a->plugins, PLUGIN_ACTIVE),
             a->ncaches);
  set_header(rs, "Content-Type", "application/json");
  return 200;
}

static int h_health(app *a, const request *rq, response *rs) {
  (void)rq;
  int ok = a->startup_done && reg_count_state(&a->plugins, PLUGIN_FAILED) == 0;
  sb_append(&rs->body, ok ? "ok\n" : "degraded\n");
  return ok ? 200 : 503;
}

static int h_metrics(app *a, const request *rq, response *rs) {
  (void)a;
  (void)rq;
  metrics_render_text(&rs->body);
  set_header(rs, "Content-Type", "text/plain");
  set_header(rs, "Cache-Control", "no-store");
  return 200;
}

static int h_plugins(app *a, const request *rq, response *rs) {
  (void)rq;
  sb_append_char(&rs->body, '[');
  for (size_t i = 0; i < a->plugins.n; i++) {
    const plugin *p = &a->plugins.items[i];
    if (i) sb_append_char(&rs->body, ',');
    sb_append(&rs->body, "{\"name\":");
    sb_append_json_string(&rs->body, p->name);
    sb_appendf(&rs->body, ",\"active\":%s,\"order\":%d}", p->state == PLUGIN_ACTIVE ? "true" : "false", p->order);
  }
  sb_append(&rs->body, "]\n");
  set_header(rs, "Content-Type", "application/json");
  return 200;
}

static int calc_lookup(void *ctx, const char *name, double *out) {
  const app *a = ctx;
  return sv_to_double(sv(cfg_get_str(&a->cfg, name, "")), out);
}

static int h_calc(app *a, const request *rq, response *rs) {
  char text[256], err[96];
  if (query_param(rq, "e", text, sizeof text) < 0) return respond_error(rs, 400, "missing parameter e");
  double v;
  if (expr_eval_text(text, calc_lookup, a, &v, err, sizeof err) != 0) return respond_error(rs, 422, err);
  sb_appendf(&rs->body, "{\"expr\":");
  sb_append_json_string(&rs->body, text);
  sb_appendf(&rs->body, ",\"value\":%.10g}\n", v);
  set_header(rs, "Content-Type", "application/json");
  return 200;
}

static int h_get_config(app *a, const request *rq, response *rs) {
  const char *key = rq->path + strlen("/config/");
  const char *v = cfg_get_str(&a->cfg, key, NULL);
  if (!v) return respond_error(rs, 404, key);
  sb_append_json_string(&rs->body, v);
  sb_append_char(&rs->body, '\n');
  set_header(rs, "Content-Type", "application/json");
  return 200;
}

static int h_put_config(app *a, const request *rq, response *rs) {
  const char *key = rq->path + strlen("/config/");
  char value[128];
  if (rq->body_len == 0 || rq->body_len >= sizeof value) return respond_error(rs, 400, "body must hold the value");
  memcpy(value, rq->body, rq->body_len);
  value[rq->body_len] = '\0';
  if (cfg_set(&a->cfg, key, value) != 0) return respond_error(rs, 422, "bad key");
  return 204;
}

static int h_widget(app *a, const request *rq, response *rs) {
  const char *id = rq->path + strlen("/widgets/");
  wg_widget *w = a->root_widget ? wg_find(a->root_widget, strcmp(id, "root") == 0 ? "main" : id) : NULL;
  if (!w) return respond_error(rs, 404, id);
  char buf[4096];
  if (wg_describe_tree(w, buf, sizeof buf) < 0) return respond_error(rs, 500, "tree too large");
  sb_append(&rs->body, buf);
  set_header(rs, "Content-Type", "text/plain");
  return 200;
}

static int h_command(app *a, const request *rq, response *rs) {
  char line[256];
  if (rq->body_len == 0 || rq->body_len >= sizeof line) return respond_error(rs, 400, "body must hold a command");
  memcpy(line, rq->body, rq->body_len);
  line[rq->body_len] = '\0';
  int rc = cmd_execute(a, line, &rs->body);
  set_header(rs, "Content-Type", "text/plain");
  return rc == 0 ? 200 : rc == 64 ? 400 : rc == 65 ? 422 : 500;
}

static int h_admin_reload(app *a, const request *rq, response *rs) {
  (void)rq;
  return cmd_execute(a, "reload", &rs->body) == 0 ? 200 : 500;
}

static int h_admin_log(app *a, const request *rq, response *rs) {
  (void)a;
  char lines_text[16];
  long lines = 20;
  if (query_param(rq, "lines", lines_text, sizeof lines_text) >= 0 && sv_to_long(sv(lines_text), &lines) != 0)
    return respond_error(rs, 400, "lines must be a number");
  char buf[8192];
  log_tail(buf, sizeof buf, (unsigned)lines);
  sb_append(&rs->body, buf);
  return 200;
}

static int h_admin_caches(app *a, const request *rq, response *rs) {
  (void)rq;
  for (size_t i = 0; i < a->ncaches; i++) cache_format_stats(a->caches[i], &rs->body);
  return 200;
}

static int h_admin_evict(app *a, const request *rq, response *rs) {
  char name[32];
  if (query_param(rq, "cache", name, sizeof name) < 0) return respond_error(rs, 400, "missing parameter cache");
  for (size_t i = 0; i < a->ncaches; i++) {
    if (strcmp(cache_name(a->caches[i]), name) != 0) continue;
    long pct = cfg_get_int(&a->cfg, "cache.evict_percent", 25);
    size_t keep = cache_len(a->caches[i]) * (size_t)(100 - pct) / 100;
    sb_appendf(&rs->body, "evicted %d\n", cache_evict(a->caches[i], keep));
    return 200;
  }
  return respond_error(rs, 404, name);
}

static int h_favicon(app *a, const request *rq, response *rs) {
  (void)rq;
  size_t n = 0;
  const void *icon = a->ncaches > 1 ? cache_get(a->caches[1], "app@16", &n) : NULL;
  if (!icon) return respond_error(rs, 404, "no icon");
  char *b64 = malloc(wg_base64_encoded_size(n) + 1);
  if (!b64) return respond_error(rs, 500, "out of memory");
  wg_base64_encode(icon, n, b64);
  sb_append(&rs->body, b64);
  free(b64);
  set_header(rs, "Content-Type", "image/x-launchpad-icon;base64");
  return 200;
}

static int h_robots(app *a, const request *rq, response *rs) {
  (void)a;
  (void)rq;
  sb_append(&rs->body, "User-agent: *\nDisallow: /admin/\n");
  return 200;
}

static int h_echo(app *a, const request *rq, response *rs) {
  (void)a;
  sb_appendf(&rs->body, "%s %s", rq->method, rq->path);
  if (rq->query[0]) sb_appendf(&rs->body, "?%s", rq->query);
  sb_append_char(&rs->body, '\n');
  for (int i = 0; i < rq->nheaders; i++) sb_appendf(&rs->body, "%s: %s\n", rq->headers[i].name, rq->headers[i].value);
  sb_append_n(&rs->body, rq->body, rq->body_len);
  return 200;
}

static int h_translate(app *a, const request *rq, response *rs) {
  char key[64], k[96];
  if (query_param(rq, "key", key, sizeof key) < 0) return respond_error(rs, 400, "missing parameter key");
  snprintf(k, sizeof k, "%s:%s", a->locale, key);
  size_t n = 0;
  const char *msg = a->ncaches > 2 ? cache_get(a->caches[2], k, &n) : NULL;
  if (!msg) return respond_error(rs, 404, key);
  sb_append_n(&rs->body, msg, n);
  sb_append_char(&rs->body, '\n');
  return 200;
}

static int h_complete(app *a, const request *rq, response *rs) {
  char prefix[32], k[40];
  if (query_param(rq, "prefix", prefix, sizeof prefix) < 0) return respond_error(rs, 400, "missing parameter prefix");
  snprintf(k, sizeof k, "c:%s", prefix);
  size_t n = 0;
  const char *list = a->ncaches > 4 ? cache_get(a->caches[4], k, &n) : NULL;
  if (list) sb_append_n(&rs->body, list, n);
  sb_append_char(&rs->body, '\n');
  return 200;
}

static int h_render(app *a, const request *rq, response *rs) {
  (void)rq;
  return cmd_execute(a, "render", &rs->body) == 0 ? 200 : 500;
}

static const route routes[] = {
    {"GET", "/", h_index, 0},
    {"GET", "/status", h_status, 0},
    {"GET", "/health", h_health, 0},
    {"GET", "/metrics", h_metrics, 0},
    {"GET", "/plugins", h_plugins, 0},
    {"GET", "/calc", h_calc, 0},
    {"GET", "/config/*", h_get_config, 0},
    {"PUT", "/config/*", h_put_config, 1},
    {"GET", "/widgets/*", h_widget, 0},
    {"POST", "/cmd", h_command, 1},
    {"POST", "/admin/reload", h_admin_reload, 1},
    {"GET", "/admin/log", h_admin_log, 1},
    {"GET", "/admin/caches", h_admin_caches, 1},
    {"POST", "/admin/evict", h_admin_evict, 1},
    {"GET", "/favicon.ico", h_favicon, 0},
    {"GET", "/robots.txt", h_robots, 0},
    {"POST", "/echo", h_echo, 0},
    {"GET", "/i18n", h_translate, 0},
    {"GET", "/complete", h_complete, 0},
    {"GET", "/render", h_render, 0},
};

size_t router_route_count(void) { return sizeof routes / sizeof routes[0]; }

/* Index of the route for method+path; -1 no path match, -2 path matches
   but not with this method. */
int router_match_index(const char *method, const char *path) {
  int path_matched = 0;
  for (size_t i = 0; i < router_route_count(); i++) {
    if (!str_glob_match(routes[i].pattern, path)) continue;
    if (strcmp(routes[i].method, method) == 0) return (int)i;
    path_matched = 1;
  }
  return path_matched ? -2 : -1;
}

int router_init(app *a) {
  /* Check the table: patterns well-formed, no route shadowed by an earlier one. */
  int problems = 0;
  for (size_t i = 0; i < router_route_count(); i++) {
    if (routes[i].pattern[0] != '/') {
      LOGE("router", "route %zu: pattern '%s' must start with '/'", i, routes[i].pattern);
      problems++;
    }
    for (size_t j = 0; j < i; j++) {
      if (strcmp(routes[i].method, routes[j].method) == 0 && str_glob_match(routes[j].pattern, routes[i].pattern)) {
        LOGE("router", "route '%s %s' is shadowed by '%s'", routes[i].method, routes[i].pattern, routes[j].pattern);
        problems++;
      }
    }
  }
  strview enabled[32];
  int n = cfg_get_list(&a->cfg, "server.routes", enabled, 32);
  LOGI("router", "%zu routes, %d advertised, listening on %s", router_route_count(), n,
       cfg_get_str(&a->cfg, "server.listen", "?"));
  return problems ? -1 : 0;
}

static void render_response(response *rs, strbuf *wire) {
  sb_appendf(wire, "HTTP/1.1 %d %s\r\n", rs->status, status_text(rs->status));
  sb_append_sv(wire, sv_n(sb_cstr(&rs->headers), rs->headers.n));
  sb_appendf(wire, "Content-Length: %zu\r\n\r\n", rs->body.n);
  sb_append_sv(wire, sv_n(sb_cstr(&rs->body), rs->body.n));
}

int router_handle(app *a, const char *request_text, response *rs) {
  request rq;
  uint64_t t0 = metrics_now_us();
  a->requests++;
  metrics_inc("requests");
  if (parse_request(request_text, &rq) != 0) {
    a->request_errors++;
    return respond_error(rs, 400, "malformed request");
  }
  long max_body = cfg_get_int(&a->cfg, "server.max_body", 65536);
  if ((long)rq.body_len > max_body) return respond_error(rs, 413, "body too large");
  int idx = router_match_index(rq.method, rq.path);
  if (idx == -1) return respond_error(rs, 404, rq.path);
  if (idx == -2) return respond_error(rs, 405, rq.method);
  const route *r = &routes[idx];
  if (r->admin && !header_value(&rq, "Authorization")) {
    a->request_errors++;
    return respond_error(rs, 401, "admin routes need credentials");
  }
  rs->status = r->handler(a, &rq, rs);
  if (rs->status >= 500) a->request_errors++;
  metrics_observe("request_us", metrics_now_us() - t0);
  strbuf wire;
  sb_init(&wire);
  render_response(rs, &wire);
  metrics_add("bytes_out", wire.n);
  sb_free(&wire);
  return rs->status;
}
