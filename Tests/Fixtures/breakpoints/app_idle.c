/* An app that never exits by itself: its launch starts a helper process and a daemon (forked
 * twice, in a session of its own, as a D-Bus or settings daemon is), calls launch_done(),
 * then idles until a signal ends it. argv[1] is a file it writes its pids to, one a line:
 * the helper's, the daemon's, its own. Built with -DAPP_LIBRARY it is the app's library (all
 * but main), with -DAPP_MAIN the executable that links it (main alone); without either, one
 * program. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

int app_run(int argc, char **argv);

#ifndef APP_MAIN

NOINLINE int configure(int x) { return x * 3 + 1; }
NOINLINE void launch_done(FILE *pids) {
  fprintf(pids, "%d\n", (int)getpid());
  fclose(pids);
  puts("launched");
  fflush(stdout);
}

/* Runs in the children only: nothing after the launch calls it in the app. */
NOINLINE void idle_forever(void) {
  for (;;) pause();
}

int app_run(int argc, char **argv) {
  if (argc < 2) return 64;
  FILE *pids = fopen(argv[1], "w");
  if (!pids) return 66;
  int helper[2];
  if (pipe(helper) != 0) return 71;
  pid_t child = fork();
  if (child == 0) {
    idle_forever();
  }
  fprintf(pids, "%d\n", (int)child);
  pid_t middle = fork();
  if (middle == 0) {
    setsid();
    pid_t daemon = fork();
    if (daemon == 0) {
      close(helper[0]);
      pid_t self = getpid();
      ssize_t written = write(helper[1], &self, sizeof self);
      (void)written;
      close(helper[1]);
      idle_forever();
    }
    _exit(0);
  }
  close(helper[1]);
  pid_t daemon = 0;
  if (read(helper[0], &daemon, sizeof daemon) != (ssize_t)sizeof daemon) return 71;
  fprintf(pids, "%d\n", (int)daemon);
  fflush(pids);
  printf("configured %d\n", configure(argc));
  launch_done(pids);
  for (;;) pause();
}
#endif

#ifndef APP_LIBRARY
int main(int argc, char **argv) { return app_run(argc, argv); }
#endif
