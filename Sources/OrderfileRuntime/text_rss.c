/*
 * text_rss.c - how much of each recorded module's code is resident when the
 * launch window closes, from /proc/self/smaps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "runtime_internal.h"

/* smaps is read through this buffer, a chunk at a time; a line never exceeds it
 * (a mapping line is at most about 100 bytes plus a PATH_MAX path). */
#define OF_SMAPS_BUFFER_SIZE (16u * 1024u)

_Static_assert(OF_SMAPS_BUFFER_SIZE > OF_PATH_CAPACITY + 256u, "a whole smaps line fits the buffer");

/* All used only under of_rt.lock: no allocation, no large stack frame in a hook. */
static char of_smaps_buffer[OF_SMAPS_BUFFER_SIZE];
static uint64_t of_rss_bytes[OF_MODULE_CAPACITY];
static bool of_rss_found[OF_MODULE_CAPACITY];
static uint8_t of_entry_copy[OFT_MODULE_SIZE];

/* Runtime address ranges of the modules' code, for matching mappings. */
static uintptr_t of_text_start[OF_MODULE_CAPACITY];
static uintptr_t of_text_end[OF_MODULE_CAPACITY];

static bool of_is_hex(char c) OF_NOINSTR;
static bool of_is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static uint64_t of_parse_hex(const char **cursor, const char *end) OF_NOINSTR;
static uint64_t of_parse_hex(const char **cursor, const char *end) {
  uint64_t value = 0;
  const char *at = *cursor;
  for (; at < end && of_is_hex(*at); at++) {
    value = value << 4 | (uint64_t)(*at <= '9' ? *at - '0' : *at - 'a' + 10);
  }
  *cursor = at;
  return value;
}

/* of_smaps_line's answer when a mapping starts past every module's code. */
#define OF_SMAPS_DONE (-2)

/*
 * One line of smaps. A mapping line ("start-end perms offset dev inode path",
 * lower-case hex first) selects the module whose code range the mapping
 * overlaps, if the mapping is executable; an "Rss:   N kB" line adds to that
 * module. Returns the module now selected (-1 = none), or OF_SMAPS_DONE when
 * the mapping starts at or after `limit`: mappings come in address order, so
 * no later one can hold code of a module.
 */
static int of_smaps_line(const char *line, const char *end, int current, uint32_t modules,
                         uintptr_t limit) OF_NOINSTR;
static int of_smaps_line(const char *line, const char *end, int current, uint32_t modules,
                         uintptr_t limit) {
  if (line < end && of_is_hex(line[0])) {
    const char *cursor = line;
    uint64_t start = of_parse_hex(&cursor, end);
    if (cursor >= end || *cursor != '-') {
      return -1;
    }
    cursor++;
    uint64_t stop = of_parse_hex(&cursor, end);
    if (start >= limit) {
      return OF_SMAPS_DONE;
    }
    if (end - cursor < 5 || cursor[0] != ' ' || cursor[3] != 'x') {
      return -1; /* perms are "rwxp": the third is 'x' for code */
    }
    for (uint32_t i = 0; i < modules; i++) {
      if (start < of_text_end[i] && stop > of_text_start[i]) {
        return (int)i;
      }
    }
    return -1;
  }
  if (current >= 0 && end - line > 4 && memcmp(line, "Rss:", 4) == 0) {
    const char *cursor = line + 4;
    while (cursor < end && *cursor == ' ') {
      cursor++;
    }
    uint64_t kib = 0;
    for (; cursor < end && *cursor >= '0' && *cursor <= '9'; cursor++) {
      kib = kib * 10u + (uint64_t)(*cursor - '0');
    }
    of_rss_bytes[current] += kib * 1024u;
    of_rss_found[current] = true;
  }
  return current;
}

