/*
 * inprocess.h - what the in-process recorder's files share (hidden).
 */
#ifndef ORDERFILE_INPROCESS_H
#define ORDERFILE_INPROCESS_H

#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

#pragma GCC visibility push(hidden)

/* recorder.c: handles a SIGTRAP if one of the recorder's traps raised it; false: not ours. */
bool of_inprocess_handle_trap(const siginfo_t *info, ucontext_t *context) __attribute__((no_instrument_function));

/* recorder.c: handles a SIGSEGV if it is a touch of a watched data page; false: not ours. */
bool of_inprocess_handle_fault(const siginfo_t *info, ucontext_t *context) __attribute__((no_instrument_function));

/* data_pages.c: protects the read-only data of the loaded module `info` (after relocation)
 * so that the first touch of each page is recorded; `module_pc` is code of the module. The
 * runtime must be recording. */
void of_data_watch(const struct dl_phdr_info *info, uintptr_t module_pc) __attribute__((no_instrument_function));

/* data_pages.c: the fault at info->si_addr, if on a watched page: the address recorded at
 * `trapped` (wall clock) when new, the page readable for the faulting instruction at least;
 * false: not a watched page. */
bool of_data_handle_fault(const siginfo_t *info, ucontext_t *context, uint64_t trapped)
    __attribute__((no_instrument_function));

/* data_pages.c: the SIGTRAP after the one instruction a fault let read a watched page: the
 * page is protected again; false: not such a trap. */
bool of_data_handle_step(const siginfo_t *info, ucontext_t *context) __attribute__((no_instrument_function));

/* signals.c: installs the recorder's SIGSEGV handler, keeping the program's for chaining. */
bool of_install_fault_handler(void) __attribute__((no_instrument_function));

/* signals.c: installs the recorder's SIGTRAP handler, keeping the program's for chaining. */
bool of_install_trap_handler(void) __attribute__((no_instrument_function));

/* symbols.c: the sorted, distinct ELF vaddrs of the defined functions of the file at
 * `path` (.symtab, else .dynsym), in anonymous memory that is never freed; NULL if none. */
const uint64_t *of_read_function_entries(const char *path, uint64_t *count) __attribute__((no_instrument_function));

/* trap_waits.c: at a handler's start (`started_ns`, CLOCK_MONOTONIC), the time this thread
 * waited for a core since its previous handler ended that belongs to the traps' kernel parts
 * (`cost_ns` each, calibrated), not to the program. Async-signal-safe. */
uint64_t of_trap_waits_ns(uint64_t started_ns, uint64_t cost_ns) __attribute__((no_instrument_function));

/* trap_waits.c: marks the end of this thread's handler, where the next gap starts. */
void of_trap_waits_end(void) __attribute__((no_instrument_function));

/* children.c: maps the recording's shared counter of recorder time, beside the plan at
 * `plan_path` (created by the first process); without it nothing is shared. */
void of_children_open(const char *plan_path) __attribute__((no_instrument_function));

/* children.c: adds this process's recorder time `spent_ns` to the recording's counter, which
 * a parent waiting for this process takes out of its own time. Async-signal-safe. */
void of_children_add(uint64_t spent_ns) __attribute__((no_instrument_function));

#pragma GCC visibility pop

#endif
