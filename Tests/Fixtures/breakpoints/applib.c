/* An app's library of its own (libapplib.so.0.0.0, reached through its SONAME link
 * libapplib.so.0): a constructor, a C++ static initializer (applib_static.cpp), and the
 * code main calls. */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static int ready;

/* Reads the environment so that no compiler can fold the constructor away. */
NOINLINE static int applib_setup(int seeded) { return seeded ? 1 : 2; }

__attribute__((constructor)) static void applib_constructor(void) {
  ready = applib_setup(getenv("APP_SEEDED") != NULL);
}

int applib_registry(void);

int applib_run(int x) { return x + ready + applib_registry(); }
