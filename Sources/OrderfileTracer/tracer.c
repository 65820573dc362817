/*
 * tracer.c - start the program under ptrace and follow every stop until its
 * first process exits.
 *
 * Mechanism: PTRACE_SEIZE before execve (the child waits on a pipe until it
 * is seized), with PTRACE_O_TRACECLONE/FORK/VFORK/EXEC so every thread and
 * child process is traced from its first instruction, and PTRACE_O_EXITKILL
 * so that nothing outlives the tracer with breakpoints in it. SEIZE rather
 * than TRACEME gives PTRACE_INTERRUPT (clean detach of running threads) and
 * PTRACE_LISTEN (job-control stops behave as without a tracer).
 *
 * A stop is one of:
 * - SIGTRAP at entry+1 of an armed slot: a first call. Put the byte back,
 *   rewind the thread onto the entry, report it, continue without the signal.
 * - SIGTRAP at entry+1 of a slot already hit: a second thread trapped before
 *   the byte went back. Rewind it; nothing to report. The kernel's si_code
 *   (SI_KERNEL for int3) tells such a trap from a SIGTRAP sent by kill().
 * - SIGTRAP at the loader's hook: libraries may have been mapped; arm the new
 *   ones, then emulate the hook's `ret`.
 * - any other signal: passed on unchanged.
 * - clone/fork/vfork/exec events and job-control stops, as described below.
 */
#define _GNU_SOURCE /* pipe2, makedev, gettid, PTRACE_* of glibc */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tracer_internal.h"

#if !defined(__x86_64__)
#error "the tracer reads and writes x86-64 registers; other architectures are not supported yet"
#endif

#define OFTR_OPTIONS                                                                                          \
  (PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)

/* ---- threads and processes ------------------------------------------ */

static oftr_thread *thread_find(oftr_tracer *tracer, pid_t tid) {
  for (uint32_t i = 0; i < tracer->thread_count; i++) {
    if (tracer->threads[i].tid == tid) return &tracer->threads[i];
  }
  return NULL;
}

static oftr_thread *thread_add(oftr_tracer *tracer, pid_t tid, oftr_process *process) {
  if (tracer->thread_count == tracer->thread_capacity) {
    uint32_t capacity = tracer->thread_capacity ? tracer->thread_capacity * 2 : 64;
    oftr_thread *threads = realloc(tracer->threads, capacity * sizeof *threads);
    if (!threads) return NULL;
    tracer->threads = threads;
    tracer->thread_capacity = capacity;
  }
  oftr_thread *thread = &tracer->threads[tracer->thread_count++];
  *thread = (oftr_thread){.tid = tid, .process = process};
  return thread;
}

static void thread_remove(oftr_tracer *tracer, oftr_thread *thread) {
  *thread = tracer->threads[--tracer->thread_count];
}

static oftr_process *process_new(oftr_tracer *tracer, pid_t pid, oftr_space *space, uint64_t start_ns) {
  oftr_process *process = calloc(1, sizeof *process);
  if (!process) return NULL;
  process->pid = pid;
  process->space = space;
  process->start_ns = start_ns;
  process->next = tracer->processes;
  tracer->processes = process;
  return process;
}

static void process_free(oftr_tracer *tracer, oftr_process *process) {
  for (oftr_process **link = &tracer->processes; *link; link = &(*link)->next) {
    if (*link == process) {
      *link = process->next;
      break;
    }
  }
  for (uint32_t i = 0; i < tracer->thread_count;) {
    if (tracer->threads[i].process == process) {
      thread_remove(tracer, &tracer->threads[i]);
    } else {
      i++;
    }
  }
  oftr_space_release(process->space);
  free(process);
}

static oftr_process *process_find(oftr_tracer *tracer, pid_t pid) {
  for (oftr_process *process = tracer->processes; process; process = process->next) {
    if (process->pid == pid) return process;
  }
  return NULL;
}

/* The end of an image's trace, for the host: `now` on the program's clock, the recorder's time. */
static void report_end(oftr_tracer *tracer, oftr_process *process, oftr_ending ending, int status, uint64_t now) {
  if (!process->ran) process->arming_ns = process->recorder_ns;
  tracer->host->process_ended(tracer->host->context, process->pid, ending, status, oftr_program_time(process, now),
                              process->recorder_ns, process->arming_ns);
}

static void process_end(oftr_tracer *tracer, oftr_process *process, oftr_ending ending, int status, uint64_t now) {
  /* Ended while the recorder stops on a termination signal (often by that signal, sent to
   * the whole process group): for the host, its trace ends with the recording's. */
  bool stopping = ending == OFTR_EXITED && tracer->let_go_as == OFTR_INTERRUPTED;
  if (process->reported) report_end(tracer, process, stopping ? OFTR_INTERRUPTED : ending, status, now);
  if (process->pid == tracer->first && ending == OFTR_EXITED) {
    tracer->first_exited = true;
    tracer->result->status = status;
  }
  process_free(tracer, process);
}

/* A thread that vanished (killed) between its stop and our request is not an error. */
static int resume(oftr_tracer *tracer, pid_t tid, int signal) {
  if (ptrace(PTRACE_CONT, tid, 0, (void *)(intptr_t)signal) == 0 || errno == ESRCH) return 0;
  return oftr_fail(tracer, errno, "cannot resume thread %d: %s", (int)tid, strerror(errno));
}

/* ---- the launch window ---------------------------------------------- */

/* `at` is on the program's clock. */
static void close_window(oftr_tracer *tracer, oftr_process *process, oftr_window_reason reason, uint64_t at) {
  if (process->window_closed) return;
  process->window_closed = true;
  tracer->host->window_closed(tracer->host->context, process->pid, reason, at);
}

