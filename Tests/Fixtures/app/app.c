/*
 * An app: its own constructor runs for 2 ms after its library's, main builds its window in
 * the library and runs for 10 ms, then the launch ends at app_launch_done (what --until
 * names). Then it idles for 300 ms, as an app waits for input, and calls two functions more
 * before it exits: records after the launch window, and a long time after it.
 */
#include <stdio.h>
#include <time.h>

#include "../premain/calls.h" /* spin */

#define NOINLINE __attribute__((noinline))

long appcore_window_new(void);
long appcore_window_show(long window);

static long app_state;

__attribute__((constructor)) static void app_early_init(void) {
  app_state = 1;
  spin(2);
}

NOINLINE long app_launch_done(long window) { return window + app_state; }
NOINLINE long app_on_idle(long value) { return value * 5; }
NOINLINE long app_on_quit(long value) { return value - 1; }

int main(void) {
  long window = appcore_window_show(appcore_window_new());
  spin(10);
  long shown = app_launch_done(window);
  struct timespec idle = {0, 300 * 1000000L};
  while (nanosleep(&idle, &idle) != 0) {
  }
  printf("app %ld\n", app_on_quit(app_on_idle(shown)));
  return 0;
}
