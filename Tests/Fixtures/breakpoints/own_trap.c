/* Installs its own SIGTRAP handler, as a crash reporter or a language runtime does, then
 * raises SIGTRAP twice: with raise() and with a trap instruction of its own. Prints how
 * many its handler saw: "own_trap 2". */
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t seen;

__attribute__((noinline)) static void on_trap(int number) {
  (void)number;
  seen++;
}

__attribute__((noinline)) void trap_here(void) {
  /* int3 on x86-64, brk on arm64: the handler returns past it. */
  __builtin_debugtrap();
}

int main(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_trap;
  sigaction(SIGTRAP, &action, NULL);
  raise(SIGTRAP);
  trap_here();
  struct sigaction current;
  sigaction(SIGTRAP, NULL, &current);
  printf("own_trap %d %s\n", (int)seen, current.sa_handler == on_trap ? "handler-kept" : "handler-lost");
  return seen == 2 ? 0 : 1;
}