/* The time limit counts on the program's clock: arming and stops are not the program's time. */
static bool in_window(oftr_tracer *tracer, oftr_process *process, uint64_t now) {
  uint64_t limit = tracer->options->time_limit_ns;
  if (!process->window_closed && limit && oftr_program_time(process, now) >= process->start_ns + limit)
    close_window(tracer, process, OFTR_WINDOW_TIME_LIMIT, process->start_ns + limit);
  return !process->window_closed;
}

/* ---- stops ----------------------------------------------------------- */

/* Registers are read and written one at a time (PEEKUSER/POKEUSER): a first call needs only
 * the instruction pointer, and copying the whole register file twice per stop costs more. */
#define OFTR_RIP offsetof(struct user, regs.rip)
#define OFTR_RSP offsetof(struct user, regs.rsp)
#define OFTR_RDI offsetof(struct user, regs.rdi)
#define OFTR_RSI offsetof(struct user, regs.rsi)

static bool peek_register(pid_t tid, size_t offset, uint64_t *value) {
  errno = 0;
  long word = ptrace(PTRACE_PEEKUSER, tid, (void *)offset, 0);
  if (errno != 0) return false;
  *value = (uint64_t)word;
  return true;
}

static int poke_register(oftr_tracer *tracer, pid_t tid, size_t offset, uint64_t value) {
  if (ptrace(PTRACE_POKEUSER, tid, (void *)offset, (void *)value) == 0 || errno == ESRCH) return 0;
  return oftr_fail(tracer, errno, "cannot set a register of thread %d: %s", (int)tid, strerror(errno));
}

static int handle(oftr_tracer *tracer, pid_t tid, int status, uint64_t now);

/* What a trap was (breakpoint()). */
enum { OFTR_NOT_MINE = 0, OFTR_MINE = 1, OFTR_MINE_ANSWERED = 2 };

/* The first call of an armed entry: reported, and the launch window closed if it is a stop. */
static void report_first_call(oftr_tracer *tracer, oftr_thread *thread, oftr_slot *slot, uint64_t entry,
                              uint64_t now) {
  oftr_process *process = thread->process;
  if (!process->ran) {
    process->ran = true;
    process->arming_ns = process->recorder_ns;
  }
  tracer->result->hits++;
  bool launch = in_window(tracer, process, now);
  uint64_t at = oftr_program_time(process, now);
  tracer->host->first_call(tracer->host->context, process->pid, slot->module, entry, at, thread->tid, launch);
  if (slot->stop) close_window(tracer, process, OFTR_WINDOW_STOP_FUNCTION, at);
}

/*
 * Runs the instruction a breakpoint that stays covers: the original byte
 * back, one single step of this thread, the breakpoint again. Other threads
 * run on meanwhile. Returns OFTR_MINE when the thread stands past that
 * instruction, ready to resume; OFTR_MINE_ANSWERED when the step ended in
 * another stop (a signal came first, the thread died), which is handled here.
 */
static int step_over(oftr_tracer *tracer, oftr_thread *thread, oftr_slot *slot, uint64_t now) {
  pid_t tid = thread->tid;
  oftr_space *space = thread->process->space;
  uint64_t entry = slot->address;
  if (poke_register(tracer, tid, OFTR_RIP, entry) != 0) return -1;
  if (oftr_write_byte(space, entry, slot->original) != 0)
    return oftr_fail(tracer, errno, "cannot step over a breakpoint in process %d: %s", (int)thread->process->pid,
                     strerror(errno));
  int status = 0;
  pid_t got = -1;
  if (ptrace(PTRACE_SINGLESTEP, tid, 0, 0) == 0) {
    while ((got = waitpid(tid, &status, __WALL)) < 0 && errno == EINTR) {
    }
  }
  int error = errno;
  /* Written back before anything else can run into the entry; a process that died has no memory. */
  if (oftr_write_byte(space, entry, OFTR_BREAKPOINT) != 0) slot->state = OFTR_SLOT_HIT;
  if (got != tid) {
    if (error == ESRCH) return OFTR_MINE_ANSWERED; /* killed: its end arrives as a wait status */
    return oftr_fail(tracer, error, "cannot step thread %d: %s", (int)tid, strerror(error));
  }
  if (WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP && (status >> 16) == 0) return OFTR_MINE;
  return handle(tracer, tid, status, now) < 0 ? -1 : OFTR_MINE_ANSWERED;
}

/*
 * The C library's sigaction(signal, action, old) is entered: arguments in
 * rdi, rsi. What it asks for SIGTRAP is kept, since the kernel resets SIG_IGN
 * to SIG_DFL at every breakpoint. The struct sigaction of glibc and musl
 * begins with the handler.
 */
static int sigaction_called(oftr_tracer *tracer, oftr_thread *thread, oftr_slot *slot, uint64_t now) {
  oftr_process *process = thread->process;
  uint64_t signal, action, handler;
  if (peek_register(thread->tid, OFTR_RDI, &signal) && (int)(uint32_t)signal == SIGTRAP &&
      peek_register(thread->tid, OFTR_RSI, &action) && action != 0 &&
      oftr_read_memory(process->space, action, &handler, sizeof handler) == 0)
    process->ignores_trap = handler == (uint64_t)(uintptr_t)SIG_IGN;
  if (slot->pending) {
    slot->pending = 0;
    report_first_call(tracer, thread, slot, slot->address, now);
  }
  return step_over(tracer, thread, slot, now);
}

