// Every kind of static initializer the loader runs before main. Each one prints its name when
// it runs, so a test can compare the order read from the binary with the order that happened.
#include <cstdio>

extern "C" __attribute__((constructor(200))) void late_constructor() { std::puts("late_constructor"); }
extern "C" __attribute__((constructor(101))) void early_constructor() { std::puts("early_constructor"); }

namespace {
struct Global {
  Global() { std::puts("global_object"); }
};
Global global;
}  // namespace

#ifndef LIBRARY
int main() {
  std::puts("main");
  return 0;
}
#endif
