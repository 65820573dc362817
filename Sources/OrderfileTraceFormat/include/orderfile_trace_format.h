/*
 * orderfile_trace_format.h - the on-disk layout of an orderfile launch trace.
 *
 * This header is the single definition of the binary trace format. The
 * runtime includes it to write traces through a shared mapping of the file;
 * the `orderfile` tool imports it into Swift (the OrderfileTraceFormat
 * target) and takes every size, offset and constant from it, so reader,
 * encoder and runtime cannot disagree. Docs/TraceFormat.md explains it in
 * prose. It is plain C11 (gcc -std=c11 compiles it) so that any recorder can
 * include it.
 *
 * Every field's offset is pinned below (OFT_FIELDS): a change to a structure
 * that moves a field breaks the format, and fails to compile instead.
 *
 * All integers are little-endian, fixed width, naturally aligned. The file is:
 *
 *   offset 0                       header           (OFT_HEADER_SIZE bytes)
 *   offset module_table_offset     module entries   (module_capacity * OFT_MODULE_SIZE)
 *   offset marks_offset            marks            (mark_capacity * OFT_MARK_SIZE)        1.1
 *   offset events_offset           thread buffers   (event_thread_capacity *
 *                                                    oft_thread_buffer_size(event_capacity)) 1.1
 *   offset records_offset          records          (record_capacity * OFT_RECORD_SIZE)
 *
 * Each region starts where the one before ends; oft_init_header() computes
 * the offsets from the capacities, and readers refuse any other offsets.
 *
 * Version 1.1 added the marks and the full-mode thread buffers, described by
 * the header extension (`marks_offset` ... `extension_checksum`). A 1.0 file
 * has zeroes there (extension_checksum 0) and its records follow the module
 * table directly.
 *
 * Version 1.2 says where the process start came from (`process_start_source`,
 * formerly reserved0, so 0 in older files) and when the runtime's own start-up
 * ended (`startup_end_ns`, formerly the first bytes of reserved3). The layout
 * is otherwise unchanged: a 1.1 reader reads a 1.2 file, and a 1.2 reader
 * takes an older file's start as OFT_START_PROC_STAT.
 *
 * Version 1.4 adds a record kind, OFT_KIND_DATA_PAGE: the first touch of a page of a
 * module's read-only data (after relocation) inside the launch window: the byte touched,
 * and the page's size in the record's former `reserved` field, now `size`. A 1.3 reader skips such
 * records as a record kind it does not know.
 *
 * Version 1.5 says how much of `recorder_ns` is other processes' recorder time, charged while
 * this one waited for its children (`children_ns`, formerly bytes of reserved3, so 0 in older
 * files).
 *
 * A cleanly closed trace is truncated right after its last record; a trace of
 * a process that crashed, was killed or called _exit keeps its full capacity
 * (the tail is sparse zeroes) and lacks OFT_FLAG_CLOSED. (Recorded in-process,
 * _exit and _Exit end the trace as exit does.)
 *
 * Ordering: a writer reserves a record slot with an atomic increment of
 * `record_count`, fills the record, and stores its `check` byte last with
 * release semantics. A record whose check byte is zero was reserved but never
 * completed (its thread died or the process was killed mid-write); a reader
 * skips it and counts it. A non-zero check byte that does not match the
 * record's contents means corruption.
 */
#ifndef ORDERFILE_TRACE_FORMAT_H
#define ORDERFILE_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "ORDTRACE" read as a little-endian u64. */
#define OFT_MAGIC 0x454341525444524FULL
#define OFT_VERSION_MAJOR 1 /* a reader refuses any other major version */
#define OFT_VERSION_MINOR 5 /* a reader accepts newer minors, skipping unknown record kinds */

#define OFT_HEADER_SIZE 4096u
#define OFT_MODULE_SIZE 4096u
#define OFT_RECORD_SIZE 32u
#define OFT_MODULE_PATH_CAPACITY 3984u
#define OFT_BUILD_ID_CAPACITY 64u
#define OFT_MARK_SIZE 64u
#define OFT_MARK_NAME_CAPACITY 40u
#define OFT_THREAD_BUFFER_HEADER_SIZE 64u
#define OFT_EVENT_SIZE 16u
#define OFT_HEADER_EXTENSION_OFFSET 256u /* where the 1.1 extension starts in the header */