/* OFTR_MINE when the trap was the tracer's (consumed), OFTR_MINE_ANSWERED when it was and the thread
 * was answered already, OFTR_NOT_MINE when it is the program's, -1 on failure. */
static int breakpoint(oftr_tracer *tracer, oftr_thread *thread, uint64_t now) {
  oftr_process *process = thread->process;
  if (!process->space) return OFTR_NOT_MINE; /* not yet exec'd: nothing is armed */
  uint64_t pc;
  if (!peek_register(thread->tid, OFTR_RIP, &pc)) return errno == ESRCH ? OFTR_MINE : OFTR_NOT_MINE;
  uint64_t entry = pc - OFTR_BREAKPOINT_LENGTH;
  oftr_slot *slot = oftr_space_find(process->space, entry);
  if (!slot || slot->original == OFTR_BREAKPOINT) return OFTR_NOT_MINE;

  if (slot->state == OFTR_SLOT_HIT) {
    siginfo_t info;
    if (ptrace(PTRACE_GETSIGINFO, thread->tid, 0, &info) != 0 || info.si_code != SI_KERNEL) return OFTR_NOT_MINE;
    tracer->result->races++;
  } else if (slot->state == OFTR_SLOT_HOOK) {
    if (oftr_scan_modules(tracer, process) != 0) return -1;
    uint64_t stack, caller;
    if (!peek_register(thread->tid, OFTR_RSP, &stack) ||
        oftr_read_memory(process->space, stack, &caller, sizeof caller) != 0)
      return oftr_fail(tracer, errno, "cannot read the stack of thread %d", (int)thread->tid);
    if (poke_register(tracer, thread->tid, OFTR_RSP, stack + sizeof caller) != 0) return -1;
    return poke_register(tracer, thread->tid, OFTR_RIP, caller) == 0 ? OFTR_MINE : -1;
  } else if (slot->state == OFTR_SLOT_WATCH) {
    return sigaction_called(tracer, thread, slot, now);
  } else if (slot->state == OFTR_SLOT_ARMED) {
    if (oftr_write_byte(process->space, entry, slot->original) != 0)
      return oftr_fail(tracer, errno, "cannot remove a breakpoint in process %d: %s", (int)process->pid,
                       strerror(errno));
    slot->state = OFTR_SLOT_HIT;
    process->space->armed--;
    report_first_call(tracer, thread, slot, entry, now);
  }
  return poke_register(tracer, thread->tid, OFTR_RIP, entry) == 0 ? OFTR_MINE : -1;
}

/*
 * The signal to pass on for a SIGTRAP that is the program's own. Sent (kill, raise: si_code <= 0) to a
 * program that ignores it, it is dropped, as the kernel would have dropped
 * it had no breakpoint reset SIG_IGN. Forced by a trap of the program's own
 * code, the kernel resets SIG_IGN without a tracer too: it is delivered.
 */
static int program_trap(oftr_thread *thread) {
  if (!thread->process->ignores_trap) return SIGTRAP;
  siginfo_t info;
  if (ptrace(PTRACE_GETSIGINFO, thread->tid, 0, &info) == 0 && info.si_code > 0) {
    thread->process->ignores_trap = false;
    return SIGTRAP;
  }
  return 0;
}

static bool same_thread_group(pid_t process, pid_t tid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task/%d", (int)process, (int)tid);
  return access(path, F_OK) == 0;
}

/*
 * A clone, fork or vfork event: the new task is traced already and will stop
 * once (possibly before this event arrives; it is parked until then).
 * Threads join their creator's process. A forked child gets a copy of the
 * breakpoint table, as it got a copy of the memory; a vfork child shares both
 * with its parent until it execs.
 */
static int created(oftr_tracer *tracer, oftr_thread *thread, int event, uint64_t now) {
  /* thread_add may move the thread array: keep what is needed of `thread` now. */
  pid_t creator = thread->tid;
  oftr_process *parent = thread->process;
  unsigned long message = 0;
  if (ptrace(PTRACE_GETEVENTMSG, creator, 0, &message) != 0) return resume(tracer, creator, 0);
  pid_t child = (pid_t)message;
  bool parked = false;
  oftr_thread *created_thread = thread_find(tracer, child);
  if (created_thread) {
    parked = created_thread->parked;
  } else if (!(created_thread = thread_add(tracer, child, NULL))) {
    return oftr_fail(tracer, ENOMEM, "out of memory");
  }
  if (event == PTRACE_EVENT_CLONE && same_thread_group(parent->pid, child)) {
    created_thread->process = parent;
  } else {
    oftr_space *space;
    if (event == PTRACE_EVENT_VFORK) {
      space = parent->space;
      space->references++;
    } else {
      space = oftr_space_copy(parent->space, child);
      if (!space) return oftr_fail(tracer, errno, "cannot follow process %d: %s", (int)child, strerror(errno));
    }
    oftr_process *process = process_new(tracer, child, space, parent->start_ns);
    if (!process) return oftr_fail(tracer, ENOMEM, "out of memory");
    process->window_closed = parent->window_closed;
    process->detaching = parent->detaching;
    process->ignores_trap = parent->ignores_trap;
    process->recorder_ns = parent->recorder_ns;
    process->arming_ns = parent->arming_ns;
    process->ran = parent->ran;
    created_thread->process = process;
    if (parent->detaching) {
      /* Forked while we let go: its copy of memory may still hold breakpoints. */
      if (event != PTRACE_EVENT_VFORK) oftr_restore_all(space, true);
    } else {
      process->reported = true;
      tracer->host->process_started(tracer->host->context, child, parent->pid, OFTR_FORKED,
                                    oftr_program_time(process, now));
    }
  }
  if (parked) {
    created_thread->parked = false;
    if (created_thread->process->detaching) {
      ptrace(PTRACE_DETACH, child, 0, 0);
      thread_remove(tracer, created_thread);
    } else if (resume(tracer, child, 0) != 0) {
      return -1;
    }
  }
  return resume(tracer, creator, 0);
}

