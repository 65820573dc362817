/* The tree view's columns: one cell renderer function per kind of column, the first few
 * used; they run when the tree view first draws, before the launch's first idle. */
#include "internal.h"

#define DEFINE_RENDER(n)                                                                               \
  static void render_column_##n(GtkTreeViewColumn *column, GtkCellRenderer *cell, GtkTreeModel *model,  \
                                GtkTreeIter *iter, gpointer data) {                                     \
    (void)column;                                                                                        \
    (void)data;                                                                                          \
    gchar *name = NULL, *description = NULL;                                                             \
    gdouble weight = 0;                                                                                  \
    gint kind = 0;                                                                                       \
    gtk_tree_model_get(model, iter, GTKDEMO_COLUMN_NAME, &name, GTKDEMO_COLUMN_DESCRIPTION, &description, \
                       GTKDEMO_COLUMN_WEIGHT, &weight, GTKDEMO_COLUMN_KIND, &kind, -1);                  \
    gchar *text;                                                                                         \
    switch ((n) % 4) {                                                                                   \
    case 0: text = g_strdup(name); break;                                                                \
    case 1: text = g_strdup_printf("%.*s", 24 + (n), description); break;                                \
    case 2: text = g_strdup_printf("%.1f", weight * ((n) + 1)); break;                                   \
    default: text = g_strdup_printf("#%d/%d", kind, (n)); break;                                         \
    }                                                                                                    \
    g_object_set(cell, "text", text, NULL);                                                              \
    g_free(text);                                                                                        \
    g_free(name);                                                                                        \
    g_free(description);                                                                                 \
  }
GTKDEMO_EACH_KIND(DEFINE_RENDER)

#define RENDER_ENTRY(n) render_column_##n,
static GtkTreeCellDataFunc const renderers[GTKDEMO_KIND_COUNT] = {GTKDEMO_EACH_KIND(RENDER_ENTRY)};

void gtkdemo_render_add_columns(GtkTreeView *view, int count) {
  static const char *const titles[] = {"Name", "Description", "Weight", "Kind"};
  for (int index = 0; index < count && index < GTKDEMO_KIND_COUNT; index++) {
    GtkCellRenderer *cell = gtk_cell_renderer_text_new();
    GtkTreeViewColumn *column = gtk_tree_view_column_new();
    gtk_tree_view_column_set_title(column, titles[index % 4]);
    gtk_tree_view_column_pack_start(column, cell, TRUE);
    gtk_tree_view_column_set_cell_data_func(column, cell, renderers[index], NULL, NULL);
    gtk_tree_view_append_column(view, column);
  }
}
