/*
 * runtime_internal.h - state and helpers shared by the runtime's source files.
 *
 * Nothing here is exported: the whole file is under hidden visibility, so a
 * process that loads the runtime has exactly one copy of this state, reached
 * only through the exported hooks and the functions of orderfile.h.
 */
#ifndef ORDERFILE_RUNTIME_INTERNAL_H
#define ORDERFILE_RUNTIME_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "orderfile_trace_format.h"

#pragma GCC visibility push(hidden)

/* Every function of the runtime: never instrumented, or the hooks recurse. */
#define OF_NOINSTR __attribute__((no_instrument_function))

/* Module entries reserved in every trace (1 MiB of the file, sparse until used). */
#define OF_MODULE_CAPACITY 256u

/* ORDERFILE_CAPACITY bounds. The upper one equals the seen-set's insert limit
 * (see hooks.c), so the record capacity always runs out before the set does. */
#define OF_CAPACITY_MIN 1024u
#define OF_CAPACITY_MAX (1u << 20)
#define OF_CAPACITY_DEFAULT OF_CAPACITY_MAX

/* ORDERFILE_MARKS bounds: the reader accepts at most 2^16. */
#define OF_MARKS_MIN 1u
#define OF_MARKS_MAX (1u << 16)
#define OF_MARKS_DEFAULT 256u

/* ORDERFILE_EVENTS (per thread) and ORDERFILE_EVENT_THREADS bounds: at most 64 GiB of
 * (sparse) buffers in all, well inside what the reader accepts. */
#define OF_EVENTS_MIN 16u
#define OF_EVENTS_MAX (1u << 22)
#define OF_EVENTS_DEFAULT (1u << 18)
#define OF_EVENT_THREADS_MIN 1u
#define OF_EVENT_THREADS_MAX 1024u
#define OF_EVENT_THREADS_DEFAULT 64u

#define OF_DEFAULT_PATTERN "orderfile-%e-%p.trace"
/* Granularity of a start taken from ORDERFILE_SPAWN: a clock reading, not a tick. */
#define OF_SPAWN_RESOLUTION_NS 1000u
#define OF_PATH_CAPACITY PATH_MAX

/* of_runtime.init_state */
enum {
  OF_INIT_NONE = 0,      /* no hook has run yet */
  OF_INIT_RUNNING = 1,   /* one thread is initializing; the others wait */
  OF_INIT_RECORDING = 2, /* the trace file is mapped */
  OF_INIT_DISABLED = 3,  /* ORDERFILE_DISABLE=1, or the trace file could not be created */
  OF_INIT_DELEGATED = 4, /* another copy of the runtime owns the trace (shared_instance.c) */
};

/* of_runtime.gate: bit 0 = stopped; the bits above count forks in progress. */
#define OF_GATE_STOPPED 1u
#define OF_GATE_FORK 2u

/* of_runtime.window_state */
enum { OF_WINDOW_STATE_OPEN = 0, OF_WINDOW_STATE_CLOSING = 1, OF_WINDOW_STATE_CLOSED = 2 };

/* Settings read from the environment at initialization. */
typedef struct of_config {
  char pattern[OF_PATH_CAPACITY]; /* ORDERFILE_OUTPUT */
  uint64_t time_limit_ms;         /* 0 = no limit */
  uint64_t capacity;              /* records */
  uint32_t mark_capacity;         /* ORDERFILE_MARKS */
  uint64_t event_capacity;        /* ORDERFILE_EVENTS: events per thread buffer */
  uint32_t event_threads;         /* ORDERFILE_EVENT_THREADS: thread buffers */
  bool full_mode;                 /* ORDERFILE_MODE=full */
  bool disabled;
  bool verbose;
  bool emulated;                  /* ORDERFILE_EMULATED: run under a user-mode emulator */
  uint32_t spawner_pid;           /* ORDERFILE_SPAWN "<pid>:<ns>": the recorder that started us */
  uint64_t spawn_ns;              /* its CLOCK_MONOTONIC just before the spawn; 0 = not given */
} of_config;

/*
 * The runtime's one instance of mutable state. Zero-initialized in .bss: all
 * fields are valid before initialization. Fields in the first group are
 * written by the initializing thread (or the fork child handler) before
 * `init_state` is published with release; readers load `init_state` with
 * acquire first.
 */
