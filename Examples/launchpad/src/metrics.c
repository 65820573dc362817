/*
 * metrics.c - named counters and latency histograms, rendered by /metrics.
 */
#include "launchpad.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define MAX_COUNTERS 48
#define MAX_HISTOGRAMS 8

static const uint64_t bucket_bounds[12] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000, UINT64_MAX};

static struct {
  pthread_mutex_t lock;
  struct {
    const char *name;
    uint64_t value;
  } counters[MAX_COUNTERS];
  int ncounters;
  histogram hists[MAX_HISTOGRAMS];
  int nhists;
} M = {.lock = PTHREAD_MUTEX_INITIALIZER};

void metrics_init(void) {
  pthread_mutex_lock(&M.lock);
  M.ncounters = 0;
  M.nhists = 0;
  pthread_mutex_unlock(&M.lock);
}

static int counter_slot(const char *name) {
  for (int i = 0; i < M.ncounters; i++)
    if (strcmp(M.counters[i].name, name) == 0) return i;
  if (M.ncounters == MAX_COUNTERS) return -1;
  M.counters[M.ncounters].name = name;
  M.counters[M.ncounters].value = 0;
  return M.ncounters++;
}

void metrics_reset(void) {
  pthread_mutex_lock(&M.lock);
  for (int i = 0; i < M.ncounters; i++) M.counters[i].value = 0;
  for (int i = 0; i < M.nhists; i++) {
    M.hists[i].count = M.hists[i].sum = 0;
    memset(M.hists[i].buckets, 0, sizeof M.hists[i].buckets);
  }
  pthread_mutex_unlock(&M.lock);
}

void metrics_add(const char *name, uint64_t v) {
  pthread_mutex_lock(&M.lock);
  int i = counter_slot(name);
  if (i >= 0) M.counters[i].value += v;
  pthread_mutex_unlock(&M.lock);
}

void metrics_inc(const char *name) { metrics_add(name, 1); }

static histogram *hist_slot(const char *name) {
  for (int i = 0; i < M.nhists; i++)
    if (strcmp(M.hists[i].name, name) == 0) return &M.hists[i];
  if (M.nhists == MAX_HISTOGRAMS) return NULL;
  histogram *h = &M.hists[M.nhists++];
  memset(h, 0, sizeof *h);
  h->name = name;
  return h;
}

uint64_t metrics_get(const char *name) {
  uint64_t v = 0;
  pthread_mutex_lock(&M.lock);
  for (int i = 0; i < M.ncounters; i++)
    if (strcmp(M.counters[i].name, name) == 0) v = M.counters[i].value;
  pthread_mutex_unlock(&M.lock);
  return v;
}

void metrics_observe(const char *name, uint64_t v) {
  pthread_mutex_lock(&M.lock);
  histogram *h = hist_slot(name);
  if (h) {
    h->count++;
    h->sum += v;
    int b = 0;
    while (v > bucket_bounds[b]) b++;
    h->buckets[b]++;
  }
  pthread_mutex_unlock(&M.lock);
}

int metrics_render_json(strbuf *out) {
  pthread_mutex_lock(&M.lock);
  sb_append(out, "{\"counters\":{");
  for (int i = 0; i < M.ncounters; i++) {
    if (i) sb_append_char(out, ',');
    sb_append_json_string(out, M.counters[i].name);
    sb_appendf(out, ":%llu", (unsigned long long)M.counters[i].value);
  }
  sb_append(out, "},\"histograms\":{");
  for (int i = 0; i < M.nhists; i++) {
    if (i) sb_append_char(out, ',');
    sb_append_json_string(out, M.hists[i].name);
    sb_appendf(out, ":{\"count\":%llu,\"sum\":%llu}", (unsigned long long)M.hists[i].count,
               (unsigned long long)M.hists[i].sum);
  }
  sb_append(out, "}}");
  pthread_mutex_unlock(&M.lock);
  return out->oom ? -1 : 0;
}

uint64_t metrics_quantile(const char *name, double q) {
  uint64_t result = 0;
  pthread_mutex_lock(&M.lock);
  for (int i = 0; i < M.nhists; i++) {
    histogram *h = &M.hists[i];
    if (strcmp(h->name, name) != 0 || h->count == 0) continue;
    uint64_t want = (uint64_t)(q * (double)h->count + 0.5), seen = 0;
    for (int b = 0; b < 12; b++) {
      seen += h->buckets[b];
      if (seen >= want) {
        result = bucket_bounds[b];
        break;
      }
    }
  }
  pthread_mutex_unlock(&M.lock);
  return result;
}

int metrics_render_text(strbuf *out) {
  pthread_mutex_lock(&M.lock);
  for (int i = 0; i < M.ncounters; i++)
    sb_appendf(out, "%s %llu\n", M.counters[i].name, (unsigned long long)M.counters[i].value);
  for (int i = 0; i < M.nhists; i++) {
    histogram *h = &M.hists[i];
    sb_appendf(out, "%s_count %llu\n", h->name, (unsigned long long)h->count);
  }
  pthread_mutex_unlock(&M.lock);
  return out->oom ? -1 : 0;
}

uint64_t metrics_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}
