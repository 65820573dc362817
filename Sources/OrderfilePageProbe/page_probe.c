/*
 * page_probe.c - counts the pages of a program's own code that a run really executes.
 *
 * `orderfile estimate --measure` preloads this library (LD_PRELOAD) into the shipped
 * binary: an independent referee for the estimate, needing no symbols and no trace.
 *
 * Mechanism: the constructor runs before every other initializer (the library is linked with
 * -z initfirst, which glibc honours), so that the DT_INIT code and constructors of the
 * program's own libraries are counted too, with their .init and .plt pages. It takes every
 * permission away from the executable code segments of the watched modules (the main
 * executable and every library loaded with it from outside the system's library
 * directories: the program's own files). The first fetch from each page faults once; the
 * SIGSEGV handler writes the page to the output file at once (so `_exit`, a crash or a
 * kill loses nothing) and gives the page back read and execute.
 *
 * Environment (read once, then removed, so that programs this one starts are not measured):
 *   ORDERFILE_PAGE_PROBE_OUTPUT       the file to write (required; without it the probe does nothing)
 *   ORDERFILE_PAGE_PROBE_DEADLINE     CLOCK_MONOTONIC nanoseconds after which no page is counted
 *   ORDERFILE_PAGE_PROBE_UNTIL        FILE@HEX[,HEX...]: function entries (ELF virtual addresses
 *                                     in FILE, a watched module) whose first call ends the count
 *
 * Output, one line each, in the order things happened:
 *   pagesize HEXBYTES             first: the page the probe watches (4 KiB, or the system's larger
 *                                 page); the page lines below are of that size, so smaller page
 *                                 sizes cannot be told apart from them
 *   module HEXINDEX HEXBASE PATH  a watched module (PATH as the loader named it; the main
 *                                 executable by /proc/self/exe)
 *   page HEXINDEX HEXADDRESS      a page first executed, the start of a page of `pagesize` bytes,
 *                                 as an ELF virtual address of the module (the address minus its
 *                                 load base)
 *   end until|time-limit          counting stopped there (no line: it ran to exit)
 *   overflow                      a module had more segments than the probe watches
 *
 * Ordering: a page is written before it is given back, so a page that is in the file ran
 * (or was read) before the next page in the file. An --until entry is trapped with int3
 * (x86-64): its own page faults first, is counted, then the trap ends the count, as the
 * breakpoint recorder ends the launch window at the first call of that function.
 *
 * Limitations: code loaded later with dlopen is not watched; a page the program only
 * reads (not executes) counts as touched, since the kernel maps it all the same; a
 * program that replaces the SIGSEGV or SIGTRAP handler through sigaction or signal keeps
 * working (this library interposes both and forwards faults that are not its own), but
 * one that calls the raw system call bypasses it. Elsewhere than x86-64, --until is
 * approximated by the first fault on the page that holds the entry.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "orderfile_system_paths.h"

/* The kernel protects whole pages of the system's size: 4 KiB on x86-64, 4, 16 or 64 KiB on
 * arm64. Set by the constructor from sysconf; on a system with pages above 4 KiB the pages
 * written are of that size, so smaller sizes cannot be told apart there. */
static uintptr_t probe_page = 4096;
#define PROBE_PAGE probe_page
#define MAX_SEGMENTS 64
#define MAX_MODULES 32
#define MAX_STOPS 16

struct segment {
  uintptr_t start, end; /* run-time addresses, page-aligned */
  uintptr_t base;       /* the module's load base */
  int module;
  uint8_t *seen;        /* one byte per page */
};

static struct segment segments[MAX_SEGMENTS];
static int segment_count;
static int module_count;
static int output_fd = -1;
static pid_t owner;
static uint64_t deadline_ns;
static volatile int stopped;
static int overflowed;

static uintptr_t stops[MAX_STOPS];
#if defined(__x86_64__)
static unsigned char stop_bytes[MAX_STOPS]; /* the bytes int3 replaced */
#endif
static int stop_count;
static int stops_resolved;
static int trap_installed;
static char until_path[4096];
static char exe_path[4096];

static struct sigaction program_segv, program_trap;
static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);

/* ---- signal-safe output ---------------------------------------------------------------- */

