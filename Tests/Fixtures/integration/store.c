#include "app.h"

NOINLINE int store_repair_unused(int value) {
  int acc = 1;
  for (int i = 0; i < value; i++) acc = acc * 7 + i;
  return acc;
}

/* A static function with the same name as one in ui.c. */
NOINLINE static int checksum(int value) { return (value * 2654435761u) >> 7; }

NOINLINE int store_compact_after_launch(int value) { return checksum(value) + 11; }

NOINLINE int store_index(int value) { return checksum(value) ^ 0x55; }

NOINLINE int store_open(int value) { return store_index(value + 1); }
