/*
 * orderfile_system_paths.h - which files belong to the system or to a compiler's
 * toolchain rather than to the program being ordered: the one list. The in-process
 * recorder (which libraries a dlopen brings that it arms on its own), the page probe
 * (which libraries it watches) and the tool in Swift (TraceModule.isSystemLibrary, which
 * the planner, `generate` and `estimate` use) all ask these functions, so none can
 * disagree with another about a library.
 *
 * The lists, and why:
 * - System library directories, matched at the start of a path: /lib/, /lib32/, /lib64/,
 *   /usr/lib/, /usr/lib32/, /usr/lib64/. The loader, libc, libstdc++ and every library the
 *   distribution installs, for each word size it has (/lib32: a 64-bit system's 32-bit
 *   libraries). A compiler's own passes lie here too (/usr/lib/gcc/.../cc1).
 * - Toolchain runtime folders, matched anywhere in a path, since a toolchain lies wherever
 *   it was unpacked: /usr/lib/swift/ (the Swift runtime, .../usr/lib/swift/linux/
 *   libswiftCore.so), /usr/lib/swift_static/, /lib/rustlib/ (a rustup toolchain's standard
 *   library). Shipped with the compiler, never built by the user.
 * - Not /usr/local/lib/: `make install` puts what the user builds there, among it the
 *   libraries a user orders, so a library there is recorded, as one in /opt is.
 * - System program directories, matched at the start: /bin/, /sbin/, /usr/bin/, /usr/sbin/,
 *   /usr/libexec/. Programs a launch may run (a shell, make, a compiler driver) that the
 *   user does not build; they are not libraries (of_is_system_library says no).
 *
 * Plain C11 without libc: the in-process recorder asks from an IFUNC resolver, before libc
 * is initialized, and from its signal handler.
 */
#ifndef ORDERFILE_SYSTEM_PATHS_H
#define ORDERFILE_SYSTEM_PATHS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Nothing of the recorders may be instrumented: a hook would recurse. */
#define OF_PATHS_FUNCTION static inline __attribute__((no_instrument_function))

/* The index-th system library directory ("/usr/lib/"), NULL past the last. */
OF_PATHS_FUNCTION const char *of_system_library_directory(size_t index) {
  static const char *const directories[] = {"/lib/", "/lib32/", "/lib64/", "/usr/lib/", "/usr/lib32/", "/usr/lib64/"};
  return index < sizeof directories / sizeof directories[0] ? directories[index] : NULL;
}

/* The index-th toolchain runtime folder ("/lib/rustlib/"), NULL past the last. */
OF_PATHS_FUNCTION const char *of_toolchain_library_folder(size_t index) {
  static const char *const folders[] = {"/usr/lib/swift/", "/usr/lib/swift_static/", "/lib/rustlib/"};
  return index < sizeof folders / sizeof folders[0] ? folders[index] : NULL;
}

/* The index-th system program directory ("/usr/bin/"), NULL past the last. */
OF_PATHS_FUNCTION const char *of_system_program_directory(size_t index) {
  static const char *const directories[] = {"/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/", "/usr/libexec/"};
  return index < sizeof directories / sizeof directories[0] ? directories[index] : NULL;
}

/* Whether `text` starts with `prefix`. */
OF_PATHS_FUNCTION bool of_paths_starts_with(const char *text, const char *prefix) {
  for (; *prefix != '\0'; text++, prefix++) {
    if (*text != *prefix) return false;
  }
  return true;
}

/* Whether `text` contains `part`. */
OF_PATHS_FUNCTION bool of_paths_contains(const char *text, const char *part) {
  for (; *text != '\0'; text++) {
    if (of_paths_starts_with(text, part)) return true;
  }
  return false;
}

/* Whether an entry of the list `entry` reads starts `path` (or, `anywhere`, lies in it). */
OF_PATHS_FUNCTION bool of_paths_match(const char *path, const char *(*entry)(size_t), bool anywhere) {
  const char *next;
  for (size_t i = 0; (next = entry(i)) != NULL; i++) {
    if (anywhere ? of_paths_contains(path, next) : of_paths_starts_with(path, next)) return true;
  }
  return false;
}

/* Whether the file at `path` (absolute, as the loader names it) is a system library or a
 * toolchain's runtime library. */
OF_PATHS_FUNCTION bool of_is_system_library(const char *path) {
  return of_paths_match(path, of_system_library_directory, false) || of_paths_match(path, of_toolchain_library_folder, true);
}

/* Whether the file at `path` lies in a system program directory. */
OF_PATHS_FUNCTION bool of_is_system_program(const char *path) {
  return of_paths_match(path, of_system_program_directory, false);
}

#undef OF_PATHS_FUNCTION

#ifdef __cplusplus
}
#endif

#endif /* ORDERFILE_SYSTEM_PATHS_H */