/* Bit 63 of an event's word: the event is a function exit (else an entry). */
#define OFT_EVENT_EXIT (1ull << 63)

/* Header flags. */
#define OFT_FLAG_CLOSED 0x1u          /* finalized by exit(): counts and sizes are final */
#define OFT_FLAG_WINDOW_CLOSED 0x2u   /* the launch window ended before exit */
#define OFT_FLAG_FORKED 0x4u          /* this trace continues a parent's trace after fork() */
#define OFT_FLAG_METRICS 0x8u         /* minor/major fault counts at window end are valid */
#define OFT_FLAG_PROGRAM_CLOCK 0x10u  /* 1.3: every time after process start (records, marks, events,
                                       * window_end_ns, end_ns, startup_end_ns) is on the program's
                                       * clock: CLOCK_MONOTONIC minus the recorder's own time
                                       * (recorder_ns) spent before it, so that a recorder that stops
                                       * or interrupts the program does not count as the program */
#define OFT_FLAG_EMULATED 0x20u       /* the program ran under a user-mode emulator (qemu-user; the
                                       * recorder sets ORDERFILE_EMULATED=1): every time is the
                                       * emulator's, its start-up in the loader's, not the program's
                                       * on its machine. A reader that does not know it loses only
                                       * that note, so it needs no new minor version */

/* Why the launch window closed (header.window_reason). */
#define OFT_WINDOW_OPEN 0u            /* still open when the trace ended */
#define OFT_WINDOW_STARTUP_COMPLETE 1u /* the program called orderfile_startup_complete() */
#define OFT_WINDOW_TIME_LIMIT 2u      /* ORDERFILE_TIME_LIMIT_MS elapsed */
#define OFT_WINDOW_EXIT 3u            /* the process exited with the window open */
#define OFT_WINDOW_SIGNAL 4u /* record was sent SIGINT, SIGTERM or SIGHUP and passed it on */

/* Where process_start_ns comes from (header.process_start_source, version 1.2). */
#define OFT_START_PROC_STAT 0u  /* /proc/self/stat: to one clock tick (process_start_resolution_ns) */
#define OFT_START_SPAWN 1u      /* the recorder's clock just before it spawned the process: exact */
#define OFT_START_TRACE 2u      /* unknown: the runtime's own start (trace_start_ns) stands in */

/* Record kinds (record.kind). */
#define OFT_KIND_LAUNCH 1u      /* first call of a function inside the launch window */
#define OFT_KIND_POST_WINDOW 2u /* first call of a function after the window closed */
#define OFT_KIND_DATA_PAGE 3u   /* 1.4: first touch of a page of read-only data inside the launch
                                 * window: `address` is the ELF vaddr of the byte touched, `size`
                                 * the page's bytes (the page starts at address rounded down) */
/* The unit of a data touch: a page has a record for the first touch of each such aligned run of
 * bytes, and none for later touches inside it, so every byte of a touched granule may be read. */
#define OFT_DATA_GRANULE 16u

/* Module flags. */
#define OFT_MODULE_MAIN_EXECUTABLE 0x1u
#define OFT_MODULE_PATH_TRUNCATED 0x2u
#define OFT_MODULE_TEXT_RSS 0x4u /* text_rss_bytes is valid */

/*
 * The header. Fields above `checksum` are written once when the file is
 * created and covered by `checksum`; fields below it change while the
 * process runs and are validated by range instead.
 */
