/* fp16 hardening: the gate. Which matches are hazardous in emulated GPU fp16, and which rewrite
 * removes the hazard (include/lg/passes.h, "fp16 hardening").
 *
 * Each match is measured alone: its ops (with the conv that may be rescaled, and the
 * DEQUANTIZE ops of its constant weights) are copied into a small model whose inputs are the
 * tensors the match reads, fed with the fp32 values those tensors take in the whole model on
 * each input set. That model runs in fp32 (the reference) and in the emulated precision
 * (lg_compare_precision, the instrument of `compare`), which judges every output of the match
 * (the tensors later ops read). A rewrite is measured the same way: the harden-fp16 passes
 * applied to the small model. Measuring alone keeps one broken norm from making every later
 * pattern look hazardous, and tells exactly what a rewrite buys. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "lg/compare.h"
#include "lg/run.h"
#include "passes/fix_fp16.h"

static void fix_str(unsigned fix, int32_t shift, char *buf, size_t n) {
    size_t k = 0;
    buf[0] = 0;
    if (fix & LG_FP16_FIX_CONV_RESCALE) k += (size_t)snprintf(buf + k, n - k, "conv-rescale 2^-%d", shift);
    if ((fix & LG_FP16_FIX_SAFE_NORM) && k < n) k += (size_t)snprintf(buf + k, n - k, "%ssafe-norm", k ? " + " : "");
    if ((fix & LG_FP16_FIX_SUM_AS_MEAN) && k < n) k += (size_t)snprintf(buf + k, n - k, "%ssum-as-mean", k ? " + " : "");
    if ((fix & LG_FP16_FIX_TWO_STAGE) && k < n) k += (size_t)snprintf(buf + k, n - k, "%stwo-stage", k ? " + " : "");
    if (!k) snprintf(buf, n, "none");
}

/* ------------------------------------------------------------------ measuring */

static double max_abs(const float *p, int64_t n) {
    double m = 0;
    for (int64_t i = 0; i < n; i++)
        if (isfinite(p[i]) && fabs(p[i]) > m) m = fabs(p[i]);
    return m;
}

/* Fold one judged output into the worst error so far. */
void lgp_fp16_worst_of(lg_fp16_error *e, const lg_metrics *m, const lg_verdict *v) {
    if (e->measured && !(v->severity > e->severity)) {
        e->overflow |= v->new_nonfinite;
        e->diverges |= !v->pass;
        return;
    }
    bool of = e->overflow || v->new_nonfinite, dv = e->diverges || !v->pass;
    e->measured = true;
    e->overflow = of;
    e->diverges = dv;
    e->score = v->score;
    e->severity = v->severity;
    e->max_abs = m->max_abs;
    e->pearson = m->pearson;
}

/* ------------------------------------------------------------------ one match alone */

typedef struct mwork {
    lgp_fp16_match mt;
    lg_model *P;               /* the match alone */
    int32_t *p_in;             /* per input of P: the tensor of the whole model it comes from */
    uint32_t n_in;
    int32_t p_anchor;          /* the anchor's output tensor in P */
    int32_t role[8];           /* per output of P: which tensor of the match it is (ROLE_*) */
    uint32_t n_res;
    int32_t x_in;              /* the input of P that is the match's x (-1) */
    float **vals;              /* [case * n_in + i] */
    double x_amax, conv_amax, result_amax;
} mwork;

enum { ROLE_Y, ROLE_MU, ROLE_D, ROLE_R, ROLE_S, ROLE_C, ROLE_INV, ROLE_OTHER };

static int32_t role_of(const lgp_fp16_match *mt, int32_t t) {
    if (t == mt->y || (mt->kind == LG_FP16_GLOBAL_REDUCE && t == mt->result)) return ROLE_Y;
    if (t == mt->mu) return ROLE_MU;
    if (t == mt->d) return ROLE_D;
    if (t == mt->r) return ROLE_R;
    if (t == mt->s) return ROLE_S;
    if (t == mt->c) return ROLE_C;
    if (t == mt->inv) return ROLE_INV;
    return ROLE_OTHER;
}

