/* The status line's summary: each item is added by its kind's summarizer. */
#include <math.h>

#include "internal.h"

#define DEFINE_SUMMARIZE(n)                                                                 \
  static void summarize_kind_##n(GtkdemoSummary *summary, const GtkdemoItem *item) {        \
    double value = item->weight * ((n) % 4 + 1) + (n) * 0.25;                                \
    if ((n) % 5 == 2) value = sqrt(value + 1.0);                                             \
    summary->total += value;                                                                 \
    if (value > summary->largest) summary->largest = value;                                  \
    summary->count += 1;                                                                     \
    for (const char *c = item->name; *c != '\0'; c++)                                        \
      summary->digest = (summary->digest * (31u + (n))) ^ (guchar)*c;                        \
  }
GTKDEMO_EACH_KIND(DEFINE_SUMMARIZE)

#define SUMMARIZE_ENTRY(n) summarize_kind_##n,
static void (*const summarizers[GTKDEMO_KIND_COUNT])(GtkdemoSummary *, const GtkdemoItem *) = {
    GTKDEMO_EACH_KIND(SUMMARIZE_ENTRY)};

void gtkdemo_summary_add(GtkdemoSummary *summary, const GtkdemoItem *item) { summarizers[item->kind](summary, item); }

char *gtkdemo_summary_text(const GtkdemoSummary *summary) {
  double mean = summary->count > 0 ? summary->total / summary->count : 0.0;
  return g_strdup_printf("%d items, mean %.2f, largest %.2f, digest %08x", summary->count, mean, summary->largest,
                         summary->digest);
}