/* The process replaced its image: a new trace for the same pid, new modules, new breakpoints. */
static int execed(oftr_tracer *tracer, oftr_thread *thread, uint64_t now) {
  oftr_process *process = thread->process;
  pid_t pid = process->pid;
  /* Every other thread is gone, and the thread that called execve now has the pid. */
  for (uint32_t i = 0; i < tracer->thread_count;) {
    if (tracer->threads[i].process == process) {
      thread_remove(tracer, &tracer->threads[i]);
    } else {
      i++;
    }
  }
  if (!thread_add(tracer, pid, process)) return oftr_fail(tracer, ENOMEM, "out of memory");
  oftr_origin origin = OFTR_EXECED;
  if (process->reported) {
    report_end(tracer, process, OFTR_REPLACED, 0, now);
  } else {
    origin = OFTR_SPAWNED;
  }
  oftr_space *space = oftr_space_new(pid);
  if (!space) return oftr_fail(tracer, errno, "cannot open the memory of process %d: %s", (int)pid, strerror(errno));
  oftr_space_release(process->space);
  process->space = space;
  process->window_closed = false;
  process->reported = true;
  process->ran = false;
  process->arming_ns = 0;
  tracer->host->process_started(tracer->host->context, pid, 0, origin,
                                origin == OFTR_SPAWNED ? process->start_ns : oftr_program_time(process, now));
  if (process->detaching) {
    ptrace(PTRACE_DETACH, pid, 0, 0);
    oftr_thread *execing = thread_find(tracer, pid);
    if (execing) thread_remove(tracer, execing);
    process_end(tracer, process, tracer->let_go_as, 0, now);
    return 0;
  }
  if (oftr_scan_modules(tracer, process) != 0) return -1;
  return resume(tracer, pid, 0);
}

static bool job_control(int signal) {
  return signal == SIGSTOP || signal == SIGTSTP || signal == SIGTTIN || signal == SIGTTOU;
}

static int dispatch(oftr_tracer *tracer, pid_t tid, int status, uint64_t now) {
  oftr_thread *thread = thread_find(tracer, tid);
  if (WIFEXITED(status) || WIFSIGNALED(status)) {
    if (!thread) return 0;
    oftr_process *process = thread->process;
    thread_remove(tracer, thread);
    if (process && tid == process->pid) process_end(tracer, process, OFTR_EXITED, status, now);
    return 0;
  }
  if (!WIFSTOPPED(status)) return 0;
  int signal = WSTOPSIG(status);
  int event = status >> 16;
  if (!thread || !thread->process) {
    /* A new task's first stop, ahead of its creator's event: hold it until that arrives. */
    if (!thread && !(thread = thread_add(tracer, tid, NULL))) return oftr_fail(tracer, ENOMEM, "out of memory");
    thread->parked = true;
    return 0;
  }
  switch (event) {
  case 0:
    if (signal == SIGTRAP) {
      int mine = breakpoint(tracer, thread, now);
      if (mine < 0) return -1;
      if (mine == OFTR_MINE_ANSWERED) return 0;
      if (mine == OFTR_MINE) return resume(tracer, tid, 0);
      return resume(tracer, tid, program_trap(thread));
    }
    return resume(tracer, tid, signal);
  case PTRACE_EVENT_CLONE:
  case PTRACE_EVENT_FORK:
  case PTRACE_EVENT_VFORK:
    return created(tracer, thread, event, now);
  case PTRACE_EVENT_EXEC:
    return execed(tracer, thread, now);
  case PTRACE_EVENT_STOP:
    /* Job control: stay stopped as without a tracer, until SIGCONT. Else a first stop or a wake-up. */
    if (job_control(signal)) {
      if (ptrace(PTRACE_LISTEN, tid, 0, 0) == 0 || errno == ESRCH) return 0;
      return oftr_fail(tracer, errno, "cannot keep thread %d stopped: %s", (int)tid, strerror(errno));
    }
    return resume(tracer, tid, 0);
  default:
    return resume(tracer, tid, 0);
  }
}

/* Handles one wait status. A stop that could not be answered is held for letting go. */
static int handle(oftr_tracer *tracer, pid_t tid, int status, uint64_t now) {
  int result = dispatch(tracer, tid, status, now);
  if (result != 0 && WIFSTOPPED(status)) {
    oftr_thread *thread = thread_find(tracer, tid);
    if (thread && thread->process) thread->held = status;
  }
  return result;
}

/* ---- letting go ------------------------------------------------------ */

/* Threads of `process` still in the table. */
static bool has_threads(const oftr_tracer *tracer, const oftr_process *process) {
  for (uint32_t i = 0; i < tracer->thread_count; i++) {
    if (tracer->threads[i].process == process) return true;
  }
  return false;
}