typedef struct of_runtime {
  /* Set once by initialization (and replaced in a fork child). */
  uint8_t *base;           /* the MAP_SHARED mapping of the trace file */
  oft_header *header;      /* == (oft_header *)base */
  uint64_t mapping_size;   /* bytes mapped: the file at full capacity */
  int fd;                  /* the trace file, O_CLOEXEC */
  uint64_t record_capacity;
  uint32_t mark_capacity;
  uint32_t event_thread_capacity; /* 0 unless full mode */
  uint64_t event_capacity;        /* events per thread buffer; 0 unless full mode */
  uint64_t deadline_ns;    /* CLOCK_MONOTONIC end of the window; 0 = none */
  bool verbose;
  bool may_preallocate;    /* false once fallocate() said the file system can't */
  uint64_t page_size;      /* sysconf(_SC_PAGESIZE): disk blocks are reserved in whole pages */
  char path[OF_PATH_CAPACITY];     /* this process's trace file */
  char pattern[OF_PATH_CAPACITY];  /* ORDERFILE_OUTPUT, expanded again after fork */
  char executable_name[NAME_MAX + 1];

  /* Synchronization. */
  uint32_t init_state;     /* OF_INIT_* */
  uint32_t init_pid;       /* the process that started initializing */
  uint32_t gate;           /* OF_GATE_*: read by every writer (seq_cst) */
  uint32_t in_flight;      /* writers between of_writer_enter and of_writer_leave */
  uint32_t window_state;   /* OF_WINDOW_STATE_* */
  uint32_t finished;       /* set by the first of_finish() */
  uint32_t storage_full;   /* set when the file system refused to extend the trace */
  uint64_t backed_bytes;   /* the records are allocated on disk up to this file offset */
  pthread_mutex_t lock;    /* module table, module cache, disk allocation */
  bool fork_locked;        /* the fork prepare handler holds `lock` */
  oft_header fork_header;  /* header snapshot taken by the fork prepare handler */
  bool fork_snapshot;      /* fork_header is valid for the fork in progress */
} of_runtime;

extern of_runtime of_rt;

/*
 * Full mode's switch: non-zero while enter and exit events are recorded (full
 * mode, runtime started, window open). The exit hook reads it with one relaxed
 * load; it is set once by initialization and cleared when the window closes.
 */
extern uint8_t of_events_on;

/* Per-thread state (no allocation, no lock on access; see OF_TLS_MODEL). */
typedef struct of_thread {
  uint32_t tid;   /* cached gettid(); 0 = not yet read (reset in a fork child) */
  uint32_t busy;  /* inside the runtime or a fork: a hook on this thread records nothing */
  uint32_t writing; /* this thread is between of_writer_enter and of_writer_leave */
  uint32_t fork_gated; /* this thread's fork prepare handler closed the gate */
  uint32_t events_state; /* full mode: OF_EVENTS_* */
  oft_thread_buffer *events; /* full mode: this thread's buffer in the mapping (OF_EVENTS_OWNED) */
  uint64_t events_last_ns; /* the time of this thread's last event, for the non-decreasing clamp */
  uint64_t events_busy_lost; /* events that arrived while this thread was inside the runtime */
} of_thread;

/* of_thread.events_state */
enum {
  OF_EVENTS_NONE = 0,     /* no buffer claimed yet (reset in a fork child) */
  OF_EVENTS_OWNED = 1,    /* `events` is this thread's buffer */
  OF_EVENTS_REFUSED = 2,  /* no buffer left: events go to unbuffered_events */
};

/* Initial-exec TLS costs one load on access, but a library loaded with dlopen() can only have
 * it from glibc's small static TLS reserve. The embedded archive goes into exactly such
 * libraries, so it uses the general model: slower, and only the slow paths touch of_self. */
#ifdef OF_EMBEDDED
#define OF_TLS_MODEL "global-dynamic"
#else
#define OF_TLS_MODEL "initial-exec"
#endif

extern __thread of_thread of_self __attribute__((tls_model(OF_TLS_MODEL)));

/* How of_public_call runs the body of a public call. */
typedef enum {
  OF_CALL_AS_WRITER, /* between of_writer_enter and of_writer_leave: it writes into the trace */
  OF_CALL_ALONE,     /* outside them: it finishes the trace, waiting for the writers itself */
} of_call_kind;

/*
 * The recorder's own time (trace format 1.3), for a recorder that runs inside the process
 * and stops its threads (the in-process recorder of Sources/OrderfileInProcess). Set before
 * the runtime starts, when `enabled`; the trace then carries OFT_FLAG_PROGRAM_CLOCK and
 * every time the runtime writes is CLOCK_MONOTONIC minus `recorder_ns` at that moment.
 */
