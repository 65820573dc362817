/*
 * racing_threads.c - many threads racing through the first calls of the
 * same 1200 functions.
 *
 * Usage: racing_threads [threads] [join|kill|exit]   (default: 8 join)
 *
 * Prints "fn <address>" (module-relative) for each of the 1200 functions
 * first, so a test can check that each was recorded exactly once. Then
 * every thread waits at a barrier and calls all the functions, each thread
 * starting at a different offset, so several threads hit most first calls
 * at the same moment. The main thread then either joins them (join), or,
 * once about half the calls are done and the threads are still running,
 * raises SIGKILL on the process (kill) or calls exit(0) (exit).
 */
#include "fixture_support.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned (*function_t)(unsigned);

#define F(n) __attribute__((noinline)) unsigned fn_##n(unsigned x) { return x * 31u + n##u; }
#define T(p) F(p##0) F(p##1) F(p##2) F(p##3) F(p##4) F(p##5) F(p##6) F(p##7) F(p##8) F(p##9)
#define H(p) T(p##0) T(p##1) T(p##2) T(p##3) T(p##4) T(p##5) T(p##6) T(p##7) T(p##8) T(p##9)
H(1) H(2) H(3) H(4) H(5) H(6) H(7) H(8) H(9) H(10) H(11) H(12)
#undef F
#define F(n) fn_##n,
static function_t functions[] = {H(1) H(2) H(3) H(4) H(5) H(6) H(7) H(8) H(9) H(10) H(11) H(12)};
#define COUNT (sizeof functions / sizeof functions[0])

static pthread_barrier_t start_line;
static volatile unsigned sink;
static unsigned calls_done;
static unsigned keep_going; /* kill/exit modes: threads keep calling until the process ends */

static void *worker(void *argument) {
  unsigned offset = (unsigned)(uintptr_t)argument * 151u;
  pthread_barrier_wait(&start_line);
  unsigned value = 0;
  for (unsigned round = 0; round < 3 || __atomic_load_n(&keep_going, __ATOMIC_RELAXED); round++) {
    for (unsigned i = 0; i < COUNT; i++) {
      value += functions[(i + offset) % COUNT](i);
      __atomic_fetch_add(&calls_done, 1u, __ATOMIC_RELAXED);
    }
  }
  sink += value;
  return NULL;
}

int main(int argc, char **argv) {
  unsigned threads = argc > 1 ? (unsigned)atoi(argv[1]) : 8u;
  const char *mode = argc > 2 ? argv[2] : "join";
  if (threads == 0 || threads > 256) {
    fprintf(stderr, "racing_threads: thread count must be 1...256\n");
    return 64;
  }
  for (unsigned i = 0; i < COUNT; i++) {
    fixture_print("fn", (const void *)functions[i]);
  }
  fixture_print("worker", (const void *)worker);
  fixture_print("main", (const void *)main);
  fflush(stdout);

  bool join = strcmp(mode, "join") == 0;
  keep_going = !join;
  pthread_t ids[256];
  pthread_barrier_init(&start_line, NULL, threads + 1u);
  for (unsigned i = 0; i < threads; i++) {
    pthread_create(&ids[i], NULL, worker, (void *)(uintptr_t)i);
  }
  pthread_barrier_wait(&start_line);
  if (join) {
    for (unsigned i = 0; i < threads; i++) {
      pthread_join(ids[i], NULL);
    }
    return 0;
  }
  while (__atomic_load_n(&calls_done, __ATOMIC_RELAXED) < threads * COUNT / 2u) {
  }
  if (strcmp(mode, "kill") == 0) {
    raise(SIGKILL);
  }
  exit(0);
}
