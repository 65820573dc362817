/*
 * diagnostics.c - what every part of the tracer shares and none owns: the
 * failure message for the host, warnings, and the clock. A leaf: it calls
 * nothing else of the tracer.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tracer_internal.h"

uint64_t oftr_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

int oftr_open_run_delay(void) { return open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC); }

uint64_t oftr_run_delay(int schedstat) {
  if (schedstat < 0) return 0;
  char text[96];
  ssize_t got = pread(schedstat, text, sizeof text - 1, 0);
  if (got <= 0) return 0;
  text[got] = 0;
  unsigned long long running = 0, waiting = 0;
  if (sscanf(text, "%llu %llu", &running, &waiting) != 2) return 0;
  return waiting;
}

bool oftr_thread_run_delay(pid_t tid, uint64_t *waiting, uint64_t *slices) {
  char path[64], text[96];
  snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)tid, (int)tid);
  int file = open(path, O_RDONLY | O_CLOEXEC);
  if (file < 0) return false;
  ssize_t got = pread(file, text, sizeof text - 1, 0);
  close(file);
  if (got <= 0) return false;
  text[got] = 0;
  unsigned long long running, delay, count;
  if (sscanf(text, "%llu %llu %llu", &running, &delay, &count) != 3) return false;
  *waiting = delay;
  *slices = count;
  return true;
}

int oftr_fail(oftr_tracer *tracer, int error, const char *format, ...) {
  if (tracer->result->message[0] == 0) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(tracer->result->message, sizeof tracer->result->message, format, arguments);
    va_end(arguments);
    tracer->result->error = error;
  }
  return -1;
}

void oftr_warn(oftr_tracer *tracer, const char *format, ...) {
  char message[512];
  va_list arguments;
  va_start(arguments, format);
  vsnprintf(message, sizeof message, format, arguments);
  va_end(arguments);
  if (tracer->host->warning) tracer->host->warning(tracer->host->context, message);
}
