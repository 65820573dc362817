/* A program whose arming outlasts a short --time-limit: 4,000 functions, each on its own
 * page, so that planting their traps writes (and copies) 4,000 pages of code. main makes
 * its first calls at once, then runs 100 ms before its last one. */
#include <stdio.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
/* Never called: only armed. Not static, so that the link keeps them. */
#define F(n)                                                                                                          \
  __attribute__((noinline, aligned(4096))) unsigned page##n(unsigned x) { return x * (2u * n + 1u) + n; }
#define F10(p) F(p##0) F(p##1) F(p##2) F(p##3) F(p##4) F(p##5) F(p##6) F(p##7) F(p##8) F(p##9)
#define F100(p) F10(p##0) F10(p##1) F10(p##2) F10(p##3) F10(p##4) F10(p##5) F10(p##6) F10(p##7) F10(p##8) F10(p##9)
#define F1000(p)                                                                                                      \
  F100(p##0) F100(p##1) F100(p##2) F100(p##3) F100(p##4) F100(p##5) F100(p##6) F100(p##7) F100(p##8) F100(p##9)
F1000(1) F1000(2) F1000(3) F1000(4)

/* Each writes memory, so that the compiler keeps the calls where main makes them (it
 * moves calls of functions it can see have no effect, past the loop). */
static volatile unsigned seen;
NOINLINE unsigned early_a(unsigned x) { return seen = x + 1u; }
NOINLINE unsigned early_b(unsigned x) { return seen = x * 3u; }
NOINLINE unsigned late(unsigned x) { return seen = x ^ 5u; }

int main(void) {
  unsigned x = early_b(early_a(1u));
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < 100000000L);
  printf("arming %u\n", late(x));
  return 0;
}
