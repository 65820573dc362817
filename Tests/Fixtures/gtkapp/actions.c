/* The buttons' handlers, one per kind: connected at launch, run only when clicked. */
#include "internal.h"

#define DEFINE_ACTION(n)                                                                         \
  static void action_kind_##n(GtkButton *button, gpointer data) {                                \
    GtkdemoWindowState *state = data;                                                             \
    const GtkdemoSettings *settings = gtkdemo_settings();                                         \
    int count = (n) % 3 == 0 ? 0 : settings->item_count / ((n) % 4 + 1) + 1;                      \
    if (count == 0) {                                                                             \
      gtk_list_store_clear(state->store);                                                         \
      state->loaded = 0;                                                                          \
    } else {                                                                                      \
      gtkdemo_catalog_fill(state->store, settings, state->loaded, count);                         \
      state->loaded += count;                                                                     \
    }                                                                                             \
    gchar *text = g_strdup_printf("%s (action %d): %d items", gtk_button_get_label(button), (n),   \
                                  state->loaded);                                                 \
    gtk_label_set_text(state->status, text);                                                      \
    g_free(text);                                                                                 \
  }
GTKDEMO_EACH_KIND(DEFINE_ACTION)

#define ACTION_ENTRY(n) action_kind_##n,
static void (*const actions[GTKDEMO_KIND_COUNT])(GtkButton *, gpointer) = {GTKDEMO_EACH_KIND(ACTION_ENTRY)};

void gtkdemo_actions_connect(GtkButton *button, int kind, GtkdemoWindowState *state) {
  g_signal_connect(button, "clicked", G_CALLBACK(actions[kind % GTKDEMO_KIND_COUNT]), state);
}
