/*
 * runtime.c - starting the runtime, writing records, the launch window, and
 * finishing the trace.
 *
 * The trace file is mapped MAP_SHARED at its full capacity and records are
 * written straight into the mapping, so whatever was recorded is in the page
 * cache the moment it is written and survives a crash, SIGKILL or _exit().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "orderfile.h"
#include "runtime_internal.h"

of_runtime of_rt = {.lock = PTHREAD_MUTEX_INITIALIZER};
__thread of_thread of_self __attribute__((tls_model(OF_TLS_MODEL)));

/* Disk space is allocated ahead of the records in steps of this many bytes. */
#define OF_BACKING_STEP (256u * 1024u)
/* How long exit() and fork() wait for threads that are in the middle of a write. */
#define OF_WRITER_WAIT_NS 1000000000ull

static void of_finish(void) OF_NOINSTR;
static void of_at_exit(void) OF_NOINSTR;

uint64_t of_now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

uint32_t of_thread_id(void) {
  of_thread *self = &of_self;
  if (self->tid == 0) {
    self->tid = (uint32_t)syscall(SYS_gettid);
  }
  return self->tid;
}

static void of_warn(const char *format, ...) __attribute__((format(printf, 1, 2))) OF_NOINSTR;
static void of_warn(const char *format, ...) {
  char line[512];
  va_list arguments;
  va_start(arguments, format);
  int length = vsnprintf(line, sizeof line, format, arguments);
  va_end(arguments);
  if (length < 0) {
    return;
  }
  if ((size_t)length >= sizeof line - 1) {
    length = (int)sizeof line - 2;
  }
  line[length] = '\n';
  ssize_t ignored = write(STDERR_FILENO, line, (size_t)length + 1);
  (void)ignored;
}

/*
 * Process creation time on CLOCK_MONOTONIC, from field 22 of /proc/self/stat
 * (starttime, clock ticks after boot). Boot-relative time is CLOCK_BOOTTIME,
 * which runs on through suspend where CLOCK_MONOTONIC stops; their difference
 * now converts one into the other. The command name (field 2) may contain
 * spaces and parentheses, so fields are counted from the last ')'.
 */
static bool of_process_start(uint64_t *start_ns, uint64_t *resolution_ns) OF_NOINSTR;
static bool of_process_start(uint64_t *start_ns, uint64_t *resolution_ns) {
  long ticks_per_second = sysconf(_SC_CLK_TCK);
  if (ticks_per_second <= 0) {
    return false;
  }
  int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return false;
  }
  char text[1024];
  ssize_t length = read(fd, text, sizeof text - 1);
  close(fd);
  if (length <= 0) {
    return false;
  }
  text[length] = '\0';
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
  *start_ns = monotonic_ns > age ? monotonic_ns - age : 0;
  *resolution_ns = 1000000000ull / hz;
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

/* Zeroes to write where fallocate cannot reserve blocks. Never written: it stays in .bss. */
static uint8_t of_zeroes[64u * 1024u];

uint64_t of_page_floor(uint64_t offset) {
  return offset - offset % of_rt.page_size;
}

uint64_t of_page_ceil(uint64_t offset) {
  uint64_t floor = of_page_floor(offset);
  return floor == offset ? offset : floor + of_rt.page_size;
}

/* Writes zeroes over [offset, offset + length); returns how many bytes it wrote. */
static uint64_t of_write_zeroes(uint64_t offset, uint64_t length) OF_NOINSTR;
static uint64_t of_write_zeroes(uint64_t offset, uint64_t length) {
  uint64_t done = 0;
  while (done < length) {
    uint64_t chunk = length - done < sizeof of_zeroes ? length - done : sizeof of_zeroes;
    ssize_t written = pwrite(of_rt.fd, of_zeroes, (size_t)chunk, (off_t)(offset + done));
    if (written < 0 && errno == EINTR) {
      continue;
    }
    if (written <= 0) {
      if (written == 0) {
        errno = ENOSPC;
      }
      break;
    }
    done += (uint64_t)written;
  }
  return done;
}

/*
 * Gives the file disk blocks for [offset, offset + length) before anything is
 * stored there, so a store into the mapping never needs a block the file
 * system might not have: the fault would raise SIGBUS in the host.
 *
 * A store needs every block of its page, not only its own: the kernel
 * allocates the whole page's blocks when the page is first written through
 * the mapping. With fallocate(FALLOC_FL_KEEP_SIZE) the range is widened to
 * whole pages, which is harmless, since fallocate never changes data. Where
 * the file system has no fallocate (EOPNOTSUPP: ext2, for one) the runtime
 * writes zeroes over exactly the range instead - no caller has stored
 * anything there yet - and the pages a range shares with another were backed
 * at start (of_back_shared_pages).
 *
 * Returns how many bytes from `offset` are backed: `length`, or fewer, a whole
 * number of pages, with errno set (ENOSPC: the file system is full).
 * Async-signal-safe.
 */
