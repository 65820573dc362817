/*
 * fork.c - giving a fork child its own trace.
 *
 * After fork() the child still has the parent's trace mapped MAP_SHARED: any
 * store it made there would land in the parent's file. So the child's
 * handler copies what had been recorded before the fork into a new file of
 * its own, switches to that file and drops the inherited mapping, before the
 * child runs any code of its own. The parent's trace is never touched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime_internal.h"

/*
 * Before fork: hold writers at the gate, wait (bounded) for those in flight,
 * take the module lock and snapshot the header. The child then copies a
 * consistent trace: every record below the snapshot's record_count complete,
 * every module they name written.
 *
 * From here until this thread's parent or child handler has run, hooks on
 * this thread record nothing (busy): other fork handlers, registered before
 * ours, run in that stretch and may be instrumented. In the child, a record
 * made then would land in the parent's file; in the parent, it would wait
 * at the gate this very thread closed.
 */
void of_fork_prepare(void) {
  of_thread *self = &of_self;
  self->busy++;
  self->fork_gated = 0;
  of_rt.fork_locked = false;
  of_rt.fork_snapshot = false;
  if (__atomic_load_n(&of_rt.init_state, __ATOMIC_ACQUIRE) != OF_INIT_RECORDING) {
    return;
  }
  __atomic_fetch_add(&of_rt.gate, OF_GATE_FORK, __ATOMIC_SEQ_CST);
  self->fork_gated = 1;
  /* Skip the lock when a writer would not drain: it may hold the lock itself. */
  if (of_wait_for_writers()) {
    pthread_mutex_lock(&of_rt.lock);
    of_rt.fork_locked = true;
  }
  memcpy(&of_rt.fork_header, of_rt.header, sizeof of_rt.fork_header);
  of_rt.fork_snapshot = true;
}

/* In the parent after fork: release what prepare took. */
void of_fork_parent(void) {
  of_thread *self = &of_self;
  if (self->fork_gated) {
    self->fork_gated = 0;
    if (of_rt.fork_locked) {
      of_rt.fork_locked = false;
      pthread_mutex_unlock(&of_rt.lock);
    }
    __atomic_fetch_sub(&of_rt.gate, OF_GATE_FORK, __ATOMIC_SEQ_CST);
  }
  self->busy--;
}

/* Stops recording in the child, after the inherited mapping has been dropped. */
static void of_child_disable(const char *path, int error) OF_NOINSTR;
static void of_child_disable(const char *path, int error) {
  __atomic_store_n(&of_rt.gate, OF_GATE_STOPPED, __ATOMIC_SEQ_CST);
  __atomic_store_n(&of_rt.init_state, OF_INIT_DISABLED, __ATOMIC_RELEASE);
  const char *parts[] = {"orderfile: warning: cannot create the fork child's trace file '", path,
                         "': ", strerrordesc_np(error) != NULL ? strerrordesc_np(error) : "error",
                         "; recording disabled in the child\n"};
  of_write_stderr(parts, 5);
}

/*
 * In the child after fork, with only async-signal-safe calls: open the
 * child's file (the pattern expanded with the child's pid, ".<pid>" appended
 * when the pattern has no %p), copy the header, the modules, the marks and
 * the records of the snapshot into it (not the parent's events), mark it as forked and switch to it. Whatever
 * happens, the inherited mapping of the parent's file is dropped.
 */
