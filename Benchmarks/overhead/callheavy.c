/*
 * callheavy.c - a call-heavy workload for measuring the cost of the
 * instrumentation hooks.
 *
 * Millions of calls to about 300 small, distinct functions that the
 * compiler may not inline: a bytecode interpreter whose 256 opcodes are one
 * function each, recursion (Fibonacci, mutual recursion, a binary tree),
 * sorting through comparator functions (a merge sort of our own and libc's
 * qsort), and a family of string hash functions. Every function has a small
 * real body, so the run is dominated by calls without being nothing but
 * calls.
 *
 * A second mode, "wide", spreads the calls over 4096 functions (about
 * 200 KiB of code) in random order, the way a large program's hot paths do:
 * there the instruction cache and whatever memory the hooks touch per
 * function matter, not only the instructions they run.
 *
 * Usage: callheavy [-m mixed|wide] [-t threads] [-s scale]
 *   -m M  workload: mixed (default) or wide
 *   -t N  run the workload on N threads at once (each does the full work)
 *   -s N  repeat the workload N times (default 40: about half a second)
 * Prints one line, "checksum <hex> calls <n>", identical for every build of
 * this file, so the benchmark driver can check that all variants did the
 * same work.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

/* ---- 256 interpreter opcodes, op_00 .. op_ff ---- */

#define OP(h)                                                                 \
  NOINLINE static uint64_t op_##h(uint64_t acc, uint64_t arg) {               \
    const uint64_t k = 0x##h;                                                 \
    uint64_t x = acc ^ (arg + k * 0x9E3779B97F4A7C15ull);                     \
    x = (x << (k % 13 + 1)) | (x >> (63 - k % 13));                          \
    return (k & 1) ? x * (2 * k + 1) : x + (k << 7) - (arg >> (k % 5));       \
  }
