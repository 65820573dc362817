/* A plugin the library loads with dlopen at launch, as apps load theirs (libpeas, GIO
 * modules): a module of its own, with a constructor, that is in no DT_NEEDED list. */
#include <stdio.h>

#include "gtkdemo.h"
#include "internal.h"

static char greeting[64];

__attribute__((constructor)) static void gtkdemo_plugin_load(void) {
  snprintf(greeting, sizeof greeting, "plugin %s loaded", g_quark_to_string(g_quark_from_string("gtkdemo-clock")));
}

GTKDEMO_API const char *gtkdemo_plugin_describe(void) { return greeting; }
