/*
 * processes.c - the tracer's tables of processes and threads, and each process's launch
 * window: what is traced, and what the host is told when a process ends or its window
 * closes.
 */
#define _GNU_SOURCE /* PTRACE_* of glibc, __WALL */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>

#include "tracer_internal.h"

oftr_thread *oftr_thread_find(oftr_tracer *tracer, pid_t tid) {
  for (uint32_t i = 0; i < tracer->thread_count; i++) {
    if (tracer->threads[i].tid == tid) return &tracer->threads[i];
  }
  return NULL;
}

oftr_thread *oftr_thread_add(oftr_tracer *tracer, pid_t tid, oftr_process *process) {
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

void oftr_thread_remove(oftr_tracer *tracer, oftr_thread *thread) {
  *thread = tracer->threads[--tracer->thread_count];
}

oftr_process *oftr_process_new(oftr_tracer *tracer, pid_t pid, oftr_space *space, uint64_t start_ns) {
  oftr_process *process = calloc(1, sizeof *process);
  if (!process) return NULL;
  process->pid = pid;
  process->space = space;
  process->start_ns = start_ns;
  process->next = tracer->processes;
  tracer->processes = process;
  return process;
}

void oftr_process_free(oftr_tracer *tracer, oftr_process *process) {
  for (oftr_process **link = &tracer->processes; *link; link = &(*link)->next) {
    if (*link == process) {
      *link = process->next;
      break;
    }
  }
  for (uint32_t i = 0; i < tracer->thread_count;) {
    if (tracer->threads[i].process == process) {
      oftr_thread_remove(tracer, &tracer->threads[i]);
    } else {
      i++;
    }
  }
  oftr_space_release(process->space);
  free(process);
}

oftr_process *oftr_process_find(oftr_tracer *tracer, pid_t pid) {
  for (oftr_process *process = tracer->processes; process; process = process->next) {
    if (process->pid == pid) return process;
  }
  return NULL;
}

/* The end of an image's trace, for the host: `now` on the program's clock, the recorder's time. */
void oftr_report_end(oftr_tracer *tracer, oftr_process *process, oftr_ending ending, int status, uint64_t now) {
  if (!process->ran) process->arming_ns = process->recorder_ns;
  tracer->host->process_ended(tracer->host->context, process->pid, ending, status, oftr_program_time(process, now),
                              process->recorder_ns, process->arming_ns);
}

void oftr_process_end(oftr_tracer *tracer, oftr_process *process, oftr_ending ending, int status, uint64_t now) {
  /* Ended while the recorder stops on a termination signal (often by that signal, sent to
   * the whole process group): for the host, its trace ends with the recording's. */
  bool stopping = ending == OFTR_EXITED && tracer->let_go_as == OFTR_INTERRUPTED;
  if (process->reported) oftr_report_end(tracer, process, stopping ? OFTR_INTERRUPTED : ending, status, now);
  if (process->pid == tracer->first && ending == OFTR_EXITED) {
    tracer->first_exited = true;
    tracer->result->status = status;
  }
  oftr_process_free(tracer, process);
}

/* A thread that vanished (killed) between its stop and our request is not an error. */
int oftr_resume(oftr_tracer *tracer, pid_t tid, int signal) {
  oftr_thread *thread = oftr_thread_find(tracer, tid);
  if (thread) thread->resumed_at = oftr_now();
  if (ptrace(PTRACE_CONT, tid, 0, (void *)(intptr_t)signal) == 0 || errno == ESRCH) return 0;
  return oftr_fail(tracer, errno, "cannot resume thread %d: %s", (int)tid, strerror(errno));
}

/* ---- the launch window ---------------------------------------------- */

/* `at` is on the program's clock. */
void oftr_close_window(oftr_tracer *tracer, oftr_process *process, oftr_window_reason reason, uint64_t at) {
  if (process->window_closed) return;
  process->window_closed = true;
  tracer->host->window_closed(tracer->host->context, process->pid, reason, at);
}

/* The time limit counts on the program's clock: arming and stops are not the program's time. */
bool oftr_in_window(oftr_tracer *tracer, oftr_process *process, uint64_t now) {
  uint64_t limit = tracer->options->time_limit_ns;
  if (!process->window_closed && limit && oftr_program_time(process, now) >= process->start_ns + limit)
    oftr_close_window(tracer, process, OFTR_WINDOW_TIME_LIMIT, process->start_ns + limit);
  return !process->window_closed;
}
