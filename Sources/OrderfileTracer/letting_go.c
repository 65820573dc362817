/*
 * letting_go.c - detaching from every traced process so that it runs on without a
 * breakpoint (at the launch's end, on a termination signal, after a failure), or killing
 * them all when a breakpoint could not be removed.
 */
#define _GNU_SOURCE /* PTRACE_* of glibc, __WALL */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

#include "tracer_internal.h"

/* Threads of `process` still in the table. */
static bool has_threads(const oftr_tracer *tracer, const oftr_process *process) {
  for (uint32_t i = 0; i < tracer->thread_count; i++) {
    if (tracer->threads[i].process == process) return true;
  }
  return false;
}

/* Lets one stopped thread go; its process ends (for the host) with its last thread. */
static int let_go(oftr_tracer *tracer, pid_t tid, int wait_status, uint64_t now) {
  oftr_thread *thread = oftr_thread_find(tracer, tid);
  if (!WIFSTOPPED(wait_status)) {
    oftr_process *process = thread ? thread->process : NULL;
    int status = oftr_handle(tracer, tid, wait_status, now);
    /* Its last thread died while the others were let go: the process ends here. */
    for (oftr_process *alive = tracer->processes; process && alive; alive = alive->next) {
      if (alive == process && !has_threads(tracer, process)) {
        oftr_process_end(tracer, process, tracer->let_go_as, 0, now);
        break;
      }
    }
    return status;
  }
  int event = wait_status >> 16, signal = WSTOPSIG(wait_status);
  if (!thread || !thread->process) {
    /* A new task's first stop, ahead of its creator's event: oftr_created() lets it go. */
    if (!thread && !(thread = oftr_thread_add(tracer, tid, NULL))) return oftr_fail(tracer, ENOMEM, "out of memory");
    thread->parked = true;
    return 0;
  }
  thread->held = 0;
  if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK) {
    /* Follow the new task far enough to let it go too; oftr_created() resumes the creator. */
    int status = oftr_created(tracer, thread, event, now);
    if (oftr_thread_find(tracer, tid)) ptrace(PTRACE_INTERRUPT, tid, 0, 0);
    return status;
  }
  if (event == PTRACE_EVENT_EXEC) return oftr_execed(tracer, thread, now); /* detaches: the process is detaching */
  /* Interrupted with a breakpoint's SIGTRAP still queued: let go here, it would die of it.
   * Resumed, it takes the trap at once and stops for it, to be rewound and let go below. */
  if (event == PTRACE_EVENT_STOP && oftr_trap_queued(tid)) return oftr_resume(tracer, tid, 0);
  int deliver = 0;
  if (event == 0) {
    deliver = signal;
    /* A thread that trapped before its byte went back: rewound onto the entry, trap dropped. */
    if (signal == SIGTRAP) deliver = oftr_breakpoint(tracer, thread, now) == OFTR_MINE ? 0 : oftr_program_trap(thread);
  }
  oftr_process *process = thread->process;
  ptrace(PTRACE_DETACH, tid, 0, (void *)(intptr_t)deliver);
  oftr_thread_remove(tracer, thread);
  if (!has_threads(tracer, process)) oftr_process_end(tracer, process, tracer->let_go_as, 0, now);
  return 0;
}

/*
 * A new task parked at its first stop waits for its creator's clone, fork or
 * vfork event, which says what it is: that event is still to come while its
 * creator is traced (the creator stops at it before any interrupt). Let go
 * before it, the task would be let go twice, and its creator's event would
 * name a task that runs on untraced (or has already exited). Only when every
 * thread left is such a task can no event come any more (a creator killed
 * before reporting it): they are let go as they are.
 */
static bool only_unclaimed_left(const oftr_tracer *tracer) {
  for (uint32_t i = 0; i < tracer->thread_count; i++) {
    if (!tracer->threads[i].parked || tracer->threads[i].process) return false;
  }
  return true;
}

static void detach_unclaimed(oftr_tracer *tracer) {
  while (tracer->thread_count > 0) {
    ptrace(PTRACE_DETACH, tracer->threads[0].tid, 0, 0);
    oftr_thread_remove(tracer, &tracer->threads[0]);
  }
}

/* How long letting go may wait for every thread to stop: a thread stops at once unless it
 * waits in the kernel for another task (a vfork parent for its child's exec). */
#define OFTR_DETACH_LIMIT_NS (10ull * 1000000000ull)

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

/*
 * Detaches from every process still traced: removes every breakpoint first,
 * then stops each thread with PTRACE_INTERRUPT and lets it go from that stop.
 * A thread whose stop was collected but not answered is let go from that stop
 * (an interrupt would give no new one). A thread that trapped just before its
 * breakpoint was removed is rewound first, also when its interrupt stop came
 * ahead of its trap's (oftr_trap_queued); a signal it was about to receive
 * is delivered on detach. A process ends for the host when its last thread is
 * let go, never before: a thread left attached would die with the tracer.
 */
int oftr_detach_all(oftr_tracer *tracer) {
  uint64_t now = oftr_now();
  int status = OFTR_LET_GO;
  for (oftr_process *process = tracer->processes; process; process = process->next) {
    process->detaching = true;
    if (oftr_restore_all(process->space, false) != 0) {
      int error = errno;
      /* An image that exec replaced (its exec event not yet collected) or that is gone took
       * its breakpoints with it: the new image has none. A process that is dying (a signal
       * we just passed on) has no memory left to fix. */
      if (error != ESRCH && !process_dying(process->pid))
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
    } else {
      i++;
    }
  }
  uint64_t deadline = oftr_now() + OFTR_DETACH_LIMIT_NS;
  while (tracer->thread_count > 0) {
    if (only_unclaimed_left(tracer)) {
      detach_unclaimed(tracer);
      break;
    }
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
  while (tracer->processes) oftr_process_free(tracer, tracer->processes);
  tracer->thread_count = 0;
  return status;
}

/* The last resort when letting go failed: nothing may run on with breakpoints in it. */
void oftr_kill_all(oftr_tracer *tracer) {
  for (oftr_process *process = tracer->processes; process; process = process->next) kill(process->pid, SIGKILL);
  for (uint32_t i = 0; i < tracer->thread_count; i++) kill(tracer->threads[i].tid, SIGKILL);
  int status;
  while (waitpid(-1, &status, __WALL | __WNOTHREAD) > 0 || errno == EINTR) {
  }
  while (tracer->processes) oftr_process_free(tracer, tracer->processes);
  tracer->thread_count = 0;
}

/* Lets go of every process (oftr_detach_all); when breakpoints could not be removed, kills
 * them all instead, and the message says so. Returns oftr_detach_all's answer. */
int oftr_let_go_or_kill(oftr_tracer *tracer) {
  int detached = oftr_detach_all(tracer);
  if (detached == OFTR_BREAKPOINTS_LEFT) {
    oftr_kill_all(tracer);
    size_t length = strlen(tracer->result->message);
    snprintf(tracer->result->message + length, sizeof tracer->result->message - length, "; the program was killed");
  }
  return detached;
}
