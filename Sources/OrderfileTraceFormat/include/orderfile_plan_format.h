/*
 * orderfile_plan_format.h - the recording plan `orderfile record` hands the in-process
 * recorder (libOrderfileInProcess.so), defined once: Swift writes it
 * (Sources/OrderfileRecording/InProcessRecorder.swift, InProcessPlan), the recorder reads it
 * (Sources/OrderfileInProcess/plan.c) and the recording's processes share their recorder
 * time in a file beside it (children.c).
 *
 * All integers little-endian: the magic (8 bytes, NUL included), u32 module count, u32 plan
 * flags (OF_PLAN_FILE_*);
 * then per module u32 path length, u32 flags (OF_PLAN_*), u64 entry count, u64 stop count,
 * the path padded with NULs to a multiple of 8 (at least one), the entries (ELF vaddrs,
 * ascending, no repeats), the stops (entries whose first call ends the launch window).
 */
#ifndef ORDERFILE_PLAN_FORMAT_H
#define ORDERFILE_PLAN_FORMAT_H

/* The environment variable that names the plan file. */
#define OF_PLAN_VARIABLE "ORDERFILE_TRAP_PLAN"
/* The first 8 bytes of a plan file (the string and its NUL). */
#define OF_PLAN_MAGIC "OFPLAN1"
/* Appended to the plan's path: the file where the processes add up their recorder time. */
#define OF_PLAN_CLOCK_SUFFIX ".clock"

/* The plan's flags. */
#define OF_PLAN_FILE_NAMED_ONLY 1u /* arm no module the plan does not name (a timing launch) */

/* A module's flags. */
#define OF_PLAN_MAIN 1u /* the main executable */
#define OF_PLAN_DATA 2u /* record the first touch of each page of its read-only data */

#endif
