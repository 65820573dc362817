/*
 * library_user.c - an instrumented program that calls an instrumented
 * shared library (fixture_library.c), so its trace names two modules.
 *
 * Prints "exe <address>" for its own function and "lib <address>" for the
 * library's, module-relative.
 */
#include "fixture_support.h"

unsigned library_run(unsigned x);
void library_functions(const void **out);

static volatile unsigned sink;

__attribute__((noinline)) static void program_work(void) { sink += library_run(sink); }

int main(void) {
  program_work();
  const void *library[3];
  library_functions(library);
  fixture_print("exe", (const void *)program_work);
  for (int i = 0; i < 3; i++) {
    fixture_print("lib", library[i]);
  }
  return 0;
}
