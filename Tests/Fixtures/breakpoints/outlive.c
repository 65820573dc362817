/* The first process exits while a forked child runs on with threads that are still
 * reaching first calls: the child must outlive the recording unharmed. The child's four
 * threads each call 128 functions, one every 1 ms, so breakpoints are still being hit
 * when the recorder lets go; it then writes "child ok <sum>" to argv[1].
 * With "vfork" as argv[2], a fifth thread sits in vfork() for 200 ms (its vfork child
 * sleeps, then exits): a thread that cannot stop at once when the recorder lets go. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define F(n) NOINLINE long f##n(long x) { return x * 3 + n; }
#define F8(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7)
F8(1) F8(2) F8(3) F8(4) F8(5) F8(6) F8(7) F8(8) F8(9) F8(10) F8(11) F8(12) F8(13) F8(14) F8(15) F8(16)
#define R(n) f##n,
#define R8(n) R(n##0) R(n##1) R(n##2) R(n##3) R(n##4) R(n##5) R(n##6) R(n##7)
static long (*const functions[128])(long) = {R8(1) R8(2) R8(3) R8(4) R8(5) R8(6) R8(7) R8(8) R8(9) R8(10) R8(11)
                                                 R8(12) R8(13) R8(14) R8(15) R8(16)};

static void *worker(void *argument) {
  long sum = 0, start = (long)argument;
  for (int i = 0; i < 128; i++) {
    sum += functions[(start + i) % 128](i);
    usleep(1000);
  }
  return (void *)sum;
}

static void *vforker(void *argument) {
  if (vfork() == 0) {
    struct timespec pause = {.tv_sec = 0, .tv_nsec = 200000000};
    nanosleep(&pause, NULL);
    _exit(0);
  }
  return argument;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  if (fork() == 0) {
    pthread_t threads[5];
    int count = argc > 2 && strcmp(argv[2], "vfork") == 0 ? 5 : 4;
    for (long i = 0; i < 4; i++) pthread_create(&threads[i], NULL, worker, (void *)(i * 32));
    if (count == 5) pthread_create(&threads[4], NULL, vforker, NULL);
    long total = 0;
    for (int i = 0; i < count; i++) {
      void *sum;
      pthread_join(threads[i], &sum);
      total += (long)sum;
    }
    FILE *file = fopen(argv[1], "w");
    if (!file) _exit(1);
    fprintf(file, "child ok %ld\n", total);
    fclose(file);
    _exit(0);
  }
  usleep(20000);
  return 0;
}
