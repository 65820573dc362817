/* An uninstrumented host: loads each plugin given as "PATH SYMBOL" with RTLD_LOCAL, as Python,
 * a JVM or a plugin loader does, and calls SYMBOL(int). Prints the sum of the results. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int total = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    void *handle = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
      fprintf(stderr, "%s\n", dlerror());
      return 1;
    }
    int (*entry)(int) = (int (*)(int))dlsym(handle, argv[i + 1]);
    if (entry == NULL) {
      fprintf(stderr, "%s\n", dlerror());
      return 1;
    }
    total += entry(i);
  }
  printf("total %d\n", total);
  return 0;
}