uint64_t of_allocate_some(uint64_t offset, uint64_t length) {
  if (of_rt.may_preallocate) {
    uint64_t start = of_page_floor(offset);
    uint64_t end = of_page_ceil(offset + length);
    int result;
    do {
      result = fallocate(of_rt.fd, FALLOC_FL_KEEP_SIZE, (off_t)start, (off_t)(end - start));
    } while (result != 0 && errno == EINTR);
    if (result == 0) {
      return length;
    }
    if (errno != EOPNOTSUPP && errno != ENOSYS) {
      return 0;
    }
    of_rt.may_preallocate = false;
  }
  uint64_t written = of_write_zeroes(offset, length);
  if (written == length) {
    return length;
  }
  /* The page the write stopped in is backed only in part. */
  uint64_t end = of_page_floor(offset + written);
  return end > offset ? end - offset : 0;
}

bool of_allocate(uint64_t offset, uint64_t length) {
  return of_allocate_some(offset, length) == length;
}

/*
 * Where the file system has no fallocate, backs every page that holds the end
 * of one structure and the start of another (a mark region that ends
 * mid-page, two thread buffers, the first records): a store into either
 * would need the other's blocks too, and each structure backs only its own
 * bytes. Runs before anything is stored in the file, so the zeroes overwrite
 * nothing. Returns false with errno set when the file system is full.
 * Async-signal-safe.
 */
bool of_back_shared_pages(const oft_header *layout, uint64_t file_size) {
  if (of_rt.may_preallocate) {
    return true;
  }
  uint64_t buffer_size = oft_thread_buffer_size(layout->event_capacity);
  uint64_t last = UINT64_MAX;
  /* Every place one structure ends and the next begins, in file order. */
  uint64_t count = 1u + layout->module_capacity + 1u + layout->event_thread_capacity + 1u;
  for (uint64_t i = 0; i < count; i++) {
    uint64_t boundary;
    if (i <= layout->module_capacity) {
      boundary = layout->module_table_offset + i * OFT_MODULE_SIZE; /* header, entries, marks */
    } else if (i == layout->module_capacity + 1u) {
      boundary = layout->events_offset;
    } else if (i < count - 1u) {
      boundary = layout->events_offset + (i - layout->module_capacity - 1u) * buffer_size;
    } else {
      boundary = layout->records_offset;
    }
    uint64_t page = of_page_floor(boundary);
    if (page == boundary || page == last || page >= file_size) {
      continue;
    }
    last = page;
    uint64_t length = file_size - page < of_rt.page_size ? file_size - page : of_rt.page_size;
    if (of_write_zeroes(page, length) != length) {
      return false;
    }
  }
  return true;
}

/*
 * Allocates disk space for the record at `index` and those before it, ahead
 * in OF_BACKING_STEP steps that end on page boundaries, taking the lock only
 * when a step is crossed. When the file system fills up, what could be backed
 * still takes records; after that it warns once and returns false from then
 * on.
 */
static bool of_back_record(uint64_t index) OF_NOINSTR;
static bool of_back_record(uint64_t index) {
  uint64_t end = of_rt.header->records_offset + (index + 1u) * OFT_RECORD_SIZE;
  if (__builtin_expect(end <= __atomic_load_n(&of_rt.backed_bytes, __ATOMIC_ACQUIRE), 1)) {
    return true;
  }
  pthread_mutex_lock(&of_rt.lock);
  int error = 0;
  uint64_t from = __atomic_load_n(&of_rt.backed_bytes, __ATOMIC_RELAXED);
  if (end > from && !__atomic_load_n(&of_rt.storage_full, __ATOMIC_RELAXED)) {
    uint64_t records = of_rt.header->records_offset;
    uint64_t to = of_page_ceil((end - records + OF_BACKING_STEP - 1) / OF_BACKING_STEP * OF_BACKING_STEP + records);
    if (to > of_rt.mapping_size) {
      to = of_rt.mapping_size;
    }
    uint64_t backed = of_allocate_some(from, to - from);
    if (backed != to - from) {
      error = errno;
    }
    __atomic_store_n(&of_rt.backed_bytes, from + backed, __ATOMIC_RELEASE);
  }
  bool fits = end <= __atomic_load_n(&of_rt.backed_bytes, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&of_rt.lock);
  if (error != 0) {
    of_stop_for_storage(error);
  }
  return fits;
}

/*
 * The file system could not give the trace more blocks: stops recording new
 * first calls and modules (counted as dropped from now on) and says so, once.
 */
