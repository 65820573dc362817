/* Loads plugin.so with dlopen after start-up; its constructor runs then. With
 * "undumpable" as argv[2] it first makes itself non-dumpable, as programs holding
 * secrets do: a tracer without privileges can then no longer read its memory map. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#define NOINLINE __attribute__((noinline))

NOINLINE int before_load(int x) { return x + 1; }
NOINLINE int after_load(int x) { return x + 2; }

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  int x = before_load(0);
  if (argc > 2 && strcmp(argv[2], "undumpable") == 0 && prctl(PR_SET_DUMPABLE, 0) != 0) return 3;
  void *plugin = dlopen(argv[1], RTLD_NOW);
  if (!plugin) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  int (*entry)(int) = (int (*)(int))dlsym(plugin, "plugin_entry");
  printf("host %d\n", after_load(entry(x)));
  return 0;
}
