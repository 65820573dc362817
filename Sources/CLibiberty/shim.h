#ifndef ORDERFILE_CLIBIBERTY_SHIM_H
#define ORDERFILE_CLIBIBERTY_SHIM_H
/* GNU libiberty's demanglers (Debian libiberty-dev, a static library): Rust's legacy
   and v0 manglings through cplus_demangle(name, DMGL_RUST | ...). */
#include <libiberty/demangle.h>
#endif
