/*
 * binding_check.c - a load-time warning when the hooks bind elsewhere.
 *
 * glibc itself exports no-op __cyg_profile_func_enter/exit. The dynamic
 * linker binds every module's hook calls to the first definition in the
 * global lookup order, so when libc comes before this runtime - the runtime
 * is only a dependency of an instrumented library, not of the executable, or
 * it was loaded with dlopen() - every hook lands in libc's no-op and nothing
 * is ever recorded. The runtime's own code never runs then, so the only place
 * to notice is this constructor. It changes nothing; it only warns.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_internal.h"

/* The module that holds `address`, for the message. */
static const char *of_module_name(void *address) OF_NOINSTR;
static const char *of_module_name(void *address) {
  Dl_info info;
  if (address != NULL && dladdr(address, &info) != 0 && info.dli_fname != NULL &&
      info.dli_fname[0] != '\0') {
    return info.dli_fname;
  }
  return "another module";
}

/*
 * Warns, in one line, when the process-wide __cyg_profile_func_enter is not
 * an orderfile runtime's. Another copy of this runtime winning (the runtime
 * linked statically into several modules) is fine: that copy also exports
 * orderfile_finish from the same module.
 */
__attribute__((constructor)) static void of_check_binding(void) OF_NOINSTR;
__attribute__((constructor)) static void of_check_binding(void) {
#ifdef OF_EMBEDDED
  /* The embedded archive's hooks are hidden: its library's calls cannot bind elsewhere. */
  return;
#endif
  const char *disabled = getenv("ORDERFILE_DISABLE");
  if (disabled != NULL && strcmp(disabled, "1") == 0) {
    return;
  }
  void *enter = dlsym(RTLD_DEFAULT, "__cyg_profile_func_enter");
  void *finish = dlsym(RTLD_DEFAULT, "orderfile_finish");
  if (enter == NULL || enter == (void *)of_own_enter) {
    return;
  }
  Dl_info enter_info, finish_info;
  if (finish != NULL && dladdr(enter, &enter_info) != 0 && dladdr(finish, &finish_info) != 0 &&
      enter_info.dli_fbase == finish_info.dli_fbase) {
    return;
  }
  const char *parts[] = {
      "orderfile: warning: instrumented code calls the __cyg_profile_func_enter of ",
      of_module_name(enter),
      ", not this runtime's, so nothing will be recorded; link libOrderfileRuntime.so into the "
      "executable ahead of libc, or load it with LD_PRELOAD\n"};
  of_write_stderr(parts, 3);
}
