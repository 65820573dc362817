/*
 * data_pages.c - the first touches of a module's read-only data, after relocation:
 * `record --data`.
 *
 * Mechanism: once the loader has relocated everything (the recorder's constructor), the
 * module's read-only PT_LOAD segments (.rodata, .eh_frame, the symbol and relocation
 * tables) and its PT_GNU_RELRO pages (.data.rel.ro, .got) are made PROT_NONE. An access to
 * such a page raises SIGSEGV; the handler (signals.c) asks of_data_handle_fault, which
 * records the address touched when its 16-byte granule is new, makes the page readable and
 * returns, so that the access runs again and succeeds. Pages are whole virtual pages of one
 * segment: the loader maps every PT_LOAD on pages of its own, so a page shared with code or
 * writable data cannot be among them.
 *
 * Objects, not only pages: a page holds many objects, and the first touch says which one
 * was read first, not which others the launch reads later. Where the machine can
 * single-step a thread from its own handler (x86-64), the handler makes the page readable
 * for one instruction only: the step's SIGTRAP (of_data_handle_step) protects it again, so
 * the next access to it faults and is seen too. A page stays watched while its faults keep
 * finding new granules: after OF_DATA_STALE_BUDGET faults in a row that found none it is left
 * readable, so a loop over one table costs that many faults, not one per iteration, while a
 * scan that reads a page byte by byte (strlen over a page of doc strings: 16 faults a
 * granule) is followed to its end. Elsewhere (arm64) a page is readable after its first
 * touch, and only that touch is known. Once the launch window has closed, a page is left
 * readable at its next fault.
 *
 * Ordering: a page leaves the watch by a compare-and-swap of its `state` (watched →
 * claimed), then mprotect, then readable; a thread that faults on a claimed page runs the
 * access again until the winner's mprotect is done. A fault on a readable page is no first
 * touch (a write to read-only data): it goes to the program's handler, or kills as it
 * would have. A thread that reads a page another thread has made readable for one step is
 * not seen; its next access after the step is.
 *
 * Limitations: the data touched before the recorder's constructor (the loader's own
 * reads, the constructors of libraries the program links) is not seen. The kernel does not
 * fault on a protected page a system call reads: it fails the call with EFAULT instead
 * (a path or a buffer in .rodata handed straight to open or write). A program that maps
 * or protects these pages itself is not followed.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../OrderfileRuntime/runtime_internal.h"
#include "inprocess.h"
#include "trap.h"

#define OF_DATA_REGION_CAPACITY 512u
#define OF_DATA_STALE_BUDGET 16384u
#define OF_PAGE_WATCHED 0u
#define OF_PAGE_CLAIMED 1u
#define OF_PAGE_READABLE 2u
/* Pages one instruction can touch: a string move between two pages that both cross one. */
#define OF_STEP_CAPACITY 4u

/* A run of protected pages of one module. Published by a release store of the count. */
typedef struct of_data_region {
  uintptr_t start, end; /* runtime addresses, page-aligned */
  uintptr_t module_pc;  /* code of the module, which names it to the trace */
  uint8_t *state;       /* one OF_PAGE_* per page */
  uint16_t *faults;     /* per page, faults in a row that found no new granule */
  uint64_t *granules;   /* per page, a bit per granule already recorded */
} of_data_region;

static of_data_region of_data_regions[OF_DATA_REGION_CAPACITY];
static uint32_t of_data_region_count;
static uintptr_t of_data_page_size;
static size_t of_granule_words; /* 64-bit words of granule bits per page */

/* Pages this thread made readable for the one instruction it is stepping over. */
static __thread uintptr_t of_stepping[OF_STEP_CAPACITY] __attribute__((tls_model("initial-exec")));
static __thread uint32_t of_stepping_count __attribute__((tls_model("initial-exec")));

static void *of_data_table(size_t size) OF_NOINSTR;
static void *of_data_table(size_t size) {
  void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return memory == MAP_FAILED ? NULL : memory;
}

static void of_data_protect(uintptr_t start, uintptr_t end, uintptr_t module_pc) OF_NOINSTR;
static void of_data_protect(uintptr_t start, uintptr_t end, uintptr_t module_pc) {
  uint32_t index = __atomic_load_n(&of_data_region_count, __ATOMIC_RELAXED);
  if (start >= end || index >= OF_DATA_REGION_CAPACITY) {
    return;
  }
  size_t pages = (end - start) / of_data_page_size;
  uint8_t *state = of_data_table(pages);
  uint16_t *faults = of_data_table(pages * sizeof(uint16_t));
  uint64_t *granules = of_data_table(pages * of_granule_words * sizeof(uint64_t));
  if (state == NULL || faults == NULL || granules == NULL) {
    return;
  }
  of_data_regions[index] = (of_data_region){start, end, module_pc, state, faults, granules};
  /* Published before the pages are protected: a fault on them must find the region. */
  __atomic_store_n(&of_data_region_count, index + 1u, __ATOMIC_RELEASE);
  if (mprotect((void *)start, end - start, PROT_NONE) != 0) {
    for (size_t page = 0; page < pages; page++) {
      state[page] = OF_PAGE_READABLE; /* never protected: nothing to record */
    }
  }
}