/* Lets one stopped thread go; its process ends (for the host) with its last thread. */
static int let_go(oftr_tracer *tracer, pid_t tid, int wait_status, uint64_t now) {
  oftr_thread *thread = thread_find(tracer, tid);
  if (!WIFSTOPPED(wait_status)) {
    oftr_process *process = thread ? thread->process : NULL;
    int status = handle(tracer, tid, wait_status, now);
    /* Its last thread died while the others were let go: the process ends here. */
    for (oftr_process *alive = tracer->processes; process && alive; alive = alive->next) {
      if (alive == process && !has_threads(tracer, process)) {
        process_end(tracer, process, tracer->let_go_as, 0, now);
        break;
      }
    }
    return status;
  }
  int event = wait_status >> 16, signal = WSTOPSIG(wait_status);
  if (!thread || !thread->process) {
    /* A new task's first stop, ahead of its creator's event: created() lets it go. */
    if (!thread && !(thread = thread_add(tracer, tid, NULL))) return oftr_fail(tracer, ENOMEM, "out of memory");
    thread->parked = true;
    return 0;
  }
  thread->held = 0;
  if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK) {
    /* Follow the new task far enough to let it go too; created() resumes the creator. */
    int status = created(tracer, thread, event, now);
    if (thread_find(tracer, tid)) ptrace(PTRACE_INTERRUPT, tid, 0, 0);
    return status;
  }
  if (event == PTRACE_EVENT_EXEC) return execed(tracer, thread, now); /* detaches: the process is detaching */
  int deliver = 0;
  if (event == 0) {
    deliver = signal;
    /* A thread that trapped before its byte went back: rewound onto the entry, trap dropped. */
    if (signal == SIGTRAP) deliver = breakpoint(tracer, thread, now) == OFTR_MINE ? 0 : program_trap(thread);
  }
  oftr_process *process = thread->process;
  ptrace(PTRACE_DETACH, tid, 0, (void *)(intptr_t)deliver);
  thread_remove(tracer, thread);
  if (!has_threads(tracer, process)) process_end(tracer, process, tracer->let_go_as, 0, now);
  return 0;
}

/* How long letting go may wait for every thread to stop: a thread stops at once unless it
 * waits in the kernel for another task (a vfork parent for its child's exec). */
#define OFTR_DETACH_LIMIT_NS (10ull * 1000000000ull)

/*
 * Detaches from every process still traced: removes every breakpoint first,
 * then stops each thread with PTRACE_INTERRUPT and lets it go from that stop.
 * A thread whose stop was collected but not answered is let go from that stop
 * (an interrupt would give no new one). A thread that trapped just before its
 * breakpoint was removed is rewound first; a signal it was about to receive
 * is delivered on detach. A process ends for the host when its last thread is
 * let go, never before: a thread left attached would die with the tracer.
 */
/* True when process `pid` is exiting or gone: its state, within 200 ms, is zombie or dead. */
static bool process_dying(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  for (int attempt = 0; attempt < 200; attempt++) {
    FILE *file = fopen(path, "re");
    if (!file) return true;
    char line[512];
    char *read = fgets(line, sizeof line, file);
    fclose(file);
    /* The state follows the command name's closing parenthesis. */
    char *end = read ? strrchr(line, ')') : NULL;
    if (!end || end[1] == 0) return true;
    if (end[2] == 'Z' || end[2] == 'X' || end[2] == 'x') return true;
    struct timespec pause = {.tv_sec = 0, .tv_nsec = 1000000};
    nanosleep(&pause, NULL);
  }
  return false;
}

/* What letting go achieved. */
enum { OFTR_LET_GO = 0, OFTR_BREAKPOINTS_LEFT = -1, OFTR_THREADS_LEFT = -2 };

static int detach_all(oftr_tracer *tracer) {
  uint64_t now = oftr_now();
  int status = OFTR_LET_GO;
  for (oftr_process *process = tracer->processes; process; process = process->next) {
    process->detaching = true;
    if (oftr_restore_all(process->space, false) != 0) {
      int error = errno;
      /* A process that is dying (a signal we just passed on) has no memory left to fix. */
      if (!process_dying(process->pid))
        status = oftr_fail(tracer, error, "cannot remove the breakpoints of process %d: %s", (int)process->pid,
                           strerror(error));
    }
  }
  if (status != OFTR_LET_GO) return OFTR_BREAKPOINTS_LEFT;
  for (uint32_t i = 0; i < tracer->thread_count; i++) {
    if (tracer->threads[i].process && !tracer->threads[i].parked && !tracer->threads[i].held)
      ptrace(PTRACE_INTERRUPT, tracer->threads[i].tid, 0, 0);
  }
  for (uint32_t i = 0; i < tracer->thread_count;) {
    oftr_thread *thread = &tracer->threads[i];
    if (thread->held && thread->process) {
      if (let_go(tracer, thread->tid, thread->held, now) != 0) status = OFTR_THREADS_LEFT;
      i = 0; /* the table changed */
    } else if (thread->parked && !thread->process) {
      /* Its creator's event was lost with a failure: it is stopped, let it go as it is. */
      ptrace(PTRACE_DETACH, thread->tid, 0, 0);
      thread_remove(tracer, thread);
      i = 0;
    } else {
      i++;
    }
  }
  uint64_t deadline = oftr_now() + OFTR_DETACH_LIMIT_NS;
  while (tracer->thread_count > 0) {
    int wait_status;
    pid_t tid = waitpid(-1, &wait_status, __WALL | __WNOTHREAD | WNOHANG);
    if (tid < 0) {
      if (errno == EINTR) continue;
      break; /* ECHILD: nothing is traced any more */
    }
    if (tid == 0) {
      if (oftr_now() > deadline) {
        oftr_fail(tracer, ETIMEDOUT, "%u threads did not stop within %llu s to be let go", tracer->thread_count,
                  OFTR_DETACH_LIMIT_NS / 1000000000ull);
        return OFTR_THREADS_LEFT;
      }
      struct timespec pause = {.tv_sec = 0, .tv_nsec = 100000};
      nanosleep(&pause, NULL);
      continue;
    }
    if (let_go(tracer, tid, wait_status, now) != 0) status = OFTR_THREADS_LEFT;
  }
  while (tracer->processes) process_free(tracer, tracer->processes);
  tracer->thread_count = 0;
  return status;
}

