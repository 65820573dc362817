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
/* The trap of_measure_trap_cost raises, the code it replaced (a return), and the time its
 * handler counted (set in the handler). */
uintptr_t of_probe_trap;
of_code of_probe_saved;
volatile uint64_t of_probe_spent;

/* Nesting of the recorder's own work on this thread (a trap, the runtime's start): only the
 * outermost stretch adds its time to of_clock (see "Clock" at the top of recorder.c). */
static __thread uint32_t of_recorder_depth __attribute__((tls_model("initial-exec")));

uint64_t of_recorder_enter(void) OF_NOINSTR;
uint64_t of_recorder_enter(void) {
  of_recorder_depth++;
  return of_wall_ns();
}

/* Ends a stretch that began at `started`; `counted`: it was the recorder's work (a trap
 * that was the program's own is not); `unseen`: its time outside the stretch (a trap's).
 * Returns the time counted (0: none). The work after its clock reading falls outside every
 * stretch: of_measure_trap_cost's probes run it too, so a trap's cost holds it. */
uint64_t of_recorder_leave(uint64_t started, bool counted, uint64_t unseen) OF_NOINSTR;
uint64_t of_recorder_leave(uint64_t started, bool counted, uint64_t unseen) {
  if (--of_recorder_depth != 0 || !counted) {
    return 0;
  }
  uint64_t spent = of_wall_ns() - started + unseen;
  uint64_t total = __atomic_add_fetch(&of_clock.recorder_ns, spent, __ATOMIC_RELAXED);
  of_children_add(spent);
  /* An ended trace keeps the time it ended with (the exit handler's stretch comes after). */
  if (__atomic_load_n(&of_rt.init_state, __ATOMIC_ACQUIRE) == OF_INIT_RECORDING && of_rt.header != NULL &&
      __atomic_load_n(&of_rt.finished, __ATOMIC_ACQUIRE) == 0) {
    __atomic_store_n(&of_rt.header->recorder_ns, total, __ATOMIC_RELAXED);
  }
  return spent;
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
 * Measures of_trap_cost_ns: raises a trap of its own a few dozen times, on a page of its own,
 * and takes each round trip less what the handler counted of it. At a few microseconds a
 * trap, a program with tens of thousands of first calls spends tens of milliseconds in traps
 * outside the handler, which the program without the recorder does not. Each round runs as a
 * first call does: the handler counts its stretch (taken back here: the measuring is arming,
 * counted there as a whole) and writes the code back, and the thread resumes at the written
 * entry. The median of those rounds fell 1-2% of a trap short of what the traps of a program
 * with 20,000 first calls cost (0.5-1 ms in all): the mean of the rounds at most twice the
 * median is taken (see below).
 */
void of_measure_trap_cost(void) OF_NOINSTR;
void of_measure_trap_cost(void) {
  enum { rounds = 31 };
  long page = sysconf(_SC_PAGESIZE);
  size_t size = page > 0 ? (size_t)page : 4096u;
  void *code = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) {
    return;
  }
  /* A function that returns at once, trapped before each round and written back by the
   * handler as a first call's entry is: the kernel runs the written code, as after a real trap. */
  of_trap_write_return((uintptr_t)code);
  if (mprotect(code, size, of_trap_code_protection()) != 0) {
    munmap(code, size);
    return;
  }
  of_probe_trap = (uintptr_t)code;
  void (*probe)(void) = (void (*)(void))code;
  uint64_t unseen[rounds];
  uint32_t count = 0;
  uint64_t counted = __atomic_load_n(&of_clock.recorder_ns, __ATOMIC_RELAXED);
  for (uint32_t i = 0; i < rounds; i++) {
    of_trap_plant((uintptr_t)code, &of_probe_saved);
    of_probe_spent = 0;
    uint64_t before = of_wall_ns();
    probe();
    uint64_t after = of_wall_ns();
    uint64_t inside = of_probe_spent;
    if (inside != 0 && after - before >= inside) {
      unseen[count++] = after - before - inside;
    }
  }
  of_probe_trap = 0;
  /* The probes' handlers counted their stretches, as every trap's does; the arming counts the
   * measuring as a whole. */
  uint64_t added = __atomic_load_n(&of_clock.recorder_ns, __ATOMIC_RELAXED) - counted;
  __atomic_sub_fetch(&of_clock.recorder_ns, added, __ATOMIC_RELAXED);
  of_children_add((uint64_t)0 - added);
  munmap(code, size);
  for (uint32_t i = 1; i < count; i++) { /* insertion sort: a few dozen values */
    for (uint32_t j = i; j > 0 && unseen[j - 1] > unseen[j]; j--) {
      uint64_t t = unseen[j];
      unseen[j] = unseen[j - 1];
      unseen[j - 1] = t;
    }
  }
  /* The mean, not the median: the traps' costs are summed, and their spread is skewed (a
   * cache or TLB miss in the kernel's part makes a trap slower, never faster), so the median
   * fell short of the mean by 1-2% of a trap, 0.5-1 ms over 20,000 first calls. A round over
   * twice the median is left out: another task or an interrupt took the core then. */
  uint64_t bound = count != 0 ? 2u * unseen[count / 2] : 0;
  uint64_t sum = 0;
  uint32_t kept = 0;
  for (; kept < count && unseen[kept] <= bound; kept++) {
    sum += unseen[kept];
  }
  of_trap_cost_ns = kept != 0 ? sum / kept : 0;
}
