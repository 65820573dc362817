/*
 * inprocess.h - what the in-process recorder's files share (hidden).
 */
#ifndef ORDERFILE_INPROCESS_H
#define ORDERFILE_INPROCESS_H

#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <ucontext.h>

#include "orderfile_plan_format.h"

#include "trap.h"

#pragma GCC visibility push(hidden)

/* recorder.c: handles a SIGTRAP if one of the recorder's traps raised it; false: not ours. */
bool of_inprocess_handle_trap(const siginfo_t *info, ucontext_t *context) __attribute__((no_instrument_function));

/* recorder.c: handles a SIGSEGV if it is a touch of a watched data page; false: not ours. */
bool of_inprocess_handle_fault(const siginfo_t *info, ucontext_t *context) __attribute__((no_instrument_function));

/* data_pages.c: protects the read-only data of the loaded module `info` (after relocation)
 * so that the first touch of each page is recorded; `module_pc` is code of the module. The
 * runtime must be recording. */
void of_data_watch(const struct dl_phdr_info *info, uintptr_t module_pc) __attribute__((no_instrument_function));

/* data_pages.c: the fault at info->si_addr, if on a watched page: the address recorded at
 * `trapped` (wall clock) when new, the page readable for the faulting instruction at least;
 * false: not a watched page. */
bool of_data_handle_fault(const siginfo_t *info, ucontext_t *context, uint64_t trapped)
    __attribute__((no_instrument_function));

/* data_pages.c: the SIGTRAP after the one instruction a fault let read a watched page: the
 * page is protected again; false: not such a trap. */
bool of_data_handle_step(const siginfo_t *info, ucontext_t *context) __attribute__((no_instrument_function));

/* signals.c: installs the recorder's SIGSEGV handler, keeping the program's for chaining. */
bool of_install_fault_handler(void) __attribute__((no_instrument_function));

/* signals.c: installs the recorder's SIGTRAP handler, keeping the program's for chaining. */
bool of_install_trap_handler(void) __attribute__((no_instrument_function));

/* symbols.c: the sorted, distinct ELF vaddrs of the defined functions of the file at
 * `path` (.symtab, else .dynsym), in anonymous memory that is never freed; NULL if none. */
const uint64_t *of_read_function_entries(const char *path, uint64_t *count) __attribute__((no_instrument_function));

/* recorder.c: a warning on stderr, `a` then `b`. */
void of_say(const char *a, const char *b) __attribute__((no_instrument_function));

/* plan.c: the plan, as many modules as the recorder arms at most. */
#define OF_ARMED_CAPACITY 256u
/* One module of the plan file: see Sources/OrderfileRecording/InProcessPlan.swift. */
typedef struct of_plan_module {
  const char *path;
  uint32_t path_length;
  uint32_t flags;           /* OF_PLAN_MAIN: the main executable */
  const uint64_t *entries;  /* ELF vaddrs, sorted, no repeats */
  uint64_t entry_count;
  const uint64_t *stops;    /* entries whose first call ends the launch window */
  uint64_t stop_count;
  dev_t device;
  ino_t inode;
  bool identified;          /* device and inode are known */
} of_plan_module;

extern of_plan_module of_plan[OF_ARMED_CAPACITY];
extern uint32_t of_plan_count;
/* OF_PLAN_FILE_*: OF_PLAN_FILE_NAMED_ONLY leaves every module the plan does not name unarmed. */
extern uint32_t of_plan_flags;
/* The context of_arm_module takes: whether modules the plan does not name are armed from their
 * symbols. */
void *of_unplanned_arming(void) __attribute__((no_instrument_function));
/* Reads one variable of the initial environment without libc's environ (not set yet). */
bool of_early_getenv(const char *name, char *out, size_t capacity) __attribute__((no_instrument_function));
/* Whether the initial environment sets `name` to 0: the switches that turn a part of the
 * recorder's clock off, to measure what it adds. */