/* The last resort when letting go failed: nothing may run on with breakpoints in it. */
static void kill_all(oftr_tracer *tracer) {
  for (oftr_process *process = tracer->processes; process; process = process->next) kill(process->pid, SIGKILL);
  for (uint32_t i = 0; i < tracer->thread_count; i++) kill(tracer->threads[i].tid, SIGKILL);
  int status;
  while (waitpid(-1, &status, __WALL | __WNOTHREAD) > 0 || errno == EINTR) {
  }
  while (tracer->processes) process_free(tracer, tracer->processes);
  tracer->thread_count = 0;
}

/* ---- termination signals ---------------------------------------------- */

/* The last termination signal received, and how many: a second one is passed on too. */
static volatile sig_atomic_t termination_signal, termination_count;

static void on_termination(int signal) {
  termination_signal = signal;
  termination_count++;
}

/* The wake-up tick: its only job is to end a blocked waitpid with EINTR. */
static void on_tick(int signal) { (void)signal; }

static const int termination_signals[] = {SIGTERM, SIGHUP, SIGINT};
#define OFTR_TERMINATION_COUNT (sizeof termination_signals / sizeof termination_signals[0])

/*
 * Handlers without SA_RESTART, so that a signal ends the tracer's waitpid. The
 * tracer's thread blocks these signals except while it waits (a host callback
 * never sees EINTR). A process-directed signal may land on another thread of
 * the host, and one may arrive between the check of the flag and the waitpid:
 * a timer that signals the tracer's own thread every 50 ms bounds how long
 * either goes unseen.
 */
typedef struct signal_state {
  struct sigaction saved[OFTR_TERMINATION_COUNT], saved_tick;
  sigset_t saved_mask, working_mask;
  timer_t timer;
  bool installed, timer_armed, termination;
} signal_state;

/* `termination`: the termination handlers too; without, only the tick (a launch that ends
 * at its time limit must be noticed while the program idles). */
static void signals_install(signal_state *state, bool termination) {
  memset(state, 0, sizeof *state);
  termination_signal = 0;
  termination_count = 0;
  state->termination = termination;
  sigset_t ours;
  sigemptyset(&ours);
  for (size_t i = 0; termination && i < OFTR_TERMINATION_COUNT; i++) sigaddset(&ours, termination_signals[i]);
  sigaddset(&ours, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &ours, &state->saved_mask);
  pthread_sigmask(SIG_SETMASK, NULL, &state->working_mask);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  sigemptyset(&action.sa_mask);
  action.sa_handler = on_termination;
  for (size_t i = 0; termination && i < OFTR_TERMINATION_COUNT; i++)
    sigaction(termination_signals[i], &action, &state->saved[i]);
  action.sa_handler = on_tick;
  sigaction(SIGALRM, &action, &state->saved_tick);
  state->installed = true;
  struct sigevent event;
  memset(&event, 0, sizeof event);
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = SIGALRM;
  event._sigev_un._tid = gettid(); /* sigev_notify_thread_id, which older glibc headers do not name */
  if (timer_create(CLOCK_MONOTONIC, &event, &state->timer) == 0) {
    struct itimerspec every = {.it_interval = {0, 50000000}, .it_value = {0, 50000000}};
    state->timer_armed = timer_settime(state->timer, 0, &every, NULL) == 0;
    if (!state->timer_armed) timer_delete(state->timer);
  }
}

static void signals_restore(signal_state *state) {
  if (!state->installed) return;
  if (state->timer_armed) timer_delete(state->timer);
  /* Taken while they were blocked (a tick, a second ^C): consumed here, so that the
   * host's own handling, restored below, does not end it before it writes the traces. */
  sigset_t ours;
  sigemptyset(&ours);
  for (size_t i = 0; state->termination && i < OFTR_TERMINATION_COUNT; i++) sigaddset(&ours, termination_signals[i]);
  sigaddset(&ours, SIGALRM);
  struct timespec none = {0, 0};
  while (sigtimedwait(&ours, NULL, &none) > 0) {
  }
  for (size_t i = 0; state->termination && i < OFTR_TERMINATION_COUNT; i++)
    sigaction(termination_signals[i], &state->saved[i], NULL);
  sigaction(SIGALRM, &state->saved_tick, NULL);
  pthread_sigmask(SIG_SETMASK, &state->saved_mask, NULL);
}

/* waitpid with the tracer's signals let through for its duration only. */
static pid_t wait_for(const signal_state *state, pid_t pid, int *status, int flags) {
  if (!state->installed) return waitpid(pid, status, flags);
  sigset_t waiting = state->working_mask;
  for (size_t i = 0; state->termination && i < OFTR_TERMINATION_COUNT; i++) sigdelset(&waiting, termination_signals[i]);
  sigdelset(&waiting, SIGALRM);
  pthread_sigmask(SIG_SETMASK, &waiting, NULL);
  pid_t got = waitpid(pid, status, flags);
  int error = errno;
  pthread_sigmask(SIG_SETMASK, &state->working_mask, NULL);
  errno = error;
  return got;
}

/* True when `signal` is pending for process `pid` (shared or its leader's own). */
static bool signal_pending(pid_t pid, int signal) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *file = fopen(path, "re");
  if (!file) return false;
  char line[256];
  bool pending = false;
  while (fgets(line, sizeof line, file)) {
    unsigned long long mask;
    if ((sscanf(line, "SigPnd: %llx", &mask) == 1 || sscanf(line, "ShdPnd: %llx", &mask) == 1) &&
        (mask >> (signal - 1)) & 1)
      pending = true;
  }
  fclose(file);
  return pending;
}

