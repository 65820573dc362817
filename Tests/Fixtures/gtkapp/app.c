/* The window and the launch: gtkdemo_run builds the window, shows it and runs the main loop;
 * the first idle callback after the window maps ends the launch (gtkdemo_launch_done). */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "gtkdemo.h"
#include "internal.h"

static GtkdemoWindowState window_state;

static GtkWidget *status_line(const GtkdemoSettings *settings) {
  GtkdemoSummary summary = {0};
  for (int index = 0; index < settings->item_count; index++) {
    GtkdemoItem item;
    gtkdemo_catalog_item(index, settings->kind_stride, &item);
    gtkdemo_summary_add(&summary, &item);
  }
  char *text = gtkdemo_summary_text(&summary);
  GtkWidget *label = gtk_label_new(text);
  g_free(text);
  gtk_label_set_xalign(GTK_LABEL(label), 0.0f);
  return label;
}

static GtkWidget *button_row(GtkdemoWindowState *state) {
  static const char *const labels[] = {"Load more", "Load a few", "Clear", "Load many"};
  GtkWidget *row = gtk_button_box_new(GTK_ORIENTATION_HORIZONTAL);
  gtk_button_box_set_layout(GTK_BUTTON_BOX(row), GTK_BUTTONBOX_START);
  for (int index = 0; index < 4; index++) {
    GtkWidget *button = gtk_button_new_with_label(labels[index]);
    gtkdemo_actions_connect(GTK_BUTTON(button), index * 17 + 1, state);
    gtk_container_add(GTK_CONTAINER(row), button);
  }
  return row;
}

static GtkWidget *catalog_view(const GtkdemoSettings *settings, GtkdemoWindowState *state) {
  state->store = gtk_list_store_new(GTKDEMO_COLUMNS, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_INT);
  gtkdemo_catalog_fill(state->store, settings, 0, settings->item_count);
  state->loaded = settings->item_count;
  GtkWidget *view = gtk_tree_view_new_with_model(GTK_TREE_MODEL(state->store));
  gtkdemo_render_add_columns(GTK_TREE_VIEW(view), settings->column_count);
  GtkWidget *scrolled = gtk_scrolled_window_new(NULL, NULL);
  gtk_widget_set_vexpand(scrolled, TRUE);
  gtk_container_add(GTK_CONTAINER(scrolled), view);
  return scrolled;
}

/* The plugin beside the library (gtkdemo-plugins/libgtkdemo-plugin.so), loaded as a plugin
 * is: with dlopen, after main. Its greeting, or why there is none. */
static char *load_plugin(void) {
  Dl_info self;
  if (dladdr((void *)gtkdemo_run, &self) == 0 || self.dli_fname == NULL) return g_strdup("no plugin: dladdr failed");
  char *directory = g_path_get_dirname(self.dli_fname);
  char *path = g_build_filename(directory, "gtkdemo-plugins", "libgtkdemo-plugin.so", NULL);
  g_free(directory);
  void *plugin = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  const char *(*describe)(void) = plugin != NULL ? (const char *(*)(void))dlsym(plugin, "gtkdemo_plugin_describe") : NULL;
  char *text = describe != NULL ? g_strdup(describe()) : g_strdup_printf("no plugin: %s", dlerror());
  if (describe == NULL) fprintf(stderr, "gtkdemo: %s (%s)\n", text, path);
  g_free(path);
  return text;
}

/* A helper process started at launch and gone at once, as GLib's D-Bus autolaunch forks one:
 * it runs none of the app's code. */
static void start_helper(void) {
  char *argv[] = {"true", NULL};
  GError *error = NULL;
  if (!g_spawn_async(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &error)) {
    fprintf(stderr, "gtkdemo: cannot start the helper: %s\n", error->message);
    g_error_free(error);
  }
}

static GtkWidget *main_window(const GtkdemoSettings *settings) {
  GtkWidget *window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
  gtk_window_set_title(GTK_WINDOW(window), settings->title);
  gtk_window_set_default_size(GTK_WINDOW(window), 640, 480);
  GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
  gtk_container_set_border_width(GTK_CONTAINER(box), 8);
  char *heading = g_strdup_printf("%d kinds registered, %d settings checks failed", gtkdemo_catalog_registered_kinds(),
                                  gtkdemo_settings_failed_checks());
  gtk_box_pack_start(GTK_BOX(box), gtk_label_new(heading), FALSE, FALSE, 0);
  g_free(heading);
  char *plugin = load_plugin();
  gtk_box_pack_start(GTK_BOX(box), gtk_label_new(plugin), FALSE, FALSE, 0);
  g_free(plugin);
  gtk_box_pack_start(GTK_BOX(box), button_row(&window_state), FALSE, FALSE, 0);
  gtk_box_pack_start(GTK_BOX(box), catalog_view(settings, &window_state), TRUE, TRUE, 0);
  GtkWidget *status = status_line(settings);
  window_state.status = GTK_LABEL(status);
  gtk_box_pack_start(GTK_BOX(box), status, FALSE, FALSE, 0);
  gtk_container_add(GTK_CONTAINER(window), box);
  return window;
}

__attribute__((noinline)) void gtkdemo_launch_done(void) {
  printf("gtkdemo: launch done\n");
  fflush(stdout);
  const char *ready = getenv("GTKDEMO_READY_FILE");
  if (ready == NULL || *ready == '\0') return;
  char *pid = g_strdup_printf("%ld\n", (long)getpid());
  GError *error = NULL;
  if (!g_file_set_contents(ready, pid, -1, &error)) {
    fprintf(stderr, "gtkdemo: cannot write %s: %s\n", ready, error->message);
    g_error_free(error);
  }
  g_free(pid);
}

static gboolean first_idle(gpointer data) {
  (void)data;
  gtkdemo_launch_done();
  return G_SOURCE_REMOVE;
}

/* The window is on screen: the launch ends at the next idle, once the first frame is drawn
 * (redraws run at a higher priority than idle callbacks). */
static gboolean window_mapped(GtkWidget *window, GdkEvent *event, gpointer data) {
  (void)event;
  (void)data;
  g_signal_handlers_disconnect_by_func(window, G_CALLBACK(window_mapped), NULL);
  g_idle_add(first_idle, NULL);
  return FALSE;
}

int gtkdemo_run(int argc, char **argv) {
  gtk_init(&argc, &argv);
  start_helper();
  GtkWidget *window = main_window(gtkdemo_settings());
  g_signal_connect(window, "map-event", G_CALLBACK(window_mapped), NULL);
  g_signal_connect(window, "destroy", G_CALLBACK(gtk_main_quit), NULL);
  gtk_widget_show_all(window);
  gtk_main();
  return 0;
}
