// A C++ static initializer in the app's library: _GLOBAL__sub_I_applib_static.cpp runs
// Registry's constructor before main.
#include <stdlib.h>

struct Registry {
  Registry();
  int value;
};

__attribute__((noinline)) Registry::Registry() : value(getenv("APP_SEEDED") ? 3 : 4) {}

static Registry registry;

extern "C" int applib_registry(void) { return registry.value; }
