/*
 * registry.c - the plugin registry. Plugins come from libwidgets (one per
 * widget kind); they declare what they require and a priority, and are
 * activated in dependency order, highest priority first among equals.
 */
#include "launchpad.h"

#include "widgets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int reg_init(registry *r) {
  memset(r, 0, sizeof *r);
  return hm_init(&r->by_name, 128);
}

static void reg_report_conflict(const char *name, const plugin *existing) {
  log_write(LOG_ERROR, "plugins", "plugin '%s' registered twice (first at position %d, state %d)", name,
            existing->order, existing->state);
}

void reg_free(registry *r) { hm_free(&r->by_name); }

int reg_register(registry *r, const char *name, const char *requires, int priority, const void *impl,
                 const char *summary) {
  plugin *existing = hm_get(&r->by_name, name);
  if (existing) {
    reg_report_conflict(name, existing);
    return -1;
  }
  if (r->n == sizeof r->items / sizeof r->items[0]) {
    log_write(LOG_ERROR, "plugins", "registry full, dropping '%s'", name);
    return -1;
  }
  plugin *p = &r->items[r->n++];
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "%s", name);
  snprintf(p->summary, sizeof p->summary, "%s", summary);
  p->requires = requires;
  p->priority = priority;
  p->impl = impl;
  p->state = PLUGIN_LOADED;
  p->order = -1;
  return hm_put(&r->by_name, p->name, p);
}

int reg_unload(registry *r, const char *name) {
  plugin *p = hm_get(&r->by_name, name);
  if (!p) return -1;
  if (p->state == PLUGIN_ACTIVE) {
    for (size_t i = 0; i < r->n; i++) {
      if (r->items[i].requires && strcmp(r->items[i].requires, name) == 0 && r->items[i].state == PLUGIN_ACTIVE) {
        log_write(LOG_WARN, "plugins", "cannot unload '%s': '%s' depends on it", name, r->items[i].name);
        return -1;
      }
    }
  }
  hm_remove(&r->by_name, name);
  p->state = PLUGIN_DISABLED;
  return 0;
}

plugin *reg_find(registry *r, const char *name) { return hm_get(&r->by_name, name); }

static int by_priority(const void *a, const void *b) {
  const plugin *const *x = a, *const *y = b;
  if ((*x)->priority != (*y)->priority) return (*y)->priority - (*x)->priority;
  return strcmp((*x)->name, (*y)->name);
}

/* Depth-first topological sort; `mark` is 0 new, 1 visiting, 2 done. */
static int visit(registry *r, plugin *p, int *mark, int *next, strbuf *err) {
  size_t idx = (size_t)(p - r->items);
  if (mark[idx] == 2) return 0;
  if (mark[idx] == 1) {
    sb_appendf(err, "dependency cycle through '%s'", p->name);
    return -1;
  }
  mark[idx] = 1;
  if (p->requires) {
    plugin *dep = hm_get(&r->by_name, p->requires);
    if (!dep) {
      sb_appendf(err, "'%s' requires missing plugin '%s'", p->name, p->requires);
      return -1;
    }
    if (visit(r, dep, mark, next, err) != 0) return -1;
  }
  mark[idx] = 2;
  p->order = (*next)++;
  return 0;
}

int reg_resolve_order(registry *r, strbuf *err) {
  plugin *sorted[64];
  int mark[64] = {0};
  int next = 0;
  for (size_t i = 0; i < r->n; i++) sorted[i] = &r->items[i];
  qsort(sorted, r->n, sizeof sorted[0], by_priority);
  for (size_t i = 0; i < r->n; i++)
    if (visit(r, sorted[i], mark, &next, err) != 0) return -1;
  return next;
}

int reg_disable(registry *r, const char *name) {
  plugin *p = hm_get(&r->by_name, name);
  if (!p) return -1;
  p->state = PLUGIN_DISABLED;
  return 0;
}

static int activate_one(registry *r, plugin *p) {
  if (p->state == PLUGIN_DISABLED) return 0;
  if (p->requires) {
    plugin *dep = hm_get(&r->by_name, p->requires);
    if (!dep || dep->state != PLUGIN_ACTIVE) {
      log_write(LOG_WARN, "plugins", "'%s' not activated: '%s' is not active", p->name, p->requires);
      p->state = PLUGIN_FAILED;
      r->failures++;
      return -1;
    }
  }
  const wg_kind *k = p->impl;
  if (k && k->abi != WG_ABI_VERSION) {
    log_write(LOG_ERROR, "plugins", "'%s' built for ABI %d, host has %d", p->name, k->abi, WG_ABI_VERSION);
    p->state = PLUGIN_FAILED;
    r->failures++;
    return -1;
  }
  p->state = PLUGIN_ACTIVE;
  r->activations++;
  LOGD("plugins", "activated %s (order %d, priority %d)", p->name, p->order, p->priority);
  return 0;
}

int reg_describe(const registry *r, strbuf *out) {
  static const char *const states[] = {"loaded", "active", "failed", "disabled"};
  for (size_t i = 0; i < r->n; i++) {
    const plugin *p = &r->items[i];
    sb_appendf(out, "%-12s %-8s order %2d prio %3d  %s\n", p->name, states[p->state], p->order, p->priority,
               p->summary);
  }
  return (int)r->n;
}

int reg_activate_all(registry *r, const config *c) {
  strview disabled[32];
  int nd = cfg_get_list(c, "plugins.disabled", disabled, 32);
  for (int i = 0; i < nd; i++) {
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)disabled[i].n, disabled[i].p);
    reg_disable(r, name);
  }
  plugin *by_order[64];
  for (size_t i = 0; i < r->n; i++) by_order[r->items[i].order] = &r->items[i];
  int failed = 0;
  for (size_t i = 0; i < r->n; i++) failed += activate_one(r, by_order[i]) != 0;
  if (failed && cfg_get_bool(c, "plugins.strict", 0)) {
    log_write(LOG_ERROR, "plugins", "%d plugins failed and plugins.strict is set", failed);
    return -1;
  }
  return (int)r->activations;
}

size_t reg_count_state(const registry *r, plugin_state state) {
  size_t n = 0;
  for (size_t i = 0; i < r->n; i++) n += r->items[i].state == state;
  return n;
}

int reg_load_widget_plugins(registry *r) {
  size_t n = wg_kind_count();
  int loaded = 0;
  for (size_t i = 0; i < n; i++) {
    const wg_kind *k = wg_kind_at(i);
    char summary[96];
    k->describe(NULL, summary, sizeof summary);
    if (reg_register(r, k->name, k->requires, k->priority, k, summary) == 0) loaded++;
  }
  LOGI("plugins", "%d widget plugins from %s", loaded, wg_library_version());
  return loaded;
}
