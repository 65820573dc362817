/*
 * launch.c - the launch half of a program whose .rodata the linker makes writable, as Swift's
 * objects do (a writable input named .rodata: Swift's protocol conformance descriptors). Its
 * launch prints literals of this object only; cold.c's literals it never reads.
 */
#include <stdio.h>

/* Writable, in a section named .rodata: what makes lld's output .rodata writable. */
int rodata_counter[4] __attribute__((section(".rodata"))) = {1, 2, 3, 4};

void cold_report(int);

int main(int argc, char **argv) {
  (void)argv;
  rodata_counter[argc % 4] += 1;
  printf("launch literal: counter %d\n", rodata_counter[argc % 4]);
  if (argc > 5) {
    cold_report(argc);
  }
  return 0;
}
