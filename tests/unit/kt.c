/* kt: the shared kernel-test runner (see kt.h). */
#include "kt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tf.h"

/* ---------------------------------------------------------------- models */

int64_t kt_numel(lg_dims d) {
    int64_t n = 1;
    for (uint32_t i = 0; i < d.n; i++) n *= d.v[i];
    return n;
}

/* Bytes per stored element of a constant. */
static size_t const_esize(lg_dtype t) {
    switch (t) {
    case LG_INT64: case LG_UINT64: case LG_FLOAT64: return 8;
    case LG_INT16: case LG_UINT16: case LG_FLOAT16: return 2;
    case LG_INT8: case LG_UINT8: case LG_BOOL: return 1;
    default: return 4;
    }
}

void kt_init(kt_model *t) {
    memset(t, 0, sizeof *t);
    t->st = lg_model_new(NULL, NULL, &t->m, &t->err);
    lg_builder_init(&t->b, t->st == LG_OK ? t->m : NULL, 0); /* NULL: the builder fails */
    if (t->st != LG_OK) {
        t->b.status = t->st;
        t->b.err = t->err;
    }
}

int32_t kt_input(kt_model *t, const char *name, lg_dtype type, lg_dims shape, const void *data) {
    int32_t id = lg_b_tensor(&t->b, name, type, shape);
    if (t->n_ins < KT_MAX_IO) {
        t->ins[t->n_ins] = id;
        t->in_data[t->n_ins++] = data;
    }
    return id;
}

int32_t kt_const(kt_model *t, const char *name, lg_dtype type, lg_dims shape, const void *data) {
    size_t nbytes = (size_t)kt_numel(shape) * const_esize(type);
    void *zeros = NULL;
    if (!data) data = zeros = calloc(nbytes ? nbytes : 1, 1);
    int32_t id = lg_b_const(&t->b, name, type, shape, data, nbytes);
    free(zeros);
    return id;
}

int32_t kt_output(kt_model *t, const char *name, lg_dtype type, lg_dims shape) {
    int32_t id = lg_b_tensor(&t->b, name, type, shape);
    if (t->n_outs < KT_MAX_IO) t->outs[t->n_outs++] = id;
    return id;
}

void kt_io(kt_model *t) { lg_b_io(&t->b, (lg_dims){t->ins, t->n_ins}, (lg_dims){t->outs, t->n_outs}); }

static void set_quant(kt_model *t, int32_t id, const kt_tensor *k) {
    if (!k->nq || t->b.status != LG_OK) return;
    t->b.status = lg_tensor_set_quant(t->m, 0, (uint32_t)id, k->scale, k->zp, k->nq, k->qdim, &t->b.err);
}

void kt_add_op(kt_model *t, const kt_op *c) {
    static const char *in_names[KT_MAX_IN] = {"in0", "in1", "in2", "in3"};
    static const char *out_names[KT_MAX_OUT] = {"out0", "out1"};
    int32_t ids[KT_MAX_IN], outs[KT_MAX_OUT];
    int n_in = c->n_in < KT_MAX_IN ? c->n_in : KT_MAX_IN;
    int n_out = c->n_out < 1 ? 1 : c->n_out < KT_MAX_OUT ? c->n_out : KT_MAX_OUT;
    for (int i = 0; i < n_in; i++) {
        const kt_tensor *k = &c->in[i];
        ids[i] = k->is_const ? kt_const(t, in_names[i], k->type, k->shape, k->data)
                             : kt_input(t, in_names[i], k->type, k->shape, k->data);
        set_quant(t, ids[i], k);
    }
    for (int o = 0; o < n_out; o++) {
        outs[o] = kt_output(t, out_names[o], c->out[o].type, c->out[o].shape);
        set_quant(t, outs[o], &c->out[o]);
    }
    lg_b_op_opts(&t->b, c->code, (lg_dims){ids, (uint32_t)n_in}, (lg_dims){outs, (uint32_t)n_out}, c->kind, c->opts);
    kt_io(t);
}

