/*
 * cache.c - keyed byte caches with LRU eviction, and the warmers the worker
 * threads run during launch: glyph metrics, decoded icons, the message
 * catalogue, route lookups and command completions.
 *
 * A cache is not thread-safe: each warmer owns its cache until the pool is
 * drained; afterwards the main thread only reads them.
 */
#include "launchpad.h"

#include "widgets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct centry {
  char *key;
  void *data;
  size_t n;
  struct centry *newer, *older;
} centry;

struct cache {
  char name[24];
  size_t capacity;
  size_t bytes;
  uint64_t hits, misses, evictions;
  hashmap index;
  arena mem;
  centry *newest, *oldest;
};

cache *cache_create(const char *name, size_t capacity) {
  cache *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  snprintf(c->name, sizeof c->name, "%s", name);
  c->capacity = capacity ? capacity : 64;
  arena_init(&c->mem, 16384);
  if (hm_init(&c->index, capacity + capacity / 2) != 0) {
    free(c);
    return NULL;
  }
  return c;
}

static void lru_unlink(cache *c, centry *e) {
  if (e->newer) e->newer->older = e->older;
  else c->newest = e->older;
  if (e->older) e->older->newer = e->newer;
  else c->oldest = e->newer;
  e->newer = e->older = NULL;
}

int cache_format_stats(const cache *c, strbuf *out) {
  uint64_t total = c->hits + c->misses;
  sb_appendf(out, "%-10s %5zu entries %8zu bytes  hit rate %5.1f%%  %llu evictions\n", c->name,
             hm_len(&c->index), c->bytes, total ? 100.0 * (double)c->hits / (double)total : 0.0,
             (unsigned long long)c->evictions);
  return 0;
}

static void lru_push_newest(cache *c, centry *e) {
  e->older = c->newest;
  e->newer = NULL;
  if (c->newest) c->newest->newer = e;
  c->newest = e;
  if (!c->oldest) c->oldest = e;
}

void cache_destroy(cache *c) {
  if (!c) return;
  hm_free(&c->index);
  arena_destroy(&c->mem);
  free(c);
}

int cache_evict(cache *c, size_t keep) {
  int evicted = 0;
  while (hm_len(&c->index) > keep && c->oldest) {
    centry *e = c->oldest;
    lru_unlink(c, e);
    hm_remove(&c->index, e->key);
    c->bytes -= e->n;
    c->evictions++;
    evicted++;
  }
  return evicted;
}

int cache_put(cache *c, const char *key, const void *data, size_t n) {
  centry *e = hm_get(&c->index, key);
  if (e) {
    lru_unlink(c, e);
    c->bytes -= e->n;
  } else {
    if (hm_len(&c->index) >= c->capacity) cache_evict(c, c->capacity - 1);
    e = arena_calloc(&c->mem, 1, sizeof *e);
    e->key = arena_strdup(&c->mem, key);
    if (hm_put(&c->index, e->key, e) < 0) return -1;
  }
  e->data = arena_memdup(&c->mem, data, n);
  e->n = n;
  c->bytes += n;
  lru_push_newest(c, e);
  return 0;
}

const void *cache_get(cache *c, const char *key, size_t *n) {
  centry *e = hm_get(&c->index, key);
  if (!e) {
    c->misses++;
    return NULL;
  }
  c->hits++;
  lru_unlink(c, e);
  lru_push_newest(c, e);
  if (n) *n = e->n;
  return e->data;
}

size_t cache_len(const cache *c) { return hm_len(&c->index); }

const char *cache_name(const cache *c) { return c->name; }

size_t cache_bytes(const cache *c) { return c->bytes; }

uint32_t cache_checksum(const cache *c) {
  /* Order-independent: XOR of per-entry CRCs. */
  uint32_t sum = 0;
  hm_iter it;
  hm_iter_init(&it, &c->index);
  for (const hm_entry *he; (he = hm_iter_next(&it));) {
    const centry *e = he->value;
    uint32_t crc = wg_crc32(0, e->key, strlen(e->key));
    sum ^= wg_crc32(crc, e->data, e->n);
  }
  return sum;
}

/* ---- warmers ---- */

