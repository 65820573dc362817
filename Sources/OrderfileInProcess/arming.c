/*
 * arming.c - the loaded modules with traps in them: planting a trap over every planned
 * entry of a module (its code made writable for the rest of the run), arming the modules
 * a dlopen brings, and the trap handler's lookup of an entry.
 */
#define _GNU_SOURCE
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../OrderfileRuntime/runtime_internal.h"
#include "inprocess.h"
#include "orderfile_system_paths.h"
#include "trap.h"

of_armed of_armed_modules[OF_ARMED_CAPACITY];
uint32_t of_armed_count;

bool of_in_stops(const of_armed *module, uint64_t vaddr) OF_NOINSTR;
bool of_in_stops(const of_armed *module, uint64_t vaddr) {
  for (uint64_t i = 0; i < module->stop_count; i++) {
    if (module->stops[i] == vaddr) {
      return true;
    }
  }
  return false;
}

uintptr_t of_page_bytes(void) OF_NOINSTR;
uintptr_t of_page_bytes(void) {
  static uintptr_t bytes;
  if (bytes == 0) {
    long page = sysconf(_SC_PAGESIZE);
    bytes = page > 0 ? (uintptr_t)page : 4096u;
  }
  return bytes;
}

/* Anonymous memory for a module's tables: no malloc here (libc may not be initialized). */
static void *of_table(size_t size) OF_NOINSTR;
static void *of_table(size_t size) {
  void *memory = mmap(NULL, size == 0 ? 1 : size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return memory == MAP_FAILED ? NULL : memory;
}

/* Makes the module's executable segments writable and plants a trap on every entry
 * that lies inside one; `path` is the module's file. */
static void of_arm(const struct dl_phdr_info *info, const char *path, const uint64_t *entries, uint64_t count,
                   const uint64_t *stops, uint64_t stop_count, bool data) OF_NOINSTR;
static void of_arm(const struct dl_phdr_info *info, const char *path, const uint64_t *entries, uint64_t count,
                   const uint64_t *stops, uint64_t stop_count, bool data) {
  uint32_t index = __atomic_load_n(&of_armed_count, __ATOMIC_RELAXED);
  if (index >= OF_ARMED_CAPACITY || count == 0) {
    return;
  }
  uintptr_t mask = of_page_bytes() - 1u;
  of_armed *module = &of_armed_modules[index];
  module->written_count = 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
    if (segment->p_type != PT_LOAD || (segment->p_flags & PF_X) == 0) {
      continue;
    }
    uintptr_t start = (info->dlpi_addr + segment->p_vaddr) & ~mask;
    uintptr_t end = (info->dlpi_addr + segment->p_vaddr + segment->p_memsz + mask) & ~mask;
    if (mprotect((void *)start, end - start, of_trap_code_protection()) != 0) {
      of_say("cannot make code writable, not recording ", info->dlpi_name[0] ? info->dlpi_name : "the executable");
      return;
    }
    if (module->written_count < OF_CODE_COPIES) {
      module->written[module->written_count].start = start;
      module->written[module->written_count].end = end;
      module->written_count++;
    }
  }
  module->base = info->dlpi_addr;
  module->entries = entries;
  module->count = count;
  module->stops = stops;
  module->stop_count = stop_count;
  module->data = data;
  module->saved = of_table(count * sizeof(of_code));
  module->taken = of_table(count);
  if (module->saved == NULL || module->taken == NULL) {
    return;
  }
  module->low = info->dlpi_addr + entries[0];
  module->high = info->dlpi_addr + entries[count - 1] + 1u;
  for (uint64_t e = 0; e < count; e++) {
    uint64_t vaddr = entries[e];
    bool inside = false;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum && !inside; i++) {
      const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
      inside = segment->p_type == PT_LOAD && (segment->p_flags & PF_X) != 0 && vaddr >= segment->p_vaddr &&
               vaddr + 4u <= segment->p_vaddr + segment->p_filesz;
    }
    if (inside) {
      of_trap_plant(info->dlpi_addr + vaddr, &module->saved[e]);
    } else {
      module->taken[e] = 1; /* never trapped */
    }
  }
  of_code_faults_map(info, path, module);
  __atomic_store_n(&of_armed_count, index + 1u, __ATOMIC_RELEASE);
}

static bool of_is_armed(uintptr_t base) OF_NOINSTR;
static bool of_is_armed(uintptr_t base) {
  uint32_t count = __atomic_load_n(&of_armed_count, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < count; i++) {
    if (of_armed_modules[i].base == base) {
      return true;
    }
  }
  return false;
}

