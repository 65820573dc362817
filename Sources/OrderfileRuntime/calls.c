/*
 * calls.c - the frame every public call of orderfile.h runs in, and the
 * bodies of those calls in the copy of the runtime that owns the trace.
 *
 * api.c decides where a public call goes (this copy, or the owner another
 * copy published: shared_instance.c); the owner's entries are the of_local_*
 * functions below, so a call handed over never goes back through api.c.
 */
#define _GNU_SOURCE
#include "orderfile.h"
#include "runtime_internal.h"

/*
 * The frame of every public call of orderfile.h. On a thread that is not
 * already inside the runtime, starts the runtime if no hook has yet, then,
 * if it is recording, runs `body(argument)`: as a writer (OF_CALL_AS_WRITER),
 * so that neither exit nor fork overlaps it, or alone (OF_CALL_ALONE).
 *
 * A call on a thread that is already inside the runtime (a signal handler
 * that interrupted it) does nothing: it could otherwise deadlock on a lock
 * that thread holds, or wait at exit for a write of its own.
 */
void of_public_call(void (*body)(const void *argument), const void *argument, of_call_kind kind) {
  of_thread *self = &of_self;
  if (self->busy) {
    return;
  }
  self->busy = 1;
  if (of_ensure_started()) {
    if (kind == OF_CALL_ALONE) {
      body(argument);
    } else if (of_writer_enter()) {
      body(argument);
      of_writer_leave();
    }
  }
  self->busy = 0;
}

static void of_end_launch(const void *unused) OF_NOINSTR;
static void of_end_launch(const void *unused) {
  (void)unused;
  of_close_window(OFT_WINDOW_STARTUP_COMPLETE, of_now_ns());
}
static void of_finish_call(const void *unused) OF_NOINSTR;
static void of_finish_call(const void *unused) {
  (void)unused;
  of_finish();
}

void of_local_mark(const char *name) {
  if (name != NULL) {
    of_public_call(of_write_mark, name, OF_CALL_AS_WRITER);
  }
}

void of_local_startup_complete(void) {
  of_public_call(of_end_launch, NULL, OF_CALL_AS_WRITER);
}

/* Alone, not as a writer: of_finish closes the gate and waits for the writers to drain. */
void of_local_finish(void) {
  of_public_call(of_finish_call, NULL, OF_CALL_ALONE);
}