/*
 * Stores in every module entry the resident bytes of the executable
 * mapping(s) that overlap the module's code (load_base + text_start ..
 * load_base + text_end), summed from the Rss lines of /proc/self/smaps, and
 * sets OFT_MODULE_TEXT_RSS; the entry's checksum is computed again.
 *
 * Preconditions: the caller holds its thread's busy flag and does not hold
 * of_rt.lock. Called once, when the window closes.
 * Side effects: takes of_rt.lock (no module can be added meanwhile); opens,
 * reads and closes /proc/self/smaps, up to the first mapping past the
 * modules' code, which costs the kernel a walk of those mappings' page
 * tables (some 50 microseconds for a small program) and touches only this
 * file's static buffers. No allocation.
 *
 * Limitations: a mapping that also holds read-only data (a linker that does
 * not separate code) counts whole. Modules registered after the window
 * closed get no value. A crash between the three stores that update an entry
 * leaves its checksum wrong; the stores are adjacent, so the window is a few
 * nanoseconds.
 */
void of_sample_text_rss(void) {
  oft_header *header = of_rt.header;
  if (header == NULL) {
    return;
  }
  pthread_mutex_lock(&of_rt.lock);
  uint32_t modules = __atomic_load_n(&header->module_count, __ATOMIC_ACQUIRE);
  if (modules > OF_MODULE_CAPACITY) {
    modules = OF_MODULE_CAPACITY;
  }
  uint8_t *table = of_rt.base + header->module_table_offset;
  uintptr_t limit = 0; /* one past the highest module code */
  for (uint32_t i = 0; i < modules; i++) {
    const oft_module *entry = (const oft_module *)(table + (uint64_t)i * OFT_MODULE_SIZE);
    of_text_start[i] = (uintptr_t)(entry->load_base + entry->text_start);
    of_text_end[i] = (uintptr_t)(entry->load_base + entry->text_end);
    of_rss_bytes[i] = 0;
    of_rss_found[i] = false;
    if (of_text_end[i] > limit) {
      limit = of_text_end[i];
    }
  }
  int fd = modules == 0 ? -1 : open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    pthread_mutex_unlock(&of_rt.lock);
    return;
  }
  size_t used = 0;
  int current = -1;
  bool skipping = false; /* inside a line longer than the buffer */
  while (current != OF_SMAPS_DONE) {
    ssize_t got = read(fd, of_smaps_buffer + used, sizeof of_smaps_buffer - used);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      break;
    }
    used += (size_t)got;
    const char *line = of_smaps_buffer;
    const char *end = of_smaps_buffer + used;
    for (;;) {
      const char *newline = memchr(line, '\n', (size_t)(end - line));
      if (newline == NULL) {
        break;
      }
      if (!skipping) {
        current = of_smaps_line(line, newline, current, modules, limit);
      }
      skipping = false;
      line = newline + 1;
      if (current == OF_SMAPS_DONE) {
        break;
      }
    }
    used = (size_t)(end - line);
    if (used == sizeof of_smaps_buffer) {
      used = 0; /* cannot happen for smaps; drop the line rather than loop */
      skipping = true;
    } else {
      memmove(of_smaps_buffer, line, used);
    }
  }
  close(fd);

  for (uint32_t i = 0; i < modules; i++) {
    if (!of_rss_found[i]) {
      continue;
    }
    oft_module *entry = (oft_module *)(table + (uint64_t)i * OFT_MODULE_SIZE);
    memcpy(of_entry_copy, entry, OFT_MODULE_SIZE);
    oft_module *copy = (oft_module *)of_entry_copy;
    copy->text_rss_bytes = of_rss_bytes[i];
    copy->flags |= OFT_MODULE_TEXT_RSS;
    uint32_t checksum = oft_checksum(copy, offsetof(oft_module, checksum));
    entry->text_rss_bytes = copy->text_rss_bytes;
    entry->flags = copy->flags;
    __atomic_store_n(&entry->checksum, checksum, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&of_rt.lock);
}
