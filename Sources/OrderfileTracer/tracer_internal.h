/*
 * tracer_internal.h - the tracer's state: address spaces with their
 * breakpoints, processes, threads.
 */
#ifndef ORDERFILE_TRACER_INTERNAL_H
#define ORDERFILE_TRACER_INTERNAL_H


#include <signal.h>
#include <stdarg.h>
#include <sys/types.h>
#include <time.h>

#include "orderfile_tracer.h"

#define OFTR_BREAKPOINT 0xCCu     /* int3 */
#define OFTR_BREAKPOINT_LENGTH 1u /* the trapped thread's pc is one past the entry */

/* What a breakpoint slot holds. */
typedef enum oftr_slot_state {
  OFTR_SLOT_EMPTY = 0,
  OFTR_SLOT_ARMED = 1, /* the breakpoint byte is in memory */
  OFTR_SLOT_HIT = 2,   /* hit once and removed */
  OFTR_SLOT_HOOK = 3,  /* the loader's hook: stays armed, the trapped `ret` is emulated */
  OFTR_SLOT_WATCH = 4, /* sigaction's way into the kernel: stays armed, the covered instruction is stepped */
} oftr_slot_state;

typedef struct oftr_slot {
  uint64_t address;  /* runtime address of the entry */
  uint32_t module;   /* module index in the process that armed it */
  uint8_t original;  /* the byte the breakpoint replaced */
  uint8_t state;     /* oftr_slot_state */
  uint8_t stop;      /* its first call closes the launch window */
  uint8_t pending;   /* OFTR_SLOT_WATCH on an armed entry: its first call is not reported yet */
} oftr_slot;

/* One mapped ELF file, or a file mapping that is not one (skipped on later scans). */
typedef struct oftr_known_module {
  uint64_t device, inode, base; /* base: start of its lowest offset-0 mapping */
} oftr_known_module;

/*
 * The memory of one or more processes: one after fork(), shared with its
 * parent after vfork() until the child execs or exits. Breakpoints live here.
 */
typedef struct oftr_space {
  int references;
  int memory;                  /* /proc/PID/mem of a process using it, O_RDWR */
  oftr_slot *slots;            /* open addressing on address; capacity a power of two */
  uint64_t capacity, used;
  uint64_t armed;              /* slots in OFTR_SLOT_ARMED */
  oftr_known_module *known;
  uint32_t known_count, known_capacity;
  uint32_t module_count;       /* ELF modules reported to the host: the next index */
} oftr_space;

typedef struct oftr_process {
  pid_t pid;
  oftr_space *space;
  uint64_t start_ns;
  bool window_closed;
  bool detaching;
  bool reported;               /* the host was told this trace began */
  bool map_closed;             /* its memory map could not be read (non-dumpable): warned once */
  uint64_t recorder_ns;        /* time its threads were held stopped by the tracer since it started (a
                                * forked child inherits its parent's): the program's clock is
                                * CLOCK_MONOTONIC minus this */
  uint64_t arming_ns;          /* the part of it before the current image's first own call */
  bool ran;                    /* the current image made its first own call: arming_ns is final */
  bool ignores_trap;           /* it set SIGTRAP to SIG_IGN, as seen at the sigaction watch: the kernel
                                * puts SIG_DFL back whenever a breakpoint traps, so the tracer drops
                                * a SIGTRAP sent to it as the kernel would have */
  struct oftr_process *next;
} oftr_process;

typedef struct oftr_thread {
  pid_t tid;
  oftr_process *process;       /* NULL while its creator's event has not arrived */
  bool parked;                 /* stopped at its first stop, waiting for that event */
  uint64_t run_delay, slices;  /* its run delay and times scheduled in, at its last stop (schedstat) */
  uint64_t resumed_at;         /* when the tracer last let it run (oftr_resume), or 0 */
  uint64_t released_at;        /* when its last stop's handling ended: the recorder's time up to
                                * then is charged */
  int held;                    /* wait status of a stop collected but not answered (a failure
                                * interrupted its handling), else 0: PTRACE_INTERRUPT would
                                * give no new stop, so letting go must start from this one */
} oftr_thread;

