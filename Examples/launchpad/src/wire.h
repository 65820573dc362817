/*
 * wire.h - the tag/varint wire format of launchpad's records, and the
 * descriptors through which the generated codecs (tools/gen-records.py) are
 * found by name.
 *
 * A record encodes as a sequence of fields, each a varint key
 * (field number << 3 | type) followed by its value: type 0 a varint (zigzag
 * for signed numbers), 1 eight little-endian bytes, 2 a varint length and
 * that many bytes. Fields at their default (zero, empty) are left out, and
 * decoders skip fields they do not know, so old and new builds read each
 * other's state.
 */
#ifndef LAUNCHPAD_WIRE_H
#define LAUNCHPAD_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "launchpad.h"

enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_BYTES = 2 };

typedef struct {
  uint8_t *p;
  size_t n, cap;
  int overflow;
} wire_writer;

typedef struct {
  const uint8_t *p;
  size_t n, pos;
  int error;
} wire_reader;

void wire_writer_init(wire_writer *w, uint8_t *buf, size_t cap);
void wire_reader_init(wire_reader *r, const uint8_t *p, size_t n);

void wire_put_uint(wire_writer *w, uint32_t field, uint64_t v);
void wire_put_sint(wire_writer *w, uint32_t field, int64_t v);
void wire_put_double(wire_writer *w, uint32_t field, double v);
void wire_put_bytes(wire_writer *w, uint32_t field, const void *p, size_t n);

int wire_next(wire_reader *r, uint32_t *field, uint32_t *type);
uint64_t wire_get_uint(wire_reader *r, uint32_t type);
int64_t wire_get_sint(wire_reader *r, uint32_t type);
/* The same, failing the read when the value is out of the field's range. */
uint64_t wire_get_uint_max(wire_reader *r, uint32_t type, uint64_t max);
int64_t wire_get_sint_range(wire_reader *r, uint32_t type, int64_t min, int64_t max);
double wire_get_double(wire_reader *r, uint32_t type);
size_t wire_get_bytes(wire_reader *r, uint32_t type, void *out, size_t cap);
void wire_get_string(wire_reader *r, uint32_t type, char *out, size_t cap);
void wire_skip(wire_reader *r, uint32_t type);
void wire_fail(wire_reader *r);

uint32_t wire_hash(uint32_t h, const void *p, size_t n);
void wire_append_hex(strbuf *out, const uint8_t *p, size_t n);

/* Text to field values, for `set`: 0 on success, -1 on a malformed value.
 * Numbers are decimal, or hexadecimal after 0x. */
int wire_parse_unsigned(const char *s, uint64_t max, uint64_t *out);
int wire_parse_signed(const char *s, int64_t min, int64_t max, int64_t *out);
int wire_parse_double(const char *s, double *out);
int wire_parse_bool(const char *s, uint64_t *out);
long wire_parse_hex(const char *s, uint8_t *out, size_t cap);
long wire_parse_list(const char *s, uint32_t *out, size_t cap);

/* ---- record descriptors ---- */
typedef struct {
  const char *domain, *name;
  size_t size;
  unsigned fields;
  const char *const *field_names; /* in wire order: field i + 1 */
  void (*init)(void *msg);
  int (*set)(void *msg, const char *field, const char *value);
  int (*validate)(const void *msg, char *err, size_t cap);
  void (*encode)(const void *msg, wire_writer *w);
  int (*decode)(void *msg, wire_reader *r);
  void (*print)(const void *msg, strbuf *out);
  int (*equal)(const void *a, const void *b);
  uint32_t (*hash)(const void *msg);
  int (*merge)(void *dst, const void *src); /* -1 when a list would overflow */
  int (*diff)(const void *a, const void *b, strbuf *out);
} rec_type;

typedef struct {
  const char *name;
  const rec_type *records;
  const size_t *count;
} rec_domain;

extern const rec_domain rec_domains[];
extern const size_t rec_domain_count;

#endif