typedef struct oft_header {
  uint64_t magic;                 /* OFT_MAGIC */
  uint16_t version_major;         /* OFT_VERSION_MAJOR */
  uint16_t version_minor;         /* OFT_VERSION_MINOR */
  uint32_t header_size;           /* OFT_HEADER_SIZE */
  uint32_t module_entry_size;     /* OFT_MODULE_SIZE */
  uint32_t record_size;           /* OFT_RECORD_SIZE */
  uint32_t module_capacity;       /* entries reserved in the module table */
  uint32_t pid;                   /* process that owns this trace */
  uint64_t record_capacity;       /* records reserved after records_offset */
  uint64_t module_table_offset;   /* == header_size */
  uint64_t records_offset;        /* == module_table_offset + module_capacity * module_entry_size */
  uint64_t process_start_ns;      /* CLOCK_MONOTONIC ns at process creation (process_start_source) */
  uint64_t process_start_resolution_ns; /* granularity of process_start_ns (one clock tick from
                                         * /proc, 1000 for a spawn time) */
  uint64_t trace_start_ns;        /* CLOCK_MONOTONIC ns when the runtime initialized (first hook) */
  uint32_t parent_pid;            /* for a forked trace: the parent's pid; else 0 */
  uint32_t process_start_source;  /* OFT_START_*; 1.2 (0 before: OFT_START_PROC_STAT) */
  uint64_t fork_record_index;     /* for a forked trace: records [0, this) were inherited */
  uint64_t time_limit_ns;         /* window limit measured from process start; 0 = none */
  uint32_t checksum;              /* oft_checksum() of all bytes before this field */
  uint32_t reserved1;

  /* Mutable while the process runs. */
  uint64_t record_count;          /* slots reserved, may include uncommitted ones */
  uint64_t dropped_count;         /* first calls not recorded: capacity or table full */
  uint32_t module_count;          /* committed module entries */
  uint32_t flags;                 /* OFT_FLAG_* */
  uint32_t window_reason;         /* OFT_WINDOW_* */
  uint32_t reserved2;
  uint64_t window_end_ns;         /* CLOCK_MONOTONIC ns when the window closed; 0 = open */
  uint64_t end_ns;                /* CLOCK_MONOTONIC ns when the trace was closed; 0 = not closed */
  uint64_t minor_faults;          /* getrusage(RUSAGE_SELF).ru_minflt at window end (OFT_FLAG_METRICS) */
  uint64_t major_faults;          /* getrusage(RUSAGE_SELF).ru_majflt at window end (OFT_FLAG_METRICS) */
  uint64_t startup_end_ns;        /* CLOCK_MONOTONIC ns when the runtime's start-up (from
                                   * trace_start_ns) ended; 0 = not known (1.2) */
  uint64_t recorder_ns;           /* 1.3: the recorder's own time inside the recording (arming, trap
                                   * handling, threads held stopped), taken out of the program's clock
                                   * (OFT_FLAG_PROGRAM_CLOCK); 0 = none or not known */
  uint64_t arming_ns;             /* 1.3: the part of recorder_ns spent before the program's first own
                                   * instruction (planting breakpoints); 0 = none */
  uint64_t children_ns;           /* 1.5: the part of recorder_ns that is its children's recorder time,
                                   * charged while this process waited for them; 0 = none */
  uint8_t reserved3[OFT_HEADER_EXTENSION_OFFSET - 208]; /* 0 */

  /* Version 1.1 extension. Written once when the file is created, covered by
   * extension_checksum; 0 there means the file has no extension (1.0). */
  uint64_t marks_offset;          /* == records end of 1.0: module_table_offset + module table */
  uint64_t events_offset;         /* == marks_offset + mark_capacity * OFT_MARK_SIZE */
  uint64_t event_capacity;        /* events per thread buffer; 0 unless full mode */
  uint32_t mark_capacity;         /* marks reserved after marks_offset */
  uint32_t event_thread_capacity; /* thread buffers reserved after events_offset; 0 unless full mode */
  uint32_t extension_checksum;    /* oft_checksum() of bytes 256..287 (marks_offset...event_thread_capacity) */
  uint32_t reserved4;

  /* Version 1.1, mutable while the process runs. */
  uint32_t mark_count;            /* mark slots reserved; counts on past mark_capacity (the excess were dropped) */
  uint32_t event_thread_count;    /* thread buffers claimed; counts on past event_thread_capacity
                                   * (threads past it got no buffer) */
  uint64_t unbuffered_events;     /* full mode: events of threads that got no buffer (not recorded) */
} oft_header;

/*
 * One instrumented module (the executable or a shared library) that owns at
 * least one recorded function. Written once under the runtime's module lock;
 * `checksum` is stored last and covers all bytes before it, so a zero or
 * wrong checksum means the entry is incomplete or corrupt.
 */
