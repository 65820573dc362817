/* Two constructors of known length before main: first_constructor spins 30 ms,
 * second_constructor 60 ms (wall clock). Each notes the clock as it starts, and main
 * prints the two lengths as the program itself saw them (from one constructor's start to
 * the next function's), "lengths <first ns> <second ns>", so that a test can hold a
 * recorder's attribution against the truth even on a loaded machine. */
#include <stdio.h>
#include <time.h>

static long long started[3];

static long long now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void spin(long milliseconds) {
  long long start = now();
  while (now() - start < milliseconds * 1000000LL) {
  }
}

__attribute__((constructor(101), noinline)) void first_constructor(void) {
  started[0] = now();
  spin(30);
}

__attribute__((constructor(102), noinline)) void second_constructor(void) {
  started[1] = now();
  spin(60);
}

int main(void) {
  started[2] = now();
  printf("lengths %lld %lld\n", started[1] - started[0], started[2] - started[1]);
  return 0;
}
