#include <stdio.h>
#include <stdlib.h>
#include "app.h"
#ifdef ORDERFILE_INSTRUMENTED
#include <orderfile.h>
#endif

NOINLINE static int report_unused(int value) { return value + 1; }

NOINLINE static int launch(int seed) {
  int value = config_load(seed);
  value += plugin_register(value);
  value += store_open(value);
  value += ui_layout(value);
  return value;
}

int main(int argc, char **argv) {
  int seed = argc > 1 ? atoi(argv[1]) : 5;
  int value = launch(seed);
#ifdef ORDERFILE_INSTRUMENTED
  orderfile_startup_complete();
#endif
  /* After the launch window: recorded as a second phase, never ordered. */
  value += store_compact_after_launch(value);
  if (argc > 5) value += report_unused(value);
  printf("launch value %d\n", value);
  return 0;
}
