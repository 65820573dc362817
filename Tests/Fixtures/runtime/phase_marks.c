/*
 * phase_marks.c - a launch with known marks and known sleeps between them.
 *
 *   main: before_marks()
 *   mark "a", phase_a_work(), sleep 30 ms
 *   mark "b", a thread runs phase_b_thread() -> phase_b_work(), sleep 50 ms
 *   orderfile_startup_complete(), after_startup()
 *
 * Prints "tid main <pid>" and "tid worker <tid>" so a test can check which
 * thread each first call is attributed to.
 */
#include "fixture_support.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "orderfile.h"

#if defined(__clang__)
#define FIXTURE_KEEP __attribute__((noinline))
#else
#define FIXTURE_KEEP __attribute__((noinline, noclone))
#endif

static void sleep_ms(long milliseconds) FIXTURE_NOINSTR;
static void sleep_ms(long milliseconds) {
  struct timespec delay = {milliseconds / 1000, (milliseconds % 1000) * 1000000L};
  while (nanosleep(&delay, &delay) != 0) {
  }
}

static volatile int sink;
static long worker_tid;

FIXTURE_KEEP void before_marks(void) { sink += 1; }
FIXTURE_KEEP void phase_a_work(void) { sink += 2; }
FIXTURE_KEEP void phase_b_work(void) { sink += 3; }
FIXTURE_KEEP void after_startup(void) { sink += 4; }

FIXTURE_KEEP void *phase_b_thread(void *argument) {
  (void)argument;
  worker_tid = syscall(SYS_gettid);
  phase_b_work();
  return NULL;
}

int main(void) {
  before_marks();
  orderfile_mark("a");
  phase_a_work();
  sleep_ms(30);
  orderfile_mark("b");
  pthread_t thread;
  if (pthread_create(&thread, NULL, phase_b_thread, NULL) != 0 || pthread_join(thread, NULL) != 0) {
    return 1;
  }
  sleep_ms(50);
  orderfile_startup_complete();
  after_startup();
  printf("tid main %ld\ntid worker %ld\n", (long)getpid(), worker_tid);
  return 0;
}
