/*
 * modules.c - which loaded module (executable or shared library) owns a
 * function, and that module's entry in the trace.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "runtime_internal.h"

/* Cache entries: every module entry written, plus modules that found the table full. */
#define OF_RANGE_CAPACITY (OF_MODULE_CAPACITY + 64u)
#define OF_NO_MODULE 0xFFFFu

typedef struct of_range {
  uintptr_t start;     /* runtime address of the first executable byte */
  uintptr_t end;       /* one past the last */
  uintptr_t load_base; /* dlpi_addr */
  uint16_t index;      /* module entry, or OF_NO_MODULE when the table was full */
} of_range;

/*
 * The module cache, lock-free for readers.
 *
 * Ordering: entries are appended under of_rt.lock and published by a release
 * store of of_range_count; a reader loads the count with acquire and scans
 * only entries below it, which are never modified again.
 *
 * Limitations: an entry is never removed. A library unloaded by dlclose()
 * whose address range is later reused by another library attributes the new
 * library's functions to the old entry (and the seen set already holds any
 * address the old library used).
 */
static of_range of_ranges[OF_RANGE_CAPACITY];
static uint32_t of_range_count;

static const of_range *of_find_range(uintptr_t pc) OF_NOINSTR;
static const of_range *of_find_range(uintptr_t pc) {
  uint32_t count = __atomic_load_n(&of_range_count, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < count; i++) {
    if (pc >= of_ranges[i].start && pc < of_ranges[i].end) {
      return &of_ranges[i];
    }
  }
  return NULL;
}

/* What the dl_iterate_phdr callback looks for and finds. */
typedef struct of_search {
  uintptr_t pc;
  bool found;
  oft_module entry;    /* filled for the module that contains pc */
  uintptr_t start, end;
} of_search;

/*
 * The GNU build-id from the module's PT_NOTE segments, read in memory. A note
 * segment is used only when it lies inside a loaded PT_LOAD's file-backed
 * bytes. Returns the id's length, 0 when there is none or it does not fit.
 */
static uint8_t of_read_build_id(const struct dl_phdr_info *info, uint8_t *out) OF_NOINSTR;
static uint8_t of_read_build_id(const struct dl_phdr_info *info, uint8_t *out) {
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *note = &info->dlpi_phdr[i];
    if (note->p_type != PT_NOTE) {
      continue;
    }
    bool mapped = false;
    for (ElfW(Half) j = 0; j < info->dlpi_phnum && !mapped; j++) {
      const ElfW(Phdr) *load = &info->dlpi_phdr[j];
      mapped = load->p_type == PT_LOAD && note->p_vaddr >= load->p_vaddr &&
               note->p_vaddr + note->p_filesz <= load->p_vaddr + load->p_filesz;
    }
    if (!mapped) {
      continue;
    }
    const uint8_t *data = (const uint8_t *)(info->dlpi_addr + note->p_vaddr);
    uint64_t size = note->p_filesz;
    uint64_t align = note->p_align == 8 ? 8 : 4;
    uint64_t offset = 0;
    while (offset + sizeof(ElfW(Nhdr)) <= size) {
      ElfW(Nhdr) header;
      memcpy(&header, data + offset, sizeof header);
      uint64_t name_offset = offset + sizeof header;
      uint64_t desc_offset = name_offset + ((header.n_namesz + align - 1) & ~(align - 1));
      uint64_t next = desc_offset + ((header.n_descsz + align - 1) & ~(align - 1));
      if (desc_offset + header.n_descsz > size || next <= offset) {
        break;
      }
      if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 &&
          memcmp(data + name_offset, "GNU", 4) == 0) {
        if (header.n_descsz == 0 || header.n_descsz > OFT_BUILD_ID_CAPACITY) {
          return 0;
        }
        memcpy(out, data + desc_offset, header.n_descsz);
        return (uint8_t)header.n_descsz;
      }
      offset = next;
    }
  }
  return 0;
}

/*
 * Resolves every symbolic link in the absolute path `path`, as realpath() does, into
 * `out` (OF_PATH_CAPACITY bytes). Returns false when a component cannot be read, the
 * links loop or the result does not fit; `out` is then unspecified.
 *
 * Implementation: readlink() on each prefix, so system calls only: the in-process
 * recorder writes module entries from its SIGTRAP handler, where realpath()'s
 * allocations are not allowed. The buffers are static: the caller holds of_rt.lock.
 */
