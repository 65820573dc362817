#include "app.h"

NOINLINE int plugin_uninstall_unused(int value) {
  int acc = 0;
  for (int i = 0; i < value; i++) acc += i;
  return acc;
}

NOINLINE static int plugin_hash(int value) { return value * 131 + 7; }

NOINLINE int plugin_activate(int value) { return plugin_hash(value) & 0xffff; }

NOINLINE int plugin_register(int value) { return plugin_activate(value + 2); }
