/* Storage of constant data (src/ir/store.c) and what is built on it: the file writer that
   streams the constant data from where it is (src/io/tflite/writer.c), the clone that shares
   constant data instead of copying it (src/io/tflite/clone.c), and compaction giving back the
   data no buffer uses (src/ir/graph_compact.c).
   Expected values: the constant data are patterns made here (byte i of a buffer is a function
   of i), so every check compares against bytes derived by hand, never against our own output
   (except where the point is that two writers agree byte for byte). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "lg/graph.h"
#include "lg/lg.h"
#include "tf.h"

/* ------------------------------------------------------------------ patterns and models */

/* Byte i of pattern k. */
static uint8_t pat(int k, size_t i) { return (uint8_t)(i * 7u + (size_t)k * 31u + (i >> 8)); }

static uint8_t *pattern(int k, size_t n) {
    uint8_t *p = malloc(n ? n : 1);
    for (size_t i = 0; p && i < n; i++) p[i] = pat(k, i);
    return p;
}

static int is_pattern(const uint8_t *p, int k, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != pat(k, i)) return 0;
    return 1;
}

/* The sizes around the thresholds: LGI_BLOCK_MIN / the writer's 4096-byte span size. */
enum { N_BIG = 16384, N_EDGE = 4096, N_BELOW = 4095, N_HUGE = 100000, N_META = 5000, N_CUSTOM = 6000 };

typedef struct sm {
    lg_model *m;
    int32_t w, e, s, h, k; /* w [4096] f32 (16 KiB), e [4096] u8, s [4095] u8, h [100000] i8, k [4] f32 */
} sm;

/* x [1,4096] + w -> y; CUSTOM(y) -> z with 6000 bytes of options; unused constants e, s, h;
   k small; metadata of 5000 bytes. Patterns: w 1, e 2, s 3, h 4, metadata 5, options 6. */
static sm store_model(lg_alloc_fn alloc) {
    sm r = {0};
    lg_error err;
    if (lg_model_new(alloc, NULL, &r.m, &err) != LG_OK) {
        CHECK(0);
        return r;
    }
    uint8_t *w = pattern(1, N_BIG), *e = pattern(2, N_EDGE), *s = pattern(3, N_BELOW),
            *h = pattern(4, N_HUGE), *md = pattern(5, N_META), *co = pattern(6, N_CUSTOM);
    lg_builder b;
    lg_builder_init(&b, r.m, 0);
    float k4[4] = {1, 2, 3, 4};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4096));
    r.w = lg_b_const(&b, "w", LG_FLOAT32, LG_DIMS(4096), w, N_BIG);
    r.e = lg_b_const(&b, "e", LG_UINT8, LG_DIMS(N_EDGE), e, N_EDGE);
    r.s = lg_b_const(&b, "s", LG_UINT8, LG_DIMS(N_BELOW), s, N_BELOW);
    r.h = lg_b_const(&b, "h", LG_INT8, LG_DIMS(N_HUGE), h, N_HUGE);
    r.k = lg_b_const_f32(&b, "k", LG_DIMS(4), k4);
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4096));
    int z = lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(1, 4096));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(x, r.w), LG_IDS(y));
    lg_b_custom(&b, "Streamed", LG_IDS(y, r.k), LG_IDS(z), co, N_CUSTOM);
    lg_b_io(&b, LG_IDS(x), LG_IDS(z));
    CHECK_OK(b.status, &b.err);
    CHECK_OK(lg_model_add_metadata(r.m, "big_meta", md, N_META, &err), &err);
    free(w);
    free(e);
    free(s);
    free(h);
    free(md);
    free(co);
    return r;
}

static const lg_buffer *buf_of(const lg_model *m, int32_t t) {
    return &m->buffers[m->subgraphs[0].tensors[t].buffer];
}

