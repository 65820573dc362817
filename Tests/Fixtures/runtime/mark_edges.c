/*
 * mark_edges.c - orderfile_mark() at its edges: NULL, a name longer than 40
 * bytes (cut, never inside a UTF-8 sequence), a mark from a second thread,
 * and more marks than ORDERFILE_MARKS allows (run with ORDERFILE_MARKS=4).
 *
 * Calls, in order: NULL (ignored); a 49-byte name (cut to its first 40
 * bytes); 39 ASCII bytes and a 2-byte character (cut to the 39 bytes);
 * "from thread" (a second thread); "fifth"; "dropped" (the fifth mark kept
 * would be the fifth slot: over capacity, only counted).
 */
#include <pthread.h>

#include "orderfile.h"

static void *set_mark(void *argument) __attribute__((no_instrument_function));
static void *set_mark(void *argument) {
  (void)argument;
  orderfile_mark("from thread");
  return NULL;
}

static volatile int sink;

__attribute__((noinline)) void work(void) { sink += 1; }

int main(void) {
  work();
  orderfile_mark(NULL);
  orderfile_mark("0123456789012345678901234567890123456789-cut-here");
  /* 39 ASCII bytes, then a 2-byte character that does not fit: cut to 39 bytes. */
  orderfile_mark("012345678901234567890123456789012345678\xc3\xa9");
  pthread_t thread;
  if (pthread_create(&thread, NULL, set_mark, NULL) != 0 || pthread_join(thread, NULL) != 0) {
    return 1;
  }
  orderfile_mark("fifth");
  orderfile_mark("dropped");
  return 0;
}
