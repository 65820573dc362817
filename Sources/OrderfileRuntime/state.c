/*
 * state.c - the runtime's one instance of state, and the small helpers every
 * other file uses: the clock, the thread id and the warning line.
 *
 * A leaf: it calls no other file of the runtime.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "orderfile.h"
#include "runtime_internal.h"

of_runtime of_rt = {.lock = PTHREAD_MUTEX_INITIALIZER};
__thread of_thread of_self __attribute__((tls_model(OF_TLS_MODEL)));

uint8_t of_events_on;

/* The copy of the runtime this one forwards to (shared_instance.c sets it); NULL: none. */
const of_instance *of_owner;

of_program_clock of_clock;

uint64_t of_wall_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

/* The program's clock: zero recorder time unless a recorder in this process counts it
 * (of_clock), so for an instrumented program this is CLOCK_MONOTONIC. */
uint64_t of_now_ns(void) {
  return of_program_ns(of_wall_ns());
}

uint64_t of_program_ns(uint64_t wall_ns) {
  return wall_ns - __atomic_load_n(&of_clock.recorder_ns, __ATOMIC_RELAXED);
}

/* Each stamp later than the one before: a trap's kernel cost (which the handler cannot see)
 * is added to recorder_ns as a calibrated estimate when the trap ends, so where the next
 * first call comes sooner than that estimate its program time would fall a few nanoseconds
 * before the last record's. Only stamps take part: the runtime's own reads inside a stretch
 * of the recorder's work (its start) run ahead of the clock that stretch then sets back.
 * Lock-free, so safe in a signal handler. */
uint64_t of_stamp_ns(uint64_t wall_ns) {
  uint64_t now = of_program_ns(wall_ns);
  uint64_t seen = __atomic_load_n(&of_clock.latest_stamp_ns, __ATOMIC_RELAXED);
  for (;;) {
    uint64_t next = now > seen ? now : seen + 1;
    if (__atomic_compare_exchange_n(&of_clock.latest_stamp_ns, &seen, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      return next;
    }
  }
}

uint32_t of_thread_id(void) {
  of_thread *self = &of_self;
  if (self->tid == 0) {
    self->tid = (uint32_t)syscall(SYS_gettid);
  }
  return self->tid;
}

void of_warn(const char *format, ...) {
  char line[512];
  va_list arguments;
  va_start(arguments, format);
  int length = vsnprintf(line, sizeof line, format, arguments);
  va_end(arguments);
  if (length < 0) {
    return;
  }
  if ((size_t)length >= sizeof line - 1) {
    length = (int)sizeof line - 2;
  }
  line[length] = '\n';
  ssize_t ignored = write(STDERR_FILENO, line, (size_t)length + 1);
  (void)ignored;
}

const of_instance *of_owner_instance(void) {
  return __atomic_load_n(&of_owner, __ATOMIC_ACQUIRE);
}

void of_forward_first_call(uintptr_t pc) {
  const of_instance *owner = of_owner_instance();
  if (owner != NULL) {
    owner->first_call(pc);
  }
}
