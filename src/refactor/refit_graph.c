/* lg_channel_mean_abs and lg_refit_fc (refit.h): activations collected from interpreter runs
   over calibration cases, then statistics or a ridge refit of one FULLY_CONNECTED. */
#include "lg/graph.h"
#include "lg/refit.h"
#include "lg/run.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- collecting a tensor */

typedef struct collect {
    int32_t op;          /* producer op of the tensor, -1 = a subgraph input */
    uint32_t slot;       /* which output of op */
    int32_t input;       /* subgraph input index when op < 0 */
    uint32_t n_cases, k; /* cases in all, the current one */
    int64_t numel;       /* per case (set by the first case) */
    float *buf;          /* n_cases x numel */
    bool got, bad_type, nomem;
} collect;

static bool store(collect *c, int64_t numel, const float *data) {
    if (!c->buf) {
        c->numel = numel;
        c->buf = malloc((size_t)c->n_cases * (size_t)(numel > 0 ? numel : 1) * sizeof(float));
        if (!c->buf) { c->nomem = true; return false; }
    }
    if (numel != c->numel) { c->bad_type = true; return false; }
    memcpy(c->buf + (size_t)c->k * (size_t)numel, data, (size_t)numel * sizeof(float));
    c->got = true;
    return true;
}

static int collect_tap(void *ud, int32_t op_index, const lg_tensor_view *outputs, uint32_t n) {
    collect *c = ud;
    if (op_index != c->op || c->slot >= n) return 0;
    const lg_tensor_view *v = &outputs[c->slot];
    if (v->type != LG_FLOAT32) { c->bad_type = true; return 1; }
    return store(c, v->numel, v->data) ? 0 : 1;
}

static const char *tname(const lg_tensor *t) { return t->name ? t->name : ""; }

/* Runs m on every case and copies FLOAT32 tensor t into *out (n_cases x numel floats,
   malloc'ed), numel per case in *numel. */
static lg_status collect_tensor(const lg_model *m, int32_t t, const void *const *const *cases,
                                uint32_t n_cases, float **out, int64_t *numel, lg_error *err) {
    *out = NULL;
    if (m->n_subgraphs == 0) return lgi_fail(err, LG_ERR_INVALID_ARG, "refit: the model has no subgraph");
    const lg_subgraph *sg = &m->subgraphs[0];
    if (t < 0 || (uint32_t)t >= sg->n_tensors)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "refit: tensor %d is not in subgraph 0", (int)t);
    const lg_tensor *tt = &sg->tensors[t];
    if (tt->type != LG_FLOAT32)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "refit: tensor %d \"%s\" is not FLOAT32", (int)t, tname(tt));
    if (n_cases == 0 || !cases) return lgi_fail(err, LG_ERR_INVALID_ARG, "refit: no calibration cases");
    collect c = {.op = -1, .input = -1, .n_cases = n_cases};
    lg_graph *g = NULL;
    lg_status st = lg_graph_build(m, 0, &g, err);
    if (st != LG_OK) return st;
    c.op = lg_graph_producer(g, t);
    lg_graph_free(g);
    if (c.op >= 0) {
        const lg_op *op = &sg->ops[c.op];
        for (uint32_t k = 0; k < op->n_outputs; k++) if (op->outputs[k] == t) c.slot = k;
    } else {
        for (uint32_t k = 0; k < sg->n_inputs; k++) if (sg->inputs[k] == t) c.input = (int32_t)k;
        if (c.input < 0)
            return lgi_fail(err, LG_ERR_INVALID_ARG, "refit: tensor %d \"%s\" is a constant, not an activation", (int)t, tname(tt));
    }
    lg_run_options ro = {0};
    ro.tap = collect_tap; ro.tap_ud = &c;
    lg_interp *it = NULL;
    st = lg_interp_create(m, &ro, &it, err);
    if (st != LG_OK) return st;
    uint32_t n_in = lg_interp_n_inputs(it);
    for (uint32_t k = 0; k < n_cases && st == LG_OK; k++) {
        c.k = k; c.got = false;
        for (uint32_t i = 0; i < n_in && st == LG_OK; i++) {
            lg_tensor_view v;
            lg_interp_input(it, i, &v);
            if (v.type != LG_FLOAT32) { st = lgi_fail(err, LG_ERR_INVALID_ARG, "refit: input %u is not FLOAT32", i); break; }
            st = lg_interp_set_input(it, i, LG_FLOAT32, cases[k][i], (uint64_t)v.numel * 4, err);
            if (st == LG_OK && (int32_t)i == c.input && !store(&c, v.numel, cases[k][i])) break;
        }
        if (st != LG_OK || c.nomem || c.bad_type) break;
        if (c.op < 0) continue;
        lg_status rs = lg_interp_invoke(it, err);
        if (c.nomem || c.bad_type) break;
        st = rs;
        if (st == LG_OK && !c.got)
            st = lgi_fail(err, LG_ERR_INVALID_ARG, "refit: op %d did not produce tensor %d", (int)c.op, (int)t);
    }
    lg_interp_free(it);
    if (st == LG_OK && c.nomem) st = lgi_fail(err, LG_ERR_NOMEM, "refit: out of memory");
    if (st == LG_OK && c.bad_type)
        st = lgi_fail(err, LG_ERR_INVALID_ARG, "refit: tensor %d \"%s\" changed size or type between cases", (int)t, tname(tt));
    if (st != LG_OK) { free(c.buf); return st; }
    *out = c.buf; *numel = c.numel;
    return LG_OK;
}

