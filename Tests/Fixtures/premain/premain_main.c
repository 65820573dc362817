/*
 * An executable whose static initializer sleeps 3 ms after its library's slept 5 ms.
 * main writes both sleeps' CLOCK_MONOTONIC start and end to the file argv[1], so a
 * test can compare what the report attributes with what really happened.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

extern uint64_t premain_lib_sleep_start_ns, premain_lib_sleep_end_ns;
int premain_lib_value(void);

static uint64_t sleep_start_ns, sleep_end_ns;

static uint64_t now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

__attribute__((constructor)) static void premain_main_init(void) {
  struct timespec duration = {0, 3 * 1000000L};
  sleep_start_ns = now_ns();
  while (nanosleep(&duration, &duration) != 0) {
  }
  sleep_end_ns = now_ns();
}

int main(int argc, char **argv) {
  if (argc < 2) {
    return 2;
  }
  FILE *out = fopen(argv[1], "w");
  if (out == NULL) {
    return 1;
  }
  fprintf(out, "%llu %llu\n%llu %llu\n", (unsigned long long)premain_lib_sleep_start_ns,
          (unsigned long long)premain_lib_sleep_end_ns, (unsigned long long)sleep_start_ns,
          (unsigned long long)sleep_end_ns);
  return fclose(out) == 0 && premain_lib_value() == 7 ? 0 : 1;
}
