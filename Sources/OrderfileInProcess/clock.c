/*
 * clock.c - the recorder's own time, which the program's clock (of_clock) leaves out: each
 * stretch of the recorder's work, counted once by the outermost on its thread, and what a
 * trap costs outside its handler, measured at arming and again as each thread's first calls
 * go on. See "Clock" in recorder.c.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>

#include "../OrderfileRuntime/runtime_internal.h"
#include "inprocess.h"
#include "trap.h"

/* What a trap costs outside its handler (the kernel raising the signal, sigreturn), which the
 * handler's own clock cannot see, as measured at arming (of_measure_trap_cost); 0: traps are
 * counted by their handler only. A thread's traps are charged its own later measurements
 * once it has them (of_trap_cost_now). */
uint64_t of_trap_cost_ns;
/* The probes' traps: a page of functions that return at once, one slot per thread that
 * measures (slot 0 the arming's), and the code a trap replaces in each (a return). */
#define OF_PROBE_SLOT 16u
static uintptr_t of_probe_page;
static uint32_t of_probe_slots;
static uint32_t of_probe_claimed;
of_code of_probe_saved;
/* What a first call's trap costs besides what a probe measures (see of_trap_cost_follow): the
 * arming's cost less the first thread's first measurements, set once; added to a thread's own
 * measurements (of_trap_cost_now). */
static int64_t of_probe_offset_ns;
static uint32_t of_probe_offset_state; /* 0: not set, 1: being set, 2: set */
/* The time the handlers of this thread's probe traps counted (added in each handler). */
static __thread uint64_t of_probe_inside __attribute__((tls_model("initial-exec")));

bool of_is_probe(uintptr_t address) OF_NOINSTR;
bool of_is_probe(uintptr_t address) {
  uintptr_t page = __atomic_load_n(&of_probe_page, __ATOMIC_ACQUIRE);
  return page != 0 && address >= page && address < page + (uintptr_t)of_probe_slots * OF_PROBE_SLOT;
}

void of_probe_handled(uint64_t started) OF_NOINSTR;
void of_probe_handled(uint64_t started) {
  of_probe_inside += of_wall_ns() - started;
}

/* Nesting of the recorder's own work on this thread (a trap, the runtime's start): only the
 * outermost stretch adds its time to of_clock (see "Clock" at the top of recorder.c). */
static __thread uint32_t of_recorder_depth __attribute__((tls_model("initial-exec")));
/* When this thread's last outermost stretch ended: what it did after is outside every stretch. */
static __thread uint64_t of_recorder_left_ns __attribute__((tls_model("initial-exec")));

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
  if (--of_recorder_depth != 0) {
    return 0;
  }
  uint64_t now = of_wall_ns();
  of_recorder_left_ns = now;
  if (!counted) {
    return 0;
  }
  uint64_t spent = now - started + unseen;
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
    uint64_t charge = of_trap_waits_ns(started, of_trap_cost_now());
    if (charge != 0) {
      __atomic_add_fetch(&of_clock.recorder_ns, charge, __ATOMIC_RELAXED);
      of_children_add(charge);
    }
  }
}

/*
 * What a trap costs after the program's own work: the caches it finds.
 *
 * Why: the arming's rounds (below) and each thread's probes (of_trap_cost_follow) run right after
 * a trap, so they measure a trap whose kernel path, signal frame and handler are still in the
 * caches. A first call comes after the program's own work, which has replaced them. Measured
 * here (a program of its own raising SIGTRAP, medians of 201): 2.9 µs a round trip with the
 * caches as the last trap left them, 4.0 µs after reading 512 KiB of other memory, 4.0-5.0 µs
 * after 2 MiB, 4.1-5.5 µs after 8 MiB. clang -cc1, whose 10,000 first calls come between real
 * work, kept about 2.3 ms of it in its phases (first hook → main and main → exit, against its
 * kernel-timed plain launch); a generated program whose main makes 20,000 first calls in a row
 * kept 1.8 ms.
 *
 * How: a meter of OF_METER_LINES cache lines that only the handlers read, chained so that each
 * read waits for the one before and their misses add up. Each handler times it first, inside its
 * stretch: tens of nanoseconds when the program touched little since the thread's last trap,
 * hundreds when it replaced the caches (71-90 and 211-431 ns here). At arming, rounds with the caches as a trap
 * leaves them and rounds after reading OF_METER_EVICT bytes of other memory give a meter reading
 * and a trap's cost each; a trap is charged, beyond the cost of a hot trap, the difference of the
 * two medians in proportion to where its reading lies between theirs (none below the hot
 * reading, the whole difference above the cold one).
 *
 * Limitations: the meter sees the data caches the program replaced, not which of the kernel's
 * lines went; a program that replaced more than the arming's eviction is charged the arming's
 * difference, no more (8 MiB cost up to 1 µs a trap more than 2 MiB here). Without the arming's
 * measurement (ORDERFILE_TRAP_COST=0, or no memory for the eviction) nothing is charged;
 * The charge rests on a grain or two of the clock: clock_gettime steps by 10 ns here, a hot meter
 * reads 50-110 ns, and most of a program's traps read within a grain of the hot median, so what
 * one recording is charged moves with where that median fell: 0.09-4.75 ms (median 0.7) over 28
 * recordings of clang -cc1. Finer readings (the time-stamp counter steps by the same 10 ns
 * here), middle means, a hot reading following each thread's probes and charges below zero did
 * not bring clang's phases closer (Docs/Performance.md, "Phases of large programs").
 * ORDERFILE_COLD_TRAPS=0 turns it off alone, to measure what it adds. Measuring takes about
 * half a millisecond of each armed process's arming (the eviction's huge page in 0.05-0.4 ms,
 * fifteen reads of it in 0.34 ms, fifteen traps).
 */
