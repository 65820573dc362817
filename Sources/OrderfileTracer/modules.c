/*
 * modules.c - what a traced process maps, and arming it: the file mappings
 * of /proc/PID/maps, each module's layout and build-id read from the ELF
 * headers it maps, the host's plan for it, and the breakpoints that plan asks
 * for (written through address_space.c).
 */
#define _GNU_SOURCE /* makedev */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tracer_internal.h"

#define OFTR_NOTE_LIMIT 4096u

/* ---- modules --------------------------------------------------------- */

/* One line of /proc/PID/maps that maps a file. */
typedef struct mapping {
  uint64_t start, end, offset, device, inode;
  bool executable;
  char *path;
} mapping;

typedef struct mapping_list {
  mapping *items;
  size_t count, capacity;
  char *text;
} mapping_list;

static void mappings_free(mapping_list *list) {
  free(list->items);
  free(list->text);
}

static char *read_whole_file(const char *path, size_t *length) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  size_t capacity = 65536, used = 0;
  char *text = malloc(capacity + 1);
  while (text) {
    if (used == capacity) {
      char *larger = realloc(text, capacity * 2 + 1);
      if (!larger) {
        free(text);
        text = NULL;
        break;
      }
      text = larger;
      capacity *= 2;
    }
    ssize_t got = read(fd, text + used, capacity - used);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      free(text);
      text = NULL;
      break;
    }
    if (got == 0) break;
    used += (size_t)got;
  }
  close(fd);
  if (text) {
    text[used] = 0;
    *length = used;
  }
  return text;
}

static int read_mappings(pid_t pid, mapping_list *list) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  size_t length = 0;
  memset(list, 0, sizeof *list);
  list->text = read_whole_file(path, &length);
  if (!list->text) return -1;
  for (char *line = list->text; line && *line;) {
    char *next = strchr(line, '\n');
    if (next) *next++ = 0;
    unsigned long long start, end, offset, inode;
    unsigned major, minor;
    char perms[8];
    int consumed = 0;
    if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &offset, &major, &minor, &inode,
               &consumed) >= 7 &&
        inode != 0 && line[consumed] == '/') {
      if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 64;
        mapping *items = realloc(list->items, capacity * sizeof *items);
        if (!items) return -1;
        list->items = items;
        list->capacity = capacity;
      }
      list->items[list->count++] = (mapping){start, end, offset, makedev(major, minor), inode, perms[2] == 'x',
                                             line + consumed};
    }
    line = next;
  }
  return 0;
}

static uint64_t auxv_value(pid_t pid, uint64_t type) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/auxv", (int)pid);
  size_t length = 0;
  char *data = read_whole_file(path, &length);
  uint64_t value = 0;
  for (size_t at = 0; data && at + 16 <= length; at += 16) {
    uint64_t entry[2];
    memcpy(entry, data + at, sizeof entry);
    if (entry[0] == type) {
      value = entry[1];
      break;
    }
  }
  free(data);
  return value;
}

/* The module's layout, from the ELF header and program headers it maps. */
typedef struct elf_layout {
  uint64_t load_base, text_start, text_end, span_end;
  uint8_t build_id[64];
  uint32_t build_id_length;
} elf_layout;

static void read_build_id(oftr_space *space, uint64_t address, uint64_t size, elf_layout *layout) {
  uint8_t notes[OFTR_NOTE_LIMIT];
  if (size > sizeof notes || oftr_read_memory(space, address, notes, size) != 0) return;
  uint64_t at = 0;
  while (at + 12 <= size) {
    uint32_t name_size, desc_size, type;
    memcpy(&name_size, notes + at, 4);
    memcpy(&desc_size, notes + at + 4, 4);
    memcpy(&type, notes + at + 8, 4);
    uint64_t name_at = at + 12, desc_at = name_at + ((name_size + 3u) & ~3u);
    uint64_t next = desc_at + ((desc_size + 3ull) & ~3ull);
    if (next > size) return;
    if (type == NT_GNU_BUILD_ID && name_size == 4 && memcmp(notes + name_at, "GNU", 4) == 0 &&
        desc_size <= sizeof layout->build_id) {
      memcpy(layout->build_id, notes + desc_at, desc_size);
      layout->build_id_length = desc_size;
      return;
    }
    at = next;
  }
}

