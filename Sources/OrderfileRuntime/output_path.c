/*
 * output_path.c - the trace file's name and creation.
 *
 * Everything here is async-signal-safe (no allocation, no stdio, no locks):
 * a fork child runs it from its pthread_atfork handler, where only such
 * calls are allowed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime_internal.h"

/* Writes `value` in decimal to `out` (at least 21 bytes), NUL-terminated; returns its length. */
size_t of_format_u64(char *out, uint64_t value) {
  char digits[20];
  size_t count = 0;
  do {
    digits[count++] = (char)('0' + value % 10u);
    value /= 10u;
  } while (value != 0);
  for (size_t i = 0; i < count; i++) {
    out[i] = digits[count - 1 - i];
  }
  out[count] = '\0';
  return count;
}

/*
 * Checks that every '%' in `pattern` starts %p, %e or %%. On failure stores
 * the unknown escape's letter in `bad_escape` (0 for a '%' at the end).
 */
bool of_pattern_is_valid(const char *pattern, char *bad_escape) {
  for (const char *cursor = pattern; *cursor != '\0'; cursor++) {
    if (*cursor != '%') {
      continue;
    }
    cursor++;
    if (*cursor != 'p' && *cursor != 'e' && *cursor != '%') {
      *bad_escape = *cursor;
      return false;
    }
  }
  return true;
}

static bool of_append(char *out, size_t capacity, size_t *length, const char *text, size_t count) OF_NOINSTR;
static bool of_append(char *out, size_t capacity, size_t *length, const char *text, size_t count) {
  if (*length + count >= capacity) {
    return false;
  }
  memcpy(out + *length, text, count);
  *length += count;
  out[*length] = '\0';
  return true;
}

/*
 * Expands a validated ORDERFILE_OUTPUT pattern into `out`: %p is `pid`, %e is
 * `executable_name`, %% is a percent sign. With `force_pid`, a pattern
 * without %p gets ".<pid>" appended, so the result differs from what any
 * other process would expand. Returns false if the result does not fit.
 */
bool of_expand_pattern(char *out, size_t capacity, const char *pattern, uint32_t pid,
                       const char *executable_name, bool force_pid) {
  char pid_text[21];
  size_t pid_length = of_format_u64(pid_text, pid);
  size_t length = 0;
  bool has_pid = false;
  out[0] = '\0';
  for (const char *cursor = pattern; *cursor != '\0'; cursor++) {
    bool fits;
    if (*cursor != '%') {
      fits = of_append(out, capacity, &length, cursor, 1);
    } else {
      cursor++;
      if (*cursor == 'p') {
        has_pid = true;
        fits = of_append(out, capacity, &length, pid_text, pid_length);
      } else if (*cursor == 'e') {
        fits = of_append(out, capacity, &length, executable_name, strlen(executable_name));
      } else if (*cursor == '%') {
        fits = of_append(out, capacity, &length, "%", 1);
      } else {
        return false; /* not validated: refuse rather than guess */
      }
    }
    if (!fits) {
      return false;
    }
  }
  if (force_pid && !has_pid) {
    return of_append(out, capacity, &length, ".", 1) &&
           of_append(out, capacity, &length, pid_text, pid_length);
  }
  return true;
}

/* Writes the concatenation of `parts` to stderr in one write(). */
void of_write_stderr(const char *const *parts, size_t count) {
  char line[2 * OF_PATH_CAPACITY];
  size_t length = 0;
  for (size_t i = 0; i < count; i++) {
    size_t part = strlen(parts[i]);
    if (length + part > sizeof line) {
      part = sizeof line - length;
    }
    memcpy(line + length, parts[i], part);
    length += part;
  }
  ssize_t ignored = write(STDERR_FILENO, line, length);
  (void)ignored;
}

/*
 * Whether the header bytes `bytes` (`length` of them) are those of a trace
 * that this very process wrote before it called exec: the same pid, and the
 * same process start, to the clock tick. A trace continued from a fork
 * carries its parent's start, which can only be earlier. Without a known
 * start (resolution 0) the pid alone decides; a mistake then only keeps a
 * stale trace that could have been replaced.
 */
