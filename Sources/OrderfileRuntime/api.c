/*
 * api.c - the public calls of orderfile.h: each goes to the copy of the
 * runtime that owns the process's trace (shared_instance.c), which is this
 * one unless another copy started first.
 */
#define _GNU_SOURCE
#include "orderfile.h"
#include "runtime_internal.h"

const of_instance *of_owner_for_call(void) {
  of_thread *self = &of_self;
  if (__atomic_load_n(&of_rt.init_state, __ATOMIC_ACQUIRE) == OF_INIT_NONE && !self->busy) {
    self->busy = 1;
    (void)of_ensure_started();
    self->busy = 0;
  }
  return of_owner_instance();
}

void orderfile_mark(const char *name) {
  const of_instance *owner = of_owner_for_call();
  if (owner != NULL) {
    owner->mark(name);
    return;
  }
  of_local_mark(name);
}

void orderfile_startup_complete(void) {
  const of_instance *owner = of_owner_for_call();
  if (owner != NULL) {
    owner->startup_complete();
    return;
  }
  of_local_startup_complete();
}

void orderfile_finish(void) {
  const of_instance *owner = of_owner_for_call();
  if (owner != NULL) {
    owner->finish();
    return;
  }
  of_local_finish();
}