typedef struct oft_module {
  uint64_t load_base;             /* dlpi_addr: runtime address minus ELF virtual address */
  uint64_t text_start;            /* lowest ELF vaddr of the executable PT_LOAD segments */
  uint64_t text_end;              /* one past the highest */
  uint64_t text_rss_bytes;        /* resident bytes of the text mapping at window end (OFT_MODULE_TEXT_RSS) */
  uint32_t flags;                 /* OFT_MODULE_* */
  uint16_t path_length;           /* bytes used in path, no terminator counted */
  uint8_t build_id_length;        /* bytes used in build_id; 0 = the module has none */
  uint8_t reserved0;
  uint8_t build_id[OFT_BUILD_ID_CAPACITY]; /* GNU build-id (NT_GNU_BUILD_ID) */
  char path[OFT_MODULE_PATH_CAPACITY];     /* absolute path when known, NUL padded */
  uint32_t reserved1;
  uint32_t checksum;              /* oft_checksum() of all bytes before this field */
} oft_module;

/*
 * One mark set by orderfile_mark(). Written into a slot reserved with an
 * atomic increment of `mark_count`; `check` is stored last with release.
 */
typedef struct oft_mark {
  char name[OFT_MARK_NAME_CAPACITY]; /* UTF-8, not terminated, NUL padded */
  uint64_t time_ns;               /* CLOCK_MONOTONIC ns */
  uint32_t tid;                   /* kernel thread id of the caller */
  uint16_t name_length;           /* bytes used in name */
  uint8_t reserved[9];            /* 0 */
  uint8_t check;                  /* oft_mark_check(); 0 = uncommitted; stored last */
} oft_mark;

/*
 * The header of one thread's event buffer (full mode), followed by
 * event_capacity events. One thread writes it: `count` is stored with
 * release after each event is written, so events below it are complete.
 */
typedef struct oft_thread_buffer {
  uint32_t tid;                   /* kernel thread id of the owner */
  uint32_t reserved0;
  uint64_t count;                 /* events committed */
  uint64_t dropped;               /* events that did not fit */
  uint8_t reserved1[40];          /* 0 */
} oft_thread_buffer;

/* One function entry or exit (full mode). */
typedef struct oft_event {
  uint64_t time_ns;               /* CLOCK_MONOTONIC ns, never 0, non-decreasing per thread */
  uint64_t word;                  /* runtime address of the function | OFT_EVENT_EXIT for an exit */
} oft_event;

/*
 * One first call. `address` is module-relative: the runtime address minus the
 * module's load_base, i.e. the function's ELF virtual address in its file.
 */
typedef struct oft_record {
  uint64_t address;               /* ELF virtual address of the function entry */
  uint64_t time_ns;               /* CLOCK_MONOTONIC ns of the first call */
  uint64_t size;                  /* OFT_KIND_DATA_PAGE: the page's size in bytes; else 0 (1.4;
                                   * formerly reserved, 0) */
  uint32_t tid;                   /* kernel thread id of the caller */
  uint16_t module;                /* index into the module table */
  uint8_t kind;                   /* OFT_KIND_* */
  uint8_t check;                  /* oft_record_check(); 0 = uncommitted; stored last */
} oft_record;

/*
 * Every field of every structure and its byte offset: OFT_FIELDS(F) expands
 * F(structure, field, offset) once per field, in order, with no gaps (the
 * reserved fields fill them; the tool's format tests check that the list
 * covers every byte). The assertions below pin each offset; a host tool can
 * expand the list again to print or compare the layout, as LLVM's
 * InstrProfData.inc is expanded by both its runtime and its tools.
 */
