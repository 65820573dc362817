/*
 * stops.c - one wait status of a traced thread: a breakpoint's trap (a first call, the
 * loader's hook, the sigaction watch), a signal passed on, a job-control stop, or an event
 * for events.c. Registers are read and written here only.
 */
#define _GNU_SOURCE /* PTRACE_* of glibc, __WALL */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "tracer_internal.h"

#if !defined(__x86_64__)
#error "the tracer reads and writes x86-64 registers; other architectures are not supported yet"
#endif

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

/* The first call of an armed entry: reported, and the launch window closed if it is a stop. */
static void report_first_call(oftr_tracer *tracer, oftr_thread *thread, oftr_slot *slot, uint64_t entry,
                              uint64_t now) {
  oftr_process *process = thread->process;
  if (!process->ran) {
    process->ran = true;
    process->arming_ns = process->recorder_ns;
  }
  tracer->result->hits++;
  bool launch = oftr_in_window(tracer, process, now);
  uint64_t at = oftr_program_time(process, now);
  tracer->host->first_call(tracer->host->context, process->pid, slot->module, entry, at, thread->tid, launch);
  if (slot->stop) oftr_close_window(tracer, process, OFTR_WINDOW_STOP_FUNCTION, at);
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
  if (oftr_write_byte(space, entry, slot->original) != 0) {
    if (errno == ESRCH) return OFTR_MINE_ANSWERED; /* its image is gone: see oftr_breakpoint() */
    return oftr_fail(tracer, errno, "cannot step over a breakpoint in process %d: %s", (int)thread->process->pid,
                     strerror(errno));
  }
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
  return oftr_handle(tracer, tid, status, now) < 0 ? -1 : OFTR_MINE_ANSWERED;
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

/*
 * OFTR_MINE when the trap was the tracer's (consumed), OFTR_MINE_ANSWERED when it was and the thread
 * was answered already, OFTR_NOT_MINE when it is the program's, -1 on failure.
 *
 * The stop may be out of date by the time it is handled: another thread's execve (or exit) kills
 * this one, and the image its breakpoints are in goes with it. Then its registers are out of reach
 * and its memory moves nothing (ESRCH, address_space.c): the trap is taken as the tracer's with
 * nothing done, and the exec event or the thread's end arrives as a wait status of its own.
 */
int oftr_breakpoint(oftr_tracer *tracer, oftr_thread *thread, uint64_t now) {
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
      return errno == ESRCH ? OFTR_MINE
                            : oftr_fail(tracer, errno, "cannot read the stack of thread %d", (int)thread->tid);
    if (poke_register(tracer, thread->tid, OFTR_RSP, stack + sizeof caller) != 0) return -1;
    return poke_register(tracer, thread->tid, OFTR_RIP, caller) == 0 ? OFTR_MINE : -1;
  } else if (slot->state == OFTR_SLOT_WATCH) {
    return sigaction_called(tracer, thread, slot, now);
  } else if (slot->state == OFTR_SLOT_ARMED) {
    if (oftr_write_byte(process->space, entry, slot->original) != 0)
      return errno == ESRCH ? OFTR_MINE
                            : oftr_fail(tracer, errno, "cannot remove a breakpoint in process %d: %s",
                                        (int)process->pid, strerror(errno));
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
int oftr_program_trap(oftr_thread *thread) {
  if (!thread->process->ignores_trap) return SIGTRAP;
  siginfo_t info;
  if (ptrace(PTRACE_GETSIGINFO, thread->tid, 0, &info) == 0 && info.si_code > 0) {
    thread->process->ignores_trap = false;
    return SIGTRAP;
  }
  return 0;
}

/*
 * Whether a breakpoint's SIGTRAP is queued for the thread and not yet taken. A
 * thread executes int3 and the kernel queues the SIGTRAP; only on its way back
 * to user space does it take the signal and stop for it, and a pending
 * PTRACE_INTERRUPT is reported first. On a loaded machine the thread may wait
 * for a CPU between the two, and an interrupt stop then comes with the trap
 * still queued behind it. Let go there, the thread would take that SIGTRAP
 * untraced, and the kernel's default action ends its process.
 */
bool oftr_trap_queued(pid_t tid) {
  /* A trap's SIGTRAP is forced: never blocked. One the program queued itself while blocking it waits. */
  uint64_t blocked;
  if (ptrace(PTRACE_GETSIGMASK, tid, sizeof blocked, &blocked) != 0 || (blocked >> (SIGTRAP - 1)) & 1) return false;
  siginfo_t queued[8];
  struct __ptrace_peeksiginfo_args from = {.off = 0, .flags = 0, .nr = 8};
  for (;;) {
    long count = ptrace(PTRACE_PEEKSIGINFO, tid, &from, queued);
    if (count <= 0) return false;
    for (long i = 0; i < count; i++) {
      if (queued[i].si_signo == SIGTRAP && queued[i].si_code == SI_KERNEL) return true;
    }
    from.off += (uint64_t)count;
  }
}

static bool job_control(int signal) {
  return signal == SIGSTOP || signal == SIGTSTP || signal == SIGTTIN || signal == SIGTTOU;
}

static int dispatch(oftr_tracer *tracer, pid_t tid, int status, uint64_t now) {
  oftr_thread *thread = oftr_thread_find(tracer, tid);
  if (WIFEXITED(status) || WIFSIGNALED(status)) {
    if (!thread) return 0;
    oftr_process *process = thread->process;
    oftr_thread_remove(tracer, thread);
    if (process && tid == process->pid) oftr_process_end(tracer, process, OFTR_EXITED, status, now);
    return 0;
  }
  if (!WIFSTOPPED(status)) return 0;
  int signal = WSTOPSIG(status);
  int event = status >> 16;
  if (!thread || !thread->process) {
    /* A new task's first stop, ahead of its creator's event: hold it until that arrives. */
    if (!thread && !(thread = oftr_thread_add(tracer, tid, NULL))) return oftr_fail(tracer, ENOMEM, "out of memory");
    thread->parked = true;
    return 0;
  }
  switch (event) {
  case 0:
    if (signal == SIGTRAP) {
      int mine = oftr_breakpoint(tracer, thread, now);
      if (mine < 0) return -1;
      if (mine == OFTR_MINE_ANSWERED) return 0;
      if (mine == OFTR_MINE) return oftr_resume(tracer, tid, 0);
      return oftr_resume(tracer, tid, oftr_program_trap(thread));
    }
    return oftr_resume(tracer, tid, signal);
  case PTRACE_EVENT_CLONE:
  case PTRACE_EVENT_FORK:
  case PTRACE_EVENT_VFORK:
    return oftr_created(tracer, thread, event, now);
  case PTRACE_EVENT_EXEC:
    return oftr_execed(tracer, thread, now);
  case PTRACE_EVENT_STOP:
    /* Job control: stay stopped as without a tracer, until SIGCONT. Else a first stop or a wake-up. */
    if (job_control(signal)) {
      if (ptrace(PTRACE_LISTEN, tid, 0, 0) == 0 || errno == ESRCH) return 0;
      return oftr_fail(tracer, errno, "cannot keep thread %d stopped: %s", (int)tid, strerror(errno));
    }
    return oftr_resume(tracer, tid, 0);
  default:
    return oftr_resume(tracer, tid, 0);
  }
}

/* Handles one wait status. A stop that could not be answered is held for letting go. */
int oftr_handle(oftr_tracer *tracer, pid_t tid, int status, uint64_t now) {
  int result = dispatch(tracer, tid, status, now);
  if (result != 0 && WIFSTOPPED(status)) {
    oftr_thread *thread = oftr_thread_find(tracer, tid);
    if (thread && thread->process) thread->held = status;
  }
  return result;
}
