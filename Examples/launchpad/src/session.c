/*
 * session.c - restoring the saved session at launch, and the record
 * commands.
 *
 * The session is what the user left behind: window geometry, recent files,
 * preferences, sync cursors, the search index state, playback, feature
 * flags. It is kept as text (one "domain.Record.field = value" line each) so
 * that it survives schema changes; at launch each record is parsed into its
 * struct, validated, and round-tripped through the wire format into the
 * state cache, which is how the rest of the program reads it. Only these
 * few records run at launch; the other hundred or so in schema/records.def
 * are used by sync, billing, admin and the like, later or never.
 */
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The built-in session: a fresh profile after first run. */
static const char default_session[] =
    "account.Profile.id = 4127\n"
    "account.Profile.name = Ada Lindqvist\n"
    "account.Profile.email = ada@example.org\n"
    "account.Profile.locale = sv_SE\n"
    "account.Profile.timezone = Europe/Stockholm\n"
    "account.Profile.created = 1700000000\n"
    "account.Preferences.theme = slate\n"
    "account.Preferences.font_size = 13\n"
    "account.Preferences.density = 2\n"
    "account.Preferences.reduce_motion = no\n"
    "account.Preferences.language = sv\n"
    "account.Preferences.shortcuts = 17, 42, 99, 1024\n"
    "account.Consent.crash_reports = yes\n"
    "account.Consent.policy_version = 7\n"
    "account.Consent.region = EU\n"
    "editor.WindowState.x = 64\n"
    "editor.WindowState.y = -12\n"
    "editor.WindowState.width = 1440\n"
    "editor.WindowState.height = 900\n"
    "editor.WindowState.monitor = DP-1\n"
    "editor.WindowState.sidebar_width = 280\n"
    "editor.WindowState.zoom = 1.25\n"
    "editor.RecentFiles.count = 3\n"
    "editor.RecentFiles.paths_hash = 0x1f2e3d4c, 0x5a6b7c8d, 0x0badf00d\n"
    "editor.RecentFiles.last_dir = /home/ada/projects/launchpad\n"
    "editor.Layout.panes = 2\n"
    "editor.Layout.split = 60, 40\n"
    "editor.Layout.tabs = 3, 1\n"
    "sync.Cursor.stream = documents\n"
    "sync.Cursor.position = 918273\n"
    "sync.Cursor.epoch = 12\n"
    "sync.Cursor.checksum = 0xcafe\n"
    "search.IndexState.version = 4\n"
    "search.IndexState.documents = 18234\n"
    "search.IndexState.terms = 402117\n"
    "search.IndexState.shards = 3, 3, 2, 4\n"
    "search.History.count = 2\n"
    "search.History.last_query = orderfile layout\n"
    "media.Playback.track = 77\n"
    "media.Playback.position_ms = 123456\n"
    "media.Playback.volume = 40\n"
    "media.Playback.rate = 1.0\n"
    "notify.Settings.enabled = yes\n"
    "notify.Settings.quiet_start = 1320\n"
    "notify.Settings.quiet_end = 420\n"
    "notify.Settings.channels = 1, 2, 5\n"
    "admin.FeatureFlag.name = new-sidebar\n"
    "admin.FeatureFlag.enabled = true\n"
    "admin.FeatureFlag.rollout_percent = 25\n"
    "admin.Telemetry.enabled = no\n"
    "admin.Telemetry.sample_percent = 1\n";

const rec_type *rec_find(const char *domain, const char *name) {
  for (size_t d = 0; d < rec_domain_count; d++) {
    if (strcmp(rec_domains[d].name, domain) != 0) continue;
    for (size_t i = 0; i < *rec_domains[d].count; i++) {
      if (strcmp(rec_domains[d].records[i].name, name) == 0) return &rec_domains[d].records[i];
    }
  }
  return NULL;
}

size_t rec_total_count(void) {
  size_t n = 0;
  for (size_t d = 0; d < rec_domain_count; d++) n += *rec_domains[d].count;
  return n;
}

/* The position of domain.Name's record in the session, or -1. */
static long find_slot(const session *s, const char *domain, const char *name) {
  for (size_t i = 0; i < s->count; i++) {
    if (!strcmp(s->records[i].type->domain, domain) && !strcmp(s->records[i].type->name, name)) return (long)i;
  }
  return -1;
}

/* The record slot for domain.Name, created on first use. */
static session_record *slot_for(session *s, const char *domain, const char *name, char *err, size_t cap) {
  long found = find_slot(s, domain, name);
  if (found >= 0) return &s->records[found];
  const rec_type *t = rec_find(domain, name);
  if (!t) {
    snprintf(err, cap, "unknown record %s.%s", domain, name);
    return NULL;
  }
  if (s->count == SESSION_MAX_RECORDS) {
    snprintf(err, cap, "more than %d records", SESSION_MAX_RECORDS);
    return NULL;
  }
  void *value = arena_calloc(&s->mem, 1, t->size);
  if (!value) {
    snprintf(err, cap, "out of memory");
    return NULL;
  }
  t->init(value);
  session_record *r = &s->records[s->count++];
  r->type = t;
  r->value = value;
  return r;
}

