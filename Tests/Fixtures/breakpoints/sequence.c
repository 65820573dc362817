/* A known first-call order: step_a ... step_e, then marker, then after_marker. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

NOINLINE int step_c(int x) { return x * 7 + 3; }
NOINLINE int step_e(int x) { return x ^ 0x55; }
NOINLINE int step_a(int x) { return x + 11; }
NOINLINE int step_d(int x) { return step_e(x) - 2; }
NOINLINE int step_b(int x) { return step_c(x) + step_c(x + 1); }
NOINLINE int marker(int x) { return x | 1; }
NOINLINE int after_marker(int x) { return x / 3; }
NOINLINE int never_called(int x) { return x - 1; }

int main(int argc, char **argv) {
  int x = argc > 5 ? never_called(argc) : argc;
  x = step_a(x);
  x = step_b(x);
  x = step_d(x);
  x = marker(x);
  x = after_marker(x);
  printf("sequence %d\n", x);
  return argc > 1 ? atoi(argv[1]) : 0;
}
