/*
 * sancov_order.c - first calls recorded through SanitizerCoverage's
 * trace-pc-guard hooks (clang -fsanitize-coverage=func,trace-pc-guard, or
 * edge level, where every function has several guards).
 *
 * Calls eight step functions in a scrambled order, each several times, and
 * prints "fn <address>" for each in first-call order. Then calls
 * ends_with_hook, whose last instruction is the hook's call (it falls through
 * into after_hook, which returns for it): the hook's return address is the
 * first byte of after_hook, yet the first call is ends_with_hook's. Prints
 * "tail <address>" for it and "next <address>" for after_hook.
 *
 * The printing helpers and main are left out of the instrumentation.
 */
#include "fixture_support.h"

#define NOCOV __attribute__((no_sanitize("coverage")))

static volatile unsigned sink;

/* Branches and a loop, so that edge-level coverage gives each several guards. */
#define STEP(n)                                                                \
  __attribute__((noinline)) void step_##n(unsigned x) {                        \
    for (unsigned i = 0; i < (x & 7u) + 1u; i++) {                             \
      if ((x + i) & 1u) {                                                      \
        sink += x * n + i;                                                     \
      } else {                                                                 \
        sink ^= x + n;                                                         \
      }                                                                        \
    }                                                                          \
  }
STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8)

typedef void (*step_t)(unsigned);

/* ends_with_hook: the call to the hook is its last instruction; after_hook
 * follows it directly and returns to ends_with_hook's caller. The stack
 * adjustment keeps the hook's calls 16-byte aligned. */
void ends_with_hook(void);
void after_hook(void);
__asm__(".text\n"
        ".p2align 4\n"
        ".globl ends_with_hook\n"
        ".type ends_with_hook, @function\n"
        "ends_with_hook:\n"
        "  sub $8, %rsp\n"
        "  lea tail_guard(%rip), %rdi\n"
        "  call __sanitizer_cov_trace_pc_guard@PLT\n"
        ".size ends_with_hook, .-ends_with_hook\n"
        ".globl after_hook\n"
        ".type after_hook, @function\n"
        "after_hook:\n"
        "  add $8, %rsp\n"
        "  ret\n"
        ".size after_hook, .-after_hook\n"
        ".data\n"
        ".p2align 2\n"
        "tail_guard: .long 1\n"
        ".text\n");

NOCOV int main(void) {
  static const step_t steps[] = {step_3, step_1, step_4, step_1, step_5, step_8,
                                 step_2, step_6, step_5, step_3, step_7, step_8};
  unsigned count = sizeof steps / sizeof steps[0];
  const void *printed[16];
  unsigned printed_count = 0;
  for (unsigned i = 0; i < count; i++) {
    bool seen = false;
    for (unsigned j = 0; j < printed_count; j++) {
      seen = seen || printed[j] == (const void *)steps[i];
    }
    if (!seen) {
      printed[printed_count++] = (const void *)steps[i];
      fixture_print("fn", (const void *)steps[i]);
    }
  }
  fixture_print("tail", (const void *)ends_with_hook);
  fixture_print("next", (const void *)after_hook);
  fflush(stdout);
  for (unsigned round = 0; round < 1000; round++) {
    for (unsigned i = 0; i < count; i++) {
      steps[i](round + i);
    }
  }
  ends_with_hook();
  ends_with_hook();
  return 0;
}
