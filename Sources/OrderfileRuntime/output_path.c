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
 * Creates (or empties) the trace file at `path` and sizes it to `size` bytes,
 * sparse. Instead of O_TRUNC, the file is opened, locked with a non-blocking
 * exclusive flock() and only then truncated: a file another live process
 * still has mapped (two processes sharing one pattern without %p) is left
 * alone, since truncating it would make that process's next store raise
 * SIGBUS. The lock lives as long as the open file description, i.e. until
 * the process (and any fork child still holding the descriptor) ends; the
 * descriptor is close-on-exec. Returns false with `error_out` set (EBUSY for
 * a file in use, EINVAL for something that is not a regular file).
 */
bool of_create_trace_file(const char *path, uint64_t size, int *fd_out, int *error_out) {
  int fd;
  do {
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    *error_out = errno;
    return false;
  }
  struct stat status;
  if (fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    *error_out = EINVAL;
    close(fd);
    return false;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
    *error_out = EBUSY;
    close(fd);
    return false;
  }
  int result;
  do {
    result = ftruncate(fd, 0);
    if (result == 0) {
      result = ftruncate(fd, (off_t)size);
    }
  } while (result != 0 && errno == EINTR);
  if (result != 0) {
    *error_out = errno;
    close(fd);
    return false;
  }
  *fd_out = fd;
  return true;
}
