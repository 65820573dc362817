/*
 * events.c - named marks (the body of orderfile_mark) and full mode's per-thread event
 * buffers (ORDERFILE_MODE=full).
 *
 * Both live in the trace file between the module table and the records (see
 * orderfile_trace_format.h), so, like the records, they survive a crash,
 * SIGKILL or _exit() the moment they are written.
 */
#define _GNU_SOURCE
#include <string.h>

#include "orderfile.h"
#include "runtime_internal.h"

/*
 * Ordering: a mark's slot is reserved with an atomic increment of the
 * header's mark_count; its fields are written, then its check byte with
 * release (0 = reserved, never completed). mark_count keeps counting past
 * mark_capacity: the excess were dropped, and readers clamp.
 *
 * Implementation: the caller is a writer (of_writer_enter), so fork copies
 * only complete marks and exit never races one. Nothing here allocates,
 * locks or calls anything that is not async-signal-safe (clock_gettime, and
 * gettid the first time a thread records anything).
 */
void of_write_mark(const void *argument) {
  const char *name = argument;
  oft_header *header = of_rt.header;
  uint64_t now = of_now_ns();
  uint32_t tid = of_thread_id();
  uint32_t index = __atomic_fetch_add(&header->mark_count, 1u, __ATOMIC_RELAXED);
  if (index >= of_rt.mark_capacity) {
    return; /* dropped: mark_count - mark_capacity says how many */
  }
  oft_mark mark;
  memset(&mark, 0, sizeof mark);
  size_t length = strnlen(name, OFT_MARK_NAME_CAPACITY + 1);
  if (length > OFT_MARK_NAME_CAPACITY) {
    /* Cut at 40 bytes, but never inside a UTF-8 sequence: back up over
     * continuation bytes to the start of the character that does not fit. */
    length = OFT_MARK_NAME_CAPACITY;
    while (length > 0 && ((unsigned char)name[length] & 0xC0u) == 0x80u) {
      length--;
    }
  }
  memcpy(mark.name, name, length);
  mark.time_ns = now;
  mark.tid = tid;
  mark.name_length = (uint16_t)length;
  uint8_t check = oft_mark_check(&mark);
  oft_mark *slot = (oft_mark *)(of_rt.base + header->marks_offset) + index;
  memcpy(slot, &mark, offsetof(oft_mark, check));
  __atomic_store_n(&slot->check, check, __ATOMIC_RELEASE);
}

/*
 * Gives the calling thread the next free buffer, or marks it as refused when
 * none is left (or the file system cannot back one). Returns the buffer or
 * NULL.
 *
 * Ordering: the index comes from an atomic increment of the header's
 * event_thread_count, which keeps counting past the capacity; readers clamp.
 * The whole buffer is given disk blocks before its first store, so a full
 * file system can never raise SIGBUS inside the host program.
 */
static oft_thread_buffer *of_claim_buffer(of_thread *self) OF_NOINSTR;
static oft_thread_buffer *of_claim_buffer(of_thread *self) {
  oft_header *header = of_rt.header;
  uint32_t index = __atomic_fetch_add(&header->event_thread_count, 1u, __ATOMIC_RELAXED);
  uint64_t size = oft_thread_buffer_size(of_rt.event_capacity);
  uint64_t offset = header->events_offset + (uint64_t)index * size;
  if (index >= of_rt.event_thread_capacity || !of_allocate(offset, size)) {
    self->events_state = OF_EVENTS_REFUSED;
    return NULL;
  }
  oft_thread_buffer *buffer = (oft_thread_buffer *)(of_rt.base + offset);
  buffer->tid = of_thread_id();
  self->events = buffer;
  self->events_last_ns = 0;
  self->events_state = OF_EVENTS_OWNED;
  return buffer;
}

/*
 * Full mode: appends the entry (exit_bit 0) or exit (OFT_EVENT_EXIT) of the
 * function at runtime address `pc` to the calling thread's buffer. Called by
 * the hooks only while of_events_on is set, i.e. inside the launch window.
 *
 * Ordering: one writer per buffer, its owner thread, so the event is written
 * with plain stores and then published by a release store of `count`; a
 * reader sees `count` complete events. A full buffer counts the event in its
 * `dropped` instead - exact, since only the owner writes either counter. A
 * thread that found no buffer counts its events in the header's
 * unbuffered_events (atomic). Events the runtime could not take because the
 * hook interrupted the runtime on its own thread (a signal handler, or
 * instrumented code reached from the runtime's own libc calls) are counted
 * per thread and added to the buffer's `dropped` at the next event.
 *
 * Implementation: no writer gate. Buffers lie before the records, and the
 * file is only ever truncated after the records, so a store can never land
 * past the end of the file; the mapping is only ever replaced in a fork child,
 * whose handler resets this thread's buffer before the child runs on. Times
 * are CLOCK_MONOTONIC, clamped so that they never decrease on one thread.
 * This is also where the time limit is checked in full mode: the clock is
 * read here anyway.
 *
 * Limitations: the clock read (a vDSO call, some 20 ns) dominates. A
 * function entered before the buffer existed has an exit without an entry;
 * readers ignore such exits.
 */
void of_record_event(uintptr_t pc, uint64_t exit_bit) {
  of_thread *self = &of_self;
  if (self->busy) {
    self->events_busy_lost++;
    return;
  }
  self->busy = 1;
  uint64_t now = of_now_ns();
  if (__builtin_expect(of_rt.deadline_ns != 0 && now >= of_rt.deadline_ns, 0)) {
    if (of_writer_enter()) {
      of_close_window(OFT_WINDOW_TIME_LIMIT, now);
      of_writer_leave();
    }
    self->busy = 0;
    return;
  }
  oft_thread_buffer *buffer = self->events;
  if (__builtin_expect(self->events_state != OF_EVENTS_OWNED, 0)) {
    buffer = self->events_state == OF_EVENTS_NONE ? of_claim_buffer(self) : NULL;
    if (buffer == NULL) {
      __atomic_fetch_add(&of_rt.header->unbuffered_events, 1u + self->events_busy_lost,
                         __ATOMIC_RELAXED);
      self->events_busy_lost = 0;
      self->busy = 0;
      return;
    }
  }
  if (__builtin_expect(self->events_busy_lost != 0, 0)) {
    __atomic_store_n(&buffer->dropped, buffer->dropped + self->events_busy_lost, __ATOMIC_RELAXED);
    self->events_busy_lost = 0;
  }
  uint64_t count = buffer->count;
  if (__builtin_expect(count >= of_rt.event_capacity, 0)) {
    __atomic_store_n(&buffer->dropped, buffer->dropped + 1u, __ATOMIC_RELAXED);
    self->busy = 0;
    return;
  }
  if (now < self->events_last_ns) {
    now = self->events_last_ns;
  }
  self->events_last_ns = now;
  oft_event *event = (oft_event *)(buffer + 1) + count;
  event->time_ns = now;
  event->word = (uint64_t)pc | exit_bit;
  __atomic_store_n(&buffer->count, count + 1u, __ATOMIC_RELEASE);
  self->busy = 0;
}
