/*
 * fixture_support.h - helpers shared by the runtime test programs.
 *
 * The programs print the addresses the runtime should record, as
 * module-relative ELF virtual addresses, one "<label> <hex>" per line, so a
 * test can compare a trace with what really ran.
 */
#ifndef FIXTURE_SUPPORT_H
#define FIXTURE_SUPPORT_H

#define _GNU_SOURCE
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define FIXTURE_NOINSTR __attribute__((no_instrument_function))

/* The load base (dlpi_addr) of the module that contains `address`. */
static int fixture_find_base(struct dl_phdr_info *info, size_t size, void *context) FIXTURE_NOINSTR;
static int fixture_find_base(struct dl_phdr_info *info, size_t size, void *context) {
  (void)size;
  uintptr_t *query = context; /* [0] = address in, [1] = base out */
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + segment->p_vaddr;
    if (segment->p_type == PT_LOAD && query[0] >= start && query[0] < start + segment->p_memsz) {
      query[1] = info->dlpi_addr;
      return 1;
    }
  }
  return 0;
}

static uintptr_t fixture_relative(const void *address) FIXTURE_NOINSTR;
static uintptr_t fixture_relative(const void *address) {
  uintptr_t query[2] = {(uintptr_t)address, 0};
  dl_iterate_phdr(fixture_find_base, query);
  return query[0] - query[1];
}

/* Prints "<label> <module-relative address>" for a function. */
static void fixture_print(const char *label, const void *function) FIXTURE_NOINSTR;
static void fixture_print(const char *label, const void *function) {
  printf("%s %#lx\n", label, (unsigned long)fixture_relative(function));
}

#endif /* FIXTURE_SUPPORT_H */
