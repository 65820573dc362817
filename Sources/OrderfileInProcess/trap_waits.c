/*
 * trap_waits.c - the time a busy machine keeps a thread waiting for a core in the kernel's
 * part of its traps, which neither the trap's handler nor the calibrated cost of a trap sees.
 *
 * Why: a trap's kernel part (raising SIGTRAP, writing the signal frame, sigreturn) is counted
 * as a calibrated constant, the CPU time it takes. When other processes want the cores, the
 * kernel switches tasks on its way back to user space, so a trapping thread is taken off its
 * core at the end of a kernel part far more often than in proportion to the time it spends
 * there: measured on a 2-core machine at load 10-15, a program with 20,000 first calls in a row
 * spent 50-110 ms waiting between its handlers (each gap otherwise 2.5 µs, the calibrated cost),
 * against under 1 ms for the whole plain run. Those waits were left in the program's time.
 *
 * How: a thread's handler knows when its previous one ended. When the gap is longer than
 * OF_WAITS_GAP_NS, it reads the thread's total wait for a core, which the kernel keeps in
 * nanoseconds (/proc/thread-self/schedstat, second field; CONFIG_SCHED_INFO), and how many
 * times it was switched in (third field). The waits and switches since the last reading
 * happened in that gap (or in a handler, whose own clock already counted them: a gap holds no
 * more than its own length). Then:
 *   - a gap where the thread ran no longer than a trap's kernel parts and its switches of
 *     tasks (OF_WAITS_SWITCH_NS each): the program did not run, the whole gap is the trap's,
 *     its waits and the time the switches cost on the core (the trap's own cost is counted
 *     by its handler);
 *   - a gap where the program ran: the waits are shared in proportion to the time on a core,
 *     the kernel parts' and one switch's share charged, the rest left to the program, which
 *     would have waited for its own work without the recorder too. One switch only: the
 *     program's own work is switched out again and again by the scheduler's ticks (a
 *     constructor spinning 30 ms at load 8 was switched out dozens of times).
 * The charge goes into the recorder's time before the trap is stamped (the waits came before
 * it), so each phase loses the waits of its own traps and no later stamp falls behind.
 *
 * Limitations: a wait inside a handler after its reading is counted by the handler's clock
 * and again by the next reading (a handler takes a few hundred nanoseconds). Where the
 * program runs between first calls, its share is an estimate: the kernel switches tasks at
 * the end of a trap more often than in proportion to the time spent there. A reading costs a
 * few microseconds (open, read, close: no descriptor is kept, so a program that closes or
 * reuses descriptors never meets one of the recorder's), spent inside the handler, where it
 * is counted; only gaps longer than OF_WAITS_GAP_NS pay it. Without the file nothing is
 * charged; ORDERFILE_TRAP_WAITS=0 charges nothing, to measure what the rest of the clock does
 * on a busy machine.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include "../OrderfileRuntime/runtime_internal.h"
#include "inprocess.h"

/* A gap between two traps of one thread worth a reading: well above the kernel parts of a
 * trap (2.5 µs measured here), well below a wait for a core (a scheduler slice, milliseconds). */
#define OF_WAITS_GAP_NS 20000ull
/* What a switch of tasks costs the thread on its core, away and back (40-150 µs measured here
 * around waits of 1-16 ms at load 10-15; 60-70 µs around 4 ms waits at a lower load): time of
 * the wait's, not the program's. */
#define OF_WAITS_SWITCH_NS 150000ull

/* A thread's previous handler and its last reading. */
typedef struct of_waits {
  uint64_t left_ns;   /* CLOCK_MONOTONIC when its previous trap's handler ended; 0: none */
  uint64_t waited_ns; /* the thread's total wait for a core at the last reading */
  uint64_t slices;    /* how many times it had been switched in then */
  bool read;          /* waited_ns holds a reading */
} of_waits;

static __thread of_waits of_thread_waits __attribute__((tls_model("initial-exec")));
static bool of_waits_unavailable; /* the file could not be read once, or ORDERFILE_TRAP_WAITS=0 */

void of_trap_waits_setup(void) OF_NOINSTR;
void of_trap_waits_setup(void) {
  if (of_early_off("ORDERFILE_TRAP_WAITS")) {
    of_waits_unavailable = true;
  }
}

/* The thread's total time spent waiting for a core and its count of times switched in, from
 * schedstat. */
static bool of_read_waited(uint64_t *waited, uint64_t *slices) __attribute__((no_instrument_function));
static bool of_read_waited(uint64_t *waited, uint64_t *slices) {
  uint64_t run;
  if (__atomic_load_n(&of_waits_unavailable, __ATOMIC_RELAXED)) {
    return false;
  }
  if (!of_read_schedstat("/proc/thread-self/schedstat", &run, waited, slices)) {
    __atomic_store_n(&of_waits_unavailable, true, __ATOMIC_RELAXED);
    return false;
  }
  return true;
}

uint64_t of_trap_waits_ns(uint64_t started_ns, uint64_t cost_ns) {
  of_waits *self = &of_thread_waits;
  uint64_t gap = self->left_ns != 0 && started_ns > self->left_ns ? started_ns - self->left_ns : 0;
  uint64_t waited, slices;
  if (gap <= OF_WAITS_GAP_NS || !of_read_waited(&waited, &slices)) {
    return 0;
  }
  /* A fork child's thread starts a count of its own: a reading below the last starts over. */
  bool again = self->read && waited >= self->waited_ns && slices >= self->slices;
  uint64_t waiting = again ? waited - self->waited_ns : 0;
  uint64_t switches = again ? slices - self->slices : 0;
  self->waited_ns = waited;
  self->slices = slices;
  self->read = true;
  if (waiting == 0) {
    return 0; /* not switched out: the program's time, or an interrupt's (not told apart) */
  }
  if (waiting > gap) {
    waiting = gap; /* waits inside handlers since the last reading: their clocks counted them */
  }
  uint64_t ran = gap - waiting;
  if (ran <= cost_ns + (switches != 0 ? switches : 1u) * OF_WAITS_SWITCH_NS) {
    return gap > cost_ns + waiting ? gap - cost_ns : waiting;
  }
  return waiting * (cost_ns + OF_WAITS_SWITCH_NS) / ran;
}

void of_trap_waits_end(uint64_t now_ns) {
  of_waits *self = &of_thread_waits;
  self->left_ns = now_ns;
}
