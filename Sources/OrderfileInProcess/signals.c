/*
 * signals.c - the recorder's SIGTRAP handler, and the program's signal calls that would
 * otherwise defeat it.
 *
 * - sigaction and signal for SIGTRAP: the program's handler is kept here, not installed;
 *   the recorder's handler calls it for every trap that is not the recorder's (a crash
 *   reporter's, a debugger-style int3 of the program's own). SIGSEGV and SIGILL pass
 *   through untouched: the recorder raises neither.
 * - sigprocmask and pthread_sigmask: SIGTRAP is taken out of every mask set, because a
 *   synchronous SIGTRAP raised while blocked kills the process (an allocator that blocks
 *   every signal in its threads would die at its first armed call). The mask a program
 *   reads back shows SIGTRAP as it asked for it.
 *
 * Limitations: a program that makes the raw system calls (rt_sigaction, rt_sigprocmask)
 * bypasses this; a thread that starts with every signal blocked by clone() flags alone
 * (not through pthread) keeps SIGTRAP blocked.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "inprocess.h"

#define OF_NOINSTR __attribute__((no_instrument_function))
#define OF_EXPORT __attribute__((visibility("default"))) OF_NOINSTR

/* libc's own sigaction, public under this name too; no dlsym needed before libc starts. */
extern int __sigaction(int signal, const struct sigaction *action, struct sigaction *old);

static bool of_installed;
static struct sigaction of_program_action; /* what the program asked for SIGTRAP; zero = SIG_DFL */
/* Thread-local blocked-ness of SIGTRAP as the program asked it, for reading masks back. */
static __thread bool of_program_blocks_trap;

static void of_on_trap(int number, siginfo_t *info, void *raw) OF_NOINSTR;
static void of_on_trap(int number, siginfo_t *info, void *raw) {
  ucontext_t *context = raw;
  if (of_inprocess_handle_trap(info, context)) {
    return;
  }
  struct sigaction program = of_program_action;
  if (program.sa_flags & SA_SIGINFO) {
    if (program.sa_sigaction != NULL) {
      program.sa_sigaction(number, info, raw);
      return;
    }
  } else if (program.sa_handler == SIG_IGN && info->si_code <= 0) {
    return; /* a SIGTRAP sent by kill() to a program that ignores it */
  } else if (program.sa_handler != SIG_DFL && program.sa_handler != SIG_IGN) {
    program.sa_handler(number);
    return;
  }
  /* The default action: die of SIGTRAP, as the program would have without the recorder. */
  struct sigaction fallback;
  memset(&fallback, 0, sizeof fallback);
  fallback.sa_handler = SIG_DFL;
  __sigaction(SIGTRAP, &fallback, NULL);
  sigset_t trap;
  sigemptyset(&trap);
  sigaddset(&trap, SIGTRAP);
  pthread_sigmask(SIG_UNBLOCK, &trap, NULL);
  raise(SIGTRAP);
}

bool of_install_trap_handler(void) {
  struct sigaction action, old;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = of_on_trap;
  /* SA_NODEFER: a trap inside a handler that another trap interrupted is still caught. */
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (__sigaction(SIGTRAP, &action, &old) != 0) {
    return false;
  }
  of_program_action = old;
  __atomic_store_n(&of_installed, true, __ATOMIC_RELEASE);
  return true;
}

int sigaction(int number, const struct sigaction *action, struct sigaction *old) OF_EXPORT;
int sigaction(int number, const struct sigaction *action, struct sigaction *old) {
  if (number != SIGTRAP || !__atomic_load_n(&of_installed, __ATOMIC_ACQUIRE)) {
    return __sigaction(number, action, old);
  }
  struct sigaction previous = of_program_action;
  if (action != NULL) {
    of_program_action = *action;
  }
  if (old != NULL) {
    *old = previous;
  }
  return 0;
}

sighandler_t signal(int number, sighandler_t handler) OF_EXPORT;
sighandler_t signal(int number, sighandler_t handler) {
  struct sigaction action, old;
  memset(&action, 0, sizeof action);
  action.sa_handler = handler;
  action.sa_flags = SA_RESTART; /* BSD semantics, as glibc's signal() */
  sigemptyset(&action.sa_mask);
  if (sigaction(number, &action, &old) != 0) {
    return SIG_ERR;
  }
  return old.sa_handler;
}

typedef int (*of_mask_function)(int how, const sigset_t *set, sigset_t *old);

static of_mask_function of_next(const char *name) OF_NOINSTR;
static of_mask_function of_next(const char *name) {
  return (of_mask_function)dlsym(RTLD_NEXT, name);
}

/* Calls libc's `next` with SIGTRAP never blocked, and reports it as the program set it. */
static int of_mask(of_mask_function next, int how, const sigset_t *set, sigset_t *old) OF_NOINSTR;
static int of_mask(of_mask_function next, int how, const sigset_t *set, sigset_t *old) {
  if (next == NULL) {
    errno = ENOSYS;
    return -1;
  }
  if (!__atomic_load_n(&of_installed, __ATOMIC_ACQUIRE) || set == NULL || how == SIG_UNBLOCK) {
    bool blocked = of_program_blocks_trap;
    if (set != NULL && how == SIG_UNBLOCK && sigismember(set, SIGTRAP) == 1) {
      of_program_blocks_trap = false;
    }
    int result = next(how, set, old);
    if (result == 0 && old != NULL && blocked) {
      sigaddset(old, SIGTRAP);
    }
    return result;
  }
  bool blocked = of_program_blocks_trap;
  bool asks = sigismember(set, SIGTRAP) == 1;
  sigset_t allowed = *set;
  sigdelset(&allowed, SIGTRAP);
  int result = next(how, &allowed, old);
  if (result != 0) {
    return result;
  }
  of_program_blocks_trap = how == SIG_SETMASK ? asks : (blocked || asks);
  if (old != NULL && blocked) {
    sigaddset(old, SIGTRAP);
  }
  return 0;
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old) OF_EXPORT;
int sigprocmask(int how, const sigset_t *set, sigset_t *old) {
  static of_mask_function next;
  if (next == NULL) {
    next = of_next("sigprocmask");
  }
  return of_mask(next, how, set, old);
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old) OF_EXPORT;
int pthread_sigmask(int how, const sigset_t *set, sigset_t *old) {
  static of_mask_function next;
  if (next == NULL) {
    next = of_next("pthread_sigmask");
  }
  int result = of_mask(next, how, set, old);
  /* pthread_sigmask reports errors as its result, not in errno. */
  return result == 0 ? 0 : errno;
}
