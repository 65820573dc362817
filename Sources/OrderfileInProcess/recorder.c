/*
 * recorder.c - records the first call of every function of an unmodified program from
 * inside its own process: the in-process recorder of `orderfile record`.
 *
 * libOrderfileInProcess.so is the runtime (Sources/OrderfileRuntime, the same trace
 * writer with its fork, exit, crash and SIGKILL guarantees) plus this directory: this file
 * (arming at load, the trap and fault handlers' first step, the start), plan.c (the plan
 * file), arming.c (traps planted, modules armed), first_calls.c (the trace or the buffer
 * before it), clock.c (the recorder's own time), code_faults.c (the faults on code the
 * program takes without the recorder), trap_*.c (the instruction set), signals.c (the
 * program's signal calls), symbols.c and data_pages.c. `orderfile record` preloads it (LD_PRELOAD) and names a plan in
 * ORDERFILE_TRAP_PLAN: for each module of the program, the function entries to trap.
 *
 * Mechanism: a trap instruction (trap.h) over every planned entry. The first thread to
 * reach an entry raises SIGTRAP; the handler claims the entry, writes its code back,
 * records the first call and returns to the entry, which now runs as it always did.
 * Later calls cost nothing.
 *
 * Arming before anything of the program runs: a preloaded library's constructor runs
 * after the constructors of the program's own libraries (the loader initializes a
 * program's DT_NEEDED libraries before a preloaded one; checked with glibc 2.36). The
 * recorder arms earlier, from an IFUNC resolver: the loader applies this library's
 * IRELATIVE relocation while relocating it, after every initial module is mapped and
 * before any initializer runs. libc is relocated then but not initialized (environ is
 * not set yet), so arming reads its settings from /proc/self/environ and uses only
 * system calls and the loader's dl_iterate_phdr. Records of calls before the runtime
 * starts (in the constructor) wait in a small buffer.
 *
 * Libraries loaded later (dlopen): the loader calls _dl_debug_state (r_debug.r_brk) once
 * a new set of modules is mapped and before their relocation and initializers; a trap
 * there arms them and returns from the (empty) function. A library the plan does not
 * name is armed from its own symbol table (STT_FUNC), unless it is a system library.
 *
 * Images with nothing armed: in a process other than the one `record` started, the
 * constructor starts the runtime (and its trace) only when some module is armed. An image
 * of a system program the program runs (a shell, a D-Bus helper) would otherwise leave an
 * empty trace, full size while it runs. Its first armed module, if a dlopen brings one,
 * starts the runtime from the loader's hook, before that module's constructors.
 *
 * Writing code: the text segments of armed modules are made writable (mprotect RWX) for
 * the rest of the run, so a first call costs one signal and no system call. The
 * alternative, a writable second mapping through a memfd, needs the whole text copied
 * into the memfd at arming (megabytes for a large program) and remapped over the original;
 * RWX costs nothing until a page is written.
 * Scripts/bench inprocess times arming 300,000 entries this way (its figure is in
 * Docs/Performance.md); a memfd alias was not built to compare.
 * A kernel that forbids writable code (SELinux execmod) makes arming fail: the module is
 * left unarmed, with a warning.
 *
 * Clock: every time written is the program's (of_clock): CLOCK_MONOTONIC less the recorder's
 * time so far. A first call is stamped when its trap reaches the handler, before the
 * handler's own work; each stretch of the recorder's work (a trap, the runtime's start) is
 * counted once, by the outermost on its thread. The start dlopens this library again
 * (shared_instance.c), which traps at the loader's hook inside it: counting that trap twice
 * set the clock back past the constructors buffered before the start, which then came out
 * later than main in a program that loads many libraries (the hook's rescan stats each).
 *
 * Limitations: code that reads its own bytes sees the trap in place of an entry's first
 * instruction until that function has run once (its checksum of itself changes); a
 * vfork child that runs armed code before exec records into its parent's trace.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../OrderfileRuntime/runtime_internal.h"
#include "inprocess.h"
#include "trap.h"

static uintptr_t of_loader_hook; /* r_debug.r_brk, trapped */
static of_code of_loader_hook_saved;
static bool of_active;
/* Nothing was armed when the constructor ran: the runtime starts once a module is. */
static bool of_deferred;
static uint32_t of_owner_pid;

void of_say(const char *a, const char *b) OF_NOINSTR;
void of_say(const char *a, const char *b) {
  const char *parts[] = {"orderfile: warning: ", a, b, "\n"};
  of_write_stderr(parts, 4);
}

