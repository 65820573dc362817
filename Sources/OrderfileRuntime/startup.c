/*
 * startup.c - starting the runtime: reading the configuration, drafting the
 * header, creating, mapping and publishing the trace file, and installing the
 * exit and fork handlers. Runs once per process (again in a fork child, see
 * fork.c), on the thread that made the first hook or public call.
 *
 * The trace file is mapped MAP_SHARED at its full capacity and records are
 * written straight into the mapping, so whatever was recorded is in the page
 * cache the moment it is written and survives a crash, SIGKILL or _exit().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "orderfile.h"
#include "runtime_internal.h"

/* Reads the small file at `path` (under /proc) into `text`, terminated; false when it cannot. */
static bool of_read_small_file(const char *path, char *text, size_t capacity) OF_NOINSTR;
static bool of_read_small_file(const char *path, char *text, size_t capacity) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return false;
  }
  ssize_t length = read(fd, text, capacity - 1);
  close(fd);
  if (length <= 0) {
    return false;
  }
  text[length] = '\0';
  return true;
}

/* The number at `*cursor`, past it. */
static uint64_t of_read_number(const char **cursor) OF_NOINSTR;
static uint64_t of_read_number(const char **cursor) {
  uint64_t value = 0;
  for (; **cursor >= '0' && **cursor <= '9'; (*cursor)++) {
    value = value * 10u + (uint64_t)(**cursor - '0');
  }
  return value;
}

bool of_read_schedstat(const char *path, uint64_t *run_ns, uint64_t *waited_ns, uint64_t *slices) {
  char text[96];
  if (!of_read_small_file(path, text, sizeof text) || text[0] < '0' || text[0] > '9') {
    return false;
  }
  const char *cursor = text;
  *run_ns = of_read_number(&cursor);
  if (cursor[0] != ' ' || cursor[1] < '0' || cursor[1] > '9') {
    return false;
  }
  cursor++;
  *waited_ns = of_read_number(&cursor);
  *slices = 0;
  if (cursor[0] == ' ') {
    cursor++;
    *slices = of_read_number(&cursor);
  }
  return true;
}

/*
 * How long the process's main thread has run or waited for a core since it was
 * created: its CPU time (exact, on the main thread) and its run delay (the
 * second field of its schedstat, current while it runs). Without sleeps this
 * is the process's age; a sleep makes it shorter. False when not known.
 */
static bool of_scheduled_age(uint64_t *age_ns) OF_NOINSTR;
static bool of_scheduled_age(uint64_t *age_ns) {
  bool main_thread = (pid_t)syscall(SYS_gettid) == getpid();
  uint64_t run = 0, waited = 0, slices = 0;
  if (!of_read_schedstat(main_thread ? "/proc/thread-self/schedstat" : "/proc/self/schedstat", &run, &waited,
                         &slices)) {
    return false;
  }
  /* On the main thread its CPU time to the nanosecond: schedstat's first field is brought up
   * to date at the scheduler's ticks only. */
  struct timespec cpu;
  if (main_thread && clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0) {
    run = (uint64_t)cpu.tv_sec * 1000000000ull + (uint64_t)cpu.tv_nsec;
  }
  *age_ns = run + waited;
  return true;
}

/*
 * Process creation time on CLOCK_MONOTONIC, from field 22 of /proc/self/stat
 * (starttime, clock ticks after boot). Boot-relative time is CLOCK_BOOTTIME,
 * which runs on through suspend where CLOCK_MONOTONIC stops; their difference
 * now converts one into the other. The command name (field 2) may contain
 * spaces and parentheses, so fields are counted from the last ')'.
 *
 * A tick is 10 ms: a child the program starts would have its loader phase
 * off by up to that. Within the tick the start is placed at now less the
 * process's scheduled age (of_scheduled_age): children started by posix_spawn
 * came out 0.01-0.02 ms after their parent's clock just before the call, one
 * by fork and exec 0.06-0.07 ms after. A process that slept since it was
 * created comes out later by the sleep, never outside the tick; the resolution
 * stays the tick, so an exec'd image places its start in the same tick as the
 * image before it (of_is_own_image).
 */
