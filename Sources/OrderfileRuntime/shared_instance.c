/*
 * shared_instance.c - one trace per process, however many copies of the
 * runtime it has loaded.
 *
 * A library whose host program is not rebuilt (a plugin, a Python extension,
 * a JNI library) carries the runtime inside itself: the embedded archive
 * (libOrderfileRuntimeEmbedded.a) hides its hooks, so the library's calls bind
 * to its own copy and never to glibc's no-op hooks. Several such libraries,
 * and the shared runtime beside them, then each have their own state; left
 * alone, each would write a trace of its own to the same path.
 *
 * Instead the first copy to start owns the process's trace and publishes an
 * of_instance: entry points into its own code. Every later copy records
 * nothing itself and hands its first calls and public calls to the owner.
 * Hooks stay local: a copy keeps its own seen set and marks, so a function is
 * forwarded once, on its first call, and later calls cost what they always did.
 *
 * Rendezvous: the copies cannot find each other by symbol (plugins are loaded
 * RTLD_LOCAL, and an embedded copy exports nothing), so the owner publishes
 * itself in one anonymous page at a fixed address, claimed with
 * MAP_FIXED_NOREPLACE: the kernel gives that page to exactly one caller. A
 * fork child inherits the page along with the owner's code and state; exec
 * drops both. When the page cannot be had - an old kernel, something else
 * mapped there - each copy records on its own, as before.
 *
 * The owner's module is pinned (RTLD_NODELETE), so a dlclose() of the library
 * that happened to start first cannot pull the owner out from under the others.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "orderfile.h"
#include "runtime_internal.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* Inside every 39-bit and 47-bit user address space, and far from where the kernel
 * places programs (0x55...), heaps and mmap regions (0x7f...). */
#define OF_INSTANCE_ADDRESS ((uintptr_t)0x4f72640000ull)
#define OF_INSTANCE_MAGIC 0x65636e6174736e69ull /* "instance" */
/* Bumped whenever of_instance changes: copies of other versions record on their own. */
#define OF_INSTANCE_VERSION 1u
/* How long a late copy waits for the owner to fill in the page it has claimed. */
#define OF_INSTANCE_WAIT_NS 1000000000ull

/* Keeps this copy's module loaded until the process ends: other copies will call into it. */
static void of_pin_own_module(void) OF_NOINSTR;
static void of_pin_own_module(void) {
  Dl_info info;
  if (dladdr((void *)of_pin_own_module, &info) != 0 && info.dli_fname != NULL) {
    /* The handle is never closed: that reference is the point. */
    (void)dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
  }
}

/* Copies the page's first bytes without touching it: whatever else is mapped there may not
 * be readable, and a fault here would kill the host. */
static bool of_peek_instance(of_instance *out) OF_NOINSTR;
static bool of_peek_instance(of_instance *out) {
  struct iovec local = {.iov_base = out, .iov_len = sizeof *out};
  struct iovec remote = {.iov_base = (void *)OF_INSTANCE_ADDRESS, .iov_len = sizeof *out};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)sizeof *out;
}

const of_instance *of_join_instance(void) {
  void *page = mmap((void *)OF_INSTANCE_ADDRESS, (size_t)sysconf(_SC_PAGESIZE),
                    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                    -1, 0);
  if (page == (void *)OF_INSTANCE_ADDRESS) {
    of_instance *own = page;
    own->version = OF_INSTANCE_VERSION;
    own->first_call = of_accept_first_call;
    own->mark = of_local_mark;
    own->startup_complete = of_local_startup_complete;
    own->finish = of_local_finish;
    __atomic_store_n(&own->magic, OF_INSTANCE_MAGIC, __ATOMIC_RELEASE);
    of_pin_own_module();
    return NULL;
  }
  if (page != MAP_FAILED) {
    /* A kernel without MAP_FIXED_NOREPLACE took the address as a hint. */
    munmap(page, (size_t)sysconf(_SC_PAGESIZE));
    return NULL;
  }
  if (errno != EEXIST) {
    return NULL;
  }
  uint64_t deadline = of_now_ns() + OF_INSTANCE_WAIT_NS;
  of_instance seen;
  while (of_peek_instance(&seen)) {
    if (seen.magic == OF_INSTANCE_MAGIC) {
      const of_instance *owner = (const of_instance *)OF_INSTANCE_ADDRESS;
      /* Pairs with the owner's release store of magic. */
      if (__atomic_load_n(&owner->magic, __ATOMIC_ACQUIRE) != OF_INSTANCE_MAGIC ||
          owner->version != OF_INSTANCE_VERSION) {
        return NULL;
      }
      __atomic_store_n(&of_owner, owner, __ATOMIC_RELEASE);
      return owner;
    }
    if (seen.magic != 0 || of_now_ns() >= deadline) {
      return NULL; /* not ours, or an owner that never finished claiming */
    }
    sched_yield();
  }
  return NULL;
}
