/*
 * fixture_library.c - an instrumented shared library for the module tests.
 *
 * library_run() calls two internal functions; library_functions() hands
 * their addresses to the program, which prints them module-relative.
 */
__attribute__((noinline)) static unsigned library_inner_a(unsigned x) { return x * 3u + 1u; }
__attribute__((noinline)) static unsigned library_inner_b(unsigned x) { return x ^ 0x5a5au; }

__attribute__((noinline)) unsigned library_run(unsigned x) {
  return library_inner_b(library_inner_a(x));
}

__attribute__((no_instrument_function)) void library_functions(const void **out) {
  out[0] = (const void *)library_run;
  out[1] = (const void *)library_inner_a;
  out[2] = (const void *)library_inner_b;
}
