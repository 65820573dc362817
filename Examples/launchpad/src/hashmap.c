/*
 * hashmap.c - an open-addressing hash map from C strings to pointers.
 *
 * Keys are not copied: callers keep them alive (they usually live in an
 * arena). Linear probing, tombstones on removal, grows at 70% load.
 */
#include "launchpad.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOMBSTONE ((const char *)&tombstone_marker)
static const char tombstone_marker = 0;

static uint32_t hm_hash(const char *key) {
  uint32_t h = 2166136261u;
  for (; *key; key++) h = (h ^ (unsigned char)*key) * 16777619u;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  return h ? h : 1;
}

int hm_init(hashmap *m, size_t cap) {
  size_t c = 16;
  while (c < cap) c *= 2;
  m->slots = calloc(c, sizeof *m->slots);
  if (!m->slots) return -1;
  m->cap = c;
  m->len = 0;
  m->tombstones = 0;
  m->probes = 0;
  return 0;
}

int hm_format_stats(const hashmap *m, char *out, size_t cap) {
  size_t longest = 0, run = 0;
  for (size_t i = 0; i < m->cap; i++) {
    run = m->slots[i].key ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return snprintf(out, cap, "%zu/%zu slots, %zu tombstones, load %.2f, longest run %zu, %zu probes", m->len,
                  m->cap, m->tombstones, hm_load_factor(m), longest, m->probes);
}

/* Lookups only read the map, so several threads may share one; the probe
   count is kept by the writers. */
static size_t hm_find_slot(const hashmap *m, const char *key, uint32_t h, int for_insert, size_t *probes) {
  size_t mask = m->cap - 1;
  size_t i = h & mask;
  size_t first_free = (size_t)-1;
  for (size_t step = 0; step < m->cap; step++, i = (i + 1) & mask) {
    const hm_entry *e = &m->slots[i];
    if (probes) ++*probes;
    if (e->key == NULL) return for_insert && first_free != (size_t)-1 ? first_free : i;
    if (e->key == TOMBSTONE) {
      if (first_free == (size_t)-1) first_free = i;
      continue;
    }
    if (e->hash == h && strcmp(e->key, key) == 0) return i;
  }
  return first_free;
}

void hm_free(hashmap *m) {
  free(m->slots);
  memset(m, 0, sizeof *m);
}

static int hm_grow(hashmap *m) {
  hashmap bigger;
  if (hm_init(&bigger, m->cap * 2) != 0) return -1;
  for (size_t i = 0; i < m->cap; i++) {
    hm_entry *e = &m->slots[i];
    if (!e->key || e->key == TOMBSTONE) continue;
    size_t j = hm_find_slot(&bigger, e->key, e->hash, 1, NULL);
    bigger.slots[j] = *e;
    bigger.len++;
  }
  bigger.probes = m->probes;
  free(m->slots);
  *m = bigger;
  return 0;
}

int hm_check(const hashmap *m, char *why, size_t cap) {
  size_t live = 0, dead = 0;
  for (size_t i = 0; i < m->cap; i++) {
    const hm_entry *e = &m->slots[i];
    if (!e->key) continue;
    if (e->key == TOMBSTONE) {
      dead++;
      continue;
    }
    live++;
    if (e->hash != hm_hash(e->key)) {
      snprintf(why, cap, "slot %zu: stale hash for \"%s\"", i, e->key);
      return -1;
    }
    if (hm_find_slot(m, e->key, e->hash, 0, NULL) != i) {
      snprintf(why, cap, "slot %zu: \"%s\" unreachable", i, e->key);
      return -1;
    }
  }
  if (live != m->len || dead != m->tombstones) {
    snprintf(why, cap, "counted %zu live/%zu dead, header says %zu/%zu", live, dead, m->len, m->tombstones);
    return -1;
  }
  return 0;
}

void *hm_get(const hashmap *m, const char *key) {
  if (m->cap == 0) return NULL;
  size_t i = hm_find_slot(m, key, hm_hash(key), 0, NULL);
  if (i == (size_t)-1 || !m->slots[i].key || m->slots[i].key == TOMBSTONE) return NULL;
  return m->slots[i].value;
}

int hm_put(hashmap *m, const char *key, void *value) {
  if ((m->len + m->tombstones + 1) * 10 > m->cap * 7 && hm_grow(m) != 0) return -1;
  uint32_t h = hm_hash(key);
  size_t i = hm_find_slot(m, key, h, 1, &m->probes);
  hm_entry *e = &m->slots[i];
  if (e->key && e->key != TOMBSTONE) {
    e->value = value;
    return 1;
  }
  if (e->key == TOMBSTONE) m->tombstones--;
  e->key = key;
  e->hash = h;
  e->value = value;
  m->len++;
  return 0;
}

int hm_remove(hashmap *m, const char *key) {
  size_t i = hm_find_slot(m, key, hm_hash(key), 0, &m->probes);
  if (i == (size_t)-1 || !m->slots[i].key || m->slots[i].key == TOMBSTONE) return -1;
  m->slots[i].key = TOMBSTONE;
  m->slots[i].value = NULL;
  m->len--;
  m->tombstones++;
  return 0;
}

int hm_contains(const hashmap *m, const char *key) { return hm_get(m, key) != NULL; }

size_t hm_len(const hashmap *m) { return m->len; }

static int compare_keys(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void hm_iter_init(hm_iter *it, const hashmap *m) {
  it->map = m;
  it->i = 0;
}

const hm_entry *hm_iter_next(hm_iter *it) {
  while (it->i < it->map->cap) {
    const hm_entry *e = &it->map->slots[it->i++];
    if (e->key && e->key != TOMBSTONE) return e;
  }
  return NULL;
}

void hm_clear(hashmap *m) {
  memset(m->slots, 0, m->cap * sizeof *m->slots);
  m->len = 0;
  m->tombstones = 0;
}

size_t hm_sorted_keys(const hashmap *m, const char **out, size_t cap) {
  hm_iter it;
  size_t n = 0;
  hm_iter_init(&it, m);
  for (const hm_entry *e; (e = hm_iter_next(&it)) && n < cap;) out[n++] = e->key;
  qsort(out, n, sizeof *out, compare_keys);
  return n;
}

int hm_merge(hashmap *dst, const hashmap *src, int overwrite) {
  hm_iter it;
  int added = 0;
  hm_iter_init(&it, src);
  for (const hm_entry *e; (e = hm_iter_next(&it));) {
    if (!overwrite && hm_contains(dst, e->key)) continue;
    if (hm_put(dst, e->key, e->value) < 0) return -1;
    added++;
  }
  return added;
}

double hm_load_factor(const hashmap *m) { return m->cap ? (double)m->len / (double)m->cap : 0.0; }
