/*
 * trap.h - the instruction set, seen from the in-process recorder.
 *
 * Everything the recorder needs to know about machine code is behind these calls,
 * written once per architecture: trap_x86_64.c (int3, REG_RIP) and trap_aarch64.c
 * (brk #0, pc). The rest of the recorder never names an instruction or a register.
 */
#ifndef ORDERFILE_INPROCESS_TRAP_H
#define ORDERFILE_INPROCESS_TRAP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

#pragma GCC visibility push(hidden)

/* The bytes a trap replaces: at most 4 on every supported architecture. */
typedef uint32_t of_code;

/* The protection armed code gets for the rest of the run: readable, writable (a first call
 * writes its instruction back) and executable, and whatever else the machine needs there. */
int of_trap_code_protection(void) __attribute__((no_instrument_function));

/* Saves the code at `at` into `saved` and writes the trap over it. The page must be
 * writable. The instruction cache is made coherent before returning. */
void of_trap_plant(uintptr_t at, of_code *saved) __attribute__((no_instrument_function));

/* Writes a return instruction at `at` (a function that returns at once). The page must be
 * writable. */
void of_trap_write_return(uintptr_t at) __attribute__((no_instrument_function));

/* Writes an instruction that does nothing at `at`; returns the address after it. The page must
 * be writable. */
uintptr_t of_trap_write_nop(uintptr_t at) __attribute__((no_instrument_function));

/* Writes `saved` back over the trap at `at` (idempotent). */
void of_trap_restore(uintptr_t at, of_code saved) __attribute__((no_instrument_function));

/* Whether `code` is itself a trap instruction (a program's own, at a function's entry). */
bool of_trap_is_trap(of_code code) __attribute__((no_instrument_function));

/* Whether this SIGTRAP was raised by a trap instruction (not kill(), raise() or a
 * single step); if so, the trap instruction's address goes to `address`. */
bool of_trap_hit(const siginfo_t *info, const ucontext_t *context, uintptr_t *address)
    __attribute__((no_instrument_function));

/* Makes the interrupted thread continue at `address` when the handler returns. */
void of_trap_resume(ucontext_t *context, uintptr_t address) __attribute__((no_instrument_function));

/* Makes the interrupted thread return from the function whose first instruction trapped,
 * as if that function were empty (the loader's _dl_debug_state is). */
void of_trap_return(ucontext_t *context) __attribute__((no_instrument_function));

/* Makes the interrupted thread stop again with SIGTRAP after one more instruction (`on`),
 * or run freely again; false: the machine cannot single-step a thread from its own handler. */
bool of_trap_single_step(ucontext_t *context, bool on) __attribute__((no_instrument_function));

/* Whether this SIGTRAP is the stop after a single step of_trap_single_step asked for. */
bool of_trap_stepped(const siginfo_t *info) __attribute__((no_instrument_function));

#pragma GCC visibility pop

#endif
