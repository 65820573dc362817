/*
 * children.c - the recorder's time in a process's children, taken out of the time it spent
 * waiting for them.
 *
 * Why: a program that starts a child and waits for it (fork and exec, posix_spawn, then
 * waitpid) waits, with the recorder, for the child's arming and traps too: in a C++ program
 * whose child makes 8,000 first calls, 39 ms of the child's recorder time were 39 ms of the
 * parent's main → exit, against 1.7 ms for the whole plain launch.
 *
 * How: every process of one recording adds its recorder time to one counter in a file beside
 * the plan (its path with OF_PLAN_CLOCK_SUFFIX appended), mapped shared; the first process
 * creates it. The recorder interposes the wait calls a program makes for its children
 * (waitpid, wait, wait4, waitid): what the counter grew by while the call blocked, less this
 * process's own part, is charged to this process's recorder time, at most the call's length.
 * The charge is not added to the counter: a grandparent waiting for this process counts the
 * grandchild's time once, from the grandchild.
 *
 * A parent also waits for recorder work no trap covers: the runtime's fork handler, which copies
 * the trace into the fork child's own before the child runs (1.5 ms for 12,000 records here, in a
 * child that then only calls exec), and its exit handler, which ends the trace. Both are
 * bracketed as stretches of the recorder's own (of_children_bracket). And the kernel's teardown
 * of a child that ends frees every code page arming wrote, after the child's last stretch: the
 * exit bracket, and _exit and _Exit (which run no exit handler), give them back first
 * (of_armed_release), as a stretch of the recorder's.
 *
 * Limitations: waits inside libc (system(), popen's pclose) and raw system calls are not
 * seen. A fork of a process with armed pages copies their page-table entries (a plain fork
 * skips code nothing wrote to) and the fork child's exec frees them: 2.5 and 2.8 ms for
 * 12,000 armed pages here, neither counted; posix_spawn copies none. Time a child's recorder
 * spent while this process did not wait (running beside it on another core) is rightly not
 * charged; time another, unrelated process of the recording spent while this one waited is
 * charged wrongly (processes running side by side).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../OrderfileRuntime/runtime_internal.h"
#include "inprocess.h"

/* The recording's total recorder time, over every process; NULL: not shared. */
static uint64_t *of_session_ns;

void of_children_open(const char *plan_path) {
  char path[4096];
  size_t length = strlen(plan_path);
  if (length + sizeof OF_PLAN_CLOCK_SUFFIX > sizeof path) {
    return;
  }
  memcpy(path, plan_path, length);
  memcpy(path + length, OF_PLAN_CLOCK_SUFFIX, sizeof OF_PLAN_CLOCK_SUFFIX);
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return;
  }
  struct stat status;
  /* Two processes may both find it empty: making it 8 bytes long twice loses nothing. */
  if (fstat(fd, &status) == 0 && (status.st_size >= (off_t)sizeof(uint64_t) || ftruncate(fd, sizeof(uint64_t)) == 0)) {
    void *shared = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (shared != MAP_FAILED) {
      of_session_ns = shared;
    }
  }
  close(fd);
}

void of_children_add(uint64_t spent_ns) {
  if (of_session_ns != NULL) {
    __atomic_add_fetch(of_session_ns, spent_ns, __ATOMIC_RELAXED);
  }
}

/* The runtime's fork and exit handlers as stretches of the recorder's: fork runs its child
 * handlers in the order registered, exit its handlers in the reverse, so handlers registered
 * just before the runtime's and just after them bracket them. */
static __thread uint64_t of_bracket_started __attribute__((tls_model("initial-exec")));

static void of_bracket_begin(void) __attribute__((no_instrument_function));
static void of_bracket_begin(void) {
  of_bracket_started = of_recorder_enter();
}

static void of_bracket_end(void) __attribute__((no_instrument_function));
static void of_bracket_end(void) {
  of_recorder_leave(of_bracket_started, true, 0);
}

/* Whether this process is the one that armed and recorded: not a vfork child, which shares
 * the parent's pages and runs no fork handler. */
static bool of_recording_process(void) __attribute__((no_instrument_function));
static bool of_recording_process(void) {
  return __atomic_load_n(&of_rt.init_state, __ATOMIC_ACQUIRE) == OF_INIT_RECORDING && of_rt.header != NULL &&
         of_rt.header->pid == (uint32_t)getpid();
}

/* The process ends: its armed code pages go back to their file, on the recorder's clock,
 * in a stretch of their own; with `finish`, the trace ends first (from _exit, where no exit
 * handler ends it). */
static void of_end_process(bool finish) __attribute__((no_instrument_function));
static void of_end_process(bool finish) {
  if (of_recording_process()) {
    uint64_t started = of_recorder_enter();
    if (finish) {
      of_at_exit();
    }
    of_armed_release();
    of_recorder_leave(started, true, 0);
  }
}

