/* Eight threads call the same 1,000 functions first, one function a round: the last
 * thread to reach a round releases it, and the threads spinning on the other cores leave
 * at the same instant, so several threads reach one entry while its trap is still there.
 * Each function counts its own calls; the program prints whether every function ran once
 * per thread, and what the threads computed. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define THREADS 8
#define FUNCTIONS 1000
#define FIRST 1000 /* f1000 … f1999: decimal names, no leading zero */
#define NOINLINE __attribute__((noinline))

static unsigned ran[FUNCTIONS];

#define F(n)                                                                                                          \
  NOINLINE static unsigned f##n(unsigned x) {                                                                         \
    __atomic_fetch_add(&ran[n - FIRST], 1u, __ATOMIC_RELAXED);                                                        \
    return x * (2u * n + 1u) + n;                                                                                          \
  }
#define F10(p) F(p##0) F(p##1) F(p##2) F(p##3) F(p##4) F(p##5) F(p##6) F(p##7) F(p##8) F(p##9)
#define F100(p) F10(p##0) F10(p##1) F10(p##2) F10(p##3) F10(p##4) F10(p##5) F10(p##6) F10(p##7) F10(p##8) F10(p##9)
F100(10) F100(11) F100(12) F100(13) F100(14) F100(15) F100(16) F100(17) F100(18) F100(19)

#define T(n) f##n,
#define T10(p) T(p##0) T(p##1) T(p##2) T(p##3) T(p##4) T(p##5) T(p##6) T(p##7) T(p##8) T(p##9)
#define T100(p) T10(p##0) T10(p##1) T10(p##2) T10(p##3) T10(p##4) T10(p##5) T10(p##6) T10(p##7) T10(p##8) T10(p##9)
static unsigned (*const functions[FUNCTIONS])(unsigned) = {
    T100(10) T100(11) T100(12) T100(13) T100(14) T100(15) T100(16) T100(17) T100(18) T100(19)};

static unsigned arrived;
static unsigned released; /* rounds released so far */

static void *worker(void *argument) {
  unsigned *result = argument;
  unsigned x = *result;
  for (unsigned round = 0; round < FUNCTIONS; round++) {
    if (__atomic_add_fetch(&arrived, 1u, __ATOMIC_ACQ_REL) == (round + 1u) * THREADS) {
      __atomic_store_n(&released, round + 1u, __ATOMIC_RELEASE);
    } else {
      /* Spin first, so that a thread running when the round is released leaves at once;
       * then yield, so that the threads still to arrive get a core. */
      for (unsigned spins = 0; __atomic_load_n(&released, __ATOMIC_ACQUIRE) <= round; spins++) {
        if (spins >= 20000u) {
          sched_yield();
        }
      }
    }
    x = functions[round](x);
  }
  *result = x;
  return NULL;
}

int main(void) {
  pthread_t threads[THREADS];
  unsigned results[THREADS];
  for (int i = 0; i < THREADS; i++) {
    results[i] = (unsigned)i + 1u;
    pthread_create(&threads[i], NULL, worker, &results[i]);
  }
  for (int i = 0; i < THREADS; i++) {
    pthread_join(threads[i], NULL);
  }
  unsigned wrong = 0;
  for (int i = 0; i < FUNCTIONS; i++) {
    if (ran[i] != THREADS) {
      printf("f%d ran %u times\n", FIRST + i, ran[i]);
      wrong++;
    }
  }
  printf("race %u functions ran %d times each", FUNCTIONS - wrong, THREADS);
  for (int i = 0; i < THREADS; i++) {
    printf(" %u", results[i]);
  }
  printf("\n");
  return 0;
}
