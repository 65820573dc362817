/*
 * direct_hooks.c - calls the entry hook by hand with chosen addresses, to
 * reach cases real instrumented code hardly produces: several functions
 * starting within one 16-byte granule.
 *
 * The addresses are inside `target` (which never runs): its start, +1, +15
 * (all in one granule) and +16 (the next one). Each is passed to the hook
 * several times, interleaved. Prints "pc <address>" (module-relative) for
 * each, so a test can check each was recorded exactly once.
 */
#include "fixture_support.h"

#include "orderfile.h"

__attribute__((noinline, aligned(16))) void target(volatile int *sink) {
  for (int i = 0; i < 64; i++) {
    sink[i] = i;
  }
}

int main(void) FIXTURE_NOINSTR;
int main(void) {
  char *base = (char *)target;
  char *pcs[] = {base, base + 1, base + 15, base + 16};
  for (int i = 0; i < 4; i++) {
    fixture_print("pc", pcs[i]);
  }
  fflush(stdout);
  static const int order[] = {0, 0, 1, 0, 1, 2, 3, 2, 1, 0, 3, 3, 1, 2, 0};
  for (unsigned i = 0; i < sizeof order / sizeof order[0]; i++) {
    __cyg_profile_func_enter(pcs[order[i]], main);
  }
  return 0;
}
