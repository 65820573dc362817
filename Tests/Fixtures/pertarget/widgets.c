/* The shared library of the project: four functions in source order, which its orderfile
   reverses in part. */
#include "widgets.h"

int widget_a(int x) { return x * 3 + 1; }
int widget_b(int x) { return x ^ 0x5a; }
int widget_c(int x) { return x - 7; }
int widget_d(int x) { return x << 2; }
