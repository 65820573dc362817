/*
 * config.c - the ORDERFILE_* environment variables.
 *
 * A bad value never stops the host program: it gets exactly one warning line
 * on stderr, naming the variable, quoting the value and giving the default
 * used instead, and the runtime carries on.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime_internal.h"

/* ORDERFILE_TIME_LIMIT_MS upper bound: about 49 days. */
#define OF_TIME_LIMIT_MAX_MS 4294967295ull

static void of_config_warning(const char *name, const char *value, const char *why,
                              const char *fallback) OF_NOINSTR;
static void of_config_warning(const char *name, const char *value, const char *why,
                              const char *fallback) {
  /* Quote at most 200 bytes of the value, control characters shown as '?', so
   * the warning stays one bounded line whatever the value holds. */
  char shown[201];
  size_t used = 0;
  for (; value[used] != '\0' && used < sizeof shown - 1; used++) {
    unsigned char byte = (unsigned char)value[used];
    shown[used] = byte < 0x20 || byte == 0x7f ? '?' : (char)byte;
  }
  shown[used] = '\0';
  char line[768];
  int length = snprintf(line, sizeof line, "orderfile: warning: ignoring %s='%s%s': %s; using %s\n",
                        name, shown, value[used] != '\0' ? "..." : "", why, fallback);
  if (length <= 0) {
    return;
  }
  if ((size_t)length >= sizeof line) {
    length = (int)sizeof line - 1;
    line[length - 1] = '\n';
  }
  ssize_t ignored = write(STDERR_FILENO, line, (size_t)length);
  (void)ignored;
}

/* Parses a decimal integer made only of digits; false on anything else or overflow. */
static bool of_parse_decimal(const char *text, uint64_t *value) OF_NOINSTR;
static bool of_parse_decimal(const char *text, uint64_t *value) {
  if (*text == '\0') {
    return false;
  }
  uint64_t result = 0;
  for (const char *cursor = text; *cursor != '\0'; cursor++) {
    if (*cursor < '0' || *cursor > '9') {
      return false;
    }
    uint64_t digit = (uint64_t)(*cursor - '0');
    if (result > (UINT64_MAX - digit) / 10u) {
      return false;
    }
    result = result * 10u + digit;
  }
  *value = result;
  return true;
}

/* A variable's value; NULL when it is unset or empty (both mean "use the default"). */
static const char *of_getenv(const char *name) OF_NOINSTR;
static const char *of_getenv(const char *name) {
  const char *value = getenv(name);
  return value != NULL && value[0] != '\0' ? value : NULL;
}

/* Reads a 0/1 switch. Unset or empty means 0. */
static bool of_read_switch(const char *name) OF_NOINSTR;
static bool of_read_switch(const char *name) {
  const char *value = of_getenv(name);
  if (value == NULL || strcmp(value, "0") == 0) {
    return false;
  }
  if (strcmp(value, "1") == 0) {
    return true;
  }
  of_config_warning(name, value, "expected 0 or 1", "0");
  return false;
}

/* Reads a whole number in [minimum, maximum]; unset, empty or bad (one warning) keeps `fallback`. */
static uint64_t of_read_bounded(const char *name, const char *unit, uint64_t minimum, uint64_t maximum,
                                uint64_t fallback) OF_NOINSTR;
static uint64_t of_read_bounded(const char *name, const char *unit, uint64_t minimum, uint64_t maximum,
                                uint64_t fallback) {
  const char *text = of_getenv(name);
  if (text == NULL) {
    return fallback;
  }
  uint64_t value = 0;
  if (!of_parse_decimal(text, &value) || value < minimum || value > maximum) {
    char why[128], shown_fallback[32];
    snprintf(why, sizeof why, "expected a whole number of %s from %" PRIu64 " to %" PRIu64, unit,
             minimum, maximum);
    snprintf(shown_fallback, sizeof shown_fallback, "%" PRIu64, fallback);
    of_config_warning(name, text, why, shown_fallback);
    return fallback;
  }
  return value;
}

/*
 * ORDERFILE_SPAWN, "<pid>:<ns>": set by a recorder that starts the program,
 * its pid and its CLOCK_MONOTONIC time just before the spawn. Only that pid's
 * direct child may take it as its start (of_draft_header checks getppid()):
 * the variable is inherited by every process the program starts, whose own
 * start it is not.
 */
bool of_parse_spawn(const char *text, uint32_t *pid_out, uint64_t *time_out) {
  const char *colon = strchr(text, ':');
  char pid_text[24];
  uint64_t pid = 0, time = 0;
  size_t pid_length = colon != NULL ? (size_t)(colon - text) : 0;
  if (colon == NULL || pid_length == 0 || pid_length >= sizeof pid_text) {
    return false;
  }
  memcpy(pid_text, text, pid_length);
  pid_text[pid_length] = '\0';
  if (!of_parse_decimal(pid_text, &pid) || pid == 0 || pid > UINT32_MAX || !of_parse_decimal(colon + 1, &time) ||
      time == 0) {
    return false;
  }
  *pid_out = (uint32_t)pid;
  *time_out = time;
  return true;
}

static void of_read_spawn(of_config *config) OF_NOINSTR;
static void of_read_spawn(of_config *config) {
  const char *text = of_getenv("ORDERFILE_SPAWN");
  if (text == NULL) {
    return;
  }
  if (!of_parse_spawn(text, &config->spawner_pid, &config->spawn_ns)) {
    of_config_warning("ORDERFILE_SPAWN", text, "expected <pid>:<CLOCK_MONOTONIC ns>",
                      "the start from /proc/self/stat");
  }
}