#define OF_METER_LINES 32u
/* Three lines apart: each in a set of its own, as the kernel's lines are spread. */
#define OF_METER_STRIDE (3u * 64u / sizeof(uintptr_t))
#define OF_METER_EVICT ((size_t)2u << 20)
#define OF_METER_ROUNDS 15u

static uintptr_t of_meter_lines[OF_METER_LINES * OF_METER_STRIDE] __attribute__((aligned(64)));
static uint64_t of_meter_hot_ns, of_meter_cold_ns; /* the arming's median readings */
static uint64_t of_cold_extra_ns;                  /* a cold trap's cost beyond a hot one; 0: none */
static const uintptr_t *of_meter_first;            /* the chain's first line; NULL: no meter read */
static __thread uint64_t of_meter_seen_ns __attribute__((tls_model("initial-exec")));

/* Chains the meter's lines: each holds the address of the next, the last 0, in a shuffled
 * order: lines read at one stride are fetched ahead by the processor, and a cold meter read
 * no slower than a warm one. */
static void of_meter_setup(void) OF_NOINSTR;
static void of_meter_setup(void) {
  uint32_t order[OF_METER_LINES];
  uint32_t state = 0x9e3779b9u;
  for (uint32_t i = 0; i < OF_METER_LINES; i++) {
    order[i] = i;
  }
  for (uint32_t i = OF_METER_LINES - 1u; i > 0; i--) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    uint32_t j = state % (i + 1u), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (uint32_t i = 0; i < OF_METER_LINES; i++) {
    of_meter_lines[order[i] * OF_METER_STRIDE] =
        i + 1u < OF_METER_LINES ? (uintptr_t)&of_meter_lines[order[i + 1u] * OF_METER_STRIDE] : 0u;
  }
  of_meter_first = &of_meter_lines[order[0] * OF_METER_STRIDE];
}

uint64_t of_meter_read(void) OF_NOINSTR;
uint64_t of_meter_read(void) {
  if (of_meter_first == NULL) {
    return 0;
  }
  uint64_t started = of_wall_ns();
  uintptr_t at = (uintptr_t)of_meter_first;
  while (at != 0) {
    at = *(volatile const uintptr_t *)at;
  }
  uint64_t spent = of_wall_ns() - started;
  of_meter_seen_ns = spent;
  return spent;
}

uint64_t of_cold_cost(uint64_t reading) OF_NOINSTR;
uint64_t of_cold_cost(uint64_t reading) {
  uint64_t extra = of_cold_extra_ns, hot = of_meter_hot_ns, cold = of_meter_cold_ns;
  if (extra == 0 || reading <= hot) {
    return 0;
  }
  if (reading >= cold) {
    return extra;
  }
  return extra * (reading - hot) / (cold - hot);
}

/* One round trip through the probe trap at `at`, as a first call makes it: its time outside
 * the handlers; 0 when it cannot be told. The handler writes the code back (a return) and the
 * thread resumes there, as after a real trap. */
static uint64_t of_probe_round(uintptr_t at) OF_NOINSTR;
static uint64_t of_probe_round(uintptr_t at) {
  of_code saved;
  of_trap_plant(at, &saved);
  of_probe_inside = 0;
  uint64_t before = of_wall_ns();
  ((void (*)(void))at)();
  uint64_t after = of_wall_ns();
  uint64_t inside = of_probe_inside;
  return inside != 0 && after - before >= inside ? after - before - inside : 0;
}