/* From exit, after the runtime's exit handler ended the trace. */
static void of_release_at_end(void) __attribute__((no_instrument_function));
static void of_release_at_end(void) {
  of_end_process(false);
}

void of_children_bracket(bool runtime_started) {
  if (!runtime_started) {
    pthread_atfork(NULL, NULL, of_bracket_begin);
    atexit(of_bracket_end);
    atexit(of_release_at_end); /* after the runtime's exit handler, registered later */
  } else {
    pthread_atfork(NULL, NULL, of_bracket_end);
    atexit(of_bracket_begin);
  }
}

/* The moment a wait call starts: the clocks it compares when it returns. */
typedef struct of_wait_start {
  uint64_t wall_ns, session_ns, own_ns;
} of_wait_start;

static of_wait_start of_wait_begin(void) __attribute__((no_instrument_function));
static of_wait_start of_wait_begin(void) {
  of_wait_start start = {0, 0, 0};
  if (of_session_ns != NULL) {
    start.wall_ns = of_wall_ns();
    start.session_ns = __atomic_load_n(of_session_ns, __ATOMIC_RELAXED);
    start.own_ns = __atomic_load_n(&of_clock.recorder_ns, __ATOMIC_RELAXED);
  }
  return start;
}

/* Charges what the others added since `start`; errno is the wait call's. */
static void of_wait_end(of_wait_start start) __attribute__((no_instrument_function));
static void of_wait_end(of_wait_start start) {
  if (of_session_ns == NULL) {
    return;
  }
  int saved = errno;
  uint64_t waited = of_wall_ns() - start.wall_ns;
  uint64_t others = __atomic_load_n(of_session_ns, __ATOMIC_RELAXED) - start.session_ns;
  uint64_t own = __atomic_load_n(&of_clock.recorder_ns, __ATOMIC_RELAXED) - start.own_ns;
  others = others > own ? others - own : 0;
  uint64_t charge = others < waited ? others : waited;
  if (charge != 0) {
    /* Its own part of the total, so that a report tells the children's traps from its own. */
    uint64_t children = __atomic_add_fetch(&of_clock.children_ns, charge, __ATOMIC_RELAXED);
    uint64_t total = __atomic_add_fetch(&of_clock.recorder_ns, charge, __ATOMIC_RELAXED);
    if (__atomic_load_n(&of_rt.init_state, __ATOMIC_ACQUIRE) == OF_INIT_RECORDING && of_rt.header != NULL) {
      __atomic_store_n(&of_rt.header->recorder_ns, total, __ATOMIC_RELAXED);
      __atomic_store_n(&of_rt.header->children_ns, children, __ATOMIC_RELAXED);
    }
  }
  errno = saved;
}

#define OF_NEXT(name, type) ((type)dlsym(RTLD_NEXT, name))

/* A process that ends by _exit or _Exit (lld does, to skip its destructors) runs no exit
 * handler; libc's exit() reaches _exit inside libc, not here. Its trace ends here, as at exit:
 * left open, it ended at its last record, and ld.lld's main → trace end fell short of the
 * main → exit the kernel timed by the time after its last first call (writing the output). */
__attribute__((visibility("default"), no_instrument_function, noreturn)) void _exit(int status) {
  of_end_process(true);
  syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

__attribute__((visibility("default"), no_instrument_function, noreturn)) void _Exit(int status) {
  _exit(status);
}

__attribute__((visibility("default"), no_instrument_function)) pid_t waitpid(pid_t pid, int *status, int options) {
  pid_t (*next)(pid_t, int *, int) = OF_NEXT("waitpid", pid_t(*)(pid_t, int *, int));
  of_wait_start start = of_wait_begin();
  pid_t result = next(pid, status, options);
  of_wait_end(start);
  return result;
}

__attribute__((visibility("default"), no_instrument_function)) pid_t wait(int *status) {
  return waitpid(-1, status, 0);
}

__attribute__((visibility("default"), no_instrument_function)) pid_t wait4(
    pid_t pid, int *status, int options, struct rusage *usage) {
  pid_t (*next)(pid_t, int *, int, struct rusage *) = OF_NEXT("wait4", pid_t(*)(pid_t, int *, int, struct rusage *));
  of_wait_start start = of_wait_begin();
  pid_t result = next(pid, status, options, usage);
  of_wait_end(start);
  return result;
}

__attribute__((visibility("default"), no_instrument_function)) int waitid(
    idtype_t type, id_t id, siginfo_t *info, int options) {
  int (*next)(idtype_t, id_t, siginfo_t *, int) = OF_NEXT("waitid", int (*)(idtype_t, id_t, siginfo_t *, int));
  of_wait_start start = of_wait_begin();
  int result = next(type, id, info, options);
  of_wait_end(start);
  return result;
}
