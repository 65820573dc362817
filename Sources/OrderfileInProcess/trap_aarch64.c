/*
 * trap_aarch64.c - the trap on arm64: brk #0 (0xd4200000), one 4-byte instruction,
 * reported as SIGTRAP (TRAP_BRKPT) with pc on the instruction itself. The only file of
 * the recorder that knows arm64.
 */
#if defined(__aarch64__)
#define _GNU_SOURCE
#include "trap.h"

#ifndef TRAP_BRKPT
#define TRAP_BRKPT 1
#endif
#define OF_BRK0 0xd4200000u

static void of_sync(uintptr_t at) __attribute__((no_instrument_function));
static void of_sync(uintptr_t at) {
  __builtin___clear_cache((char *)at, (char *)at + sizeof(uint32_t));
}

void of_trap_plant(uintptr_t at, of_code *saved) {
  uint32_t *code = (uint32_t *)at;
  *saved = *code;
  __atomic_store_n(code, OF_BRK0, __ATOMIC_RELEASE);
  of_sync(at);
}

void of_trap_restore(uintptr_t at, of_code saved) {
  __atomic_store_n((uint32_t *)at, saved, __ATOMIC_RELEASE);
  of_sync(at);
}

bool of_trap_is_trap(of_code code) {
  return (code & 0xffe0001fu) == 0xd4200000u; /* brk #imm16 */
}

bool of_trap_hit(const siginfo_t *info, const ucontext_t *context, uintptr_t *address) {
  if (info->si_code != TRAP_BRKPT) {
    return false;
  }
  *address = (uintptr_t)context->uc_mcontext.pc;
  return true;
}

void of_trap_resume(ucontext_t *context, uintptr_t address) {
  context->uc_mcontext.pc = address;
}

void of_trap_return(ucontext_t *context) {
  /* ret: branch to the link register (x30). */
  context->uc_mcontext.pc = context->uc_mcontext.regs[30];
}
#endif
