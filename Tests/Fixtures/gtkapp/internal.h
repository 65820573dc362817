/* What the library's files share. Every function here is hidden: only gtkdemo.h is exported. */
#ifndef GTKDEMO_INTERNAL_H
#define GTKDEMO_INTERNAL_H

#include <gtk/gtk.h>

/* Each family of functions below has one member per kind, 0 to 63, one function section each,
 * in kind order: the kinds a launch uses are scattered among those it does not, so the
 * default layout spreads the launch's code over many pages, as a real library does. */
#define GTKDEMO_KIND_COUNT 64
#define GTKDEMO_EACH_KIND(X)                                                                     \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)   \
  X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)     \
  X(32) X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) X(44) X(45) X(46)     \
  X(47) X(48) X(49) X(50) X(51) X(52) X(53) X(54) X(55) X(56) X(57) X(58) X(59) X(60) X(61)     \
  X(62) X(63)

typedef struct {
  char name[32];
  int kind;
  double weight;
} GtkdemoItem;

typedef struct {
  int item_count;   /* items in the catalog at launch */
  int kind_stride;  /* the launch's items use every kind_stride-th kind */
  int column_count; /* columns of the tree view */
  int check_stride; /* the settings checks run at load: every check_stride-th */
  const char *title;
} GtkdemoSettings;

typedef struct {
  double total;
  double largest;
  int count;
  guint32 digest;
} GtkdemoSummary;

enum { GTKDEMO_COLUMN_NAME, GTKDEMO_COLUMN_DESCRIPTION, GTKDEMO_COLUMN_WEIGHT, GTKDEMO_COLUMN_KIND, GTKDEMO_COLUMNS };

/* settings.c: read once by a constructor, before main. */
const GtkdemoSettings *gtkdemo_settings(void);
int gtkdemo_settings_failed_checks(void);

/* catalog.c */
int gtkdemo_catalog_registered_kinds(void);
void gtkdemo_catalog_item(int index, int stride, GtkdemoItem *item);
char *gtkdemo_catalog_describe(const GtkdemoItem *item);
void gtkdemo_catalog_fill(GtkListStore *store, const GtkdemoSettings *settings, int first, int count);

/* summary.c */
void gtkdemo_summary_add(GtkdemoSummary *summary, const GtkdemoItem *item);
char *gtkdemo_summary_text(const GtkdemoSummary *summary);

/* render.c */
void gtkdemo_render_add_columns(GtkTreeView *view, int count);

/* actions.c: the buttons' handlers; none runs at launch. */
typedef struct {
  GtkListStore *store;
  GtkLabel *status;
  int loaded;
} GtkdemoWindowState;
void gtkdemo_actions_connect(GtkButton *button, int kind, GtkdemoWindowState *state);

#endif