static bool of_process_start(uint64_t *start_ns, uint64_t *resolution_ns) OF_NOINSTR;
static bool of_process_start(uint64_t *start_ns, uint64_t *resolution_ns) {
  long ticks_per_second = sysconf(_SC_CLK_TCK);
  if (ticks_per_second <= 0) {
    return false;
  }
  char text[1024];
  if (!of_read_small_file("/proc/self/stat", text, sizeof text)) {
    return false;
  }
  const char *cursor = strrchr(text, ')');
  if (cursor == NULL) {
    return false;
  }
  cursor++;
  /* Fields after the command name start at 3 (state); starttime is 22. */
  for (int field = 3; field < 22; field++) {
    while (*cursor == ' ') {
      cursor++;
    }
    while (*cursor != ' ' && *cursor != '\0') {
      cursor++;
    }
  }
  while (*cursor == ' ') {
    cursor++;
  }
  if (*cursor < '0' || *cursor > '9') {
    return false;
  }
  uint64_t ticks = 0;
  while (*cursor >= '0' && *cursor <= '9') {
    ticks = ticks * 10u + (uint64_t)(*cursor - '0');
    cursor++;
  }
  uint64_t hz = (uint64_t)ticks_per_second;
  uint64_t since_boot = ticks / hz * 1000000000ull + ticks % hz * 1000000000ull / hz;
  struct timespec boot, monotonic;
  clock_gettime(CLOCK_BOOTTIME, &boot);
  clock_gettime(CLOCK_MONOTONIC, &monotonic);
  uint64_t boot_ns = (uint64_t)boot.tv_sec * 1000000000ull + (uint64_t)boot.tv_nsec;
  uint64_t monotonic_ns = (uint64_t)monotonic.tv_sec * 1000000000ull + (uint64_t)monotonic.tv_nsec;
  uint64_t age = boot_ns > since_boot ? boot_ns - since_boot : 0;
  uint64_t tick_start = monotonic_ns > age ? monotonic_ns - age : 0;
  uint64_t tick = 1000000000ull / hz;
  *start_ns = tick_start;
  *resolution_ns = tick;
  uint64_t scheduled = 0;
  if (of_scheduled_age(&scheduled) && scheduled < monotonic_ns) {
    uint64_t placed = monotonic_ns - scheduled;
    *start_ns = placed < tick_start ? tick_start : placed >= tick_start + tick ? tick_start + tick - 1u : placed;
  }
  return true;
}

/* Whether a validated pattern has %e (a %% is a percent sign, not an escape's start). */
static bool of_pattern_names_executable(const char *pattern) OF_NOINSTR;
static bool of_pattern_names_executable(const char *pattern) {
  for (const char *cursor = pattern; *cursor != '\0'; cursor++) {
    if (*cursor == '%') {
      cursor++;
      if (*cursor == 'e') {
        return true;
      }
      if (*cursor == '\0') {
        return false;
      }
    }
  }
  return false;
}

/* The executable's file name, for %e: from /proc/self/exe, else the name it was run as. */
static void of_read_executable_name(char *out, size_t capacity) OF_NOINSTR;
static void of_read_executable_name(char *out, size_t capacity) {
  char path[OF_PATH_CAPACITY];
  ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  const char *name = program_invocation_short_name;
  if (length > 0) {
    path[length] = '\0';
    const char *slash = strrchr(path, '/');
    name = slash != NULL ? slash + 1 : path;
  }
  if (name == NULL || name[0] == '\0') {
    name = "unknown";
  }
  size_t used = strnlen(name, capacity - 1);
  memcpy(out, name, used);
  out[used] = '\0';
}

/*
 * Drafts this process's header in `draft`, which is in no file yet: the
 * layout that follows from the configured capacities (oft_init_header), the
 * pid, the times and the time limit. Returns the trace file's size at full
 * capacity.
 */
