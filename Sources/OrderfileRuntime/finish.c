/*
 * finish.c - finishing the trace, at exit or on orderfile_finish().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>

#include "orderfile.h"
#include "runtime_internal.h"

/*
 * Finalizes the trace: stops new writes, waits (bounded) for writers in
 * flight, closes the window if it is still open, marks the trace closed and
 * truncates the file after its last record. If a writer does not drain in
 * time the trace is left full size and unclosed rather than truncated under
 * that writer. Idempotent.
 */
void of_finish(void) {
  if (__atomic_exchange_n(&of_rt.finished, 1u, __ATOMIC_ACQ_REL) != 0) {
    return;
  }
  if (__atomic_load_n(&of_rt.init_state, __ATOMIC_ACQUIRE) != OF_INIT_RECORDING) {
    return;
  }
  __atomic_fetch_or(&of_rt.gate, OF_GATE_STOPPED, __ATOMIC_SEQ_CST);
  bool drained = of_wait_for_writers();
  oft_header *header = of_rt.header;
  uint64_t now = of_now_ns();
  uint64_t reserved = __atomic_load_n(&header->record_count, __ATOMIC_ACQUIRE);
  uint64_t records = reserved < of_rt.record_capacity ? reserved : of_rt.record_capacity;
  uint64_t dropped = __atomic_load_n(&header->dropped_count, __ATOMIC_RELAXED);
  if (drained) {
    of_close_window(OFT_WINDOW_EXIT, now);
    header->end_ns = now;
    __atomic_fetch_or(&header->flags, OFT_FLAG_CLOSED, __ATOMIC_RELEASE);
    int result;
    do {
      result = ftruncate(of_rt.fd, (off_t)(header->records_offset + records * OFT_RECORD_SIZE));
    } while (result != 0 && errno == EINTR);
  } else {
    of_warn("orderfile: warning: a thread was still writing at exit; trace '%s' left unclosed",
            of_rt.path);
  }
  if (of_rt.verbose) {
    /* Count only completed records: a slot can be reserved and never written. */
    const oft_record *slots = (const oft_record *)(of_rt.base + header->records_offset);
    uint64_t committed = 0;
    for (uint64_t i = 0; i < records; i++) {
      committed += __atomic_load_n(&slots[i].check, __ATOMIC_ACQUIRE) != 0;
    }
    of_warn("orderfile: %llu first calls recorded, %llu dropped, trace '%s'",
            (unsigned long long)committed, (unsigned long long)dropped, of_rt.path);
  }
}

/*
 * Unlike a public call, exit finishes the trace even on a thread that is
 * inside the runtime (exit() from a signal handler that interrupted it):
 * of_finish then sees this thread's unfinished write and leaves the trace
 * unclosed rather than wait for it.
 */
void of_at_exit(void) {
  of_thread *self = &of_self;
  uint32_t busy = self->busy;
  self->busy = 1;
  of_finish();
  self->busy = busy;
}