/* Lets go of every process (detach_all); when breakpoints could not be removed, kills
 * them all instead, and the message says so. Returns detach_all's answer. */
static int let_go_or_kill(oftr_tracer *tracer) {
  int detached = detach_all(tracer);
  if (detached == OFTR_BREAKPOINTS_LEFT) {
    kill_all(tracer);
    size_t length = strlen(tracer->result->message);
    snprintf(tracer->result->message + length, sizeof tracer->result->message - length, "; the program was killed");
  }
  return detached;
}

/*
 * The recorder was asked to stop: let go of everything, then end the first
 * process the way the signal meant, and wait for it as a shell would.
 */
static int stop_on_signal(oftr_tracer *tracer, const signal_state *signals) {
  int signal = termination_signal, seen = termination_count;
  tracer->let_go_as = OFTR_INTERRUPTED;
  if (let_go_or_kill(tracer) == OFTR_BREAKPOINTS_LEFT) return -1;
  tracer->result->signal = signal;
  /* Sent to the whole process group (a terminal's ^C, timeout(1)), the signal may have
   * reached the program first and been passed on already: then it has ended, or it is on
   * its way. */
  if (tracer->first_exited) return 0;
  if (!signal_pending(tracer->first, signal)) kill(tracer->first, signal);
  for (;;) {
    int status;
    pid_t got = wait_for(signals, tracer->first, &status, 0);
    if (got == tracer->first) {
      tracer->result->status = status;
      return 0;
    }
    if (got < 0 && errno != EINTR) {
      return oftr_fail(tracer, errno, "lost the program after passing on %s: waitpid: %s", strsignal(signal),
                       strerror(errno));
    }
    if (termination_count != seen) {
      seen = termination_count;
      kill(tracer->first, termination_signal);
    }
  }
}

/* ---- the launch's end ------------------------------------------------ */

/* The first process's window has closed (return_at_window_close); its time limit is
 * checked here too, since an idle program makes no stop to check it at. */
static bool launch_over(oftr_tracer *tracer, uint64_t now) {
  oftr_process *first = process_find(tracer, tracer->first);
  return first && !in_window(tracer, first, now);
}

/* Lets go of every process, which runs on without breakpoints, for the caller to end. */
static int let_go_at_window_close(oftr_tracer *tracer) {
  int detached = let_go_or_kill(tracer);
  if (detached == OFTR_BREAKPOINTS_LEFT) return -1;
  tracer->result->launch_over = true;
  tracer->result->first_pid = tracer->first;
  return detached == OFTR_LET_GO ? 0 : -1;
}

/* ---- starting -------------------------------------------------------- */