static void mwork_free(mwork *w, uint32_t n_cases) {
    for (uint32_t k = 0; w->vals && k < n_cases * w->n_in; k++) free(w->vals[k]);
    free(w->vals);
    free(w->p_in);
    lg_model_free(w->P);
}

static bool in_list(const uint32_t *l, uint32_t n, uint32_t v) {
    for (uint32_t i = 0; i < n; i++)
        if (l[i] == v) return true;
    return false;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The ops of the match alone: its own, the conv chain, and producers fed only by constants
   (DEQUANTIZE of FLOAT16 weights). */
static uint32_t submodel_ops(const lg_model *m, const lg_graph *g, const lgp_fp16_match *mt, uint32_t *ops) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < mt->n_ops; i++) ops[n++] = mt->ops[i];
    if (mt->conv_op >= 0) {
        for (int32_t t = mt->x; t != mt->conv_out && t >= 0;) { /* the single-use reshapes */
            int32_t p = lg_graph_producer(g, t);
            if (p < 0 || n >= 2 * LG_HARDEN_MAX_OPS - 8) break;
            ops[n++] = (uint32_t)p;
            t = m->subgraphs[0].ops[p].inputs[0];
        }
        ops[n++] = (uint32_t)mt->conv_op;
    }
    uint32_t n0 = n;
    for (uint32_t i = 0; i < n0; i++) {
        const lg_op *op = &m->subgraphs[0].ops[ops[i]];
        for (uint32_t k = 0; k < op->n_inputs; k++) {
            int32_t t = op->inputs[k], p = t >= 0 ? lg_graph_producer(g, t) : -1;
            if (p < 0 || in_list(ops, n, (uint32_t)p) || n >= 2 * LG_HARDEN_MAX_OPS) continue;
            const lg_op *po = &m->subgraphs[0].ops[p];
            bool all_const = po->n_inputs > 0;
            for (uint32_t j = 0; j < po->n_inputs; j++)
                if (po->inputs[j] >= 0 && !lg_tensor_is_const(m, 0, po->inputs[j])) all_const = false;
            if (all_const) ops[n++] = (uint32_t)p;
        }
    }
    qsort(ops, n, sizeof ops[0], cmp_u32);
    return n;
}

static int32_t copy_tensor(lg_builder *b, const lg_model *m, int32_t t, bool as_const) {
    const lg_tensor *x = &m->subgraphs[0].tensors[t];
    lg_dims shape = {x->shape, x->rank};
    const char *name = x->name ? x->name : "";
    int32_t nt;
    if (as_const) {
        const lg_buffer *buf = lg_tensor_buffer(m, x);
        nt = lg_b_const(b, name, (lg_dtype)x->type, shape, buf ? buf->data : NULL, buf ? buf->size : 0);
    } else {
        nt = lg_b_tensor(b, name, (lg_dtype)x->type, shape);
    }
    if (nt >= 0 && x->quant && x->quant->n_scale && b->status == LG_OK)
        b->status = lg_tensor_set_quant(b->m, 0, (uint32_t)nt, x->quant->scale, x->quant->zero_point,
                                        x->quant->n_scale, x->quant->quantized_dimension, &b->err);
    return b->status == LG_OK ? nt : -1;
}

