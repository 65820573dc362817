/*
 * session.h - the saved session (see session.c) and lookup of record types.
 */
#ifndef LAUNCHPAD_SESSION_H
#define LAUNCHPAD_SESSION_H

#include "records.h"

enum { SESSION_MAX_RECORDS = 32 };

typedef struct {
  const rec_type *type;
  void *value;
} session_record;

typedef struct session {
  arena mem;
  session_record records[SESSION_MAX_RECORDS];
  size_t count;
  size_t wire_bytes;
  uint32_t checksum;
} session;

const rec_type *rec_find(const char *domain, const char *name);
size_t rec_total_count(void);

/* text NULL restores the built-in session. 0 on success; otherwise -1 with
 * the reason in err. */
int session_restore(session *s, const char *text, char *err, size_t cap);
const session_record *session_get(const session *s, const char *domain, const char *name);
int session_print(const session *s, const char *only, strbuf *out);
int session_diff_defaults(const session *s, strbuf *out);
int session_merge_text(session *s, const char *text, char *err, size_t cap);
void session_free(session *s);

#endif
