/* An app whose code is in a library of its own (applib.c), which it links, then loads a
 * plugin (plugin.c, argv[1]) with dlopen. With "children" as argv[2] it first runs
 * /bin/true and a system program (env, which execs true) in children of its own, as an
 * app starts helpers, and a child that runs the app's own code (child_work). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

int applib_run(int x);

NOINLINE int app_after(int x) { return x + 1; }
NOINLINE int child_work(int x) { return x * 2; }

/* fork and exec `program`; its exit status. */
static int run(char *const argv[]) {
  pid_t child = fork();
  if (child == 0) {
    execv(argv[0], argv);
    _exit(127);
  }
  int status = 0;
  return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  int x = applib_run(0);
  if (argc > 2 && strcmp(argv[2], "children") == 0) {
    char *const truth[] = {"/bin/true", NULL};
    char *const env[] = {"/usr/bin/env", "true", NULL};
    pid_t worker = fork();
    if (worker == 0) _exit(child_work(x) == 2 * x ? 0 : 1);
    int status = 0;
    waitpid(worker, &status, 0);
    x += run(truth) + run(env) + (WIFEXITED(status) ? WEXITSTATUS(status) : 9);
  }
  void *plugin = dlopen(argv[1], RTLD_NOW);
  if (!plugin) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  int (*entry)(int) = (int (*)(int))dlsym(plugin, "plugin_entry");
  printf("app %d\n", app_after(entry(x)));
  return 0;
}
