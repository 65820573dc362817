/*
 * trap_aarch64.c - the trap on arm64: brk #0 (0xd4200000), one 4-byte instruction,
 * reported as SIGTRAP (TRAP_BRKPT) with pc on the instruction itself. The only file of
 * the recorder that knows arm64.
 *
 * Instruction cache: arm64 does not keep instruction fetch coherent with stores, so every
 * write is followed by __builtin___clear_cache over the instruction (dc cvau, ic ivau and
 * the barriers; qemu-user drops its translation of a written page instead).
 *
 * Branch protection (-mbranch-protection=standard): an entry's first instruction is often
 * a landing pad, `bti c` or `paciasp`, and a module marked for BTI is mapped guarded
 * (PROT_BTI): an indirect branch that lands on anything else, a brk included, faults
 * (SIGILL) before the brk runs. Armed code is therefore made writable *without*
 * PROT_BTI: for the rest of the run its indirect branches are not checked, and the
 * landing pad itself, written back on the first call, runs as it always does. paciasp
 * signs x30 with sp: the handler changes neither, and the entry resumes at its first
 * instruction, so the return address is signed once, as without the recorder.
 * Tested under qemu-aarch64 with -cpu max (Tests/IntegrationTests/Arm64InProcessTests.swift).
 */
#if defined(__aarch64__)
#define _GNU_SOURCE
#include <sys/mman.h>

#include "trap.h"

#ifndef TRAP_BRKPT
#define TRAP_BRKPT 1
#endif
#define OF_BRK0 0xd4200000u

static void of_sync(uintptr_t at) __attribute__((no_instrument_function));
static void of_sync(uintptr_t at) {
  __builtin___clear_cache((char *)at, (char *)at + sizeof(uint32_t));
}

int of_trap_code_protection(void) {
  /* No PROT_BTI, on purpose: see the top of this file. */
  return PROT_READ | PROT_WRITE | PROT_EXEC;
}

void of_trap_plant(uintptr_t at, of_code *saved) {
  uint32_t *code = (uint32_t *)at;
  *saved = *code;
  __atomic_store_n(code, OF_BRK0, __ATOMIC_RELEASE);
  of_sync(at);
}

void of_trap_write_return(uintptr_t at) {
  __atomic_store_n((uint32_t *)at, 0xd65f03c0u, __ATOMIC_RELEASE); /* ret */
  of_sync(at);
}

uintptr_t of_trap_write_nop(uintptr_t at) {
  __atomic_store_n((uint32_t *)at, 0xd503201fu, __ATOMIC_RELEASE); /* nop */
  of_sync(at);
  return at + 4u;
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
    return false; /* kill(), raise(), tgkill() or a single step */
  }
  *address = (uintptr_t)context->uc_mcontext.pc;
  return true;
}

void of_trap_resume(ucontext_t *context, uintptr_t address) {
  context->uc_mcontext.pc = address;
}

/* User code cannot single-step itself on arm64 (only a debugger, through ptrace). */
bool of_trap_single_step(ucontext_t *context, bool on) {
  (void)context;
  return !on;
}

bool of_trap_stepped(const siginfo_t *info) {
  (void)info;
  return false;
}

void of_trap_return(ucontext_t *context) {
  /* ret: branch to the link register (x30). */
  context->uc_mcontext.pc = context->uc_mcontext.regs[30];
}
#endif
