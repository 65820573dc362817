/*
 * str.c - string views, a growable string buffer and assorted helpers.
 */
#include "launchpad.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

strview sv(const char *s) { return (strview){s, strlen(s)}; }

strview sv_n(const char *s, size_t n) { return (strview){s, n}; }

char *str_replace_all(const char *s, const char *from, const char *to) {
  size_t nf = strlen(from), nt = strlen(to);
  if (nf == 0) return strdup(s);
  size_t count = 0;
  for (const char *p = strstr(s, from); p; p = strstr(p + nf, from)) count++;
  char *out = malloc(strlen(s) + count * (nt > nf ? nt - nf : 0) + 1);
  if (!out) return NULL;
  char *o = out;
  for (const char *p; (p = strstr(s, from)); s = p + nf) {
    memcpy(o, s, (size_t)(p - s));
    o += p - s;
    memcpy(o, to, nt);
    o += nt;
  }
  strcpy(o, s);
  return out;
}

strview sv_ltrim(strview s) {
  while (s.n > 0 && isspace((unsigned char)*s.p)) {
    s.p++;
    s.n--;
  }
  return s;
}

strview sv_rtrim(strview s) {
  while (s.n > 0 && isspace((unsigned char)s.p[s.n - 1])) s.n--;
  return s;
}

int str_levenshtein(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  if (na > 63 || nb > 63) return (int)(na > nb ? na : nb);
  int row[64];
  for (size_t j = 0; j <= nb; j++) row[j] = (int)j;
  for (size_t i = 1; i <= na; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= nb; j++) {
      int up = row[j];
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      int best = diag + cost;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      if (up + 1 < best) best = up + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[nb];
}

strview sv_trim(strview s) { return sv_rtrim(sv_ltrim(s)); }

int sv_eq(strview a, strview b) { return a.n == b.n && memcmp(a.p, b.p, a.n) == 0; }

const char *str_closest(const char *word, const char *const *candidates, size_t n) {
  const char *best = NULL;
  int best_d = 3; /* suggest only close matches */
  for (size_t i = 0; i < n; i++) {
    int d = str_levenshtein(word, candidates[i]);
    if (d < best_d) {
      best_d = d;
      best = candidates[i];
    }
  }
  return best;
}

int sv_eq_cstr(strview a, const char *b) { return sv_eq(a, sv(b)); }

int sv_eq_nocase(strview a, strview b) { return a.n == b.n && strncasecmp(a.p, b.p, a.n) == 0; }

int sv_starts_with(strview s, const char *prefix) {
  size_t n = strlen(prefix);
  return s.n >= n && memcmp(s.p, prefix, n) == 0;
}

int str_wrap(const char *text, int width, strbuf *out) {
  int col = 0, lines = 1;
  const char *p = text;
  while (*p) {
    size_t word = strcspn(p, " \n");
    if (col > 0 && col + (int)word + 1 > width) {
      sb_append_char(out, '\n');
      col = 0;
      lines++;
    } else if (col > 0) {
      sb_append_char(out, ' ');
      col++;
    }
    sb_append_n(out, p, word);
    col += (int)word;
    p += word;
    while (*p == ' ' || *p == '\n') p++;
  }
  return lines;
}

int sv_ends_with(strview s, const char *suffix) {
  size_t n = strlen(suffix);
  return s.n >= n && memcmp(s.p + s.n - n, suffix, n) == 0;
}

long sv_index_of(strview s, char c) {
  const char *p = memchr(s.p, c, s.n);
  return p ? p - s.p : -1;
}

long sv_find(strview s, const char *needle) {
  size_t n = strlen(needle);
  if (n == 0) return 0;
  for (size_t i = 0; i + n <= s.n; i++)
    if (s.p[i] == needle[0] && memcmp(s.p + i, needle, n) == 0) return (long)i;
  return -1;
}

int sv_split_next(strview *rest, char sep, strview *out) {
  if (rest->p == NULL) return 0;
  long i = sv_index_of(*rest, sep);
  if (i < 0) {
    *out = *rest;
    rest->p = NULL;
    rest->n = 0;
    return 1;
  }
  *out = sv_n(rest->p, (size_t)i);
  rest->p += i + 1;
  rest->n -= (size_t)i + 1;
  return 1;
}

int str_split_words(char *s, char **words, int max) {
  int n = 0;
  char *save = NULL;
  for (char *w = strtok_r(s, " \t", &save); w && n < max; w = strtok_r(NULL, " \t", &save)) words[n++] = w;
  return n;
}

int sv_to_long(strview s, long *out) {
  char buf[32];
  s = sv_trim(s);
  if (s.n == 0 || s.n >= sizeof buf) return -1;
  memcpy(buf, s.p, s.n);
  buf[s.n] = '\0';
  char *end;
  errno = 0;
  int base = 10;
  const char *digits = buf;
  if (s.n > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) base = 16;
  long v = strtol(digits, &end, base);
  if (errno || *end != '\0') {
    /* Accept size suffixes: 4k, 2M. */
    long mult = *end == 'k' || *end == 'K' ? 1024 : *end == 'm' || *end == 'M' ? 1024 * 1024 : 0;
    if (errno || mult == 0 || end[1] != '\0') return -1;
    v *= mult;
  }
  *out = v;
  return 0;
}

int sv_to_double(strview s, double *out) {
  char buf[64];
  s = sv_trim(s);
  if (s.n == 0 || s.n >= sizeof buf) return -1;
  memcpy(buf, s.p, s.n);
  buf[s.n] = '\0';
  char *end;
  errno = 0;
  double v = strtod(buf, &end);
  if (errno || *end != '\0' || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

int str_url_decode(const char *in, size_t n, char *out, size_t cap) {
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    if (o + 1 >= cap) return -1;
    if (in[i] == '+') {
      out[o++] = ' ';
    } else if (in[i] == '%' && i + 2 < n + 0 && isxdigit((unsigned char)in[i + 1]) &&
               isxdigit((unsigned char)in[i + 2])) {
      char hex[3] = {in[i + 1], in[i + 2], 0};
      out[o++] = (char)strtol(hex, NULL, 16);
      i += 2;
    } else {
      out[o++] = in[i];
    }
  }
  out[o] = '\0';
  return (int)o;
}

int sv_to_bool(strview s, int *out) {
  static const char *const yes[] = {"1", "true", "yes", "on"};
  static const char *const no[] = {"0", "false", "no", "off"};
  s = sv_trim(s);
  for (size_t i = 0; i < 4; i++) {
    if (sv_eq_nocase(s, sv(yes[i]))) {
      *out = 1;
      return 0;
    }
    if (sv_eq_nocase(s, sv(no[i]))) {
      *out = 0;
      return 0;
    }
  }
  return -1;
}

uint32_t sv_hash(strview s) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < s.n; i++) h = (h ^ (unsigned char)s.p[i]) * 16777619u;
  return h;
}

