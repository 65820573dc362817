/* The executable: functions of its own, and calls into its library. */
#include <stdio.h>
#include "widgets.h"

__attribute__((noinline)) int app_first(int x) { return widget_a(x) + widget_d(x); }
__attribute__((noinline)) int app_second(int x) { return widget_b(x) * widget_c(x); }

int main(int argc, char **argv) {
  (void)argv;
  printf("%d\n", app_first(argc) + app_second(argc));
  return 0;
}