typedef struct oftr_tracer {
  const oftr_options *options;
  const oftr_host *host;
  oftr_result *result;
  pid_t first;                 /* the program's first process */
  oftr_process *processes;
  oftr_thread *threads;
  uint32_t thread_count, thread_capacity;
  bool first_exited;
  oftr_ending let_go_as;       /* how a process let go ends for the host: OFTR_DETACHED or OFTR_INTERRUPTED */
} oftr_tracer;

/* diagnostics.c: errors set result->error and result->message (the first failure's) and return -1. */
int oftr_fail(oftr_tracer *tracer, int error, const char *format, ...) __attribute__((format(printf, 3, 4)));
void oftr_warn(oftr_tracer *tracer, const char *format, ...) __attribute__((format(printf, 2, 3)));
uint64_t oftr_now(void); /* CLOCK_MONOTONIC, ns */
/* How long the thread of `schedstat` has stood runnable without a CPU, in all (ns; 0 when the kernel
 * keeps no such count): across a wait, the time it took the tracer to answer a stop after the
 * kernel woke it, which is the program's held time as much as the handling that follows. */
uint64_t oftr_run_delay(int schedstat);
/* The calling thread's own schedstat file, for oftr_run_delay; -1 when there is none. */
int oftr_open_run_delay(void);
/* The same for thread `tid`, with how many times it was scheduled in; false when unknown. */
bool oftr_thread_run_delay(pid_t tid, uint64_t *waiting, uint64_t *slices);
/* `now` (CLOCK_MONOTONIC) on the program's clock: without the time the tracer held it. */
static inline uint64_t oftr_program_time(const oftr_process *process, uint64_t now) {
  return now - process->recorder_ns;
}

/* address_space.c: memory through /proc/PID/mem, the breakpoint table, mappings looked at. */
#define OFTR_PAGE 4096u
static inline uint64_t oftr_page_down(uint64_t address) { return address & ~(uint64_t)(OFTR_PAGE - 1); }

oftr_space *oftr_space_new(pid_t pid);
oftr_space *oftr_space_copy(const oftr_space *parent, pid_t pid);
void oftr_space_release(oftr_space *space);
int oftr_read_memory(oftr_space *space, uint64_t address, void *buffer, size_t length);
int oftr_write_byte(oftr_space *space, uint64_t address, uint8_t byte);
oftr_slot *oftr_space_find(oftr_space *space, uint64_t address);
void oftr_sort_addresses(uint64_t *addresses, size_t count);
/* Arms addresses (sorted; repeats and addresses already in the table are dropped, in place) for
 * `module`. *wanted: the new ones; *armed: those armed (a function starting with int3 is not).
 * Returns 0, or one of these with errno set and nothing recorded in the table. */
enum { OFTR_ARM_NO_MEMORY = -1, OFTR_ARM_NOT_WRITTEN = -2 };
int oftr_space_arm(oftr_space *space, uint64_t *addresses, size_t count, uint32_t module, size_t *armed,
                   size_t *wanted);
void oftr_space_mark_stop(oftr_space *space, uint64_t address);
/* The loader's hook: a breakpoint that stays (OFTR_SLOT_HOOK); `original` is the byte it covers. */
void oftr_space_add_hook(oftr_space *space, uint64_t address, uint8_t original);
/* The sigaction watch (OFTR_SLOT_WATCH) at `address`; an entry armed there keeps its first call.
 * Returns -1 when it could not be written. */
int oftr_space_add_watch(oftr_space *space, uint64_t address);
/* Puts back every live breakpoint (every_slot: every byte ever replaced, for a copy of memory
 * made while they were being removed); live slots become OFTR_SLOT_HIT. */
int oftr_restore_all(oftr_space *space, bool every_slot);
bool oftr_space_knows(const oftr_space *space, uint64_t device, uint64_t inode, uint64_t base);
int oftr_space_remember(oftr_space *space, uint64_t device, uint64_t inode, uint64_t base);

/* modules.c: reads the process's map and arms every module not seen before, as the host plans. */
int oftr_scan_modules(oftr_tracer *tracer, oftr_process *process);

