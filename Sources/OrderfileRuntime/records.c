/*
 * records.c - recording: a first call's record, the dropped count, and the
 * launch window's end.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/resource.h>

#include "orderfile.h"
#include "runtime_internal.h"

static void of_count_dropped(void) OF_NOINSTR;
static void of_count_dropped(void) {
  __atomic_fetch_add(&of_rt.header->dropped_count, 1u, __ATOMIC_RELAXED);
}

void of_note_table_full(void) {
  if (of_writer_enter()) {
    of_count_dropped();
    of_writer_leave();
  }
}

/*
 * Closes the launch window, once, because of `reason` - or because of the
 * time limit if its deadline has passed by `now_ns`, since that came first.
 * Stops full-mode events, stores the resident text size of every module
 * (of_sample_text_rss), the reason, the end time and the fault counts, then sets the flags
 * with release so a reader of the flags sees the rest. A window closed by the
 * time limit ends at the deadline; its fault counts are sampled when the
 * runtime notices (the first new function after the deadline, or exit).
 * The caller is a writer (inside of_writer_enter) or has drained them.
 */
void of_close_window(uint32_t reason, uint64_t now_ns) {
  uint32_t expected = OF_WINDOW_STATE_OPEN;
  if (!__atomic_compare_exchange_n(&of_rt.window_state, &expected, OF_WINDOW_STATE_CLOSING, false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
    return;
  }
  uint64_t end_ns = now_ns;
  if (of_rt.deadline_ns != 0 && now_ns >= of_rt.deadline_ns) {
    reason = OFT_WINDOW_TIME_LIMIT;
    end_ns = of_rt.deadline_ns;
  }
  __atomic_store_n(&of_events_on, 0u, __ATOMIC_RELAXED);
  oft_header *header = of_rt.header;
  struct rusage usage;
  uint32_t flags = OFT_FLAG_WINDOW_CLOSED;
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    header->minor_faults = (uint64_t)usage.ru_minflt;
    header->major_faults = (uint64_t)usage.ru_majflt;
    flags |= OFT_FLAG_METRICS;
  }
  of_sample_text_rss(); /* after getrusage: reading smaps touches its own buffer */
  header->window_end_ns = end_ns;
  header->window_reason = reason;
  __atomic_fetch_or(&header->flags, flags, __ATOMIC_RELEASE);
  __atomic_store_n(&of_rt.window_state, OF_WINDOW_STATE_CLOSED, __ATOMIC_RELEASE);
}

/*
 * Records the first call of `pc`, whose slot in the seen set this thread has
 * just claimed.
 *
 * Ordering: the slot is reserved with an atomic increment of the header's
 * record_count, so record order is reservation order - global first-call
 * order, give or take calls that race on different threads. The record's
 * fields are stored first and its check byte last, with release: a check byte
 * of zero means reserved but never completed. A reservation at or past the
 * capacity is counted in dropped_count (record_count then exceeds the
 * capacity; readers clamp).
 *
 * Implementation: the clock is read here, so this is also where the time
 * limit is checked. The thread id is cached per thread.
 */
static void of_write_record(uintptr_t module_pc, uintptr_t address, uint64_t size, uint64_t now,
                            uint32_t given_tid) OF_NOINSTR;

void of_record_first_call(uintptr_t pc) {
  of_record_call(pc, of_now_ns(), 0);
}

void of_record_call(uintptr_t pc, uint64_t now, uint32_t given_tid) {
  of_write_record(pc, pc, 0, now, given_tid);
}

/*
 * Records the first touch of the read-only data page of `size` bytes that holds runtime
 * address `page` (the byte touched), of the module whose code holds `module_pc`. Inside the launch window only: a page
 * touched after it is no part of the launch, and is neither recorded nor counted dropped.
 */
void of_record_data_page(uintptr_t module_pc, uintptr_t page, uint64_t size, uint64_t now) {
  of_write_record(module_pc, page, size, now, 0);
}

/* One record: `size` 0 is a first call of `address`, else the first touch of the data page
 * at `address`; `module_pc` is code of the module it belongs to. */
static void of_write_record(uintptr_t module_pc, uintptr_t address, uint64_t size, uint64_t now,
                            uint32_t given_tid) {
  if (!of_writer_enter()) {
    return;
  }
  oft_header *header = of_rt.header;
  if (of_rt.deadline_ns != 0 && now >= of_rt.deadline_ns &&
      __atomic_load_n(&of_rt.window_state, __ATOMIC_RELAXED) == OF_WINDOW_STATE_OPEN) {
    of_close_window(OFT_WINDOW_TIME_LIMIT, now);
  }
  bool open = __atomic_load_n(&of_rt.window_state, __ATOMIC_ACQUIRE) == OF_WINDOW_STATE_OPEN;
  if (size != 0 && !open) {
    of_writer_leave();
    return;
  }
  uint8_t kind = size != 0 ? OFT_KIND_DATA_PAGE : open ? OFT_KIND_LAUNCH : OFT_KIND_POST_WINDOW;
  uint16_t module;
  uintptr_t load_base;
  if (__atomic_load_n(&of_rt.storage_full, __ATOMIC_RELAXED) || !of_module_for(module_pc, &module, &load_base)) {
    of_count_dropped();
    of_writer_leave();
    return;
  }
  /* A system call the first time: before the slot is taken. */
  uint32_t tid = given_tid != 0 ? given_tid : of_thread_id();
  uint64_t index = __atomic_fetch_add(&header->record_count, 1u, __ATOMIC_RELAXED);
  if (index >= of_rt.record_capacity || !of_back_record(index)) {
    of_count_dropped();
    of_writer_leave();
    return;
  }
  oft_record record = {
      .address = (uint64_t)(address - load_base),
      .time_ns = now,
      .size = size,
      .tid = tid,
      .module = module,
      .kind = kind,
      .check = 0,
  };
  uint8_t check = oft_record_check(&record);
  oft_record *slot = (oft_record *)(of_rt.base + header->records_offset) + index;
  memcpy(slot, &record, offsetof(oft_record, check));
  __atomic_store_n(&slot->check, check, __ATOMIC_RELEASE);
  of_writer_leave();
}
