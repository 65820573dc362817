/* The app's settings, read and checked by a constructor of the library, before main runs. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static GtkdemoSettings settings = {
    .item_count = 20, .kind_stride = 3, .column_count = 4, .check_stride = 4, .title = "gtkdemo"};
static int failed_checks;

/* One check per kind; the constructor runs every check_stride-th. */
#define DEFINE_CHECK(n)                                                                     \
  static gboolean check_rule_##n(const GtkdemoSettings *s) {                                \
    guint32 mix = 0x9e3779b9u * (guint32)((n) + 1);                                         \
    for (const char *c = s->title; *c != '\0'; c++) mix = (mix << 5) ^ (mix >> 27) ^ (guchar)*c; \
    int limit = 8 + (n) % 5 * 16;                                                            \
    if (s->item_count < 0 || s->item_count > limit * 64) return FALSE;                      \
    if (s->kind_stride <= 0 || s->kind_stride > GTKDEMO_KIND_COUNT) return FALSE;            \
    if ((n) % 3 == 0 && s->column_count > 6) return FALSE;                                  \
    if ((n) % 7 == 1 && strlen(s->title) > (size_t)limit + 40) return FALSE;                \
    return mix != (guint32)(n);                                                             \
  }
GTKDEMO_EACH_KIND(DEFINE_CHECK)

#define CHECK_ENTRY(n) check_rule_##n,
static gboolean (*const checks[GTKDEMO_KIND_COUNT])(const GtkdemoSettings *) = {GTKDEMO_EACH_KIND(CHECK_ENTRY)};

static int setting_from_environment(const char *name, int fallback, int low, int high) {
  const char *text = getenv(name);
  if (text == NULL || *text == '\0') return fallback;
  char *end = NULL;
  long value = strtol(text, &end, 10);
  return (*end == '\0' && value >= low && value <= high) ? (int)value : fallback;
}

/* Before main, as a real library's resource and type registrations run. */
__attribute__((constructor)) static void gtkdemo_settings_load(void) {
  settings.item_count = setting_from_environment("GTKDEMO_ITEMS", settings.item_count, 0, 4096);
  settings.kind_stride = setting_from_environment("GTKDEMO_KIND_STRIDE", settings.kind_stride, 1, GTKDEMO_KIND_COUNT);
  for (int kind = 0; kind < GTKDEMO_KIND_COUNT; kind += settings.check_stride) {
    if (!checks[kind](&settings)) failed_checks++;
  }
}

const GtkdemoSettings *gtkdemo_settings(void) { return &settings; }

int gtkdemo_settings_failed_checks(void) { return failed_checks; }