/* Every constant of m holds its pattern (sizes by hand: the enum). */
static void check_patterns(const lg_model *m, const sm *r) {
    const lg_buffer *b = buf_of(m, r->w);
    CHECK(b->size == N_BIG && is_pattern(b->data, 1, N_BIG));
    b = buf_of(m, r->e);
    CHECK(b->size == N_EDGE && is_pattern(b->data, 2, N_EDGE));
    b = buf_of(m, r->s);
    CHECK(b->size == N_BELOW && is_pattern(b->data, 3, N_BELOW));
    b = buf_of(m, r->h);
    CHECK(b->size == N_HUGE && is_pattern(b->data, 4, N_HUGE));
    CHECK_EQ_INT(m->n_metadata, 1);
    b = &m->buffers[m->metadata[0].buffer];
    CHECK(b->size == N_META && is_pattern(b->data, 5, N_META));
    const lg_op *op = &m->subgraphs[0].ops[1];
    CHECK(op->n_custom_options == N_CUSTOM && is_pattern(op->custom_options, 6, N_CUSTOM));
    for (uint32_t i = 1; i < m->n_buffers; i++)
        if (m->buffers[i].size) CHECK(((uintptr_t)m->buffers[i].data & 15u) == 0);
}

static char tmpl[64];

static int tmp_file(char *path, size_t n) {
    snprintf(tmpl, sizeof tmpl, "/tmp/lg_store_test.XXXXXX");
    if (!mkdtemp(tmpl)) {
        CHECK(0);
        return 0;
    }
    snprintf(path, n, "%s/m.tflite", tmpl);
    return 1;
}

static void tmp_done(const char *path) {
    unlink(path);
    rmdir(tmpl);
}

static int slurp(const char *path, uint8_t **out, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    *out = malloc(sz > 0 ? (size_t)sz : 1);
    *n = *out ? fread(*out, 1, (size_t)sz, f) : 0;
    fclose(f);
    return *out != NULL;
}

/* ------------------------------------------------------------------ the streaming writer */

/* lg_tflite_write_file writes the constant data (>= 4096 bytes) from where it is, between the
   flatbuffer's pieces; lg_tflite_write_mem copies everything into one block. Both must give
   the same bytes: inline, with one buffer the source stored after the flatbuffer, and in
   external mode; and the file read back holds every pattern at a 16-aligned place. */
LG_TEST(store_write_file_streams_same_bytes_as_write_mem) {
    sm r = store_model(NULL);
    if (!r.m) return;
    char path[128];
    if (!tmp_file(path, sizeof path)) return;
    lg_error err;
    for (int mode = 0; mode < 3; mode++) {
        lg_write_options o = {.force = true, .external_buffers = mode == 2};
        if (mode == 1) r.m->buffers[buf_of(r.m, r.h) - r.m->buffers].external = true;
        void *mem = NULL;
        size_t nm = 0, nd = 0;
        uint8_t *disk = NULL;
        CHECK_OK(lg_tflite_write_mem(r.m, &o, &mem, &nm, &err), &err);
        CHECK_OK(lg_tflite_write_file(r.m, path, &o, &err), &err);
        CHECK(slurp(path, &disk, &nd));
        if (mem && disk) {
            if (nm != nd || memcmp(mem, disk, nm) != 0)
                tf_fail(__FILE__, __LINE__, "mode %d: write_file (%zu bytes) differs from write_mem (%zu)", mode, nd, nm);
            /* the data alone is 16384 + 4096 + 4095 + 100000 + 5000 + 6000 bytes */
            CHECK(nd > (size_t)(N_BIG + N_EDGE + N_BELOW + N_HUGE + N_META + N_CUSTOM));
        }
        lg_model *back = NULL;
        CHECK_OK(lg_tflite_read_mem(disk, nd, NULL, &back, &err), &err);
        if (back) {
            check_patterns(back, &r);
            CHECK_EQ_INT(buf_of(back, r.h)->external, mode >= 1);
            CHECK_EQ_INT(buf_of(back, r.w)->external, mode == 2);
            /* read from the file bytes, not copied: the data lies in them, 16-aligned */
            const uint8_t *d = buf_of(back, r.w)->data;
            CHECK(d > disk && d < disk + nd && (size_t)(d - disk) % 16 == 0);
        }
        lg_model_free(back);
        free(mem);
        free(disk);
    }
    tmp_done(path);
    lg_model_free(r.m);
}

