/*
 * trace_format.c - a program that knows the trace format only through
 * orderfile_trace_format.h, as a recorder outside the runtime would. The
 * format tests build it in strict C11 with gcc and with clang.
 *
 *   trace_format layout       every field of OFT_FIELDS as "field STRUCT NAME OFFSET SIZE",
 *                             then "size STRUCT BYTES" for each structure
 *   trace_format write PATH   writes a small closed trace (the values are listed in
 *                             TraceFormatTests.swift)
 *   trace_format check PATH   validates a trace's checksums and check bytes with the
 *                             header's functions and prints what it holds
 *
 * Traces are little-endian; this program stores integers as the host does, so it is
 * only meant for little-endian hosts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orderfile_trace_format.h"

#define PRINT_FIELD(structure, field, offset)                                        \
  printf("field %s %s %zu %zu\n", #structure, #field, offsetof(structure, field), \
         sizeof(((structure *)0)->field));
#define PRINT_SIZE(structure) printf("size %s %zu\n", #structure, sizeof(structure));

static int print_layout(void) {
  OFT_FIELDS(PRINT_FIELD)
  PRINT_SIZE(oft_header)
  PRINT_SIZE(oft_module)
  PRINT_SIZE(oft_mark)
  PRINT_SIZE(oft_thread_buffer)
  PRINT_SIZE(oft_event)
  PRINT_SIZE(oft_record)
  return 0;
}

#define WRITE_MODULES 2u
#define WRITE_MARKS 1u
#define WRITE_RECORDS 3u

static int write_trace(const char *path) {
  oft_header layout;
  memset(&layout, 0, sizeof layout);
  uint64_t size = oft_init_header(&layout, WRITE_MODULES, WRITE_RECORDS, WRITE_MARKS, 0, 0);
  unsigned char *bytes = calloc(1, size);
  if (bytes == NULL) {
    return 1;
  }

  oft_header *header = (oft_header *)bytes;
  memcpy(header, &layout, sizeof layout);
  header->pid = 4321;
  header->process_start_ns = 1000;
  header->process_start_resolution_ns = 10000000;
  header->trace_start_ns = 2000;
  oft_seal_header(header);
  header->record_count = WRITE_RECORDS;
  header->dropped_count = 5;
  header->module_count = 1;
  header->flags = OFT_FLAG_CLOSED | OFT_FLAG_WINDOW_CLOSED;
  header->window_reason = OFT_WINDOW_STARTUP_COMPLETE;
  header->window_end_ns = 5000;
  header->end_ns = 6000;
  header->mark_count = WRITE_MARKS;

  oft_module *module = (oft_module *)(bytes + header->module_table_offset);
  static const char module_path[] = "/opt/recorded/bin/app";
  static const uint8_t build_id[] = {0xab, 0xcd, 0xef};
  module->load_base = 0x555500000000ull;
  module->text_start = 0x1000;
  module->text_end = 0x3000;
  module->flags = OFT_MODULE_MAIN_EXECUTABLE;
  module->path_length = (uint16_t)strlen(module_path);
  memcpy(module->path, module_path, module->path_length);
  module->build_id_length = sizeof build_id;
  memcpy(module->build_id, build_id, sizeof build_id);
  module->checksum = oft_checksum(module, offsetof(oft_module, checksum));

  oft_mark *mark = (oft_mark *)(bytes + header->marks_offset);
  memcpy(mark->name, "ready", 5);
  mark->name_length = 5;
  mark->time_ns = 4000;
  mark->tid = 4321;
  mark->check = oft_mark_check(mark);

  static const struct {
    uint64_t address, time_ns;
    uint8_t kind;
  } calls[WRITE_RECORDS] = {
      {0x1000, 3000, OFT_KIND_LAUNCH},
      {0x2000, 3100, OFT_KIND_LAUNCH},
      {0x2ff0, 5500, OFT_KIND_POST_WINDOW},
  };
  for (unsigned i = 0; i < WRITE_RECORDS; i++) {
    oft_record *record = (oft_record *)(bytes + header->records_offset) + i;
    record->address = calls[i].address;
    record->time_ns = calls[i].time_ns;
    record->tid = 4321 + i;
    record->module = 0;
    record->kind = calls[i].kind;
    record->check = oft_record_check(record);
  }

  FILE *file = fopen(path, "wb");
  int failed = file == NULL || fwrite(bytes, 1, size, file) != size;
  failed |= file != NULL && fclose(file) != 0;
  free(bytes);
  if (failed) {
    perror(path);
  }
  return failed;
}

static int fail(const char *path, const char *what, uint64_t index) {
  fprintf(stderr, "%s: %s %llu\n", path, what, (unsigned long long)index);
  return 1;
}

static int check_trace(const char *path) {
  FILE *file = fopen(path, "rb");
  if (file == NULL) {
    perror(path);
    return 1;
  }
  static unsigned char bytes[1 << 20];
  size_t size = fread(bytes, 1, sizeof bytes, file);
  fclose(file);
  const oft_header *header = (const oft_header *)bytes;
  if (size < OFT_HEADER_SIZE || header->magic != OFT_MAGIC) {
    return fail(path, "not a trace, size", size);
  }
  if (header->checksum != oft_checksum(header, offsetof(oft_header, checksum))) {
    return fail(path, "header checksum", header->checksum);
  }
  if (header->extension_checksum != 0 &&
      header->extension_checksum !=
          oft_checksum(&header->marks_offset,
                       offsetof(oft_header, extension_checksum) - offsetof(oft_header, marks_offset))) {
    return fail(path, "extension checksum", header->extension_checksum);
  }
  uint64_t records = header->record_count < header->record_capacity ? header->record_count
                                                                     : header->record_capacity;
  if (header->records_offset + records * OFT_RECORD_SIZE > size) {
    return fail(path, "records beyond the end, count", records);
  }
  printf("header pid %u modules %u records %llu\n", header->pid, header->module_count,
         (unsigned long long)records);
  for (uint32_t i = 0; i < header->module_count; i++) {
    const oft_module *module =
        (const oft_module *)(bytes + header->module_table_offset) + i;
    if (module->checksum != oft_checksum(module, offsetof(oft_module, checksum))) {
      return fail(path, "module checksum, module", i);
    }
    printf("module %u %.*s\n", i, (int)module->path_length, module->path);
  }
  uint32_t marks = header->extension_checksum == 0 ? 0
                   : header->mark_count < header->mark_capacity ? header->mark_count
                                                                 : header->mark_capacity;
  for (uint32_t i = 0; i < marks; i++) {
    const oft_mark *mark = (const oft_mark *)(bytes + header->marks_offset) + i;
    if (mark->check != 0 && mark->check != oft_mark_check(mark)) {
      return fail(path, "mark check byte, mark", i);
    }
    printf("mark %.*s %llu\n", (int)mark->name_length, mark->name,
           (unsigned long long)mark->time_ns);
  }
  for (uint64_t i = 0; i < records; i++) {
    const oft_record *record = (const oft_record *)(bytes + header->records_offset) + i;
    if (record->check == 0) {
      printf("uncommitted\n");
      continue;
    }
    if (record->check != oft_record_check(record)) {
      return fail(path, "record check byte, record", i);
    }
    printf("record %u %#llx %llu %u %u\n", record->module, (unsigned long long)record->address,
           (unsigned long long)record->time_ns, record->tid, record->kind);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "layout") == 0) {
    return print_layout();
  }
  if (argc == 3 && strcmp(argv[1], "write") == 0) {
    return write_trace(argv[2]);
  }
  if (argc == 3 && strcmp(argv[1], "check") == 0) {
    return check_trace(argv[2]);
  }
  fprintf(stderr, "usage: trace_format layout | write PATH | check PATH\n");
  return 64;
}