/*
 * Makes a relative pattern absolute, in the directory the process is in now
 * (its first call's): a process that changes directory later, and the fork
 * children it starts from there, still write where the pattern meant. The
 * directory's own '%' are written "%%", so that they stay themselves. With
 * `exported`, ORDERFILE_OUTPUT is set to the absolute pattern too, so that a
 * program executed from another directory writes there as well; the variable
 * exists already, so glibc's setenv replaces its entry in place and keeps the
 * old string (a getenv on another thread reads one or the other). A directory that
 * cannot be read, or a pattern that would not fit, leaves it as it is.
 */
static void of_make_pattern_absolute(char *pattern, size_t capacity, bool exported) OF_NOINSTR;
static void of_make_pattern_absolute(char *pattern, size_t capacity, bool exported) {
  char directory[OF_PATH_CAPACITY];
  if (pattern[0] == '/' || getcwd(directory, sizeof directory) == NULL || directory[0] != '/') {
    return;
  }
  char absolute[OF_PATH_CAPACITY];
  size_t length = 0;
  for (const char *cursor = directory; *cursor != '\0'; cursor++) {
    size_t width = *cursor == '%' ? 2u : 1u;
    if (length + width >= sizeof absolute) {
      return;
    }
    absolute[length++] = *cursor;
    if (width == 2u) {
      absolute[length++] = '%';
    }
  }
  size_t rest = strlen(pattern);
  if (length + 1 + rest >= sizeof absolute || length + 1 + rest >= capacity) {
    return;
  }
  absolute[length++] = '/';
  memcpy(absolute + length, pattern, rest + 1);
  memcpy(pattern, absolute, length + rest + 1);
  if (exported) {
    setenv("ORDERFILE_OUTPUT", pattern, 1);
  }
}

/*
 * Fills `config` from the environment, warning once per bad value.
 * Precondition: called once, at initialization (getenv is not thread-safe
 * against a concurrent setenv).
 */
void of_read_config(of_config *config) {
  memset(config, 0, sizeof *config);
  config->capacity = OF_CAPACITY_DEFAULT;
  config->mark_capacity = OF_MARKS_DEFAULT;
  config->event_capacity = OF_EVENTS_DEFAULT;
  config->event_threads = OF_EVENT_THREADS_DEFAULT;
  strcpy(config->pattern, OF_DEFAULT_PATTERN);

  config->disabled = of_read_switch("ORDERFILE_DISABLE");
  config->verbose = of_read_switch("ORDERFILE_VERBOSE");
  config->emulated = of_read_switch("ORDERFILE_EMULATED");
  of_read_spawn(config);

  const char *output = of_getenv("ORDERFILE_OUTPUT");
  if (output != NULL) {
    char escape = 0;
    if (strlen(output) >= sizeof config->pattern) {
      of_config_warning("ORDERFILE_OUTPUT", output, "path too long", OF_DEFAULT_PATTERN);
    } else if (!of_pattern_is_valid(output, &escape)) {
      char why[64];
      if (escape == 0) {
        snprintf(why, sizeof why, "'%%' at the end (write %%%% for a percent sign)");
      } else {
        snprintf(why, sizeof why, "unknown '%%%c' (known: %%p, %%e, %%%%)", escape);
      }
      of_config_warning("ORDERFILE_OUTPUT", output, why, OF_DEFAULT_PATTERN);
    } else {
      strcpy(config->pattern, output);
    }
  }
  if (!config->disabled) {
    of_make_pattern_absolute(config->pattern, sizeof config->pattern,
                             output != NULL && strcmp(config->pattern, output) == 0);
  }

  const char *limit = of_getenv("ORDERFILE_TIME_LIMIT_MS");
  if (limit != NULL) {
    uint64_t value = 0;
    if (!of_parse_decimal(limit, &value) || value == 0 || value > OF_TIME_LIMIT_MAX_MS) {
      of_config_warning("ORDERFILE_TIME_LIMIT_MS", limit,
                        "expected a whole number of milliseconds from 1 to 4294967295",
                        "no time limit");
    } else {
      config->time_limit_ms = value;
    }
  }

  const char *capacity = of_getenv("ORDERFILE_CAPACITY");
  if (capacity != NULL) {
    uint64_t value = 0;
    if (!of_parse_decimal(capacity, &value) || value < OF_CAPACITY_MIN || value > OF_CAPACITY_MAX) {
      char why[96], fallback[32];
      snprintf(why, sizeof why, "expected a whole number of records from %u to %u",
               OF_CAPACITY_MIN, OF_CAPACITY_MAX);
      snprintf(fallback, sizeof fallback, "%u", OF_CAPACITY_DEFAULT);
      of_config_warning("ORDERFILE_CAPACITY", capacity, why, fallback);
    } else {
      config->capacity = value;
    }
  }

  const char *mode = of_getenv("ORDERFILE_MODE");
  if (mode != NULL) {
    if (strcmp(mode, "full") == 0) {
      config->full_mode = true;
    } else if (strcmp(mode, "first-call") != 0) {
      of_config_warning("ORDERFILE_MODE", mode, "expected first-call or full", "first-call");
    }
  }
  config->mark_capacity =
      (uint32_t)of_read_bounded("ORDERFILE_MARKS", "marks", OF_MARKS_MIN, OF_MARKS_MAX, OF_MARKS_DEFAULT);
  config->event_capacity = of_read_bounded("ORDERFILE_EVENTS", "events per thread", OF_EVENTS_MIN,
                                           OF_EVENTS_MAX, OF_EVENTS_DEFAULT);
  config->event_threads = (uint32_t)of_read_bounded("ORDERFILE_EVENT_THREADS", "threads",
                                                    OF_EVENT_THREADS_MIN, OF_EVENT_THREADS_MAX,
                                                    OF_EVENT_THREADS_DEFAULT);
}