/* ---------------------------------------------------------------- mean |x| per channel */

lg_status lg_channel_mean_abs(const lg_model *m, int32_t tensor, int axis, const void *const *const *cases,
                              uint32_t n_cases, double *out, lg_error *err) {
    if (m->n_subgraphs == 0 || tensor < 0 || (uint32_t)tensor >= m->subgraphs[0].n_tensors)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "channel mean |x|: tensor %d is not in subgraph 0", (int)tensor);
    const lg_tensor *tt = &m->subgraphs[0].tensors[tensor];
    int rank = (int)tt->rank;
    int ax = axis < 0 ? axis + rank : axis;
    if (ax < 0 || ax >= rank || tt->shape[ax] <= 0)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "channel mean |x|: axis %d is not an axis of tensor \"%s\" (rank %d)", axis, tname(tt), rank);
    int64_t dim = tt->shape[ax], inner = 1;
    for (int d = ax + 1; d < rank; d++) inner *= tt->shape[d];
    float *buf = NULL; int64_t numel = 0;
    lg_status st = collect_tensor(m, tensor, cases, n_cases, &buf, &numel, err);
    if (st != LG_OK) return st;
    if (numel != lg_tensor_numel(tt)) {
        free(buf);
        return lgi_fail(err, LG_ERR_INVALID_ARG, "channel mean |x|: tensor \"%s\" ran with %lld elements, its shape says %lld", tname(tt), (long long)numel, (long long)lg_tensor_numel(tt));
    }
    for (int64_t c = 0; c < dim; c++) out[c] = 0;
    int64_t total = (int64_t)n_cases * numel;
    for (int64_t i = 0; i < total; i++) out[(i / inner) % dim] += fabs((double)buf[i]);
    double count = (double)total / (double)dim;
    for (int64_t c = 0; c < dim; c++) out[c] /= count;
    free(buf);
    return LG_OK;
}

/* ---------------------------------------------------------------- refit one FC */

static const float *const_f32(const lg_model *m, const lg_tensor *t, int64_t n) {
    const lg_buffer *b = lg_tensor_buffer(m, t);
    if (!b || t->type != LG_FLOAT32 || t->sparsity || t->quant || b->size != (uint64_t)n * 4) return NULL;
    return (const float *)(const void *)b->data;
}

/* ||X W^T + b - Y||_F / ||Y||_F */
static double fit_error(const float *x, const float *y, int64_t rows, int64_t n_in, int64_t n_out,
                        const float *w, const float *b) {
    double num = 0, den = 0;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t o = 0; o < n_out; o++) {
            double acc = b[o];
            for (int64_t j = 0; j < n_in; j++) acc += (double)x[r * n_in + j] * w[o * n_in + j];
            double d = acc - y[r * n_out + o];
            num += d * d; den += (double)y[r * n_out + o] * y[r * n_out + o];
        }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