lg_status kt_run(kt_model *t, lg_precision p, int threads, const void *const *inputs) {
    lg_interp_free(t->it);
    t->it = NULL;
    memset(&t->err, 0, sizeof t->err);
    if (t->b.status != LG_OK) {
        t->err = t->b.err;
        return t->st = t->b.status;
    }
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.precision = p;
    ro.threads = threads > 0 ? threads : 1;
    t->st = lg_interp_create(t->m, &ro, &t->it, &t->err);
    for (uint32_t i = 0; t->st == LG_OK && i < lg_interp_n_inputs(t->it); i++) {
        lg_tensor_view v;
        lg_interp_input(t->it, i, &v);
        const void *data = inputs ? inputs[i] : i < t->n_ins ? t->in_data[i] : NULL;
        void *zeros = NULL;
        if (!data) data = zeros = calloc(v.nbytes ? (size_t)v.nbytes : 1, 1);
        t->st = lg_interp_set_input(t->it, i, v.type, data, v.nbytes, &t->err);
        free(zeros);
    }
    if (t->st == LG_OK) t->st = lg_interp_invoke(t->it, &t->err);
    return t->st;
}

lg_status kt_run_f32(kt_model *t, lg_precision p, int threads, float *out, int64_t cap, int64_t *numel,
                     lg_error *err) {
    lg_status st = kt_run(t, p, threads, NULL);
    if (err) *err = t->err;
    if (st == LG_OK) {
        lg_tensor_view v = kt_out(t, 0);
        if (numel) *numel = v.numel;
        int64_t k = v.numel < cap ? v.numel : cap;
        if (k > 0) memcpy(out, v.data, (size_t)k * sizeof(float));
    }
    lg_interp_free(t->it);
    t->it = NULL;
    return st;
}

lg_tensor_view kt_out(const kt_model *t, uint32_t i) {
    lg_tensor_view v;
    memset(&v, 0, sizeof v);
    if (t->it && t->st == LG_OK && i < lg_interp_n_outputs(t->it)) lg_interp_output(t->it, i, &v);
    return v;
}

const float *kt_f32(const kt_model *t, uint32_t i) { return (const float *)kt_out(t, i).data; }

void kt_free(kt_model *t) {
    lg_interp_free(t->it);
    lg_model_free(t->m);
    t->it = NULL;
    t->m = NULL;
}

lg_status kt_run_op(const kt_op *c, lg_precision p, int threads, kt_model *t) {
    kt_init(t);
    kt_add_op(t, c);
    return kt_run(t, p, threads, NULL);
}

int64_t kt_int(const lg_tensor_view *v, int64_t i) {
    const uint8_t *p = v->data;
    switch (v->type) {
    case LG_INT64: { int64_t x; memcpy(&x, p + 8 * i, 8); return x; }
    case LG_UINT64: { uint64_t x; memcpy(&x, p + 8 * i, 8); return (int64_t)x; }
    case LG_INT32: { int32_t x; memcpy(&x, p + 4 * i, 4); return x; }
    case LG_UINT32: { uint32_t x; memcpy(&x, p + 4 * i, 4); return x; }
    case LG_INT16: { int16_t x; memcpy(&x, p + 2 * i, 2); return x; }
    case LG_UINT16: { uint16_t x; memcpy(&x, p + 2 * i, 2); return x; }
    case LG_INT8: return ((const int8_t *)p)[i];
    default: return p[i];
    }
}

/* ---------------------------------------------------------------- comparisons */

static const char *w_(const char *what) { return what ? what : "output"; }

int kt_check_f32(const char *file, int line, const char *what, const float *got, const float *want,
                 int64_t n, double tol, kt_cmp how) {
    for (int64_t i = 0; i < n; i++) {
        double g = got[i], w = want[i];
        int ok;
        if (how == KT_BITS) ok = memcmp(&got[i], &want[i], 4) == 0 || (isnan(g) && isnan(w));
        else if (isnan(w) || isnan(g)) ok = isnan(w) && isnan(g);
        else if (isinf(w)) ok = g == w;
        else ok = fabs(g - w) <= (how == KT_REL ? tol * (1.0 + fabs(w)) : tol);
        if (!ok) {
            if (how == KT_BITS)
                tf_fail(file, line, "%s [%lld] is %.9g, expected exactly %.9g", w_(what), (long long)i, g, w);
            else
                tf_fail(file, line, "%s [%lld] is %.9g, expected %.9g +- %g%s", w_(what), (long long)i, g, w, tol,
                        how == KT_REL ? " (relative)" : "");
            return 0;
        }
    }
    return 1;
}

