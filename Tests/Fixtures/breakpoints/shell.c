/* Runs a shell command with system(), as many programs do at launch: the shell is a
 * stripped system program the recorder follows but must not warn about. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

NOINLINE int after_shell(int x) { return x + 1; }

int main(void) {
  int status = system("true");
  printf("shell %d %d\n", status, after_shell(1));
  return 0;
}
