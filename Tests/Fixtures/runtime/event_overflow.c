/*
 * event_overflow.c - a known number of events for full mode: main calls
 * leaf() N times (argv[1]), so the main thread makes 2 + 2N events (main's
 * entry and exit, each leaf's entry and exit). With an ORDERFILE_EVENTS
 * below that, exactly 2 + 2N - ORDERFILE_EVENTS are dropped.
 */
#include <stdlib.h>

#if defined(__clang__)
#define FIXTURE_KEEP __attribute__((noinline))
#else
#define FIXTURE_KEEP __attribute__((noinline, noclone))
#endif

static volatile int sink;

FIXTURE_KEEP void leaf(void) { sink += 1; }

int main(int argc, char **argv) {
  long calls = argc > 1 ? atol(argv[1]) : 0;
  for (long i = 0; i < calls; i++) {
    leaf();
  }
  return 0;
}
