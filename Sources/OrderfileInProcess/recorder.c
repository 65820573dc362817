/*
 * recorder.c - records the first call of every function of an unmodified program from
 * inside its own process: the in-process recorder of `orderfile record`.
 *
 * libOrderfileInProcess.so is the runtime (Sources/OrderfileRuntime, the same trace
 * writer with its fork, exit, crash and SIGKILL guarantees) plus this file, trap_*.c and
 * signals.c. `orderfile record` preloads it (LD_PRELOAD) and names a plan in
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
 * Scripts/bench inprocess times arming 300,000 entries this way (its figure is in the
 * README); a memfd alias was not built to compare.
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
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../OrderfileRuntime/runtime_internal.h"
#include "inprocess.h"
#include "trap.h"

#define OF_PLAN_MAGIC "OFPLAN1"
#define OF_ARMED_CAPACITY 256u
#define OF_EARLY_CAPACITY 16384u

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

#define OF_PLAN_MAIN 1u
#define OF_PLAN_DATA 2u /* record the first touch of each page of its read-only data */

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
} of_armed;

static of_plan_module of_plan[OF_ARMED_CAPACITY];
static uint32_t of_plan_count;
static of_armed of_armed_modules[OF_ARMED_CAPACITY];
static uint32_t of_armed_count;
static uintptr_t of_loader_hook; /* r_debug.r_brk, trapped */
/* What a trap costs outside its handler (the kernel raising the signal, sigreturn), which the
 * handler's own clock cannot see: measured once at arming (of_measure_trap_cost), and added to
 * the recorder's time for every trap it handles. */
static uint64_t of_trap_cost_ns;
/* The trap of_measure_trap_cost raises, and the times its handler saw (entry, exit). */
static uintptr_t of_probe_trap;
static volatile uint64_t of_probe_entered, of_probe_left; /* set in the signal handler */
static of_code of_loader_hook_saved;
static bool of_active;
/* Nothing was armed when the constructor ran: the runtime starts once a module is. */
static bool of_deferred;
static uint32_t of_owner_pid;
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

static void of_say(const char *a, const char *b) OF_NOINSTR;
static void of_say(const char *a, const char *b) {
  const char *parts[] = {"orderfile: warning: ", a, b, "\n"};
  of_write_stderr(parts, 4);
}

/* Reads one variable of the initial environment without libc's environ (not set yet). */
static bool of_early_getenv(const char *name, char *out, size_t capacity) OF_NOINSTR;
static bool of_early_getenv(const char *name, char *out, size_t capacity) {
  int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return false;
  }
  static char buffer[1u << 18]; /* .bss: touched only as far as the environment reaches */
  size_t used = 0;
  ssize_t got;
  while (used < sizeof buffer - 1 && (got = read(fd, buffer + used, sizeof buffer - 1 - used)) > 0) {
    used += (size_t)got;
  }
  close(fd);
  buffer[used] = '\0';
  size_t name_length = strlen(name);
  for (size_t at = 0; at < used;) {
    const char *entry = buffer + at;
    size_t length = strlen(entry);
    if (length > name_length && memcmp(entry, name, name_length) == 0 && entry[name_length] == '=') {
      size_t value = length - name_length - 1;
      if (value >= capacity) {
        return false;
      }
      memcpy(out, entry + name_length + 1, value + 1);
      return true;
    }
    at += length + 1;
  }
  return false;
}