/* ------------------------------------------------------------------ clones share constant data */

/* A clone points at the original's blocks (4096 bytes and more) and copies the small data;
   freeing the original first leaves the clone whole; both write the same bytes. */
LG_TEST(store_clone_shares_blocks_and_outlives_the_original) {
    sm r = store_model(NULL);
    if (!r.m) return;
    lg_error err;
    lg_model *c = NULL;
    CHECK_OK(lg_model_clone(r.m, &c, &err), &err);
    if (!c) {
        lg_model_free(r.m);
        return;
    }
    CHECK(buf_of(c, r.w)->data == buf_of(r.m, r.w)->data); /* 16384 bytes: a block */
    CHECK(buf_of(c, r.e)->data == buf_of(r.m, r.e)->data); /* 4096: a block (LGI_BLOCK_MIN) */
    CHECK(buf_of(c, r.s)->data != buf_of(r.m, r.s)->data); /* 4095: arena, copied */
    CHECK(buf_of(c, r.k)->data != buf_of(r.m, r.k)->data);
    void *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    CHECK_OK(lg_tflite_write_mem(r.m, NULL, &a, &na, &err), &err);
    lg_model_free(r.m);
    check_patterns(c, &r);
    CHECK_OK(lg_tflite_write_mem(c, NULL, &b, &nb, &err), &err);
    CHECK(a && b && na == nb && memcmp(a, b, na) == 0);
    /* a clone of the clone shares the same bytes again */
    lg_model *c2 = NULL;
    CHECK_OK(lg_model_clone(c, &c2, &err), &err);
    if (c2) {
        CHECK(buf_of(c2, r.w)->data == buf_of(c, r.w)->data);
        lg_model_free(c);
        check_patterns(c2, &r);
        lg_model_free(c2);
    } else {
        lg_model_free(c);
    }
    free(a);
    free(b);
}

/* Data the caller of lg_tflite_read_mem owns is copied, never shared: the clone survives the
   caller's buffer being overwritten and freed. */
LG_TEST(store_clone_copies_the_callers_memory) {
    sm r = store_model(NULL);
    if (!r.m) return;
    lg_error err;
    void *img = NULL;
    size_t n = 0;
    CHECK_OK(lg_tflite_write_mem(r.m, NULL, &img, &n, &err), &err);
    lg_model *rd = NULL, *c = NULL;
    CHECK_OK(lg_tflite_read_mem(img, n, NULL, &rd, &err), &err);
    if (rd) CHECK_OK(lg_model_clone(rd, &c, &err), &err);
    if (c) {
        const uint8_t *d = buf_of(c, r.w)->data;
        CHECK(!(d >= (const uint8_t *)img && d < (const uint8_t *)img + n));
    }
    lg_model_free(rd);
    memset(img, 0xAA, n);
    free(img);
    if (c) check_patterns(c, &r);
    lg_model_free(c);
    lg_model_free(r.m);
}

/* A model read from a file keeps its mapping alive in a hold: the clone shares the mapped
   bytes and keeps them mapped after the original is freed. */
LG_TEST(store_clone_shares_the_file_mapping) {
    sm r = store_model(NULL);
    if (!r.m) return;
    char path[128];
    if (!tmp_file(path, sizeof path)) return;
    lg_error err;
    lg_model *rd = NULL, *c = NULL;
    CHECK_OK(lg_tflite_write_file(r.m, path, NULL, &err), &err);
    CHECK_OK(lg_tflite_read_file(path, NULL, &rd, &err), &err);
    if (rd) CHECK_OK(lg_model_clone(rd, &c, &err), &err);
    if (c) {
        CHECK(buf_of(c, r.h)->data == buf_of(rd, r.h)->data);
        CHECK(buf_of(c, r.s)->data == buf_of(rd, r.s)->data); /* small, but in the mapping */
    }
    lg_model_free(rd);
    tmp_done(path);
    if (c) check_patterns(c, &r);
    lg_model_free(c);
    lg_model_free(r.m);
}

