#ifndef ORDERFILE_CLIBDW_SHIM_H
#define ORDERFILE_CLIBDW_SHIM_H
#include <elfutils/libdwfl.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <dwarf.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>

/* C++ demangling from libstdc++ (declared here: Swift cannot import <cxxabi.h>).
   Returns a malloc'd string, or NULL with *status set when `mangled` is not a
   valid C++ name. */
char *__cxa_demangle(const char *mangled, char *buffer, size_t *length, int *status);

/* Swift demangling, exported by libswiftCore (no public header declares it).
   Declared here so that calls use the C calling convention. Returns a malloc'd
   string, or NULL when `mangled` is not a Swift symbol. `flags` must be 0. */
char *swift_demangle(const char *mangled, size_t mangled_length, char *output_buffer,
                     size_t *output_buffer_size, uint32_t flags);
#endif