/* Copy ops (ascending) of m into a new model; outputs: the given tensors. */
static lg_status extract(const lg_model *m, const uint32_t *ops, uint32_t n_ops, const int32_t *res, uint32_t n_res,
                         int32_t anchor_t, mwork *w, lg_error *err) {
    const lg_subgraph *sg = &m->subgraphs[0];
    int32_t *map = malloc(sg->n_tensors * sizeof *map);
    w->p_in = malloc(sg->n_tensors * sizeof *w->p_in);
    int32_t *p_in_new = malloc(sg->n_tensors * sizeof *p_in_new);
    if (!map || !w->p_in || !p_in_new) {
        free(map);
        free(p_in_new);
        return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    }
    for (uint32_t t = 0; t < sg->n_tensors; t++) map[t] = -1;
    lg_model *P = NULL;
    lg_status st = lg_model_new(NULL, NULL, &P, err);
    if (st != LG_OK) { free(map); free(p_in_new); return st; }
    lg_builder b;
    lg_builder_init(&b, P, 0);
    for (uint32_t i = 0; i < n_ops && b.status == LG_OK; i++) {
        const lg_op *op = &sg->ops[ops[i]];
        const lg_opcode *oc = &m->opcodes[op->opcode_index];
        int32_t in[16], out[8];
        if (op->n_inputs > 16 || op->n_outputs > 8) { b.status = LG_ERR_UNSUPPORTED; break; }
        for (uint32_t k = 0; k < op->n_inputs; k++) {
            int32_t t = op->inputs[k];
            if (t < 0) { in[k] = -1; continue; }
            if (map[t] < 0) {
                bool c = lg_tensor_is_const(m, 0, t);
                map[t] = copy_tensor(&b, m, t, c);
                if (!c && map[t] >= 0) { w->p_in[w->n_in] = t; p_in_new[w->n_in++] = map[t]; }
            }
            in[k] = map[t];
        }
        for (uint32_t k = 0; k < op->n_outputs; k++) {
            int32_t t = op->outputs[k];
            if (t >= 0 && map[t] < 0) map[t] = copy_tensor(&b, m, t, false);
            out[k] = t >= 0 ? map[t] : -1;
        }
        if (b.status != LG_OK) break;
        int32_t idx;
        b.status = lg_subgraph_add_op(P, 0, oc->builtin, oc->custom_code, oc->version, in, op->n_inputs, out,
                                      op->n_outputs, op->opts_kind, op->opts, &idx, &b.err);
    }
    int32_t o[8];
    uint32_t no = 0;
    for (uint32_t k = 0; k < n_res && k < 8 && b.status == LG_OK; k++) {
        if (map[res[k]] < 0) b.status = LG_ERR_INTERNAL;
        w->role[no] = role_of(&w->mt, res[k]);
        o[no++] = map[res[k]];
    }
    w->n_res = no;
    w->x_in = -1;
    for (uint32_t j = 0; j < w->n_in; j++)
        if (w->p_in[j] == w->mt.x) w->x_in = (int32_t)j;
    if (b.status == LG_OK) b.status = lg_subgraph_set_io(P, 0, p_in_new, w->n_in, o, no, &b.err);
    w->p_anchor = map[anchor_t];
    free(map);
    free(p_in_new);
    if (b.status != LG_OK || !no || w->p_anchor < 0) {
        lg_model_free(P);
        return lgi_fail(err, b.status != LG_OK ? b.status : LG_ERR_INTERNAL,
                        "harden-fp16: cannot copy the pattern at tensor %d alone: %s", anchor_t, b.err.msg);
    }
    w->P = P;
    return LG_OK;
}

/* The rewritten P: the harden-fp16 pass with one pick. *out is NULL when nothing applied. */
static lg_status variant(const mwork *w, unsigned fix, int32_t shift, lg_model **out, lg_error *err) {
    lgp_fp16_pick pick = {w->p_anchor, fix, shift, false};
    struct lgp_fp16_sel sel = {&pick, 1};
    lg_pass_run_options o;
    memset(&o, 0, sizeof o);
    o.fp16_sel = &sel;
    const lg_pass *passes[2] = {&lgp_harden_fp16, &lgp_harden_fp16_split};
    lg_pass_report *rep = NULL;
    *out = NULL;
    lg_model *v = NULL;
    LG_TRY(lg_passes_run(w->P, passes, 2, 1, &o, &v, &rep, err));
    bool applied = false;
    for (uint32_t i = 0; i < rep->n_passes; i++) applied |= rep->passes[i].delta.applied != 0;
    lg_pass_report_free(rep);
    if (!applied) {
        lg_model_free(v);
        return LG_OK;
    }
    *out = v;
    return LG_OK;
}

