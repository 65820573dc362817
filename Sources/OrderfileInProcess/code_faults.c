/*
 * code_faults.c - the faults on code that the program takes without the recorder, taken again
 * where it would take them.
 *
 * Why: arming writes a trap into every page that holds an entry, so from then on those pages
 * are the process's own copies, already mapped. Without the recorder, the program faults the
 * first time it runs code in each window of pages the kernel maps at once (fault-around: 64 KiB
 * by default), a few microseconds each. `swift-frontend -version` takes about 650 of them, and
 * with its code mapped in advance (MADV_POPULATE_READ from a preloaded library, no recorder)
 * its first hook → main went from 4.4 to 2.4 ms and main → exit from 8.9 to 6.6 ms (uprobes,
 * medians of 11). A recorded launch skipped them, and its phases came out that much short.
 *
 * How: each armed code segment is mapped a second time, read-only, from its file (the same
 * page cache pages), at an address with the same offset within a 2 MiB page-table span as the
 * code itself, so the kernel's windows and page tables fall there as they would in the code.
 * When a first call is the first in its window, the trap handler reads that byte of the copy
 * before the trap is stamped and before the recorder's stretch begins: the kernel does what
 * the program's own fault would have done there, and the time falls to the program, in the
 * phase it belongs to. The window's size is the kernel's, seen at arming: how many pages one
 * read of the copy mapped (/proc/self/pagemap). A fork child gets the copies unmapped, as the
 * program's own code would be, so its windows start over.
 *
 * Limitations: only the first calls' windows are touched. Code the program runs in a window
 * where no first call lands (the rest of a long function, a jump into a cold part) faults in
 * the recorded launch too if arming wrote no page of it, and is missed if it did. A fork child
 * that runs code its parent already ran makes no first call there, so the faults it would take
 * on that code without the recorder (its code unmapped) are not taken again. The program sees
 * one more read-only mapping of each armed file in /proc/self/maps.
 * ORDERFILE_CODE_FAULTS=0 turns this off, to measure what it adds.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../OrderfileRuntime/runtime_internal.h"
#include "inprocess.h"

/* The span one page-table page maps with 4 KiB pages (x86-64, arm64): a copy keeps the code's
 * offset within it, and the kernel's windows never cross it. */
#define OF_TABLE_SPAN ((uintptr_t)2u << 20)
/* The window when the kernel's cannot be seen: its default fault_around_bytes. */
#define OF_DEFAULT_WINDOW ((uintptr_t)64u << 10)

static bool of_code_faults_off;
static uintptr_t of_page_size;
/* log2 of the window's bytes; 0: not seen yet. */
static uint32_t of_window_shift;

void of_code_faults_setup(void) OF_NOINSTR;
void of_code_faults_setup(void) {
  of_code_faults_off = of_early_off("ORDERFILE_CODE_FAULTS");
  of_page_size = of_page_bytes();
}

static uint32_t of_log2(uintptr_t value) OF_NOINSTR;
static uint32_t of_log2(uintptr_t value) {
  uint32_t shift = 0;
  while (((uintptr_t)2u << shift) <= value) {
    shift++;
  }
  return shift;
}

/* Maps `length` bytes of the file `fd` from `offset`, read-only, at an address congruent to
 * `like` modulo OF_TABLE_SPAN; 0 when it cannot. */