lg_status lg_refit_fc(lg_model *pruned, uint32_t op_index, const lg_model *orig, int32_t target,
                      const void *const *const *cases, uint32_t n_cases, double lambda,
                      lg_refit_fc_report *rep, lg_error *err) {
    memset(rep, 0, sizeof *rep);
    if (pruned->n_subgraphs == 0 || op_index >= pruned->subgraphs[0].n_ops)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "refit: op %u is not in subgraph 0", op_index);
    if (!(lambda >= 0) || !isfinite(lambda))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "refit: lambda %g must be finite and >= 0", lambda);
    const lg_subgraph *sg = &pruned->subgraphs[0];
    const lg_op *op = &sg->ops[op_index];
    if (lg_op_builtin(pruned, op) != LG_OP_FULLY_CONNECTED || op->n_inputs < 2)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "refit: op %u is not a FULLY_CONNECTED", op_index);
    if (op->opts && op->opts_kind == LG_OPTS_FULLY_CONNECTED_OPTIONS &&
        ((const lg_fully_connected_options *)op->opts)->fused_activation_function != 0)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "refit: op %u FULLY_CONNECTED has a fused activation: the fit would not be linear", op_index);
    int32_t xt = op->inputs[0], wt = op->inputs[1], bt = op->n_inputs > 2 ? op->inputs[2] : -1;
    const lg_tensor *w = &sg->tensors[wt];
    if (w->rank != 2 || w->shape[0] <= 0 || w->shape[1] <= 0)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "refit: op %u FULLY_CONNECTED: weights \"%s\" are not [out, in]", op_index, tname(w));
    int64_t n_out = w->shape[0], n_in = w->shape[1];
    const float *w0 = const_f32(pruned, w, n_out * n_in);
    if (!w0) return lgi_fail(err, LG_ERR_INVALID_ARG, "refit: op %u FULLY_CONNECTED: weights \"%s\" are not a FLOAT32 constant", op_index, tname(w));
    const float *b0 = bt >= 0 ? const_f32(pruned, &sg->tensors[bt], n_out) : NULL;
    if (!b0) return lgi_fail(err, LG_ERR_INVALID_ARG, "refit: op %u FULLY_CONNECTED has no FLOAT32 constant bias", op_index);
    float *x = NULL, *y = NULL; int64_t nx = 0, ny = 0;
    lg_status st = collect_tensor(pruned, xt, cases, n_cases, &x, &nx, err);
    if (st == LG_OK) st = collect_tensor(orig, target, cases, n_cases, &y, &ny, err);
    if (st != LG_OK) { free(x); free(y); return st; }
    int64_t rows = nx / n_in;
    if (nx % n_in != 0 || rows * n_out != ny) {
        free(x); free(y);
        return lgi_fail(err, LG_ERR_INVALID_ARG, "refit: op %u: %lld input rows of %lld give %lld outputs, the target has %lld elements per case", op_index, (long long)rows, (long long)n_in, (long long)(rows * n_out), (long long)ny);
    }
    rows *= n_cases;
    double diag = 0;
    for (int64_t i = 0; i < rows * n_in; i++) diag += (double)x[i] * x[i];
    rep->n_rows = rows; rep->n_in = n_in; rep->n_out = n_out;
    rep->lambda_abs = lambda * diag / (double)n_in;
    rep->err_before = fit_error(x, y, rows, n_in, n_out, w0, b0);
    float *w1 = malloc(sizeof(float) * (size_t)(n_out * n_in)), *b1 = malloc(sizeof(float) * (size_t)n_out);
    if (!w1 || !b1) st = lgi_fail(err, LG_ERR_NOMEM, "refit: out of memory");
    if (st == LG_OK) st = lg_refit_ridge(x, rows, n_in, y, n_out, rep->lambda_abs, w1, b1, err);
    if (st == LG_OK) {
        rep->err_after = fit_error(x, y, rows, n_in, n_out, w1, b1);
        st = lg_tensor_set_const(pruned, 0, wt, LG_FLOAT32, w1, (uint64_t)(n_out * n_in) * 4, err);
        if (st == LG_OK) st = lg_tensor_set_const(pruned, 0, bt, LG_FLOAT32, b1, (uint64_t)n_out * 4, err);
    }
    free(x); free(y); free(w1); free(b1);
    return st;
}
