/* A small program whose launch calls a known sequence of functions spread over
   several files, with functions that never run at launch between them. */
#ifndef APP_H
#define APP_H
#define NOINLINE __attribute__((noinline))

/* config.c */
int config_load(int seed);
int config_validate(int value);
int config_dump_unused(int value);
int config_migrate_unused(int value);

/* store.c */
int store_open(int value);
int store_index(int value);
int store_repair_unused(int value);
int store_compact_after_launch(int value);

/* ui.c */
int ui_layout(int value);
int ui_first_frame(int value);
int ui_settings_unused(int value);

/* libplugin.so */
int plugin_register(int value);
int plugin_activate(int value);
int plugin_uninstall_unused(int value);
#endif