bool of_early_off(const char *name) __attribute__((no_instrument_function));
/* Maps and checks the plan file; fills of_plan. */
bool of_load_plan(const char *path) __attribute__((no_instrument_function));

/* arming.c: the armed modules. */
/* The size of a page, 4096 where the system does not say. */
uintptr_t of_page_bytes(void) __attribute__((no_instrument_function));
/* A code segment of an armed module mapped again from its file (code_faults.c). */
#define OF_CODE_COPIES 4u
typedef struct of_code_copy {
  uintptr_t start, end; /* the segment's pages, runtime addresses */
  uintptr_t copy;       /* where the copy of `start` is */
  uint8_t *touched;     /* per window of the kernel's fault-around: 1 once a first call there read the copy */
  uintptr_t windows;    /* the windows `touched` has */
} of_code_copy;
/* A loaded module with traps in it. Published by a release store of of_armed_count. */
typedef struct of_armed {
  uintptr_t base;          /* dlpi_addr */
  uintptr_t low, high;     /* runtime addresses of its first and one past its last entry */
  const uint64_t *entries; /* sorted ELF vaddrs */
  uint64_t count;
  of_code *saved;          /* the code each trap replaced */
  uint8_t *taken;          /* 1 once a thread has claimed the entry's first call */
  const uint64_t *stops;
  uint64_t stop_count;
  bool data;               /* its read-only data is to be watched (OF_PLAN_DATA) */
  of_code_copy copies[OF_CODE_COPIES];
  uint32_t copy_count;
  struct {
    uintptr_t start, end;
  } written[OF_CODE_COPIES]; /* the code segments arming made writable (page-aligned) */
  uint32_t written_count;
} of_armed;
extern of_armed of_armed_modules[OF_ARMED_CAPACITY];
extern uint32_t of_armed_count;
/* A dl_iterate_phdr callback: arms each loaded module the plan names and, when `context` is
 * not NULL, every other module that is not the system's from its own symbols. */
int of_arm_module(struct dl_phdr_info *info, size_t size, void *context) __attribute__((no_instrument_function));
/* The armed module whose entries span `address` (its first entry to its last); NULL: none. */
of_armed *of_armed_at(uintptr_t address) __attribute__((no_instrument_function));
/* At the end of a process: gives the pages arming wrote back to their file (the original
 * code), so that the kernel's teardown of the process costs what it costs without the
 * recorder. Not in a vfork child: it would take the parent's traps. */
void of_armed_release(void) __attribute__((no_instrument_function));
/* The trap handler's lookup: the armed module and entry index of `address`. */
bool of_find_entry(uintptr_t address, of_armed **module_out, uint64_t *index_out) __attribute__((no_instrument_function));
/* Whether the first call of the entry at ELF address `vaddr` ends the launch window. */
bool of_in_stops(const of_armed *module, uint64_t vaddr) __attribute__((no_instrument_function));

/* first_calls.c: records a first call at `pc`, trapped at wall-clock time `trapped`; `stop`:
 * it ends the launch window. */
void of_note_first_call(uintptr_t pc, bool stop, uint64_t trapped) __attribute__((no_instrument_function));
/* Starts the runtime and hands it the calls buffered before. */
void of_take_over(void) __attribute__((no_instrument_function));

/* code_faults.c: the faults on code a launch without the recorder takes, taken again. */
/* Reads ORDERFILE_CODE_FAULTS (0: off) before arming. */
void of_code_faults_setup(void) __attribute__((no_instrument_function));
/* Maps the code segments of `module` (loaded as `info`, from the file `path`) again. */
void of_code_faults_map(const struct dl_phdr_info *info, const char *path, of_armed *module)
    __attribute__((no_instrument_function));
/* Before a trap at `address` is stamped: the fault the program would take there without the
 * recorder, if its window is new. Async-signal-safe. */
void of_code_faults_take(uintptr_t address) __attribute__((no_instrument_function));
/* After libc is initialized: fork children start over. */
void of_code_faults_follow_forks(void) __attribute__((no_instrument_function));

