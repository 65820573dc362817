/*
 * plan.c - the recording plan `orderfile record` names in ORDERFILE_TRAP_PLAN (written by
 * Sources/OrderfileRecording/InProcessPlan.swift): for each module, the function entries to
 * trap and those whose first call ends the launch window. Read before libc is initialized
 * (recorder.c), so without its environ and without malloc.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../OrderfileRuntime/runtime_internal.h"
#include "inprocess.h"

of_plan_module of_plan[OF_ARMED_CAPACITY];
uint32_t of_plan_count;
uint32_t of_plan_flags;

/* Reads one variable of the initial environment without libc's environ (not set yet). The
 * environment is read once, at the first call: arming asks for several variables, and a
 * process image arms once. */
bool of_early_getenv(const char *name, char *out, size_t capacity) OF_NOINSTR;
bool of_early_getenv(const char *name, char *out, size_t capacity) {
  static char buffer[1u << 18]; /* .bss: touched only as far as the environment reaches */
  static size_t used;
  static bool read_once;
  if (!read_once) {
    read_once = true;
    int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      return false;
    }
    ssize_t got;
    while (used < sizeof buffer - 1 && (got = read(fd, buffer + used, sizeof buffer - 1 - used)) > 0) {
      used += (size_t)got;
    }
    close(fd);
    buffer[used] = '\0';
  }
  size_t name_length = strlen(name);
  for (size_t at = 0; at < used;) {
    const char *entry = buffer + at;
    size_t length = strlen(entry);
    if (length > name_length && memcmp(entry, name, name_length) == 0 && entry[name_length] == '=') {
      size_t value = length - name_length - 1;
      if (value >= capacity) {
        return false;
      }
      memcpy(out, entry + name_length + 1, value + 1);
      return true;
    }
    at += length + 1;
  }
  return false;
}

bool of_early_off(const char *name) OF_NOINSTR;
bool of_early_off(const char *name) {
  char value[4];
  return of_early_getenv(name, value, sizeof value) && strcmp(value, "0") == 0;
}

void *of_unplanned_arming(void) OF_NOINSTR;
void *of_unplanned_arming(void) {
  return (of_plan_flags & OF_PLAN_FILE_NAMED_ONLY) != 0 ? NULL : (void *)1;
}

/* Maps and checks the plan file; fills of_plan. */
bool of_load_plan(const char *path) OF_NOINSTR;
bool of_load_plan(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat status;
  if (fd < 0 || fstat(fd, &status) != 0 || status.st_size < 16) {
    if (fd >= 0) {
      close(fd);
    }
    of_say("cannot read the recording plan ", path);
    return false;
  }
  size_t size = (size_t)status.st_size;
  const uint8_t *data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (data == MAP_FAILED || memcmp(data, OF_PLAN_MAGIC, 8) != 0) {
    of_say("not a recording plan: ", path);
    return false;
  }
  uint32_t count;
  memcpy(&count, data + 8, 4);
  memcpy(&of_plan_flags, data + 12, 4);
  size_t at = 16;
  for (uint32_t i = 0; i < count && of_plan_count < OF_ARMED_CAPACITY; i++) {
    uint32_t header[2];
    uint64_t counts[2];
    if (at + 24 > size) {
      break;
    }
    memcpy(header, data + at, 8);
    memcpy(counts, data + at + 8, 16);
    at += 24;
    size_t padded = ((size_t)header[0] + 8u) & ~(size_t)7u; /* at least one NUL */
    if (at + padded + (counts[0] + counts[1]) * 8u > size) {
      of_say("truncated recording plan: ", path);
      return false;
    }
    of_plan_module *module = &of_plan[of_plan_count++];
    module->path = (const char *)data + at;
    module->path_length = header[0];
    module->flags = header[1];
    at += padded;
    module->entries = (const uint64_t *)(data + at);
    module->entry_count = counts[0];
    at += counts[0] * 8u;
    module->stops = (const uint64_t *)(data + at);
    module->stop_count = counts[1];
    at += counts[1] * 8u;
    /* Paths in the plan are NUL-terminated (the padding holds at least one NUL). */
    struct stat file;
    if (stat(module->path, &file) == 0) {
      module->device = file.st_dev;
      module->inode = file.st_ino;
      module->identified = true;
    }
  }
  return true;
}