/* Maps and checks the plan file; fills of_plan. */
static bool of_load_plan(const char *path) OF_NOINSTR;
static bool of_load_plan(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat status;
  if (fd < 0 || fstat(fd, &status) != 0 || status.st_size < 16) {
    if (fd >= 0) {
      close(fd);
    }
    of_say("cannot read the recording plan ", path);
    return false;
  }
  size_t size = (size_t)status.st_size;
  const uint8_t *data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (data == MAP_FAILED || memcmp(data, OF_PLAN_MAGIC, 8) != 0) {
    of_say("not a recording plan: ", path);
    return false;
  }
  uint32_t count;
  memcpy(&count, data + 8, 4);
  size_t at = 16;
  for (uint32_t i = 0; i < count && of_plan_count < OF_ARMED_CAPACITY; i++) {
    uint32_t header[2];
    uint64_t counts[2];
    if (at + 24 > size) {
      break;
    }
    memcpy(header, data + at, 8);
    memcpy(counts, data + at + 8, 16);
    at += 24;
    size_t padded = ((size_t)header[0] + 8u) & ~(size_t)7u; /* at least one NUL */
    if (at + padded + (counts[0] + counts[1]) * 8u > size) {
      of_say("truncated recording plan: ", path);
      return false;
    }
    of_plan_module *module = &of_plan[of_plan_count++];
    module->path = (const char *)data + at;
    module->path_length = header[0];
    module->flags = header[1];
    at += padded;
    module->entries = (const uint64_t *)(data + at);
    module->entry_count = counts[0];
    at += counts[0] * 8u;
    module->stops = (const uint64_t *)(data + at);
    module->stop_count = counts[1];
    at += counts[1] * 8u;
    /* Paths in the plan are NUL-terminated (the padding holds at least one NUL). */
    struct stat file;
    if (stat(module->path, &file) == 0) {
      module->device = file.st_dev;
      module->inode = file.st_ino;
      module->identified = true;
    }
  }
  return true;
}

static bool of_in_stops(const of_armed *module, uint64_t vaddr) OF_NOINSTR;
static bool of_in_stops(const of_armed *module, uint64_t vaddr) {
  for (uint64_t i = 0; i < module->stop_count; i++) {
    if (module->stops[i] == vaddr) {
      return true;
    }
  }
  return false;
}

/* Anonymous memory for a module's tables: no malloc here (libc may not be initialized). */
static void *of_table(size_t size) OF_NOINSTR;
static void *of_table(size_t size) {
  void *memory = mmap(NULL, size == 0 ? 1 : size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return memory == MAP_FAILED ? NULL : memory;
}

/* Makes the module's executable segments writable and plants a trap on every entry
 * that lies inside one. */
static void of_arm(const struct dl_phdr_info *info, const uint64_t *entries, uint64_t count,
                   const uint64_t *stops, uint64_t stop_count, bool data) OF_NOINSTR;
static void of_arm(const struct dl_phdr_info *info, const uint64_t *entries, uint64_t count,
                   const uint64_t *stops, uint64_t stop_count, bool data) {
  uint32_t index = __atomic_load_n(&of_armed_count, __ATOMIC_RELAXED);
  if (index >= OF_ARMED_CAPACITY || count == 0) {
    return;
  }
  long page = sysconf(_SC_PAGESIZE);
  uintptr_t mask = (uintptr_t)(page > 0 ? page : 4096) - 1u;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
    if (segment->p_type != PT_LOAD || (segment->p_flags & PF_X) == 0) {
      continue;
    }
    uintptr_t start = (info->dlpi_addr + segment->p_vaddr) & ~mask;
    uintptr_t end = (info->dlpi_addr + segment->p_vaddr + segment->p_memsz + mask) & ~mask;
    if (mprotect((void *)start, end - start, of_trap_code_protection()) != 0) {
      of_say("cannot make code writable, not recording ", info->dlpi_name[0] ? info->dlpi_name : "the executable");
      return;
    }
  }
  of_armed *module = &of_armed_modules[index];
  module->base = info->dlpi_addr;
  module->entries = entries;
  module->count = count;
  module->stops = stops;
  module->stop_count = stop_count;
  module->data = data;
  module->saved = of_table(count * sizeof(of_code));
  module->taken = of_table(count);
  if (module->saved == NULL || module->taken == NULL) {
    return;
  }
  module->low = info->dlpi_addr + entries[0];
  module->high = info->dlpi_addr + entries[count - 1] + 1u;
  for (uint64_t e = 0; e < count; e++) {
    uint64_t vaddr = entries[e];
    bool inside = false;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum && !inside; i++) {
      const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
      inside = segment->p_type == PT_LOAD && (segment->p_flags & PF_X) != 0 && vaddr >= segment->p_vaddr &&
               vaddr + 4u <= segment->p_vaddr + segment->p_filesz;
    }
    if (inside) {
      of_trap_plant(info->dlpi_addr + vaddr, &module->saved[e]);
    } else {
      module->taken[e] = 1; /* never trapped */
    }
  }
  __atomic_store_n(&of_armed_count, index + 1u, __ATOMIC_RELEASE);
}

static bool of_is_armed(uintptr_t base) OF_NOINSTR;
static bool of_is_armed(uintptr_t base) {
  uint32_t count = __atomic_load_n(&of_armed_count, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < count; i++) {
    if (of_armed_modules[i].base == base) {
      return true;
    }
  }
  return false;
}

