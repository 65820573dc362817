/* A launch that runs a function the final binary has no symbol for: the test strips the
 * symbol of `hidden` from the object, as Swift never gives its `.text..L` functions one. */
#include <stdio.h>

__attribute__((noinline)) static int hidden(int x) { return x * 31 + 7; }

__attribute__((noinline)) int before(int x) { return x + 1; }

int (*volatile table)(int) = hidden;

int main(int argc, char **argv) {
  (void)argv;
  printf("%d\n", before(argc) + table(argc));
  return 0;
}