static bool read_layout(oftr_space *space, uint64_t start, elf_layout *layout) {
  Elf64_Ehdr header;
  if (oftr_read_memory(space, start, &header, sizeof header) != 0) return false;
  if (memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      (header.e_type != ET_EXEC && header.e_type != ET_DYN) || header.e_phentsize != sizeof(Elf64_Phdr) ||
      header.e_phnum == 0 || header.e_phnum > 256 || header.e_phoff + header.e_phnum * sizeof(Elf64_Phdr) > OFTR_PAGE)
    return false;
  Elf64_Phdr phdrs[256];
  if (oftr_read_memory(space, start + header.e_phoff, phdrs, header.e_phnum * sizeof(Elf64_Phdr)) != 0) return false;
  bool have_first = false, have_text = false;
  uint64_t first_vaddr = 0;
  memset(layout, 0, sizeof *layout);
  for (unsigned i = 0; i < header.e_phnum; i++) {
    const Elf64_Phdr *p = &phdrs[i];
    if (p->p_type != PT_LOAD) continue;
    if (!have_first && oftr_page_down(p->p_offset) == 0) {
      first_vaddr = oftr_page_down(p->p_vaddr);
      have_first = true;
    }
    if (p->p_vaddr + p->p_memsz > layout->span_end) layout->span_end = p->p_vaddr + p->p_memsz;
    if (p->p_flags & PF_X) {
      if (!have_text || p->p_vaddr < layout->text_start) layout->text_start = p->p_vaddr;
      if (p->p_vaddr + p->p_memsz > layout->text_end) layout->text_end = p->p_vaddr + p->p_memsz;
      have_text = true;
    }
  }
  if (!have_first || !have_text) return false;
  layout->load_base = start - first_vaddr;
  for (unsigned i = 0; i < header.e_phnum; i++) {
    if (phdrs[i].p_type == PT_NOTE && layout->build_id_length == 0)
      read_build_id(space, layout->load_base + phdrs[i].p_vaddr, phdrs[i].p_filesz, layout);
  }
  return true;
}

/* Whether `address` lies in one of the executable mappings of the module loaded at `base`. */
static bool in_text(const mapping_list *list, const mapping *module, uint64_t span_end, uint64_t address) {
  for (size_t i = 0; i < list->count; i++) {
    const mapping *m = &list->items[i];
    if (!m->executable || m->device != module->device || m->inode != module->inode) continue;
    if (m->start < module->start || m->start >= span_end) continue;
    if (address >= m->start && address < m->end) return true;
  }
  return false;
}

static int arm_module(oftr_tracer *tracer, oftr_process *process, const mapping_list *list, const mapping *module,
                      const elf_layout *layout, uint32_t index, const oftr_plan *plan) {
  oftr_space *space = process->space;
  size_t total = plan->entry_count + plan->stop_count;
  uint64_t *addresses = malloc((total + 1) * sizeof *addresses);
  if (!addresses) return oftr_fail(tracer, ENOMEM, "cannot hold %zu breakpoints", total);
  uint64_t span_end = layout->load_base + layout->span_end;
  size_t count = 0;
  for (size_t i = 0; i < total; i++) {
    uint64_t vaddr = i < plan->entry_count ? plan->entries[i] : plan->stops[i - plan->entry_count];
    uint64_t address = layout->load_base + vaddr;
    if (in_text(list, module, span_end, address)) addresses[count++] = address;
  }
  oftr_sort_addresses(addresses, count);
  size_t armed = 0, wanted = 0;
  int status = oftr_space_arm(space, addresses, count, index, &armed, &wanted);
  int error = errno;
  free(addresses);
  if (status == OFTR_ARM_NO_MEMORY) return oftr_fail(tracer, ENOMEM, "cannot hold %zu breakpoints", wanted);
  /* An image that exec replaced while this one was being planned holds nothing to arm any more. */
  if (status == OFTR_ARM_NOT_WRITTEN && error == ESRCH) return 0;
  if (status == OFTR_ARM_NOT_WRITTEN)
    return oftr_fail(tracer, error, "cannot write breakpoints into %s of process %d: %s", module->path,
                     (int)process->pid, strerror(error));
  for (size_t i = 0; i < plan->stop_count; i++) oftr_space_mark_stop(space, layout->load_base + plan->stops[i]);
  tracer->result->armed += armed;
  return 0;
}

