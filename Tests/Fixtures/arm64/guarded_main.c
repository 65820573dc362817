/* Calls into the guarded library directly (through the PLT: br x17) and through pointers.
 * With the argument "probe" it calls a function of the library that has no landing pad
 * through a pointer, which ends in SIGILL where the library's code is guarded. */
#include <stdio.h>
#include <string.h>

unsigned guarded_entry(unsigned);
unsigned guarded_signed(unsigned);
unsigned guarded_no_pad(unsigned);

static unsigned (*volatile through_pointer)(unsigned) = guarded_signed;
static unsigned (*volatile no_pad)(unsigned) = guarded_no_pad;

__attribute__((noinline)) static unsigned launch(unsigned x) { return guarded_entry(x) + through_pointer(x); }

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "probe") == 0) {
    printf("%u\n", no_pad(1u));
    return 0;
  }
  printf("guarded %u\n", launch((unsigned)argc + 4u));
  return 0;
}
