/* A server that never exits by itself: it prints "ready" and waits for signals. With
 * "handles" as argv[1] it catches SIGTERM and SIGHUP, prints "bye <signal>" and exits 0,
 * as servers that shut down cleanly do. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile sig_atomic_t caught;

NOINLINE int setup(int x) { return x + 1; }
NOINLINE void on_signal(int signal) { caught = signal; }

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "handles") == 0) {
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
  }
  printf("ready %d\n", setup(1));
  fflush(stdout);
  while (!caught) pause();
  printf("bye %d\n", (int)caught);
  return 0;
}