void of_stop_for_storage(int error) {
  if (__atomic_exchange_n(&of_rt.storage_full, 1u, __ATOMIC_ACQ_REL) == 0) {
    const char *parts[] = {"orderfile: warning: cannot extend trace file '", of_rt.path, "': ",
                           strerror(error), "; recording stopped\n"};
    of_write_stderr(parts, 5);
  }
}

static void of_count_dropped(void) OF_NOINSTR;
static void of_count_dropped(void) {
  __atomic_fetch_add(&of_rt.header->dropped_count, 1u, __ATOMIC_RELAXED);
}

void of_note_table_full(void) {
  if (of_writer_enter()) {
    of_count_dropped();
    of_writer_leave();
  }
}

/*
 * Closes the launch window, once, because of `reason` - or because of the
 * time limit if its deadline has passed by `now_ns`, since that came first.
 * Stops full-mode events, stores the resident text size of every module
 * (of_sample_text_rss), the reason, the end time and the fault counts, then sets the flags
 * with release so a reader of the flags sees the rest. A window closed by the
 * time limit ends at the deadline; its fault counts are sampled when the
 * runtime notices (the first new function after the deadline, or exit).
 * The caller is a writer (inside of_writer_enter) or has drained them.
 */
void of_close_window(uint32_t reason, uint64_t now_ns) {
  uint32_t expected = OF_WINDOW_STATE_OPEN;
  if (!__atomic_compare_exchange_n(&of_rt.window_state, &expected, OF_WINDOW_STATE_CLOSING, false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
    return;
  }
  uint64_t end_ns = now_ns;
  if (of_rt.deadline_ns != 0 && now_ns >= of_rt.deadline_ns) {
    reason = OFT_WINDOW_TIME_LIMIT;
    end_ns = of_rt.deadline_ns;
  }
  __atomic_store_n(&of_events_on, 0u, __ATOMIC_RELAXED);
  oft_header *header = of_rt.header;
  struct rusage usage;
  uint32_t flags = OFT_FLAG_WINDOW_CLOSED;
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    header->minor_faults = (uint64_t)usage.ru_minflt;
    header->major_faults = (uint64_t)usage.ru_majflt;
    flags |= OFT_FLAG_METRICS;
  }
  of_sample_text_rss(); /* after getrusage: reading smaps touches its own buffer */
  header->window_end_ns = end_ns;
  header->window_reason = reason;
  __atomic_fetch_or(&header->flags, flags, __ATOMIC_RELEASE);
  __atomic_store_n(&of_rt.window_state, OF_WINDOW_STATE_CLOSED, __ATOMIC_RELEASE);
}

/*
 * Records the first call of `pc`, whose slot in the seen set this thread has
 * just claimed.
 *
 * Ordering: the slot is reserved with an atomic increment of the header's
 * record_count, so record order is reservation order - global first-call
 * order, give or take calls that race on different threads. The record's
 * fields are stored first and its check byte last, with release: a check byte
 * of zero means reserved but never completed. A reservation at or past the
 * capacity is counted in dropped_count (record_count then exceeds the
 * capacity; readers clamp).
 *
 * Implementation: the clock is read here, so this is also where the time
 * limit is checked. The thread id is cached per thread.
 */
void of_record_first_call(uintptr_t pc) {
  if (!of_writer_enter()) {
    return;
  }
  oft_header *header = of_rt.header;
  uint64_t now = of_now_ns();
  if (of_rt.deadline_ns != 0 && now >= of_rt.deadline_ns &&
      __atomic_load_n(&of_rt.window_state, __ATOMIC_RELAXED) == OF_WINDOW_STATE_OPEN) {
    of_close_window(OFT_WINDOW_TIME_LIMIT, now);
  }
  uint8_t kind = __atomic_load_n(&of_rt.window_state, __ATOMIC_ACQUIRE) == OF_WINDOW_STATE_OPEN
                     ? OFT_KIND_LAUNCH
                     : OFT_KIND_POST_WINDOW;
  uint16_t module;
  uintptr_t load_base;
  if (__atomic_load_n(&of_rt.storage_full, __ATOMIC_RELAXED) || !of_module_for(pc, &module, &load_base)) {
    of_count_dropped();
    of_writer_leave();
    return;
  }
  uint32_t tid = of_thread_id(); /* a system call the first time: before the slot is taken */
  uint64_t index = __atomic_fetch_add(&header->record_count, 1u, __ATOMIC_RELAXED);
  if (index >= of_rt.record_capacity || !of_back_record(index)) {
    of_count_dropped();
    of_writer_leave();
    return;
  }
  oft_record record = {
      .address = (uint64_t)(pc - load_base),
      .time_ns = now,
      .tid = tid,
      .module = module,
      .kind = kind,
      .check = 0,
  };
  uint8_t check = oft_record_check(&record);
  oft_record *slot = (oft_record *)(of_rt.base + header->records_offset) + index;
  memcpy(slot, &record, offsetof(oft_record, check));
  __atomic_store_n(&slot->check, check, __ATOMIC_RELEASE);
  of_writer_leave();
}