static bool of_resolve_links(const char *path, char *out) OF_NOINSTR;
static bool of_resolve_links(const char *path, char *out) {
  static char pending[OF_PATH_CAPACITY], target[OF_PATH_CAPACITY], joined[OF_PATH_CAPACITY];
  size_t length = strlen(path);
  if (path[0] != '/' || length >= sizeof pending) {
    return false;
  }
  memcpy(pending, path, length + 1);
  const char *rest = pending;
  size_t done = 0; /* out[0, done) is resolved, without a trailing slash: empty is the root */
  unsigned links = 0;
  out[0] = '\0';
  while (*rest != '\0') {
    while (*rest == '/') {
      rest++;
    }
    const char *end = rest;
    while (*end != '\0' && *end != '/') {
      end++;
    }
    size_t part = (size_t)(end - rest);
    if (part == 0 || (part == 1 && rest[0] == '.')) {
      rest = end;
      continue;
    }
    if (part == 2 && rest[0] == '.' && rest[1] == '.') {
      while (done > 0 && out[--done] != '/') {
      }
      out[done] = '\0';
      rest = end;
      continue;
    }
    if (done + 1 + part >= OF_PATH_CAPACITY) {
      return false;
    }
    out[done] = '/';
    memcpy(out + done + 1, rest, part);
    out[done + 1 + part] = '\0';
    ssize_t got = readlink(out, target, sizeof target - 1);
    if (got < 0) {
      if (errno != EINVAL) {
        return false;
      }
      done += 1 + part; /* not a link */
      rest = end;
      continue;
    }
    size_t tail = strlen(end);
    if (++links > 40 || (size_t)got + tail >= sizeof joined) {
      return false;
    }
    /* The link's target takes its place: from the root, or from the link's folder. */
    memcpy(joined, target, (size_t)got);
    memcpy(joined + got, end, tail + 1);
    memcpy(pending, joined, (size_t)got + tail + 1);
    rest = pending;
    if (target[0] == '/') {
      done = 0;
    }
    out[done] = '\0';
  }
  if (done == 0) {
    memcpy(out, "/", 2);
  }
  return true;
}

/*
 * The module's path: /proc/self/exe for the main executable, else the loader's
 * name, made absolute with the current directory when it is relative (a
 * dlopen("./x.so") - exact unless the directory changed since), with every
 * symbolic link resolved. The loader names a library by the link it opened
 * (libX.so.0, its SONAME), the kernel's map of the process by the file
 * (libX.so.0.0.0): both recorders, and every command, know a module by the file.
 */
static void of_read_module_path(const struct dl_phdr_info *info, bool main_executable,
                                oft_module *entry) OF_NOINSTR;
static void of_read_module_path(const struct dl_phdr_info *info, bool main_executable,
                                oft_module *entry) {
  char path[OF_PATH_CAPACITY + 8];
  size_t length = 0;
  if (main_executable) {
    ssize_t read = readlink("/proc/self/exe", path, sizeof path - 1);
    length = read > 0 ? (size_t)read : 0;
  } else {
    const char *name = info->dlpi_name;
    while (name[0] == '.' && name[1] == '/') {
      name += 2; /* "./lib.so" from a relative search path: drop the no-op prefix */
    }
    size_t name_length = strlen(name);
    if (name[0] != '/' && getcwd(path, sizeof path) != NULL) {
      length = strlen(path);
      if (length + 1 < sizeof path) {
        path[length++] = '/';
      }
    }
    size_t room = sizeof path - 1 - length;
    memcpy(path + length, name, name_length < room ? name_length : room);
    length += name_length < room ? name_length : room;
    if (name_length > room) {
      length = sizeof path; /* marks truncation below */
    } else {
      path[length] = '\0';
      static char resolved[OF_PATH_CAPACITY];
      int saved_errno = errno; /* the program's errno, as the call it interrupted left it */
      if (of_resolve_links(path, resolved)) {
        length = strlen(resolved);
        memcpy(path, resolved, length + 1);
      }
      errno = saved_errno;
    }
  }
  if (length >= sizeof entry->path) {
    length = sizeof entry->path - 1;
    entry->flags |= OFT_MODULE_PATH_TRUNCATED;
  }
  memcpy(entry->path, path, length);
  entry->path_length = (uint16_t)length;
}

