/* reduce-rank on random regions: a seeded generator builds 300 chains of rank-5/6 ops (random
   transposes, elementwise ops with random broadcast constants, softmax, reductions, slices,
   strided slices with shrink axes, constant gathers, concatenations with fused activations,
   PACK, UNPACK, batched matmuls, reshapes, and taps that leave the region at rank 2), each run
   through lg_passes_run with parity proved against the unmodified model by the runner (so a
   wrong rewrite fails with LG_ERR_INTERNAL). Every rewritten model must have no tensor of rank
   5 or more, no new blocker on either target, and no BATCH_MATMUL reading one tensor twice
   (ML Drift hangs on it); a region left alone must say why. */
#include <stdlib.h>

#include "lg/check.h"
#include "lg/lg.h"
#include "lg/ops.h"
#include "lg/passes.h"
#include "tf.h"

typedef struct gen {
    uint64_t s;
    lg_builder b;
    int k;              /* names */
} gen;

typedef struct tv {
    int id;
    int32_t s[LG_MAX_RANK];
    uint32_t r;
} tv;

static uint32_t rnd(gen *g, uint32_t n) {
    g->s ^= g->s << 13;
    g->s ^= g->s >> 7;
    g->s ^= g->s << 17;
    return (uint32_t)(g->s % n);
}

static int64_t numel(const int32_t *s, uint32_t r) {
    int64_t n = 1;
    for (uint32_t i = 0; i < r; i++) n *= s[i];
    return n;
}

static tv newt(gen *g, const int32_t *s, uint32_t r) {
    tv t;
    memcpy(t.s, s, r * sizeof *s);
    t.r = r;
    char nm[32];
    snprintf(nm, sizeof nm, "t%d", g->k++);
    t.id = lg_b_tensor(&g->b, nm, LG_FLOAT32, (lg_dims){t.s, r});
    return t;
}

static int ints(gen *g, const int32_t *v, uint32_t n) {
    char nm[32];
    snprintf(nm, sizeof nm, "c%d", g->k++);
    return lg_b_const_i32(&g->b, nm, (lg_dims){(const int32_t[]){(int32_t)n}, 1}, v);
}

static tv reshape(gen *g, tv x, const int32_t *s, uint32_t r) {
    tv y = newt(g, s, r);
    lg_b_op(&g->b, LG_OP_RESHAPE, LG_IDS(x.id, ints(g, s, r)), LG_IDS(y.id));
    return y;
}

