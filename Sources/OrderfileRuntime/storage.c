/*
 * storage.c - disk allocation: the trace file's blocks are reserved ahead of
 * every store into its mapping, so a full file system is a warning, never a
 * SIGBUS in the host program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "orderfile.h"
#include "runtime_internal.h"

static uint8_t of_zeroes[64u * 1024u];

uint64_t of_page_floor(uint64_t offset) {
  return offset - offset % of_rt.page_size;
}

uint64_t of_page_ceil(uint64_t offset) {
  uint64_t floor = of_page_floor(offset);
  return floor == offset ? offset : floor + of_rt.page_size;
}

/* Writes zeroes over [offset, offset + length); returns how many bytes it wrote. */
static uint64_t of_write_zeroes(uint64_t offset, uint64_t length) OF_NOINSTR;
static uint64_t of_write_zeroes(uint64_t offset, uint64_t length) {
  uint64_t done = 0;
  while (done < length) {
    uint64_t chunk = length - done < sizeof of_zeroes ? length - done : sizeof of_zeroes;
    ssize_t written = pwrite(of_rt.fd, of_zeroes, (size_t)chunk, (off_t)(offset + done));
    if (written < 0 && errno == EINTR) {
      continue;
    }
    if (written <= 0) {
      if (written == 0) {
        errno = ENOSPC;
      }
      break;
    }
    done += (uint64_t)written;
  }
  return done;
}

/*
 * Gives the file disk blocks for [offset, offset + length) before anything is
 * stored there, so a store into the mapping never needs a block the file
 * system might not have: the fault would raise SIGBUS in the host.
 *
 * A store needs every block of its page, not only its own: the kernel
 * allocates the whole page's blocks when the page is first written through
 * the mapping. With fallocate(FALLOC_FL_KEEP_SIZE) the range is widened to
 * whole pages, which is harmless, since fallocate never changes data. Where
 * the file system has no fallocate (EOPNOTSUPP: ext2, for one) the runtime
 * writes zeroes over exactly the range instead - no caller has stored
 * anything there yet - and the pages a range shares with another were backed
 * at start (of_back_shared_pages).
 *
 * Returns how many bytes from `offset` are backed: `length`, or fewer, a whole
 * number of pages, with errno set (ENOSPC: the file system is full).
 * Async-signal-safe.
 */
uint64_t of_allocate_some(uint64_t offset, uint64_t length) {
  if (of_rt.may_preallocate) {
    uint64_t start = of_page_floor(offset);
    uint64_t end = of_page_ceil(offset + length);
    int result;
    do {
      result = fallocate(of_rt.fd, FALLOC_FL_KEEP_SIZE, (off_t)start, (off_t)(end - start));
    } while (result != 0 && errno == EINTR);
    if (result == 0) {
      return length;
    }
    if (errno != EOPNOTSUPP && errno != ENOSYS) {
      return 0;
    }
    of_rt.may_preallocate = false;
  }
  uint64_t written = of_write_zeroes(offset, length);
  if (written == length) {
    return length;
  }
  /* The page the write stopped in is backed only in part. */
  uint64_t end = of_page_floor(offset + written);
  return end > offset ? end - offset : 0;
}

bool of_allocate(uint64_t offset, uint64_t length) {
  return of_allocate_some(offset, length) == length;
}

/*
 * Where the file system has no fallocate, backs every page that holds the end
 * of one structure and the start of another (a mark region that ends
 * mid-page, two thread buffers, the first records): a store into either
 * would need the other's blocks too, and each structure backs only its own
 * bytes. Runs before anything is stored in the file, so the zeroes overwrite
 * nothing. Returns false with errno set when the file system is full.
 * Async-signal-safe.
 */
bool of_back_shared_pages(const oft_header *layout, uint64_t file_size) {
  if (of_rt.may_preallocate) {
    return true;
  }
  uint64_t buffer_size = oft_thread_buffer_size(layout->event_capacity);
  uint64_t last = UINT64_MAX;
  /* Every place one structure ends and the next begins, in file order. */
  uint64_t count = 1u + layout->module_capacity + 1u + layout->event_thread_capacity + 1u;
  for (uint64_t i = 0; i < count; i++) {
    uint64_t boundary;
    if (i <= layout->module_capacity) {
      boundary = layout->module_table_offset + i * OFT_MODULE_SIZE; /* header, entries, marks */
    } else if (i == layout->module_capacity + 1u) {
      boundary = layout->events_offset;
    } else if (i < count - 1u) {
      boundary = layout->events_offset + (i - layout->module_capacity - 1u) * buffer_size;
    } else {
      boundary = layout->records_offset;
    }
    uint64_t page = of_page_floor(boundary);
    if (page == boundary || page == last || page >= file_size) {
      continue;
    }
    last = page;
    uint64_t length = file_size - page < of_rt.page_size ? file_size - page : of_rt.page_size;
    if (of_write_zeroes(page, length) != length) {
      return false;
    }
  }
  return true;
}

/*
 * Allocates disk space for the record at `index` and those before it, ahead
 * in OF_BACKING_STEP steps that end on page boundaries, taking the lock only
 * when a step is crossed. When the file system fills up, what could be backed
 * still takes records; after that it warns once and returns false from then
 * on.
 */
bool of_back_record(uint64_t index) {
  uint64_t end = of_rt.header->records_offset + (index + 1u) * OFT_RECORD_SIZE;
  if (__builtin_expect(end <= __atomic_load_n(&of_rt.backed_bytes, __ATOMIC_ACQUIRE), 1)) {
    return true;
  }
  pthread_mutex_lock(&of_rt.lock);
  int error = 0;
  uint64_t from = __atomic_load_n(&of_rt.backed_bytes, __ATOMIC_RELAXED);
  if (end > from && !__atomic_load_n(&of_rt.storage_full, __ATOMIC_RELAXED)) {
    uint64_t records = of_rt.header->records_offset;
    uint64_t to = of_page_ceil((end - records + OF_BACKING_STEP - 1) / OF_BACKING_STEP * OF_BACKING_STEP + records);
    if (to > of_rt.mapping_size) {
      to = of_rt.mapping_size;
    }
    uint64_t backed = of_allocate_some(from, to - from);
    if (backed != to - from) {
      error = errno;
    }
    __atomic_store_n(&of_rt.backed_bytes, from + backed, __ATOMIC_RELEASE);
  }
  bool fits = end <= __atomic_load_n(&of_rt.backed_bytes, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&of_rt.lock);
  if (error != 0) {
    of_stop_for_storage(error);
  }
  return fits;
}

/*
 * The file system could not give the trace more blocks: stops recording new
 * first calls and modules (counted as dropped from now on) and says so, once.
 */
void of_stop_for_storage(int error) {
  if (__atomic_exchange_n(&of_rt.storage_full, 1u, __ATOMIC_ACQ_REL) == 0) {
    const char *parts[] = {"orderfile: warning: cannot extend trace file '", of_rt.path, "': ",
                           strerror(error), "; recording stopped\n"};
    of_write_stderr(parts, 5);
  }
}