/* processes.c: the tables of processes and threads, and each process's launch window. */
oftr_thread *oftr_thread_find(oftr_tracer *tracer, pid_t tid);
oftr_thread *oftr_thread_add(oftr_tracer *tracer, pid_t tid, oftr_process *process);
void oftr_thread_remove(oftr_tracer *tracer, oftr_thread *thread);
oftr_process *oftr_process_new(oftr_tracer *tracer, pid_t pid, oftr_space *space, uint64_t start_ns);
void oftr_process_free(oftr_tracer *tracer, oftr_process *process);
oftr_process *oftr_process_find(oftr_tracer *tracer, pid_t pid);
void oftr_report_end(oftr_tracer *tracer, oftr_process *process, oftr_ending ending, int status, uint64_t now);
/* The process ended: the host is told (when it was), and it leaves the tables. */
void oftr_process_end(oftr_tracer *tracer, oftr_process *process, oftr_ending ending, int status, uint64_t now);
int oftr_resume(oftr_tracer *tracer, pid_t tid, int signal);
void oftr_close_window(oftr_tracer *tracer, oftr_process *process, oftr_window_reason reason, uint64_t at);
/* Whether the process's launch window is open at `now`; closes it at its time limit. */
bool oftr_in_window(oftr_tracer *tracer, oftr_process *process, uint64_t now);

/* stops.c: one wait status of a traced thread. */
int oftr_handle(oftr_tracer *tracer, pid_t tid, int status, uint64_t now);
/* What a trap was (oftr_breakpoint()). */
enum { OFTR_NOT_MINE = 0, OFTR_MINE = 1, OFTR_MINE_ANSWERED = 2 };
int oftr_breakpoint(oftr_tracer *tracer, oftr_thread *thread, uint64_t now);
int oftr_program_trap(oftr_thread *thread);
/* Whether a trap's SIGTRAP is queued for the thread, not yet taken (its stop is still to come). */
bool oftr_trap_queued(pid_t tid);

/* events.c: a clone, fork or vfork event (PTRACE_EVENT_*), and an exec. Both answer the thread. */
int oftr_created(oftr_tracer *tracer, oftr_thread *thread, int event, uint64_t now);
int oftr_execed(oftr_tracer *tracer, oftr_thread *thread, uint64_t now);

/* letting_go.c: what letting go achieved. */
enum { OFTR_LET_GO = 0, OFTR_BREAKPOINTS_LEFT = -1, OFTR_THREADS_LEFT = -2 };
int oftr_detach_all(oftr_tracer *tracer);
void oftr_kill_all(oftr_tracer *tracer);
int oftr_let_go_or_kill(oftr_tracer *tracer);

/* signals.c: the tool's own signals while it traces (SIGTERM, SIGHUP, SIGINT, and a tick). */
#define OFTR_TERMINATION_COUNT 3u
/*
 * Handlers without SA_RESTART, so that a signal ends the tracer's waitpid. The
 * tracer's thread blocks these signals except while it waits (a host callback
 * never sees EINTR). A process-directed signal may land on another thread of
 * the host, and one may arrive between the check of the flag and the waitpid:
 * a timer that signals the tracer's own thread every 50 ms bounds how long
 * either goes unseen.
 */
typedef struct oftr_signal_state {
  struct sigaction saved[OFTR_TERMINATION_COUNT], saved_tick;
  sigset_t saved_mask, working_mask;
  timer_t timer;
  bool installed, timer_armed, termination;
} oftr_signal_state;

void oftr_signals_install(oftr_signal_state *state, bool termination);
void oftr_signals_restore(oftr_signal_state *state);
/* waitpid with the tracer's signals let through for its duration only. */
pid_t oftr_wait_for(const oftr_signal_state *state, pid_t pid, int *status, int flags);
/* Whether a termination signal arrived since oftr_signals_install. */
bool oftr_termination_requested(void);
int oftr_stop_on_signal(oftr_tracer *tracer, const oftr_signal_state *signals);

/* spawn.c: starts the program, seized before its execve; its process is the first of the tables. */
int oftr_spawn(oftr_tracer *tracer);

#endif /* ORDERFILE_TRACER_INTERNAL_H */