/* Sorts `count` values in place: an insertion sort, for a few dozen. */
static void of_sort(uint64_t *values, uint32_t count) OF_NOINSTR;
static void of_sort(uint64_t *values, uint32_t count) {
  for (uint32_t i = 1; i < count; i++) {
    for (uint32_t j = i; j > 0 && values[j - 1] > values[j]; j--) {
      uint64_t t = values[j];
      values[j] = values[j - 1];
      values[j - 1] = t;
    }
  }
}

/* The cost of a trap from `count` rounds (sorted here): their mean, not their median. The
 * traps' costs are summed, and their spread is skewed (a cache or TLB miss in the kernel's part
 * makes a trap slower, never faster), so the median fell short of the mean by 1-2% of a trap,
 * 0.5-1 ms over 20,000 first calls. A round over twice the median is left out: another task
 * or an interrupt took the core then. */
static uint64_t of_rounds_cost(uint64_t *rounds, uint32_t count) OF_NOINSTR;
static uint64_t of_rounds_cost(uint64_t *rounds, uint32_t count) {
  of_sort(rounds, count);
  uint64_t bound = count != 0 ? 2u * rounds[count / 2] : 0;
  uint64_t sum = 0;
  uint32_t kept = 0;
  for (; kept < count && rounds[kept] <= bound; kept++) {
    sum += rounds[kept];
  }
  return kept != 0 ? sum / kept : 0;
}

/* The median of `count` values (sorted here); 0 for none. */
static uint64_t of_median(uint64_t *values, uint32_t count) OF_NOINSTR;
static uint64_t of_median(uint64_t *values, uint32_t count) {
  of_sort(values, count);
  return count != 0 ? values[count / 2u] : 0;
}

/* The cold trap (see the meter above): OF_METER_ROUNDS rounds through the probe at `at`, each
 * after reading OF_METER_EVICT bytes of memory of its own, against the hot rounds' readings and
 * costs (`hot_readings`, `hot_costs`: `count` of each, sorted here). */
static void of_measure_cold(uintptr_t at, uint64_t *hot_readings, uint64_t *hot_costs, uint32_t count) OF_NOINSTR;
static void of_measure_cold(uintptr_t at, uint64_t *hot_readings, uint64_t *hot_costs, uint32_t count) {
  if (count == 0) {
    return;
  }
  size_t span = OF_METER_EVICT * 2u; /* room to align it to a huge page: one fault, not 512 */
  uint8_t *area = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED) {
    return;
  }
  volatile uint8_t *evict = (uint8_t *)(((uintptr_t)area + OF_METER_EVICT - 1u) & ~(uintptr_t)(OF_METER_EVICT - 1u));
  madvise((void *)evict, OF_METER_EVICT, MADV_HUGEPAGE);
  for (size_t at_byte = 0; at_byte < OF_METER_EVICT; at_byte += of_page_bytes()) {
    evict[at_byte] = 1u;
  }
  uint64_t readings[OF_METER_ROUNDS], costs[OF_METER_ROUNDS];
  uint32_t kept = 0;
  for (uint32_t r = 0; r < OF_METER_ROUNDS; r++) {
    uint8_t sum = 0;
    for (size_t line = 0; line < OF_METER_EVICT; line += 64u) {
      sum = (uint8_t)(sum + evict[line]);
    }
    evict[0] = sum;
    uint64_t cost = of_probe_round(at);
    if (cost != 0) {
      readings[kept] = of_meter_seen_ns;
      costs[kept++] = cost;
    }
  }
  munmap(area, span);
  uint64_t hot_reading = of_median(hot_readings, count), hot_cost = of_median(hot_costs, count);
  uint64_t cold_reading = of_median(readings, kept), cold_cost = of_median(costs, kept);
  if (kept != 0 && cold_reading > hot_reading && cold_cost > hot_cost) {
    of_meter_hot_ns = hot_reading;
    of_meter_cold_ns = cold_reading;
    of_cold_extra_ns = cold_cost - hot_cost;
  }
}

/*
 * Measures of_trap_cost_ns: raises a trap of its own a few dozen times, on a page of its own,
 * and takes each round trip less what the handler counted of it. At a few microseconds a
 * trap, a program with tens of thousands of first calls spends tens of milliseconds in traps
 * outside the handler, which the program without the recorder does not. Each round runs as a
 * first call does: the handler counts its stretch (taken back here: the measuring is arming,
 * counted there as a whole) and writes the code back, and the thread resumes at the written
 * entry. The page stays: each thread measures again on a slot of its own as it goes
 * (of_trap_cost_follow).
 */
