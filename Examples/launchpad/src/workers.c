/*
 * workers.c - a fixed-size thread pool with a bounded job queue.
 */
#include "launchpad.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUEUE_CAP 64

typedef struct {
  job_fn fn;
  void *arg;
} job;

struct pool {
  pthread_mutex_t lock;
  pthread_cond_t has_work, idle;
  job queue[QUEUE_CAP];
  size_t head, len;
  int busy;
  int stopping;
  unsigned completed;
  int nthreads;
  pthread_t threads[32];
  char name[16];
};

static int queue_pop(pool *p, job *out) {
  if (p->len == 0) return 0;
  *out = p->queue[p->head];
  p->head = (p->head + 1) % QUEUE_CAP;
  p->len--;
  return 1;
}

int pool_cancel_pending(pool *p) {
  pthread_mutex_lock(&p->lock);
  int dropped = (int)p->len;
  p->len = 0;
  if (p->busy == 0) pthread_cond_broadcast(&p->idle);
  pthread_mutex_unlock(&p->lock);
  if (dropped) log_write(LOG_WARN, "pool", "%s: cancelled %d pending jobs", p->name, dropped);
  return dropped;
}

static void *worker_main(void *arg) {
  pool *p = arg;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    job j;
    while (!queue_pop(p, &j)) {
      if (p->stopping) goto out;
      pthread_cond_wait(&p->has_work, &p->lock);
    }
    p->busy++;
    pthread_mutex_unlock(&p->lock);
    j.fn(j.arg);
    pthread_mutex_lock(&p->lock);
    p->busy--;
    p->completed++;
    if (p->busy == 0 && p->len == 0) pthread_cond_broadcast(&p->idle);
  }
out:
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

static void pool_fail(pool *p, const char *what, int err) {
  log_write(LOG_ERROR, "pool", "%s: %s failed: %s", p->name, what, strerror(err));
}

pool *pool_create(int threads, const char *name) {
  pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  if (threads < 1) threads = 1;
  if (threads > 32) threads = 32;
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->has_work, NULL);
  pthread_cond_init(&p->idle, NULL);
  snprintf(p->name, sizeof p->name, "%s", name);
  for (int i = 0; i < threads; i++) {
    int err = pthread_create(&p->threads[i], NULL, worker_main, p);
    if (err) {
      pool_fail(p, "pthread_create", err);
      break;
    }
    char tname[16];
    snprintf(tname, sizeof tname, "%.10s-%d", name, i);
    pthread_setname_np(p->threads[i], tname);
    p->nthreads++;
  }
  if (p->nthreads == 0) {
    free(p);
    return NULL;
  }
  LOGD("pool", "%s: %d threads", p->name, p->nthreads);
  return p;
}

int pool_submit(pool *p, job_fn fn, void *arg) {
  pthread_mutex_lock(&p->lock);
  if (p->len == QUEUE_CAP || p->stopping) {
    pthread_mutex_unlock(&p->lock);
    log_write(LOG_WARN, "pool", "%s: queue full, running job inline", p->name);
    fn(arg);
    return 1;
  }
  p->queue[(p->head + p->len) % QUEUE_CAP] = (job){fn, arg};
  p->len++;
  pthread_cond_signal(&p->has_work);
  pthread_mutex_unlock(&p->lock);
  return 0;
}

unsigned pool_completed(const pool *p) { return p->completed; }

void pool_wait(pool *p) {
  pthread_mutex_lock(&p->lock);
  while (p->len > 0 || p->busy > 0) pthread_cond_wait(&p->idle, &p->lock);
  pthread_mutex_unlock(&p->lock);
}

int pool_threads(const pool *p) { return p->nthreads; }

void pool_destroy(pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  p->stopping = 1;
  pthread_cond_broadcast(&p->has_work);
  pthread_mutex_unlock(&p->lock);
  for (int i = 0; i < p->nthreads; i++) pthread_join(p->threads[i], NULL);
  pthread_cond_destroy(&p->has_work);
  pthread_cond_destroy(&p->idle);
  pthread_mutex_destroy(&p->lock);
  free(p);
}
