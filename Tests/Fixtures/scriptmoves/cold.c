/* cold.c - code the launch never runs, with literals of its own (see launch.c). */
#include <stdio.h>

void cold_report(int value) {
  printf("cold literal one: %d\n", value);
  printf("cold literal two: %d\n", value * 2);
}