/* A system or toolchain library, a system program (a shell the program runs), or one of the
 * tool's own libraries (this one, the runtime): not the user's code, never armed unplanned. */
static bool of_is_system_path(const char *path) OF_NOINSTR;
static bool of_is_system_path(const char *path) {
  return of_is_system_library(path) || of_is_system_program(path) || strstr(path, "libOrderfile") != NULL;
}

/* Arms every loaded module the plan names (by device and inode; the main executable by
 * its flag) and, when `unplanned` is set, every other non-system module from its symbols. */
int of_arm_module(struct dl_phdr_info *info, size_t size, void *context) OF_NOINSTR;
int of_arm_module(struct dl_phdr_info *info, size_t size, void *context) {
  (void)size;
  bool unplanned = context != NULL;
  if (of_is_armed(info->dlpi_addr)) {
    return 0;
  }
  bool main_executable = info->dlpi_name == NULL || info->dlpi_name[0] == '\0';
  static char executable[OF_PATH_CAPACITY];
  const char *path = info->dlpi_name;
  if (main_executable) {
    ssize_t length = readlink("/proc/self/exe", executable, sizeof executable - 1);
    executable[length > 0 ? length : 0] = '\0';
    path = executable;
  } else if (path[0] != '/') {
    return 0; /* the vdso */
  }
  struct stat file;
  bool known = stat(path, &file) == 0;
  for (uint32_t i = 0; i < of_plan_count; i++) {
    const of_plan_module *planned = &of_plan[i];
    /* By file, not name: the loader's name and the plan's (resolved) one may differ. A
     * program the planned one executes is not in the plan: it is armed from its symbols. */
    bool match = known && planned->identified && planned->device == file.st_dev && planned->inode == file.st_ino;
    if (match) {
      of_arm(info, path, planned->entries, planned->entry_count, planned->stops, planned->stop_count,
             (planned->flags & OF_PLAN_DATA) != 0);
      return 0;
    }
  }
  if (unplanned && known && !of_is_system_path(path)) {
    uint64_t count = 0;
    const uint64_t *entries = of_read_function_entries(path, &count);
    if (entries != NULL) {
      of_arm(info, path, entries, count, NULL, 0, false);
    }
  }
  return 0;
}

of_armed *of_armed_at(uintptr_t address) OF_NOINSTR;
of_armed *of_armed_at(uintptr_t address) {
  uint32_t count = __atomic_load_n(&of_armed_count, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < count; i++) {
    of_armed *module = &of_armed_modules[i];
    if (address >= module->low && address < module->high) {
      return module;
    }
  }
  return NULL;
}

/* The trap handler's lookup: the armed module and entry index of `address`. */
bool of_find_entry(uintptr_t address, of_armed **module_out, uint64_t *index_out) OF_NOINSTR;
bool of_find_entry(uintptr_t address, of_armed **module_out, uint64_t *index_out) {
  of_armed *module = of_armed_at(address);
  if (module == NULL) {
    return false;
  }
  uint64_t vaddr = address - module->base;
  uint64_t low = 0, high = module->count;
  while (low < high) {
    uint64_t middle = low + (high - low) / 2u;
    if (module->entries[middle] < vaddr) {
      low = middle + 1u;
    } else {
      high = middle;
    }
  }
  if (low < module->count && module->entries[low] == vaddr) {
    *module_out = module;
    *index_out = low;
    return true;
  }
  return false;
}

/*
 * Why: every page arming wrote a trap into is the process's own copy, and the kernel frees
 * them all when the process ends, after its last code ran: 20,000 pages of clang's code took
 * 7 ms more between the exit of a recorded clang -cc1 and the return of its parent's wait than
 * without the recorder (perf, sched_process_exit to the parent's wait4). Dropping them here,
 * inside a stretch of the recorder's (children.c), puts that work on the recorder's clock,
 * which a parent waiting takes out. A private file mapping dropped reads its file again: the
 * original code, with no trap in it, so code that runs later (exit handlers, other threads)
 * runs as it would without the recorder and is not recorded, as nothing is after the trace
 * ends. A thread in a trap handler meanwhile writes the code it saved over the same bytes.
 */
void of_armed_release(void) OF_NOINSTR;
void of_armed_release(void) {
  uint32_t count = __atomic_load_n(&of_armed_count, __ATOMIC_ACQUIRE);
  for (uint32_t m = 0; m < count; m++) {
    const of_armed *module = &of_armed_modules[m];
    for (uint32_t w = 0; w < module->written_count; w++) {
      madvise((void *)module->written[w].start, module->written[w].end - module->written[w].start, MADV_DONTNEED);
    }
  }
}
