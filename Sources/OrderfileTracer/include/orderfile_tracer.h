/*
 * orderfile_tracer.h - record the first call of every function of an
 * unmodified program, with one-shot breakpoints placed through ptrace.
 *
 * The tracer starts the program under ptrace, writes a breakpoint byte (int3)
 * over the first byte of every function entry its host names, and waits. The
 * first thread to reach an entry traps; the tracer puts the original byte
 * back, moves the thread's instruction pointer back onto the entry, reports
 * the first call and lets the thread go on. Every later call runs at full
 * speed. Shared libraries are armed when the dynamic loader announces them
 * (its _dl_debug_state hook), before their constructors run.
 *
 * The tracer knows processes, threads and memory; it knows nothing of symbol
 * tables or of the trace format. Its host (the orderfile tool) says which
 * addresses of a module to arm and receives every first call through
 * callbacks. All callbacks run on the thread that called oftr_record().
 *
 * Guarantees:
 * - The program's output and exit status are its own: signals are passed on,
 *   breakpoints are removed exactly (the saved byte, the saved address).
 * - When the program's first process exits, any process it left running is
 *   detached cleanly: every breakpoint removed, every thread of it let go
 *   (a process ends for the host with its last thread, never its leader
 *   alone), a thread caught at a removed breakpoint rewound first.
 * - No wait is unbounded: a stop already collected when something failed is
 *   let go from that stop, and letting go gives up after 10 s.
 * - A process that makes itself non-dumpable keeps running: when its memory
 *   map can no longer be read, the tracer warns and arms nothing new in it.
 * - If the tracer's own process dies, the kernel kills the traced processes
 *   (PTRACE_O_EXITKILL): no program is left running with breakpoints in it.
 *   A termination signal the host asks to pass on (pass_termination_signals)
 *   does not kill the tracer: the program is let go first, then signalled.
 *
 * - A program that sets SIGTRAP to SIG_IGN is not killed by a SIGTRAP sent to
 *   it (kill, raise). The kernel puts SIG_DFL back whenever a breakpoint traps,
 *   before the tracer sees the trap; so the tracer follows what the program
 *   asks of SIGTRAP at the C library's sigaction (a breakpoint that stays, the
 *   covered instruction single-stepped) and drops a SIGTRAP sent to a program
 *   that ignores it, as the kernel would have.
 *
 * Limitations: x86-64 Linux only. A thread that blocks SIGTRAP finds it
 * unblocked after its first breakpoint. A program that ignores SIGTRAP reads
 * SIG_DFL back from sigaction() after a breakpoint, and one that sets it
 * with a raw rt_sigaction system call, or another thread's sigaction() run
 * during the single step, is not followed.
 */
#ifndef ORDERFILE_TRACER_H
#define ORDERFILE_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Why a process's trace begins (oftr_host.process_started). */
typedef enum oftr_origin {
  OFTR_SPAWNED = 0, /* the program the host asked for */
  OFTR_FORKED = 1,  /* fork() or vfork() of a traced process */
  OFTR_EXECED = 2,  /* a traced process replaced its image with execve() */
} oftr_origin;

/* Why a process's trace ends (oftr_host.process_ended). */
typedef enum oftr_ending {
  OFTR_EXITED = 0,   /* exit() or a fatal signal: status is the wait status */
  OFTR_REPLACED = 1, /* it called execve(): a new trace of the same pid follows */
  OFTR_DETACHED = 2, /* still running when the first process exited: let go */
  OFTR_INTERRUPTED = 3, /* let go, or ended, after the recorder received a termination signal */
} oftr_ending;

/* Why the launch window closed (oftr_host.window_closed). */
typedef enum oftr_window_reason {
  OFTR_WINDOW_STOP_FUNCTION = 1, /* a function the host named as the end was called */
  OFTR_WINDOW_TIME_LIMIT = 2,    /* the time limit passed */
} oftr_window_reason;

/* One module (an ELF object) mapped into a traced process. */
typedef struct oftr_module {
  const char *path;          /* the mapped file, from /proc/PID/maps */
  uint64_t load_base;        /* runtime address minus ELF virtual address */
  uint64_t text_start;       /* lowest ELF vaddr of its executable segments */
  uint64_t text_end;         /* one past the highest */
  const uint8_t *build_id;   /* GNU build-id as mapped, or NULL */
  uint32_t build_id_length;
  uint32_t index;            /* its index among this process's modules, from 0 */
  bool main_executable;      /* the file /proc/PID/exe names */
  bool interpreter;          /* the dynamic loader (AT_BASE) */
} oftr_module;

/*
 * The host's answer for one module: which entries to arm. The tracer reads
 * the arrays after plan_module returns: they must stay valid until
 * oftr_record returns.
 */
typedef struct oftr_plan {
  const uint64_t *entries;   /* ELF vaddrs of function entries; any order, repeats allowed */
  size_t entry_count;
  const uint64_t *stops;     /* entries whose first call closes the launch window */
  size_t stop_count;
  uint64_t loader_hook;      /* interpreter only: ELF vaddr of _dl_debug_state, or 0 */
  uint64_t signal_hook;      /* ELF vaddr of the function every sigaction() of the C library goes
                              * through (__libc_sigaction of glibc and musl), or 0 */
} oftr_plan;

