/*
 * address_space.c - a traced process's memory: its modules, read from
 * /proc/PID/maps and from the ELF headers mapped in memory, and the
 * breakpoints written into their code through /proc/PID/mem.
 *
 * Writes go through /proc/PID/mem, which the kernel lets a tracer use on
 * read-only text (a private copy of each touched page is made, as a debugger
 * does). Pages are read and written whole runs at a time, and only pages
 * that hold an entry, so arming 100,000 functions costs a few hundred system
 * calls, not 100,000.
 */
#define _GNU_SOURCE /* pipe2, makedev, PTRACE_* of glibc */
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

#define OFTR_PAGE 4096u
#define OFTR_PATCH_CHUNK (1u << 20) /* bytes read and written at most at once */
#define OFTR_NOTE_LIMIT 4096u

static uint64_t page_down(uint64_t address) { return address & ~(uint64_t)(OFTR_PAGE - 1); }

/* ---- memory ---------------------------------------------------------- */

static int open_memory(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
  return open(path, O_RDWR | O_CLOEXEC);
}

int oftr_read_memory(oftr_space *space, uint64_t address, void *buffer, size_t length) {
  size_t done = 0;
  while (done < length) {
    ssize_t got = pread(space->memory, (char *)buffer + done, length - done, (off_t)(address + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return -1;
    done += (size_t)got;
  }
  return 0;
}

static int write_memory(oftr_space *space, uint64_t address, const void *buffer, size_t length) {
  size_t done = 0;
  while (done < length) {
    ssize_t put = pwrite(space->memory, (const char *)buffer + done, length - done, (off_t)(address + done));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return -1;
    done += (size_t)put;
  }
  return 0;
}

int oftr_write_byte(oftr_space *space, uint64_t address, uint8_t byte) {
  return write_memory(space, address, &byte, 1);
}

/*
 * Stores bytes[i] at addresses[i] (sorted, distinct) and, when `previous` is
 * not NULL, returns the bytes they replaced. Works in runs of consecutive
 * pages that each hold an address: such pages are mapped, so no read of a run
 * falls into a hole between mappings.
 */
static int patch(oftr_space *space, const uint64_t *addresses, const uint8_t *bytes, uint8_t *previous,
                 size_t count) {
  static uint8_t buffer[OFTR_PATCH_CHUNK];
  size_t i = 0;
  while (i < count) {
    uint64_t start = page_down(addresses[i]);
    uint64_t end = start + OFTR_PAGE;
    size_t j = i;
    while (j < count) {
      uint64_t page = page_down(addresses[j]);
      if (page >= end) {
        if (page != end || end + OFTR_PAGE - start > OFTR_PATCH_CHUNK) break;
        end += OFTR_PAGE;
      }
      j++;
    }
    if (oftr_read_memory(space, start, buffer, end - start) != 0) return -1;
    for (size_t k = i; k < j; k++) {
      if (previous) previous[k] = buffer[addresses[k] - start];
      buffer[addresses[k] - start] = bytes[k];
    }
    if (write_memory(space, start, buffer, end - start) != 0) return -1;
    i = j;
  }
  return 0;
}

/* ---- the breakpoint table ------------------------------------------- */

static uint64_t slot_hash(uint64_t address) { return (address * 0x9E3779B97F4A7C15ull) >> 17; }

static int table_grow(oftr_space *space, uint64_t wanted) {
  uint64_t capacity = space->capacity ? space->capacity : 1024;
  while (capacity < wanted * 2) capacity *= 2;
  if (capacity == space->capacity) return 0;
  oftr_slot *slots = calloc(capacity, sizeof *slots);
  if (!slots) return -1;
  for (uint64_t i = 0; i < space->capacity; i++) {
    oftr_slot *old = &space->slots[i];
    if (old->state == OFTR_SLOT_EMPTY) continue;
    uint64_t at = slot_hash(old->address) & (capacity - 1);
    while (slots[at].state != OFTR_SLOT_EMPTY) at = (at + 1) & (capacity - 1);
    slots[at] = *old;
  }
  free(space->slots);
  space->slots = slots;
  space->capacity = capacity;
  return 0;
}

oftr_slot *oftr_space_find(oftr_space *space, uint64_t address) {
  if (space->capacity == 0) return NULL;
  uint64_t at = slot_hash(address) & (space->capacity - 1);
  while (space->slots[at].state != OFTR_SLOT_EMPTY) {
    if (space->slots[at].address == address) return &space->slots[at];
    at = (at + 1) & (space->capacity - 1);
  }
  return NULL;
}

/* The slot for `address`, made empty-but-claimed (state still EMPTY) when new. */
static oftr_slot *slot_claim(oftr_space *space, uint64_t address, bool *fresh) {
  uint64_t at = slot_hash(address) & (space->capacity - 1);
  while (space->slots[at].state != OFTR_SLOT_EMPTY) {
    if (space->slots[at].address == address) {
      *fresh = false;
      return &space->slots[at];
    }
    at = (at + 1) & (space->capacity - 1);
  }
  *fresh = true;
  space->slots[at].address = address;
  return &space->slots[at];
}

/* ---- spaces ---------------------------------------------------------- */

oftr_space *oftr_space_new(pid_t pid) {
  oftr_space *space = calloc(1, sizeof *space);
  if (!space) return NULL;
  space->references = 1;
  space->memory = open_memory(pid);
  if (space->memory < 0) {
    free(space);
    return NULL;
  }
  return space;
}

oftr_space *oftr_space_copy(const oftr_space *parent, pid_t pid) {
  oftr_space *space = oftr_space_new(pid);
  if (!space) return NULL;
  space->slots = calloc(parent->capacity ? parent->capacity : 1, sizeof *space->slots);
  space->known = malloc((parent->known_capacity ? parent->known_capacity : 1) * sizeof *space->known);
  if (!space->slots || !space->known) {
    oftr_space_release(space);
    return NULL;
  }
  memcpy(space->slots, parent->slots, parent->capacity * sizeof *space->slots);
  memcpy(space->known, parent->known, parent->known_count * sizeof *space->known);
  space->capacity = parent->capacity;
  space->used = parent->used;
  space->armed = parent->armed;
  space->known_count = parent->known_count;
  space->known_capacity = parent->known_capacity ? parent->known_capacity : 1;
  space->module_count = parent->module_count;
  return space;
}

void oftr_space_release(oftr_space *space) {
  if (!space || --space->references > 0) return;
  if (space->memory >= 0) close(space->memory);
  free(space->slots);
  free(space->known);
  free(space);
}

int oftr_space_reopen(oftr_space *space, pid_t pid) {
  int memory = open_memory(pid);
  if (memory < 0) return -1;
  if (space->memory >= 0) close(space->memory);
  space->memory = memory;
  return 0;
}

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int oftr_restore_all(oftr_tracer *tracer, oftr_space *space, bool every_slot) {
  (void)tracer;
  uint64_t *addresses = malloc((space->used + 1) * sizeof *addresses);
  uint8_t *bytes = malloc(space->used + 1);
  if (!addresses || !bytes) {
    free(addresses);
    free(bytes);
    return -1;
  }
  size_t count = 0;
  for (uint64_t i = 0; i < space->capacity; i++) {
    oftr_slot *slot = &space->slots[i];
    bool live = slot->state == OFTR_SLOT_ARMED || slot->state == OFTR_SLOT_HOOK;
    if (live || (every_slot && slot->state != OFTR_SLOT_EMPTY)) addresses[count++] = slot->address;
  }
  qsort(addresses, count, sizeof *addresses, compare_u64);
  for (size_t i = 0; i < count; i++) {
    oftr_slot *slot = oftr_space_find(space, addresses[i]);
    bytes[i] = slot->original;
    /* Removed, never reported: a thread that trapped on it before now is rewound as after a race. */
    if (slot->state == OFTR_SLOT_ARMED || slot->state == OFTR_SLOT_HOOK) slot->state = OFTR_SLOT_HIT;
  }
  int status = patch(space, addresses, bytes, NULL, count);
  space->armed = 0;
  free(addresses);
  free(bytes);
  return status;
}

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

static bool known(const oftr_space *space, const mapping *m) {
  for (uint32_t i = 0; i < space->known_count; i++) {
    const oftr_known_module *k = &space->known[i];
    if (k->device == m->device && k->inode == m->inode && k->base == m->start) return true;
  }
  return false;
}

static int remember(oftr_space *space, const mapping *m) {
  if (space->known_count == space->known_capacity) {
    uint32_t capacity = space->known_capacity ? space->known_capacity * 2 : 32;
    oftr_known_module *items = realloc(space->known, capacity * sizeof *items);
    if (!items) return -1;
    space->known = items;
    space->known_capacity = capacity;
  }
  space->known[space->known_count++] = (oftr_known_module){m->device, m->inode, m->start};
  return 0;
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
    if (!have_first && page_down(p->p_offset) == 0) {
      first_vaddr = page_down(p->p_vaddr);
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
  qsort(addresses, count, sizeof *addresses, compare_u64);
  size_t unique = 0;
  for (size_t i = 0; i < count; i++) {
    if (unique > 0 && addresses[unique - 1] == addresses[i]) continue;
    if (oftr_space_find(space, addresses[i])) continue; /* armed already, or hit */
    addresses[unique++] = addresses[i];
  }
  uint8_t *bytes = malloc(unique + 1), *originals = malloc(unique + 1);
  if (!bytes || !originals || table_grow(space, space->used + unique + 1) != 0) {
    free(addresses);
    free(bytes);
    free(originals);
    return oftr_fail(tracer, ENOMEM, "cannot hold %zu breakpoints", unique);
  }
  memset(bytes, OFTR_BREAKPOINT, unique);
  if (patch(space, addresses, bytes, originals, unique) != 0) {
    int error = errno;
    free(addresses);
    free(bytes);
    free(originals);
    return oftr_fail(tracer, error, "cannot write breakpoints into %s of process %d: %s", module->path,
                     (int)process->pid, strerror(error));
  }
  size_t armed = 0;
  for (size_t i = 0; i < unique; i++) {
    bool fresh;
    oftr_slot *slot = slot_claim(space, addresses[i], &fresh);
    slot->module = index;
    slot->original = originals[i];
    slot->stop = 0;
    space->used++;
    if (originals[i] == OFTR_BREAKPOINT) {
      /* The function begins with a trap of its own: keep it, never arm it. */
      slot->state = OFTR_SLOT_HIT;
      continue;
    }
    slot->state = OFTR_SLOT_ARMED;
    armed++;
  }
  for (size_t i = 0; i < plan->stop_count; i++) {
    oftr_slot *slot = oftr_space_find(space, layout->load_base + plan->stops[i]);
    if (slot) slot->stop = 1;
  }
  space->armed += armed;
  tracer->result->armed += armed;
  free(addresses);
  free(bytes);
  free(originals);
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
  if (table_grow(space, space->used + 1) != 0) return;
  bool fresh;
  oftr_slot *slot = slot_claim(space, address, &fresh);
  if (!fresh) return;
  if (oftr_write_byte(space, address, OFTR_BREAKPOINT) != 0) {
    slot->state = OFTR_SLOT_HIT;
    slot->original = code[0];
    space->used++;
    return;
  }
  slot->original = code[0];
  slot->state = OFTR_SLOT_HOOK;
  slot->module = UINT32_MAX;
  space->used++;
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
    if (m->offset != 0 || known(process->space, m)) continue;
    if (remember(process->space, m) != 0) {
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
  }
  mappings_free(&list);
  tracer->result->arm_ns += oftr_now() - started;
  return status;
}
