/*
 * signals.c - the recorder's SIGTRAP handler, and the program's signal calls that would
 * otherwise defeat it.
 *
 * - sigaction and signal for SIGTRAP, and for SIGSEGV once read-only data is watched
 *   (data_pages.c): the program's handler is kept here, not installed; the recorder's
 *   handler calls it for every signal that is not the recorder's (a crash reporter's, a
 *   debugger-style int3 of the program's own, a fault outside the watched pages). SIGILL
 *   and the rest pass through untouched: the recorder raises none of them.
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

/* One signal the recorder handles itself. */
typedef struct of_signal {
  bool installed;
  struct sigaction program; /* what the program asked for; zero = SIG_DFL */
} of_signal;
static of_signal of_trap_signal, of_fault_signal;
/* The recorder's own: the trap signal, and the fault signal once installed. */
static of_signal *of_signal_for(int number) OF_NOINSTR;
static of_signal *of_signal_for(int number) {
  of_signal *kept = number == SIGTRAP ? &of_trap_signal : number == SIGSEGV ? &of_fault_signal : NULL;
  return kept != NULL && __atomic_load_n(&kept->installed, __ATOMIC_ACQUIRE) ? kept : NULL;
}
/* Thread-local blocked-ness of SIGTRAP as the program asked it, for reading masks back. */
static __thread bool of_program_blocks_trap;

/* Passes a signal the recorder did not raise to the program's handler, or its default. */
static void of_pass_on(int number, siginfo_t *info, void *raw, const of_signal *kept) OF_NOINSTR;
static void of_pass_on(int number, siginfo_t *info, void *raw, const of_signal *kept) {
  struct sigaction program = kept->program;
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
  /* The default action: die of the signal, as the program would have without the recorder. */
  struct sigaction fallback;
  memset(&fallback, 0, sizeof fallback);
  fallback.sa_handler = SIG_DFL;
  __sigaction(number, &fallback, NULL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, number);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  if (number == SIGSEGV && info->si_code > 0) {
    return; /* a real fault: the access runs again and now kills the process, as it would have */
  }
  raise(number);
}

static void of_on_trap(int number, siginfo_t *info, void *raw) OF_NOINSTR;
static void of_on_trap(int number, siginfo_t *info, void *raw) {
  if (!of_inprocess_handle_trap(info, raw)) {
    of_pass_on(number, info, raw, &of_trap_signal);
  }
}

static void of_on_fault(int number, siginfo_t *info, void *raw) OF_NOINSTR;
static void of_on_fault(int number, siginfo_t *info, void *raw) {
  if (info->si_code != SEGV_ACCERR || !of_inprocess_handle_fault(info, raw)) {
    of_pass_on(number, info, raw, &of_fault_signal);
  }
}

static bool of_install(int number, void (*handler)(int, siginfo_t *, void *), of_signal *kept) OF_NOINSTR;
static bool of_install(int number, void (*handler)(int, siginfo_t *, void *), of_signal *kept) {
  struct sigaction action, old;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = handler;
  /* SA_NODEFER: a signal inside a handler that another one interrupted is still caught. */
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (__sigaction(number, &action, &old) != 0) {
    return false;
  }
  kept->program = old;
  __atomic_store_n(&kept->installed, true, __ATOMIC_RELEASE);
  return true;
}

bool of_install_trap_handler(void) {
  return of_install(SIGTRAP, of_on_trap, &of_trap_signal);
}

bool of_install_fault_handler(void) {
  return of_signal_for(SIGSEGV) != NULL || of_install(SIGSEGV, of_on_fault, &of_fault_signal);
}

int sigaction(int number, const struct sigaction *action, struct sigaction *old) OF_EXPORT;
int sigaction(int number, const struct sigaction *action, struct sigaction *old) {
  of_signal *kept = of_signal_for(number);
  if (kept == NULL) {
    return __sigaction(number, action, old);
  }
  struct sigaction previous = kept->program;
  if (action != NULL) {
    kept->program = *action;
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
  if (of_signal_for(SIGTRAP) == NULL || set == NULL || how == SIG_UNBLOCK) {
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
