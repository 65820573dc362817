/*
 * own_fault.c - a program with its own SIGSEGV handler, which it needs: it reads a page it
 * made PROT_NONE and jumps back from the handler. Under `record --data` the recorder's
 * faults on the program's read-only data must stay the recorder's, and this one the
 * program's. Prints a string from .rodata either way.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static const char message[] = "read from .rodata";
static sigjmp_buf back;

static void on_fault(int number) {
  (void)number;
  siglongjmp(back, 1);
}

int main(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_fault;
  sigaction(SIGSEGV, &action, NULL);
  volatile char *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int caught = 0;
  if (sigsetjmp(back, 1) == 0) {
    (void)page[0];
  } else {
    caught = 1;
  }
  printf("%s, own fault %s\n", message, caught ? "caught" : "missed");
  return caught ? 0 : 1;
}
