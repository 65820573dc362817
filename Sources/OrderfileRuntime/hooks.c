/*
 * hooks.c - the compiler-inserted hooks and the set of functions already seen.
 *
 * Every instrumented function calls __cyg_profile_func_enter on entry. Only
 * the first call of each function matters, so the hook's whole job on every
 * later call is to find the function's mark and return.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "orderfile.h"
#include "runtime_internal.h"

/*
 * Two structures remember which functions have been seen.
 *
 * The seen set is the truth: open addressing with linear probing over full
 * function addresses, claimed by CAS, read only on the slow path.
 *
 * Implementation: 2^21 slots of one address each (16 MiB of .bss, zero =
 * empty, touched only where functions land). A function at pc starts probing
 * at (pc >> 4) xored with a multiplicative hash of pc >> 24: within one
 * 16 MiB stretch of code the xor is a constant, so neighbouring functions get
 * neighbouring slots, and distinct stretches (the executable, each library)
 * are scattered apart.
 *
 * Limitations: inserts stop at half the slots (OF_TABLE_LIMIT), keeping
 * probes short. Once the set is full a function that is not in it cannot be
 * remembered, so each of its calls takes the slow path and counts as dropped:
 * dropped_count becomes an upper bound. ORDERFILE_CAPACITY never exceeds the
 * limit, so the records run out first and drops are exact until then.
 */
#define OF_TABLE_BITS 21u
#define OF_TABLE_SLOTS (1u << OF_TABLE_BITS)
#define OF_TABLE_MASK (OF_TABLE_SLOTS - 1u)
#define OF_TABLE_LIMIT (OF_TABLE_SLOTS / 2u)

_Static_assert(OF_CAPACITY_MAX <= OF_TABLE_LIMIT, "records run out before the seen set does");

static uintptr_t of_seen[OF_TABLE_SLOTS] __attribute__((aligned(4096)));
static uint32_t of_seen_count; /* slots claimed, bounded by OF_TABLE_LIMIT */

static inline __attribute__((always_inline)) OF_NOINSTR uint32_t of_slot(uintptr_t pc) {
  uint64_t stretch = ((uint64_t)(pc >> 24) * 0x9E3779B97F4A7C15ull) >> (64u - OF_TABLE_BITS);
  return (uint32_t)(((uint64_t)(pc >> 4) ^ stretch) & OF_TABLE_MASK);
}

/*
 * The marks are what the hook reads: one byte per 16-byte granule of code,
 * so the bytes a program's hot functions need stay in the L1 cache. (A full
 * address per granule, as the seen set holds, does not: on a benchmark that
 * calls 4096 functions, 200 KiB of code, in random order, reading the seen
 * set cost about 9% against empty hooks, the marks about 5%.)
 *
 * Implementation: the address space is cut into 256 MiB chunks; a directory
 * in .bss (2^19 pointers, 4 MiB, on arm64 2^20 and 8 MiB, touched only for
 * chunks that hold code)
 * points to each chunk's marks, 16 MiB of anonymous memory mapped with
 * MAP_NORESERVE on the chunk's first function and touched only where code
 * is. A granule's byte is 0 (nothing seen there yet), 0x10 | (pc & 15) for
 * the one function that starts in it and is in the seen set, or
 * OF_MARK_SHARED when two functions start in it.
 *
 * Ordering: a mark is stored only after its function is in the seen set, and
 * the directory maps addresses to bytes one to one, so a byte equal to
 * of_mark(pc) proves pc was seen; anything else sends the caller to the slow
 * path, which asks the seen set. A chunk's pointer is published with release
 * once its memory is mapped and read with acquire (a plain load on x86-64).
 *
 * Limitations: two instrumented functions never start in one granule in
 * practice - the hook call alone makes an instrumented function longer than
 * 16 bytes, whatever the alignment - but if they do, the granule is marked
 * shared and both take the slow path on every call: still correct, slower.
 * Addresses beyond 2^OF_ADDRESS_BITS (five-level paging, 52-bit arm64) and
 * chunks whose marks could not be mapped are handled by the seen set alone,
 * the same way.
 */
#define OF_CHUNK_SHIFT 28u
/* User addresses: 47 bits on x86-64 (four-level paging); 48 on arm64, whose kernels with a
 * 48-bit address space load programs near 0xaaaa... and libraries near 0xffff..., above 2^47
 * (with the directory cut at 47 bits every call there would take the slow path). */