static void put(const char *text, size_t length) {
  while (length > 0) {
    ssize_t n = write(output_fd, text, length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    text += n;
    length -= (size_t)n;
  }
}

static size_t format_hex(char *out, uintptr_t value) {
  char digits[2 * sizeof value];
  size_t n = 0;
  do {
    digits[n++] = "0123456789abcdef"[value & 15];
    value >>= 4;
  } while (value);
  for (size_t i = 0; i < n; i++) out[i] = digits[n - 1 - i];
  return n;
}

static void put_line(const char *word, int module, uintptr_t value, const char *tail) {
  char line[4096 + 96];
  size_t n = 0;
  size_t w = strlen(word);
  memcpy(line, word, w);
  n += w;
  line[n++] = ' ';
  n += format_hex(line + n, (uintptr_t)module);
  line[n++] = ' ';
  n += format_hex(line + n, value);
  if (tail) {
    size_t t = strlen(tail);
    if (t > 4000) t = 4000;
    line[n++] = ' ';
    memcpy(line + n, tail, t);
    n += t;
  }
  line[n++] = '\n';
  put(line, n);
}

static int is_owner(void) { return (pid_t)syscall(SYS_getpid) == owner; }

/* ---- stopping ------------------------------------------------------------------------------ */

/* Gives every watched page back; no fault of ours happens after this. */
static void stop_counting(const char *reason) {
  if (stopped) return;
  stopped = 1;
  if (is_owner()) {
    put("end ", 4);
    put(reason, strlen(reason));
    put("\n", 1);
  }
  for (int i = 0; i < segment_count; i++)
    mprotect((void *)segments[i].start, segments[i].end - segments[i].start, PROT_READ | PROT_EXEC);
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* ---- the handlers -------------------------------------------------------------------------- */

static struct segment *segment_of(uintptr_t address) {
  for (int i = 0; i < segment_count; i++)
    if (address >= segments[i].start && address < segments[i].end) return &segments[i];
  return NULL;
}

/* Passes a signal that is not ours to what the program installed, or to the default. */
static void forward(int sig, siginfo_t *info, void *context, const struct sigaction *program) {
  if (program->sa_flags & SA_SIGINFO) {
    if (program->sa_sigaction) {
      program->sa_sigaction(sig, info, context);
      return;
    }
  } else if (program->sa_handler != SIG_DFL && program->sa_handler != SIG_IGN) {
    program->sa_handler(sig);
    return;
  }
  /* The default action: returning re-executes the faulting instruction, which then kills. */
  struct sigaction fallback;
  memset(&fallback, 0, sizeof fallback);
  fallback.sa_handler = SIG_DFL;
  real_sigaction(sig, &fallback, NULL);
}

static void on_segv(int sig, siginfo_t *info, void *context) {
  int saved = errno;
  uintptr_t address = (uintptr_t)info->si_addr;
  struct segment *segment = segment_of(address);
  if (!segment) {
    forward(sig, info, context, &program_segv);
    errno = saved;
    return;
  }
  uintptr_t page = address & ~(PROBE_PAGE - 1);
  size_t slot = (page - segment->start) / PROBE_PAGE;
  if (stopped) {
    /* Every page is executable again: the first fault on one after the stop raced with it
       and is retried; a second is the program's own (a write to its code). */
    if (__atomic_exchange_n(&segment->seen[slot], 2, __ATOMIC_ACQ_REL) == 2) forward(sig, info, context, &program_segv);
    errno = saved;
    return;
  }
  if (deadline_ns && now_ns() > deadline_ns) {
    stop_counting("time-limit");
    errno = saved;
    return;
  }
  /* Two threads can fault on one page: only the first writes it. */
  if (!__atomic_exchange_n(&segment->seen[slot], 1, __ATOMIC_ACQ_REL) && is_owner())
    put_line("page", segment->module, page - segment->base, NULL);
  if (mprotect((void *)page, PROBE_PAGE, PROT_READ | PROT_EXEC) != 0) _exit(120);
#if !defined(__x86_64__)
  /* No trap here: the first fault on the page of an --until entry ends the count. */
  for (int i = 0; i < stop_count; i++)
    if ((stops[i] & ~(PROBE_PAGE - 1)) == page) stop_counting("until");
#endif
  errno = saved;
}

#if defined(__x86_64__)
static int write_code_byte(uintptr_t address, unsigned char byte, int protection_after) {
  uintptr_t page = address & ~(PROBE_PAGE - 1);
  if (mprotect((void *)page, PROBE_PAGE, PROT_READ | PROT_WRITE) != 0) return -1;
  *(volatile unsigned char *)address = byte;
  return mprotect((void *)page, PROBE_PAGE, protection_after);
}

static void on_trap(int sig, siginfo_t *info, void *context) {
  int saved = errno;
  ucontext_t *uc = context;
  uintptr_t entry = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP] - 1;
  for (int i = 0; i < stop_count; i++) {
    if (stops[i] != entry) continue;
    /* The entry's page is executable here: it faulted (and was counted) before the trap. */
    for (int j = 0; j < stop_count; j++)
      if (stops[j]) write_code_byte(stops[j], stop_bytes[j], PROT_READ | PROT_EXEC);
    __builtin___clear_cache((char *)entry, (char *)entry + 1);
    uc->uc_mcontext.gregs[REG_RIP] = (greg_t)entry;
    stop_counting("until");
    errno = saved;
    return;
  }
  forward(sig, info, context, &program_trap);
  errno = saved;
}
#endif

/* The program's own handlers for the signals the probe needs are kept and forwarded to. */
int sigaction(int sig, const struct sigaction *action, struct sigaction *old) {
  if (!real_sigaction) real_sigaction = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(RTLD_NEXT, "sigaction");
  struct sigaction *kept = sig == SIGSEGV ? &program_segv : sig == SIGTRAP && trap_installed ? &program_trap : NULL;
  if (output_fd < 0 || !kept) return real_sigaction(sig, action, old);
  if (old) *old = *kept;
  if (action) *kept = *action;
  return 0;
}

/* signal() in glibc sets the handler without going through the exported sigaction. */
sighandler_t signal(int sig, sighandler_t handler) {
  if (output_fd >= 0 && (sig == SIGSEGV || (sig == SIGTRAP && trap_installed))) {
    struct sigaction action, old;
    memset(&action, 0, sizeof action);
    action.sa_handler = handler;
    action.sa_flags = SA_RESTART;
    if (sigaction(sig, &action, &old) != 0) return SIG_ERR;
    return old.sa_handler;
  }
  static sighandler_t (*real_signal)(int, sighandler_t);
  if (!real_signal) real_signal = (sighandler_t(*)(int, sighandler_t))dlsym(RTLD_NEXT, "signal");
  return real_signal ? real_signal(sig, handler) : SIG_ERR;
}

/* ---- arming -------------------------------------------------------------------------------- */

static int contains_probe(const struct dl_phdr_info *info) {
  uintptr_t self = (uintptr_t)&contains_probe;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + header->p_vaddr;
    if (header->p_type == PT_LOAD && self >= start && self - start < header->p_memsz) return 1;
  }
  return 0;
}