static uint64_t of_draft_header(oft_header *draft, const of_config *config, uint64_t now_ns) OF_NOINSTR;
static uint64_t of_draft_header(oft_header *draft, const of_config *config, uint64_t now_ns) {
  memset(draft, 0, sizeof *draft);
  /* header | module table | marks | thread buffers (full mode only) | records */
  uint64_t size = oft_init_header(draft, OF_MODULE_CAPACITY, config->capacity, config->mark_capacity,
                                  config->full_mode ? config->event_threads : 0,
                                  config->full_mode ? config->event_capacity : 0);
  draft->pid = (uint32_t)getpid();
  draft->trace_start_ns = now_ns;
  /* The recorder's spawn time is exact, and saves reading /proc. It is ours
   * only if that recorder is our parent (see of_read_spawn), and it cannot be
   * later than now. An exec keeps the parent, and the start: both images take it. */
  if (config->spawn_ns != 0 && config->spawn_ns <= now_ns && (uint32_t)getppid() == config->spawner_pid) {
    draft->process_start_ns = config->spawn_ns;
    draft->process_start_resolution_ns = OF_SPAWN_RESOLUTION_NS;
    draft->process_start_source = OFT_START_SPAWN;
  } else if (of_process_start(&draft->process_start_ns, &draft->process_start_resolution_ns)) {
    draft->process_start_source = OFT_START_PROC_STAT;
  } else {
    draft->process_start_ns = draft->trace_start_ns;
    draft->process_start_resolution_ns = 0;
    draft->process_start_source = OFT_START_TRACE;
  }
  draft->time_limit_ns = config->time_limit_ms * 1000000ull;
  if (config->emulated) {
    draft->flags |= OFT_FLAG_EMULATED;
  }
  if (of_clock.enabled) {
    draft->flags |= OFT_FLAG_PROGRAM_CLOCK;
    draft->arming_ns = of_clock.arming_ns;
    draft->children_ns = __atomic_load_n(&of_clock.children_ns, __ATOMIC_RELAXED);
    draft->recorder_ns = __atomic_load_n(&of_clock.recorder_ns, __ATOMIC_RELAXED);
  }
  return size;
}

/*
 * Creates the file of the trace of `draft`'s process, `size` bytes, for the
 * path ORDERFILE_OUTPUT gives (of_open_trace: created beside it, renamed over
 * it once the header is in, by of_start). A path it must not take - the
 * trace of a live runtime, or a file that is not a trace - is left alone and
 * "<path>.<pid>" taken instead, with a warning. Returns false after one
 * warning line.
 */
static bool of_create_trace(const of_config *config, const oft_header *draft, uint64_t size,
                            of_new_trace *trace) OF_NOINSTR;
static bool of_create_trace(const of_config *config, const oft_header *draft, uint64_t size,
                            of_new_trace *trace) {
  /* Start-up is on the launch's critical path: a pattern without %e (the
   * recorder's) needs no /proc lookup. The name stays empty, which only %e reads. */
  if (of_pattern_names_executable(config->pattern)) {
    of_read_executable_name(of_rt.executable_name, sizeof of_rt.executable_name);
  }
  memcpy(of_rt.pattern, config->pattern, sizeof of_rt.pattern);
  char path[OF_PATH_CAPACITY], forced[OF_PATH_CAPACITY];
  if (!of_expand_pattern(path, sizeof path, of_rt.pattern, draft->pid, of_rt.executable_name, false) ||
      !of_expand_pattern(forced, sizeof forced, of_rt.pattern, draft->pid, of_rt.executable_name, true)) {
    of_warn("orderfile: warning: trace path from '%s' is too long; recording disabled",
            of_rt.pattern);
    return false;
  }
  of_identity self = {draft->pid, draft->process_start_ns, draft->process_start_resolution_ns, true};
  int error = 0;
  of_claim claim = of_open_trace(path, size, &self, trace, &error);
  if (claim == OF_CLAIM_FREE) {
    return true;
  }
  if (claim == OF_CLAIM_ERROR) {
    of_warn("orderfile: warning: cannot create trace file '%s': %s; recording disabled",
            trace->path, error == EINVAL ? "not a regular file" : strerror(error));
    return false;
  }
  char taken[OF_PATH_CAPACITY], fallback[OF_PATH_CAPACITY];
  memcpy(taken, trace->path, sizeof taken);
  char pid_text[21];
  of_format_u64(pid_text, draft->pid);
  /* With %p in the pattern, a live trace at this process's own path is a second
   * copy of the runtime in it (or a process with the same pid elsewhere). */
  if (claim == OF_CLAIM_BUSY && strcmp(path, forced) == 0) {
    of_warn("orderfile: warning: trace file '%s' is in use by a second copy of the runtime in "
            "this process (or a process with the same pid); this copy records nothing",
            taken);
    return false;
  }
  const char *why = claim == OF_CLAIM_BUSY ? "is in use by another process"
                                           : "exists and is not an orderfile trace";
  if (!of_join(fallback, taken, ".", pid_text)) {
    of_warn("orderfile: warning: trace file '%s' %s, and '%s.%s' is too long; recording disabled",
            taken, why, taken, pid_text);
    return false;
  }
  claim = of_open_trace(fallback, size, &self, trace, &error);
  if (claim != OF_CLAIM_FREE) {
    of_warn("orderfile: warning: trace file '%s' %s and '%s' cannot be created: %s; recording disabled",
            taken, why, trace->path,
            claim == OF_CLAIM_BUSY      ? "in use as well"
            : claim == OF_CLAIM_FOREIGN ? "not an orderfile trace either"
                                        : strerror(error));
    return false;
  }
  of_warn("orderfile: warning: trace file '%s' %s; leaving it alone and writing '%s'", taken, why,
          trace->path);
  return true;
}