typedef struct of_program_clock {
  bool enabled;
  uint64_t arming_ns;   /* spent before the program's first own instruction */
  uint64_t recorder_ns; /* in all, so far (arming included); grows with relaxed adds */
  uint64_t children_ns; /* the part of it charged for children waited for (children.c) */
  uint64_t latest_stamp_ns; /* the latest record's time: each is later (see of_stamp_ns) */
} of_program_clock;

extern of_program_clock of_clock;

/* state.c: the state above, the clock, the thread id, one warning line (a leaf) */
uint64_t of_now_ns(void) OF_NOINSTR;  /* the program's clock (see of_clock) */
/* The program's clock at `wall_ns`, a CLOCK_MONOTONIC reading taken since the recorder last
 * added to its time (a trap handler's start, before its own work). */
uint64_t of_program_ns(uint64_t wall_ns) OF_NOINSTR;
uint64_t of_stamp_ns(uint64_t wall_ns) OF_NOINSTR; /* a record's time: of_program_ns, each later */
uint64_t of_wall_ns(void) OF_NOINSTR; /* CLOCK_MONOTONIC */
uint32_t of_thread_id(void) OF_NOINSTR;
void of_warn(const char *format, ...) __attribute__((format(printf, 1, 2))) OF_NOINSTR;

/* startup.c */
bool of_ensure_started(void) OF_NOINSTR;

/* writers.c */
bool of_writer_enter(void) OF_NOINSTR;
void of_writer_leave(void) OF_NOINSTR;
bool of_wait_for_writers(void) OF_NOINSTR;

/* storage.c: disk allocation */
/* Disk space is allocated ahead of the records in steps of this many bytes. */
#define OF_BACKING_STEP (256u * 1024u)
bool of_allocate(uint64_t offset, uint64_t length) OF_NOINSTR;
uint64_t of_allocate_some(uint64_t offset, uint64_t length) OF_NOINSTR;
bool of_back_shared_pages(const oft_header *layout, uint64_t file_size) OF_NOINSTR;
bool of_back_record(uint64_t index) OF_NOINSTR;
void of_stop_for_storage(int error) OF_NOINSTR;
/* `offset` rounded down, or up, to a multiple of of_rt.page_size. */
uint64_t of_page_floor(uint64_t offset) OF_NOINSTR;
uint64_t of_page_ceil(uint64_t offset) OF_NOINSTR;

/* records.c */
void of_record_first_call(uintptr_t pc) OF_NOINSTR;
/* The same, for a call seen earlier, at `time_ns` on thread `tid`. */
void of_record_call(uintptr_t pc, uint64_t time_ns, uint32_t tid) OF_NOINSTR;
void of_record_data_page(uintptr_t module_pc, uintptr_t page, uint64_t size, uint64_t now) OF_NOINSTR;
void of_note_table_full(void) OF_NOINSTR;
void of_close_window(uint32_t reason, uint64_t now_ns) OF_NOINSTR;

/* finish.c */
void of_finish(void) OF_NOINSTR;
void of_at_exit(void) OF_NOINSTR;

/* calls.c: the frame of a public call, and the owner's bodies of the public calls */
void of_public_call(void (*body)(const void *argument), const void *argument, of_call_kind kind)
    OF_NOINSTR;
void of_local_mark(const char *name) OF_NOINSTR;
void of_local_startup_complete(void) OF_NOINSTR;
void of_local_finish(void) OF_NOINSTR;

/* events.c */
void of_write_mark(const void *argument) OF_NOINSTR;
void of_record_event(uintptr_t pc, uint64_t exit_bit) OF_NOINSTR;

/* text_rss.c */
void of_sample_text_rss(void) OF_NOINSTR;

/* hooks.c: this copy's __cyg_profile_func_enter, not the one the name binds to */
void of_own_enter(void *function, void *call_site) OF_NOINSTR;

/* config.c */
void of_read_config(of_config *config) OF_NOINSTR;
/* ORDERFILE_SPAWN's "<pid>:<ns>" (see of_config.spawner_pid); false, and nothing stored, for any other text. */
bool of_parse_spawn(const char *text, uint32_t *pid, uint64_t *time_ns) OF_NOINSTR;
/* The first fields of the schedstat file at `path` (/proc/thread-self/schedstat, a thread's;
 * /proc/self/schedstat, the main thread's): its time on a core and its time waiting for one,
 * in ns, and how many times it was switched in (0 where the file has no third field). False
 * when the file cannot be read or holds no two numbers. No allocation, no stdio. */
