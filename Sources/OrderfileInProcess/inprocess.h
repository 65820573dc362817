/*
 * inprocess.h - what the in-process recorder's files share (hidden).
 */
#ifndef ORDERFILE_INPROCESS_H
#define ORDERFILE_INPROCESS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

#pragma GCC visibility push(hidden)

/* recorder.c: handles a SIGTRAP if one of the recorder's traps raised it; false: not ours. */
bool of_inprocess_handle_trap(const siginfo_t *info, ucontext_t *context) __attribute__((no_instrument_function));

/* signals.c: installs the recorder's SIGTRAP handler, keeping the program's for chaining. */
bool of_install_trap_handler(void) __attribute__((no_instrument_function));

/* symbols.c: the sorted, distinct ELF vaddrs of the defined functions of the file at
 * `path` (.symtab, else .dynsym), in anonymous memory that is never freed; NULL if none. */
const uint64_t *of_read_function_entries(const char *path, uint64_t *count) __attribute__((no_instrument_function));

#pragma GCC visibility pop

#endif
