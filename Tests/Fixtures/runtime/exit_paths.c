/*
 * exit_paths.c - a program that leaves in a chosen way after some first calls.
 *
 * Usage: exit_paths MODE
 *   exit      calls phase_one, returns from main (atexit finalizes the trace)
 *   _exit     calls phase_one, then _exit(0): no finalizer runs
 *   sigkill   calls phase_one, then raises SIGKILL on itself
 *   finish    calls phase_one, orderfile_finish(), phase_two, then _exit(0)
 *   startup   calls phase_one, orderfile_startup_complete(), phase_two, exits
 *   wait MS   calls phase_one, busy-waits MS milliseconds, calls phase_two, exits
 *             (for ORDERFILE_TIME_LIMIT_MS)
 *
 * Prints "one <address>" / "two <address>" for the functions of each phase.
 */
#include "fixture_support.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "orderfile.h"

static volatile unsigned sink;

__attribute__((noinline)) static void one_a(void) { sink += 1; }
__attribute__((noinline)) static void one_b(void) { sink += 2; }
__attribute__((noinline)) static void one_c(void) { sink += 3; }
__attribute__((noinline)) static void two_a(void) { sink += 4; }
__attribute__((noinline)) static void two_b(void) { sink += 5; }

static void phase_one(void) {
  one_a();
  one_b();
  one_c();
}

static void phase_two(void) {
  two_a();
  two_b();
}

static void print_addresses(void) FIXTURE_NOINSTR;
static void print_addresses(void) {
  fixture_print("one", (const void *)one_a);
  fixture_print("one", (const void *)one_b);
  fixture_print("one", (const void *)one_c);
  fixture_print("two", (const void *)two_a);
  fixture_print("two", (const void *)two_b);
  fflush(stdout);
}

static void busy_wait_ms(long milliseconds) FIXTURE_NOINSTR;
static void busy_wait_ms(long milliseconds) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000L + (now.tv_nsec - start.tv_nsec) / 1000000L <
           milliseconds);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: exit_paths exit|_exit|sigkill|finish|startup|wait MS\n");
    return 64;
  }
  const char *mode = argv[1];
  print_addresses();
  phase_one();
  if (strcmp(mode, "exit") == 0) {
    return 0;
  } else if (strcmp(mode, "_exit") == 0) {
    _exit(0);
  } else if (strcmp(mode, "sigkill") == 0) {
    raise(SIGKILL);
  } else if (strcmp(mode, "finish") == 0) {
    orderfile_finish();
    phase_two();
    _exit(0);
  } else if (strcmp(mode, "startup") == 0) {
    orderfile_startup_complete();
    phase_two();
    return 0;
  } else if (strcmp(mode, "wait") == 0 && argc > 2) {
    busy_wait_ms(atol(argv[2]));
    phase_two();
    return 0;
  }
  fprintf(stderr, "exit_paths: unknown mode '%s'\n", mode);
  return 64;
}