static int32_t output_with(const mwork *w, const lg_subgraph *sg, int32_t role) {
    for (uint32_t k = 0; k < w->n_res && k < sg->n_outputs; k++)
        if (w->role[k] == role) return sg->outputs[k];
    return -1;
}

/* When the match's results are statistics (the keras form: the mean and the rsqrt, read by a
   tail the match does not own), they are judged through the normalized tensor they imply:
   v plus (x - mean) * rsqrt (or / sqrt, x for the uncentred norms) as its only output, so an
   error is weighed at the scale it has on the normalized values. *out is NULL when the
   results already are the normalized tensor or a reduction (judged as they are). */
static lg_status judged_model(const mwork *w, const lg_model *v, lg_model **out, lg_error *err) {
    *out = NULL;
    const lg_subgraph *sg = &v->subgraphs[0];
    int32_t yt = output_with(w, sg, ROLE_Y);
    if (yt >= 0 && sg->n_outputs > 1) {
        /* the normalized output and statistics a later op also reads (a LayerNorm's mean and
           inverse std as extra outputs): the normalized output is what is judged */
        lg_model *c = NULL;
        LG_TRY(lg_model_clone(v, &c, err));
        lg_status st = lg_subgraph_set_io(c, 0, c->subgraphs[0].inputs, c->subgraphs[0].n_inputs, &yt, 1, err);
        if (st != LG_OK) {
            lg_model_free(c);
            return st;
        }
        *out = c;
        return LG_OK;
    }
    if (w->mt.kind == LG_FP16_GLOBAL_REDUCE || yt >= 0 || w->x_in < 0) return LG_OK;
    int32_t mu = output_with(w, sg, ROLE_MU), d = output_with(w, sg, ROLE_D), r = output_with(w, sg, ROLE_R);
    if (r < 0) r = output_with(w, sg, ROLE_INV);
    int32_t s = output_with(w, sg, ROLE_C);
    if (s < 0) s = output_with(w, sg, ROLE_S);
    if ((r < 0 && s < 0) || (w->mt.centered && mu < 0 && d < 0)) return LG_OK;
    lg_model *c = NULL;
    LG_TRY(lg_model_clone(v, &c, err));
    lg_builder b;
    lg_builder_init(&b, c, 0);
    const lg_tensor *xt = &c->subgraphs[0].tensors[c->subgraphs[0].inputs[w->x_in]];
    int32_t shape[LG_MAX_RANK];
    uint32_t rank = xt->rank;
    memcpy(shape, xt->shape, rank * sizeof shape[0]);
    lg_dims full = {shape, rank};
    int32_t t = c->subgraphs[0].inputs[w->x_in];
    if (w->mt.centered && d < 0) {
        int32_t nd = lg_b_tensor(&b, "judge/centered", LG_FLOAT32, full);
        lg_b_op(&b, LG_OP_SUB, LG_IDS(t, mu), LG_IDS(nd));
        t = nd;
    } else if (w->mt.centered) {
        t = d;
    }
    int32_t y = lg_b_tensor(&b, "judge/normalized", LG_FLOAT32, full);
    if (r >= 0) lg_b_op(&b, LG_OP_MUL, LG_IDS(t, r), LG_IDS(y));
    else lg_b_op(&b, LG_OP_DIV, LG_IDS(t, s), LG_IDS(y));
    if (b.status == LG_OK)
        b.status = lg_subgraph_set_io(c, 0, c->subgraphs[0].inputs, c->subgraphs[0].n_inputs, &y, 1, &b.err);
    if (b.status != LG_OK) {
        lg_model_free(c);
        return lgi_fail(err, b.status, "harden-fp16: cannot build the judged output: %s", b.err.msg);
    }
    *out = c;
    return LG_OK;
}

/* The emulated error of model v (P or a variant) over the cases: lg_compare_precision, the
   instrument of `compare`; overflow also counts an inf/NaN born inside the pattern (the
   variance of a LayerNorm overflows, its output is then a finite but wrong 0). The reference is
   v's own fp32 run: a variant equals P in fp32 within 1e-6 (the runner proves it on the whole
   model). *amax (may be NULL) gets the largest fp32 output magnitude. */
