/*
 * spawn.c - starting the program: fork, seize the child before it execs, let it exec, and
 * say why when it cannot be traced or run.
 */
#define _GNU_SOURCE /* PTRACE_* of glibc, __WALL */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracer_internal.h"

#define OFTR_OPTIONS                                                                                          \
  (PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)

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

int oftr_spawn(oftr_tracer *tracer) {
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
  oftr_process *process = oftr_process_new(tracer, pid, NULL, start);
  if (!process || !oftr_thread_add(tracer, pid, process)) {
    kill(pid, SIGKILL);
    return oftr_fail(tracer, ENOMEM, "out of memory");
  }
  /* Forking this process (a large one, unlike a shell) and seizing the child are the
   * recorder's start, not the program's: its clock starts running at the execve. */
  process->recorder_ns = go_at - start;
  return 0;
}