void of_measure_trap_cost(void) OF_NOINSTR;
void of_measure_trap_cost(void) {
  enum { rounds = 31 };
  size_t size = of_page_bytes();
  void *code = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) {
    return;
  }
  uint32_t slots = (uint32_t)(size / OF_PROBE_SLOT);
  for (uint32_t i = 0; i < slots; i++) {
    of_trap_write_return((uintptr_t)code + i * OF_PROBE_SLOT);
  }
  of_trap_plant((uintptr_t)code, &of_probe_saved);
  of_trap_restore((uintptr_t)code, of_probe_saved);
  if (mprotect(code, size, of_trap_code_protection()) != 0) {
    munmap(code, size);
    return;
  }
  of_probe_slots = slots;
  of_probe_claimed = 1;
  __atomic_store_n(&of_probe_page, (uintptr_t)code, __ATOMIC_RELEASE);
  of_meter_setup();
  uint64_t unseen[rounds], readings[rounds];
  uint32_t count = 0;
  uint64_t counted = __atomic_load_n(&of_clock.recorder_ns, __ATOMIC_RELAXED);
  for (uint32_t i = 0; i < rounds; i++) {
    uint64_t round = of_probe_round((uintptr_t)code);
    if (round != 0) {
      readings[count] = of_meter_seen_ns;
      unseen[count++] = round;
    }
  }
  if (!of_early_off("ORDERFILE_COLD_TRAPS")) {
    of_measure_cold((uintptr_t)code, readings, unseen, count);
  }
  if (of_cold_extra_ns == 0) {
    of_meter_first = NULL; /* nothing to charge: the handlers skip the meter */
  }
  /* The probes' handlers counted their stretches, as every trap's does; the arming counts the
   * measuring as a whole. */
  uint64_t added = __atomic_load_n(&of_clock.recorder_ns, __ATOMIC_RELAXED) - counted;
  __atomic_sub_fetch(&of_clock.recorder_ns, added, __ATOMIC_RELAXED);
  of_children_add((uint64_t)0 - added);
  of_trap_cost_ns = of_rounds_cost(unseen, count);
}

/*
 * A thread's own measurements of a trap's cost, made as its first calls go on.
 *
 * Why: a trap's cost does not stay what it was at arming. On a machine whose cores are shared
 * (virtual CPUs, other guests), it moved between about 2.5, 2.9 and 3.3 µs over a run of one
 * program, for stretches of a thousand traps or more, and the arming's 31 rounds caught one of
 * those levels: 0.3-0.7 µs a trap off over 12,000 first calls left 4 ms in a phase, or took the
 * whole phase out (main → exit 0.01 ms against 2.5 ms without the recorder).
 *
 * How: every OF_COST_EVERY first calls, the handler sends the thread, on its way back to the
 * function, through a probe slot first (of_trap_cost_follow): code written just now, as the
 * function's first instruction is, and a trap after it. The time from the end of the first
 * handler's stretch to the start of the probe's (of_probe_trapped, which sends the thread on to
 * the function) is one trap's kernel parts, taken in the program's own state (its registers to
 * save, its stack) with nothing of the program run. It falls short of what a first call's trap
 * costs the program by about as much each time (70-100 ns here: what the program's own code
 * pays after a trap, a mispredicted return, caches), so it is not taken as the cost itself:
 * the first thread to have OF_COST_WINDOW rounds, a few hundred first calls after arming, sets
 * the difference once (the arming's cost less its rounds' cost, of_probe_offset_ns), and from
 * then on each thread's traps are charged its last OF_COST_WINDOW rounds' cost
 * (of_rounds_cost) plus that difference: the arming's cost, moved as the trap's cost moves.
 * The difference is kept between 0 and a tenth of the arming's cost: a cost that moved between
 * the arming and those first rounds puts the move into it.
 * A round made from inside the handler instead (a trap in a trap) came out 0.4 µs short of the
 * program's traps: the kernel gives a handler a clean register state, cheaper to save. A
 * thread without a slot (more threads than the page holds) keeps the arming's cost.
 *
 * Limitations: the difference is one program's, measured once: code after its traps that pays
 * more or less for them later in the run (another phase, another thread) is charged the first
 * figure. A probe costs a trap every OF_COST_EVERY first calls, counted as the recorder's.
 */
#define OF_COST_EVERY 16u
#define OF_COST_WINDOW 16u

