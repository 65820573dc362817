/* fork, then exec: first_image and child_only run in the first image (child_only in
 * the forked child), then the process re-executes itself and runs second_image. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

NOINLINE int first_image(int x) { return x + 1; }
NOINLINE int child_only(int x) { return x * 2; }
NOINLINE int parent_after_fork(int x) { return x + 3; }
NOINLINE int second_image(int x) { return x + 4; }

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "again") == 0) {
    printf("second image %d\n", second_image(1));
    return 0;
  }
  int x = first_image(1);
  pid_t child = fork();
  if (child == 0) _exit(child_only(x));
  int status = 0;
  waitpid(child, &status, 0);
  printf("child said %d, parent %d\n", WEXITSTATUS(status), parent_after_fork(x));
  fflush(stdout);
  execl("/proc/self/exe", argv[0], "again", (char *)NULL);
  return 1;
}