/* By file, not by spelling: the loader names a library by the link it opened (its SONAME,
 * libX.so.0), the tool by whatever path the user gave (often the real file, libX.so.0.0.0). */
static int same_file(const char *a, const char *b) {
  struct stat first, second;
  if (stat(a, &first) != 0 || stat(b, &second) != 0) return strcmp(a, b) == 0;
  return first.st_dev == second.st_dev && first.st_ino == second.st_ino;
}

static int watch_module(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  int *position = data;
  int first = (*position)++ == 0;
  const char *name = first ? exe_path : info->dlpi_name;
  /* The vDSO has no path; this library must stay executable for its own handler. */
  if (!name || !strchr(name, '/')) return 0;
  if (!first && of_is_system_library(name)) return 0;
  if (!first && contains_probe(info)) return 0;
  if (module_count >= MAX_MODULES) {
    overflowed = 1;
    return 0;
  }
  int module = module_count;
  int segments_before = segment_count;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[i];
    if (header->p_type != PT_LOAD || !(header->p_flags & PF_X)) continue;
    if (segment_count >= MAX_SEGMENTS) {
      overflowed = 1;
      break;
    }
    struct segment *segment = &segments[segment_count++];
    segment->base = info->dlpi_addr;
    segment->start = (info->dlpi_addr + header->p_vaddr) & ~(PROBE_PAGE - 1);
    segment->end = (info->dlpi_addr + header->p_vaddr + header->p_memsz + PROBE_PAGE - 1) & ~(PROBE_PAGE - 1);
    segment->module = module;
    size_t pages = (segment->end - segment->start) / PROBE_PAGE;
    void *seen = mmap(NULL, pages, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    segment->seen = seen == MAP_FAILED ? NULL : seen;
    if (!segment->seen) segment_count--;
  }
  if (segment_count == segments_before) return 0;
  module_count++;
  put_line("module", module, info->dlpi_addr, name);
  if (until_path[0] && !stops_resolved && same_file(until_path, name)) {
    for (int i = 0; i < stop_count; i++) stops[i] += info->dlpi_addr;
    stops_resolved = 1;
  }
  return 0;
}