#if defined(__aarch64__)
#define OF_ADDRESS_BITS 48u
#else
#define OF_ADDRESS_BITS 47u
#endif
#define OF_DIRECTORY_SIZE (1u << (OF_ADDRESS_BITS - OF_CHUNK_SHIFT))
#define OF_CHUNK_MARKS (1u << (OF_CHUNK_SHIFT - 4u))
#define OF_MARK_SHARED 0xFFu

static uint8_t *of_directory[OF_DIRECTORY_SIZE];

static inline __attribute__((always_inline)) OF_NOINSTR uint8_t of_mark(uintptr_t pc) {
  return (uint8_t)(0x10u | (pc & 15u));
}

static void of_first_call(uintptr_t pc) __attribute__((noinline, cold)) OF_NOINSTR;

/*
 * Ordering: see the marks above. The hook's loads need no more than acquire
 * on the chunk pointer: a stale 0 (or a missing chunk) only sends the caller
 * to the slow path, which settles every race in the seen set with a CAS.
 *
 * Implementation: a bounds check, two dependent loads that hit the L1 cache
 * (the directory entry of the chunk, the granule's mark), one compare,
 * return. Everything else - probing the seen set, claiming, recording,
 * marking - is in the out-of-line of_first_call, so the hook has no stack
 * frame, no lock, no call into libc and no system call.
 *
 * Limitations: see the marks above.
 */
void __cyg_profile_func_enter(void *function, void *call_site) {
  (void)call_site;
  uintptr_t pc = (uintptr_t)function;
  uintptr_t chunk = pc >> OF_CHUNK_SHIFT;
  if (__builtin_expect(chunk < OF_DIRECTORY_SIZE, 1)) {
    const uint8_t *marks = __atomic_load_n(&of_directory[chunk], __ATOMIC_ACQUIRE);
    if (__builtin_expect(marks != NULL, 1) &&
        __builtin_expect(__atomic_load_n(&marks[(pc >> 4) & (OF_CHUNK_MARKS - 1u)],
                                         __ATOMIC_RELAXED) == of_mark(pc),
                         1)) {
      return;
    }
  }
  of_first_call(pc);
}

/* This runtime's own hook, whatever the dynamic linker binds the name to (binding_check.c). */
extern void of_own_enter(void *function, void *call_site)
    __attribute__((alias("__cyg_profile_func_enter"))) OF_NOINSTR;

static void of_exit_event(uintptr_t pc) __attribute__((noinline, cold)) OF_NOINSTR;
static void of_exit_event(uintptr_t pc) {
  of_record_event(pc, OFT_EVENT_EXIT);
}

/*
 * First-call mode has nothing to do on function exit. Full mode records the
 * exit while the window is open.
 *
 * Implementation: one relaxed byte load and a branch not taken, then return;
 * the recording is out of line (of_exit_event).
 */
void __cyg_profile_func_exit(void *function, void *call_site) {
  (void)call_site;
  if (__builtin_expect(__atomic_load_n(&of_events_on, __ATOMIC_RELAXED) != 0, 0)) {
    of_exit_event((uintptr_t)function);
  }
}

/*
 * Marks `pc` as seen, once it is in the seen set - except in full mode while
 * the window is open, where every call must reach the slow path to be
 * recorded as an event (see of_first_call). Maps its chunk's marks if
 * this is the chunk's first function (losing a race to map them just unmaps
 * ours), then stores its mark, or OF_MARK_SHARED if another function's mark
 * is already in the granule. Async-signal-safe.
 */
