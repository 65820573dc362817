/* An executable whose static initializer makes 5 first calls, loads libworkplugin2.so
 * (1,000 functions to arm), then runs for 40 ms, after its library's did the same for
 * 20 ms (work_lib.c); main then makes 200 more first calls and runs for 100 ms. Under the tracer each first call stops the program; on the program's
 * clock each part takes as long as it does alone. */
#include <stdio.h>

#include "calls.h"

CALLS(main_)
CALLS(a_) CALLS(b_)

long work_lib_value(void);
static long work_main_sum;

__attribute__((constructor)) static void work_main_init(void) {
  work_main_sum = call_all_main_(5) + load_plugin("libworkplugin2.so");
  spin(40);
}

int main(void) {
  long more = call_all_a_(100) + call_all_b_(100);
  spin(100);
  printf("work %ld %ld %ld\n", work_lib_value(), work_main_sum, more);
  return 0;
}