static lg_status measure(const mwork *w, const lg_model *v, uint32_t n_cases, lg_precision prec,
                         const lg_judge_options *jo, int threads, lg_fp16_error *e, double *amax, lg_error *err) {
    memset(e, 0, sizeof *e);
    lg_model *jm = NULL;
    LG_TRY(judged_model(w, v, &jm, err));
    if (jm) v = jm;
    lg_compare_options co;
    memset(&co, 0, sizeof co);
    co.precision = prec;
    co.threads = threads;
    co.tol = jo->tol;
    co.floor = jo->floor;
    for (uint32_t k = 0; k < n_cases; k++) {
        lg_precision_report *r = NULL;
        lg_status st = lg_compare_precision(v, (const float *const *)(w->vals + k * w->n_in), &co, &r, err);
        if (st != LG_OK) {
            lg_model_free(jm);
            return st;
        }
        for (uint32_t o = 0; o < r->n_outputs; o++) {
            const lg_tensor_cmp *tc = &r->outputs[o];
            if (!tc->m.n) continue;
            lgp_fp16_worst_of(e, &tc->m, &tc->v);
            if (amax && tc->m.ref_max_abs > *amax) *amax = tc->m.ref_max_abs;
        }
        if (r->n_overflows) e->overflow = true;
        lg_precision_report_free(r);
    }
    lg_model_free(jm);
    return LG_OK;
}

/* ------------------------------------------------------------------ the gate */

/* Copy the values the matches read (and the magnitudes) from the whole model's fp32 runs. */
static lg_status gather(const lgp_fp16_gate *gt, mwork *ws, uint32_t n, lg_error *err) {
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.precision = LG_PREC_F32;
    ro.keep_all = true;
    ro.threads = gt->threads;
    for (uint32_t i = 0; i < n; i++) {
        ws[i].vals = calloc((size_t)gt->n_cases * (ws[i].n_in ? ws[i].n_in : 1), sizeof *ws[i].vals);
        if (!ws[i].vals) return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    }
    for (uint32_t k = 0; k < gt->n_cases; k++) {
        lg_interp *it = NULL;
        LG_TRY(lg_interp_create(gt->m, &ro, &it, err));
        lg_status st = LG_OK;
        for (uint32_t i = 0; i < lg_interp_n_inputs(it) && st == LG_OK; i++) {
            lg_tensor_view v;
            lg_interp_input(it, i, &v);
            if (v.type != LG_FLOAT32)
                st = lgi_fail(err, LG_ERR_UNSUPPORTED, "harden-fp16: input %u is %s: only float inputs are supported", i,
                              lg_dtype_name(v.type));
            else st = lg_interp_set_input(it, i, v.type, gt->cases[k][i], v.nbytes, err);
        }
        if (st == LG_OK) st = lg_interp_invoke(it, err);
        for (uint32_t i = 0; i < n && st == LG_OK; i++) {
            mwork *w = &ws[i];
            lg_tensor_view v;
            for (uint32_t j = 0; j < w->n_in && st == LG_OK; j++) {
                if (lg_interp_tensor(it, w->p_in[j], &v) != LG_OK || !v.data || v.type != LG_FLOAT32) {
                    st = lgi_fail(err, LG_ERR_UNSUPPORTED, "harden-fp16: tensor %d the pattern reads is not float",
                                  w->p_in[j]);
                    break;
                }
                float *c = malloc((size_t)v.numel * sizeof *c);
                if (!c) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory"); break; }
                memcpy(c, v.data, (size_t)v.numel * sizeof *c);
                w->vals[k * w->n_in + j] = c;
            }
            if (st == LG_OK && lg_interp_tensor(it, w->mt.x, &v) == LG_OK && v.data)
                w->x_amax = fmax(w->x_amax, max_abs(v.data, v.numel));
            if (st == LG_OK && w->mt.conv_out >= 0 && lg_interp_tensor(it, w->mt.conv_out, &v) == LG_OK && v.data)
                w->conv_amax = fmax(w->conv_amax, max_abs(v.data, v.numel));
        }
        lg_interp_free(it);
        LG_TRY(st);
    }
    return LG_OK;
}

