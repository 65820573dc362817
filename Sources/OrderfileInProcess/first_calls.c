/*
 * first_calls.c - where a first call goes: into the trace once the runtime has started,
 * into a small buffer before (calls made while the loader runs the program's
 * initializers), which the runtime's start then hands over in order.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../OrderfileRuntime/runtime_internal.h"
#include "inprocess.h"

#define OF_EARLY_CAPACITY 16384u

static uint64_t of_lost; /* first calls on a thread already inside the runtime */
/* First calls before the runtime started, in the order their slots were taken. */
typedef struct of_early_call {
  uintptr_t pc;
  uint64_t time_ns;
  uint32_t tid;
  uint32_t done; /* set last, with release */
} of_early_call;
static of_early_call of_early[OF_EARLY_CAPACITY];
static uint32_t of_early_count;
static uint32_t of_started; /* the runtime took over from the buffer */

/* A first call: into the trace, or into the buffer while the runtime has not started.
 * `trapped` is the wall-clock time the trap reached the handler: the call's time, before
 * any of the handler's own work (writing the code back can take a copy-on-write fault). */
void of_note_first_call(uintptr_t pc, bool stop, uint64_t trapped) OF_NOINSTR;
void of_note_first_call(uintptr_t pc, bool stop, uint64_t trapped) {
  of_thread *self = &of_self;
  if (self->busy) {
    __atomic_fetch_add(&of_lost, 1u, __ATOMIC_RELAXED);
    return;
  }
  self->busy = 1;
  uint64_t now = of_stamp_ns(trapped);
  if (__atomic_load_n(&of_started, __ATOMIC_ACQUIRE)) {
    if (__atomic_load_n(&of_rt.init_state, __ATOMIC_ACQUIRE) == OF_INIT_RECORDING) {
      of_record_call(pc, now, 0);
      /* First calls that could not be recorded (on a thread inside the runtime, or past the
       * buffer before start-up) are counted as dropped, as the runtime counts its own. */
      uint64_t lost = __atomic_exchange_n(&of_lost, 0u, __ATOMIC_RELAXED);
      if (lost != 0 && of_writer_enter()) {
        __atomic_fetch_add(&of_rt.header->dropped_count, lost, __ATOMIC_RELAXED);
        of_writer_leave();
      }
      if (stop && of_writer_enter()) {
        of_close_window(OFT_WINDOW_STARTUP_COMPLETE, now);
        of_writer_leave();
      }
    }
  } else {
    uint32_t slot = __atomic_fetch_add(&of_early_count, 1u, __ATOMIC_RELAXED);
    if (slot < OF_EARLY_CAPACITY) {
      of_early[slot].pc = pc;
      of_early[slot].time_ns = now;
      of_early[slot].tid = (uint32_t)syscall(SYS_gettid);
      __atomic_store_n(&of_early[slot].done, stop ? 2u : 1u, __ATOMIC_RELEASE);
    } else {
      __atomic_fetch_add(&of_lost, 1u, __ATOMIC_RELAXED);
    }
  }
  self->busy = 0;
}

/* Starts the runtime and hands it the calls buffered before: from the constructor, or
 * from the loader's hook in an image whose first armed module came later (of_deferred). */
void of_take_over(void) {
  uint64_t started = of_recorder_enter();
  of_thread *self = &of_self;
  uint32_t busy = self->busy;
  self->busy = 1;
  of_children_bracket(false);
  bool recording = of_ensure_started();
  of_children_bracket(true);
  __atomic_store_n(&of_started, 1u, __ATOMIC_RELEASE);
  uint32_t count = __atomic_load_n(&of_early_count, __ATOMIC_ACQUIRE);
  if (count > OF_EARLY_CAPACITY) {
    count = OF_EARLY_CAPACITY;
  }
  for (uint32_t i = 0; recording && i < count; i++) {
    uint32_t done;
    while ((done = __atomic_load_n(&of_early[i].done, __ATOMIC_ACQUIRE)) == 0) {
      sched_yield(); /* a thread between its slot and its store: it finishes at once */
    }
    of_record_call(of_early[i].pc, of_early[i].time_ns, of_early[i].tid);
    if (done == 2u && of_writer_enter()) {
      of_close_window(OFT_WINDOW_STARTUP_COMPLETE, of_early[i].time_ns);
      of_writer_leave();
    }
  }
  /* Starting the trace is the recorder's time too, not the program's. */
  of_recorder_leave(started, true, 0);
  self->busy = busy;
}
