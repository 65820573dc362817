/*
 * clock.c - the recorder's own time, which the program's clock (of_clock) leaves out: each
 * stretch of the recorder's work, counted once by the outermost on its thread, and what a
 * trap costs outside its handler, measured once at arming. See "Clock" in recorder.c.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>

#include "../OrderfileRuntime/runtime_internal.h"
#include "inprocess.h"
#include "trap.h"

/* What a trap costs outside its handler (the kernel raising the signal, sigreturn), which the
 * handler's own clock cannot see: measured once at arming (of_measure_trap_cost), and added to
 * the recorder's time for every trap it handles. */
uint64_t of_trap_cost_ns;
/* The trap of_measure_trap_cost raises, and the times its handler saw (entry, exit). */
uintptr_t of_probe_trap;
volatile uint64_t of_probe_entered, of_probe_left; /* set in the signal handler */

/* Nesting of the recorder's own work on this thread (a trap, the runtime's start): only the
 * outermost stretch adds its time to of_clock (see "Clock" at the top of recorder.c). */
static __thread uint32_t of_recorder_depth __attribute__((tls_model("initial-exec")));

uint64_t of_recorder_enter(void) OF_NOINSTR;
uint64_t of_recorder_enter(void) {
  of_recorder_depth++;
  return of_wall_ns();
}

/* Ends a stretch that began at `started`; `counted`: it was the recorder's work (a trap
 * that was the program's own is not); `unseen`: its time outside the stretch (a trap's). */
void of_recorder_leave(uint64_t started, bool counted, uint64_t unseen) OF_NOINSTR;
void of_recorder_leave(uint64_t started, bool counted, uint64_t unseen) {
  if (--of_recorder_depth != 0 || !counted) {
    return;
  }
  uint64_t spent = of_wall_ns() - started + unseen;
  uint64_t total = __atomic_add_fetch(&of_clock.recorder_ns, spent, __ATOMIC_RELAXED);
  of_children_add(spent);
  if (__atomic_load_n(&of_rt.init_state, __ATOMIC_ACQUIRE) == OF_INIT_RECORDING && of_rt.header != NULL) {
    __atomic_store_n(&of_rt.header->recorder_ns, total, __ATOMIC_RELAXED);
  }
}

void of_charge_waits(uint64_t started) OF_NOINSTR;
void of_charge_waits(uint64_t started) {
  if (of_recorder_depth == 1 && of_trap_cost_ns != 0) { /* ORDERFILE_TRAP_COST=0: handler only */
    uint64_t charge = of_trap_waits_ns(started, of_trap_cost_ns);
    if (charge != 0) {
      __atomic_add_fetch(&of_clock.recorder_ns, charge, __ATOMIC_RELAXED);
      of_children_add(charge);
    }
  }
}

void of_handler_done(void) OF_NOINSTR;
void of_handler_done(void) {
  if (of_recorder_depth == 0) {
    of_trap_waits_end();
  }
}

/*
 * Measures of_trap_cost_ns: raises a trap of its own a few times, on a page of its own
 * holding a trap that returns, and takes the round trip less what the handler measured of
 * it. At a few microseconds a trap, a program with tens of thousands of first calls spends
 * tens of milliseconds in traps outside the handler, which the program without the recorder
 * does not. The median, as another thread or process may take the core in one of them. The
 * measuring is arming: its own time is counted there.
 */
void of_measure_trap_cost(void) OF_NOINSTR;
void of_measure_trap_cost(void) {
  enum { rounds = 15 };
  long page = sysconf(_SC_PAGESIZE);
  size_t size = page > 0 ? (size_t)page : 4096u;
  void *code = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) {
    return;
  }
  of_code saved;
  of_trap_plant((uintptr_t)code, &saved);
  if (mprotect(code, size, PROT_READ | PROT_EXEC) != 0) {
    munmap(code, size);
    return;
  }
  of_probe_trap = (uintptr_t)code;
  void (*probe)(void) = (void (*)(void))code;
  uint64_t unseen[rounds];
  uint32_t count = 0;
  for (uint32_t i = 0; i < rounds; i++) {
    of_probe_entered = of_probe_left = 0;
    uint64_t before = of_wall_ns();
    probe();
    uint64_t after = of_wall_ns();
    uint64_t inside = of_probe_left - of_probe_entered;
    if (of_probe_entered != 0 && of_probe_left >= of_probe_entered && after - before >= inside) {
      unseen[count++] = after - before - inside;
    }
  }
  of_probe_trap = 0;
  munmap(code, size);
  for (uint32_t i = 1; i < count; i++) { /* insertion sort: 15 values */
    for (uint32_t j = i; j > 0 && unseen[j - 1] > unseen[j]; j--) {
      uint64_t t = unseen[j];
      unseen[j] = unseen[j - 1];
      unseen[j - 1] = t;
    }
  }
  of_trap_cost_ns = count != 0 ? unseen[count / 2] : 0;
}