static int read_all(int fd, void *buffer, size_t length) {
  size_t done = 0;
  while (done < length) {
    ssize_t got = read(fd, (char *)buffer + done, length - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += (size_t)got;
  }
  return (int)done;
}

/* The child: default signal handling, an empty mask, wait to be seized, exec. Only async-signal-safe calls. */
static void __attribute__((noreturn)) child_main(const oftr_options *options, int go, int report) {
  struct sigaction standard;
  memset(&standard, 0, sizeof standard);
  standard.sa_handler = SIG_DFL;
  for (int signal = 1; signal < NSIG; signal++) {
    if (signal != SIGKILL && signal != SIGSTOP) sigaction(signal, &standard, NULL);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  char byte;
  if (read_all(go, &byte, 1) != 1) _exit(127);
  execve(options->path, options->argv, options->envp);
  int error = errno;
  ssize_t ignored = write(report, &error, sizeof error);
  (void)ignored;
  _exit(127);
}

/* The pid tracing `pid` (TracerPid of /proc/PID/status), 0 for none or unknown. */
static pid_t tracer_of(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *file = fopen(path, "re");
  if (!file) return 0;
  char line[256];
  int found = 0;
  while (fgets(line, sizeof line, file)) {
    if (sscanf(line, "TracerPid: %d", &found) == 1) break;
  }
  fclose(file);
  return (pid_t)found;
}

static int spawn(oftr_tracer *tracer) {
  int go[2], report[2];
  if (pipe2(go, O_CLOEXEC) != 0) return oftr_fail(tracer, errno, "cannot create a pipe: %s", strerror(errno));
  if (pipe2(report, O_CLOEXEC) != 0) {
    close(go[0]);
    close(go[1]);
    return oftr_fail(tracer, errno, "cannot create a pipe: %s", strerror(errno));
  }
  uint64_t start = oftr_now();
  pid_t pid = fork();
  if (pid == 0) child_main(tracer->options, go[0], report[1]);
  int fork_error = errno;
  close(go[0]);
  close(report[1]);
  if (pid < 0) {
    close(go[1]);
    close(report[0]);
    return oftr_fail(tracer, fork_error, "cannot start %s: fork: %s", tracer->options->path, strerror(fork_error));
  }
  if (ptrace(PTRACE_SEIZE, pid, 0, (void *)(intptr_t)OFTR_OPTIONS) != 0) {
    int error = errno;
    /* A tracer that follows this process's children (strace -f, a debugger) got there first. */
    pid_t other = error == EPERM ? tracer_of(pid) : 0;
    close(go[1]);
    close(report[0]);
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    if (other > 0)
      return oftr_fail(tracer, error,
                       "cannot trace %s: it is already traced by process %d (a debugger or strace following "
                       "orderfile's children?): a process has one tracer; run orderfile outside it",
                       tracer->options->path, (int)other);
    return oftr_fail(tracer, error,
                     "cannot trace %s: ptrace: %s (is ptrace forbidden here? record an instrumented build instead)",
                     tracer->options->path, strerror(error));
  }
  uint64_t go_at = oftr_now();
  ssize_t ignored = write(go[1], "g", 1);
  (void)ignored;
  close(go[1]);
  int exec_error = 0;
  int got = read_all(report[0], &exec_error, sizeof exec_error);
  close(report[0]);
  if (got == (int)sizeof exec_error) {
    int status;
    for (;;) {
      pid_t got = waitpid(pid, &status, __WALL);
      if (got < 0 && errno == EINTR) continue;
      if (got != pid || WIFEXITED(status) || WIFSIGNALED(status)) break;
      ptrace(PTRACE_CONT, pid, 0, 0);
    }
    return oftr_fail(tracer, exec_error, "cannot run %s: %s", tracer->options->path, strerror(exec_error));
  }
  tracer->first = pid;
  oftr_process *process = process_new(tracer, pid, NULL, start);
  if (!process || !thread_add(tracer, pid, process)) {
    kill(pid, SIGKILL);
    return oftr_fail(tracer, ENOMEM, "out of memory");
  }
  /* Forking this process (a large one, unlike a shell) and seizing the child are the
   * recorder's start, not the program's: its clock starts running at the execve. */
  process->recorder_ns = go_at - start;
  return 0;
}

/*
 * A thread let go from a stop waits for a CPU before it runs on: on a loaded
 * machine that wait is long, and it is the tracer's doing. When the thread
 * was scheduled in once only since its last stop, all its run delay since
 * then is that wait, charged to the recorder; otherwise the kernel's counts
 * cannot tell it from being preempted, as it would be alone, and nothing is.
 */
static void charge_resumption(oftr_thread *thread) {
  uint64_t waiting, slices;
  if (!oftr_thread_run_delay(thread->tid, &waiting, &slices)) return;
  if (thread->slices != 0 && slices == thread->slices + 1 && waiting >= thread->run_delay)
    thread->process->recorder_ns += waiting - thread->run_delay;
  thread->run_delay = waiting;
  thread->slices = slices;
}

int oftr_record(const oftr_options *options, const oftr_host *host, oftr_result *result) {
  memset(result, 0, sizeof *result);
  oftr_tracer tracer = {.options = options, .host = host, .result = result, .let_go_as = OFTR_DETACHED};
  signal_state signals = {0};
  if (options->pass_termination_signals || (options->return_at_window_close && options->time_limit_ns))
    signals_install(&signals, options->pass_termination_signals);
  if (spawn(&tracer) != 0) {
    signals_restore(&signals);
    return -1;
  }
  int status = 0;
  /* This thread's own count (a host may record from any of its threads). */
  int schedstat = oftr_open_run_delay();
  while (!tracer.first_exited && status == 0) {
    if (termination_count > 0) {
      status = stop_on_signal(&tracer, &signals);
      if (schedstat >= 0) close(schedstat);
      free(tracer.threads);
      signals_restore(&signals);
      return status;
    }
    if (options->return_at_window_close && launch_over(&tracer, oftr_now())) {
      status = let_go_at_window_close(&tracer);
      if (schedstat >= 0) close(schedstat);
      free(tracer.threads);
      signals_restore(&signals);
      return status;
    }
    int wait_status;
    uint64_t waiting_since = oftr_now(), delay = oftr_run_delay(schedstat);
    /* __WNOTHREAD: only this thread's children and tracees. A host that runs other programs
     * from other threads (a test runner does) keeps their exit statuses to itself. */
    pid_t tid = wait_for(&signals, -1, &wait_status, __WALL | __WNOTHREAD);
    if (tid < 0) {
      if (errno == EINTR) continue;
      status = oftr_fail(&tracer, errno, "lost the program: waitpid: %s", strerror(errno));
      break;
    }
    /* The thread stopped before the tracer got a CPU to answer: the kernel woke the tracer,
     * which then stood runnable (its run delay) under a loaded machine. The stop's time is
     * taken back by that much, never before the wait began. */
    uint64_t now = oftr_now(), woken = oftr_run_delay(schedstat) - delay;
    uint64_t stopped_at = now - (woken < now - waiting_since ? woken : now - waiting_since);
    /* A stop holds its process until answered: that time is the recorder's, not the program's. */
    oftr_thread *stopped = WIFSTOPPED(wait_status) ? thread_find(&tracer, tid) : NULL;
    pid_t held = stopped && stopped->process ? stopped->process->pid : 0;
    if (held) charge_resumption(stopped);
    status = handle(&tracer, tid, wait_status, stopped_at);
    oftr_process *process = held ? process_find(&tracer, held) : NULL;
    if (process) process->recorder_ns += oftr_now() - stopped_at;
  }
  if (status != 0 && !tracer.first_exited) {
    /* Something failed mid-launch: let the program run on without us if we can. */
    size_t length = strlen(result->message);
    int detached = detach_all(&tracer);
    if (detached == OFTR_LET_GO) {
      snprintf(result->message + length, sizeof result->message - length, "; the program was detached");
    } else if (detached == OFTR_BREAKPOINTS_LEFT) {
      kill_all(&tracer);
      snprintf(result->message + length, sizeof result->message - length, "; the program was killed");
    }
  } else {
    int detached = detach_all(&tracer);
    if (detached == OFTR_BREAKPOINTS_LEFT) kill_all(&tracer);
    if (detached != OFTR_LET_GO) status = -1;
  }
  if (schedstat >= 0) close(schedstat);
  free(tracer.threads);
  signals_restore(&signals);
  return status;
}
