/*
 * wire_test.c - checks of the record wire format and the generated codecs:
 * malformed input is refused, not truncated; every record type round-trips;
 * a merge that would overflow a list changes nothing. `make check` runs it.
 */
#include "session.h"

#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                                                \
  do {                                                                                                             \
    if (!(cond)) {                                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                                   \
      failures++;                                                                                                  \
    }                                                                                                              \
  } while (0)

/* Decodes `bytes` as domain.Name into a fresh record; returns the decoder's status. */
static int decode(const char *domain, const char *name, const uint8_t *bytes, size_t n, void *value) {
  const rec_type *t = rec_find(domain, name);
  if (!t) {
    fprintf(stderr, "no record %s.%s\n", domain, name);
    failures++;
    return 0;
  }
  t->init(value);
  wire_reader r;
  wire_reader_init(&r, bytes, n);
  return t->decode(value, &r);
}

static void malformed_input_is_refused(void) {
  uint8_t buf[64];
  wire_writer w;
  account_profile profile;
  editor_window_state window;
  account_preferences preferences;

  wire_writer_init(&w, buf, sizeof buf);
  wire_put_uint(&w, 7, (1ull << 32) + 5); /* flags is a u32 */
  CHECK(decode("account", "Profile", buf, w.n, &profile) == -1);

  wire_writer_init(&w, buf, sizeof buf);
  wire_put_uint(&w, 4, 2); /* reduce_motion is a bool */
  CHECK(decode("account", "Preferences", buf, w.n, &preferences) == -1);

  wire_writer_init(&w, buf, sizeof buf);
  wire_put_sint(&w, 1, (int64_t)1 << 40); /* x is an i32 */
  CHECK(decode("editor", "WindowState", buf, w.n, &window) == -1);

  static const uint8_t huge_field[] = {0x98, 0x80, 0x80, 0x80, 0x80, 0x01, 0x05}; /* field 2^32 + 3 */
  CHECK(decode("account", "Profile", huge_field, sizeof huge_field, &profile) == -1);

  static const uint8_t eleven_bytes[] = {0x38, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
  CHECK(decode("account", "Profile", eleven_bytes, sizeof eleven_bytes, &profile) == -1);

  static const uint8_t truncated[] = {0x12, 0x05, 'a', 'b'}; /* name: 5 bytes announced, 2 there */
  CHECK(decode("account", "Profile", truncated, sizeof truncated, &profile) == -1);

  static const uint8_t valid[] = {0x38, 0x05, 0x12, 0x02, 'a', 'b'};
  CHECK(decode("account", "Profile", valid, sizeof valid, &profile) == 0);
  CHECK(profile.flags == 5 && strcmp(profile.name, "ab") == 0);
}

static void every_record_round_trips(void) {
  static uint8_t a[4096], b[4096], buf[8192];
  size_t types = 0;
  for (size_t d = 0; d < rec_domain_count; d++) {
    for (size_t i = 0; i < *rec_domains[d].count; i++) {
      const rec_type *t = &rec_domains[d].records[i];
      CHECK(t->size <= sizeof a);
      t->init(a);
      wire_writer w;
      wire_writer_init(&w, buf, sizeof buf);
      t->encode(a, &w);
      CHECK(w.n == 0); /* defaults are left out */
      /* Every field away from its default: "1" for numbers, booleans, strings and lists,
       * "01" for bytes (hexadecimal). */
      for (unsigned f = 0; f < t->fields; f++)
        CHECK(t->set(a, t->field_names[f], "1") == 0 || t->set(a, t->field_names[f], "01") == 0);
      wire_writer_init(&w, buf, sizeof buf);
      t->encode(a, &w);
      CHECK(!w.overflow && w.n >= 2 * t->fields);
      t->init(b);
      CHECK(!t->equal(a, b));
      wire_reader r;
      wire_reader_init(&r, buf, w.n);
      CHECK(t->decode(b, &r) == 0);
      CHECK(t->equal(a, b));
      CHECK(t->hash(a) == t->hash(b));
      strbuf diff;
      sb_init(&diff);
      CHECK(t->diff(a, b, &diff) == 0);
      sb_free(&diff);
      types++;
    }
  }
  CHECK(types == 110);
}

static void overflowing_merge_changes_nothing(void) {
  account_preferences into, from;
  account_preferences_init(&into);
  account_preferences_init(&from);
  CHECK(account_preferences_set(&into, "shortcuts", "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15") == 0);
  CHECK(account_preferences_set(&from, "shortcuts", "16, 17") == 0);
  CHECK(account_preferences_set(&from, "theme", "paper") == 0);
  account_preferences before = into;
  CHECK(account_preferences_merge(&into, &from) == -1);
  CHECK(account_preferences_equal(&into, &before));
  CHECK(account_preferences_set(&from, "shortcuts", "16") == 0);
  CHECK(account_preferences_merge(&into, &from) == 0);
  CHECK(into.shortcuts_count == 16 && strcmp(into.theme, "paper") == 0);
}

static void text_values(void) {
  account_profile profile;
  account_profile_init(&profile);
  CHECK(account_profile_set(&profile, "id", "010") == 0 && profile.id == 10); /* not octal */
  CHECK(account_profile_set(&profile, "id", "0x10") == 0 && profile.id == 16);
  CHECK(account_profile_set(&profile, "flags", "4294967296") == -1);
  CHECK(account_profile_set(&profile, "avatar", "0g") == -1);
  CHECK(account_profile_set(&profile, "nope", "1") == -2);
}

int main(void) {
  malformed_input_is_refused();
  every_record_round_trips();
  overflowing_merge_changes_nothing();
  text_values();
  if (failures) {
    fprintf(stderr, "wire_test: %d checks failed\n", failures);
    return 1;
  }
  printf("wire_test: all checks passed\n");
  return 0;
}
