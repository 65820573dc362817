/* Eight threads wait at a barrier, then all call the same 64 functions first:
 * several threads reach one entry before its breakpoint is gone. */
#include <pthread.h>
#include <stdio.h>

#define THREADS 8
#define NOINLINE __attribute__((noinline))
#define F(n) NOINLINE unsigned f##n(unsigned x) { return x * (n + 3u) + n; }
#define F8(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7)
F8(1) F8(2) F8(3) F8(4) F8(5) F8(6) F8(7) F8(8)
#define C(n) x = f##n(x);
#define C8(n) C(n##0) C(n##1) C(n##2) C(n##3) C(n##4) C(n##5) C(n##6) C(n##7)

static pthread_barrier_t barrier;

NOINLINE static unsigned all(unsigned x) {
  C8(1) C8(2) C8(3) C8(4) C8(5) C8(6) C8(7) C8(8)
  return x;
}

static void *worker(void *argument) {
  pthread_barrier_wait(&barrier);
  unsigned *result = argument;
  *result = all(*result);
  return NULL;
}

int main(void) {
  pthread_t threads[THREADS];
  unsigned results[THREADS];
  pthread_barrier_init(&barrier, NULL, THREADS);
  for (int i = 0; i < THREADS; i++) {
    results[i] = 1;
    pthread_create(&threads[i], NULL, worker, &results[i]);
  }
  unsigned total = 0;
  for (int i = 0; i < THREADS; i++) {
    pthread_join(threads[i], NULL);
    total += results[i];
  }
  printf("race %u\n", total);
  return 0;
}
