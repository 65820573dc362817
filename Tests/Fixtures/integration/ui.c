#include "app.h"

NOINLINE int ui_settings_unused(int value) {
  int acc = 0;
  for (int i = 0; i < value; i++) acc ^= i * 13;
  return acc;
}

/* Same name as the static function in store.c: an ordering file matches both. */
NOINLINE static int checksum(int value) { return value * 5 + 3; }

NOINLINE int ui_first_frame(int value) { return checksum(value) + 1; }

NOINLINE int ui_layout(int value) { return ui_first_frame(value) * 2; }
