/*
 * count_hooks.c - instrumentation hooks that count calls.
 *
 * Used once per benchmark run to learn how many instrumented calls the
 * workload makes, so the overhead can also be quoted per call. Prints
 * "instrumented-calls N" on stderr at exit. Not used for timing.
 */
#include <stdatomic.h>
#include <stdio.h>

#define NO_INSTRUMENT __attribute__((no_instrument_function))

static _Atomic unsigned long long calls;

NO_INSTRUMENT void __cyg_profile_func_enter(void *function, void *call_site) {
  (void)function;
  (void)call_site;
  atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
}

NO_INSTRUMENT void __cyg_profile_func_exit(void *function, void *call_site) {
  (void)function;
  (void)call_site;
}

NO_INSTRUMENT void orderfile_startup_complete(void) {}

NO_INSTRUMENT void orderfile_finish(void) {}

NO_INSTRUMENT __attribute__((destructor)) static void report(void) {
  fprintf(stderr, "instrumented-calls %llu\n", (unsigned long long)atomic_load(&calls));
}
