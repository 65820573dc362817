// Records which 4 KiB pages of the main executable's code a run executes, in the order
// of their first touch: an independent check of `orderfile estimate` that needs no
// symbols and no trace.
//
// Preload it (LD_PRELOAD=page_touch_probe.so PAGE_PROBE_OUTPUT=FILE ./app). Its
// constructor runs before the executable's own initializers and takes away every
// permission of the executable's code segments; the first fetch from each page faults
// once, the handler records the page and gives it back read and execute. At exit the
// pages are written to FILE, one a line, as hex addresses relative to the executable's
// load base (the ELF virtual address), so they compare with its symbol table.
//
// Limitations: a program that calls _exit or dies by a signal writes nothing; only the
// main executable is watched; 4 KiB is the granularity, larger pages are derived from it.
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096UL
#define MAX_PAGES 65536

static uintptr_t base;
static uintptr_t starts[16], ends[16];
static int segments;
static uintptr_t touched[MAX_PAGES];
static volatile int count;
static int overflowed;

static int in_code(uintptr_t address) {
  for (int i = 0; i < segments; i++)
    if (address >= starts[i] && address < ends[i]) return 1;
  return 0;
}

static void on_fault(int sig, siginfo_t *info, void *context) {
  (void)context;
  uintptr_t address = (uintptr_t)info->si_addr;
  if (!in_code(address)) {
    // A real crash: let it happen with the default action.
    signal(sig, SIG_DFL);
    return;
  }
  uintptr_t page = address & ~(PAGE - 1);
  if (count < MAX_PAGES) touched[count++] = page;
  else overflowed = 1;
  if (mprotect((void *)page, PAGE, PROT_READ | PROT_EXEC) != 0) _exit(120);
}

static int find_main(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  // The first object is the main executable.
  base = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum && segments < 16; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    starts[segments] = (base + ph->p_vaddr) & ~(PAGE - 1);
    ends[segments] = (base + ph->p_vaddr + ph->p_memsz + PAGE - 1) & ~(PAGE - 1);
    segments++;
  }
  return 1;
}

__attribute__((constructor)) static void arm(void) {
  if (!getenv("PAGE_PROBE_OUTPUT")) return;
  dl_iterate_phdr(find_main, NULL);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGSEGV, &action, NULL);
  for (int i = 0; i < segments; i++) mprotect((void *)starts[i], ends[i] - starts[i], PROT_NONE);
}

__attribute__((destructor)) static void report(void) {
  const char *path = getenv("PAGE_PROBE_OUTPUT");
  if (!path || segments == 0) return;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  char line[32];
  for (int i = 0; i < count; i++) {
    int n = snprintf(line, sizeof line, "%lx\n", (unsigned long)(touched[i] - base));
    if (write(fd, line, (size_t)n) != n) break;
  }
  if (overflowed) (void)!write(fd, "overflow\n", 9);
  close(fd);
}
