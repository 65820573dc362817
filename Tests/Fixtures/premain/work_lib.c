/* A library whose static initializer makes 5 first calls, loads libworkplugin.so (1,000
 * functions to arm) with dlopen and calls into it, then runs for 20 ms. */
#include "calls.h"

CALLS(lib_)

long work_lib_sum;

__attribute__((constructor)) static void work_lib_init(void) {
  work_lib_sum = call_all_lib_(5) + load_plugin("libworkplugin.so");
  spin(20);
}

long work_lib_value(void) { return work_lib_sum; }