/*
 * Maps the new trace's file, `size` bytes laid out as `draft` says, and gives
 * disk blocks to the header, the first module entry, the marks and the first
 * step of records, so the first records need no lock. On failure: one warning
 * line, the file is unmapped and abandoned, and the result is false.
 */
static bool of_map_trace(of_new_trace *trace, uint64_t size, const oft_header *draft) OF_NOINSTR;
static bool of_map_trace(of_new_trace *trace, uint64_t size, const oft_header *draft) {
  int fd = trace->fd;
  memcpy(of_rt.path, trace->path, sizeof of_rt.path);
  void *mapping = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (mapping == MAP_FAILED) {
    of_warn("orderfile: warning: cannot map trace file '%s': %s; recording disabled", of_rt.path,
            strerror(errno));
    of_abandon_trace(trace);
    return false;
  }
  /* No read-around on faults: the kernel would otherwise fill the page cache
   * with up to read_ahead_kb (often megabytes) of the file's zeroes at every
   * first touch, and free them again at truncation, milliseconds per process. */
  madvise(mapping, size, MADV_RANDOM);
  of_rt.fd = fd;
  of_rt.base = mapping;
  of_rt.header = mapping;
  of_rt.mapping_size = size;
  of_rt.may_preallocate = true;
  long page_size = sysconf(_SC_PAGESIZE);
  of_rt.page_size = page_size > 0 ? (uint64_t)page_size : 4096u;
  /* The first step ends on a page boundary, as every later one does (of_back_record). */
  uint64_t first_end = of_page_ceil(draft->records_offset + OF_BACKING_STEP);
  if (first_end > size) {
    first_end = size;
  }
  /* The first module entry with the header: every trace that records anything needs
   * it, and on a nearly full disk the records' first step could otherwise take its
   * blocks. The two are adjacent (module_table_offset is the header's size), so one
   * call backs both. */
  if (!of_allocate(0, draft->module_table_offset + OFT_MODULE_SIZE) || !of_back_shared_pages(draft, size) ||
      !of_allocate(draft->marks_offset, (uint64_t)draft->mark_capacity * OFT_MARK_SIZE)) {
    of_warn("orderfile: warning: cannot allocate trace file '%s': %s; recording disabled",
            of_rt.path, strerror(errno));
    munmap(mapping, size);
    of_abandon_trace(trace);
    return false;
  }
  /* A nearly full disk may hold only part of the step: records go there until it is
   * used up, and then the next step fails with a warning (of_back_record). */
  of_rt.backed_bytes =
      draft->records_offset + of_allocate_some(draft->records_offset, first_end - draft->records_offset);
  return true;
}

/*
 * Stores the drafted header into the mapping and seals it, and keeps what
 * the writers need from it and from the configuration in of_rt.
 */
static void of_write_header(const oft_header *draft, const of_config *config) OF_NOINSTR;
static void of_write_header(const oft_header *draft, const of_config *config) {
  memcpy(of_rt.header, draft, sizeof *draft);
  oft_seal_header(of_rt.header);
  of_rt.record_capacity = draft->record_capacity;
  of_rt.mark_capacity = draft->mark_capacity;
  of_rt.event_capacity = draft->event_capacity;
  of_rt.event_thread_capacity = draft->event_thread_capacity;
  of_rt.verbose = config->verbose;
  if (draft->time_limit_ns != 0) {
    of_rt.deadline_ns = draft->process_start_ns + draft->time_limit_ns;
  }
}

/*
 * Finalizes the trace at exit, gives fork children traces of their own, and
 * in full mode starts recording events.
 */