static tv op_transpose(gen *g, tv x) {
    int32_t p[LG_MAX_RANK], os[LG_MAX_RANK];
    for (uint32_t i = 0; i < x.r; i++) p[i] = (int32_t)i;
    for (uint32_t i = x.r - 1; i > 0; i--) {
        uint32_t j = rnd(g, i + 1);
        int32_t t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
    for (uint32_t i = 0; i < x.r; i++) os[i] = x.s[p[i]];
    tv y = newt(g, os, x.r);
    lg_b_op(&g->b, LG_OP_TRANSPOSE, LG_IDS(x.id, ints(g, p, x.r)), LG_IDS(y.id));
    return y;
}

/* x ADD/MUL a constant of a lower or equal rank, full or 1 on each dim. */
static tv op_bcast_const(gen *g, tv x) {
    uint32_t kr = x.r - rnd(g, 3);
    int32_t ks[LG_MAX_RANK];
    for (uint32_t i = 0; i < kr; i++) ks[i] = rnd(g, 2) ? x.s[i + x.r - kr] : 1;
    int64_t n = numel(ks, kr);
    float kv[729];
    for (int64_t i = 0; i < n; i++) kv[i] = (float)rnd(g, 7) - 3.0f;
    char nm[32];
    snprintf(nm, sizeof nm, "k%d", g->k++);
    int kk = lg_b_const_f32(&g->b, nm, (lg_dims){ks, kr}, kv);
    tv y = newt(g, x.s, x.r);
    lg_b_op(&g->b, rnd(g, 2) ? LG_OP_ADD : LG_OP_MUL, LG_IDS(x.id, kk), LG_IDS(y.id));
    return y;
}

static tv op_reduce(gen *g, tv x, bool keep, int32_t code) {
    int32_t ax[LG_MAX_RANK], os[LG_MAX_RANK];
    uint32_t na = 0, r = 0;
    for (uint32_t i = 0; i < x.r; i++)
        if (rnd(g, 3) == 0) ax[na++] = (int32_t)i;
    if (!na) ax[na++] = (int32_t)rnd(g, x.r);
    for (uint32_t i = 0; i < x.r; i++) {
        bool red = false;
        for (uint32_t j = 0; j < na; j++) red |= ax[j] == (int32_t)i;
        if (!red)
            os[r++] = x.s[i];
        else if (keep)
            os[r++] = 1;
    }
    tv y = newt(g, os, r);
    lg_reducer_options ro = {keep};
    lg_b_op_opts(&g->b, code, LG_IDS(x.id, ints(g, ax, na)), LG_IDS(y.id), LG_OPTS_REDUCER_OPTIONS, &ro);
    return y;
}

static tv op_slice(gen *g, tv x) {
    int32_t b[LG_MAX_RANK], w[LG_MAX_RANK];
    for (uint32_t i = 0; i < x.r; i++) {
        b[i] = 0;
        w[i] = x.s[i];
        if (x.s[i] > 1 && rnd(g, 2)) {
            b[i] = (int32_t)rnd(g, (uint32_t)x.s[i]);
            w[i] = 1 + (int32_t)rnd(g, (uint32_t)(x.s[i] - b[i]));
        }
    }
    tv y = newt(g, w, x.r);
    lg_b_op(&g->b, LG_OP_SLICE, LG_IDS(x.id, ints(g, b, x.r), ints(g, w, x.r)), LG_IDS(y.id));
    return y;
}

static tv op_strided_slice(gen *g, tv x) {
    int32_t b[LG_MAX_RANK], e[LG_MAX_RANK], st[LG_MAX_RANK], os[LG_MAX_RANK];
    uint32_t r = 0, shrink = 0;
    for (uint32_t i = 0; i < x.r; i++) {
        st[i] = 1;
        b[i] = 0;
        e[i] = x.s[i];
        uint32_t kind = rnd(g, 4);
        if (kind == 1 && x.s[i] > 1) {
            b[i] = (int32_t)rnd(g, (uint32_t)x.s[i]);
            e[i] = b[i] + 1 + (int32_t)rnd(g, (uint32_t)(x.s[i] - b[i]));
        } else if (kind == 2 && x.s[i] > 2) {
            st[i] = 2;
        } else if (kind == 3 && rnd(g, 3) == 0 && r + (x.r - i) > 1) {
            shrink |= 1u << i;
            b[i] = (int32_t)rnd(g, (uint32_t)x.s[i]);
            e[i] = b[i] + 1;
        }
        if (!((shrink >> i) & 1)) os[r++] = (e[i] - b[i] + st[i] - 1) / st[i];
    }
    tv y = newt(g, os, r);
    lg_strided_slice_options so;
    lg_opts_init(LG_OPTS_STRIDED_SLICE_OPTIONS, &so, sizeof so);
    so.shrink_axis_mask = (int32_t)shrink;
    lg_b_op_opts(&g->b, LG_OP_STRIDED_SLICE, LG_IDS(x.id, ints(g, b, x.r), ints(g, e, x.r), ints(g, st, x.r)),
                 LG_IDS(y.id), LG_OPTS_STRIDED_SLICE_OPTIONS, &so);
    return y;
}

static tv op_gather(gen *g, tv x) {
    uint32_t a = rnd(g, x.r), L = 1 + rnd(g, 3), r = 0;
    int32_t idx[3], os[LG_MAX_RANK];
    for (uint32_t i = 0; i < L; i++) idx[i] = (int32_t)rnd(g, (uint32_t)x.s[a]);
    bool scalar = rnd(g, 3) == 0;
    for (uint32_t i = 0; i < x.r; i++)
        if (i != a)
            os[r++] = x.s[i];
        else if (!scalar)
            os[r++] = (int32_t)L;
    char nm[32];
    snprintf(nm, sizeof nm, "g%d", g->k++);
    int gi = scalar ? lg_b_const_i32(&g->b, nm, LG_SCALAR, idx)
                    : lg_b_const_i32(&g->b, nm, (lg_dims){(const int32_t[]){(int32_t)L}, 1}, idx);
    tv y = newt(g, os, r);
    lg_gather_options go;
    lg_opts_init(LG_OPTS_GATHER_OPTIONS, &go, sizeof go);
    go.axis = (int32_t)a;
    lg_b_op_opts(&g->b, LG_OP_GATHER, LG_IDS(x.id, gi), LG_IDS(y.id), LG_OPTS_GATHER_OPTIONS, &go);
    return y;
}

/* x joined with RELU(x) along a random axis (CONCATENATION, maybe with a fused activation) or
   stacked on a new one (PACK). */
static tv op_join(gen *g, tv x, bool pack) {
    tv z = newt(g, x.s, x.r);
    lg_b_op(&g->b, LG_OP_RELU, LG_IDS(x.id), LG_IDS(z.id));
    int32_t os[LG_MAX_RANK];
    uint32_t a = rnd(g, x.r + (pack ? 1 : 0)), r = 0;
    if (pack) {
        for (uint32_t i = 0; i <= x.r; i++) {
            if (i == a) os[r++] = 2;
            if (i < x.r) os[r++] = x.s[i];
        }
        tv y = newt(g, os, r);
        lg_pack_options po = {2, (int32_t)a};
        lg_b_op_opts(&g->b, LG_OP_PACK, LG_IDS(x.id, z.id), LG_IDS(y.id), LG_OPTS_PACK_OPTIONS, &po);
        return y;
    }
    memcpy(os, x.s, sizeof os);
    os[a] *= 2;
    tv y = newt(g, os, x.r);
    lg_concatenation_options co;
    lg_opts_init(LG_OPTS_CONCATENATION_OPTIONS, &co, sizeof co);
    co.axis = (int32_t)a;
    co.fused_activation_function = rnd(g, 3) == 0 ? (int8_t)(1 + rnd(g, 4)) : 0;
    lg_b_op_opts(&g->b, LG_OP_CONCATENATION, LG_IDS(x.id, z.id), LG_IDS(y.id), LG_OPTS_CONCATENATION_OPTIONS, &co);
    return y;
}

/* x @ swap(x) (the last two dims swapped by a TRANSPOSE). */
static tv op_bmm(gen *g, tv x) {
    int32_t p[LG_MAX_RANK], ts[LG_MAX_RANK], os[LG_MAX_RANK];
    for (uint32_t i = 0; i < x.r; i++) p[i] = (int32_t)i;
    p[x.r - 1] = (int32_t)x.r - 2;
    p[x.r - 2] = (int32_t)x.r - 1;
    for (uint32_t i = 0; i < x.r; i++) ts[i] = x.s[p[i]];
    tv z = newt(g, ts, x.r);
    lg_b_op(&g->b, LG_OP_TRANSPOSE, LG_IDS(x.id, ints(g, p, x.r)), LG_IDS(z.id));
    memcpy(os, x.s, sizeof os);
    os[x.r - 1] = x.s[x.r - 2];
    tv y = newt(g, os, x.r);
    lg_batch_mat_mul_options bo;
    lg_opts_init(LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo, sizeof bo);
    lg_b_op_opts(&g->b, LG_OP_BATCH_MATMUL, LG_IDS(x.id, z.id), LG_IDS(y.id), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo);
    return y;
}

/* x - REDUCE_MAX(x, keep_dims): a runtime operand broadcast inside the region. */
static tv op_sub_max(gen *g, tv x) {
    tv z = op_reduce(g, x, true, LG_OP_REDUCE_MAX);
    tv y = newt(g, x.s, x.r);
    lg_b_op(&g->b, LG_OP_SUB, LG_IDS(x.id, z.id), LG_IDS(y.id));
    return y;
}

/* One random model: x (rank 2) -> RESHAPE to a random rank-5/6 shape -> 2..5 random ops (the
   region, tapped to rank-2 outputs now and then) -> RESHAPE to rank 1. */
static lg_model *random_model(gen *g) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(NULL, NULL, &m, &err) != LG_OK) return NULL;
    lg_builder_init(&g->b, m, 0);
    g->k = 0;
    uint32_t r = 5 + rnd(g, 2);
    int32_t s[LG_MAX_RANK];
    for (uint32_t i = 0; i < r; i++) s[i] = 1 + (int32_t)rnd(g, 3);
    int32_t flat[2] = {(int32_t)(numel(s, r) / s[0]), s[0]};
    tv x = newt(g, flat, 2), cur = reshape(g, x, s, r);
    int32_t outs[4];
    uint32_t no = 0, n_ops = 2 + rnd(g, 4);
    for (uint32_t k = 0; k < n_ops && cur.r >= 5; k++) {
        switch (rnd(g, 14)) {
        case 0: case 1: cur = op_transpose(g, cur); break;
        case 2: cur = op_bcast_const(g, cur); break;
        case 3: {
            tv y = newt(g, cur.s, cur.r);
            lg_softmax_options so = {1.0f};
            lg_b_op_opts(&g->b, LG_OP_SOFTMAX, LG_IDS(cur.id), LG_IDS(y.id), LG_OPTS_SOFTMAX_OPTIONS, &so);
            cur = y;
            break;
        }
        case 4: cur = op_reduce(g, cur, rnd(g, 2), rnd(g, 2) ? LG_OP_SUM : LG_OP_MEAN); break;
        case 5: cur = op_slice(g, cur); break;
        case 6: cur = op_strided_slice(g, cur); break;
        case 7: cur = op_gather(g, cur); break;
        case 8: cur = op_join(g, cur, false); break;
        case 9: if (cur.r < 7) cur = op_join(g, cur, true); break;
        case 10: if (cur.r == 5) cur = op_bmm(g, cur); break; /* BATCH_MATMUL takes rank <= 5 */
        case 11: cur = op_sub_max(g, cur); break;
        case 12: { /* move a factor 2 to the next dim */
            int32_t os[LG_MAX_RANK];
            memcpy(os, cur.s, sizeof os);
            for (uint32_t i = 0; i + 1 < cur.r; i++)
                if (os[i] % 2 == 0) {
                    os[i] /= 2;
                    os[i + 1] *= 2;
                    break;
                }
            cur = reshape(g, cur, os, cur.r);
            break;
        }
        default:
            if (no < 3) {
                int32_t o2[2] = {(int32_t)numel(cur.s, cur.r), 1};
                outs[no++] = reshape(g, cur, o2, 2).id;
            }
            break;
        }
    }
    int32_t o1[1] = {(int32_t)numel(cur.s, cur.r)};
    outs[no++] = reshape(g, cur, o1, 1).id;
    lg_b_io(&g->b, (lg_dims){(const int32_t[]){x.id}, 1}, (lg_dims){outs, no});
    if (g->b.status != LG_OK || lg_model_validate_ops(m, &err) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "generated model: %s", g->b.status != LG_OK ? g->b.err.msg : err.msg);
        lg_model_free(m);
        return NULL;
    }
    return m;
}