void of_data_watch(const struct dl_phdr_info *info, uintptr_t module_pc) {
  if (of_data_page_size == 0) {
    of_data_page_size = of_page_bytes();
    of_granule_words = (of_data_page_size / OFT_DATA_GRANULE + 63u) / 64u;
  }
  uintptr_t mask = of_data_page_size - 1u;
  /* The module's trace entry now, while nothing is protected: writing it reads the module's
   * program headers, which lie on a page about to be. */
  uint16_t module;
  uintptr_t load_base;
  if (!of_module_for(module_pc, &module, &load_base)) {
    return;
  }
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + segment->p_vaddr;
    uintptr_t end = start + segment->p_memsz;
    if (segment->p_type == PT_LOAD && (segment->p_flags & (PF_X | PF_W)) == 0) {
      of_data_protect(start & ~mask, (end + mask) & ~mask, module_pc);
    } else if (segment->p_type == PT_GNU_RELRO) {
      /* The loader made these pages read-only after relocating them, rounding the end down:
       * the page after holds writable data. */
      of_data_protect(start & ~mask, end & ~mask, module_pc);
    }
  }
}

/* Records `address` if its granule of `page` (index in `region`) is new; says whether it was. */
static bool of_data_note(of_data_region *region, size_t page, uintptr_t address, uint64_t trapped) OF_NOINSTR;
static bool of_data_note(of_data_region *region, size_t page, uintptr_t address, uint64_t trapped) {
  size_t granule = (address & (of_data_page_size - 1u)) / OFT_DATA_GRANULE;
  uint64_t bit = 1ull << (granule % 64u);
  uint64_t *word = &region->granules[page * of_granule_words + granule / 64u];
  if (__atomic_fetch_or(word, bit, __ATOMIC_RELAXED) & bit) {
    return false;
  }
  of_thread *self = &of_self;
  if (!self->busy) {
    self->busy = 1;
    of_record_data_page(region->module_pc, address, of_data_page_size, of_stamp_ns(trapped));
    self->busy = 0;
  }
  return true;
}

bool of_data_handle_fault(const siginfo_t *info, ucontext_t *context, uint64_t trapped) {
  uintptr_t address = (uintptr_t)info->si_addr;
  uint32_t count = __atomic_load_n(&of_data_region_count, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < count; i++) {
    of_data_region *region = &of_data_regions[i];
    if (address < region->start || address >= region->end) {
      continue;
    }
    uintptr_t page = address & ~(of_data_page_size - 1u);
    size_t index = (page - region->start) / of_data_page_size;
    uint8_t state = __atomic_load_n(&region->state[index], __ATOMIC_ACQUIRE);
    if (state != OF_PAGE_WATCHED) {
      return state == OF_PAGE_CLAIMED;
    }
    /* Racy between threads, as it may be: the budget bounds the cost, it decides nothing. */
    uint16_t faults = 0;
    if (of_data_note(region, index, address, trapped)) {
      __atomic_store_n(&region->faults[index], 0u, __ATOMIC_RELAXED);
    } else {
      faults = __atomic_add_fetch(&region->faults[index], 1u, __ATOMIC_RELAXED);
    }
    /* After the launch window nothing is recorded: the page is left readable at once. */
    bool open = __atomic_load_n(&of_rt.window_state, __ATOMIC_ACQUIRE) == OF_WINDOW_STATE_OPEN;
    if (open && faults < OF_DATA_STALE_BUDGET && of_stepping_count < OF_STEP_CAPACITY &&
        of_trap_single_step(context, true)) {
      /* Readable for this thread's one instruction; the step's trap protects it again. */
      of_stepping[of_stepping_count++] = page;
      mprotect((void *)page, of_data_page_size, PROT_READ);
      return true;
    }
    uint8_t expected = OF_PAGE_WATCHED;
    if (__atomic_compare_exchange_n(&region->state[index], &expected, OF_PAGE_CLAIMED, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
      mprotect((void *)page, of_data_page_size, PROT_READ);
      __atomic_store_n(&region->state[index], OF_PAGE_READABLE, __ATOMIC_RELEASE);
      return true;
    }
    return expected == OF_PAGE_CLAIMED;
  }
  return false;
}

bool of_data_handle_step(const siginfo_t *info, ucontext_t *context) {
  if (of_stepping_count == 0 || !of_trap_stepped(info)) {
    return false;
  }
  of_trap_single_step(context, false);
  uint32_t count = __atomic_load_n(&of_data_region_count, __ATOMIC_ACQUIRE);
  for (uint32_t s = 0; s < of_stepping_count; s++) {
    uintptr_t page = of_stepping[s];
    for (uint32_t i = 0; i < count; i++) {
      of_data_region *region = &of_data_regions[i];
      if (page < region->start || page >= region->end) {
        continue;
      }
      /* A page another thread has left readable meanwhile stays so. */
      size_t index = (page - region->start) / of_data_page_size;
      if (__atomic_load_n(&region->state[index], __ATOMIC_ACQUIRE) == OF_PAGE_WATCHED) {
        mprotect((void *)page, of_data_page_size, PROT_NONE);
      }
    }
  }
  of_stepping_count = 0;
  return true;
}