int warm_glyph_cache(cache *c, int font_size) {
  static const uint32_t ranges[][2] = {{0x20, 0x7E}, {0xA0, 0xFF}, {0x391, 0x3C9}, {0x4E00, 0x4E7F}};
  int n = 0;
  for (int size = font_size - 1; size <= font_size + 1; size++) {
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
      for (uint32_t cp = ranges[r][0]; cp <= ranges[r][1]; cp++) {
        if (cache_len(c) + 1 >= c->capacity) return n;
        wg_glyph_metrics m;
        wg_glyph_measure(cp, size, &m);
        char key[24];
        snprintf(key, sizeof key, "g%u@%d", cp, size);
        if (cache_put(c, key, &m, sizeof m) == 0) n++;
      }
    }
  }
  return n;
}

static const struct {
  const char *name;
  const char *b64;
} icon_sources[] = {
    {"app", "AQIGAAECBgABAgcAAQIGAAECBwABAgYAAQIHAAECBgABAgcAAQIDAAMBAQIHAAECAgAEAQECAgEFAAECAwADAQECAwEDAAICAwADAQECBQEBAAECBQACAQECBgEBAgYAAQEBAgYBAQIHAAECBgEBAgcAAQIBAAUBAQIBAQYAAQIEAAIBAQIHAAECBgABAgYAAgIGAAECBgABAgcAAQIGAAECAgA="},
    {"open", "BgABAgYAAQIHAAECBgABAgcAAQIGAAECBwABAgYAAQIHAAECAwADAQECAQEGAAECAwADAQECAwEDAAICAwADAQECBQEBAAECBQACAQECBgEBAgYAAQEBAgYBAQIHAAECBgEBAgEBBgABAgYBAQICAQUAAQICAAQBAQICAQUAAQIEAAIBAQICAQQAAgIGAAECBgABAgcAAQIGAAECBwABAgYAAQIDAA=="},
    {"save", "BQABAgYAAQIHAAECBgABAgcAAQIGAAECBwABAgUAAQEBAgcAAQIDAAMBAQIDAQMAAgIDAAMBAQIFAQEAAQIFAAIBAQIGAQECBgABAQECBgEBAgYAAQEBAgYBAQICAQUAAQIGAQECAgEFAAECAQAFAQECAwEEAAECAgAEAQECBAECAAICBAACAQECBAECAAECBwABAgEAAQEEAAECBwABAgYAAQIHAAECBgABAgQA"},
    {"close", "BAABAgYAAQIHAAECBgABAgcAAQIGAAECBwABAgUAAQEBAgEBBQACAgQAAgEBAgQBAgABAgUAAgEBAgYBAQIGAAEBAQIGAQECBgABAQECBgEBAgIBBQABAgYBAQIDAQQAAQIGAQECBAEDAAECAgAEAQECBAECAAICAwADAQECBQEBAAECBgABAQECBQEBAAECBwABAgEAAwECAAECBwABAgYAAQIHAAECBgABAgUA"},
    {"search", "AwABAgYAAQIHAAECBgABAgcAAQIGAAECBgACAgUAAQEBAgMBAwABAgYAAQEBAgUBAQABAgYAAQEBAgYBAQIGAAEBAQIGAQECAgEFAAECBgEBAgMBBAABAgYBAQIEAQMAAQIBAAUBAQIFAQEAAgICAAQBAQIGAQECBQACAQECBgEBAgcAAQIGAQECBwABAgEABQEBAgcAAQIGAAECBwABAgYAAQIGAA=="},
    {"settings", "AgABAgYAAQIHAAECBgABAgYAAgIGAAECBgABAgYAAQEBAgUBAQABAgYAAQEBAgYBAQIGAAEBAQIGAQECAgEFAAECBgEBAgMBBAABAgYBAQIEAQMAAQIBAAUBAQIFAQEAAgICAAQBAQIGAQECBAADAQECBgEBAgUAAgEBAgYBAQIBAQYAAQIGAQECAQEGAAECAQAFAQECAQEGAAECBgABAgcAAQIGAAECBgABAg=="},
    {"user", "AQABAgYAAQIGAAICBgABAgYAAQIHAAECAwEDAAECBwABAgYBAQIHAAECBgEBAgEBBgABAgYBAQIDAQQAAQIGAQECBAEDAAECBgEBAgYBAgIBAAUBAQIGAQECAwAEAQECBgEBAgEBBAACAQECBgEBAgEBBQABAQECBgEBAgIBBQABAgYBAQICAQUAAQICAAQBAQICAQUAAQIFAAEBAQIBAQUAAgIGAAECBgABAgEA"},
    {"bell", "AQIGAAECBgABAgcAAQIGAAECBwABAgUBAQABAgcAAQIGAQECBwABAgYBAQICAQUAAQIGAQECBAEDAAECBgEBAgYBAgIBAAUBAQIGAQECAwAEAQECBgEBAgEBAwADAQECBgEBAgIBAwACAQECBgEBAgMBBAABAgYBAQIDAQQAAQIBAAUBAQIDAQQAAQIDAAMBAQIDAQMAAgIFAAEBAQIDAQMAAQIHAAECBgABAgIA"},
    {"folder", "BgABAgYAAQIHAAECBgABAgcAAQIBAAUBAQIHAAECBgEBAgIBBQABAgYBAQIEAQMAAQIBAAUBAQIFAQEAAgIBAAUBAQIGAQECAwAEAQECBgEBAgEBAwADAQECBgEBAgIBAwACAQECBgEBAgMBAwABAQECBgEBAgQBAwABAgYBAQIEAQMAAQIBAAUBAQIFAQEAAgIDAAMBAQIFAQEAAQIHAAECBAECAAECBwABAgYAAQIDAA=="},
    {"file", "BQABAgYAAQIHAAECBgABAgcAAQIBAAUBAQIBAQYAAQIBAAUBAQIDAQQAAQIBAAUBAQIFAQEAAgIBAAUBAQIGAQECAwAEAQECBgEBAgEBAwADAQECBgEBAgIBAwACAQECBgEBAgMBAwABAQECBgEBAgQBAwABAgYBAQIFAQIAAQIGAQECBgECAgIABAEBAgYBAQIFAAIBAQIGAQECBwABAgYBAQIHAAECBgABAgQA"},
    {"plugin", "BAABAgYAAQIHAAECBAABAQEAAQIHAAECAgAEAQECAgEFAAECAgAEAQECBAECAAICAgAEAQECBgEBAgMABAEBAgYBAQIBAQMAAwEBAgYBAQICAQMAAgEBAgYBAQIDAQIAAgEBAgYBAQIFAQIAAQIGAQECBQECAAECBgEBAgYBAgIBAAUBAQIGAQECBAADAQECBgEBAgYAAQEBAgYBAQIHAAECBgEBAgcAAQIEAAEBAQABAgUA"},
    {"warning", "AwABAgYAAQIHAAECBAACAQECBwABAgIABAEBAgQBAgACAgIABAEBAgYBAQIDAAQBAQIGAQECAQEDAAMBAQIGAQECAgEDAAIBAQIGAQECAwECAAIBAQIGAQECBQEBAAEBAQIGAQECBgEBAAECBgEBAgYBAgIBAAUBAQIGAQECAwAEAQECBgEBAgEBAwADAQECBgEBAgIBBAABAQECBgEBAgIBBQABAgYBAQICAQUAAQIEAAIBAQIGAA=="},
};