/*
 * Finalizes the trace: stops new writes, waits (bounded) for writers in
 * flight, closes the window if it is still open, marks the trace closed and
 * truncates the file after its last record. If a writer does not drain in
 * time the trace is left full size and unclosed rather than truncated under
 * that writer. Idempotent.
 */
static void of_finish(void) {
  if (__atomic_exchange_n(&of_rt.finished, 1u, __ATOMIC_ACQ_REL) != 0) {
    return;
  }
  if (__atomic_load_n(&of_rt.init_state, __ATOMIC_ACQUIRE) != OF_INIT_RECORDING) {
    return;
  }
  __atomic_fetch_or(&of_rt.gate, OF_GATE_STOPPED, __ATOMIC_SEQ_CST);
  bool drained = of_wait_for_writers();
  oft_header *header = of_rt.header;
  uint64_t now = of_now_ns();
  uint64_t reserved = __atomic_load_n(&header->record_count, __ATOMIC_ACQUIRE);
  uint64_t records = reserved < of_rt.record_capacity ? reserved : of_rt.record_capacity;
  uint64_t dropped = __atomic_load_n(&header->dropped_count, __ATOMIC_RELAXED);
  if (drained) {
    of_close_window(OFT_WINDOW_EXIT, now);
    header->end_ns = now;
    __atomic_fetch_or(&header->flags, OFT_FLAG_CLOSED, __ATOMIC_RELEASE);
    int result;
    do {
      result = ftruncate(of_rt.fd, (off_t)(header->records_offset + records * OFT_RECORD_SIZE));
    } while (result != 0 && errno == EINTR);
  } else {
    of_warn("orderfile: warning: a thread was still writing at exit; trace '%s' left unclosed",
            of_rt.path);
  }
  if (of_rt.verbose) {
    /* Count only completed records: a slot can be reserved and never written. */
    const oft_record *slots = (const oft_record *)(of_rt.base + header->records_offset);
    uint64_t committed = 0;
    for (uint64_t i = 0; i < records; i++) {
      committed += __atomic_load_n(&slots[i].check, __ATOMIC_ACQUIRE) != 0;
    }
    of_warn("orderfile: %llu first calls recorded, %llu dropped, trace '%s'",
            (unsigned long long)committed, (unsigned long long)dropped, of_rt.path);
  }
}

/*
 * Unlike a public call, exit finishes the trace even on a thread that is
 * inside the runtime (exit() from a signal handler that interrupted it):
 * of_finish then sees this thread's unfinished write and leaves the trace
 * unclosed rather than wait for it.
 */
static void of_at_exit(void) {
  of_thread *self = &of_self;
  uint32_t busy = self->busy;
  self->busy = 1;
  of_finish();
  self->busy = busy;
}

/*
 * The frame of every public call of orderfile.h. On a thread that is not
 * already inside the runtime, starts the runtime if no hook has yet, then,
 * if it is recording, runs `body(argument)`: as a writer (OF_CALL_AS_WRITER),
 * so that neither exit nor fork overlaps it, or alone (OF_CALL_ALONE).
 *
 * A call on a thread that is already inside the runtime (a signal handler
 * that interrupted it) does nothing: it could otherwise deadlock on a lock
 * that thread holds, or wait at exit for a write of its own.
 */
void of_public_call(void (*body)(const void *argument), const void *argument, of_call_kind kind) {
  of_thread *self = &of_self;
  if (self->busy) {
    return;
  }
  self->busy = 1;
  if (of_ensure_started()) {
    if (kind == OF_CALL_ALONE) {
      body(argument);
    } else if (of_writer_enter()) {
      body(argument);
      of_writer_leave();
    }
  }
  self->busy = 0;
}

static void of_end_launch(const void *unused) OF_NOINSTR;
static void of_end_launch(const void *unused) {
  (void)unused;
  of_close_window(OFT_WINDOW_STARTUP_COMPLETE, of_now_ns());
}

void orderfile_startup_complete(void) {
  const of_instance *owner = of_owner_for_call();
  if (owner != NULL) {
    owner->startup_complete();
    return;
  }
  of_public_call(of_end_launch, NULL, OF_CALL_AS_WRITER);
}

static void of_finish_call(const void *unused) OF_NOINSTR;
static void of_finish_call(const void *unused) {
  (void)unused;
  of_finish();
}

/* Alone, not as a writer: of_finish closes the gate and waits for the writers to drain. */
void orderfile_finish(void) {
  const of_instance *owner = of_owner_for_call();
  if (owner != NULL) {
    owner->finish();
    return;
  }
  of_public_call(of_finish_call, NULL, OF_CALL_ALONE);
}
