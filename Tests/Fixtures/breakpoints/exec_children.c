/* The first process forks four children that each exec the program at once, and exits
 * without waiting: their exec events are still on their way when the recorder lets go. Each
 * child's new image runs 100 ms, then appends "child ok <n>" to the file argv[1]. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) int child_work(int x) { return x * 3; }

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  if (argc > 2 && strcmp(argv[2], "child") == 0) {
    struct timespec pause = {.tv_sec = 0, .tv_nsec = 100000000};
    nanosleep(&pause, NULL);
    char line[32];
    int length = snprintf(line, sizeof line, "child ok %d\n", child_work(3));
    /* One write with O_APPEND: the four children's lines never mix. */
    int file = open(argv[1], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (file < 0 || write(file, line, (size_t)length) != length) return 1;
    close(file);
    return 0;
  }
  for (int i = 0; i < 4; i++) {
    if (fork() == 0) {
      execl("/proc/self/exe", argv[0], argv[1], "child", (char *)NULL);
      _exit(127);
    }
  }
  return 0;
}
