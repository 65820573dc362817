/* 1,000 functions, each on a page of its own, all called from main: arming them writes
 * their pages back in runs of many pages at once. Built with another -DSEED, every function
 * computes another value on the same layout, so that pages of one build written into the
 * other's memory change what it prints. */
#include <stdio.h>

#include "numbered.h"

#ifndef SEED
#define SEED 1u
#endif

#define DEFINE(n)                                                                                                     \
  __attribute__((noinline, aligned(4096))) unsigned page##n(unsigned x) { return x * (2u * n + 1u) + n * SEED; }
#define ENTRY(n) page##n,

L1000(DEFINE, 1)
static unsigned (*const pages[])(unsigned) = {L1000(ENTRY, 1)};

int main(void) {
  unsigned sum = 0;
  for (unsigned i = 0; i < sizeof pages / sizeof pages[0]; i++) sum += pages[i](i);
  printf("pages %u\n", sum);
  return 0;
}
