/*
 * signals.c - the tool's own signals while it traces: a termination signal (^C, SIGTERM)
 * stops the recording and is passed on to the program; a tick ends a blocked waitpid so
 * that a time limit is noticed while the program idles.
 */
#define _GNU_SOURCE /* PTRACE_* of glibc, __WALL */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tracer_internal.h"

/* The last termination signal received, and how many: a second one is passed on too. */
static volatile sig_atomic_t termination_signal, termination_count;

static void on_termination(int signal) {
  termination_signal = signal;
  termination_count++;
}

/* The wake-up tick: its only job is to end a blocked waitpid with EINTR. */
static void on_tick(int signal) { (void)signal; }

static const int termination_signals[OFTR_TERMINATION_COUNT] = {SIGTERM, SIGHUP, SIGINT};

/* `termination`: the termination handlers too; without, only the tick (a launch that ends
 * at its time limit must be noticed while the program idles). */
void oftr_signals_install(oftr_signal_state *state, bool termination) {
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

void oftr_signals_restore(oftr_signal_state *state) {
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
pid_t oftr_wait_for(const oftr_signal_state *state, pid_t pid, int *status, int flags) {
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

bool oftr_termination_requested(void) { return termination_count > 0; }

/*
 * The recorder was asked to stop: let go of everything, then end the first
 * process the way the signal meant, and wait for it as a shell would.
 */
int oftr_stop_on_signal(oftr_tracer *tracer, const oftr_signal_state *signals) {
  int signal = termination_signal, seen = termination_count;
  tracer->let_go_as = OFTR_INTERRUPTED;
  if (oftr_let_go_or_kill(tracer) == OFTR_BREAKPOINTS_LEFT) return -1;
  tracer->result->signal = signal;
  /* Sent to the whole process group (a terminal's ^C, timeout(1)), the signal may have
   * reached the program first and been passed on already: then it has ended, or it is on
   * its way. */
  if (tracer->first_exited) return 0;
  if (!signal_pending(tracer->first, signal)) kill(tracer->first, signal);
  for (;;) {
    int status;
    pid_t got = oftr_wait_for(signals, tracer->first, &status, 0);
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
