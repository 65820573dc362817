/* A plugin whose constructor must be recorded before anything else of it. */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static int ready;

/* Reads the environment so that no compiler can fold the constructor away. */
NOINLINE static int plugin_setup(int seeded) { return seeded ? 40 : 41; }

__attribute__((constructor)) static void plugin_constructor(void) {
  ready = plugin_setup(getenv("PLUGIN_SEEDED") != NULL);
}

int plugin_entry(int x) { return x + ready; }