/*
 * The loader's _dl_debug_state hook: a breakpoint that stays. The function
 * must be a bare `ret` (optionally after endbr64), which the tracer then
 * emulates exactly instead of stepping over it.
 */
static void arm_hook(oftr_tracer *tracer, oftr_process *process, uint64_t address) {
  oftr_space *space = process->space;
  uint8_t code[5];
  if (oftr_read_memory(space, address, code, sizeof code) != 0) return;
  static const uint8_t endbr64[4] = {0xF3, 0x0F, 0x1E, 0xFA};
  bool plain_ret = code[0] == 0xC3 || (memcmp(code, endbr64, 4) == 0 && code[4] == 0xC3);
  if (!plain_ret) {
    oftr_warn(tracer, "the dynamic loader's _dl_debug_state is not a plain return; libraries loaded after "
                      "the program starts are not recorded");
    return;
  }
  oftr_space_add_hook(space, address, code[0]);
}

int oftr_scan_modules(oftr_tracer *tracer, oftr_process *process) {
  uint64_t started = oftr_now();
  mapping_list list;
  if (read_mappings(process->pid, &list) != 0) {
    int error = errno;
    mappings_free(&list);
    if (error == EACCES || error == EPERM) {
      /* It made itself non-dumpable (prctl PR_SET_DUMPABLE): its map is closed to a tracer
       * without privileges, but the memory file opened before still works. Keep what is
       * armed, arm nothing new, let it run on. */
      if (!process->map_closed)
        oftr_warn(tracer, "process %d made itself non-dumpable: libraries it loads from now on are not recorded",
                  (int)process->pid);
      process->map_closed = true;
      return 0;
    }
    return oftr_fail(tracer, error, "cannot read the memory map of process %d: %s", (int)process->pid,
                     strerror(error));
  }
  char exe_link[64];
  snprintf(exe_link, sizeof exe_link, "/proc/%d/exe", (int)process->pid);
  struct stat exe;
  bool have_exe = stat(exe_link, &exe) == 0;
  uint64_t interpreter_base = auxv_value(process->pid, AT_BASE);

  int status = 0;
  for (size_t i = 0; i < list.count && status == 0; i++) {
    const mapping *m = &list.items[i];
    if (m->offset != 0 || oftr_space_knows(process->space, m->device, m->inode, m->start)) continue;
    if (oftr_space_remember(process->space, m->device, m->inode, m->start) != 0) {
      status = oftr_fail(tracer, ENOMEM, "out of memory");
      break;
    }
    elf_layout layout;
    if (!read_layout(process->space, m->start, &layout)) continue;
    oftr_module module = {
        .path = m->path,
        .load_base = layout.load_base,
        .text_start = layout.text_start,
        .text_end = layout.text_end,
        .build_id = layout.build_id_length ? layout.build_id : NULL,
        .build_id_length = layout.build_id_length,
        .index = process->space->module_count++,
        .main_executable = have_exe && exe.st_dev == m->device && exe.st_ino == m->inode,
        .interpreter = interpreter_base != 0 && interpreter_base == m->start,
    };
    oftr_plan plan;
    memset(&plan, 0, sizeof plan);
    tracer->host->plan_module(tracer->host->context, process->pid, &module, &plan);
    if (plan.entry_count + plan.stop_count > 0)
      status = arm_module(tracer, process, &list, m, &layout, module.index, &plan);
    if (status == 0 && plan.loader_hook && module.interpreter)
      arm_hook(tracer, process, layout.load_base + plan.loader_hook);
    if (status == 0 && plan.signal_hook && oftr_space_add_watch(process->space, layout.load_base + plan.signal_hook) != 0)
      oftr_warn(tracer, "cannot watch sigaction in %s of process %d: a program that ignores SIGTRAP may die of "
                        "one sent to it", m->path, (int)process->pid);
  }
  mappings_free(&list);
  tracer->result->arm_ns += oftr_now() - started;
  return status;
}
