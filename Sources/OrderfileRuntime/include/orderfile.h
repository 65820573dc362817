/*
 * orderfile.h - the public API of the orderfile launch-recording runtime.
 *
 * Link this runtime into a program compiled with -finstrument-functions
 * (gcc, clang), -finstrument-functions-after-inlining (clang) or
 * SanitizerCoverage's trace-pc-guard (clang, swiftc, rustc). It records
 * the first call of every instrumented function into a trace file that the
 * `orderfile` tool turns into a linker orderfile. Nothing here is needed for
 * recording: these calls only refine it.
 *
 * Configuration is by environment variables, read once at the first hook
 * (see Docs/Runtime.md). A bad value gets one warning line on stderr and the
 * default is used; the program always runs on.
 *   ORDERFILE_OUTPUT         trace path; %p = pid, %e = executable name, %% = %
 *                            (default: orderfile-%e-%p.trace in the working directory;
 *                            a fork child whose pattern has no %p writes <path>.<pid>,
 *                            a later image of a process that executed itself
 *                            <path>.exec<n>; a file there that is not a trace is left
 *                            alone and <path>.<pid> written instead)
 *   ORDERFILE_TIME_LIMIT_MS  close the launch window this many ms after process
 *                            start (1...4294967295; default: no limit)
 *   ORDERFILE_CAPACITY       most first calls recorded (1024...1048576, default 1048576)
 *   ORDERFILE_DISABLE        1 = record nothing (0 or unset = record)
 *   ORDERFILE_VERBOSE        1 = print a one-line summary on stderr at exit
 *   ORDERFILE_MARKS          most orderfile_mark() calls kept (1...65536, default 256)
 *   ORDERFILE_MODE           first-call (default) or full: full also records every
 *                            function entry and exit inside the launch window
 *   ORDERFILE_EVENTS         full mode: events per thread buffer (16...4194304, default 262144)
 *   ORDERFILE_EVENT_THREADS  full mode: thread buffers (1...1024, default 64)
 */
#ifndef ORDERFILE_H
#define ORDERFILE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Marks the end of the launch window. Functions first called after this are
 * still recorded, as a second phase, but are not part of the launch order.
 * Also samples the process's page-fault counts into the trace header and the
 * resident size of each recorded module's code (from /proc/self/smaps) into
 * its module entry, and ends full mode's event recording.
 *
 * Preconditions: none. Callable from any thread, any number of times; only
 * the first call has an effect (and none if the time limit closed the window
 * first). Safe to call when recording is disabled or the runtime failed to
 * start. Not async-signal-safe.
 * Side effects: starts the runtime (creating the trace file) if no
 * instrumented function has run yet.
 */
void orderfile_startup_complete(void) __attribute__((no_instrument_function));

/*
 * Records a named point in time - "config loaded", "first frame" - that
 * `orderfile report` uses to split the launch into phases: the name, the
 * CLOCK_MONOTONIC time and the calling thread. Marks are recorded whether or
 * not the launch window is still open.
 *
 * Preconditions: none. `name` is a NUL-terminated string, UTF-8 by
 * convention; only its first 40 bytes are kept (cut before a UTF-8 sequence
 * that would not fit). NULL is ignored. Cheap - a clock read, an atomic
 * increment and a 64-byte store, no lock, no allocation - and callable from
 * any thread. Safe when recording is disabled or failed to start (then it
 * does nothing). Async-signal-safe once the runtime has started (any
 * instrumented function has run); a mark set from a signal handler that
 * interrupted the runtime on the same thread is dropped.
 * Side effects: starts the runtime (creating the trace file) if no
 * instrumented function has run yet. After ORDERFILE_MARKS marks, later ones
 * are dropped; the trace header's mark_count keeps counting them.
 */
void orderfile_mark(const char *name) __attribute__((no_instrument_function));

/*
 * Finalizes the trace now, as exit() would: closes the window if it is
 * open, marks the trace closed and truncates the file after its last record.
 * Later first calls are not recorded. Use it before a program leaves through
 * _exit() or exec() if you want the trace marked as cleanly closed; without
 * it the trace is still readable, only marked as not closed.
 *
 * Preconditions: none. Idempotent, callable from any thread; exit() calls it
 * too. Not async-signal-safe.
 * Side effects: waits (at most one second) for other threads that are in
 * the middle of writing a record; starts the runtime first if no
 * instrumented function has run yet, so the result is an empty closed trace.
 */
void orderfile_finish(void) __attribute__((no_instrument_function));

/*
 * The compiler-inserted hooks. Programs never call these directly.
 * __cyg_profile_func_enter records `function` the first time it is seen;
 * after that it is two loads and a compare. __cyg_profile_func_exit is one
 * load and a compare. In full mode (ORDERFILE_MODE=full) both also record an
 * event while the launch window is open. Instrumented signal handlers are fine: a hook that
 * interrupts the runtime on its own thread returns without recording (the
 * function is recorded at a later call), so it can neither deadlock nor
 * recurse.
 */
void __cyg_profile_func_enter(void *function, void *call_site) __attribute__((no_instrument_function));
void __cyg_profile_func_exit(void *function, void *call_site) __attribute__((no_instrument_function));

/*
 * SanitizerCoverage's hooks (-fsanitize-coverage=func,trace-pc-guard, and the
 * same instrumentation from swiftc and rustc). The compiler calls
 * __sanitizer_cov_trace_pc_guard_init from each module's constructor, and
 * __sanitizer_cov_trace_pc_guard(&guard) in every instrumented function. The
 * first hit of a guard records its function's first call, into the same trace;
 * after that it is one load and a compare. Full mode's events need the
 * -finstrument-functions hooks.
 */
void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop)
    __attribute__((no_instrument_function));
void __sanitizer_cov_trace_pc_guard(uint32_t *guard) __attribute__((no_instrument_function));

#ifdef __cplusplus
}
#endif

#endif /* ORDERFILE_H */
