/* The first process exits while its forked child is busy starting threads: four threads of
 * the child each start 16 more, back to back, so that first stops of new threads and their
 * creators' clone events are on their way when the recorder lets go. The first process
 * exits once the child has started (a pipe tells it). The child then writes
 * "child ok <sum>" to argv[1]. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define F(n) NOINLINE long f##n(long x) { return x * 3 + n; }
#define F8(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7)
F8(1) F8(2) F8(3) F8(4) F8(5) F8(6) F8(7) F8(8)
#define R(n) f##n,
#define R8(n) R(n##0) R(n##1) R(n##2) R(n##3) R(n##4) R(n##5) R(n##6) R(n##7)
static long (*const functions[64])(long) = {R8(1) R8(2) R8(3) R8(4) R8(5) R8(6) R8(7) R8(8)};

static void *worker(void *argument) {
  long start = (long)argument;
  return (void *)functions[start % 64](start);
}

static void *spawner(void *argument) {
  long sum = 0, first = (long)argument * 16;
  pthread_t threads[16];
  for (long i = 0; i < 16; i++) pthread_create(&threads[i], NULL, worker, (void *)(first + i));
  for (int i = 0; i < 16; i++) {
    void *result;
    pthread_join(threads[i], &result);
    sum += (long)result;
  }
  return (void *)sum;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  int started[2];
  if (pipe(started) != 0) return 1;
  if (fork() == 0) {
    pthread_t spawners[4];
    for (long i = 0; i < 4; i++) pthread_create(&spawners[i], NULL, spawner, (void *)i);
    if (write(started[1], "s", 1) != 1) _exit(1);
    long total = 0;
    for (int i = 0; i < 4; i++) {
      void *sum;
      pthread_join(spawners[i], &sum);
      total += (long)sum;
    }
    FILE *file = fopen(argv[1], "w");
    if (!file) _exit(1);
    fprintf(file, "child ok %ld\n", total);
    fclose(file);
    _exit(0);
  }
  char byte;
  return read(started[0], &byte, 1) == 1 ? 0 : 1;
}