static void of_install_handlers(const of_config *config) OF_NOINSTR;
static void of_install_handlers(const of_config *config) {
  atexit(of_at_exit);
  pthread_atfork(of_fork_prepare, of_fork_parent, of_fork_child);
  if (config->full_mode) {
    /* Seen by this thread's own first event right after; other threads see it
     * after their acquire of init_state, or a moment later (they only miss
     * events of a launch that had not started for them). */
    __atomic_store_n(&of_events_on, 1u, __ATOMIC_RELAXED);
  }
}

/*
 * Creates and maps the trace file and fills its header. Runs once, on the
 * thread that made the first hook call, while every other thread that
 * reaches the slow path waits. Returns false (after one warning line) when
 * recording is off.
 */
static bool of_start(void) OF_NOINSTR;
static bool of_start(void) {
  uint64_t started_ns = of_now_ns();
  static of_config config; /* too large for the stack of an arbitrary thread */
  of_read_config(&config);
  if (config.disabled) {
    return false;
  }
  oft_header draft;
  uint64_t size = of_draft_header(&draft, &config, started_ns);
  static of_new_trace trace; /* two paths: kept off the stack too */
  if (!of_create_trace(&config, &draft, size, &trace) || !of_map_trace(&trace, size, &draft)) {
    return false;
  }
  of_write_header(&draft, &config);
  /* Only now, with its header in, does the trace appear at its path. */
  int error = 0;
  if (!of_publish_trace(&trace, &error)) {
    of_warn("orderfile: warning: cannot create trace file '%s': %s; recording disabled", of_rt.path,
            strerror(error));
    munmap(of_rt.base, of_rt.mapping_size);
    of_rt.base = NULL;
    of_rt.header = NULL;
    return false;
  }
  of_install_handlers(&config);
  /* The report shows [trace_start_ns, startup_end_ns) as the runtime's overhead, not the program's. */
  __atomic_store_n(&of_rt.header->startup_end_ns, of_now_ns(), __ATOMIC_RELAXED);
  return true;
}

/*
 * Starts the runtime on the first call and returns whether it is recording.
 *
 * Ordering: one thread wins the CAS from NONE to RUNNING and initializes;
 * the others spin (yielding) until it publishes RECORDING or DISABLED with
 * release. Their acquire load then sees every field initialization wrote.
 * The caller must hold its thread's busy flag, so initialization's own libc
 * calls can never re-enter here.
 */
bool of_ensure_started(void) {
  uint32_t state = __atomic_load_n(&of_rt.init_state, __ATOMIC_ACQUIRE);
  if (__builtin_expect(state >= OF_INIT_RECORDING, 1)) {
    return state == OF_INIT_RECORDING;
  }
  if (state == OF_INIT_NONE) {
    /* Every thread that gets here stores the same pid; see the wait below. */
    __atomic_store_n(&of_rt.init_pid, (uint32_t)getpid(), __ATOMIC_SEQ_CST);
    uint32_t expected = OF_INIT_NONE;
    if (__atomic_compare_exchange_n(&of_rt.init_state, &expected, OF_INIT_RUNNING, false,
                                    __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
      if (of_join_instance() != NULL) {
        __atomic_fetch_or(&of_rt.gate, OF_GATE_STOPPED, __ATOMIC_SEQ_CST);
        __atomic_store_n(&of_rt.init_state, OF_INIT_DELEGATED, __ATOMIC_RELEASE);
        return false;
      }
      bool recording = of_start();
      if (!recording) {
        __atomic_fetch_or(&of_rt.gate, OF_GATE_STOPPED, __ATOMIC_SEQ_CST);
      }
      __atomic_store_n(&of_rt.init_state, recording ? OF_INIT_RECORDING : OF_INIT_DISABLED,
                       __ATOMIC_RELEASE);
      return recording;
    }
  }
  while ((state = __atomic_load_n(&of_rt.init_state, __ATOMIC_ACQUIRE)) == OF_INIT_RUNNING) {
    /* A fork child of a process that was initializing: the initializing thread
     * did not come along, so the child records nothing (and never touches the
     * parent's file, which it may have inherited half set up). */
    if (__atomic_load_n(&of_rt.init_pid, __ATOMIC_SEQ_CST) != (uint32_t)getpid()) {
      __atomic_fetch_or(&of_rt.gate, OF_GATE_STOPPED, __ATOMIC_SEQ_CST);
      __atomic_store_n(&of_rt.init_state, OF_INIT_DISABLED, __ATOMIC_RELEASE);
      return false;
    }
    sched_yield();
  }
  return state == OF_INIT_RECORDING;
}
