/* CALLS(prefix): 100 small functions and a table of them; call_all_##prefix(n) calls the
 * first n once each: n first calls, each a breakpoint's trap under the tracer. */
#define NOINLINE __attribute__((noinline))
#define F1(p, n) NOINLINE long p##n(long x) { return x * 3 + n; }
#define F10(p, n) F1(p, n##0) F1(p, n##1) F1(p, n##2) F1(p, n##3) F1(p, n##4) F1(p, n##5) F1(p, n##6) \
  F1(p, n##7) F1(p, n##8) F1(p, n##9)
#define R1(p, n) p##n,
#define R10(p, n) R1(p, n##0) R1(p, n##1) R1(p, n##2) R1(p, n##3) R1(p, n##4) R1(p, n##5) R1(p, n##6) \
  R1(p, n##7) R1(p, n##8) R1(p, n##9)
#define CALLS(p)                                                                                     \
  F10(p, 1) F10(p, 2) F10(p, 3) F10(p, 4) F10(p, 5) F10(p, 6) F10(p, 7) F10(p, 8) F10(p, 9) F10(p, 10) \
  static long (*const p##table[100])(long) = {R10(p, 1) R10(p, 2) R10(p, 3) R10(p, 4) R10(p, 5)       \
                                              R10(p, 6) R10(p, 7) R10(p, 8) R10(p, 9) R10(p, 10)};     \
  NOINLINE long call_all_##p(int count) {                                                             \
    long sum = 0;                                                                                     \
    for (int i = 0; i < count && i < 100; i++) sum += p##table[i](i);                                 \
    return sum;                                                                                       \
  }

#include <dlfcn.h>
#include <stdint.h>
#include <time.h>

/* Loads `name` (found by the caller's run path) and calls its one entry. */
static inline long load_plugin(const char *name) {
  void *plugin = dlopen(name, RTLD_NOW);
  long (*value)(void) = plugin ? (long (*)(void))dlsym(plugin, "work_plugin_value") : NULL;
  return value ? value() : -1;
}

/* Runs for `milliseconds` of CLOCK_MONOTONIC, calling nothing that a tracer stops. */
static inline void spin(long milliseconds) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < milliseconds * 1000000L);
}