/* Parses FILE@HEX[,HEX...]; the addresses become run-time ones once FILE is found. */
static void parse_until(const char *value) {
  const char *at = strrchr(value, '@');
  if (!at || (size_t)(at - value) >= sizeof until_path) return;
  memcpy(until_path, value, (size_t)(at - value));
  until_path[at - value] = 0;
  const char *cursor = at + 1;
  while (*cursor && stop_count < MAX_STOPS) {
    char *end;
    unsigned long long address = strtoull(cursor, &end, 16);
    if (end == cursor) break;
    stops[stop_count++] = (uintptr_t)address;
    cursor = *end == ',' ? end + 1 : end;
  }
}

/* The variable NAME of ENV, or NULL. */
static const char *find_variable(char **env, const char *name) {
  size_t length = strlen(name);
  for (char **entry = env; entry && *entry; entry++)
    if (strncmp(*entry, name, length) == 0 && (*entry)[length] == '=') return *entry + length + 1;
  return NULL;
}

/* Removes NAME from ENV in place, as unsetenv does to the array environ will point to. */
static void remove_variable(char **env, const char *name) {
  size_t length = strlen(name);
  char **kept = env;
  for (char **entry = env; entry && *entry; entry++)
    if (!(strncmp(*entry, name, length) == 0 && (*entry)[length] == '=')) *kept++ = *entry;
  if (kept) *kept = NULL;
}

/* Linked with -z initfirst, glibc runs this before the initializers of every other module,
 * libc's included: before a library's DT_INIT and constructors, which run at launch and are
 * counted. libc has not set `environ` yet then; glibc hands every initializer the
 * environment, so it is read from there (a libc that hands nothing has set `environ`). */
__attribute__((constructor)) static void arm(int argc, char **argv, char **envp) {
  (void)argc;
  (void)argv;
  char **env = environ ? environ : envp;
  const char *output = find_variable(env, "ORDERFILE_PAGE_PROBE_OUTPUT");
  if (!output || !*output) return;
  real_sigaction = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(RTLD_NEXT, "sigaction");
  if (!real_sigaction) return;
  int fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  owner = (pid_t)syscall(SYS_getpid);
  long system_page = sysconf(_SC_PAGESIZE);
  if (system_page > 4096) probe_page = (uintptr_t)system_page;
  const char *deadline = find_variable(env, "ORDERFILE_PAGE_PROBE_DEADLINE");
  if (deadline) deadline_ns = strtoull(deadline, NULL, 10);
  const char *until = find_variable(env, "ORDERFILE_PAGE_PROBE_UNTIL");
  if (until) parse_until(until);
  remove_variable(env, "ORDERFILE_PAGE_PROBE_OUTPUT");
  remove_variable(env, "ORDERFILE_PAGE_PROBE_DEADLINE");
  remove_variable(env, "ORDERFILE_PAGE_PROBE_UNTIL");
  ssize_t length = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
  exe_path[length > 0 ? length : 0] = 0;
  output_fd = fd;
  {
    char line[32] = "pagesize ";
    size_t n = 9;
    n += format_hex(line + n, probe_page);
    line[n++] = '\n';
    put(line, n);
  }

  int position = 0;
  dl_iterate_phdr(watch_module, &position);
  if (overflowed) put("overflow\n", 9);
  if (!stops_resolved) stop_count = 0; /* an --until module that is not watched ends nothing */

  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_segv;
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
  sigemptyset(&action.sa_mask);
  real_sigaction(SIGSEGV, &action, &program_segv);
#if defined(__x86_64__)
  if (stop_count) {
    action.sa_sigaction = on_trap;
    real_sigaction(SIGTRAP, &action, &program_trap);
    trap_installed = 1;
    for (int i = 0; i < stop_count; i++) {
      if (!segment_of(stops[i])) {
        stops[i] = 0; /* outside the module's code: never reached as an entry */
        continue;
      }
      stop_bytes[i] = *(volatile unsigned char *)stops[i];
      write_code_byte(stops[i], 0xcc, PROT_READ | PROT_EXEC);
    }
  }
#endif
  for (int i = 0; i < segment_count; i++)
    mprotect((void *)segments[i].start, segments[i].end - segments[i].start, PROT_NONE);
}
