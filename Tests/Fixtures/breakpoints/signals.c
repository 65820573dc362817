/* Handles signals while it makes first calls: SIGUSR1 raised 50 times, a 1 ms SIGALRM
 * timer, SIGUSR2 from a forked child, and that child stopping itself until the parent
 * continues it. Prints what it saw, the same with or without a recorder. */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define F(n) NOINLINE long g##n(long x) { return x * 5 + n; }
#define F8(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7)
F8(1) F8(2) F8(3) F8(4) F8(5) F8(6) F8(7) F8(8)
#define R(n) g##n,
#define R8(n) R(n##0) R(n##1) R(n##2) R(n##3) R(n##4) R(n##5) R(n##6) R(n##7)
static long (*const functions[64])(long) = {R8(1) R8(2) R8(3) R8(4) R8(5) R8(6) R8(7) R8(8)};

static volatile sig_atomic_t usr1, usr2, alarms;

NOINLINE static void on_usr1(int signal) { usr1 += signal == SIGUSR1; }
NOINLINE static void on_usr2(int signal) { usr2 += signal == SIGUSR2; }
NOINLINE static void on_alarm(int signal) { alarms += signal == SIGALRM; }

static void handle(int signal, void (*handler)(int)) {
  struct sigaction action = {0};
  action.sa_handler = handler;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(signal, &action, NULL);
}

int main(void) {
  handle(SIGUSR1, on_usr1);
  handle(SIGUSR2, on_usr2);
  handle(SIGALRM, on_alarm);
  struct itimerval every = {{0, 1000}, {0, 1000}};
  setitimer(ITIMER_REAL, &every, NULL);
  long sum = 0;
  for (int i = 0; i < 64; i++) {
    if (i < 50) raise(SIGUSR1);
    sum += functions[i](i);
    for (volatile int spin = 0; spin < 200000; spin++) {
    }
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  pid_t child = fork();
  if (child == 0) {
    kill(getppid(), SIGUSR2);
    raise(SIGSTOP);
    _exit(3);
  }
  int status = 0;
  waitpid(child, &status, WUNTRACED);
  int stopped = WIFSTOPPED(status);
  kill(child, SIGCONT);
  waitpid(child, &status, 0);
  printf("signals sum=%ld usr1=%d usr2=%d alarms=%s stopped=%d child=%d\n", sum, (int)usr1, (int)usr2,
         alarms > 0 ? "yes" : "no", stopped, WEXITSTATUS(status));
  return 0;
}