typedef struct oftr_host {
  void *context;
  /* A module appeared in process `pid`; fill `plan` (it arrives zeroed). */
  void (*plan_module)(void *context, int32_t pid, const oftr_module *module, oftr_plan *plan);
  /* A process's trace begins. For OFTR_FORKED, `parent` is the forking process, whose
   * modules and first calls so far the child shares. `time_ns` is CLOCK_MONOTONIC for
   * OFTR_SPAWNED, the moment just before the fork that created it: the process start.
   *
   * Every later time given to the host is on the program's clock: CLOCK_MONOTONIC minus
   * the time the tracer held the process's threads stopped since the process started (a
   * forked child counts its parent's until the fork), so that the recorder's own work does
   * not count as the program's. The tracer handles one stop at a time, so this is a
   * monotonic clock; it leaves out the time between a thread's trap and the tracer's
   * wake-up, a few microseconds a stop. */
  void (*process_started)(void *context, int32_t pid, int32_t parent, oftr_origin origin, uint64_t time_ns);
  /* The first call of an armed entry, at its runtime address (the module's load_base plus
   * its ELF vaddr). `launch` is false after the window closed. */
  void (*first_call)(void *context, int32_t pid, uint32_t module, uint64_t address, uint64_t time_ns,
                     int32_t tid, bool launch);
  /* The launch window of `pid` closed at `time_ns`. */
  void (*window_closed)(void *context, int32_t pid, oftr_window_reason reason, uint64_t time_ns);
  /* A process's trace ends. `status` is a wait status for OFTR_EXITED, else 0. `recorder_ns`
   * is the time taken out of the program's clock since the process started; `arming_ns`
   * its part before this image's first own call (the child forked and seized, breakpoints
   * planted, libraries armed). */
  void (*process_ended)(void *context, int32_t pid, oftr_ending ending, int32_t status, uint64_t time_ns,
                        uint64_t recorder_ns, uint64_t arming_ns);
  /* Something the user should know; one line, no trailing newline. */
  void (*warning)(void *context, const char *message);
} oftr_host;

typedef struct oftr_options {
  const char *path;          /* the program file, already resolved through PATH */
  char *const *argv;         /* NULL-terminated, argv[0] included */
  char *const *envp;         /* NULL-terminated */
  uint64_t time_limit_ns;    /* the window closes this long after the spawn, on the program's clock
                              * (arming and stops left out); 0 = no limit */
  /* SIGTERM, SIGHUP or SIGINT to the recorder's process while it records: let go of every
   * process, pass the signal to the first one and wait for it to end (see oftr_record).
   * Installs handlers for those signals (and SIGALRM, as a wake-up) until oftr_record
   * returns: only for a host that owns its process's signals, such as a command-line tool. */
  bool pass_termination_signals;
  /* When the first process's launch window closes (its first call of a stop entry, or its
   * time limit, checked at least every 50 ms while the program idles): let go of every
   * process and return at once with `launch_over` set, the program still running. The
   * caller ends it (it is the caller's child) and waits for it. Installs a SIGALRM handler
   * as the wake-up until oftr_record returns. */
  bool return_at_window_close;
} oftr_options;

typedef struct oftr_result {
  int32_t status;            /* wait status of the first process; valid when oftr_record returns 0 */
  uint64_t armed;            /* breakpoints written, all processes */
  uint64_t hits;             /* first calls reported */
  uint64_t races;            /* traps of a second thread that reached an entry before its byte went back */
  uint64_t arm_ns;           /* time spent arming */
  int32_t signal;            /* the termination signal the recorder received and passed on, or 0 */
  bool launch_over;          /* return_at_window_close: returned at the window's close, the
                              * program let go and still running; `status` is not set */
  int32_t first_pid;         /* the first process, the caller's child */
  int error;                 /* errno of the failure when oftr_record returns -1 */
  char message[256];         /* what failed, one line, when oftr_record returns -1 */
} oftr_result;

/*
 * Runs the program under the tracer until its first process exits.
 *
 * With pass_termination_signals, a SIGTERM, SIGHUP or SIGINT sent to the
 * recorder ends the recording early without harming the program: every
 * breakpoint is removed and every process let go (OFTR_INTERRUPTED), the
 * signal is sent to the first process unless it is already pending there, and
 * the tracer waits for that process to end as the signal meant (passing on
 * any further such signal). `result->signal` then names the signal and
 * `result->status` is the first process's wait status.
 *
 * Returns 0 when the program ran (whatever its own exit status), -1 when the
 * tracer could not start or keep tracing it; `result->message` then says what
 * failed. On such a failure the tracer first tries to detach cleanly and
 * kills the program only when that fails too, saying so in the message.
 *
 * Preconditions: the recording runs on the calling thread, which the caller
 * must not let reap children while this runs (the tracer waits for any child
 * of that thread). Several recordings may run at once on different threads,
 * each writing only its own program's memory; but the handlers that
 * pass_termination_signals and return_at_window_close with a time limit
 * install are the process's, so only one recording at a time may ask for
 * them. Side effects: creates processes; signals.
 */
int oftr_record(const oftr_options *options, const oftr_host *host, oftr_result *result);

#ifdef __cplusplus
}
#endif

#endif /* ORDERFILE_TRACER_H */