/* Scales a 16x16 icon by nearest neighbour to size x size. */
static void icon_scale(const uint8_t *src, uint8_t *dst, int size) {
  for (int y = 0; y < size; y++)
    for (int x = 0; x < size; x++) dst[y * size + x] = src[(y * 16 / size) * 16 + x * 16 / size];
}

int warm_icon_cache(cache *c) {
  static const int sizes[] = {16, 24, 32, 48};
  int n = 0;
  for (size_t i = 0; i < sizeof icon_sources / sizeof icon_sources[0]; i++) {
    const char *b64 = icon_sources[i].b64;
    uint8_t rle[512], pixels[256], scaled[48 * 48];
    size_t len = strlen(b64);
    if (wg_base64_decoded_size(b64, len) > sizeof rle) continue;
    long m = wg_base64_decode(b64, len, rle);
    if (m < 0 || wg_rle_decode(rle, (size_t)m, pixels, sizeof pixels) != 256) {
      LOGW("cache", "icon %s is corrupt: %s", icon_sources[i].name, wg_codec_error(-1));
      continue;
    }
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      if (cache_len(c) + 1 >= c->capacity) return n;
      icon_scale(pixels, scaled, sizes[s]);
      char key[32];
      snprintf(key, sizeof key, "%s@%d", icon_sources[i].name, sizes[s]);
      if (cache_put(c, key, scaled, (size_t)(sizes[s] * sizes[s])) == 0) n++;
    }
  }
  return n;
}