static uintptr_t of_map_alike(int fd, off_t offset, size_t length, uintptr_t like) OF_NOINSTR;
static uintptr_t of_map_alike(int fd, off_t offset, size_t length, uintptr_t like) {
  size_t reserved = length + OF_TABLE_SPAN;
  void *area = mmap(NULL, reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (area == MAP_FAILED) {
    return 0;
  }
  uintptr_t low = (uintptr_t)area;
  uintptr_t at = (low & ~(OF_TABLE_SPAN - 1u)) + (like & (OF_TABLE_SPAN - 1u));
  if (at < low) {
    at += OF_TABLE_SPAN;
  }
  void *copy = mmap((void *)at, length, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, offset);
  if (copy == MAP_FAILED) {
    munmap(area, reserved);
    return 0;
  }
  if (at > low) {
    munmap(area, at - low);
  }
  if (low + reserved > at + length) {
    munmap((void *)(at + length), low + reserved - (at + length));
  }
  return at;
}

/*
 * The kernel's window, from the copy [copy, copy + length): reads a byte in the middle of it,
 * counts the pages mapped around that byte in /proc/self/pagemap (bit 63 of each page's entry:
 * present), and unmaps them again. The largest power of two in the count, in bytes; the
 * default window when the copy is too small to tell or pagemap cannot be read.
 */
static uintptr_t of_measure_window(uintptr_t copy, size_t length) OF_NOINSTR;
static uintptr_t of_measure_window(uintptr_t copy, size_t length) {
  enum { most = 512 };
  uintptr_t span_start = (copy + length / 2u) & ~(OF_TABLE_SPAN - 1u);
  uintptr_t from = span_start > copy ? span_start : copy;
  uintptr_t to = span_start + OF_TABLE_SPAN < copy + length ? span_start + OF_TABLE_SPAN : copy + length;
  uintptr_t pages = (to - from) / of_page_size;
  if (pages < 2u * (OF_DEFAULT_WINDOW / of_page_size) || pages > most) {
    return OF_DEFAULT_WINDOW;
  }
  uintptr_t middle = from + (pages / 2u) * of_page_size;
  (void)*(volatile const uint8_t *)middle;
  uint64_t present[most];
  int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  ssize_t got = fd < 0 ? -1 : pread(fd, present, pages * sizeof present[0], (off_t)(from / of_page_size * 8u));
  if (fd >= 0) {
    close(fd);
  }
  madvise((void *)from, to - from, MADV_DONTNEED);
  if (got != (ssize_t)(pages * sizeof present[0])) {
    return OF_DEFAULT_WINDOW;
  }
  uintptr_t at = pages / 2u, low = at, high = at + 1u;
  uint64_t mapped = (uint64_t)1u << 63;
  if ((present[at] & mapped) == 0) {
    return OF_DEFAULT_WINDOW;
  }
  while (low > 0 && (present[low - 1u] & mapped) != 0) {
    low--;
  }
  while (high < pages && (present[high] & mapped) != 0) {
    high++;
  }
  return (uintptr_t)1u << of_log2((high - low) * of_page_size);
}

void of_code_faults_map(const struct dl_phdr_info *info, const char *path, of_armed *module) OF_NOINSTR;
void of_code_faults_map(const struct dl_phdr_info *info, const char *path, of_armed *module) {
  module->copy_count = 0;
  if (of_code_faults_off || path == NULL || path[0] == '\0') {
    return;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return;
  }
  uintptr_t mask = of_page_size - 1u;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum && module->copy_count < OF_CODE_COPIES; i++) {
    const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
    if (segment->p_type != PT_LOAD || (segment->p_flags & PF_X) == 0 || segment->p_filesz == 0) {
      continue;
    }
    uintptr_t start = (info->dlpi_addr + segment->p_vaddr) & ~mask;
    uintptr_t end = (info->dlpi_addr + segment->p_vaddr + segment->p_filesz + mask) & ~mask;
    off_t offset = (off_t)(segment->p_offset & ~(ElfW(Off))mask);
    uintptr_t copy = of_map_alike(fd, offset, end - start, start);
    if (copy == 0) {
      continue;
    }
    if (of_window_shift == 0) {
      of_window_shift = of_log2(of_measure_window(copy, end - start));
    }
    uintptr_t windows = (end >> of_window_shift) - (start >> of_window_shift) + 1u;
    void *touched = mmap(NULL, windows, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (touched == MAP_FAILED) {
      munmap((void *)copy, end - start);
      continue;
    }
    module->copies[module->copy_count++] = (of_code_copy){start, end, copy, touched, windows};
  }
  close(fd);
}

void of_code_faults_take(uintptr_t address) OF_NOINSTR;
void of_code_faults_take(uintptr_t address) {
  const of_armed *module = of_armed_at(address);
  for (uint32_t c = 0; module != NULL && c < module->copy_count; c++) {
    const of_code_copy *code = &module->copies[c];
    if (address >= code->start && address < code->end) {
      uintptr_t window = (address >> of_window_shift) - (code->start >> of_window_shift);
      if (__atomic_exchange_n(&code->touched[window], 1u, __ATOMIC_RELAXED) == 0) {
        (void)*(volatile const uint8_t *)(code->copy + (address - code->start));
      }
      return;
    }
  }
}

/* In a fork child: the copies come unmapped (a private file mapping nothing wrote to is not
 * copied at fork), as the program's own code is without the recorder; every window starts over. */
static void of_code_faults_forked(void) OF_NOINSTR;
static void of_code_faults_forked(void) {
  uint32_t count = __atomic_load_n(&of_armed_count, __ATOMIC_ACQUIRE);
  for (uint32_t m = 0; m < count; m++) {
    of_armed *module = &of_armed_modules[m];
    for (uint32_t c = 0; c < module->copy_count; c++) {
      memset(module->copies[c].touched, 0, module->copies[c].windows);
    }
  }
}

void of_code_faults_follow_forks(void) OF_NOINSTR;
void of_code_faults_follow_forks(void) {
  if (!of_code_faults_off) {
    pthread_atfork(NULL, NULL, of_code_faults_forked);
  }
}
