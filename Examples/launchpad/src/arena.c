/*
 * arena.c - a bump allocator in chained blocks, with marks to rewind to.
 */
#include "launchpad.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_block {
  arena_block *prev;
  size_t size, off;
  _Alignas(16) unsigned char data[];
};

static void arena_out_of_memory(size_t n) {
  log_write(LOG_FATAL, "arena", "out of memory allocating %zu bytes", n);
  fprintf(stderr, "launchpad: out of memory\n");
  abort();
}

void arena_init(arena *a, size_t block_size) {
  memset(a, 0, sizeof *a);
  a->block_size = block_size ? block_size : 16384;
}

int arena_format_stats(const arena *a, char *out, size_t cap) {
  size_t reserved = 0;
  for (const arena_block *b = a->head; b; b = b->prev) reserved += b->size;
  return snprintf(out, cap, "%u blocks, %zu reserved, %zu used, %zu peak (%.1f%% utilisation)", a->blocks,
                  reserved, a->used, a->peak, reserved ? 100.0 * (double)a->used / (double)reserved : 0.0);
}

static arena_block *arena_new_block(arena *a, size_t need) {
  size_t size = a->block_size;
  while (size < need) size *= 2;
  arena_block *b = malloc(sizeof *b + size);
  if (!b) arena_out_of_memory(need);
  b->prev = a->head;
  b->size = size;
  b->off = 0;
  a->head = b;
  a->blocks++;
  return b;
}

void *arena_alloc_aligned(arena *a, size_t n, size_t align) {
  arena_block *b = a->head;
  size_t off = b ? (b->off + align - 1) & ~(align - 1) : 0;
  if (!b || off + n > b->size) {
    b = arena_new_block(a, n + align);
    off = 0;
  }
  b->off = off + n;
  a->used += n;
  if (a->used > a->peak) a->peak = a->used;
  return b->data + off;
}

int arena_check(const arena *a, char *why, size_t cap) {
  unsigned count = 0;
  size_t total = 0;
  for (const arena_block *b = a->head; b; b = b->prev) {
    if (b->off > b->size) {
      snprintf(why, cap, "block %u overrun: %zu > %zu", count, b->off, b->size);
      return -1;
    }
    total += b->off;
    count++;
  }
  if (count != a->blocks) {
    snprintf(why, cap, "block count %u, expected %u", count, a->blocks);
    return -1;
  }
  if (total < a->used) {
    snprintf(why, cap, "accounted %zu bytes but blocks hold %zu", a->used, total);
    return -1;
  }
  return 0;
}

void *arena_alloc(arena *a, size_t n) { return arena_alloc_aligned(a, n, 16); }

void *arena_calloc(arena *a, size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) arena_out_of_memory(SIZE_MAX);
  void *p = arena_alloc(a, count * size);
  memset(p, 0, count * size);
  return p;
}

arena_mark arena_get_mark(const arena *a) {
  arena_mark m = {a->head, a->head ? a->head->off : 0, a->used};
  return m;
}

char *arena_strndup(arena *a, const char *s, size_t n) {
  char *p = arena_alloc_aligned(a, n + 1, 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *arena_strdup(arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

void arena_rewind(arena *a, arena_mark m) {
  while (a->head && a->head != m.block) {
    arena_block *prev = a->head->prev;
    free(a->head);
    a->head = prev;
    a->blocks--;
  }
  if (a->head) a->head->off = m.offset;
  a->used = m.used;
}

void *arena_memdup(arena *a, const void *p, size_t n) {
  void *q = arena_alloc(a, n);
  memcpy(q, p, n);
  return q;
}

char *arena_sprintf(arena *a, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = arena_alloc_aligned(a, (size_t)n + 1, 1);
  vsnprintf(p, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return p;
}

void arena_reset(arena *a) {
  arena_mark start = {NULL, 0, 0};
  arena_rewind(a, start);
  a->used = 0;
}

size_t arena_bytes_used(const arena *a) { return a->used; }

void arena_destroy(arena *a) {
  arena_reset(a);
  a->peak = 0;
}