static void of_mark_seen(uintptr_t pc) OF_NOINSTR;
static void of_note_call(uintptr_t pc) OF_NOINSTR;
static void of_mark_seen(uintptr_t pc) {
  uintptr_t chunk = pc >> OF_CHUNK_SHIFT;
  if (__atomic_load_n(&of_events_on, __ATOMIC_RELAXED) != 0 || chunk >= OF_DIRECTORY_SIZE) {
    return;
  }
  uint8_t *marks = __atomic_load_n(&of_directory[chunk], __ATOMIC_ACQUIRE);
  if (marks == NULL) {
    void *mapped = mmap(NULL, OF_CHUNK_MARKS, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapped == MAP_FAILED) {
      return; /* this chunk keeps using the seen set alone */
    }
    uint8_t *expected = NULL;
    if (__atomic_compare_exchange_n(&of_directory[chunk], &expected, (uint8_t *)mapped, false,
                                    __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
      marks = mapped;
    } else {
      munmap(mapped, OF_CHUNK_MARKS);
      marks = expected;
    }
  }
  uint8_t *mark = &marks[(pc >> 4) & (OF_CHUNK_MARKS - 1u)];
  uint8_t wanted = of_mark(pc);
  uint8_t current = __atomic_load_n(mark, __ATOMIC_RELAXED);
  for (;;) {
    if (current == wanted || current == OF_MARK_SHARED) {
      return;
    }
    uint8_t next = current == 0 ? wanted : OF_MARK_SHARED;
    if (__atomic_compare_exchange_n(mark, &current, next, false, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED)) {
      return;
    }
  }
}

/*
 * First-call bookkeeping, on the slow path: the function's mark was not there.
 *
 * Looks the function up in the seen set, probing from its home slot to its
 * own slot or the first empty one. Found: it was seen before (its mark was
 * missing, shared, or not stored yet), so mark it and return. Not found: the
 * function is new. Start the runtime if needed (other threads wait for
 * initialization rather than lose their entry), claim the empty slot with a
 * CAS - if another thread claimed it for the same function, that thread
 * records it; for another function, keep probing - record the first call,
 * and mark it.
 *
 * A hook that runs while its thread is already inside the runtime (a signal
 * handler interrupting the slow path, or instrumented code the runtime's own
 * libc calls reach) returns without claiming: the function is recorded on a
 * later call instead of deadlocking or recursing.
 */
static void of_note_call(uintptr_t pc) {
  uint32_t slot = of_slot(pc);
  uintptr_t seen;
  while ((seen = __atomic_load_n(&of_seen[slot], __ATOMIC_RELAXED)) != 0) {
    if (seen == pc) {
      of_mark_seen(pc);
      return;
    }
    slot = (slot + 1u) & OF_TABLE_MASK;
  }
  of_thread *self = &of_self;
  if (self->busy) {
    return;
  }
  self->busy = 1;
  bool recording = of_ensure_started();
  for (;;) {
    if (__atomic_load_n(&of_seen_count, __ATOMIC_RELAXED) >= OF_TABLE_LIMIT) {
      if (recording) {
        of_note_table_full();
      }
      self->busy = 0;
      return;
    }
    uintptr_t expected = 0;
    if (__atomic_compare_exchange_n(&of_seen[slot], &expected, pc, false, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED)) {
      break;
    }
    if (expected == pc) {
      of_mark_seen(pc);
      self->busy = 0;
      return;
    }
    while ((seen = __atomic_load_n(&of_seen[slot], __ATOMIC_RELAXED)) != 0) {
      if (seen == pc) {
        of_mark_seen(pc);
        self->busy = 0;
        return;
      }
      slot = (slot + 1u) & OF_TABLE_MASK;
    }
  }
  __atomic_fetch_add(&of_seen_count, 1u, __ATOMIC_RELAXED);
  if (recording) {
    of_record_first_call(pc);
  } else {
    of_forward_first_call(pc);
  }
  of_mark_seen(pc);
  self->busy = 0;
}

/*
 * The slow path. In first-call mode that is every function's first call
 * (and calls that miss a mark for a moment); in full mode with the window
 * open it is every call, because no mark is stored then, so full mode's test
 * costs the first-call fast path nothing.
 *
 * Ordering: of_events_on is set by initialization before init_state is
 * published, so the thread that starts the runtime - and any thread that
 * waited for it - records the first function's entry event.
 *
 * Limitations: on a weakly ordered CPU (not x86-64) a thread that finds a
 * function in the seen set without having synchronized with initialization
 * could store its mark before it sees of_events_on, and that function's
 * entries would then be missing from the events.
 */
static void of_first_call(uintptr_t pc) {
  of_note_call(pc);
  if (__builtin_expect(__atomic_load_n(&of_events_on, __ATOMIC_RELAXED) != 0, 0)) {
    of_record_event(pc, 0);
  }
}

/* Another copy's first call, handed over because this copy owns the trace (shared_instance.c):
 * the same bookkeeping as this copy's own hooks, so a function two copies both saw is
 * recorded once. No event: the other copy's exits never come here, and an entry without
 * its exit would break full mode's call tree. */
void of_accept_first_call(uintptr_t pc) {
  of_note_call(pc);
}