static const char message_catalog[] =
    "app.title=Launchpad\n"
    "app.ready=Ready\n"
    "app.loading=Loading\xe2\x80\xa6\n"
    "menu.file=File\n"
    "menu.edit=Edit\n"
    "menu.view=View\n"
    "menu.help=Help\n"
    "action.open=Open\xe2\x80\xa6\n"
    "action.save=Save\n"
    "action.close=Close\n"
    "action.search=Search\n"
    "status.idle=Idle\n"
    "status.busy=Working\n"
    "status.plugins=%d plugins\n"
    "error.not_found=Not found\n"
    "error.denied=Permission denied\n"
    "error.internal=Something went wrong\n"
    "unit.bytes=%d bytes\n"
    "unit.items=%d items\n"
    "greeting.morning=Good morning\n"
    "greeting.evening=Good evening\n"
    "caf\xc3\xa9.name=Caf\xc3\xa9\n";

int warm_locale_cache(cache *c, const char *locale) {
  int n = 0;
  strview rest = sv(message_catalog), line;
  static const char *const forms[] = {"", ".one", ".few", ".many", ".other"};
  while (sv_split_next(&rest, '\n', &line)) {
    long eq = sv_index_of(line, '=');
    if (eq <= 0) continue;
    strview key = sv_n(line.p, (size_t)eq), value = sv_n(line.p + eq + 1, line.n - (size_t)eq - 1);
    if (!wg_utf8_valid(value.p, value.n)) {
      LOGW("cache", "message %.*s is not UTF-8", (int)key.n, key.p);
      continue;
    }
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
      if (f > 0 && sv_find(value, "%d") < 0) break;
      if (cache_len(c) + 1 >= c->capacity) return n;
      char k[96];
      snprintf(k, sizeof k, "%s:%.*s%s", locale, (int)key.n, key.p, forms[f]);
      if (cache_put(c, k, value.p, value.n) == 0) n++;
    }
  }
  return n;
}

int warm_completion_cache(cache *c) {
  int n = 0;
  for (size_t i = 0; i < cmd_count(); i++) {
    const command *cmd = cmd_at(i);
    size_t len = strlen(cmd->name);
    for (size_t k = 1; k <= len && k < 32; k++) {
      char prefix[40];
      snprintf(prefix, sizeof prefix, "c:%.*s", (int)k, cmd->name);
      size_t old_n = 0;
      const char *old = cache_get(c, prefix, &old_n);
      char list[512];
      int m = old ? snprintf(list, sizeof list, "%.*s %s", (int)old_n, old, cmd->name)
                  : snprintf(list, sizeof list, "%s", cmd->name);
      if (m <= 0 || (size_t)m >= sizeof list) continue;
      if (cache_put(c, prefix, list, (size_t)m) == 0 && !old) n++;
    }
  }
  return n;
}

int warm_route_cache(cache *c) {
  static const char *const methods[] = {"GET", "PUT", "POST"};
  static const char *const paths[] = {"/", "/status", "/health", "/metrics", "/plugins", "/calc",
                                      "/config/ui.theme", "/config/workers.count", "/widgets/root",
                                      "/widgets/status", "/admin/reload", "/favicon.ico"};
  int n = 0;
  for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++) {
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
      int idx = router_match_index(methods[m], paths[p]);
      char key[64];
      snprintf(key, sizeof key, "%s %s", methods[m], paths[p]);
      if (cache_put(c, key, &idx, sizeof idx) == 0) n++;
    }
  }
  return n;
}