#define OFT_FIELDS(F)                             \
  F(oft_header, magic, 0)                         \
  F(oft_header, version_major, 8)                 \
  F(oft_header, version_minor, 10)                \
  F(oft_header, header_size, 12)                  \
  F(oft_header, module_entry_size, 16)            \
  F(oft_header, record_size, 20)                  \
  F(oft_header, module_capacity, 24)              \
  F(oft_header, pid, 28)                          \
  F(oft_header, record_capacity, 32)              \
  F(oft_header, module_table_offset, 40)          \
  F(oft_header, records_offset, 48)               \
  F(oft_header, process_start_ns, 56)             \
  F(oft_header, process_start_resolution_ns, 64)  \
  F(oft_header, trace_start_ns, 72)               \
  F(oft_header, parent_pid, 80)                   \
  F(oft_header, process_start_source, 84)         \
  F(oft_header, fork_record_index, 88)            \
  F(oft_header, time_limit_ns, 96)                \
  F(oft_header, checksum, 104)                    \
  F(oft_header, reserved1, 108)                   \
  F(oft_header, record_count, 112)                \
  F(oft_header, dropped_count, 120)               \
  F(oft_header, module_count, 128)                \
  F(oft_header, flags, 132)                       \
  F(oft_header, window_reason, 136)               \
  F(oft_header, reserved2, 140)                   \
  F(oft_header, window_end_ns, 144)               \
  F(oft_header, end_ns, 152)                      \
  F(oft_header, minor_faults, 160)                \
  F(oft_header, major_faults, 168)                \
  F(oft_header, startup_end_ns, 176)              \
  F(oft_header, recorder_ns, 184)                 \
  F(oft_header, arming_ns, 192)                   \
  F(oft_header, children_ns, 200)                 \
  F(oft_header, reserved3, 208)                   \
  F(oft_header, marks_offset, 256)                \
  F(oft_header, events_offset, 264)               \
  F(oft_header, event_capacity, 272)              \
  F(oft_header, mark_capacity, 280)               \
  F(oft_header, event_thread_capacity, 284)       \
  F(oft_header, extension_checksum, 288)          \
  F(oft_header, reserved4, 292)                   \
  F(oft_header, mark_count, 296)                  \
  F(oft_header, event_thread_count, 300)          \
  F(oft_header, unbuffered_events, 304)           \
  F(oft_module, load_base, 0)                     \
  F(oft_module, text_start, 8)                    \
  F(oft_module, text_end, 16)                     \
  F(oft_module, text_rss_bytes, 24)               \
  F(oft_module, flags, 32)                        \
  F(oft_module, path_length, 36)                  \
  F(oft_module, build_id_length, 38)              \
  F(oft_module, reserved0, 39)                    \
  F(oft_module, build_id, 40)                     \
  F(oft_module, path, 104)                        \
  F(oft_module, reserved1, 4088)                  \
  F(oft_module, checksum, 4092)                   \
  F(oft_mark, name, 0)                            \
  F(oft_mark, time_ns, 40)                        \
  F(oft_mark, tid, 48)                            \
  F(oft_mark, name_length, 52)                    \
  F(oft_mark, reserved, 54)                       \
  F(oft_mark, check, 63)                          \
  F(oft_thread_buffer, tid, 0)                    \
  F(oft_thread_buffer, reserved0, 4)              \
  F(oft_thread_buffer, count, 8)                  \
  F(oft_thread_buffer, dropped, 16)               \
  F(oft_thread_buffer, reserved1, 24)             \
  F(oft_event, time_ns, 0)                        \
  F(oft_event, word, 8)                           \
  F(oft_record, address, 0)                       \
  F(oft_record, time_ns, 8)                       \
  F(oft_record, size, 16)                         \
  F(oft_record, tid, 24)                          \
  F(oft_record, module, 28)                       \
  F(oft_record, kind, 30)                         \
  F(oft_record, check, 31)

