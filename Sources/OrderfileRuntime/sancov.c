/*
 * sancov.c - SanitizerCoverage's trace-pc-guard hooks, for compilers that have
 * no -finstrument-functions: swiftc (-sanitize-coverage=func,trace-pc-guard
 * through the frontend) and rustc (-C passes=sancov-module).
 *
 * The compiler gives every instrumented function (every edge, at edge level)
 * a 32-bit guard in the module's __sancov_guards section and calls
 * __sanitizer_cov_trace_pc_guard(&guard) there. A guard that is non-zero has
 * not been hit yet; the first hit zeroes it and records the first call into
 * the same trace the entry hooks write. So the guards themselves are the set
 * of functions seen: the seen set and the marks of hooks.c are not involved.
 */
#include <stdint.h>

#include "orderfile.h"
#include "runtime_internal.h"

/*
 * Arms the guards of one module: every guard becomes 1 ("not hit yet").
 *
 * Implementation: the compiler calls this from a constructor of each module
 * with the bounds of that module's guard section. A module whose first guard
 * is already non-zero was armed by an earlier call and is left alone, as
 * compiler-rt's own runtime does.
 *
 * Limitations: a guard hit before its module's constructor ran (code another
 * module's constructor calls first) is still 0 and is never recorded. If the
 * same bounds were armed twice with the first guard hit in between, the
 * guards are armed again and the functions already hit are recorded twice;
 * generate keeps each function at its first record, so the order is the same.
 */
void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) {
  if (start == stop || *start != 0) {
    return;
  }
  for (uint32_t *guard = start; guard < stop; guard++) {
    *guard = 1;
  }
}

static void of_guard_first_hit(uint32_t *guard, uintptr_t return_address)
    __attribute__((noinline, cold)) OF_NOINSTR;

/*
 * Ordering: the guard is read with a plain (relaxed) load. A stale non-zero
 * value only sends the caller to the slow path, where the atomic exchange
 * settles who records: exactly one thread takes the guard from non-zero to 0.
 *
 * Implementation: one load, one branch not taken, return. The first hit is
 * out of line (of_guard_first_hit), so the hook has no stack frame.
 *
 * Limitations: no exit hook exists in this instrumentation, so full mode's
 * entry and exit events (ORDERFILE_MODE=full) are not recorded for code
 * built with it; first calls are.
 */
void __sanitizer_cov_trace_pc_guard(uint32_t *guard) {
  if (__builtin_expect(__atomic_load_n(guard, __ATOMIC_RELAXED) == 0, 1)) {
    return;
  }
  of_guard_first_hit(guard, (uintptr_t)__builtin_return_address(0));
}

/*
 * The first hit of a guard. The address recorded is one byte before the
 * return address, inside the call instruction: the return address itself
 * is past the end of the function when the hook's call is the function's
 * last instruction (code the compiler knows never returns). Symbolization
 * maps the address to the function that contains it (FunctionIndex).
 *
 * A hit while the thread is inside the runtime (a signal handler that
 * interrupted it, a fork in progress) leaves the guard armed: the function
 * is recorded at a later call instead of recursing into the runtime.
 */
static void of_guard_first_hit(uint32_t *guard, uintptr_t return_address) {
  of_thread *self = &of_self;
  if (self->busy) {
    return;
  }
  if (__atomic_exchange_n(guard, 0u, __ATOMIC_RELAXED) == 0) {
    return; /* another thread took the first hit and records it */
  }
  self->busy = 1;
  if (of_ensure_started()) {
    of_record_first_call(return_address - 1u);
  } else {
    of_forward_first_call(return_address - 1u);
  }
  self->busy = 0;
}