#define OP16(p)                                                               \
  OP(p##0) OP(p##1) OP(p##2) OP(p##3) OP(p##4) OP(p##5) OP(p##6) OP(p##7)     \
  OP(p##8) OP(p##9) OP(p##a) OP(p##b) OP(p##c) OP(p##d) OP(p##e) OP(p##f)
OP16(0) OP16(1) OP16(2) OP16(3) OP16(4) OP16(5) OP16(6) OP16(7)
OP16(8) OP16(9) OP16(a) OP16(b) OP16(c) OP16(d) OP16(e) OP16(f)

typedef uint64_t (*op_fn)(uint64_t, uint64_t);

#define REF(h) op_##h,
#define REF16(p)                                                              \
  REF(p##0) REF(p##1) REF(p##2) REF(p##3) REF(p##4) REF(p##5) REF(p##6)       \
  REF(p##7) REF(p##8) REF(p##9) REF(p##a) REF(p##b) REF(p##c) REF(p##d)       \
  REF(p##e) REF(p##f)
static const op_fn ops[256] = {REF16(0) REF16(1) REF16(2) REF16(3) REF16(4) REF16(5) REF16(6) REF16(7)
                               REF16(8) REF16(9) REF16(a) REF16(b) REF16(c) REF16(d) REF16(e) REF16(f)};

#define PROGRAM_LEN 4096

typedef struct {
  uint8_t code[PROGRAM_LEN];
  uint64_t calls;
} program;

NOINLINE static uint64_t lcg_next(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return *state >> 33;
}

NOINLINE static void program_generate(program *p, uint64_t seed) {
  uint64_t s = seed;
  for (int i = 0; i < PROGRAM_LEN; i++) p->code[i] = (uint8_t)lcg_next(&s);
}

NOINLINE static uint64_t program_run(program *p, uint64_t acc, int rounds) {
  for (int r = 0; r < rounds; r++)
    for (int pc = 0; pc < PROGRAM_LEN; pc++) acc = ops[p->code[pc]](acc, (uint64_t)pc);
  p->calls += (uint64_t)rounds * PROGRAM_LEN;
  return acc;
}

/* ---- recursion ---- */

NOINLINE static uint64_t fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

NOINLINE static int is_odd(unsigned n);
NOINLINE static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
NOINLINE static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

typedef struct node {
  struct node *left, *right;
  uint64_t key;
} node;

NOINLINE static node *node_new(node *pool, int *used, uint64_t key) {
  node *n = &pool[(*used)++];
  n->left = n->right = NULL;
  n->key = key;
  return n;
}

NOINLINE static node *tree_insert(node *root, node *pool, int *used, uint64_t key) {
  if (!root) return node_new(pool, used, key);
  if (key < root->key) root->left = tree_insert(root->left, pool, used, key);
  else root->right = tree_insert(root->right, pool, used, key);
  return root;
}

NOINLINE static uint64_t tree_sum(const node *n, unsigned depth) {
  if (!n) return depth;
  return n->key + tree_sum(n->left, depth + 1) * 3 + tree_sum(n->right, depth + 1);
}

NOINLINE static unsigned tree_height(const node *n) {
  if (!n) return 0;
  unsigned l = tree_height(n->left), r = tree_height(n->right);
  return 1 + (l > r ? l : r);
}

/* ---- sorting through comparators ---- */

typedef struct {
  uint32_t id;
  int32_t score;
  char name[12];
} record;

typedef int (*cmp_fn)(const void *, const void *);

NOINLINE static int cmp_by_id(const void *a, const void *b) {
  const record *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

NOINLINE static int cmp_by_score(const void *a, const void *b) {
  const record *x = a, *y = b;
  if (x->score != y->score) return (x->score > y->score) - (x->score < y->score);
  return cmp_by_id(a, b);
}

NOINLINE static int cmp_by_name(const void *a, const void *b) {
  const record *x = a, *y = b;
  int c = strncmp(x->name, y->name, sizeof x->name);
  return c ? c : cmp_by_id(a, b);
}

NOINLINE static int cmp_by_score_desc(const void *a, const void *b) { return -cmp_by_score(a, b); }

NOINLINE static int cmp_by_name_len(const void *a, const void *b) {
  const record *x = a, *y = b;
  size_t lx = strnlen(x->name, sizeof x->name), ly = strnlen(y->name, sizeof y->name);
  return lx != ly ? (lx > ly) - (lx < ly) : cmp_by_name(a, b);
}

NOINLINE static void merge(record *a, record *tmp, size_t lo, size_t mid, size_t hi, cmp_fn cmp) {
  size_t i = lo, j = mid, k = lo;
  while (i < mid && j < hi) tmp[k++] = cmp(&a[i], &a[j]) <= 0 ? a[i++] : a[j++];
  while (i < mid) tmp[k++] = a[i++];
  while (j < hi) tmp[k++] = a[j++];
  memcpy(a + lo, tmp + lo, (hi - lo) * sizeof *a);
}

NOINLINE static void merge_sort(record *a, record *tmp, size_t lo, size_t hi, cmp_fn cmp) {
  if (hi - lo < 2) return;
  size_t mid = lo + (hi - lo) / 2;
  merge_sort(a, tmp, lo, mid, cmp);
  merge_sort(a, tmp, mid, hi, cmp);
  merge(a, tmp, lo, mid, hi, cmp);
}

NOINLINE static void records_fill(record *r, size_t n, uint64_t seed) {
  uint64_t s = seed;
  for (size_t i = 0; i < n; i++) {
    r[i].id = (uint32_t)lcg_next(&s);
    r[i].score = (int32_t)(lcg_next(&s) % 2000) - 1000;
    size_t len = 3 + lcg_next(&s) % 8;
    for (size_t k = 0; k < len; k++) r[i].name[k] = (char)('a' + lcg_next(&s) % 26);
    memset(r[i].name + len, 0, sizeof r[i].name - len);
  }
}

NOINLINE static uint64_t records_digest(const record *r, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ r[i].id) * 1099511628211ull;
  return h;
}

/* ---- a family of string hashes ---- */

#define HASH_FN(N, MUL, ROT)                                                  \
  NOINLINE static uint64_t hash_##N(const char *s, size_t n) {                \
    uint64_t h = 0xcbf29ce484222325ull ^ (N);                                 \
    for (size_t i = 0; i < n; i++) {                                          \
      h = (h ^ (unsigned char)s[i]) * (MUL);                                  \
      h = (h << (ROT)) | (h >> (64 - (ROT)));                                 \
    }                                                                         \
    return h;                                                                 \
  }
HASH_FN(0, 0x100000001b3ull, 5)   HASH_FN(1, 0x9E3779B97F4A7C15ull, 7)
HASH_FN(2, 0xff51afd7ed558ccdull, 11) HASH_FN(3, 0xc4ceb9fe1a85ec53ull, 13)
HASH_FN(4, 0x87c37b91114253d5ull, 17) HASH_FN(5, 0x4cf5ad432745937full, 19)
HASH_FN(6, 0x2545F4914F6CDD1Dull, 23) HASH_FN(7, 0x94d049bb133111ebull, 29)
HASH_FN(8, 0xbf58476d1ce4e5b9ull, 31) HASH_FN(9, 0x5851f42d4c957f2dull, 37)
HASH_FN(10, 0x14057b7ef767814full, 41) HASH_FN(11, 0xd6e8feb86659fd93ull, 43)
HASH_FN(12, 0xa0761d6478bd642full, 47) HASH_FN(13, 0xe7037ed1a0b428dbull, 53)
HASH_FN(14, 0x8ebc6af09c88c6e3ull, 59) HASH_FN(15, 0x589965cc75374cc3ull, 61)

typedef uint64_t (*hash_fn)(const char *, size_t);
static const hash_fn hashes[16] = {hash_0, hash_1, hash_2,  hash_3,  hash_4,  hash_5,  hash_6,  hash_7,
                                   hash_8, hash_9, hash_10, hash_11, hash_12, hash_13, hash_14, hash_15};

NOINLINE static uint64_t hash_words(const record *r, size_t n) {
  uint64_t h = 0;
  for (size_t i = 0; i < n; i++) h += hashes[i % 16](r[i].name, strnlen(r[i].name, sizeof r[i].name));
  return h;
}

/* ---- 4096 more opcodes for the wide mode, wide_000 .. wide_fff ---- */

#define WIDE(h)                                                               \
  NOINLINE static uint64_t wide_##h(uint64_t acc, uint64_t arg) {             \
    const uint64_t k = 0x##h;                                                 \
    uint64_t x = acc + (arg ^ k * 0xC2B2AE3D27D4EB4Full);                     \
    return (x ^ (x >> (k % 29 + 3))) * (2 * k + 1);                           \
  }
#define WIDE16(p)                                                             \
  WIDE(p##0) WIDE(p##1) WIDE(p##2) WIDE(p##3) WIDE(p##4) WIDE(p##5)           \
  WIDE(p##6) WIDE(p##7) WIDE(p##8) WIDE(p##9) WIDE(p##a) WIDE(p##b)           \
  WIDE(p##c) WIDE(p##d) WIDE(p##e) WIDE(p##f)
#define WIDE256(p)                                                            \
  WIDE16(p##0) WIDE16(p##1) WIDE16(p##2) WIDE16(p##3) WIDE16(p##4)            \
  WIDE16(p##5) WIDE16(p##6) WIDE16(p##7) WIDE16(p##8) WIDE16(p##9)            \
  WIDE16(p##a) WIDE16(p##b) WIDE16(p##c) WIDE16(p##d) WIDE16(p##e)            \
  WIDE16(p##f)
WIDE256(0) WIDE256(1) WIDE256(2) WIDE256(3) WIDE256(4) WIDE256(5) WIDE256(6) WIDE256(7)
WIDE256(8) WIDE256(9) WIDE256(a) WIDE256(b) WIDE256(c) WIDE256(d) WIDE256(e) WIDE256(f)

#define WREF(h) wide_##h,
#define WREF16(p)                                                             \
  WREF(p##0) WREF(p##1) WREF(p##2) WREF(p##3) WREF(p##4) WREF(p##5)           \
  WREF(p##6) WREF(p##7) WREF(p##8) WREF(p##9) WREF(p##a) WREF(p##b)           \
  WREF(p##c) WREF(p##d) WREF(p##e) WREF(p##f)
#define WREF256(p)                                                            \
  WREF16(p##0) WREF16(p##1) WREF16(p##2) WREF16(p##3) WREF16(p##4)            \
  WREF16(p##5) WREF16(p##6) WREF16(p##7) WREF16(p##8) WREF16(p##9)            \
  WREF16(p##a) WREF16(p##b) WREF16(p##c) WREF16(p##d) WREF16(p##e)            \
  WREF16(p##f)
static const op_fn wide_ops[4096] = {WREF256(0) WREF256(1) WREF256(2) WREF256(3) WREF256(4) WREF256(5)
                                     WREF256(6) WREF256(7) WREF256(8) WREF256(9) WREF256(a) WREF256(b)
                                     WREF256(c) WREF256(d) WREF256(e) WREF256(f)};

#define WIDE_PROGRAM_LEN 65536

NOINLINE static uint64_t run_wide(int scale, uint64_t seed, uint64_t *calls) {
  uint16_t *code = malloc(WIDE_PROGRAM_LEN * sizeof *code);
  if (!code) abort();
  uint64_t s = seed;
  for (int i = 0; i < WIDE_PROGRAM_LEN; i++) code[i] = (uint16_t)(lcg_next(&s) % 4096);
  uint64_t acc = seed;
  int rounds = 8 * scale;
  for (int r = 0; r < rounds; r++)
    for (int pc = 0; pc < WIDE_PROGRAM_LEN; pc++) acc = wide_ops[code[pc]](acc, (uint64_t)pc);
  *calls += (uint64_t)rounds * WIDE_PROGRAM_LEN;
  free(code);
  return acc;
}

/* ---- the workload ---- */

#define NRECORDS 6000
#define NNODES 20000

typedef struct {
  unsigned id;
  int wide;
  int scale;
  uint64_t checksum;
  uint64_t calls;
} worker;

NOINLINE static uint64_t run_interpreter(int scale, uint64_t seed, uint64_t *calls) {
  program *p = calloc(1, sizeof *p);
  if (!p) abort();
  program_generate(p, seed);
  uint64_t acc = program_run(p, seed, 160 * scale);
  *calls += p->calls;
  free(p);
  return acc;
}

NOINLINE static uint64_t run_recursion(int scale) {
  uint64_t sum = 0;
  for (int i = 0; i < scale; i++) {
    sum += fib(24);
    sum += (uint64_t)is_even(5000 + (unsigned)i);
  }
  node *pool = malloc(NNODES * sizeof *pool);
  if (!pool) abort();
  int used = 0;
  node *root = NULL;
  uint64_t s = 42;
  for (int i = 0; i < NNODES; i++) root = tree_insert(root, pool, &used, lcg_next(&s));
  for (int i = 0; i < scale; i++) sum += tree_sum(root, 0) + tree_height(root);
  free(pool);
  return sum;
}

NOINLINE static uint64_t run_sorting(int scale, uint64_t seed) {
  record *r = malloc(NRECORDS * sizeof *r), *tmp = malloc(NRECORDS * sizeof *tmp);
  if (!r || !tmp) abort();
  static const cmp_fn cmps[] = {cmp_by_id, cmp_by_score, cmp_by_name, cmp_by_score_desc, cmp_by_name_len};
  uint64_t sum = 0;
  for (int i = 0; i < scale; i++) {
    records_fill(r, NRECORDS, seed + (uint64_t)i);
    for (size_t c = 0; c < sizeof cmps / sizeof cmps[0]; c++) {
      if (c % 2) qsort(r, NRECORDS, sizeof *r, cmps[c]);
      else merge_sort(r, tmp, 0, NRECORDS, cmps[c]);
      sum ^= records_digest(r, NRECORDS) + c;
    }
    sum += hash_words(r, NRECORDS);
  }
  free(r);
  free(tmp);
  return sum;
}

static void *worker_main(void *arg) {
  worker *w = arg;
  uint64_t calls = 0, sum;
  if (w->wide) {
    sum = run_wide(w->scale, 0x5eed + w->id, &calls);
  } else {
    sum = run_interpreter(w->scale, 0x5eed + w->id, &calls);
    sum ^= run_recursion(w->scale);
    sum += run_sorting(w->scale, 7);
  }
  w->checksum = sum;
  w->calls = calls;
  return NULL;
}

int main(int argc, char **argv) {
  int threads = 1, scale = 40, wide = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-m") == 0 && i + 1 < argc && strcmp(argv[i + 1], "mixed") == 0) i++;
    else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc && strcmp(argv[i + 1], "wide") == 0) wide = 1, i++;
    else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) threads = atoi(argv[++i]);
    else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) scale = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: callheavy [-m mixed|wide] [-t threads] [-s scale]\n");
      return 64;
    }
  }
  if (threads < 1 || threads > 64 || scale < 1) {
    fprintf(stderr, "callheavy: bad -t or -s\n");
    return 64;
  }
  worker ws[64];
  pthread_t tids[64];
  for (int i = 0; i < threads; i++) {
    ws[i] = (worker){(unsigned)i, wide, scale, 0, 0};
    if (i > 0 && pthread_create(&tids[i], NULL, worker_main, &ws[i]) != 0) {
      fprintf(stderr, "callheavy: pthread_create failed\n");
      return 70;
    }
  }
  worker_main(&ws[0]);
  uint64_t checksum = 0, calls = 0;
  for (int i = 0; i < threads; i++) {
    if (i > 0) pthread_join(tids[i], NULL);
    checksum = checksum * 31 + ws[i].checksum;
    calls += ws[i].calls;
  }
  printf("checksum %016llx interpreted-calls %llu\n", (unsigned long long)checksum, (unsigned long long)calls);
  return 0;
}