char *sv_dup(strview s, arena *a) { return arena_strndup(a, s.p, s.n); }

strview sv_take_while(strview *s, int (*pred)(int)) {
  size_t i = 0;
  while (i < s->n && pred((unsigned char)s->p[i])) i++;
  strview head = sv_n(s->p, i);
  s->p += i;
  s->n -= i;
  return head;
}

/* ---- strbuf ---- */

void sb_init(strbuf *b) { memset(b, 0, sizeof *b); }

int sb_reserve(strbuf *b, size_t extra) {
  if (b->oom) return -1;
  if (b->n + extra + 1 <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->n + extra + 1) cap *= 2;
  char *p = realloc(b->p, cap);
  if (!p) {
    b->oom = 1;
    return -1;
  }
  b->p = p;
  b->cap = cap;
  return 0;
}

void sb_append_escaped(strbuf *b, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '\n': sb_append(b, "\\n"); break;
    case '\t': sb_append(b, "\\t"); break;
    case '\\': sb_append(b, "\\\\"); break;
    case '"': sb_append(b, "\\\""); break;
    default:
      if ((unsigned char)*s < 32)
        sb_appendf(b, "\\x%02x", (unsigned char)*s);
      else
        sb_append_char(b, *s);
    }
  }
}

void sb_append_n(strbuf *b, const char *s, size_t n) {
  if (sb_reserve(b, n) != 0) return;
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = '\0';
}

void sb_append(strbuf *b, const char *s) { sb_append_n(b, s, strlen(s)); }

void sb_append_sv(strbuf *b, strview s) { sb_append_n(b, s.p, s.n); }

void sb_append_char(strbuf *b, char c) { sb_append_n(b, &c, 1); }

void sb_appendf(strbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char small[256];
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof small) {
    sb_append_n(b, small, (size_t)n);
    return;
  }
  if (sb_reserve(b, (size_t)n) != 0) return;
  va_start(ap, fmt);
  vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)n;
}

void sb_append_json_string(strbuf *b, const char *s) {
  sb_append_char(b, '"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      sb_append_char(b, '\\');
      sb_append_char(b, (char)c);
    } else if (c < 0x20) {
      sb_appendf(b, "\\u%04x", c);
    } else {
      sb_append_char(b, (char)c);
    }
  }
  sb_append_char(b, '"');
}

void sb_append_padded(strbuf *b, const char *s, int width, int right) {
  int n = (int)strlen(s);
  if (right)
    for (int i = n; i < width; i++) sb_append_char(b, ' ');
  sb_append(b, s);
  if (!right)
    for (int i = n; i < width; i++) sb_append_char(b, ' ');
}

void sb_clear(strbuf *b) {
  b->n = 0;
  if (b->p) b->p[0] = '\0';
}

const char *sb_cstr(strbuf *b) { return b->p ? b->p : ""; }

void sb_free(strbuf *b) {
  free(b->p);
  sb_init(b);
}

/* ---- C strings ---- */

void str_to_lower(char *s) {
  for (; *s; s++) *s = (char)tolower((unsigned char)*s);
}

void str_to_upper(char *s) {
  for (; *s; s++) *s = (char)toupper((unsigned char)*s);
}

int str_is_identifier(const char *s) {
  if (!(isalpha((unsigned char)*s) || *s == '_')) return 0;
  for (s++; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '-' || *s == '.')) return 0;
  return 1;
}

size_t str_count_char(const char *s, char c) {
  size_t n = 0;
  for (; *s; s++) n += *s == c;
  return n;
}

/* Glob with '*' (any run, not crossing '/') and '?' (one character). */
int str_glob_match(const char *pattern, const char *s) {
  const char *star = NULL, *resume = NULL;
  while (*s) {
    if (*pattern == '*') {
      star = pattern++;
      resume = s;
    } else if (*pattern == '?' || *pattern == *s) {
      pattern++;
      s++;
    } else if (star && *resume != '/') {
      pattern = star + 1;
      s = ++resume;
    } else {
      return 0;
    }
  }
  while (*pattern == '*') pattern++;
  return *pattern == '\0';
}
