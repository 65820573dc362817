/*
 * writers.c - writer synchronisation: the threads that store into the trace,
 * and the two events that must not overlap them (exit and fork).
 *
 * A leaf above state.c: it calls no other file of the runtime.
 */
#define _GNU_SOURCE
#include <sched.h>

#include "orderfile.h"
#include "runtime_internal.h"

/* How long exit() and fork() wait for threads that are in the middle of a write. */
#define OF_WRITER_WAIT_NS 1000000000ull

/*
 * Writers and the two events that must not overlap them: exit (the file is
 * truncated and must not be written after) and fork (the child copies a
 * consistent snapshot).
 *
 * Ordering: Dekker-style, all seq_cst. A writer increments in_flight, then
 * reads the gate; exit and fork set the gate, then read in_flight. At least
 * one side sees the other: either the writer sees the gate and backs out, or
 * the closer sees the writer and waits for it to leave.
 */
bool of_writer_enter(void) {
  for (;;) {
    __atomic_fetch_add(&of_rt.in_flight, 1u, __ATOMIC_SEQ_CST);
    uint32_t gate = __atomic_load_n(&of_rt.gate, __ATOMIC_SEQ_CST);
    if (__builtin_expect(gate == 0, 1)) {
      of_self.writing = 1;
      return true;
    }
    __atomic_fetch_sub(&of_rt.in_flight, 1u, __ATOMIC_SEQ_CST);
    if (gate & OF_GATE_STOPPED) {
      return false;
    }
    while ((__atomic_load_n(&of_rt.gate, __ATOMIC_SEQ_CST) & ~OF_GATE_STOPPED) != 0) {
      sched_yield();
    }
  }
}

void of_writer_leave(void) {
  of_self.writing = 0;
  __atomic_fetch_sub(&of_rt.in_flight, 1u, __ATOMIC_SEQ_CST);
}

/*
 * Waits, at most OF_WRITER_WAIT_NS, until no writer is in flight; returns
 * whether none is. A caller that interrupted a write of its own thread (exit
 * or fork from a signal handler) does not wait: that write cannot finish.
 */
bool of_wait_for_writers(void) {
  if (__atomic_load_n(&of_rt.in_flight, __ATOMIC_SEQ_CST) == 0) {
    return true;
  }
  if (of_self.writing) {
    return false;
  }
  uint64_t deadline = of_now_ns() + OF_WRITER_WAIT_NS;
  while (__atomic_load_n(&of_rt.in_flight, __ATOMIC_SEQ_CST) != 0) {
    if (of_now_ns() > deadline) {
      return false;
    }
    sched_yield();
  }
  return true;
}
