/* A launcher whose children change directory before they do their own work, as a build
 * tool's compilers and helpers do: CHILDREN forked children each chdir("/"), fork a
 * grandchild there that calls grandchild_work, and call child_work; one more chdirs and
 * re-executes this program ("again"), which calls second_image; a last one runs a system
 * program that runs none of this program's code: the arguments, else /bin/true. The parent waits for them
 * all, calls parent_after and exits with the number of children that failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define CHILDREN 3

static volatile int sink;

NOINLINE int launch_start(int x) { return x + 1; }
NOINLINE int child_work(int x) { return x * 2; }
NOINLINE int grandchild_work(int x) { return x * 3; }
NOINLINE int second_image(int x) { return x + 4; }
NOINLINE int parent_after(int x) { return x + 5; }

/* The child's pid, or -1. The child never returns. */
static pid_t spawn(int kind, const char *self, char **system_program) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  if (chdir("/") != 0) _exit(90);
  if (kind == 0) {
    pid_t grandchild = fork();
    if (grandchild == 0) {
      sink = grandchild_work(sink);
      _exit(0);
    }
    int status = 0;
    if (grandchild < 0 || waitpid(grandchild, &status, 0) != grandchild || status != 0) _exit(93);
    sink = child_work(sink);
    _exit(0);
  }
  if (kind == 1) execl(self, self, "again", (char *)NULL);
  else if (system_program[0] != NULL) execv(system_program[0], system_program);
  else execl("/bin/true", "true", (char *)NULL);
  _exit(91);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "again") == 0) {
    sink = second_image(sink);
    return 0;
  }
  char self[4096];
  ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) return 92;
  self[length] = '\0';
  sink = launch_start(argc);
  pid_t children[CHILDREN + 2];
  for (int i = 0; i < CHILDREN + 2; i++) children[i] = spawn(i < CHILDREN ? 0 : i - CHILDREN + 1, self, argv + 1);
  int failed = 0;
  for (int i = 0; i < CHILDREN + 2; i++) {
    int status = 0;
    if (children[i] < 0 || waitpid(children[i], &status, 0) != children[i] || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
      failed++;
  }
  sink = parent_after(sink);
  printf("children failed: %d\n", failed);
  return failed;
}