static uint64_t blockers(const lg_model *m, lg_target t) {
    lg_check_options o;
    memset(&o, 0, sizeof o);
    o.target = t;
    lg_check_report *r = NULL;
    lg_error err;
    if (lg_check_model(m, &o, &r, &err) != LG_OK) return ~0ull;
    uint32_t n = 0;
    const lg_rule_info *rules = lg_rules(&n);
    uint64_t bits = 0;
    for (uint32_t i = 0; i < r->n_findings; i++)
        if (r->findings[i].rule->severity == LG_SEV_BLOCKER) bits |= 1ull << (r->findings[i].rule - rules);
    lg_check_report_free(r);
    return bits;
}

static bool clean(const lg_model *m) {
    const lg_subgraph *s = &m->subgraphs[0];
    for (uint32_t i = 0; i < s->n_ops; i++) {
        const lg_op *op = &s->ops[i];
        if (lg_op_builtin(m, op) == LG_OP_BATCH_MATMUL && op->inputs[0] == op->inputs[1]) return false;
        for (uint32_t k = 0; k < op->n_inputs + op->n_outputs; k++) {
            int32_t t = k < op->n_inputs ? op->inputs[k] : op->outputs[k - op->n_inputs];
            if (t >= 0 && s->tensors[t].rank >= 5) return false;
        }
    }
    return true;
}

