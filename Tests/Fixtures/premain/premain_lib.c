/* A library whose static initializer sleeps 5 ms, and says exactly how long it slept. */
#include <stdint.h>
#include <time.h>

uint64_t premain_lib_sleep_start_ns;
uint64_t premain_lib_sleep_end_ns;

static uint64_t now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

__attribute__((noinline)) void premain_lib_sleep(long milliseconds) {
  struct timespec duration = {0, milliseconds * 1000000L};
  premain_lib_sleep_start_ns = now_ns();
  while (nanosleep(&duration, &duration) != 0) {
  }
  premain_lib_sleep_end_ns = now_ns();
}

__attribute__((constructor)) static void premain_lib_init(void) { premain_lib_sleep(5); }

int premain_lib_value(void) { return 7; }