#define OFT_PIN_OFFSET(structure, field, offset)        \
  _Static_assert(offsetof(structure, field) == (offset),  \
                 #structure "." #field " is not at byte " \
                 #offset ", where the trace format puts it");
OFT_FIELDS(OFT_PIN_OFFSET)
#undef OFT_PIN_OFFSET

_Static_assert(sizeof(oft_header) <= OFT_HEADER_SIZE, "header fits its reserved size");
_Static_assert(sizeof(oft_header) == 312, "the header's fields end at byte 312");
_Static_assert(sizeof(oft_module) == OFT_MODULE_SIZE, "module entry has its fixed size");
_Static_assert(sizeof(oft_record) == OFT_RECORD_SIZE, "record has its fixed size");
_Static_assert(sizeof(oft_mark) == OFT_MARK_SIZE, "mark has its fixed size");
_Static_assert(sizeof(oft_thread_buffer) == OFT_THREAD_BUFFER_HEADER_SIZE, "buffer header has its fixed size");
_Static_assert(sizeof(oft_event) == OFT_EVENT_SIZE, "event has its fixed size");
_Static_assert(offsetof(oft_header, marks_offset) == OFT_HEADER_EXTENSION_OFFSET, "extension offset");
_Static_assert(offsetof(oft_module, path) + OFT_MODULE_PATH_CAPACITY == offsetof(oft_module, reserved1),
               "path capacity fills the entry up to its tail");
_Static_assert(offsetof(oft_mark, name) + OFT_MARK_NAME_CAPACITY == offsetof(oft_mark, time_ns),
               "mark name capacity");

/* Bytes of one thread buffer: its header and its events. */
static inline __attribute__((no_instrument_function)) uint64_t
oft_thread_buffer_size(uint64_t event_capacity) {
  return OFT_THREAD_BUFFER_HEADER_SIZE + event_capacity * OFT_EVENT_SIZE;
}

/* FNV-1a, 32 bit. Never returns 0, so 0 can mean "not written yet". */
static inline __attribute__((no_instrument_function)) uint32_t
oft_checksum(const void *data, uint64_t length) {
  const uint8_t *bytes = (const uint8_t *)data;
  uint32_t hash = 2166136261u;
  for (uint64_t i = 0; i < length; i++) {
    hash ^= bytes[i];
    hash *= 16777619u;
  }
  return hash == 0 ? 1u : hash;
}

/*
 * Starts the header of a new trace with these capacities: stores the magic
 * number, the version, the structure sizes, the capacities and the offsets of
 * the regions, each right after the one before (the layout above). Leaves
 * every other field as it is (a new file's zeroes). Returns the file's size
 * at full capacity. The writer then stores its process's fields and seals
 * the header (oft_seal_header) before any reader may look.
 */
static inline __attribute__((no_instrument_function)) uint64_t
oft_init_header(oft_header *header, uint32_t module_capacity, uint64_t record_capacity,
                uint32_t mark_capacity, uint32_t event_thread_capacity, uint64_t event_capacity) {
  header->magic = OFT_MAGIC;
  header->version_major = OFT_VERSION_MAJOR;
  header->version_minor = OFT_VERSION_MINOR;
  header->header_size = OFT_HEADER_SIZE;
  header->module_entry_size = OFT_MODULE_SIZE;
  header->record_size = OFT_RECORD_SIZE;
  header->module_capacity = module_capacity;
  header->record_capacity = record_capacity;
  header->mark_capacity = mark_capacity;
  header->event_thread_capacity = event_thread_capacity;
  header->event_capacity = event_capacity;
  header->module_table_offset = OFT_HEADER_SIZE;
  header->marks_offset = header->module_table_offset + (uint64_t)module_capacity * OFT_MODULE_SIZE;
  header->events_offset = header->marks_offset + (uint64_t)mark_capacity * OFT_MARK_SIZE;
  header->records_offset =
      header->events_offset + (uint64_t)event_thread_capacity * oft_thread_buffer_size(event_capacity);
  return header->records_offset + record_capacity * OFT_RECORD_SIZE;
}

/* Stores the header's two checksums, once every field they cover is written. */
static inline __attribute__((no_instrument_function)) void
oft_seal_header(oft_header *header) {
  header->checksum = oft_checksum(header, offsetof(oft_header, checksum));
  header->extension_checksum =
      oft_checksum(&header->marks_offset,
                   offsetof(oft_header, extension_checksum) - offsetof(oft_header, marks_offset));
}

/*
 * A check byte: 1 + (sum of the `length` bytes at `data`) mod 255. Values are
 * 1...255, never 0, so 0 can mean "not written yet". Any single flipped bit
 * in those bytes changes the sum by a power of two below 255, so it is always
 * detected.
 */
static inline __attribute__((no_instrument_function)) uint8_t
oft_check_byte(const void *data, uint32_t length) {
  const uint8_t *bytes = (const uint8_t *)data;
  uint32_t sum = 0;
  for (uint32_t i = 0; i < length; i++) {
    sum += bytes[i];
  }
  return (uint8_t)(1u + sum % 255u);
}

/* The record's check byte, over its first 31 bytes (all but `check`). */
static inline __attribute__((no_instrument_function)) uint8_t
oft_record_check(const oft_record *record) {
  return oft_check_byte(record, offsetof(oft_record, check));
}

/* The mark's check byte, over its first 63 bytes (all but `check`). */
static inline __attribute__((no_instrument_function)) uint8_t
oft_mark_check(const oft_mark *mark) {
  return oft_check_byte(mark, offsetof(oft_mark, check));
}

#ifdef __cplusplus
}
#endif

#endif /* ORDERFILE_TRACE_FORMAT_H */
