/* Every signal blocked in every thread before any of them runs program code,
 * as allocators and language runtimes do in their threads. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

NOINLINE int in_thread(int x) { return x * 5; }
NOINLINE int in_main(int x) { return x + 9; }

static void *worker(void *argument) { return (void *)(long)in_thread((int)(long)argument); }

int main(void) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  pthread_t thread;
  pthread_create(&thread, NULL, worker, (void *)3L);
  void *result;
  pthread_join(thread, &result);
  printf("blocked %d %ld\n", in_main(1), (long)result);
  return 0;
}
