/*
 * tracer.c - start the program under ptrace and follow every stop until its
 * first process exits: oftr_record, the loop over wait statuses.
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
 * - clone/fork/vfork/exec events (events.c) and job-control stops (stops.c).
 *
 * One file per job: processes.c (the process and thread tables, the launch window),
 * stops.c (a wait status: traps, signals, registers), events.c (clone, fork, vfork,
 * exec), letting_go.c, signals.c (the tool's own), spawn.c; modules.c and
 * address_space.c arm, diagnostics.c words the failures.
 */
#define _GNU_SOURCE /* PTRACE_* of glibc, __WALL */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracer_internal.h"

/* ---- the launch's end ------------------------------------------------ */

/* The first process's window has closed (return_at_window_close); its time limit is
 * checked here too, since an idle program makes no stop to check it at. */
static bool launch_over(oftr_tracer *tracer, uint64_t now) {
  oftr_process *first = oftr_process_find(tracer, tracer->first);
  return first && !oftr_in_window(tracer, first, now);
}

/* Lets go of every process, which runs on without breakpoints, for the caller to end. */
static int let_go_at_window_close(oftr_tracer *tracer) {
  int detached = oftr_let_go_or_kill(tracer);
  if (detached == OFTR_BREAKPOINTS_LEFT) return -1;
  tracer->result->launch_over = true;
  tracer->result->first_pid = tracer->first;
  return detached == OFTR_LET_GO ? 0 : -1;
}

/*
 * A thread let go from a stop waits for a CPU before it runs on: on a loaded
 * machine that wait is long, and it is the tracer's doing. When the thread
 * was scheduled in once only since its last stop, all its run delay since
 * then is that wait, charged to the recorder; otherwise the kernel's counts
 * cannot tell it from being preempted, as it would be alone, and nothing is.
 * The wait began when the tracer resumed it, before that stop's handling
 * ended: the part up to then is in the stop's own charge already, and the
 * whole lies before `stopped_at`, so the program's clock never goes back.
 */
static void charge_resumption(oftr_thread *thread, uint64_t stopped_at) {
  uint64_t waiting, slices;
  if (!oftr_thread_run_delay(thread->tid, &waiting, &slices)) return;
  if (thread->slices != 0 && slices == thread->slices + 1 && waiting >= thread->run_delay) {
    uint64_t charge = waiting - thread->run_delay;
    if (thread->released_at) {
      if (thread->resumed_at && thread->resumed_at <= thread->released_at) {
        uint64_t charged = thread->released_at - thread->resumed_at;
        charge = charge > charged ? charge - charged : 0;
      }
      uint64_t since = stopped_at > thread->released_at ? stopped_at - thread->released_at : 0;
      if (charge > since) charge = since;
    }
    thread->process->recorder_ns += charge;
  }
  thread->run_delay = waiting;
  thread->slices = slices;
}

int oftr_record(const oftr_options *options, const oftr_host *host, oftr_result *result) {
  memset(result, 0, sizeof *result);
  oftr_tracer tracer = {.options = options, .host = host, .result = result, .let_go_as = OFTR_DETACHED};
  oftr_signal_state signals = {0};
  if (options->pass_termination_signals || (options->return_at_window_close && options->time_limit_ns))
    oftr_signals_install(&signals, options->pass_termination_signals);
  if (oftr_spawn(&tracer) != 0) {
    oftr_signals_restore(&signals);
    return -1;
  }
  int status = 0;
  /* This thread's own count (a host may record from any of its threads). */
  int schedstat = oftr_open_run_delay();
  while (!tracer.first_exited && status == 0) {
    if (oftr_termination_requested()) {
      status = oftr_stop_on_signal(&tracer, &signals);
      if (schedstat >= 0) close(schedstat);
      free(tracer.threads);
      oftr_signals_restore(&signals);
      return status;
    }
    if (options->return_at_window_close && launch_over(&tracer, oftr_now())) {
      status = let_go_at_window_close(&tracer);
      if (schedstat >= 0) close(schedstat);
      free(tracer.threads);
      oftr_signals_restore(&signals);
      return status;
    }
    int wait_status;
    uint64_t waiting_since = oftr_now(), delay = oftr_run_delay(schedstat);
    /* __WNOTHREAD: only this thread's children and tracees. A host that runs other programs
     * from other threads (a test runner does) keeps their exit statuses to itself. */
    pid_t tid = oftr_wait_for(&signals, -1, &wait_status, __WALL | __WNOTHREAD);
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
    oftr_thread *stopped = WIFSTOPPED(wait_status) ? oftr_thread_find(&tracer, tid) : NULL;
    pid_t held = stopped && stopped->process ? stopped->process->pid : 0;
    if (held) charge_resumption(stopped, stopped_at);
    status = oftr_handle(&tracer, tid, wait_status, stopped_at);
    oftr_process *process = held ? oftr_process_find(&tracer, held) : NULL;
    uint64_t released = oftr_now();
    if (process) process->recorder_ns += released - stopped_at;
    /* Found again: handling may have added threads (moving the table) or ended this one. */
    oftr_thread *handled = held ? oftr_thread_find(&tracer, tid) : NULL;
    if (handled) handled->released_at = released;
  }
  if (status != 0 && !tracer.first_exited) {
    /* Something failed mid-launch: let the program run on without us if we can. */
    size_t length = strlen(result->message);
    int detached = oftr_detach_all(&tracer);
    if (detached == OFTR_LET_GO) {
      snprintf(result->message + length, sizeof result->message - length, "; the program was detached");
    } else if (detached == OFTR_BREAKPOINTS_LEFT) {
      oftr_kill_all(&tracer);
      snprintf(result->message + length, sizeof result->message - length, "; the program was killed");
    }
  } else {
    int detached = oftr_detach_all(&tracer);
    if (detached == OFTR_BREAKPOINTS_LEFT) oftr_kill_all(&tracer);
    if (detached != OFTR_LET_GO) status = -1;
  }
  if (schedstat >= 0) close(schedstat);
  free(tracer.threads);
  oftr_signals_restore(&signals);
  return status;
}
