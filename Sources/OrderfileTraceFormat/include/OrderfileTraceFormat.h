/*
 * OrderfileTraceFormat.h - the module's umbrella header: what Swift imports as
 * OrderfileTraceFormat. Naming each header here, rather than letting SwiftPM take the whole
 * include folder, makes a new header a change to this file, which a build's Clang module
 * cache notices; a header merely added to the folder would not be seen until a clean build.
 */
#ifndef ORDERFILE_TRACE_FORMAT_MODULE_H
#define ORDERFILE_TRACE_FORMAT_MODULE_H

#include "orderfile_plan_format.h"
#include "orderfile_system_paths.h"
#include "orderfile_trace_format.h"

#endif
