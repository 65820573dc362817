/* A plugin that carries the runtime inside itself (libOrderfileRuntimeEmbedded.a). Built once
 * per NAME; prints "<NAME> 0x<address>" for each of its functions, module-relative, so a test
 * can compare them with the trace. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

#include "orderfile.h"

#define JOIN2(x, y) x##y
#define JOIN(x, y) JOIN2(x, y)
#define TEXT2(x) #x
#define TEXT(x) TEXT2(x)

__attribute__((noinline)) static int JOIN(NAME, _helper)(int x) { return x * 3 + 1; }
__attribute__((noinline)) int JOIN(NAME, _leaf)(int x) { return JOIN(NAME, _helper)(x) + 2; }

static void show(const char *what, void *function) __attribute__((no_instrument_function));
static void show(const char *what, void *function) {
  Dl_info info;
  if (dladdr(function, &info) != 0) {
    printf("%s 0x%lx\n", what, (unsigned long)((uintptr_t)function - (uintptr_t)info.dli_fbase));
  }
}

int JOIN(NAME, _entry)(int x) {
  show(TEXT(NAME), (void *)JOIN(NAME, _entry));
  show(TEXT(NAME), (void *)JOIN(NAME, _leaf));
  show(TEXT(NAME), (void *)JOIN(NAME, _helper));
  orderfile_mark(TEXT(NAME) " loaded");
  return JOIN(NAME, _leaf)(x) * 2;
}
