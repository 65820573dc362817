/* A library of 1,000 functions that the initializers of work_lib.c and work_main.c load
 * with dlopen (built twice, as libworkplugin.so and libworkplugin2.so): arming it is the
 * tracer's work (its loader hook), inside that initializer's run. */
#include "calls.h"

CALLS(p0_) CALLS(p1_) CALLS(p2_) CALLS(p3_) CALLS(p4_) CALLS(p5_) CALLS(p6_) CALLS(p7_) CALLS(p8_) CALLS(p9_)

long work_plugin_value(void) { return call_all_p0_(1); }