static bool of_is_own_image(const uint8_t *bytes, size_t length, const of_identity *self) OF_NOINSTR;
static bool of_is_own_image(const uint8_t *bytes, size_t length, const of_identity *self) {
  oft_header header;
  if (length < sizeof header) {
    return false;
  }
  memcpy(&header, bytes, sizeof header);
  if (header.version_major != OFT_VERSION_MAJOR ||
      header.checksum != oft_checksum(&header, offsetof(oft_header, checksum)) || header.pid != self->pid) {
    return false;
  }
  if (self->start_resolution_ns == 0) {
    return true;
  }
  uint64_t latest = self->start_ns + self->start_resolution_ns;
  if (header.flags & OFT_FLAG_FORKED) {
    return header.process_start_ns <= latest;
  }
  return header.process_start_ns <= latest && header.process_start_ns + self->start_resolution_ns >= self->start_ns;
}

/*
 * Looks at what is at `path` and, if a new trace may go there, keeps it
 * locked in `held` (a descriptor; the file a placeholder this call created
 * when `created`).
 *
 * Ordering: whoever holds the flock of the file at the path owns the path. A
 * runtime holds its trace's lock for as long as it records, so a locked file
 * is a live trace (BUSY). After taking the lock the path is checked to still
 * name the locked file, or another runtime could have renamed its new trace
 * over it in between.
 */
static of_claim of_claim_path(const char *path, const of_identity *self, int *held, bool *created,
                              int *error_out) OF_NOINSTR;
static of_claim of_claim_path(const char *path, const of_identity *self, int *held, bool *created,
                              int *error_out) {
  for (int attempt = 0; attempt < 8; attempt++) {
    /* Non-blocking: opening a FIFO must not wait for a writer. Never through a symbolic
     * link: a link at the path is replaced by the trace, and its target is not touched
     * (nor is a file created beside it: the recorded program may run as root). */
    int flags = O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW;
    int fd;
    *created = true;
    do {
      fd = open(path, flags | O_CREAT | O_EXCL, 0644);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0 && errno == EEXIST) {
      *created = false;
      do {
        fd = open(path, flags);
      } while (fd < 0 && errno == EINTR);
      if (fd < 0 && errno == ENOENT) {
        continue; /* removed in between */
      }
      if (fd < 0 && errno == ELOOP) {
        /* A symbolic link: nothing to lock or read; the rename replaces the link itself. */
        *held = -1;
        return OF_CLAIM_FREE;
      }
    }
    if (fd < 0) {
      *error_out = errno;
      return OF_CLAIM_ERROR;
    }
    struct stat held_status, path_status;
    if (fstat(fd, &held_status) != 0 || !S_ISREG(held_status.st_mode)) {
      close(fd);
      *error_out = EINVAL;
      return OF_CLAIM_ERROR;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int error = errno;
      close(fd);
      if (error == EWOULDBLOCK) {
        return OF_CLAIM_BUSY;
      }
      *error_out = error;
      return OF_CLAIM_ERROR;
    }
    if (stat(path, &path_status) != 0 || path_status.st_dev != held_status.st_dev ||
        path_status.st_ino != held_status.st_ino) {
      close(fd);
      continue;
    }
    if (held_status.st_size > 0) {
      uint8_t header[sizeof(oft_header)];
      ssize_t length;
      do {
        length = pread(fd, header, sizeof header, 0);
      } while (length < 0 && errno == EINTR);
      uint64_t magic = 0;
      if (length >= (ssize_t)sizeof magic) {
        memcpy(&magic, header, sizeof magic);
      }
      if (magic != OFT_MAGIC) {
        close(fd);
        return OF_CLAIM_FOREIGN;
      }
      if (self->check_exec && of_is_own_image(header, length > 0 ? (size_t)length : 0u, self)) {
        close(fd);
        return OF_CLAIM_OWN_IMAGE;
      }
    }
    *held = fd;
    return OF_CLAIM_FREE;
  }
  *error_out = EAGAIN;
  return OF_CLAIM_ERROR;
}

/* `out` (OF_PATH_CAPACITY bytes) = `first` + `second` + `third`; false if it does not fit. */
bool of_join(char *out, const char *first, const char *second, const char *third) {
  size_t lengths[3] = {strlen(first), strlen(second), strlen(third)};
  if (lengths[0] + lengths[1] + lengths[2] >= OF_PATH_CAPACITY) {
    return false;
  }
  memmove(out, first, lengths[0]);
  memcpy(out + lengths[0], second, lengths[1]);
  memcpy(out + lengths[0] + lengths[1], third, lengths[2]);
  out[lengths[0] + lengths[1] + lengths[2]] = '\0';
  return true;
}

/*
 * Creates the new trace's file beside `path`, hidden ("<dir>/.<name>.<pid>.tmp"),
 * locked and `size` bytes long (sparse), for of_publish_trace to rename into
 * place. A leftover of a process that had the same pid is replaced.
 */
