/*
 * symbols.c - function entries of a library the plan did not name (one the program
 * loads with dlopen): the defined STT_FUNC symbols of its .symtab, else its .dynsym.
 * Runs inside the SIGTRAP handler on the loader's hook: system calls and plain memory
 * only, no malloc, no stdio.
 *
 * Limitations: functions without a symbol (the planner also finds those through
 * .eh_frame and cold parts) are not armed in such a library.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inprocess.h"

#define OF_NOINSTR __attribute__((no_instrument_function))

static void of_sort(uint64_t *values, uint64_t count) OF_NOINSTR;
static void of_sort(uint64_t *values, uint64_t count) {
  /* Heap sort: in place, no recursion, no allocation. */
  for (uint64_t start = count / 2; start-- > 0;) {
    for (uint64_t root = start;;) {
      uint64_t child = 2 * root + 1;
      if (child >= count) break;
      if (child + 1 < count && values[child] < values[child + 1]) child++;
      if (values[root] >= values[child]) break;
      uint64_t swap = values[root]; values[root] = values[child]; values[child] = swap;
      root = child;
    }
  }
  for (uint64_t end = count; end-- > 1;) {
    uint64_t swap = values[0]; values[0] = values[end]; values[end] = swap;
    for (uint64_t root = 0;;) {
      uint64_t child = 2 * root + 1;
      if (child >= end) break;
      if (child + 1 < end && values[child] < values[child + 1]) child++;
      if (values[root] >= values[child]) break;
      swap = values[root]; values[root] = values[child]; values[child] = swap;
      root = child;
    }
  }
}

const uint64_t *of_read_function_entries(const char *path, uint64_t *count_out) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat status;
  if (fstat(fd, &status) != 0 || (size_t)status.st_size < sizeof(ElfW(Ehdr))) {
    close(fd);
    return NULL;
  }
  size_t size = (size_t)status.st_size;
  const uint8_t *file = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (file == MAP_FAILED) return NULL;
  const ElfW(Ehdr) *header = (const ElfW(Ehdr) *)file;
  uint64_t *entries = NULL;
  uint64_t count = 0;
  if (memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_shentsize != sizeof(ElfW(Shdr)) ||
      header->e_shoff + (uint64_t)header->e_shnum * sizeof(ElfW(Shdr)) > size) {
    munmap((void *)file, size);
    return NULL;
  }
  const ElfW(Shdr) *sections = (const ElfW(Shdr) *)(file + header->e_shoff);
  const ElfW(Shdr) *table = NULL;
  for (int pass = 0; pass < 2 && table == NULL; pass++) {
    for (uint16_t i = 0; i < header->e_shnum; i++) {
      if (sections[i].sh_type == (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) &&
          sections[i].sh_offset + sections[i].sh_size <= size) {
        table = &sections[i];
        break;
      }
    }
  }
  if (table != NULL && table->sh_entsize == sizeof(ElfW(Sym))) {
    uint64_t symbols = table->sh_size / sizeof(ElfW(Sym));
    const ElfW(Sym) *symbol = (const ElfW(Sym) *)(file + table->sh_offset);
    void *memory = mmap(NULL, (symbols ? symbols : 1) * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory != MAP_FAILED) {
      entries = memory;
      for (uint64_t i = 0; i < symbols; i++) {
        if (ELF64_ST_TYPE(symbol[i].st_info) == STT_FUNC && symbol[i].st_shndx != SHN_UNDEF &&
            symbol[i].st_value != 0) {
          entries[count++] = symbol[i].st_value;
        }
      }
      of_sort(entries, count);
      uint64_t distinct = 0;
      for (uint64_t i = 0; i < count; i++) {
        if (distinct == 0 || entries[distinct - 1] != entries[i]) entries[distinct++] = entries[i];
      }
      count = distinct;
    }
  }
  munmap((void *)file, size);
  if (count == 0) return NULL;
  *count_out = count;
  return entries;
}
