/* A launch with a warm-up thread: the main thread calls main_00 … main_19, the worker
 * warm_0 … warm_3. The worker makes its calls once the main thread has made WARM_AFTER
 * of its own (default 4), and the main thread waits for them: the interleaving of the two
 * threads is set from outside, as the timing of a loaded or an idle machine would set it,
 * while each thread's own order stays the program's. Prints what the calls computed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define MAIN_CALLS 20

static unsigned main_done; /* main-thread calls made so far */
static unsigned warm_done; /* 1 once the worker made its calls */

#define M(n)                                                                                                          \
  NOINLINE static unsigned main_##n(unsigned x) { return x * 31u + 1##n; }
M(00) M(01) M(02) M(03) M(04) M(05) M(06) M(07) M(08) M(09)
M(10) M(11) M(12) M(13) M(14) M(15) M(16) M(17) M(18) M(19)
static unsigned (*const main_calls[MAIN_CALLS])(unsigned) = {
    main_00, main_01, main_02, main_03, main_04, main_05, main_06, main_07, main_08, main_09,
    main_10, main_11, main_12, main_13, main_14, main_15, main_16, main_17, main_18, main_19};

NOINLINE static unsigned warm_0(unsigned x) { return x * 7u + 1u; }
NOINLINE static unsigned warm_1(unsigned x) { return x * 11u + 2u; }
NOINLINE static unsigned warm_2(unsigned x) { return x * 13u + 3u; }
NOINLINE static unsigned warm_3(unsigned x) { return x * 17u + 4u; }

static unsigned after;

static void *worker(void *argument) {
  unsigned *result = argument;
  while (__atomic_load_n(&main_done, __ATOMIC_ACQUIRE) < after) {
  }
  *result = warm_3(warm_2(warm_1(warm_0(*result))));
  __atomic_store_n(&warm_done, 1u, __ATOMIC_RELEASE);
  return NULL;
}

int main(void) {
  const char *setting = getenv("WARM_AFTER");
  after = setting ? (unsigned)atoi(setting) : 4u;
  if (after > MAIN_CALLS) after = MAIN_CALLS;
  unsigned warm = 5u;
  pthread_t thread;
  if (pthread_create(&thread, NULL, worker, &warm) != 0) return 1;
  unsigned x = 3u;
  for (unsigned call = 0; call < MAIN_CALLS; call++) {
    if (call == after) {
      while (!__atomic_load_n(&warm_done, __ATOMIC_ACQUIRE)) {
      }
    }
    x = main_calls[call](x);
    __atomic_store_n(&main_done, call + 1u, __ATOMIC_RELEASE);
  }
  pthread_join(thread, NULL);
  printf("warmup %u %u\n", x, warm);
  return 0;
}
