/*
 * events.c - a traced thread's clone, fork, vfork and exec events: the new thread joins
 * its process, a new process gets its copy of the breakpoints, an exec starts a new image
 * with new modules.
 */
#define _GNU_SOURCE /* PTRACE_* of glibc, __WALL */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include "tracer_internal.h"

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
int oftr_created(oftr_tracer *tracer, oftr_thread *thread, int event, uint64_t now) {
  /* thread_add may move the thread array: keep what is needed of `thread` now. */
  pid_t creator = thread->tid;
  oftr_process *parent = thread->process;
  unsigned long message = 0;
  if (ptrace(PTRACE_GETEVENTMSG, creator, 0, &message) != 0) return oftr_resume(tracer, creator, 0);
  pid_t child = (pid_t)message;
  bool parked = false;
  oftr_thread *created_thread = oftr_thread_find(tracer, child);
  if (created_thread) {
    parked = created_thread->parked;
  } else if (!(created_thread = oftr_thread_add(tracer, child, NULL))) {
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
    oftr_process *process = oftr_process_new(tracer, child, space, parent->start_ns);
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
      oftr_thread_remove(tracer, created_thread);
    } else if (oftr_resume(tracer, child, 0) != 0) {
      return -1;
    }
  }
  return oftr_resume(tracer, creator, 0);
}

/* The process replaced its image: a new trace for the same pid, new modules, new breakpoints. */
int oftr_execed(oftr_tracer *tracer, oftr_thread *thread, uint64_t now) {
  oftr_process *process = thread->process;
  pid_t pid = process->pid;
  /* Every other thread is gone, and the thread that called execve now has the pid. */
  for (uint32_t i = 0; i < tracer->thread_count;) {
    if (tracer->threads[i].process == process) {
      oftr_thread_remove(tracer, &tracer->threads[i]);
    } else {
      i++;
    }
  }
  if (!oftr_thread_add(tracer, pid, process)) return oftr_fail(tracer, ENOMEM, "out of memory");
  oftr_origin origin = OFTR_EXECED;
  if (process->reported) {
    oftr_report_end(tracer, process, OFTR_REPLACED, 0, now);
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
    oftr_thread *execing = oftr_thread_find(tracer, pid);
    if (execing) oftr_thread_remove(tracer, execing);
    oftr_process_end(tracer, process, tracer->let_go_as, 0, now);
    return 0;
  }
  if (oftr_scan_modules(tracer, process) != 0) return -1;
  return oftr_resume(tracer, pid, 0);
}