typedef struct of_trap_costs {
  uint64_t rounds[OF_COST_WINDOW]; /* the last rounds, a ring */
  uint32_t count;                  /* rounds so far */
  uint32_t calls;                  /* first calls since the last round */
  uint32_t slot;                   /* its probe's slot; 0: none claimed yet */
  bool no_slot;                    /* none left for it */
  uint64_t cost_ns;                /* from its rounds; 0: the arming's */
  uintptr_t entry;                 /* where its pending probe sends it on; 0: none pending */
} of_trap_costs;

static __thread of_trap_costs of_thread_costs __attribute__((tls_model("initial-exec")));

uint64_t of_trap_cost_now(void) OF_NOINSTR;
uint64_t of_trap_cost_now(void) {
  uint64_t measured = of_thread_costs.cost_ns;
  if (measured == 0 || of_trap_cost_ns == 0 || __atomic_load_n(&of_probe_offset_state, __ATOMIC_ACQUIRE) != 2u) {
    return of_trap_cost_ns;
  }
  int64_t own = (int64_t)measured + of_probe_offset_ns;
  return own > 0 ? (uint64_t)own : of_trap_cost_ns;
}

/* Sends the thread, on its way back to `entry`, through code written just now (as a first
 * call's is, where the thread resumes) and a trap after it, on the probe slot `slot`. */
static void of_probe_send(ucontext_t *context, uintptr_t slot, uintptr_t entry) OF_NOINSTR;
static void of_probe_send(ucontext_t *context, uintptr_t slot, uintptr_t entry) {
  of_code saved;
  of_trap_plant(of_trap_write_nop(slot), &saved);
  of_thread_costs.entry = entry;
  of_trap_resume(context, slot);
}

void of_trap_cost_follow(ucontext_t *context, uintptr_t entry) OF_NOINSTR;
void of_trap_cost_follow(ucontext_t *context, uintptr_t entry) {
  of_trap_costs *self = &of_thread_costs;
  uintptr_t page = __atomic_load_n(&of_probe_page, __ATOMIC_ACQUIRE);
  /* The outermost handler only: a trap inside a handler returns into the handler. */
  if (of_trap_cost_ns == 0 || page == 0 || of_recorder_depth != 1 || self->no_slot || self->entry != 0 ||
      ++self->calls < OF_COST_EVERY) {
    return;
  }
  self->calls = 0;
  if (self->slot == 0) {
    uint32_t slot = __atomic_fetch_add(&of_probe_claimed, 1u, __ATOMIC_RELAXED);
    if (slot >= of_probe_slots) {
      self->no_slot = true;
      return;
    }
    self->slot = slot;
  }
  of_probe_send(context, page + (uintptr_t)self->slot * OF_PROBE_SLOT, entry);
}

void of_probe_trapped(ucontext_t *context, uintptr_t address, uint64_t started) OF_NOINSTR;
void of_probe_trapped(ucontext_t *context, uintptr_t address, uint64_t started) {
  of_trap_costs *self = &of_thread_costs;
  of_trap_restore(address, of_probe_saved);
  if (self->entry == 0) {
    of_trap_resume(context, address); /* the arming's: returns at once */
    return;
  }
  of_trap_resume(context, self->entry);
  self->entry = 0;
  if (started <= of_recorder_left_ns) {
    return;
  }
  self->rounds[self->count++ % OF_COST_WINDOW] = started - of_recorder_left_ns;
  if (self->count < OF_COST_WINDOW) {
    return;
  }
  uint64_t sorted[OF_COST_WINDOW];
  for (uint32_t i = 0; i < OF_COST_WINDOW; i++) {
    sorted[i] = self->rounds[i];
  }
  self->cost_ns = of_rounds_cost(sorted, OF_COST_WINDOW);
  uint32_t unset = 0;
  /* The first thread to fill its window sets it, a few hundred first calls after arming. */
  if (self->count == OF_COST_WINDOW && __atomic_compare_exchange_n(&of_probe_offset_state, &unset, 1u, false,
                                                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    /* Tens of nanoseconds when the cost stayed (28-168 ns here); when it moved between the
     * arming and these rounds, off by the move (-549 to 589 ns seen): what the program pays
     * after a trap is neither negative nor a tenth of the trap. */
    int64_t offset = (int64_t)of_trap_cost_ns - (int64_t)self->cost_ns;
    int64_t most = (int64_t)(of_trap_cost_ns / 10u);
    of_probe_offset_ns = offset < 0 ? 0 : offset > most ? most : offset;
    __atomic_store_n(&of_probe_offset_state, 2u, __ATOMIC_RELEASE);
  }
}

void of_handler_done(void) OF_NOINSTR;
void of_handler_done(void) {
  if (of_recorder_depth == 0) {
    of_trap_waits_end(of_wall_ns());
  }
}
