/*
 * wire.c - encoding and decoding of the record wire format (see wire.h).
 *
 * Readers never trust their input: a truncated varint, a length past the
 * end or a value of the wrong type sets r->error and stops the decode, and
 * the generated decoders report it.
 */
#include "wire.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void wire_writer_init(wire_writer *w, uint8_t *buf, size_t cap) {
  w->p = buf;
  w->n = 0;
  w->cap = cap;
  w->overflow = 0;
}

void wire_reader_init(wire_reader *r, const uint8_t *p, size_t n) {
  r->p = p;
  r->n = n;
  r->pos = 0;
  r->error = 0;
}

static void put_byte(wire_writer *w, uint8_t b) {
  if (w->n < w->cap) {
    w->p[w->n++] = b;
  } else {
    w->overflow = 1;
  }
}

static void put_varint(wire_writer *w, uint64_t v) {
  while (v >= 0x80) {
    put_byte(w, (uint8_t)(v | 0x80));
    v >>= 7;
  }
  put_byte(w, (uint8_t)v);
}

static void put_key(wire_writer *w, uint32_t field, uint32_t type) { put_varint(w, (uint64_t)field << 3 | type); }

void wire_put_uint(wire_writer *w, uint32_t field, uint64_t v) {
  put_key(w, field, WIRE_VARINT);
  put_varint(w, v);
}