/* clock.c: the recorder's own time. */
extern uint64_t of_trap_cost_ns;
extern of_code of_probe_saved;
/* Whether `address` is the trap of a probe that measures a trap's cost. */
bool of_is_probe(uintptr_t address) __attribute__((no_instrument_function));
/* In the handler of a probe's trap begun at `started`: the time it counted. */
void of_probe_handled(uint64_t started) __attribute__((no_instrument_function));
/* What a trap of this thread costs outside its handler now: its own last measurements, or
 * the arming's. */
uint64_t of_trap_cost_now(void) __attribute__((no_instrument_function));
/* After a first call at `entry` this thread's handler recorded, every so many: sends the
 * thread through a probe's trap on its way back to `entry`, which measures a trap's cost. */
void of_trap_cost_follow(ucontext_t *context, uintptr_t entry) __attribute__((no_instrument_function));
/* The handler of the probe's trap at `address`, begun at `started`: sends the thread on. */
void of_probe_trapped(ucontext_t *context, uintptr_t address, uint64_t started) __attribute__((no_instrument_function));
/* Begins a stretch of the recorder's work on this thread: returns the wall clock. */
uint64_t of_recorder_enter(void) __attribute__((no_instrument_function));
/* Ends the stretch begun at `started`: its time (and `unseen`) counts when `counted`; returns
 * the time counted. */
uint64_t of_recorder_leave(uint64_t started, bool counted, uint64_t unseen) __attribute__((no_instrument_function));
/* Measures of_trap_cost_ns, and sets up the probes' page each thread measures on later. */
void of_measure_trap_cost(void) __attribute__((no_instrument_function));
/* A trap's waits for a core since this thread's previous trap (trap_waits.c) are the
 * recorder's: into the clock before the trap is stamped (`started`), as they came before it. */
void of_charge_waits(uint64_t started) __attribute__((no_instrument_function));
/* At a handler's start, in its stretch: how long reading the meter's lines took (see "What a
 * trap costs after the program's own work" in clock.c). */
uint64_t of_meter_read(void) __attribute__((no_instrument_function));
/* What a trap whose handler read the meter in `reading` costs beyond a trap that finds the
 * caches as the last one left them; 0 without the arming's measurement. */
uint64_t of_cold_cost(uint64_t reading) __attribute__((no_instrument_function));
/* After a handler's of_recorder_leave: where the next gap starts, once the outermost ends. */
void of_handler_done(void) __attribute__((no_instrument_function));

/* trap_waits.c: at a handler's start (`started_ns`, CLOCK_MONOTONIC), the time this thread
 * waited for a core since its previous handler ended that belongs to the traps' kernel parts
 * (`cost_ns` each, calibrated), not to the program. Async-signal-safe. */
uint64_t of_trap_waits_ns(uint64_t started_ns, uint64_t cost_ns) __attribute__((no_instrument_function));
/* trap_waits.c: reads ORDERFILE_TRAP_WAITS (0: no waits charged) before arming. */
void of_trap_waits_setup(void) __attribute__((no_instrument_function));
/* trap_waits.c: marks the end of this thread's handler (`now_ns`), where the next gap starts. */
void of_trap_waits_end(uint64_t now_ns) __attribute__((no_instrument_function));

/* children.c: maps the recording's shared counter of recorder time, beside the plan at
 * `plan_path` (created by the first process); without it nothing is shared. */
void of_children_open(const char *plan_path) __attribute__((no_instrument_function));
/* children.c: adds this process's recorder time `spent_ns` to the recording's counter, which
 * a parent waiting for this process takes out of its own time. Async-signal-safe. */
void of_children_add(uint64_t spent_ns) __attribute__((no_instrument_function));

/* children.c: brackets the runtime's fork and exit handlers as the recorder's time; called
 * before the runtime starts (`runtime_started` false), then after. */
void of_children_bracket(bool runtime_started) __attribute__((no_instrument_function));

#pragma GCC visibility pop

#endif