/* Handles the trap at `address` if it is one of the recorder's; false: not ours. */
static bool of_handle_trap_at(uintptr_t address, ucontext_t *context, uint64_t trapped) OF_NOINSTR;
static bool of_handle_trap_at(uintptr_t address, ucontext_t *context, uint64_t trapped) {
  if (of_is_probe(address)) {
    of_probe_trapped(context, address, trapped);
    return true;
  }
  if (address == of_loader_hook && of_loader_hook != 0) {
    if (_r_debug.r_state == RT_CONSISTENT) {
      dl_iterate_phdr(of_arm_module, of_unplanned_arming());
      /* The first module armed in an image that had none: its trace starts now, inside the
       * dlopen that maps the module, before the module's constructors run. The loader calls
       * here with its lock held and no lock of libc's, so starting is as safe as in a
       * constructor (the runtime's own dlopen takes the loader's lock again: it is recursive). */
      if (of_deferred && __atomic_load_n(&of_armed_count, __ATOMIC_ACQUIRE) != 0) {
        of_deferred = false;
        of_take_over();
      }
    }
    of_trap_return(context);
    return true;
  }
  of_armed *module;
  uint64_t index;
  if (!of_find_entry(address, &module, &index)) {
    return false; /* not ours: the program's own trap */
  }
  /* Every thread that trapped here goes back to the entry; the one that claims it puts the
   * code back and records. A thread that loses the claim before the code is back traps
   * again and comes back here until it is. */
  if (__atomic_exchange_n(&module->taken[index], 1u, __ATOMIC_ACQ_REL) == 0) {
    of_trap_resume(context, address);
    of_trap_restore(address, module->saved[index]);
    of_note_first_call(address, module->stop_count != 0 && of_in_stops(module, module->entries[index]), trapped);
    of_trap_cost_follow(context, address);
  } else if (of_trap_is_trap(module->saved[index])) {
    return false; /* the function itself starts with a trap, now back in place: the program's own */
  } else {
    of_trap_resume(context, address);
  }
  return true;
}

bool of_inprocess_handle_trap(const siginfo_t *info, ucontext_t *context) {
  uintptr_t address;
  bool stepped = of_active && of_trap_stepped(info);
  if (!of_active || (!stepped && !of_trap_hit(info, context, &address))) {
    return false;
  }
  if (!stepped) {
    of_code_faults_take(address); /* the program's time: before the stamp and the stretch */
  }
  uint64_t started = of_recorder_enter();
  uint64_t reading = of_meter_read();
  of_charge_waits(started);
  int saved_errno = errno;
  bool handled = stepped ? of_data_handle_step(info, context) : of_handle_trap_at(address, context, started);
  // A data step's trap costs the kernel as much as a first call's. The probe's trap is counted
  // as a first call's is (the arming's: of_measure_trap_cost takes it back); its caches are the
  // trap's before it, so it is charged no cold cost.
  bool probe = !stepped && of_is_probe(address);
  of_recorder_leave(started, handled, of_trap_cost_now() + (probe ? 0 : of_cold_cost(reading)));
  if (probe) {
    of_probe_handled(started);
  }
  of_handler_done();
  errno = saved_errno;
  return handled;
}

bool of_inprocess_handle_fault(const siginfo_t *info, ucontext_t *context) {
  if (!of_active) {
    return false;
  }
  uint64_t started = of_recorder_enter();
  uint64_t reading = of_meter_read();
  of_charge_waits(started);
  int saved_errno = errno;
  bool handled = of_data_handle_fault(info, context, started);
  // Raising SIGSEGV and returning from it costs the kernel about what a trap does.
  of_recorder_leave(started, handled, of_trap_cost_now() + of_cold_cost(reading));
  of_handler_done();
  errno = saved_errno;
  return handled;
}

/* Watches the read-only data of the armed module `info` is, if its plan asks for it. */
static int of_watch_module(struct dl_phdr_info *info, size_t size, void *context) OF_NOINSTR;
static int of_watch_module(struct dl_phdr_info *info, size_t size, void *context) {
  (void)size;
  (void)context;
  uint32_t count = __atomic_load_n(&of_armed_count, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < count; i++) {
    const of_armed *module = &of_armed_modules[i];
    if (module->base == info->dlpi_addr && module->data && module->count != 0) {
      of_data_watch(info, module->low);
    }
  }
  return 0;
}

/* Starts watching read-only data, once relocation is over: from the constructor. */
static void of_watch_data(void) OF_NOINSTR;
static void of_watch_data(void) {
  uint32_t count = __atomic_load_n(&of_armed_count, __ATOMIC_ACQUIRE);
  bool wanted = false;
  for (uint32_t i = 0; i < count; i++) {
    wanted = wanted || of_armed_modules[i].data;
  }
  if (!wanted) {
    return;
  }
  if (!of_install_fault_handler()) {
    of_say("cannot install the SIGSEGV handler; no data touch recorded", "");
    return;
  }
  dl_iterate_phdr(of_watch_module, NULL);
}

