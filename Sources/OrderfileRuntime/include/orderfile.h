/*
 * orderfile.h - the public API of the orderfile launch-recording runtime.
 *
 * Link this runtime into a program compiled with -finstrument-functions
 * (gcc, clang) or -finstrument-functions-after-inlining (clang). It records
 * the first call of every instrumented function into a trace file that the
 * `orderfile` tool turns into a linker orderfile. Nothing here is needed for
 * recording: these calls only refine it.
 *
 * Configuration is by environment variables (see Docs/Runtime.md):
 *   ORDERFILE_OUTPUT         trace path; %p = pid, %e = executable name, %% = %
 *                            (default: orderfile-%e-%p.trace in the working directory)
 *   ORDERFILE_TIME_LIMIT_MS  close the launch window this many ms after process start
 *   ORDERFILE_CAPACITY       most first calls recorded (default 1048576)
 *   ORDERFILE_DISABLE        1 = record nothing
 *   ORDERFILE_VERBOSE        1 = print a one-line summary on stderr at exit
 */
#ifndef ORDERFILE_H
#define ORDERFILE_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Marks the end of the launch window. Functions first called after this are
 * still recorded, as a second phase, but are not part of the launch order.
 * Also samples the process's page-fault counts. Callable from any thread,
 * any number of times; only the first call has an effect. Safe to call when
 * recording is disabled or the runtime failed to start.
 */
void orderfile_startup_complete(void) __attribute__((no_instrument_function));

/*
 * Finalizes the trace now, as exit() would: later first calls are not
 * recorded. Use it before a program leaves through _exit() or exec() if you
 * want the trace marked as cleanly closed; without it the trace is still
 * readable, only marked as not closed.
 */
void orderfile_finish(void) __attribute__((no_instrument_function));

/* The compiler-inserted hooks. Programs never call these directly. */
void __cyg_profile_func_enter(void *function, void *call_site) __attribute__((no_instrument_function));
void __cyg_profile_func_exit(void *function, void *call_site) __attribute__((no_instrument_function));

#ifdef __cplusplus
}
#endif

#endif /* ORDERFILE_H */
