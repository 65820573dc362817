/* Classifies each argument as orderfile_system_paths.h does, one line each:
 * "library PATH", "program PATH" or "other PATH". */
#include <stdio.h>

#include "orderfile_system_paths.h"

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *kind = of_is_system_library(argv[i]) ? "library" : of_is_system_program(argv[i]) ? "program" : "other";
    printf("%s %s\n", kind, argv[i]);
  }
  return 0;
}
