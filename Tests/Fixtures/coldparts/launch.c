/* A launch that runs the cold parts a compiler splits off: every `parse_N` has a branch
 * marked unlikely, which gcc -O2 moves to `parse_N.cold` in `.text.unlikely.parse_N`, and
 * which this launch takes (argc is 1). clang's -fsplit-machine-functions splits it off as
 * well, from a profile of a run with TRAIN set, which skips it. Between the units,
 * `unused_N` is code the launch never runs, so that each unit's pieces sit a page or more
 * apart in the default layout. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((cold, noinline)) void note(const char *what, int value) {
  if (value == -12345) fprintf(stderr, "%s\n", what);
}

#define STEP(k) a = (a * (2 * k + 3)) ^ (a >> (k % 13 + 1)); if (a % (k + 7) == k % 5) a += k;
#define STEPS10(k) STEP(k##0) STEP(k##1) STEP(k##2) STEP(k##3) STEP(k##4) STEP(k##5) STEP(k##6) STEP(k##7) STEP(k##8) STEP(k##9)

#define UNIT(n)                                                                    \
  __attribute__((noinline)) int parse_##n(int x) {                                 \
    if (__builtin_expect(x > 0, 0)) {                                              \
      int s = x;                                                                   \
      for (int i = 0; i < x * (n + 3); i++) s += i ^ (s >> 2) ^ n;                 \
      note("parse_" #n, s);                                                        \
      return s;                                                                    \
    }                                                                              \
    return x + n;                                                                  \
  }                                                                                \
  __attribute__((noinline)) int unused_##n(int x) {                                \
    int a = x + n;                                                                 \
    STEPS10(1) STEPS10(2) STEPS10(3) STEPS10(4) STEPS10(5) STEPS10(6) STEPS10(7)   \
    STEPS10(8) STEPS10(9)                                                          \
    return a;                                                                      \
  }

UNIT(0) UNIT(1) UNIT(2) UNIT(3) UNIT(4) UNIT(5) UNIT(6) UNIT(7)
UNIT(8) UNIT(9) UNIT(10) UNIT(11) UNIT(12) UNIT(13) UNIT(14) UNIT(15)

int main(int argc, char **argv) {
  (void)argv;
  int (*const parsers[])(int) = {parse_0, parse_1, parse_2, parse_3, parse_4, parse_5, parse_6, parse_7,
                                 parse_8, parse_9, parse_10, parse_11, parse_12, parse_13, parse_14, parse_15};
  int (*const unused[])(int) = {unused_0, unused_1, unused_2, unused_3, unused_4, unused_5, unused_6, unused_7,
                                unused_8, unused_9, unused_10, unused_11, unused_12, unused_13, unused_14, unused_15};
  long total = 0;
  int x = getenv("TRAIN") ? 0 : argc;
  for (int i = 0; i < 16; i++) total += parsers[i](x);
  if (argc > 5)
    for (int i = 0; i < 16; i++) total += unused[i](argc);
  printf("%ld\n", total);
  return 0;
}