static bool of_create_temporary(of_new_trace *trace, const char *path, uint32_t pid, uint64_t size,
                                int *error_out) OF_NOINSTR;
static bool of_create_temporary(of_new_trace *trace, const char *path, uint32_t pid, uint64_t size,
                                int *error_out) {
  const char *slash = strrchr(path, '/');
  size_t directory = slash != NULL ? (size_t)(slash - path) + 1u : 0u;
  char pid_text[21];
  size_t pid_length = of_format_u64(pid_text, pid);
  size_t name = strlen(path) - directory;
  if (directory + 1u + name + 1u + pid_length + 4u >= sizeof trace->temporary) {
    *error_out = ENAMETOOLONG;
    return false;
  }
  char *cursor = trace->temporary;
  memcpy(cursor, path, directory);
  cursor += directory;
  *cursor++ = '.';
  memcpy(cursor, path + directory, name);
  cursor += name;
  *cursor++ = '.';
  memcpy(cursor, pid_text, pid_length);
  cursor += pid_length;
  memcpy(cursor, ".tmp", 5);
  for (int attempt = 0; attempt < 2; attempt++) {
    do {
      trace->fd = open(trace->temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    } while (trace->fd < 0 && errno == EINTR);
    if (trace->fd >= 0 || errno != EEXIST) {
      break;
    }
    unlink(trace->temporary);
  }
  if (trace->fd < 0) {
    *error_out = errno;
    return false;
  }
  int result;
  do {
    result = ftruncate(trace->fd, (off_t)size);
  } while (result != 0 && errno == EINTR);
  if (result != 0 || flock(trace->fd, LOCK_EX | LOCK_NB) != 0) {
    *error_out = errno;
    close(trace->fd);
    unlink(trace->temporary);
    trace->fd = -1;
    return false;
  }
  return true;
}

/*
 * Claims `path` for a new trace of `size` bytes and creates the file that will
 * become it (of_new_trace). A trace this process wrote before an exec is kept:
 * the new one goes to "<path>.exec<n>", the first n free. Returns
 * OF_CLAIM_FREE with `trace` ready and trace->path set, or what stood in the
 * way (OF_CLAIM_BUSY, OF_CLAIM_FOREIGN; OF_CLAIM_ERROR with `error_out`, EINVAL
 * for something that is not a regular file). Async-signal-safe.
 */
of_claim of_open_trace(const char *path, uint64_t size, const of_identity *self, of_new_trace *trace,
                       int *error_out) {
  trace->fd = -1;
  trace->held = -1;
  trace->created = false;
  of_claim claim = OF_CLAIM_OWN_IMAGE;
  for (uint64_t image = 0; claim == OF_CLAIM_OWN_IMAGE; image++) {
    char number[21] = "";
    if (image != 0) {
      of_format_u64(number, image);
    }
    if (image > OF_EXEC_IMAGES_MAX || !of_join(trace->path, path, image != 0 ? ".exec" : "", number)) {
      *error_out = image > OF_EXEC_IMAGES_MAX ? EMLINK : ENAMETOOLONG;
      return OF_CLAIM_ERROR;
    }
    claim = of_claim_path(trace->path, self, &trace->held, &trace->created, error_out);
  }
  if (claim != OF_CLAIM_FREE) {
    return claim;
  }
  if (!of_create_temporary(trace, trace->path, self->pid, size, error_out)) {
    of_abandon_trace(trace);
    return OF_CLAIM_ERROR;
  }
  return OF_CLAIM_FREE;
}

/*
 * Renames the new trace over its path in one step, so that a reader of the
 * old file (another process's trace, mapped by a tool) keeps what it has,
 * and releases the old file. Returns false with `error_out` set; the new file
 * is then removed. Async-signal-safe.
 */
bool of_publish_trace(of_new_trace *trace, int *error_out) {
  if (rename(trace->temporary, trace->path) != 0) {
    *error_out = errno;
    of_abandon_trace(trace);
    return false;
  }
  trace->created = false; /* the placeholder is gone, replaced */
  if (trace->held >= 0) {
    close(trace->held);
    trace->held = -1;
  }
  return true;
}

/* Removes the new trace's file and the placeholder this claim made, and closes both. */
void of_abandon_trace(of_new_trace *trace) {
  if (trace->fd >= 0) {
    close(trace->fd);
    unlink(trace->temporary);
    trace->fd = -1;
  }
  if (trace->held >= 0) {
    if (trace->created) {
      unlink(trace->path);
    }
    close(trace->held);
    trace->held = -1;
  }
}
