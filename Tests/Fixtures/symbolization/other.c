/* Compiled into every symbolization fixture: a static function whose name is
   also used in located.c, and a function with two aliases. */

__attribute__((noinline)) static int helper(int x) {
  return x * 3 + 1;
}

int other_entry(int x) {
  return helper(x) + 2;
}

int aliased_target(int x) {
  return x ^ 0x5a;
}

int aliased_alias(int x) __attribute__((alias("aliased_target")));
int aliased_weak(int x) __attribute__((weak, alias("aliased_target")));

/* An indirect function: the STT_GNU_IFUNC symbol `chosen` sits at its resolver's address. */
static int chosen_impl(int x) {
  return x - 3;
}

static int (*resolve_chosen(void))(int) {
  return chosen_impl;
}

int chosen(int x) __attribute__((ifunc("resolve_chosen")));
