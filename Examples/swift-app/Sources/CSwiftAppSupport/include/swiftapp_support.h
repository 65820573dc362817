#ifndef SWIFTAPP_SUPPORT_H
#define SWIFTAPP_SUPPORT_H

#include <stdint.h>

/// The launch's starting checksum, from the program's name: C code of the package that the
/// launch runs, as the C targets of a SwiftPM dependency tree do.
uint64_t swiftapp_seed(const char *name);

/// Folds a value into a checksum; the launch does not call it (repairs do).
uint64_t swiftapp_repair_fold(uint64_t checksum, uint64_t value);

#endif
