/* A small persistent thread pool for lgk_parallel_for. Each call splits [0, n) into one
   contiguous range per worker (the caller takes the first), so which index is computed by
   which thread is fixed for a given thread count, and kernels write disjoint outputs:
   results never depend on the number of threads. */
#include <pthread.h>
#include <stdlib.h>

#include "run/kernel.h"

struct lgk_pool {
    int n;                      /* workers besides the caller */
    pthread_t *threads;
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    uint64_t generation;
    int pending;
    int quit;
    lgk_range_fn fn;
    void *ud;
    int64_t total;
};

typedef struct worker_arg { lgk_pool *p; int id; } worker_arg;

static void range_of(int64_t n, int parts, int k, int64_t *b, int64_t *e) {
    *b = n * k / parts;
    *e = n * (k + 1) / parts;
}

static void *worker(void *arg) {
    worker_arg *wa = arg;
    lgk_pool *p = wa->p;
    int id = wa->id;
    free(wa);
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->generation == seen) pthread_cond_wait(&p->go, &p->mu);
        if (p->quit) break;
        seen = p->generation;
        lgk_range_fn fn = p->fn;
        void *ud = p->ud;
        int64_t total = p->total;
        pthread_mutex_unlock(&p->mu);
        int64_t b, e;
        range_of(total, p->n + 1, id + 1, &b, &e);
        if (e > b) fn(ud, b, e);
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

lgk_pool *lgk_pool_new(int threads) {
    if (threads <= 1) return NULL;
    lgk_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->threads = calloc((size_t)threads - 1, sizeof *p->threads);
    if (!p->threads) { free(p); return NULL; }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    for (int i = 0; i < threads - 1; i++) {
        worker_arg *wa = malloc(sizeof *wa);
        if (!wa) break;
        wa->p = p;
        wa->id = i;
        if (pthread_create(&p->threads[i], NULL, worker, wa) != 0) { free(wa); break; }
        p->n++;
    }
    if (p->n == 0) { lgk_pool_free(p); return NULL; }
    return p;
}

void lgk_pool_free(lgk_pool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n; i++) pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    free(p->threads);
    free(p);
}

void lgk_parallel_for(const lgk_ctx *c, int64_t n, int64_t grain, lgk_range_fn fn, void *ud) {
    lgk_pool *p = c->pool;
    if (n <= 0) return;
    if (!p || grain <= 0 || n < 2 * grain) { fn(ud, 0, n); return; }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ud = ud;
    p->total = n;
    p->pending = p->n;
    p->generation++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    int64_t b, e;
    range_of(n, p->n + 1, 0, &b, &e);
    if (e > b) fn(ud, b, e);
    pthread_mutex_lock(&p->mu);
    while (p->pending > 0) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}