static int of_search_module(struct dl_phdr_info *info, size_t size, void *context) OF_NOINSTR;
static int of_search_module(struct dl_phdr_info *info, size_t size, void *context) {
  (void)size;
  of_search *search = context;
  uintptr_t vaddr = search->pc - info->dlpi_addr;
  bool contains = false;
  uint64_t text_start = UINT64_MAX, text_end = 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
    if (segment->p_type != PT_LOAD || (segment->p_flags & PF_X) == 0) {
      continue;
    }
    if (vaddr >= segment->p_vaddr && vaddr < segment->p_vaddr + segment->p_memsz) {
      contains = true;
    }
    if (segment->p_vaddr < text_start) {
      text_start = segment->p_vaddr;
    }
    if (segment->p_vaddr + segment->p_memsz > text_end) {
      text_end = segment->p_vaddr + segment->p_memsz;
    }
  }
  if (!contains) {
    return 0;
  }
  /* The main program is the one object the loader gives no name. */
  bool main_executable = info->dlpi_name == NULL || info->dlpi_name[0] == '\0';
  oft_module *entry = &search->entry;
  memset(entry, 0, sizeof *entry);
  entry->load_base = info->dlpi_addr;
  entry->text_start = text_start;
  entry->text_end = text_end;
  entry->flags = main_executable ? OFT_MODULE_MAIN_EXECUTABLE : 0;
  entry->build_id_length = of_read_build_id(info, entry->build_id);
  of_read_module_path(info, main_executable, entry);
  search->start = info->dlpi_addr + text_start;
  search->end = info->dlpi_addr + text_end;
  search->found = true;
  return 1;
}

/*
 * Finds the module entry of the function at `pc`, writing the entry first if
 * this is the module's first recorded function. Returns false when the pc is
 * in no loaded module or the module table is full (the caller counts a drop).
 * Precondition: the caller is a writer (inside of_writer_enter).
 *
 * Implementation: a hit in the cache costs a short scan and no lock. A miss
 * takes of_rt.lock, looks again, and asks dl_iterate_phdr for the module
 * whose executable PT_LOAD holds pc. The entry is written to the mapping with
 * its checksum last, then counted in the header's module_count (release),
 * then published in the cache; records that name it come after.
 */
bool of_module_for(uintptr_t pc, uint16_t *index, uintptr_t *load_base) {
  const of_range *range = of_find_range(pc);
  if (range == NULL) {
    pthread_mutex_lock(&of_rt.lock);
    range = of_find_range(pc);
    if (range == NULL) {
      static of_search search; /* 4 KiB: kept off the stack; used only under the lock */
      search.pc = pc;
      search.found = false;
      dl_iterate_phdr(of_search_module, &search);
      uint32_t count = __atomic_load_n(&of_range_count, __ATOMIC_RELAXED);
      if (search.found && count < OF_RANGE_CAPACITY) {
        oft_header *header = of_rt.header;
        uint32_t module = header->module_count;
        uint16_t assigned = OF_NO_MODULE;
        uint64_t offset = header->module_table_offset + (uint64_t)module * OFT_MODULE_SIZE;
        bool backed = module < OF_MODULE_CAPACITY &&
                      (module == 0 || of_allocate(offset, OFT_MODULE_SIZE)); /* 0: at start */
        if (module < OF_MODULE_CAPACITY && !backed) {
          of_stop_for_storage(errno);
        }
        if (backed) {
          oft_module *entry = (oft_module *)(of_rt.base + offset);
          memcpy(entry, &search.entry, offsetof(oft_module, checksum));
          uint32_t checksum = oft_checksum(&search.entry, offsetof(oft_module, checksum));
          __atomic_store_n(&entry->checksum, checksum, __ATOMIC_RELEASE);
          __atomic_store_n(&header->module_count, module + 1u, __ATOMIC_RELEASE);
          assigned = (uint16_t)module;
        }
        of_ranges[count] = (of_range){search.start, search.end, search.entry.load_base, assigned};
        __atomic_store_n(&of_range_count, count + 1u, __ATOMIC_RELEASE);
        range = &of_ranges[count];
      } else if (search.found) {
        /* Cache full: answer this call without caching. */
        pthread_mutex_unlock(&of_rt.lock);
        return false;
      }
    }
    pthread_mutex_unlock(&of_rt.lock);
  }
  if (range == NULL || range->index == OF_NO_MODULE) {
    return false;
  }
  *index = range->index;
  *load_base = range->load_base;
  return true;
}
