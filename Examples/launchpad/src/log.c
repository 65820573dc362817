/*
 * log.c - logging into an in-memory ring of lines, with level filtering.
 *
 * Nothing reaches stdout: the ring is flushed to stderr at exit only when
 * LAUNCHPAD_VERBOSE is set, or to a file opened with log_open_file().
 */
#include "launchpad.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define LOG_RING_BYTES 16384

static struct {
  pthread_mutex_t lock;
  log_level level;
  char ring[LOG_RING_BYTES];
  size_t head;     /* next write position */
  size_t filled;   /* bytes valid in ring */
  unsigned counts[LOG_FATAL + 1];
  int file_fd;
  struct timespec start;
} L = {.lock = PTHREAD_MUTEX_INITIALIZER, .level = LOG_INFO, .file_fd = -1};

static const char *const level_names[] = {"trace", "debug", "info", "warn", "error", "fatal"};

const char *log_level_name(log_level level) {
  return (unsigned)level <= LOG_FATAL ? level_names[level] : "?";
}

int log_level_from_name(const char *name, log_level *out) {
  for (int i = 0; i <= LOG_FATAL; i++) {
    if (strcasecmp(name, level_names[i]) == 0) {
      *out = (log_level)i;
      return 0;
    }
  }
  if (strcasecmp(name, "warning") == 0) {
    *out = LOG_WARN;
    return 0;
  }
  return -1;
}

void log_dump_hex(const char *component, const void *data, size_t n) {
  const unsigned char *p = data;
  char line[80];
  for (size_t off = 0; off < n; off += 16) {
    int k = snprintf(line, sizeof line, "%04zx:", off);
    for (size_t i = off; i < off + 16 && i < n; i++) k += snprintf(line + k, sizeof line - (size_t)k, " %02x", p[i]);
    log_write(LOG_TRACE, component, "%s", line);
  }
}

static void ring_put(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    L.ring[L.head] = s[i];
    L.head = (L.head + 1) % LOG_RING_BYTES;
  }
  L.filled = L.filled + n > LOG_RING_BYTES ? LOG_RING_BYTES : L.filled + n;
}

static long elapsed_us(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - L.start.tv_sec) * 1000000L + (now.tv_nsec - L.start.tv_nsec) / 1000;
}

int log_init(const char *level_name) {
  clock_gettime(CLOCK_MONOTONIC, &L.start);
  log_level lv;
  if (level_name && log_level_from_name(level_name, &lv) == 0) L.level = lv;
  log_write(LOG_DEBUG, "log", "logging at level %s", log_level_name(L.level));
  return 0;
}

int log_open_file(const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    log_write(LOG_ERROR, "log", "cannot open %s", path);
    return -1;
  }
  pthread_mutex_lock(&L.lock);
  if (L.file_fd >= 0) close(L.file_fd);
  L.file_fd = fd;
  pthread_mutex_unlock(&L.lock);
  return 0;
}

void log_set_level(log_level level) { L.level = level; }

void log_vwrite(log_level level, const char *component, const char *fmt, va_list ap) {
  if (level < L.level) return;
  char line[256];
  long us = elapsed_us();
  int n = snprintf(line, sizeof line, "[%6ld.%03ld] %-5s %-8s ", us / 1000, us % 1000, level_names[level],
                   component);
  if (n < 0) return;
  int m = vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  size_t len = m < 0 ? (size_t)n : (size_t)n + (size_t)m;
  if (len > sizeof line - 2) len = sizeof line - 2;
  line[len++] = '\n';
  pthread_mutex_lock(&L.lock);
  L.counts[level]++;
  ring_put(line, len);
  if (L.file_fd >= 0 && write(L.file_fd, line, len) < 0) L.file_fd = -1;
  pthread_mutex_unlock(&L.lock);
}

log_level log_get_level(void) { return L.level; }

void log_write(log_level level, const char *component, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  log_vwrite(level, component, fmt, ap);
  va_end(ap);
}

void log_rotate(void) {
  pthread_mutex_lock(&L.lock);
  L.head = 0;
  L.filled = 0;
  memset(L.counts, 0, sizeof L.counts);
  pthread_mutex_unlock(&L.lock);
  log_write(LOG_INFO, "log", "log rotated");
}

unsigned log_count(log_level level) { return (unsigned)level <= LOG_FATAL ? L.counts[level] : 0; }

size_t log_tail(char *out, size_t cap, unsigned lines) {
  pthread_mutex_lock(&L.lock);
  size_t start = (L.head + LOG_RING_BYTES - L.filled) % LOG_RING_BYTES;
  /* Walk backwards from the end to find where the last `lines` lines begin. */
  size_t take = 0;
  unsigned seen = 0;
  while (take < L.filled) {
    size_t pos = (L.head + LOG_RING_BYTES - 1 - take) % LOG_RING_BYTES;
    if (L.ring[pos] == '\n' && take > 0 && ++seen == lines) break;
    take++;
  }
  (void)start;
  size_t n = take < cap - 1 ? take : cap - 1;
  for (size_t i = 0; i < n; i++) out[i] = L.ring[(L.head + LOG_RING_BYTES - take + i) % LOG_RING_BYTES];
  out[n] = '\0';
  pthread_mutex_unlock(&L.lock);
  return n;
}

void log_flush(int fd) {
  char buf[LOG_RING_BYTES + 1];
  size_t n = log_tail(buf, sizeof buf, 1u << 30);
  size_t off = 0;
  while (off < n) {
    ssize_t w = write(fd, buf + off, n - off);
    if (w <= 0) break;
    off += (size_t)w;
  }
}

void log_shutdown(void) {
  pthread_mutex_lock(&L.lock);
  if (L.file_fd >= 0) close(L.file_fd);
  L.file_fd = -1;
  pthread_mutex_unlock(&L.lock);
}