static bool of_is_system_path(const char *path) OF_NOINSTR;
static bool of_is_system_path(const char *path) {
  static const char *const prefixes[] = {"/lib/",  "/lib64/",  "/usr/lib/",  "/usr/lib64/", "/usr/local/lib/",
                                         "/bin/",  "/sbin/",   "/usr/bin/",  "/usr/sbin/",  "/usr/libexec/"};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
    if (strncmp(path, prefixes[i], strlen(prefixes[i])) == 0) {
      return true;
    }
  }
  return strstr(path, "/swift/linux/") != NULL || strstr(path, "libOrderfile") != NULL;
}

/* Arms every loaded module the plan names (by device and inode; the main executable by
 * its flag) and, when `unplanned` is set, every other non-system module from its symbols. */
static int of_arm_module(struct dl_phdr_info *info, size_t size, void *context) OF_NOINSTR;
static int of_arm_module(struct dl_phdr_info *info, size_t size, void *context) {
  (void)size;
  bool unplanned = context != NULL;
  if (of_is_armed(info->dlpi_addr)) {
    return 0;
  }
  bool main_executable = info->dlpi_name == NULL || info->dlpi_name[0] == '\0';
  static char executable[OF_PATH_CAPACITY];
  const char *path = info->dlpi_name;
  if (main_executable) {
    ssize_t length = readlink("/proc/self/exe", executable, sizeof executable - 1);
    executable[length > 0 ? length : 0] = '\0';
    path = executable;
  } else if (path[0] != '/') {
    return 0; /* the vdso */
  }
  struct stat file;
  bool known = stat(path, &file) == 0;
  for (uint32_t i = 0; i < of_plan_count; i++) {
    const of_plan_module *planned = &of_plan[i];
    /* By file, not name: the loader's name and the plan's (resolved) one may differ. A
     * program the planned one executes is not in the plan: it is armed from its symbols. */
    bool match = known && planned->identified && planned->device == file.st_dev && planned->inode == file.st_ino;
    if (match) {
      of_arm(info, planned->entries, planned->entry_count, planned->stops, planned->stop_count,
             (planned->flags & OF_PLAN_DATA) != 0);
      return 0;
    }
  }
  if (unplanned && known && !of_is_system_path(path)) {
    uint64_t count = 0;
    const uint64_t *entries = of_read_function_entries(path, &count);
    if (entries != NULL) {
      of_arm(info, entries, count, NULL, 0, false);
    }
  }
  return 0;
}

/* The trap handler's lookup: the armed module and entry index of `address`. */
static bool of_find_entry(uintptr_t address, of_armed **module_out, uint64_t *index_out) OF_NOINSTR;
static bool of_find_entry(uintptr_t address, of_armed **module_out, uint64_t *index_out) {
  uint32_t count = __atomic_load_n(&of_armed_count, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < count; i++) {
    of_armed *module = &of_armed_modules[i];
    if (address < module->low || address >= module->high) {
      continue;
    }
    uint64_t vaddr = address - module->base;
    uint64_t low = 0, high = module->count;
    while (low < high) {
      uint64_t middle = low + (high - low) / 2u;
      if (module->entries[middle] < vaddr) {
        low = middle + 1u;
      } else {
        high = middle;
      }
    }
    if (low < module->count && module->entries[low] == vaddr) {
      *module_out = module;
      *index_out = low;
      return true;
    }
  }
  return false;
}

/* A first call: into the trace, or into the buffer while the runtime has not started.
 * `trapped` is the wall-clock time the trap reached the handler: the call's time, before
 * any of the handler's own work (writing the code back can take a copy-on-write fault). */