int kt_check_view_f32(const char *file, int line, const char *what, const lg_tensor_view *v,
                      const float *want, int64_t n, double tol, kt_cmp how) {
    if (v->type != LG_FLOAT32 || v->numel != n || (n && !v->data)) {
        tf_fail(file, line, "%s: %s x %lld, expected FLOAT32 x %lld", w_(what), lg_dtype_name(v->type),
                (long long)v->numel, (long long)n);
        return 0;
    }
    return kt_check_f32(file, line, what, v->data, want, n, tol, how);
}

int kt_check_view_ints(const char *file, int line, const char *what, const lg_tensor_view *v,
                       lg_dtype type, const int64_t *want, int64_t n) {
    if (v->type != type || v->numel != n || (n && !v->data)) {
        tf_fail(file, line, "%s: %s x %lld, expected %s x %lld", w_(what), lg_dtype_name(v->type),
                (long long)v->numel, lg_dtype_name(type), (long long)n);
        return 0;
    }
    for (int64_t i = 0; i < n; i++)
        if (kt_int(v, i) != want[i]) {
            tf_fail(file, line, "%s [%lld] is %lld, expected %lld", w_(what), (long long)i, (long long)kt_int(v, i),
                    (long long)want[i]);
            return 0;
        }
    return 1;
}

static void dims_str(char *buf, size_t size, const int32_t *d, uint32_t n) {
    size_t k = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < n && k < size; i++) k += (size_t)snprintf(buf + k, size - k, i ? ",%d" : "%d", d[i]);
}

int kt_check_view_shape(const char *file, int line, const char *what, const lg_tensor_view *v, lg_dims want) {
    int same = v->rank == want.n;
    for (uint32_t d = 0; same && d < want.n; d++) same = v->shape[d] == want.v[d];
    if (!same) {
        char a[128], b[128];
        dims_str(a, sizeof a, v->shape, v->rank < LG_MAX_RANK ? v->rank : LG_MAX_RANK);
        dims_str(b, sizeof b, want.v, want.n);
        tf_fail(file, line, "%s: shape [%s], expected [%s]", w_(what), a, b);
    }
    return same;
}

/* ---------------------------------------------------------------- one-op expectations */

int kt_run_ok(const char *file, int line, const kt_op *c, lg_precision p, int threads, kt_model *t) {
    if (kt_run_op(c, p, threads, t) == LG_OK) return 1;
    tf_fail(file, line, "%s run failed (%s): %s", lg_precision_name(p), lg_status_str(t->st), t->err.msg);
    kt_free(t);
    return 0;
}

/* Runs c; on success checks output 0's shape against c->out[0] and compares it: floats
   (want_f) within tol, or integers (want_i) of type `type`. */
static void expect_out(const char *file, int line, const kt_op *c, lg_precision p, int threads,
                       const float *want_f, const int64_t *want_i, lg_dtype type, int64_t n, double tol) {
    kt_model t;
    if (!kt_run_ok(file, line, c, p, threads, &t)) return;
    lg_tensor_view v = kt_out(&t, 0);
    char what[64];
    snprintf(what, sizeof what, "%s output", lg_precision_name(p));
    kt_check_view_shape(file, line, what, &v, c->out[0].shape);
    if (want_f) kt_check_view_f32(file, line, what, &v, want_f, n, tol, KT_ABS);
    else kt_check_view_ints(file, line, what, &v, type, want_i, n);
    kt_free(&t);
}

void kt_expect_f32(const char *file, int line, const kt_op *c, lg_precision p, int threads,
                   const float *want, int64_t n, double tol) {
    expect_out(file, line, c, p, threads, want, NULL, LG_FLOAT32, n, tol);
}

void kt_expect_ints(const char *file, int line, const kt_op *c, lg_precision p, int threads,
                    lg_dtype type, const int64_t *want, int64_t n) {
    expect_out(file, line, c, p, threads, NULL, want, type, n, 0);
}

void kt_expect_fail(const char *file, int line, const kt_op *c, lg_precision p, lg_status st,
                    const char *substr) {
    kt_model t;
    lg_status got = kt_run_op(c, p, 1, &t);
    if (got != st)
        tf_fail(file, line, "status %s, expected %s (%s)", lg_status_str(got), lg_status_str(st), t.err.msg);
    else if (!strstr(t.err.msg, substr))
        tf_fail(file, line, "message \"%s\" lacks \"%s\"", t.err.msg, substr);
    kt_free(&t);
}
