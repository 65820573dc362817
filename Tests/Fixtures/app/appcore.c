/*
 * An app's own library (libappcore.so.1, a symlink to libappcore.so.1.0.0, as a libtool
 * build installs it), with two constructors that run before main: one registers its types
 * for 1 ms, the other loads its resources for 6 ms. main then builds and shows a window
 * through it. Each constructor calls the clock, so that no compiler evaluates it at build
 * time and drops it (clang's global optimizer does that to a constructor that only stores).
 */
#include "../premain/calls.h" /* spin */

#define NOINLINE __attribute__((noinline))

long appcore_state;

NOINLINE long appcore_register_type(long id) { return id * 7 + 1; }
NOINLINE long appcore_load_resource(long id) { return id * 3 + 2; }

__attribute__((constructor(101))) static void appcore_register_types(void) {
  for (long id = 0; id < 3; id++) appcore_state += appcore_register_type(id);
  spin(1);
}

__attribute__((constructor(102))) static void appcore_load_resources(void) {
  appcore_state += appcore_load_resource(1);
  spin(6);
}

NOINLINE long appcore_window_new(void) { return appcore_state + 1; }
NOINLINE long appcore_window_show(long window) { return window * 2; }