LG_TEST(rank_random_regions) {
    gen g;
    memset(&g, 0, sizeof g);
    g.s = 0x9e3779b97f4a7c15ull;
    const lg_pass *ps[1] = {lg_pass_find("reduce-rank")};
    CHECK(ps[0] != NULL);
    if (!ps[0]) return;
    uint32_t applied = 0, skipped = 0, n = 300;
    for (uint32_t it = 0; it < n; it++) {
        lg_model *m = random_model(&g);
        if (!m) break;
        lg_pass_run_options o;
        memset(&o, 0, sizeof o);
        o.prove = true;
        o.n_random = 2;
        lg_model *out = NULL;
        lg_pass_report *rep = NULL;
        lg_error err;
        if (lg_passes_run(m, ps, 1, 1, &o, &out, &rep, &err) != LG_OK) {
            tf_fail(__FILE__, __LINE__, "model %u: %s", it, err.msg);
            lg_model_free(m);
            continue;
        }
        const lg_pass_delta *d = &rep->passes[0].delta;
        if (d->applied) {
            applied++;
            if (!rep->passes[0].parity_measured || !(rep->passes[0].max_rel <= 1e-6))
                tf_fail(__FILE__, __LINE__, "model %u: parity %s (%g)", it, rep->passes[0].parity_note,
                        rep->passes[0].max_rel);
            if (!clean(out)) tf_fail(__FILE__, __LINE__, "model %u: a rank >= 5 tensor or BATCH_MATMUL(x, x) left", it);
            for (int t = 0; t < LG_TARGET_COUNT; t++)
                if (blockers(out, (lg_target)t) & ~blockers(m, (lg_target)t))
                    tf_fail(__FILE__, __LINE__, "model %u: a new blocker on %s", it, lg_target_name((lg_target)t));
        } else {
            skipped++;
            if (!strstr(d->note, "tensor-rank")) tf_fail(__FILE__, __LINE__, "model %u: skipped without a note", it);
        }
        lg_pass_report_free(rep);
        lg_model_free(out);
        lg_model_free(m);
    }
    CHECK_EQ_INT(applied + skipped, n);
    CHECK(applied >= n * 9 / 10); /* the few left are 6-D interleaves that need two splits */
}
