/*
 * empty_hooks.c - instrumentation hooks that do nothing.
 *
 * The baseline for the runtime's overhead: built as a shared library, like
 * the runtime, so an instrumented program linked against either pays the
 * same call through the PLT and differs only in what the hooks do.
 */
#define NO_INSTRUMENT __attribute__((no_instrument_function, visibility("default")))

NO_INSTRUMENT void __cyg_profile_func_enter(void *function, void *call_site) {
  (void)function;
  (void)call_site;
}

NO_INSTRUMENT void __cyg_profile_func_exit(void *function, void *call_site) {
  (void)function;
  (void)call_site;
}

/* The runtime's public API, as no-ops, so programs that call it link too. */
NO_INSTRUMENT void orderfile_startup_complete(void) {}

NO_INSTRUMENT void orderfile_finish(void) {}