static void of_fork_child_trace(void) OF_NOINSTR;
static void of_fork_child_trace(void) {
  /* Writers on other threads did not survive the fork; this thread's own may have. */
  __atomic_store_n(&of_rt.in_flight, of_self.writing ? 1u : 0u, __ATOMIC_SEQ_CST);
  uint8_t *old_base = of_rt.base;
  int old_fd = of_rt.fd;
  uint64_t size = of_rt.mapping_size;
  if (__atomic_load_n(&of_rt.finished, __ATOMIC_ACQUIRE) != 0) {
    /* The parent had finished its trace: the child records nothing. */
    munmap(old_base, size);
    close(old_fd);
    of_rt.base = NULL;
    of_rt.header = NULL;
    __atomic_store_n(&of_rt.init_state, OF_INIT_DISABLED, __ATOMIC_RELEASE);
    return;
  }
  const oft_header *snapshot = of_rt.fork_snapshot ? &of_rt.fork_header : of_rt.header;
  uint32_t pid = (uint32_t)getpid();

  static of_new_trace trace; /* two paths: kept off the stack of the forking thread */
  char *path = trace.path;
  int fd = -1, error = 0;
  uint8_t *base = MAP_FAILED;
  /* A fork child has had no exec: no trace at its path can be its own earlier image. */
  of_identity self = {pid, 0, 0, false};
  of_claim claim = OF_CLAIM_ERROR;
  if (!of_expand_pattern(path, sizeof trace.path, of_rt.pattern, pid, of_rt.executable_name, true)) {
    memcpy(path, of_rt.pattern, sizeof trace.path);
    error = ENAMETOOLONG;
  } else if ((claim = of_open_trace(path, size, &self, &trace, &error)) == OF_CLAIM_FREE) {
    fd = trace.fd;
    base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    error = errno;
    if (base != MAP_FAILED) {
      madvise(base, size, MADV_RANDOM); /* as in of_start: no read-around of zeroes */
    }
  } else if (claim != OF_CLAIM_ERROR) {
    error = claim == OF_CLAIM_BUSY ? EBUSY : EEXIST; /* a live trace, or not a trace */
  }

  uint64_t records = snapshot->record_count < of_rt.record_capacity ? snapshot->record_count
                                                                    : of_rt.record_capacity;
  uint32_t modules = snapshot->module_count;
  uint64_t records_offset = snapshot->records_offset;
  uint64_t marks_offset = snapshot->marks_offset;
  uint32_t marks = snapshot->mark_count < of_rt.mark_capacity ? snapshot->mark_count
                                                              : of_rt.mark_capacity;
  /* Backed up to a page boundary, where the parent's steps end too (of_back_record). */
  uint64_t backed_end = records_offset;
  if (records != 0) {
    backed_end = of_page_ceil(records_offset + records * OFT_RECORD_SIZE);
    if (backed_end > size) {
      backed_end = size;
    }
  }
  if (base != MAP_FAILED) {
    of_rt.fd = fd;
    of_rt.may_preallocate = true;
    /* At least one module entry: the first is always backed from the start (of_module_for). */
    if (!of_allocate(0, OFT_HEADER_SIZE + (uint64_t)(modules > 0 ? modules : 1u) * OFT_MODULE_SIZE) ||
        !of_back_shared_pages(snapshot, size) ||
        !of_allocate(marks_offset, (uint64_t)of_rt.mark_capacity * OFT_MARK_SIZE) ||
        (records != 0 && !of_allocate(records_offset, backed_end - records_offset))) {
      error = errno;
      munmap(base, size);
      base = MAP_FAILED;
    }
  }
  if (base == MAP_FAILED) {
    munmap(old_base, size);
    close(old_fd);
    if (fd >= 0) {
      of_abandon_trace(&trace);
    }
    of_rt.base = NULL;
    of_rt.header = NULL;
    of_child_disable(path, error);
    return;
  }

  memcpy(base + OFT_HEADER_SIZE, old_base + OFT_HEADER_SIZE, (uint64_t)modules * OFT_MODULE_SIZE);
  memcpy(base + marks_offset, old_base + marks_offset, (uint64_t)marks * OFT_MARK_SIZE);
  memcpy(base + records_offset, old_base + records_offset, records * OFT_RECORD_SIZE);
  oft_header *header = (oft_header *)base;
  memcpy(header, snapshot, sizeof *header);
  header->parent_pid = header->pid;
  header->pid = pid;
  header->fork_record_index = records;
  header->checksum = oft_checksum(header, offsetof(oft_header, checksum));
  header->record_count = records;
  header->mark_count = marks;
  /* The parent's events stay in the parent's trace; the child's threads claim
   * buffers of their own in the new file. */
  header->event_thread_count = 0;
  header->unbuffered_events = 0;
  header->flags |= OFT_FLAG_FORKED;
  munmap(old_base, size);
  close(old_fd);
  /* Only now, with its header in, does the child's trace appear at its path. */
  if (!of_publish_trace(&trace, &error)) {
    munmap(base, size);
    of_rt.base = NULL;
    of_rt.header = NULL;
    of_child_disable(path, error);
    return;
  }

  of_rt.base = base;
  of_rt.header = header;
  of_rt.backed_bytes = backed_end;
  __atomic_store_n(&of_rt.storage_full, 0u, __ATOMIC_RELAXED);
  memcpy(of_rt.path, path, sizeof of_rt.path);
  __atomic_store_n(&of_rt.gate, 0u, __ATOMIC_SEQ_CST);
}

/* In the child after fork: a trace of its own, a fresh lock, a fresh thread id and
 * (full mode) no event buffer yet. */
void of_fork_child(void) {
  of_thread *self = &of_self;
  self->tid = 0;
  self->fork_gated = 0;
  self->events = NULL; /* it pointed into the parent's mapping */
  self->events_state = OF_EVENTS_NONE;
  self->events_last_ns = 0;
  of_rt.lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER; /* only this thread exists now */
  of_rt.fork_locked = false;
  if (__atomic_load_n(&of_rt.init_state, __ATOMIC_ACQUIRE) == OF_INIT_RECORDING) {
    of_fork_child_trace();
  }
  self->busy--;
}
