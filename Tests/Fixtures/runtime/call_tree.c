/*
 * call_tree.c - a known call tree for full mode (ORDERFILE_MODE=full):
 *
 *   main -> tree_a -> tree_b (sleeps 20 ms)
 *   main -> tree_c (sleeps 10 ms)
 *
 * main is the first instrumented function, so every stack starts at main.
 */
#include <time.h>

#if defined(__clang__)
#define FIXTURE_KEEP __attribute__((noinline))
#else
#define FIXTURE_KEEP __attribute__((noinline, noclone))
#endif

static void sleep_ms(long milliseconds) __attribute__((no_instrument_function));
static void sleep_ms(long milliseconds) {
  struct timespec delay = {milliseconds / 1000, (milliseconds % 1000) * 1000000L};
  while (nanosleep(&delay, &delay) != 0) {
  }
}

static volatile int sink;

FIXTURE_KEEP void tree_b(void) {
  sink += 2;
  sleep_ms(20);
}

FIXTURE_KEEP void tree_a(void) {
  sink += 1;
  tree_b();
  sink += 1;
}

FIXTURE_KEEP void tree_c(void) {
  sink += 3;
  sleep_ms(10);
}

int main(void) {
  tree_a();
  tree_c();
  return 0;
}
