/* The leader makes 2,000 first calls, round after round, while a second thread re-executes
 * the program argv[1] microseconds in: the exec kills the leader, maybe at a trap the
 * recorder has yet to handle, and the thread takes the leader's pid. The new image calls
 * second_image and prints. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "numbered.h"

#define NOINLINE __attribute__((noinline))
#define DEFINE(n)                                                                                                     \
  NOINLINE unsigned f##n(unsigned x) { return x * (2u * n + 1u) + n; }
#define ENTRY(n) f##n,
L1000(DEFINE, 1) L1000(DEFINE, 2)
static unsigned (*const functions[])(unsigned) = {L1000(ENTRY, 1) L1000(ENTRY, 2)};

NOINLINE int second_image(int x) { return x + 4; }

static char *self;
static unsigned delay_us;

static void *execer(void *unused) {
  (void)unused;
  struct timespec pause = {.tv_sec = 0, .tv_nsec = (long)delay_us * 1000L};
  nanosleep(&pause, NULL);
  execl("/proc/self/exe", self, "again", (char *)NULL);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "again") == 0) {
    printf("second image %d\n", second_image(1));
    return 0;
  }
  self = argv[0];
  delay_us = argc > 1 ? (unsigned)atoi(argv[1]) : 2000u;
  pthread_t thread;
  pthread_create(&thread, NULL, execer, NULL);
  volatile unsigned sum = 0;
  for (;;) {
    for (unsigned i = 0; i < sizeof functions / sizeof functions[0]; i++) sum += functions[i](i);
  }
}
