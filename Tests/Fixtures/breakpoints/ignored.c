/* Sets SIGTRAP to SIG_IGN, makes first calls, then raises SIGTRAP: alone it is
 * dropped and the program prints and exits 0. With the argument `default` it
 * sets SIG_DFL back before raising, and dies of SIGTRAP (status 133 in a shell). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

NOINLINE int first(int x) { return x * 3; }
NOINLINE int second(int x) { return x + 4; }

int main(int argc, char **argv) {
  signal(SIGTRAP, SIG_IGN);
  int sum = first(2);
  if (argc > 1 && strcmp(argv[1], "default") == 0) signal(SIGTRAP, SIG_DFL);
  sum += second(sum);
  raise(SIGTRAP);
  printf("ignored %d\n", sum);
  return 0;
}