/* The conv rescale this match can take: k with 2^k ~ max|conv out| / 10, capped at exactness. */
static int32_t conv_shift_for(const lgp_fp16_gate *gt, const mwork *w) {
    if (w->mt.conv_op < 0 || !(w->conv_amax > 2 * LGP_FP16_CONV_TARGET)) return 0;
    long k = lround(log2(w->conv_amax / LGP_FP16_CONV_TARGET));
    if (k < 1) return 0;
    if (k > 60) k = 60;
    lg_graph *g = NULL;
    if (lg_graph_build(gt->m, 0, &g, NULL) != LG_OK) return 0;
    int32_t s = lgp_fp16_conv_max_shift(gt->m, 0, g, w->mt.conv_op, (int32_t)k);
    lg_graph_free(g);
    return s;
}

/* Measure the rewrite (fix, shift) of w into *e. */
static lg_status try_fix(const lgp_fp16_gate *gt, const mwork *w, unsigned fix, int32_t shift, lg_fp16_error *e,
                         lg_error *err) {
    lg_model *v = NULL;
    LG_TRY(variant(w, fix, shift, &v, err));
    if (!v) {
        memset(e, 0, sizeof *e);
        return LG_OK;
    }
    lg_status st = measure(w, v, gt->n_cases, gt->prec, &gt->jo, gt->threads, e, NULL, err);
    lg_model_free(v);
    return st;
}

/* a is a smaller error than b: fewer of (diverges, inf/NaN inside), then a lower severity. */
static bool better(const lg_fp16_error *a, const lg_fp16_error *b) {
    if (!a->measured) return false;
    if (!b->measured) return true;
    if (a->diverges != b->diverges) return !a->diverges;
    if (a->overflow != b->overflow) return !a->overflow;
    return a->severity < b->severity;
}

static bool passes(const lg_fp16_error *e) { return e->measured && !e->diverges && !e->overflow; }

/* The safe norm's known fp16 weakness (include/lg/passes.h): a row of zero variance at
   max|x| >= 8 has eps / S^2 below half's range, and 0 * rsqrt(0) is NaN. */
#define ZERO_VAR_HINT "; the rewrite makes inf/NaN: a row of zero variance at max|x| >= 8?"

/* The rewrites to try, in order of preference: the conv rescale first (the seed: the norm is
   scale-invariant, the conv's own accumulation is what the device loses), then the exact safe
   form on top, then the split. Returns their count. */
static uint32_t candidates(const mwork *w, int32_t k, unsigned *cand) {
    unsigned ex = lgp_fp16_default_fix(&w->mt, false), sp = lgp_fp16_default_fix(&w->mt, true);
    unsigned r = k ? LG_FP16_FIX_CONV_RESCALE : 0;
    uint32_t n = 0;
    if (r) cand[n++] = r;
    if (ex) cand[n++] = r | ex;
    if (sp) cand[n++] = r | sp;
    return n;
}

