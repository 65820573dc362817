/*
 * codec.c - small codecs used by libwidgets: base64 for embedded icons,
 * CRC-32 and Adler-32 checksums, run-length coding, UTF-8, hex and varints.
 */
#include "widgets.h"

#include <pthread.h>
#include <string.h>

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t wg_base64_encoded_size(size_t n) { return (n + 2) / 3 * 4; }

size_t wg_base64_encode(const uint8_t *in, size_t n, char *out) {
  size_t o = 0, i = 0;
  for (; i + 2 < n; i += 3) {
    uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
    out[o++] = b64_alphabet[v >> 18 & 63];
    out[o++] = b64_alphabet[v >> 12 & 63];
    out[o++] = b64_alphabet[v >> 6 & 63];
    out[o++] = b64_alphabet[v & 63];
  }
  if (i < n) {
    uint32_t v = (uint32_t)in[i] << 16;
    if (i + 1 < n) v |= (uint32_t)in[i + 1] << 8;
    out[o++] = b64_alphabet[v >> 18 & 63];
    out[o++] = b64_alphabet[v >> 12 & 63];
    out[o++] = i + 1 < n ? b64_alphabet[v >> 6 & 63] : '=';
    out[o++] = '=';
  }
  out[o] = '\0';
  return o;
}

static int b64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

size_t wg_base64_decoded_size(const char *text, size_t n) {
  size_t pad = 0;
  while (n > 0 && (text[n - 1] == '=' || text[n - 1] == '\n')) {
    if (text[n - 1] == '=') pad++;
    n--;
  }
  (void)pad;
  return n / 4 * 3 + (n % 4 == 3 ? 2 : n % 4 == 2 ? 1 : 0);
}

long wg_base64_decode(const char *in, size_t n, uint8_t *out) {
  uint32_t acc = 0;
  int bits = 0;
  long o = 0;
  for (size_t i = 0; i < n; i++) {
    char c = in[i];
    if (c == '=' || c == '\n' || c == ' ') continue;
    int v = b64_value(c);
    if (v < 0) return -1;
    acc = acc << 6 | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (uint8_t)(acc >> bits);
    }
  }
  return o;
}

size_t wg_hex_encode(const uint8_t *in, size_t n, char *out) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = digits[in[i] >> 4];
    out[2 * i + 1] = digits[in[i] & 15];
  }
  out[2 * n] = '\0';
  return 2 * n;
}

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_table_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
}

uint32_t wg_crc32(uint32_t crc, const void *data, size_t n) {
  pthread_once(&crc_once, crc_table_init);
  const uint8_t *p = data;
  crc = ~crc;
  for (size_t i = 0; i < n; i++) crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

long wg_hex_decode(const char *in, size_t n, uint8_t *out) {
  if (n % 2) return -1;
  for (size_t i = 0; i < n; i += 2) {
    int hi = hex_value(in[i]), lo = hex_value(in[i + 1]);
    if (hi < 0 || lo < 0) return -1;
    out[i / 2] = (uint8_t)(hi << 4 | lo);
  }
  return (long)(n / 2);
}

uint32_t wg_adler32(uint32_t adler, const void *data, size_t n) {
  const uint8_t *p = data;
  uint32_t a = adler & 0xffff, b = adler >> 16;
  while (n > 0) {
    size_t chunk = n < 5552 ? n : 5552;
    n -= chunk;
    while (chunk--) {
      a += *p++;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return b << 16 | a;
}

size_t wg_rle_encode(const uint8_t *in, size_t n, uint8_t *out, size_t cap) {
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    size_t run = 1;
    while (i + run < n && in[i + run] == in[i] && run < 255) run++;
    if (o + 2 > cap) return 0;
    out[o++] = (uint8_t)run;
    out[o++] = in[i];
    i += run;
  }
  return o;
}

/* Icons are stored run-length coded: (count, byte) pairs. */
long wg_rle_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap) {
  size_t o = 0;
  if (n % 2) return -1;
  for (size_t i = 0; i < n; i += 2) {
    size_t run = in[i];
    if (run == 0 || o + run > cap) return -1;
    memset(out + o, in[i + 1], run);
    o += run;
  }
  return (long)o;
}

int wg_utf8_encode(uint32_t cp, char out[4]) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | cp >> 6);
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    if (cp >= 0xD800 && cp <= 0xDFFF) return -1;
    out[0] = (char)(0xE0 | cp >> 12);
    out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  if (cp <= 0x10FFFF) {
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
  }
  return -1;
}

int wg_utf8_decode(const char *s, size_t n, uint32_t *cp) {
  const uint8_t *p = (const uint8_t *)s;
  if (n == 0) return 0;
  if (p[0] < 0x80) {
    *cp = p[0];
    return 1;
  }
  int len = (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 : (p[0] & 0xF8) == 0xF0 ? 4 : -1;
  if (len < 0 || (size_t)len > n) return -1;
  uint32_t v = p[0] & (0x7F >> len);
  for (int i = 1; i < len; i++) {
    if ((p[i] & 0xC0) != 0x80) return -1;
    v = v << 6 | (p[i] & 0x3F);
  }
  static const uint32_t min_for_len[] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < min_for_len[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return -1;
  *cp = v;
  return len;
}

size_t wg_varint_put(uint64_t v, uint8_t *out) {
  size_t n = 0;
  while (v >= 0x80) {
    out[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  out[n++] = (uint8_t)v;
  return n;
}

int wg_utf8_valid(const char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    uint32_t cp;
    int k = wg_utf8_decode(s + i, n - i, &cp);
    if (k <= 0) return 0;
    i += (size_t)k;
  }
  return 1;
}

size_t wg_utf8_length(const char *s, size_t n) {
  size_t count = 0;
  for (size_t i = 0; i < n; i++)
    if (((uint8_t)s[i] & 0xC0) != 0x80) count++;
  return count;
}

size_t wg_varint_get(const uint8_t *in, size_t n, uint64_t *v) {
  uint64_t r = 0;
  for (size_t i = 0; i < n && i < 10; i++) {
    r |= (uint64_t)(in[i] & 0x7F) << (7 * i);
    if (!(in[i] & 0x80)) {
      *v = r;
      return i + 1;
    }
  }
  return 0;
}

const char *wg_codec_error(int code) {
  switch (code) {
  case -1: return "malformed input";
  case -2: return "output buffer too small";
  case -3: return "checksum mismatch";
  case -4: return "unsupported encoding";
  default: return "unknown codec error";
  }
}