/* One "domain.Record.field = value" line. */
static int apply_line(session *s, strview line, unsigned lineno, char *err, size_t cap) {
  /* A copy to cut up: a full bytes128 field alone is 256 hex digits. */
  char *text = arena_strndup(&s->mem, line.p, line.n);
  if (!text) {
    snprintf(err, cap, "out of memory");
    return -1;
  }
  char *eq = strchr(text, '=');
  char *dot1 = strchr(text, '.');
  char *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
  if (!eq || !dot1 || !dot2 || dot2 > eq) {
    snprintf(err, cap, "line %u: expected domain.Record.field = value", lineno);
    return -1;
  }
  *dot1 = *dot2 = 0;
  char *field = dot2 + 1;
  char *value = eq + 1;
  *eq = 0;
  strview f = sv_trim(sv(field)), v = sv_trim(sv(value));
  ((char *)f.p)[f.n] = 0;
  ((char *)v.p)[v.n] = 0;
  session_record *r = slot_for(s, text, dot1 + 1, err, cap);
  if (!r) return -1;
  int rc = r->type->set(r->value, f.p, v.p);
  if (rc == -2) snprintf(err, cap, "line %u: %s.%s has no field '%s'", lineno, text, dot1 + 1, f.p);
  if (rc == -1) snprintf(err, cap, "line %u: bad value for %s.%s.%s", lineno, text, dot1 + 1, f.p);
  return rc == 0 ? 0 : -1;
}

int session_restore(session *s, const char *text, char *err, size_t cap) {
  memset(s, 0, sizeof *s);
  arena_init(&s->mem, 16384);
  strview rest = sv(text ? text : default_session), line;
  unsigned lineno = 0;
  while (sv_split_next(&rest, '\n', &line)) {
    lineno++;
    line = sv_trim(line);
    if (line.n == 0 || line.p[0] == '#') continue;
    if (apply_line(s, line, lineno, err, cap) != 0) return -1;
  }
  /* Validate, then store each record in its wire form and read it back: the
   * state cache holds the wire form, so a record that does not round-trip
   * would be lost at the next launch. */
  s->checksum = 2166136261u;
  for (size_t i = 0; i < s->count; i++) {
    session_record *r = &s->records[i];
    if (r->type->validate(r->value, err, cap) != 0) return -1;
    uint8_t buf[2048];
    wire_writer w;
    wire_writer_init(&w, buf, sizeof buf);
    r->type->encode(r->value, &w);
    if (w.overflow) {
      snprintf(err, cap, "%s.%s: larger than %zu bytes", r->type->domain, r->type->name, sizeof buf);
      return -1;
    }
    void *copy = arena_calloc(&s->mem, 1, r->type->size);
    if (!copy) {
      snprintf(err, cap, "out of memory");
      return -1;
    }
    r->type->init(copy);
    wire_reader rd;
    wire_reader_init(&rd, buf, w.n);
    if (r->type->decode(copy, &rd) != 0 || !r->type->equal(r->value, copy)) {
      snprintf(err, cap, "%s.%s: does not round-trip", r->type->domain, r->type->name);
      return -1;
    }
    s->wire_bytes += w.n;
    uint32_t h = r->type->hash(copy);
    s->checksum = wire_hash(s->checksum, &h, sizeof h);
  }
  return 0;
}

const session_record *session_get(const session *s, const char *domain, const char *name) {
  long found = find_slot(s, domain, name);
  return found >= 0 ? &s->records[found] : NULL;
}

void session_free(session *s) { arena_destroy(&s->mem); }

int session_print(const session *s, const char *only, strbuf *out) {
  int shown = 0;
  for (size_t i = 0; i < s->count; i++) {
    const session_record *r = &s->records[i];
    char qualified[96];
    snprintf(qualified, sizeof qualified, "%s.%s", r->type->domain, r->type->name);
    if (only && strcmp(only, qualified) != 0 && strcmp(only, r->type->domain) != 0) continue;
    r->type->print(r->value, out);
    shown++;
  }
  return shown;
}

int session_diff_defaults(const session *s, strbuf *out) {
  int changed = 0;
  arena scratch;
  arena_init(&scratch, 4096);
  for (size_t i = 0; i < s->count; i++) {
    const session_record *r = &s->records[i];
    void *fresh = arena_calloc(&scratch, 1, r->type->size);
    if (!fresh) break;
    r->type->init(fresh);
    changed += r->type->diff(fresh, r->value, out);
  }
  arena_destroy(&scratch);
  return changed;
}

/* All or nothing: every record is merged into a copy first, and the copies replace the
 * session's records only when each merge succeeded and the new records fit. */
int session_merge_text(session *s, const char *text, char *err, size_t cap) {
  session incoming;
  if (session_restore(&incoming, text, err, cap) != 0) {
    session_free(&incoming);
    return -1;
  }
  void *merged[SESSION_MAX_RECORDS];
  long existing[SESSION_MAX_RECORDS];
  size_t added = 0;
  int rc = 0;
  for (size_t i = 0; i < incoming.count && rc == 0; i++) {
    const session_record *from = &incoming.records[i];
    existing[i] = find_slot(s, from->type->domain, from->type->name);
    if (existing[i] < 0) added++;
    merged[i] = arena_calloc(&s->mem, 1, from->type->size);
    if (!merged[i]) {
      snprintf(err, cap, "out of memory");
      rc = -1;
    } else if (existing[i] >= 0) {
      memcpy(merged[i], s->records[existing[i]].value, from->type->size);
    } else {
      from->type->init(merged[i]);
    }
    if (rc == 0 && from->type->merge(merged[i], from->value) != 0) {
      snprintf(err, cap, "%s.%s: a list would hold more than it can", from->type->domain, from->type->name);
      rc = -1;
    }
  }
  if (rc == 0 && s->count + added > SESSION_MAX_RECORDS) {
    snprintf(err, cap, "more than %d records", SESSION_MAX_RECORDS);
    rc = -1;
  }
  for (size_t i = 0; i < incoming.count && rc == 0; i++) {
    if (existing[i] >= 0) {
      s->records[existing[i]].value = merged[i];
    } else {
      s->records[s->count].type = incoming.records[i].type;
      s->records[s->count].value = merged[i];
      s->count++;
    }
  }
  session_free(&incoming);
  return rc;
}
