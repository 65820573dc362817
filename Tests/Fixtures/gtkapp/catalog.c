/* The catalog the tree view shows: items of 64 kinds, each described by its kind's function. */
#include <stdio.h>

#include "internal.h"

#define DEFINE_DESCRIBE(n)                                                                         \
  static char *describe_kind_##n(const GtkdemoItem *item) {                                         \
    guint32 hash = 2166136261u ^ (guint32)(n);                                                      \
    for (const char *c = item->name; *c != '\0'; c++) hash = (hash ^ (guchar)*c) * (16777619u + 2u * (n)); \
    double weight = item->weight * (1.0 + (n) / 64.0);                                              \
    if (hash % ((n) + 3) == 0) weight = -weight;                                                    \
    const char *grade = weight > 40.0 ? "heavy" : weight > 10.0 ? "medium" : "light";               \
    return g_strdup_printf("%s: kind %d, %s %.2f, tag %08x", item->name, (n), grade, weight, hash); \
  }
GTKDEMO_EACH_KIND(DEFINE_DESCRIBE)

#define DESCRIBE_ENTRY(n) describe_kind_##n,
static char *(*const describers[GTKDEMO_KIND_COUNT])(const GtkdemoItem *) = {GTKDEMO_EACH_KIND(DESCRIBE_ENTRY)};

static GQuark kind_names[GTKDEMO_KIND_COUNT];

/* A second constructor of the library, in another file: names every kind that has a
 * describer, as a real library registers its types before main. */
__attribute__((constructor)) static void gtkdemo_catalog_register(void) {
  for (int kind = 0; kind < GTKDEMO_KIND_COUNT; kind++) {
    if (describers[kind] == NULL) continue;
    char name[32];
    snprintf(name, sizeof name, "gtkdemo-kind-%d", kind);
    kind_names[kind] = g_quark_from_string(name);
  }
}

int gtkdemo_catalog_registered_kinds(void) {
  int count = 0;
  for (int kind = 0; kind < GTKDEMO_KIND_COUNT; kind++) count += kind_names[kind] != 0;
  return count;
}

void gtkdemo_catalog_item(int index, int stride, GtkdemoItem *item) {
  static const char *const stems[] = {"alder", "birch", "cedar", "dogwood", "elm", "fir", "ginkgo", "hazel"};
  item->kind = (index * stride) % GTKDEMO_KIND_COUNT;
  item->weight = (double)((index * 37 + 11) % 97) / 2.0;
  snprintf(item->name, sizeof item->name, "%s-%03d", stems[index % 8], index);
}

char *gtkdemo_catalog_describe(const GtkdemoItem *item) { return describers[item->kind](item); }

void gtkdemo_catalog_fill(GtkListStore *store, const GtkdemoSettings *settings, int first, int count) {
  for (int index = first; index < first + count; index++) {
    GtkdemoItem item;
    gtkdemo_catalog_item(index, settings->kind_stride, &item);
    char *description = gtkdemo_catalog_describe(&item);
    GtkTreeIter iter;
    gtk_list_store_append(store, &iter);
    gtk_list_store_set(store, &iter, GTKDEMO_COLUMN_NAME, item.name, GTKDEMO_COLUMN_DESCRIPTION, description,
                       GTKDEMO_COLUMN_WEIGHT, item.weight, GTKDEMO_COLUMN_KIND, item.kind, -1);
    g_free(description);
  }
}