void wire_put_sint(wire_writer *w, uint32_t field, int64_t v) {
  put_key(w, field, WIRE_VARINT);
  put_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void wire_put_double(wire_writer *w, uint32_t field, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  put_key(w, field, WIRE_FIXED64);
  for (int i = 0; i < 8; i++) put_byte(w, (uint8_t)(bits >> (8 * i)));
}

void wire_put_bytes(wire_writer *w, uint32_t field, const void *p, size_t n) {
  put_key(w, field, WIRE_BYTES);
  put_varint(w, n);
  for (size_t i = 0; i < n; i++) put_byte(w, ((const uint8_t *)p)[i]);
}

void wire_fail(wire_reader *r) {
  r->error = 1;
  r->pos = r->n;
}

static uint64_t get_varint(wire_reader *r) {
  uint64_t v = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (r->pos >= r->n) break;
    uint8_t b = r->p[r->pos++];
    /* The tenth byte holds bit 63 alone: anything more does not fit 64 bits. */
    if (shift == 63 && b > 1) break;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  wire_fail(r);
  return 0;
}

int wire_next(wire_reader *r, uint32_t *field, uint32_t *type) {
  if (r->error || r->pos >= r->n) return 0;
  uint64_t key = get_varint(r);
  *field = (uint32_t)(key >> 3);
  *type = (uint32_t)(key & 7);
  if (r->error || *field == 0 || key >> 3 > UINT32_MAX || *type > WIRE_BYTES) {
    wire_fail(r);
    return 0;
  }
  return 1;
}

uint64_t wire_get_uint(wire_reader *r, uint32_t type) {
  if (type != WIRE_VARINT) {
    wire_fail(r);
    return 0;
  }
  return get_varint(r);
}

int64_t wire_get_sint(wire_reader *r, uint32_t type) {
  uint64_t v = wire_get_uint(r, type);
  return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

uint64_t wire_get_uint_max(wire_reader *r, uint32_t type, uint64_t max) {
  uint64_t v = wire_get_uint(r, type);
  if (v > max) {
    wire_fail(r);
    return 0;
  }
  return v;
}

int64_t wire_get_sint_range(wire_reader *r, uint32_t type, int64_t min, int64_t max) {
  int64_t v = wire_get_sint(r, type);
  if (v < min || v > max) {
    wire_fail(r);
    return 0;
  }
  return v;
}

double wire_get_double(wire_reader *r, uint32_t type) {
  if (type != WIRE_FIXED64 || r->n - r->pos < 8) {
    wire_fail(r);
    return 0;
  }
  uint64_t bits = 0;
  for (int i = 0; i < 8; i++) bits |= (uint64_t)r->p[r->pos++] << (8 * i);
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

static const uint8_t *get_span(wire_reader *r, uint32_t type, size_t *n) {
  if (type != WIRE_BYTES) {
    wire_fail(r);
    return NULL;
  }
  uint64_t len = get_varint(r);
  if (r->error || len > r->n - r->pos) {
    wire_fail(r);
    return NULL;
  }
  const uint8_t *p = r->p + r->pos;
  r->pos += (size_t)len;
  *n = (size_t)len;
  return p;
}

size_t wire_get_bytes(wire_reader *r, uint32_t type, void *out, size_t cap) {
  size_t n = 0;
  const uint8_t *p = get_span(r, type, &n);
  if (!p) return 0;
  if (n > cap) {
    wire_fail(r);
    return 0;
  }
  memcpy(out, p, n);
  return n;
}

void wire_get_string(wire_reader *r, uint32_t type, char *out, size_t cap) {
  size_t n = 0;
  const uint8_t *p = get_span(r, type, &n);
  if (!p || n >= cap || memchr(p, 0, n)) {
    wire_fail(r);
    if (cap > 0) out[0] = 0;
    return;
  }
  memcpy(out, p, n);
  out[n] = 0;
}

void wire_skip(wire_reader *r, uint32_t type) {
  size_t n;
  switch (type) {
  case WIRE_VARINT:
    (void)get_varint(r);
    break;
  case WIRE_FIXED64:
    (void)wire_get_double(r, type);
    break;
  case WIRE_BYTES:
    (void)get_span(r, type, &n);
    break;
  default:
    wire_fail(r);
  }
}

uint32_t wire_hash(uint32_t h, const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
  return h;
}

void wire_append_hex(strbuf *out, const uint8_t *p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    sb_append_char(out, digits[p[i] >> 4]);
    sb_append_char(out, digits[p[i] & 15]);
  }
}

/* Decimal, or hexadecimal after 0x: a leading 0 is not octal. */
static int number_base(const char *s) {
  if (*s == '-' || *s == '+') s++;
  return s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
}

int wire_parse_unsigned(const char *s, uint64_t max, uint64_t *out) {
  if (*s == '-' || *s == 0) return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, number_base(s));
  if (errno || *end || v > max) return -1;
  *out = v;
  return 0;
}

int wire_parse_signed(const char *s, int64_t min, int64_t max, int64_t *out) {
  if (*s == 0) return -1;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, number_base(s));
  if (errno || *end || v < min || v > max) return -1;
  *out = v;
  return 0;
}

int wire_parse_double(const char *s, double *out) {
  char *end;
  double v = strtod(s, &end);
  if (*s == 0 || *end || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

int wire_parse_bool(const char *s, uint64_t *out) {
  if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "1")) {
    *out = 1;
  } else if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "0")) {
    *out = 0;
  } else {
    return -1;
  }
  return 0;
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

long wire_parse_hex(const char *s, uint8_t *out, size_t cap) {
  size_t len = strlen(s);
  if (len % 2 || len / 2 > cap) return -1;
  for (size_t i = 0; i < len / 2; i++) {
    int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);
    if (hi < 0 || lo < 0) return -1;
    out[i] = (uint8_t)(hi << 4 | lo);
  }
  return (long)(len / 2);
}

long wire_parse_list(const char *s, uint32_t *out, size_t cap) {
  size_t n = 0;
  while (*s) {
    char *end;
    errno = 0;
    if (*s == '-') return -1;
    unsigned long v = strtoul(s, &end, number_base(s));
    if (end == s || errno || v > UINT32_MAX || n == cap) return -1;
    out[n++] = (uint32_t)v;
    s = end;
    while (*s == ' ') s++;
    if (*s == ',') s++;
    while (*s == ' ') s++;
  }
  return (long)n;
}