/* Decide one match (item filled: before, after, fix, rewritten, why). */
static lg_status decide(const lgp_fp16_gate *gt, mwork *w, lg_harden_item *it, lg_error *err) {
    LG_TRY(measure(w, w->P, gt->n_cases, gt->prec, &gt->jo, gt->threads, &it->before, &w->result_amax, err));
    it->hazard = it->before.diverges || it->before.overflow; /* an inf inside is a hazard even when absorbed */
    int32_t k = conv_shift_for(gt, w);
    unsigned cand[3];
    uint32_t nc = candidates(w, k, cand);
    char fs[64];
    if (gt->mode == LG_HARDEN_ALWAYS) {
        /* every match: the most thorough rewrite allowed (the split only with allow_approx) */
        it->fix = 0;
        for (uint32_t i = 0; i < nc; i++)
            if (gt->allow_approx || !(cand[i] & LG_FP16_FIX_TWO_STAGE)) it->fix = cand[i];
        it->conv_shift = it->fix & LG_FP16_FIX_CONV_RESCALE ? k : 0;
        fix_str(it->fix, it->conv_shift, fs, sizeof fs);
        if (it->fix) LG_TRY(try_fix(gt, w, it->fix, k, &it->after, err));
        /* every match, but never one the rewrite makes worse on the inputs measured */
        bool worse = it->after.measured && !passes(&it->after) && better(&it->before, &it->after);
        it->rewritten = it->after.measured && !worse;
        if (it->rewritten)
            snprintf(it->why, sizeof it->why, "always: %s (f16 score %.3g -> %.3g)", fs, it->before.score, it->after.score);
        else if (worse)
            snprintf(it->why, sizeof it->why, "always: not applied, %.40s is worse on these inputs (f16 score %.3g -> %.3g)%s", fs,
                     it->before.score, it->after.score, it->after.overflow ? ZERO_VAR_HINT : "");
        else
            snprintf(it->why, sizeof it->why, "always: no exact rewrite (the two-stage split is approximate: allow_approx)");
        return LG_OK;
    }
    lg_fp16_error best, best_na;
    memset(&best, 0, sizeof best);
    memset(&best_na, 0, sizeof best_na);
    unsigned best_fix = 0, na_fix = 0;
    for (uint32_t i = 0; i < nc; i++) {
        bool allowed = gt->allow_approx || !(cand[i] & LG_FP16_FIX_TWO_STAGE);
        lg_fp16_error e;
        LG_TRY(try_fix(gt, w, cand[i], k, &e, err));
        if (allowed && better(&e, &best)) { best = e; best_fix = cand[i]; }
        if (!allowed && better(&e, &best_na)) { best_na = e; na_fix = cand[i]; }
        if (!it->hazard || (allowed && passes(&e))) break; /* a near miss: one measurement, for the report */
    }
    it->after = best;
    it->fix = best_fix;
    it->conv_shift = best_fix & LG_FP16_FIX_CONV_RESCALE ? k : 0;
    fix_str(best_fix, it->conv_shift, fs, sizeof fs);
    if (!it->hazard) {
        if (!best_fix) it->after = best_na, it->fix = na_fix;
        snprintf(it->why, sizeof it->why, "no hazard: f16 score %.3g within tolerance %g", it->before.score, gt->jo.tol);
        return LG_OK;
    }
    char ns[64];
    fix_str(na_fix, na_fix & LG_FP16_FIX_CONV_RESCALE ? k : 0, ns, sizeof ns);
    bool na_helps = passes(&best_na) && !passes(&best);
    if (best.measured && better(&best, &it->before)) {
        it->rewritten = true;
        snprintf(it->why, sizeof it->why, "f16 %s (score %.3g) -> %s: score %.3g%s%s%s",
                 it->before.overflow ? "overflows" : "diverges", it->before.score, fs, best.score,
                 best.diverges ? " (still above tolerance" : "", best.diverges && na_helps ? "; within with " : "",
                 best.diverges ? (na_helps ? "the split: allow_approx)" : ")") : "");
        return LG_OK;
    }
    if (w->mt.kind == LG_FP16_GLOBAL_REDUCE && w->result_amax > 65504.0)
        snprintf(it->why, sizeof it->why, "the reduction's value (max %.6g) is beyond the half range: no rewrite can hold it "
                 "in fp16; scale it where it is consumed", w->result_amax);
    else if (na_helps)
        snprintf(it->why, sizeof it->why, "hazard (f16 score %.3g): only %s removes it (score %.3g), approximate in fp32 "
                 "(summation order): allow_approx", it->before.score, ns, best_na.score);
    else
        snprintf(it->why, sizeof it->why, "hazard (f16 score %.3g), but no rewrite lowers it (%s: %.3g)%s", it->before.score,
                 best_fix ? fs : ns, best.measured ? best.score : best_na.score,
                 best.measured && best.overflow && w->mt.kind != LG_FP16_GLOBAL_REDUCE ? ZERO_VAR_HINT : "");
    return LG_OK;
}

