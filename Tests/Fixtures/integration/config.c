#include "app.h"

/* Functions that never run at launch sit between the ones that do, as in real code. */
NOINLINE int config_dump_unused(int value) {
  int acc = 0;
  for (int i = 0; i < value; i++) acc += (i * 31) ^ value;
  return acc;
}

NOINLINE static int parse_line(int value) { return value * 3 + 1; }

NOINLINE int config_migrate_unused(int value) {
  int acc = value;
  for (int i = 0; i < 64; i++) acc = acc * 17 + i;
  return acc;
}

NOINLINE int config_validate(int value) { return value % 97 + parse_line(value); }

NOINLINE int config_load(int seed) { return config_validate(parse_line(seed)); }