static void of_note_first_call(uintptr_t pc, bool stop, uint64_t trapped) OF_NOINSTR;
static void of_note_first_call(uintptr_t pc, bool stop, uint64_t trapped) {
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

/* Nesting of the recorder's own work on this thread (a trap, the runtime's start): only the
 * outermost stretch adds its time to of_clock (see "Clock" at the top of this file). */
static __thread uint32_t of_recorder_depth __attribute__((tls_model("initial-exec")));

static uint64_t of_recorder_enter(void) OF_NOINSTR;
static uint64_t of_recorder_enter(void) {
  of_recorder_depth++;
  return of_wall_ns();
}

/* Ends a stretch that began at `started`; `counted`: it was the recorder's work (a trap
 * that was the program's own is not); `unseen`: its time outside the stretch (a trap's). */
static void of_recorder_leave(uint64_t started, bool counted, uint64_t unseen) OF_NOINSTR;
static void of_recorder_leave(uint64_t started, bool counted, uint64_t unseen) {
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

/* A trap's waits for a core since this thread's previous trap (trap_waits.c) are the
 * recorder's: into the clock before the trap is stamped, as they came before it. */
static void of_charge_waits(uint64_t started) OF_NOINSTR;
static void of_charge_waits(uint64_t started) {
  if (of_recorder_depth == 1 && of_trap_cost_ns != 0) { /* ORDERFILE_TRAP_COST=0: handler only */
    uint64_t charge = of_trap_waits_ns(started, of_trap_cost_ns);
    if (charge != 0) {
      __atomic_add_fetch(&of_clock.recorder_ns, charge, __ATOMIC_RELAXED);
      of_children_add(charge);
    }
  }
}

static void of_take_over(void) OF_NOINSTR;

/* Handles the trap at `address` if it is one of the recorder's; false: not ours. */
static bool of_handle_trap_at(uintptr_t address, ucontext_t *context, uint64_t trapped) OF_NOINSTR;
static bool of_handle_trap_at(uintptr_t address, ucontext_t *context, uint64_t trapped) {
  if (address == of_probe_trap && of_probe_trap != 0) {
    of_probe_entered = trapped;
    of_trap_return(context);
    of_probe_left = of_wall_ns();
    return true;
  }
  if (address == of_loader_hook && of_loader_hook != 0) {
    if (_r_debug.r_state == RT_CONSISTENT) {
      dl_iterate_phdr(of_arm_module, (void *)1);
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
  uint64_t started = of_recorder_enter();
  of_charge_waits(started);
  int saved_errno = errno;
  bool handled = stepped ? of_data_handle_step(info, context) : of_handle_trap_at(address, context, started);
  // A data step's trap costs the kernel as much as a first call's.
  of_recorder_leave(started, handled && address != of_probe_trap, of_trap_cost_ns);
  if (of_recorder_depth == 0) {
    of_trap_waits_end();
  }
  errno = saved_errno;
  return handled;
}

bool of_inprocess_handle_fault(const siginfo_t *info, ucontext_t *context) {
  if (!of_active) {
    return false;
  }
  uint64_t started = of_recorder_enter();
  of_charge_waits(started);
  int saved_errno = errno;
  bool handled = of_data_handle_fault(info, context, started);
  // Raising SIGSEGV and returning from it costs the kernel about what a trap does.
  of_recorder_leave(started, handled, of_trap_cost_ns);
  if (of_recorder_depth == 0) {
    of_trap_waits_end();
  }
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

/* Starts the runtime and hands it the calls buffered before: from the constructor, or
 * from the loader's hook in an image whose first armed module came later (of_deferred). */
static void of_take_over(void) {
  uint64_t started = of_recorder_enter();
  of_thread *self = &of_self;
  uint32_t busy = self->busy;
  self->busy = 1;
  bool recording = of_ensure_started();
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

/*
 * Measures of_trap_cost_ns: raises a trap of its own a few times, on a page of its own
 * holding a trap that returns, and takes the round trip less what the handler measured of
 * it. At a few microseconds a trap, a program with tens of thousands of first calls spends
 * tens of milliseconds in traps outside the handler, which the program without the recorder
 * does not. The median, as another thread or process may take the core in one of them. The
 * measuring is arming: its own time is counted there.
 */
static void of_measure_trap_cost(void) OF_NOINSTR;
static void of_measure_trap_cost(void) {
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
  if (!of_early_getenv("ORDERFILE_TRAP_PLAN", path, sizeof path) || path[0] == '\0' || !of_load_plan(path)) {
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
  char cost[4];
  if (!of_early_getenv("ORDERFILE_TRAP_COST", cost, sizeof cost) || strcmp(cost, "0") != 0) {
    of_measure_trap_cost();
  }
  dl_iterate_phdr(of_arm_module, (void *)1);
  if (_r_debug.r_brk != 0) {
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t mask = (uintptr_t)(page > 0 ? page : 4096) - 1u;
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