/*
 * Arms the program. Runs from the IFUNC resolver below, once, before any initializer of
 * any module; does nothing without ORDERFILE_TRAP_PLAN or in a copy loaded by dlopen.
 */
static void of_arm_program(void) OF_NOINSTR;
static void of_arm_program(void) {
  static bool done;
  if (done) {
    return;
  }
  done = true;
  uint64_t started = of_wall_ns();
  static char path[OF_PATH_CAPACITY];
  if (!of_early_getenv(OF_PLAN_VARIABLE, path, sizeof path) || path[0] == '\0' || !of_load_plan(path)) {
    return;
  }
  of_owner_pid = (uint32_t)getpid();
  of_children_open(path);
  if (!of_install_trap_handler()) {
    of_say("cannot install the SIGTRAP handler; nothing recorded", "");
    return;
  }
  of_active = true;
  of_clock.enabled = true;
  /* ORDERFILE_TRAP_COST=0: traps counted by their handler only, to measure what that leaves. */
  if (!of_early_off("ORDERFILE_TRAP_COST")) {
    of_measure_trap_cost();
  }
  of_code_faults_setup();
  of_trap_waits_setup();
  dl_iterate_phdr(of_arm_module, of_unplanned_arming());
  if (_r_debug.r_brk != 0) {
    uintptr_t mask = of_page_bytes() - 1u;
    uintptr_t hook = (uintptr_t)_r_debug.r_brk;
    if (mprotect((void *)(hook & ~mask), mask + 1u + ((hook & mask) + 4u > mask ? mask + 1u : 0u),
                 of_trap_code_protection()) == 0) {
      of_trap_plant(hook, &of_loader_hook_saved);
      of_loader_hook = hook;
    }
  }
  uint64_t spent = of_wall_ns() - started;
  of_clock.arming_ns = spent;
  __atomic_add_fetch(&of_clock.recorder_ns, spent, __ATOMIC_RELAXED);
  of_children_add(spent);
}

/* The IFUNC whose resolver arms the program: see the top of this file. */
static void of_nothing(void) OF_NOINSTR;
static void of_nothing(void) {}
typedef void (*of_arm_function)(void);
static of_arm_function of_resolve_arm(void) OF_NOINSTR;
static of_arm_function of_resolve_arm(void) {
  of_arm_program();
  return of_nothing;
}
__attribute__((visibility("hidden"))) void of_arm_marker(void) __attribute__((ifunc("of_resolve_arm")));

/* Whether this is the process `record` started (any of its images): the recorder's pid in
 * ORDERFILE_SPAWN is its parent's. */
static bool of_started_by_recorder(void) OF_NOINSTR;
static bool of_started_by_recorder(void) {
  const char *spawn = getenv("ORDERFILE_SPAWN");
  uint32_t spawner;
  uint64_t time_ns;
  return spawn != NULL && of_parse_spawn(spawn, &spawner, &time_ns) && spawner == (uint32_t)getppid();
}

__attribute__((constructor)) static void of_inprocess_start(void) OF_NOINSTR;
__attribute__((constructor)) static void of_inprocess_start(void) {
  /* The call gives the IFUNC its IRELATIVE relocation among the PLT's, after every
   * JUMP_SLOT, so the resolver's calls into libc are bound when it runs. Taking its address
   * instead puts the relocation among the data ones, which glibc on arm64 applies before
   * the JUMP_SLOTs (only x86 defers IRELATIVE to the end): the resolver's first libc call
   * then jumps through an unbound slot. */
  of_arm_marker();
  of_arm_program(); /* when the resolver did not run (a loader that resolved it lazily) */
  /* An image with nothing of the program's armed (a system program the program runs: a
   * shell, a D-Bus helper) would only leave an empty trace, at full size while it runs.
   * The process `record` started keeps its trace, armed or not: it is the recording's. */
  if (of_active) {
    of_code_faults_follow_forks();
  }
  if (of_active && __atomic_load_n(&of_armed_count, __ATOMIC_ACQUIRE) == 0 && !of_started_by_recorder()) {
    of_deferred = true;
  } else if (of_active) {
    of_take_over();
    /* Here, not in of_take_over: from the loader's hook, a new module is not relocated yet. */
    if (__atomic_load_n(&of_rt.init_state, __ATOMIC_ACQUIRE) == OF_INIT_RECORDING) {
      of_watch_data();
    }
  }
}