bool of_read_schedstat(const char *path, uint64_t *run_ns, uint64_t *waited_ns, uint64_t *slices) OF_NOINSTR;

/* modules.c */
bool of_module_for(uintptr_t pc, uint16_t *index, uintptr_t *load_base) OF_NOINSTR;

/* output_path.c (async-signal-safe) */
bool of_expand_pattern(char *out, size_t capacity, const char *pattern, uint32_t pid,
                       const char *executable_name, bool force_pid) OF_NOINSTR;
bool of_pattern_is_valid(const char *pattern, char *bad_escape) OF_NOINSTR;
size_t of_format_u64(char *out, uint64_t value) OF_NOINSTR;
void of_write_stderr(const char *const *parts, size_t count) OF_NOINSTR;

/* Who is creating a trace, to tell a trace of its own earlier image (before exec) from others. */
typedef struct of_identity {
  uint32_t pid;
  uint64_t start_ns;            /* process start, as in the header */
  uint64_t start_resolution_ns; /* 0: unknown */
  bool check_exec;              /* false in a fork child: it has no earlier image */
} of_identity;

/* What stood at a trace path (of_open_trace). */
typedef enum of_claim {
  OF_CLAIM_FREE,      /* nothing, an empty file or another process's finished trace: replaced */
  OF_CLAIM_OWN_IMAGE, /* this process's trace from before an exec: kept */
  OF_CLAIM_BUSY,      /* the trace of a runtime still recording (its file is locked) */
  OF_CLAIM_FOREIGN,   /* a file that is not a trace: kept */
  OF_CLAIM_ERROR,     /* see the error (EINVAL: not a regular file) */
} of_claim;

/* A trace being created: written at `temporary`, renamed to `path` when its header is in. */
typedef struct of_new_trace {
  int fd;       /* the new file, locked */
  int held;     /* the file at `path` it replaces, locked until then; -1 for none */
  bool created; /* `held` is an empty placeholder this runtime created */
  char path[OF_PATH_CAPACITY];
  char temporary[OF_PATH_CAPACITY];
} of_new_trace;

/* Most images of one process (a program that execs itself) that each get a trace. */
#define OF_EXEC_IMAGES_MAX 1000u

of_claim of_open_trace(const char *path, uint64_t size, const of_identity *self, of_new_trace *trace,
                       int *error_out) OF_NOINSTR;
bool of_publish_trace(of_new_trace *trace, int *error_out) OF_NOINSTR;
void of_abandon_trace(of_new_trace *trace) OF_NOINSTR;
bool of_join(char *out, const char *first, const char *second, const char *third) OF_NOINSTR;

/* shared_instance.c: the copy of the runtime that owns the process's trace. */
typedef struct of_instance {
  uint64_t magic;   /* set last, with release, once the fields below are in */
  uint32_t version;
  uint32_t reserved;
  void (*first_call)(uintptr_t pc); /* a first call seen by another copy's hooks */
  void (*mark)(const char *name);
  void (*startup_complete)(void);
  void (*finish)(void);
} of_instance;

/* Claims the process's trace for this copy (NULL: record here) or returns the owner's. */
const of_instance *of_join_instance(void) OF_NOINSTR;

/* state.c: the owner this copy forwards to, set by of_join_instance; NULL: none. */
extern const of_instance *of_owner;
/* The owner this copy forwards to, once of_ensure_started has found one; else NULL. */
const of_instance *of_owner_instance(void) OF_NOINSTR;
/* Hands a first call this copy's hooks saw to the owner, if there is one. */
void of_forward_first_call(uintptr_t pc) OF_NOINSTR;

/* api.c: the owner a public call must be handed to, starting the runtime first; NULL: run it here. */
const of_instance *of_owner_for_call(void) OF_NOINSTR;

/* hooks.c: the owner's side of of_forward_first_call */
void of_accept_first_call(uintptr_t pc) OF_NOINSTR;

/* fork.c */
void of_fork_prepare(void) OF_NOINSTR;
void of_fork_parent(void) OF_NOINSTR;
void of_fork_child(void) OF_NOINSTR;

#pragma GCC visibility pop

#endif /* ORDERFILE_RUNTIME_INTERNAL_H */
