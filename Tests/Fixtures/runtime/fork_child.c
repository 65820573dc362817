/*
 * fork_child.c - a program that forks after some first calls.
 *
 * Calls before_fork, forks; the child calls child_only and exits with
 * exit(0) (or _exit(0) when the first argument is "_exit"); the parent
 * waits for it, calls parent_only and exits. The parent prints
 * "child <pid>" and the functions' addresses.
 *
 * Before the runtime starts, a constructor registers fork handlers whose
 * instrumented functions are first called during the fork itself, while
 * the runtime holds its own fork handlers' state: they must not deadlock.
 */
#include "fixture_support.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned sink;

__attribute__((noinline)) static void before_fork(void) { sink += 1; }
__attribute__((noinline)) static void child_only(void) { sink += 2; }
__attribute__((noinline)) static void parent_only(void) { sink += 3; }

__attribute__((noinline)) static void at_prepare(void) { sink += 4; }
__attribute__((noinline)) static void at_parent(void) { sink += 5; }
__attribute__((noinline)) static void at_child(void) { sink += 6; }

__attribute__((constructor, no_instrument_function)) static void register_fork_handlers(void) {
  pthread_atfork(at_prepare, at_parent, at_child);
}

int main(int argc, char **argv) {
  before_fork();
  fflush(stdout);
  pid_t child = fork();
  if (child < 0) {
    perror("fork");
    return 1;
  }
  if (child == 0) {
    child_only();
    if (argc > 1 && strcmp(argv[1], "_exit") == 0) {
      _exit(0);
    }
    exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  parent_only();
  printf("child %d\n", (int)child);
  fixture_print("before", (const void *)before_fork);
  fixture_print("child", (const void *)child_only);
  fixture_print("parent", (const void *)parent_only);
  fixture_print("main", (const void *)main);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
