/*
 * diagnostics.c - what every part of the tracer shares and none owns: the
 * failure message for the host, warnings, and the clock. A leaf: it calls
 * nothing else of the tracer.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "tracer_internal.h"

uint64_t oftr_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
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