/* ------------------------------------------------------------------ lgp_fp16_hazards */

static void item_from_match(const lg_model *m, const lgp_fp16_match *mt, lg_harden_item *it) {
    memset(it, 0, sizeof *it);
    it->kind = mt->kind;
    it->n_ops = mt->n_ops;
    memcpy(it->ops, mt->ops, mt->n_ops * sizeof mt->ops[0]);
    it->anchor_op = mt->anchor;
    it->input = mt->x;
    it->axes = mt->axes;
    it->extent = mt->extent;
    it->input_max_abs = NAN;
    it->conv_op = mt->conv_op;
    lg_graph *g = NULL;
    int32_t res[8];
    it->output = mt->kind == LG_FP16_GLOBAL_REDUCE ? mt->result : mt->y;
    if (it->output < 0 && lg_graph_build(m, 0, &g, NULL) == LG_OK) {
        if (lgp_fp16_results(m, 0, g, mt, res)) it->output = res[0];
        lg_graph_free(g);
    }
    const char *nm = it->output >= 0 ? m->subgraphs[0].tensors[it->output].name : NULL;
    snprintf(it->output_name, sizeof it->output_name, "%s", nm ? nm : "");
}

static lg_status measure_all(const lgp_fp16_gate *gt, lgp_hazard *hz, uint32_t n, lg_error *err) {
    mwork *ws = calloc(n ? n : 1, sizeof *ws);
    if (!ws) return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    lg_graph *g = NULL;
    lg_status st = lg_graph_build(gt->m, 0, &g, err);
    for (uint32_t i = 0; i < n && st == LG_OK; i++) {
        uint32_t ops[2 * LG_HARDEN_MAX_OPS];
        int32_t res[8];
        ws[i].mt = hz[i].mt;
        uint32_t no = submodel_ops(gt->m, g, &hz[i].mt, ops);
        uint32_t nr = lgp_fp16_results(gt->m, 0, g, &hz[i].mt, res);
        st = extract(gt->m, ops, no, res, nr, hz[i].anchor_t, &ws[i], err);
    }
    lg_graph_free(g);
    if (st == LG_OK) st = gather(gt, ws, n, err);
    for (uint32_t i = 0; i < n && st == LG_OK; i++) {
        hz[i].item.input_max_abs = ws[i].x_amax;
        st = decide(gt, &ws[i], &hz[i].item, err);
    }
    for (uint32_t i = 0; i < n; i++) mwork_free(&ws[i], gt->n_cases);
    free(ws);
    return st;
}

lg_status lgp_fp16_hazards(const lgp_fp16_gate *gt, lgp_hazard **out, uint32_t *n, lg_error *err) {
    lgp_fp16_match *ms = NULL;
    *out = NULL;
    *n = 0;
    LG_TRY(lgp_fp16_match_all(gt->m, 0, &ms, n, err));
    lgp_hazard *hz = calloc(*n ? *n : 1, sizeof *hz);
    if (!hz) {
        free(ms);
        return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < *n; i++) {
        hz[i].mt = ms[i];
        hz[i].anchor_t = gt->m->subgraphs[0].ops[ms[i].anchor].outputs[0];
        item_from_match(gt->m, &ms[i], &hz[i].item);
    }
    free(ms);
    lg_status st = LG_OK;
    if (gt->mode == LG_HARDEN_OFF) {
        for (uint32_t i = 0; i < *n; i++) snprintf(hz[i].item.why, sizeof hz[i].item.why, "--harden-fp16 off");
    } else if (*n) {
        st = measure_all(gt, hz, *n, err);
    }
    if (st != LG_OK) {
        free(hz);
        *n = 0;
        return st;
    }
    *out = hz;
    return LG_OK;
}