/* ------------------------------------------------------------------ compaction gives data back */

/* Counts live allocations through the hook; fails the fail_at-th one. */
static long n_alloc, fail_at, live;
static void *counting(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        if (ptr) live--;
        free(ptr);
        return NULL;
    }
    if (++n_alloc == fail_at) return NULL;
    void *p = realloc(ptr, nsize);
    if (p && !ptr) live++;
    return p;
}

/* Replacing w's data (a new block) and compacting frees the old block: one live allocation
   less than before the compaction (the block; the compaction's scratch is freed too). When a
   clone shares the block, the original's compaction lets go of it but the block stays for
   the clone. Everything is freed in the end. */
LG_TEST(store_compact_releases_replaced_data) {
    live = n_alloc = fail_at = 0;
    sm r = store_model(counting);
    if (!r.m) return;
    lg_error err;
    uint8_t *w2 = pattern(7, N_BIG);
    CHECK_OK(lg_tensor_set_const(r.m, 0, r.w, LG_FLOAT32, w2, N_BIG, &err), &err);
    long before = live;
    lg_compact_stats st;
    CHECK_OK(lg_model_compact(r.m, &st, NULL, &err), &err);
    /* removed: the old buffer of w and the three unused constants e, s, h; blocks among them:
       w's old one (16384), e (4096), h (100000); s (4095) is in the arena */
    CHECK_EQ_INT(st.buffers_removed, 4);
    CHECK_EQ_INT(live, before - 3);
    const lg_buffer *b = buf_of(r.m, r.w);
    CHECK(b->size == N_BIG && is_pattern(b->data, 7, N_BIG));
    /* a clone shares w's new block; the original drops it, the clone keeps it */
    lg_model *c = NULL;
    CHECK_OK(lg_model_clone(r.m, &c, &err), &err);
    uint8_t *w3 = pattern(8, N_BIG);
    CHECK_OK(lg_tensor_set_const(r.m, 0, r.w, LG_FLOAT32, w3, N_BIG, &err), &err);
    CHECK_OK(lg_model_compact(r.m, &st, NULL, &err), &err);
    CHECK_EQ_INT(st.buffers_removed, 1);
    if (c) {
        b = buf_of(c, r.w);
        CHECK(b->size == N_BIG && is_pattern(b->data, 7, N_BIG));
    }
    lg_model_free(r.m);
    if (c) {
        b = buf_of(c, r.w);
        CHECK(b->size == N_BIG && is_pattern(b->data, 7, N_BIG));
    }
    lg_model_free(c);
    CHECK_EQ_INT(live, 0);
    free(w2);
    free(w3);
}

/* A clone that fails at any allocation returns the status, leaves no clone and leaks nothing
   (the shared blocks' counts included): after freeing the original, nothing is live. The one
   that completes holds every pattern. */
LG_TEST(store_clone_failing_allocator_sweep) {
    int completed = 0, failures = 0;
    for (long k = 1; k < 1000 && !completed; k++) {
        live = n_alloc = fail_at = 0;
        sm r = store_model(counting);
        if (!r.m) return;
        lg_error err;
        lg_model *c = NULL;
        n_alloc = 0;
        fail_at = k;
        lg_status s = lg_model_clone(r.m, &c, &err);
        fail_at = 0;
        if (s == LG_OK) {
            completed = 1;
            lg_model_free(r.m);
            check_patterns(c, &r);
        } else {
            failures++;
            CHECK(c == NULL);
            if (s != LG_ERR_NOMEM && s != LG_ERR_LIMIT)
                tf_fail(__FILE__, __LINE__, "k=%ld: status %d (%s)", k, (int)s, err.msg);
            check_patterns(r.m, &r); /* the original is untouched */
            lg_model_free(r.m);
        }
        lg_model_free(c);
        if (live != 0) tf_fail(__FILE__, __LINE__, "k=%ld: %ld allocations leaked", k, live);
    }
    CHECK(completed);
    CHECK(failures >= 5); /* model, arena chunks, holds, the shared holds' list... */
}
