/* gtkdemo: the executable is tiny; the app is in libgtkdemo.so.0. */
#include <string.h>
#include <unistd.h>

#include "gtkdemo.h"

/* The executable's own code besides main, so that its orderfile (ORDER_EXE) has something to order. */
__attribute__((noinline)) static int wants_version(int argc, char **argv) {
  for (int index = 1; index < argc; index++) {
    if (strcmp(argv[index], "--version") == 0) return 1;
  }
  return 0;
}

__attribute__((noinline)) static int print_version(void) {
  static const char text[] = "gtkdemo 1.0\n";
  return write(1, text, sizeof text - 1) == (long)(sizeof text - 1) ? 0 : 1;
}

int main(int argc, char **argv) {
  if (wants_version(argc, argv)) return print_version();
  return gtkdemo_run(argc, argv);
}
