/*
 * trap_x86_64.c - the trap on x86-64: int3 (0xcc), one byte, reported as SIGTRAP with
 * si_code SI_KERNEL and the instruction pointer one byte past it. The only file of the
 * recorder that knows x86-64.
 */
#if defined(__x86_64__)
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>

#include "trap.h"

#define OF_INT3 0xccu

int of_trap_code_protection(void) {
  return PROT_READ | PROT_WRITE | PROT_EXEC;
}

void of_trap_plant(uintptr_t at, of_code *saved) {
  uint8_t *code = (uint8_t *)at;
  *saved = code[0];
  /* x86 keeps instruction fetch coherent with stores: no cache maintenance. */
  __atomic_store_n(code, (uint8_t)OF_INT3, __ATOMIC_RELEASE);
}

void of_trap_write_return(uintptr_t at) {
  __atomic_store_n((uint8_t *)at, (uint8_t)0xc3u, __ATOMIC_RELEASE); /* ret */
}

uintptr_t of_trap_write_nop(uintptr_t at) {
  __atomic_store_n((uint8_t *)at, (uint8_t)0x90u, __ATOMIC_RELEASE); /* nop */
  return at + 1u;
}

void of_trap_restore(uintptr_t at, of_code saved) {
  __atomic_store_n((uint8_t *)at, (uint8_t)saved, __ATOMIC_RELEASE);
}

bool of_trap_is_trap(of_code code) {
  return (code & 0xffu) == OF_INT3;
}

bool of_trap_hit(const siginfo_t *info, const ucontext_t *context, uintptr_t *address) {
  if (info->si_code != SI_KERNEL) {
    return false; /* kill(), raise(), tgkill() or a debug exception (single step) */
  }
  uintptr_t after = (uintptr_t)context->uc_mcontext.gregs[REG_RIP];
  *address = after - 1u;
  return true;
}

void of_trap_resume(ucontext_t *context, uintptr_t address) {
  context->uc_mcontext.gregs[REG_RIP] = (greg_t)address;
}

/* The trap flag of RFLAGS: a debug exception (SIGTRAP, TRAP_TRACE) after the next instruction. */
#define OF_TRAP_FLAG 0x100

bool of_trap_single_step(ucontext_t *context, bool on) {
  if (on) {
    context->uc_mcontext.gregs[REG_EFL] |= OF_TRAP_FLAG;
  } else {
    context->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)OF_TRAP_FLAG;
  }
  return true;
}

bool of_trap_stepped(const siginfo_t *info) {
  return info->si_code == TRAP_TRACE;
}

void of_trap_return(ucontext_t *context) {
  /* ret: pop the return address. */
  greg_t *registers = context->uc_mcontext.gregs;
  uintptr_t return_address;
  memcpy(&return_address, (const void *)registers[REG_RSP], sizeof return_address);
  registers[REG_RSP] += (greg_t)sizeof return_address;
  registers[REG_RIP] = (greg_t)return_address;
}
#endif
