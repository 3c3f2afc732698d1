/* reduce-rank (src/passes/fix_rank*.c): builder-made regions of rank-5/6 tensors (the fused-QKV
   head split, Swin window partition / reverse and its attention mask, channel shuffle,
   PixelShuffle in both orders, elementwise chains with broadcast constants, softmax,
   reductions, batched matmul), each run through lg_passes_run with parity proved by the
   runner, checked with lg_check on both targets (tensor-rank gone, no new blocker), and
   with values derived by hand on small tensors; a rank-4 near-miss and regions the pass
   cannot reduce stay unchanged; the PyTorch-made fixtures (ONNX import) lose tensor-rank and
   keep PyTorch's outputs. */
#include <stdlib.h>

#include "lg/check.h"
#include "lg/graph.h"
#include "lg/import.h"
#include "lg/lg.h"
#include "lg/npy.h"
#include "lg/onnx.h"
#include "lg/ops.h"
#include "lg/passes.h"
#include "lg/run.h"
#include "tf.h"

/* ------------------------------------------------------------------ helpers */

static lg_model *new_model(lg_builder *b) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(NULL, NULL, &m, &err) != LG_OK) return NULL;
    lg_builder_init(b, m, 0);
    return m;
}

static int ten(lg_builder *b, const char *name, lg_dims d) { return lg_b_tensor(b, name, LG_FLOAT32, d); }

/* y = RESHAPE(x) to y's shape. */
static void reshape_to(lg_builder *b, int x, int y) {
    if (b->status != LG_OK) return;
    const lg_tensor *t = &b->m->subgraphs[0].tensors[y];
    int32_t shape[LG_MAX_RANK];
    uint32_t r = t->rank;
    memcpy(shape, t->shape, r * sizeof *shape);
    char name[64];
    snprintf(name, sizeof name, "shape%d", y);
    int s = lg_b_const_i32(b, name, (lg_dims){(const int32_t[]){(int32_t)r}, 1}, shape);
    lg_b_op(b, LG_OP_RESHAPE, LG_IDS(x, s), LG_IDS(y));
}

static void transpose(lg_builder *b, int x, lg_dims perm, int y) {
    char name[64];
    snprintf(name, sizeof name, "perm%d", y);
    int p = lg_b_const_i32(b, name, (lg_dims){(const int32_t[]){(int32_t)perm.n}, 1}, perm.v);
    lg_b_op(b, LG_OP_TRANSPOSE, LG_IDS(x, p), LG_IDS(y));
}

static void binary(lg_builder *b, int32_t code, int x, int k, int y) {
    lg_add_options ao;
    lg_mul_options mo;
    lg_opts_init(LG_OPTS_ADD_OPTIONS, &ao, sizeof ao);
    lg_opts_init(LG_OPTS_MUL_OPTIONS, &mo, sizeof mo);
    if (code == LG_OP_ADD)
        lg_b_op_opts(b, code, LG_IDS(x, k), LG_IDS(y), LG_OPTS_ADD_OPTIONS, &ao);
    else
        lg_b_op_opts(b, code, LG_IDS(x, k), LG_IDS(y), LG_OPTS_MUL_OPTIONS, &mo);
}

static const lg_pass *rank_pass(void) { return lg_pass_find("reduce-rank"); }

/* lg_passes_run with reduce-rank alone, parity proved (golden + 2 random inputs); NULL with a
   failed check. */
static lg_model *fix(const lg_model *m, lg_pass_report **rep) {
    const lg_pass *ps[1] = {rank_pass()};
    lg_pass_run_options o;
    memset(&o, 0, sizeof o);
    o.prove = true;
    o.n_random = 2;
    lg_model *out = NULL;
    lg_error err;
    *rep = NULL;
    if (!ps[0]) {
        tf_fail(__FILE__, __LINE__, "no reduce-rank pass in the registry");
        return NULL;
    }
    if (lg_passes_run(m, ps, 1, 1, &o, &out, rep, &err) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "lg_passes_run: %s", err.msg);
        return NULL;
    }
    const lg_pass_result *r = &(*rep)->passes[0];
    if (r->delta.applied && !(r->parity_measured && r->max_rel <= 1e-6))
        tf_fail(__FILE__, __LINE__, "parity not proved (%s, %g)", r->parity_note, r->max_rel);
    return out;
}

static uint32_t n_code(const lg_model *m, int32_t code) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->subgraphs[0].n_ops; i++) n += lg_op_builtin(m, &m->subgraphs[0].ops[i]) == code;
    return n;
}

static int32_t code_at(const lg_model *m, uint32_t i) { return lg_op_builtin(m, &m->subgraphs[0].ops[i]); }

/* The largest rank of any op input or output. */
static uint32_t max_rank(const lg_model *m) {
    const lg_subgraph *s = &m->subgraphs[0];
    uint32_t r = 0;
    for (uint32_t i = 0; i < s->n_ops; i++) {
        const lg_op *op = &s->ops[i];
        for (uint32_t k = 0; k < op->n_inputs + op->n_outputs; k++) {
            int32_t t = k < op->n_inputs ? op->inputs[k] : op->outputs[k - op->n_inputs];
            if (t >= 0 && s->tensors[t].rank > r) r = s->tensors[t].rank;
        }
    }
    return r;
}

/* The blocker rules lg_check reports on target t, as a bit set over the rule table. */
static uint64_t blockers(const lg_model *m, lg_target t) {
    lg_check_options o;
    memset(&o, 0, sizeof o);
    o.target = t;
    lg_check_report *r = NULL;
    lg_error err;
    if (lg_check_model(m, &o, &r, &err) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "lg_check_model: %s", err.msg);
        return ~0ull;
    }
    uint32_t n = 0;
    const lg_rule_info *rules = lg_rules(&n);
    uint64_t bits = 0;
    for (uint32_t i = 0; i < r->n_findings; i++)
        if (r->findings[i].rule->severity == LG_SEV_BLOCKER) bits |= 1ull << (r->findings[i].rule - rules);
    lg_check_report_free(r);
    return bits;
}

static uint64_t rule_bit(const char *id) {
    uint32_t n = 0;
    const lg_rule_info *rules = lg_rules(&n);
    const lg_rule_info *r = lg_rule_find(id);
    return r ? 1ull << (r - rules) : 0;
}

/* tensor-rank reported before on both targets, absent after, and no blocker after that was
   not there before. */
static void check_rules(const char *file, int line, const lg_model *before, const lg_model *after) {
    for (int t = 0; t < LG_TARGET_COUNT; t++) {
        uint64_t b = blockers(before, (lg_target)t), a = blockers(after, (lg_target)t);
        if (!(b & rule_bit("tensor-rank"))) tf_fail(file, line, "%s: tensor-rank not reported before", lg_target_name((lg_target)t));
        if (a & rule_bit("tensor-rank")) tf_fail(file, line, "%s: tensor-rank still reported", lg_target_name((lg_target)t));
        if (a & ~b) tf_fail(file, line, "%s: new blockers after the pass (bits %llx)", lg_target_name((lg_target)t), (unsigned long long)(a & ~b));
    }
}
#define CHECK_RULES(before, after) check_rules(__FILE__, __LINE__, before, after)

/* Run m (float32 inputs in[k]) and copy output k (n floats) into out; 0 on failure. */
static int run_f32(const lg_model *m, const float *const *in, uint32_t n_in, uint32_t k, float *out, size_t n) {
    lg_interp *it = NULL;
    lg_error err;
    if (lg_interp_create(m, NULL, &it, &err) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "lg_interp_create: %s", err.msg);
        return 0;
    }
    int ok = 1;
    for (uint32_t i = 0; i < n_in && ok; i++) {
        lg_tensor_view v;
        lg_interp_input(it, i, &v);
        ok = lg_interp_set_input(it, i, LG_FLOAT32, in[i], (uint64_t)v.numel * 4, &err) == LG_OK;
    }
    ok = ok && lg_interp_invoke(it, &err) == LG_OK;
    lg_tensor_view v;
    ok = ok && lg_interp_output(it, k, &v) == LG_OK && (size_t)v.numel == n;
    if (ok) memcpy(out, v.data, n * sizeof *out);
    else tf_fail(__FILE__, __LINE__, "run failed: %s", err.msg);
    lg_interp_free(it);
    return ok;
}

static void iota(float *x, size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = (float)i;
}

/* The same ops (codes, in order) with the same input/output shapes. */
static bool same_ops(const lg_model *a, const lg_model *b) {
    const lg_subgraph *s = &a->subgraphs[0], *t = &b->subgraphs[0];
    if (s->n_ops != t->n_ops) return false;
    for (uint32_t i = 0; i < s->n_ops; i++) {
        const lg_op *x = &s->ops[i], *y = &t->ops[i];
        if (code_at(a, i) != code_at(b, i) || x->n_inputs != y->n_inputs || x->n_outputs != y->n_outputs) return false;
        for (uint32_t k = 0; k < x->n_inputs + x->n_outputs; k++) {
            int32_t p = k < x->n_inputs ? x->inputs[k] : x->outputs[k - x->n_inputs];
            int32_t q = k < y->n_inputs ? y->inputs[k] : y->outputs[k - y->n_inputs];
            if ((p < 0) != (q < 0)) return false;
            if (p < 0) continue;
            const lg_tensor *u = &s->tensors[p], *v = &t->tensors[q];
            if (u->rank != v->rank || memcmp(u->shape, v->shape, u->rank * sizeof *u->shape) != 0) return false;
        }
    }
    return true;
}

static const int32_t *const_i32(const lg_model *m, int32_t t) {
    const lg_tensor *x = &m->subgraphs[0].tensors[t];
    return x->buffer ? (const int32_t *)m->buffers[x->buffer].data : NULL;
}

/* The first op with this code, -1. */
static int32_t first_op(const lg_model *m, int32_t code) {
    for (uint32_t i = 0; i < m->subgraphs[0].n_ops; i++)
        if (code_at(m, i) == code) return (int32_t)i;
    return -1;
}

static bool ints_eq(const int32_t *v, lg_dims d) {
    if (!v) return false;
    for (uint32_t k = 0; k < d.n; k++)
        if (v[k] != d.v[k]) return false;
    return true;
}

#define FIXED(m, o, rep)                                                                       \
    lg_pass_report *rep = NULL;                                                                \
    lg_model *o = fix(m, &rep);                                                                \
    if (!o) {                                                                                  \
        lg_model_free(m);                                                                      \
        return;                                                                                \
    }

#define DONE(m, o, rep)                                                                        \
    lg_pass_report_free(rep);                                                                  \
    lg_model_free(o);                                                                          \
    lg_model_free(m)

/* ------------------------------------------------------------------ the fused-QKV head split */

/* x[1,4,24] (N=4 tokens, 3 x H=2 heads x D=4) -> RESHAPE [1,4,3,2,4] -> TRANSPOSE (2,0,3,1,4)
   -> [3,1,2,4,4] -> GATHER 0/1/2 on axis 0 (scalar index: torch's qkv[i]) -> q, k, v [1,2,4,4].
   B = 1: the 1s go, 3 and H stay adjacent and in order through the transpose, so the
   grouping is [N, 3*H, D] -> [3*H, N, D]: RESHAPE [1,4,6,4], TRANSPOSE (0,2,1,3), and each
   GATHER (a constant index: one slab) a SLICE of 2 of the 6 rows straight into q, k, v. */
LG_TEST(rank_qkv_head_split_batch1) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "x", LG_DIMS(1, 4, 24));
    int r5 = ten(&b, "r5", LG_DIMS(1, 4, 3, 2, 4));
    int t5 = ten(&b, "t5", LG_DIMS(3, 1, 2, 4, 4));
    int outs[3];
    reshape_to(&b, x, r5);
    transpose(&b, r5, LG_DIMS(2, 0, 3, 1, 4), t5);
    lg_gather_options go;
    lg_opts_init(LG_OPTS_GATHER_OPTIONS, &go, sizeof go);
    for (int i = 0; i < 3; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "%c", "qkv"[i]);
        outs[i] = ten(&b, nm, LG_DIMS(1, 2, 4, 4));
        snprintf(nm, sizeof nm, "i%d", i);
        int idx = lg_b_const_i32(&b, nm, LG_SCALAR, (const int32_t[]){i});
        lg_b_op_opts(&b, LG_OP_GATHER, LG_IDS(t5, idx), LG_IDS(outs[i]), LG_OPTS_GATHER_OPTIONS, &go);
    }
    lg_b_io(&b, LG_IDS(x), LG_IDS(outs[0], outs[1], outs[2]));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    CHECK_EQ_INT(rep->passes[0].delta.applied, 1);
    CHECK_RULES(m, o);
    CHECK(max_rank(o) <= 4);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 5);
    CHECK_EQ_INT(n_code(o, LG_OP_RESHAPE), 1);
    CHECK_EQ_INT(n_code(o, LG_OP_TRANSPOSE), 1);
    CHECK_EQ_INT(n_code(o, LG_OP_SLICE), 3);
    CHECK_EQ_INT(n_code(o, LG_OP_GATHER), 0);
    int32_t ti = first_op(o, LG_OP_TRANSPOSE), ri = first_op(o, LG_OP_RESHAPE);
    CHECK(ti >= 0 && ints_eq(const_i32(o, o->subgraphs[0].ops[ti].inputs[1]), LG_DIMS(0, 2, 1, 3)));
    CHECK(ri >= 0 && ints_eq(const_i32(o, o->subgraphs[0].ops[ri].inputs[1]), LG_DIMS(1, 4, 6, 4)));
    /* q[h][n][d] = x[n][h*4 + d], k at +8, v at +16 (x = its index: n*24 + ...) */
    float in[96], got[32];
    iota(in, 96);
    for (uint32_t i = 0; i < 3; i++) {
        if (!run_f32(o, (const float *const[]){in}, 1, i, got, 32)) break;
        int bad = 0;
        for (int h = 0; h < 2; h++)
            for (int n = 0; n < 4; n++)
                for (int d = 0; d < 4; d++)
                    bad += got[(h * 4 + n) * 4 + d] != (float)(n * 24 + (int)i * 8 + h * 4 + d);
        CHECK_EQ_INT(bad, 0);
    }
    DONE(m, o, rep);
}

/* The same with B = 2 and torch's unbind (UNPACK): [2,4,3,2,4] -> (2,0,3,1,4) -> [3,2,2,4,4]
   keeps no two dims together, so the grouping stays at rank 5. Split along the qkv axis
   (3 pieces): x viewed as [8,3,8] (= [8,24]) gives 3 SLICEs of [8,8]; each is RESHAPEd to
   [B,N,H,D] = [2,4,2,4] and TRANSPOSEd (0,2,1,3) into q, k, v; the UNPACK is only the choice
   of piece. Splitting along B instead would also need CONCATENATIONs: more ops. */
LG_TEST(rank_qkv_head_split_batch2_unpack) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "x", LG_DIMS(2, 4, 24));
    int r5 = ten(&b, "r5", LG_DIMS(2, 4, 3, 2, 4));
    int t5 = ten(&b, "t5", LG_DIMS(3, 2, 2, 4, 4));
    int q = ten(&b, "q", LG_DIMS(2, 2, 4, 4)), k = ten(&b, "k", LG_DIMS(2, 2, 4, 4)), v = ten(&b, "v", LG_DIMS(2, 2, 4, 4));
    reshape_to(&b, x, r5);
    transpose(&b, r5, LG_DIMS(2, 0, 3, 1, 4), t5);
    lg_unpack_options uo = {3, 0};
    lg_b_op_opts(&b, LG_OP_UNPACK, LG_IDS(t5), LG_IDS(q, k, v), LG_OPTS_UNPACK_OPTIONS, &uo);
    lg_b_io(&b, LG_IDS(x), LG_IDS(q, k, v));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    CHECK_EQ_INT(rep->passes[0].delta.applied, 1);
    CHECK_RULES(m, o);
    CHECK(max_rank(o) <= 4);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 10);
    CHECK_EQ_INT(n_code(o, LG_OP_SLICE), 3);
    CHECK_EQ_INT(n_code(o, LG_OP_TRANSPOSE), 3);
    CHECK_EQ_INT(n_code(o, LG_OP_RESHAPE), 4);
    CHECK_EQ_INT(n_code(o, LG_OP_CONCATENATION), 0);
    CHECK_EQ_INT(n_code(o, LG_OP_UNPACK), 0);
    float in[192], got[64];
    iota(in, 192);
    for (uint32_t i = 0; i < 3; i++) {
        if (!run_f32(o, (const float *const[]){in}, 1, i, got, 64)) break;
        int bad = 0; /* out[b][h][n][d] = x[b][n][i*8 + h*4 + d] */
        for (int bb = 0; bb < 2; bb++)
            for (int h = 0; h < 2; h++)
                for (int n = 0; n < 4; n++)
                    for (int d = 0; d < 4; d++)
                        bad += got[((bb * 2 + h) * 4 + n) * 4 + d] != (float)((bb * 4 + n) * 24 + (int)i * 8 + h * 4 + d);
        CHECK_EQ_INT(bad, 0);
    }
    DONE(m, o, rep);
}

/* ------------------------------------------------------------------ Swin */

/* Window partition, w = 2: x[B,4,4,3] -> RESHAPE [B,2,2,2,2,3] (B, H/w, w, W/w, w, C) ->
   TRANSPOSE (0,1,3,2,4,5) -> RESHAPE [4B,4,3] (B*nW, w*w, C).
   out[(b*2 + hg)*2 + wg][i*2 + j][c] = x[b][hg*2 + i][wg*2 + j][c].
   B = 1: that element map is exactly TFLite's SPACE_TO_DEPTH (block 2) and a RESHAPE.
   B = 2: ML Drift's WebGPU SPACE_TO_DEPTH writes zeros for a batch > 1 (fix_rank_emit.c), so
   the grouping: B with H/w and the last w with C stay together, [4,2,2,6] -> TRANSPOSE
   (0,2,1,3). */
static void window_partition_case(int B) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "x", LG_DIMS(B, 4, 4, 3));
    int r6 = ten(&b, "r6", LG_DIMS(B, 2, 2, 2, 2, 3));
    int t6 = ten(&b, "t6", LG_DIMS(B, 2, 2, 2, 2, 3));
    int out = ten(&b, "windows", LG_DIMS(4 * B, 4, 3));
    reshape_to(&b, x, r6);
    transpose(&b, r6, LG_DIMS(0, 1, 3, 2, 4, 5), t6);
    reshape_to(&b, t6, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    CHECK_RULES(m, o);
    CHECK(max_rank(o) <= 4);
    if (B == 1) {
        CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
        CHECK_EQ_INT(code_at(o, 0), LG_OP_SPACE_TO_DEPTH);
        CHECK_EQ_INT(code_at(o, 1), LG_OP_RESHAPE);
        CHECK_EQ_INT(((const lg_space_to_depth_options *)o->subgraphs[0].ops[0].opts)->block_size, 2);
    } else {
        CHECK_EQ_INT(n_code(o, LG_OP_SPACE_TO_DEPTH), 0);
        CHECK_EQ_INT(o->subgraphs[0].n_ops, 3);
        CHECK_EQ_INT(code_at(o, 1), LG_OP_TRANSPOSE);
        CHECK(ints_eq(const_i32(o, o->subgraphs[0].ops[0].inputs[1]), LG_DIMS(4, 2, 2, 6)));
        CHECK(ints_eq(const_i32(o, o->subgraphs[0].ops[1].inputs[1]), LG_DIMS(0, 2, 1, 3)));
    }
    float in[96], got[96];
    iota(in, 96);
    if (run_f32(o, (const float *const[]){in}, 1, 0, got, (size_t)(48 * B))) {
        int bad = 0;
        for (int bb = 0; bb < B; bb++)
            for (int hg = 0; hg < 2; hg++)
                for (int wg = 0; wg < 2; wg++)
                    for (int i = 0; i < 2; i++)
                        for (int j = 0; j < 2; j++)
                            for (int c = 0; c < 3; c++)
                                bad += got[(((bb * 2 + hg) * 2 + wg) * 4 + i * 2 + j) * 3 + c] !=
                                       in[((bb * 4 + hg * 2 + i) * 4 + wg * 2 + j) * 3 + c];
        CHECK_EQ_INT(bad, 0);
    }
    DONE(m, o, rep);
}

LG_TEST(rank_swin_window_partition) {
    window_partition_case(1);
    window_partition_case(2);
}

/* Window reverse: windows[4B,2,2,3] -> RESHAPE [B,2,2,2,2,3] (B, H/w, W/w, w, w, C) ->
   TRANSPOSE (0,1,3,2,4,5) -> RESHAPE [B,4,4,3].
   y[b][hg*2 + i][wg*2 + j][c] = windows[(b*2 + hg)*2 + wg][i][j][c].
   B = 1: DEPTH_TO_SPACE (block 2) of the windows viewed as [1,2,2,12]; B = 2: the grouping's
   TRANSPOSE, as for the partition. */
static void window_reverse_case(int B) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "windows", LG_DIMS(4 * B, 2, 2, 3));
    int r6 = ten(&b, "r6", LG_DIMS(B, 2, 2, 2, 2, 3));
    int t6 = ten(&b, "t6", LG_DIMS(B, 2, 2, 2, 2, 3));
    int out = ten(&b, "y", LG_DIMS(B, 4, 4, 3));
    reshape_to(&b, x, r6);
    transpose(&b, r6, LG_DIMS(0, 1, 3, 2, 4, 5), t6);
    reshape_to(&b, t6, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    CHECK_RULES(m, o);
    CHECK(max_rank(o) <= 4);
    if (B == 1) {
        CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
        CHECK_EQ_INT(code_at(o, 0), LG_OP_RESHAPE);
        CHECK_EQ_INT(code_at(o, 1), LG_OP_DEPTH_TO_SPACE);
    } else {
        CHECK_EQ_INT(n_code(o, LG_OP_DEPTH_TO_SPACE), 0);
        CHECK_EQ_INT(n_code(o, LG_OP_TRANSPOSE), 1);
    }
    float in[96], got[96];
    iota(in, 96);
    if (run_f32(o, (const float *const[]){in}, 1, 0, got, (size_t)(48 * B))) {
        int bad = 0;
        for (int bb = 0; bb < B; bb++)
            for (int hg = 0; hg < 2; hg++)
                for (int wg = 0; wg < 2; wg++)
                    for (int i = 0; i < 2; i++)
                        for (int j = 0; j < 2; j++)
                            for (int c = 0; c < 3; c++)
                                bad += got[((bb * 4 + hg * 2 + i) * 4 + wg * 2 + j) * 3 + c] !=
                                       in[((((bb * 2 + hg) * 2 + wg) * 2 + i) * 2 + j) * 3 + c];
        CHECK_EQ_INT(bad, 0);
    }
    DONE(m, o, rep);
}

LG_TEST(rank_swin_window_reverse) {
    window_reverse_case(1);
    window_reverse_case(2);
}

/* Window partition with an op inside (a per-position scale K[w][C] on the 6-D windows), so
   not a pure permutation: the grouping. x[2,4,4,3] -> [2,2,2,2,2,3] -> (0,1,3,2,4,5) -> MUL
   K[2,3] -> [8,4,3]. B and H/w stay together, the last w and C too (K is full over both):
   [4,2,2,6] -> TRANSPOSE (0,2,1,3) -> [4,2,2,6], MUL by K viewed as [1,1,1,6].
   out[win][i*2 + j][c] = x[b][hg*2 + i][wg*2 + j][c] * K[j][c]. */
LG_TEST(rank_swin_window_partition_scaled) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "x", LG_DIMS(2, 4, 4, 3));
    int r6 = ten(&b, "r6", LG_DIMS(2, 2, 2, 2, 2, 3));
    int t6 = ten(&b, "t6", LG_DIMS(2, 2, 2, 2, 2, 3));
    int s6 = ten(&b, "s6", LG_DIMS(2, 2, 2, 2, 2, 3));
    int out = ten(&b, "windows", LG_DIMS(8, 4, 3));
    const float kv[6] = {1, 2, 3, -1, -2, 0.5f};
    int kk = lg_b_const_f32(&b, "K", LG_DIMS(2, 3), kv);
    reshape_to(&b, x, r6);
    transpose(&b, r6, LG_DIMS(0, 1, 3, 2, 4, 5), t6);
    binary(&b, LG_OP_MUL, t6, kk, s6);
    reshape_to(&b, s6, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    CHECK_RULES(m, o);
    CHECK(max_rank(o) <= 4);
    CHECK_EQ_INT(n_code(o, LG_OP_TRANSPOSE), 1);
    CHECK_EQ_INT(n_code(o, LG_OP_MUL), 1);
    CHECK_EQ_INT(n_code(o, LG_OP_SPACE_TO_DEPTH), 0);
    int32_t ti = first_op(o, LG_OP_TRANSPOSE);
    CHECK(ti >= 0 && ints_eq(const_i32(o, o->subgraphs[0].ops[ti].inputs[1]), LG_DIMS(0, 2, 1, 3)));
    CHECK(ti >= 0 && o->subgraphs[0].tensors[o->subgraphs[0].ops[ti].inputs[0]].rank == 4);
    float in[96], got[96];
    iota(in, 96);
    if (run_f32(o, (const float *const[]){in}, 1, 0, got, 96)) {
        int bad = 0;
        for (int bb = 0; bb < 2; bb++)
            for (int hg = 0; hg < 2; hg++)
                for (int wg = 0; wg < 2; wg++)
                    for (int i = 0; i < 2; i++)
                        for (int j = 0; j < 2; j++)
                            for (int c = 0; c < 3; c++)
                                bad += got[(((bb * 2 + hg) * 2 + wg) * 4 + i * 2 + j) * 3 + c] !=
                                       in[((bb * 4 + hg * 2 + i) * 4 + wg * 2 + j) * 3 + c] * kv[j * 3 + c];
        CHECK_EQ_INT(bad, 0);
    }
    DONE(m, o, rep);
}

/* Swin's shifted-window attention mask, a rank-5 elementwise chain with broadcast constants:
   attn[8,2,3,3] (B*nW, heads, N, N) -> RESHAPE [2,4,2,3,3] -> ADD mask[1,4,1,3,3] -> MUL by a
   scalar -> RESHAPE [8,2,3,3]. Over the output's dims the mask is (1, full, 1, full, full):
   only N,N merge: [2,4,2,9], the mask as [1,4,1,9], the scalar stays a scalar.
   out[b*4 + w][h][i][j] = (attn[...] + mask[w][i][j]) * 0.5. */
LG_TEST(rank_swin_attention_mask_broadcast) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "attn", LG_DIMS(8, 2, 3, 3));
    int r5 = ten(&b, "r5", LG_DIMS(2, 4, 2, 3, 3));
    int a5 = ten(&b, "a5", LG_DIMS(2, 4, 2, 3, 3));
    int m5 = ten(&b, "m5", LG_DIMS(2, 4, 2, 3, 3));
    int out = ten(&b, "out", LG_DIMS(8, 2, 3, 3));
    float mask[36];
    for (int i = 0; i < 36; i++) mask[i] = (float)(i % 5) - 100.0f * (float)(i % 2);
    int mk = lg_b_const_f32(&b, "mask", LG_DIMS(1, 4, 1, 3, 3), mask);
    int half = lg_b_const_f32(&b, "half", LG_SCALAR, (const float[]){0.5f});
    reshape_to(&b, x, r5);
    binary(&b, LG_OP_ADD, r5, mk, a5);
    binary(&b, LG_OP_MUL, a5, half, m5);
    reshape_to(&b, m5, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    CHECK_RULES(m, o);
    CHECK(max_rank(o) <= 4);
    CHECK_EQ_INT(n_code(o, LG_OP_ADD), 1);
    CHECK_EQ_INT(n_code(o, LG_OP_MUL), 1);
    int32_t ai = first_op(o, LG_OP_ADD);
    const lg_tensor *mt = ai >= 0 ? &o->subgraphs[0].tensors[o->subgraphs[0].ops[ai].inputs[1]] : NULL;
    CHECK(mt && mt->rank == 4 && mt->shape[0] == 1 && mt->shape[1] == 4 && mt->shape[2] == 1 && mt->shape[3] == 9);
    float in[144], got[144];
    iota(in, 144);
    if (run_f32(o, (const float *const[]){in}, 1, 0, got, 144)) {
        int bad = 0;
        for (int bw = 0; bw < 8; bw++)
            for (int h = 0; h < 2; h++)
                for (int ij = 0; ij < 9; ij++) {
                    int f = (bw * 2 + h) * 9 + ij;
                    bad += got[f] != (in[f] + mask[(bw % 4) * 9 + ij]) * 0.5f;
                }
        CHECK_EQ_INT(bad, 0);
    }
    DONE(m, o, rep);
}

/* A whole (shifted-)window attention as torchvision's shifted_window_attention writes it, on
   x[1,8,8,4] with 4x4 windows and 2 heads of 2: window partition (6-D), the fused QKV Linear,
   the head split [4,16,3,2,2] -> (2,0,3,1,4) (5-D, batch = 4 windows), q @ k^T, the window
   mask added at [1,4,2,16,16] (5-D), softmax, @ v, heads merged, window reverse (6-D). Four
   regions: SPACE_TO_DEPTH, a split of the qkv axis, a grouping, DEPTH_TO_SPACE. The result
   has no tensor of rank 5 and is ready for both delegates; the runner proves parity. */
LG_TEST(rank_swin_window_attention_block) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "x", LG_DIMS(1, 8, 8, 4));
    int p6 = ten(&b, "p6", LG_DIMS(1, 2, 4, 2, 4, 4)), pt6 = ten(&b, "pt6", LG_DIMS(1, 2, 2, 4, 4, 4));
    int win = ten(&b, "win", LG_DIMS(4, 16, 4)), qkv = ten(&b, "qkv", LG_DIMS(4, 16, 12));
    int q5 = ten(&b, "q5", LG_DIMS(4, 16, 3, 2, 2)), qt5 = ten(&b, "qt5", LG_DIMS(3, 4, 2, 16, 2));
    int q = ten(&b, "q", LG_DIMS(4, 2, 16, 2)), k = ten(&b, "k", LG_DIMS(4, 2, 16, 2)), v = ten(&b, "v", LG_DIMS(4, 2, 16, 2));
    int s = ten(&b, "s", LG_DIMS(4, 2, 16, 16)), s5 = ten(&b, "s5", LG_DIMS(1, 4, 2, 16, 16));
    int sm5 = ten(&b, "sm5", LG_DIMS(1, 4, 2, 16, 16)), sm = ten(&b, "sm", LG_DIMS(4, 2, 16, 16));
    int pr = ten(&b, "pr", LG_DIMS(4, 2, 16, 16)), o4 = ten(&b, "o4", LG_DIMS(4, 2, 16, 2));
    int ot = ten(&b, "ot", LG_DIMS(4, 16, 2, 2)), o3 = ten(&b, "o3", LG_DIMS(4, 16, 4));
    int r6 = ten(&b, "r6", LG_DIMS(1, 2, 2, 4, 4, 4)), rt6 = ten(&b, "rt6", LG_DIMS(1, 2, 4, 2, 4, 4));
    int y = ten(&b, "y", LG_DIMS(1, 8, 8, 4));
    float w[48], mask[1024];
    for (int i = 0; i < 48; i++) w[i] = (float)((i * 5) % 7 - 3) * 0.25f;
    for (int i = 0; i < 1024; i++) mask[i] = (i / 16 + i % 16) % 3 == 0 ? -100.0f : 0.0f;
    int wq = lg_b_const_f32(&b, "w_qkv", LG_DIMS(12, 4), w);
    int mk = lg_b_const_f32(&b, "mask", LG_DIMS(1, 4, 1, 16, 16), mask);
    reshape_to(&b, x, p6);
    transpose(&b, p6, LG_DIMS(0, 1, 3, 2, 4, 5), pt6);
    reshape_to(&b, pt6, win);
    lg_fully_connected_options fo;
    lg_opts_init(LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo, sizeof fo);
    fo.keep_num_dims = true;
    lg_b_op_opts(&b, LG_OP_FULLY_CONNECTED, LG_IDS(win, wq, -1), LG_IDS(qkv), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    reshape_to(&b, qkv, q5);
    transpose(&b, q5, LG_DIMS(2, 0, 3, 1, 4), qt5);
    lg_gather_options go;
    lg_opts_init(LG_OPTS_GATHER_OPTIONS, &go, sizeof go);
    int qs[3] = {q, k, v};
    for (int i = 0; i < 3; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "i%d", i);
        int idx = lg_b_const_i32(&b, nm, LG_SCALAR, (const int32_t[]){i});
        lg_b_op_opts(&b, LG_OP_GATHER, LG_IDS(qt5, idx), LG_IDS(qs[i]), LG_OPTS_GATHER_OPTIONS, &go);
    }
    lg_batch_mat_mul_options bo;
    lg_opts_init(LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo, sizeof bo);
    bo.adj_y = true;
    lg_b_op_opts(&b, LG_OP_BATCH_MATMUL, LG_IDS(q, k), LG_IDS(s), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo);
    reshape_to(&b, s, s5);
    binary(&b, LG_OP_ADD, s5, mk, sm5);
    reshape_to(&b, sm5, sm);
    lg_softmax_options so = {1.0f};
    lg_b_op_opts(&b, LG_OP_SOFTMAX, LG_IDS(sm), LG_IDS(pr), LG_OPTS_SOFTMAX_OPTIONS, &so);
    bo.adj_y = false;
    lg_b_op_opts(&b, LG_OP_BATCH_MATMUL, LG_IDS(pr, v), LG_IDS(o4), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo);
    transpose(&b, o4, LG_DIMS(0, 2, 1, 3), ot);
    reshape_to(&b, ot, o3);
    reshape_to(&b, o3, r6);
    transpose(&b, r6, LG_DIMS(0, 1, 3, 2, 4, 5), rt6);
    reshape_to(&b, rt6, y);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    CHECK_EQ_INT(rep->passes[0].delta.applied, 4);
    CHECK_EQ_INT(rep->passes[0].delta.skipped, 0);
    CHECK_RULES(m, o);
    CHECK(max_rank(o) <= 4);
    CHECK_EQ_INT(n_code(o, LG_OP_SPACE_TO_DEPTH), 1);
    CHECK_EQ_INT(n_code(o, LG_OP_DEPTH_TO_SPACE), 1);
    CHECK_EQ_INT(n_code(o, LG_OP_GATHER), 0);
    CHECK_EQ_INT(blockers(o, LG_TARGET_MLDRIFT), 0);
    CHECK_EQ_INT(blockers(o, LG_TARGET_CLASSIC), 0);
    DONE(m, o, rep);
}

/* ------------------------------------------------------------------ shuffles */

/* Channel shuffle on NHWC: x[1,2,3,6] -> RESHAPE [1,2,3,2,3] (g=2, c=3) -> TRANSPOSE
   (0,1,2,4,3) -> RESHAPE [1,2,3,6]. H and W merge: [6,2,3] -> (0,2,1): RESHAPE, TRANSPOSE
   (0,1,3,2) on [1,6,2,3], RESHAPE. out[p][ci*2 + gi] = x[p][gi*3 + ci]. */
LG_TEST(rank_channel_shuffle_nhwc) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "x", LG_DIMS(1, 2, 3, 6));
    int r5 = ten(&b, "r5", LG_DIMS(1, 2, 3, 2, 3));
    int t5 = ten(&b, "t5", LG_DIMS(1, 2, 3, 3, 2));
    int out = ten(&b, "out", LG_DIMS(1, 2, 3, 6));
    reshape_to(&b, x, r5);
    transpose(&b, r5, LG_DIMS(0, 1, 2, 4, 3), t5);
    reshape_to(&b, t5, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    CHECK_RULES(m, o);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 3);
    CHECK_EQ_INT(code_at(o, 0), LG_OP_RESHAPE);
    CHECK_EQ_INT(code_at(o, 1), LG_OP_TRANSPOSE);
    CHECK_EQ_INT(code_at(o, 2), LG_OP_RESHAPE);
    CHECK(ints_eq(const_i32(o, o->subgraphs[0].ops[0].inputs[1]), LG_DIMS(1, 6, 2, 3)));
    CHECK(ints_eq(const_i32(o, o->subgraphs[0].ops[1].inputs[1]), LG_DIMS(0, 1, 3, 2)));
    float in[36], got[36];
    iota(in, 36);
    if (run_f32(o, (const float *const[]){in}, 1, 0, got, 36)) {
        int bad = 0;
        for (int p = 0; p < 6; p++)
            for (int g = 0; g < 2; g++)
                for (int c = 0; c < 3; c++) bad += got[p * 6 + c * 2 + g] != in[p * 6 + g * 3 + c];
        CHECK_EQ_INT(bad, 0);
    }
    DONE(m, o, rep);
}

/* PixelShuffle on NHWC data in TFLite's order: x[1,2,3,12] -> RESHAPE [1,2,3,2,2,3]
   (B,H,W,r,r,C) -> TRANSPOSE (0,1,3,2,4,5) -> RESHAPE [1,4,6,3]: exactly DEPTH_TO_SPACE
   (block 2), one op. y[h*2 + i][w*2 + j][c] = x[h][w][(i*2 + j)*3 + c]. */
LG_TEST(rank_pixel_shuffle_nhwc_is_depth_to_space) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "x", LG_DIMS(1, 2, 3, 12));
    int r6 = ten(&b, "r6", LG_DIMS(1, 2, 3, 2, 2, 3));
    int t6 = ten(&b, "t6", LG_DIMS(1, 2, 2, 3, 2, 3));
    int out = ten(&b, "y", LG_DIMS(1, 4, 6, 3));
    reshape_to(&b, x, r6);
    transpose(&b, r6, LG_DIMS(0, 1, 3, 2, 4, 5), t6);
    reshape_to(&b, t6, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    CHECK_RULES(m, o);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 1);
    CHECK_EQ_INT(code_at(o, 0), LG_OP_DEPTH_TO_SPACE);
    CHECK_EQ_INT(((const lg_depth_to_space_options *)o->subgraphs[0].ops[0].opts)->block_size, 2);
    float in[72], got[72];
    iota(in, 72);
    if (run_f32(o, (const float *const[]){in}, 1, 0, got, 72)) {
        int bad = 0;
        for (int h = 0; h < 2; h++)
            for (int w = 0; w < 3; w++)
                for (int i = 0; i < 2; i++)
                    for (int j = 0; j < 2; j++)
                        for (int c = 0; c < 3; c++)
                            bad += got[((h * 2 + i) * 6 + w * 2 + j) * 3 + c] != in[(h * 3 + w) * 12 + (i * 2 + j) * 3 + c];
        CHECK_EQ_INT(bad, 0);
    }
    DONE(m, o, rep);
}

/* PixelShuffle as torch/ONNX write it (CRD, NCHW): x[1,12,2,3] -> RESHAPE [1,3,2,2,2,3]
   (B,C,r,r,H,W) -> TRANSPOSE (0,1,4,2,5,3) -> [1,3,2,2,3,2] (B,C,H,r,W,r) -> RESHAPE
   [1,3,4,6]. Not DEPTH_TO_SPACE's order, and no two of C, r, r, H, W stay together: a split
   (into 2 or 3 pieces), no DEPTH_TO_SPACE. y[c][h*2 + i][w*2 + j] = x[c*4 + i*2 + j][h][w]. */
LG_TEST(rank_pixel_shuffle_nchw_crd_is_split) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "x", LG_DIMS(1, 12, 2, 3));
    int r6 = ten(&b, "r6", LG_DIMS(1, 3, 2, 2, 2, 3));
    int t6 = ten(&b, "t6", LG_DIMS(1, 3, 2, 2, 3, 2));
    int out = ten(&b, "y", LG_DIMS(1, 3, 4, 6));
    reshape_to(&b, x, r6);
    transpose(&b, r6, LG_DIMS(0, 1, 4, 2, 5, 3), t6);
    reshape_to(&b, t6, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    CHECK_EQ_INT(rep->passes[0].delta.applied, 1);
    CHECK_RULES(m, o);
    CHECK(max_rank(o) <= 4);
    CHECK_EQ_INT(n_code(o, LG_OP_DEPTH_TO_SPACE), 0);
    CHECK(n_code(o, LG_OP_SLICE) >= 2);
    CHECK_EQ_INT(n_code(o, LG_OP_CONCATENATION), 1);
    float in[72], got[72];
    iota(in, 72);
    if (run_f32(o, (const float *const[]){in}, 1, 0, got, 72)) {
        int bad = 0;
        for (int c = 0; c < 3; c++)
            for (int h = 0; h < 2; h++)
                for (int w = 0; w < 3; w++)
                    for (int i = 0; i < 2; i++)
                        for (int j = 0; j < 2; j++)
                            bad += got[(c * 4 + h * 2 + i) * 6 + w * 2 + j] != in[((c * 4 + i * 2 + j) * 2 + h) * 3 + w];
        CHECK_EQ_INT(bad, 0);
    }
    DONE(m, o, rep);
}

/* ------------------------------------------------------------------ elementwise, softmax, reductions */

/* A rank-5 elementwise chain: x[6,4,30] -> RESHAPE [2,3,4,5,6] -> ADD k[4,5,1] -> RELU ->
   MUL k2[1,1,1,1,6] -> RESHAPE [6,4,30]. k is full over (4,5) and 1 over the rest, k2 full
   over the last dim only: groups [6 | 20 | 6], so every op is rank 3 padded to 4.
   out = relu(x + k[c][d]) * k2[e]. */
LG_TEST(rank_elementwise_chain_broadcast_constants) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "x", LG_DIMS(6, 4, 30));
    int r5 = ten(&b, "r5", LG_DIMS(2, 3, 4, 5, 6));
    int a5 = ten(&b, "a5", LG_DIMS(2, 3, 4, 5, 6));
    int u5 = ten(&b, "u5", LG_DIMS(2, 3, 4, 5, 6));
    int m5 = ten(&b, "m5", LG_DIMS(2, 3, 4, 5, 6));
    int out = ten(&b, "out", LG_DIMS(6, 4, 30));
    float k[20], k2[6] = {1, -1, 2, -2, 0.5f, 3};
    for (int i = 0; i < 20; i++) k[i] = (float)(i * 7 % 11) - 5.0f;
    int kk = lg_b_const_f32(&b, "k", LG_DIMS(4, 5, 1), k);
    int kk2 = lg_b_const_f32(&b, "k2", LG_DIMS(1, 1, 1, 1, 6), k2);
    reshape_to(&b, x, r5);
    binary(&b, LG_OP_ADD, r5, kk, a5);
    lg_b_op(&b, LG_OP_RELU, LG_IDS(a5), LG_IDS(u5));
    binary(&b, LG_OP_MUL, u5, kk2, m5);
    reshape_to(&b, m5, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(max_rank(m), 5);
    FIXED(m, o, rep);
    CHECK_RULES(m, o);
    CHECK(max_rank(o) <= 4);
    CHECK_EQ_INT(n_code(o, LG_OP_ADD), 1);
    CHECK_EQ_INT(n_code(o, LG_OP_RELU), 1);
    CHECK_EQ_INT(n_code(o, LG_OP_MUL), 1);
    int32_t ai = first_op(o, LG_OP_ADD);
    const lg_tensor *at = ai >= 0 ? &o->subgraphs[0].tensors[o->subgraphs[0].ops[ai].inputs[0]] : NULL;
    CHECK(at && at->rank == 4 && at->shape[0] == 1 && at->shape[1] == 6 && at->shape[2] == 20 && at->shape[3] == 6);
    float in[720], got[720];
    for (int i = 0; i < 720; i++) in[i] = (float)(i % 13) - 6.0f;
    if (run_f32(o, (const float *const[]){in}, 1, 0, got, 720)) {
        int bad = 0;
        for (int i = 0; i < 720; i++) {
            float s = in[i] + k[(i / 6) % 20];
            bad += got[i] != (s > 0 ? s : 0) * k2[i % 6];
        }
        CHECK_EQ_INT(bad, 0);
    }
    DONE(m, o, rep);
}

/* SOFTMAX on the last axis of a rank-5 tensor: x[6,5,4] -> RESHAPE [2,3,5,1,4] -> SOFTMAX ->
   RESHAPE [6,5,4]: rank 4 [1,1,30,4]. Every row of x is 0,1,2,3: softmax = e^k / (1 + e + e^2
   + e^3) = 0.0320586, 0.0871443, 0.2368828, 0.6439142. */
LG_TEST(rank_softmax_last_axis) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "x", LG_DIMS(6, 5, 4));
    int r5 = ten(&b, "r5", LG_DIMS(2, 3, 5, 1, 4));
    int s5 = ten(&b, "s5", LG_DIMS(2, 3, 5, 1, 4));
    int out = ten(&b, "out", LG_DIMS(6, 5, 4));
    reshape_to(&b, x, r5);
    lg_softmax_options so = {1.0f};
    lg_b_op_opts(&b, LG_OP_SOFTMAX, LG_IDS(r5), LG_IDS(s5), LG_OPTS_SOFTMAX_OPTIONS, &so);
    reshape_to(&b, s5, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    CHECK_RULES(m, o);
    CHECK(max_rank(o) <= 4);
    int32_t si = first_op(o, LG_OP_SOFTMAX);
    const lg_tensor *st = si >= 0 ? &o->subgraphs[0].tensors[o->subgraphs[0].ops[si].inputs[0]] : NULL;
    CHECK(st && st->rank == 4 && st->shape[2] == 30 && st->shape[3] == 4);
    float in[120], got[120];
    for (int i = 0; i < 120; i++) in[i] = (float)(i % 4);
    const double want[4] = {0.0320586, 0.0871443, 0.2368828, 0.6439142};
    if (run_f32(o, (const float *const[]){in}, 1, 0, got, 120))
        for (int i = 0; i < 120; i++) CHECK_NEAR(got[i], want[i % 4], 1e-6);
    DONE(m, o, rep);
}

/* SUM over two adjacent axes of a rank-5 tensor (keep_dims false): x[6,20,6] -> RESHAPE
   [2,3,4,5,6] -> SUM (2,3) -> [2,3,6]. Kept (2,3) and reduced (4,5) merge: SUM over axis 2 of
   [1,6,20,6], keep_dims, then a RESHAPE into the output. With x = its index f, out[a][m] =
   sum_{k<20} (a*120 + k*6 + m) = 20*(a*120 + m) + 6*190: out[0][0] = 1140, out[5][5] = 13240. */
LG_TEST(rank_reduce_sum_adjacent_axes) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "x", LG_DIMS(6, 20, 6));
    int r5 = ten(&b, "r5", LG_DIMS(2, 3, 4, 5, 6));
    int out = ten(&b, "out", LG_DIMS(2, 3, 6));
    reshape_to(&b, x, r5);
    int ax = lg_b_const_i32(&b, "axes", LG_DIMS(2), (const int32_t[]){2, -2});
    lg_reducer_options ro = {false};
    lg_b_op_opts(&b, LG_OP_SUM, LG_IDS(r5, ax), LG_IDS(out), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    CHECK_RULES(m, o);
    CHECK(max_rank(o) <= 4);
    CHECK_EQ_INT(n_code(o, LG_OP_SUM), 1);
    int32_t si = first_op(o, LG_OP_SUM);
    CHECK(si >= 0 && ints_eq(const_i32(o, o->subgraphs[0].ops[si].inputs[1]), LG_DIMS(2)));
    float in[720], got[36];
    iota(in, 720);
    if (run_f32(o, (const float *const[]){in}, 1, 0, got, 36)) {
        for (int a = 0; a < 6; a++)
            for (int mm = 0; mm < 6; mm++) CHECK_EQ_INT(got[a * 6 + mm], 20 * (a * 120 + mm) + 1140);
        CHECK_EQ_INT(got[0], 1140);
        CHECK_EQ_INT(got[35], 13240);
    }
    DONE(m, o, rep);
}

/* Window attention as a 5-D batched matmul: q, k [2,3,2,4,5] / [2,3,2,5,4] (from rank-4
   [6,2,4,5] / [6,2,5,4]) -> BATCH_MATMUL -> [2,3,2,4,4] -> RESHAPE [6,2,4,4]. The batch dims
   merge to 12 and the matrix dims stay: BATCH_MATMUL [1,12,4,5] x [1,12,5,4]. With q all ones
   and k = its index, out[bt][i][j] = sum_{c<5} k[bt][c][j] = sum_c (bt*20 + c*4 + j)
   = 100*bt + 40 + 5*j. */
LG_TEST(rank_batch_matmul_5d) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int q = ten(&b, "q", LG_DIMS(6, 2, 4, 5)), k = ten(&b, "k", LG_DIMS(6, 2, 5, 4));
    int q5 = ten(&b, "q5", LG_DIMS(2, 3, 2, 4, 5)), k5 = ten(&b, "k5", LG_DIMS(2, 3, 2, 5, 4));
    int s5 = ten(&b, "s5", LG_DIMS(2, 3, 2, 4, 4)), out = ten(&b, "out", LG_DIMS(6, 2, 4, 4));
    reshape_to(&b, q, q5);
    reshape_to(&b, k, k5);
    lg_batch_mat_mul_options bo;
    lg_opts_init(LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo, sizeof bo);
    lg_b_op_opts(&b, LG_OP_BATCH_MATMUL, LG_IDS(q5, k5), LG_IDS(s5), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo);
    reshape_to(&b, s5, out);
    lg_b_io(&b, LG_IDS(q, k), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    CHECK_RULES(m, o);
    CHECK(max_rank(o) <= 4);
    int32_t bi = first_op(o, LG_OP_BATCH_MATMUL);
    const lg_tensor *ta = bi >= 0 ? &o->subgraphs[0].tensors[o->subgraphs[0].ops[bi].inputs[0]] : NULL;
    CHECK(ta && ta->rank == 4 && ta->shape[1] == 12 && ta->shape[2] == 4 && ta->shape[3] == 5);
    float qa[240], ka[240], got[192];
    for (int i = 0; i < 240; i++) qa[i] = 1.0f;
    iota(ka, 240);
    if (run_f32(o, (const float *const[]){qa, ka}, 2, 0, got, 192)) {
        int bad = 0;
        for (int bt = 0; bt < 12; bt++)
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) bad += got[(bt * 4 + i) * 4 + j] != (float)(100 * bt + 40 + 5 * j);
        CHECK_EQ_INT(bad, 0);
    }
    DONE(m, o, rep);
}

/* torch.stack then chunk: a, b [2,3,4,5] -> PACK axis 1 -> [2,2,3,4,5] -> SPLIT axis 3 in 2
   -> [2,2,3,2,5] x 2 -> RESHAPE [4,3,10]. The PACK is a CONCATENATION of [2,1,3,4,5] views
   (grouped [2,3,20] -> [2,6,20]), each SPLIT output a SLICE of 10 of the 20. out_p[n*2 + s][c]
   [hh*5 + w] = (s ? b : a)[n][c][2p + hh][w]. */
LG_TEST(rank_pack_and_split) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int a = ten(&b, "a", LG_DIMS(2, 3, 4, 5)), bb = ten(&b, "b", LG_DIMS(2, 3, 4, 5));
    int p5 = ten(&b, "p5", LG_DIMS(2, 2, 3, 4, 5));
    int s0 = ten(&b, "s0", LG_DIMS(2, 2, 3, 2, 5)), s1 = ten(&b, "s1", LG_DIMS(2, 2, 3, 2, 5));
    int o0 = ten(&b, "o0", LG_DIMS(4, 3, 10)), o1 = ten(&b, "o1", LG_DIMS(4, 3, 10));
    lg_pack_options po = {2, 1};
    lg_b_op_opts(&b, LG_OP_PACK, LG_IDS(a, bb), LG_IDS(p5), LG_OPTS_PACK_OPTIONS, &po);
    int ax = lg_b_const_i32(&b, "axis", LG_SCALAR, (const int32_t[]){3});
    lg_split_options so = {2};
    lg_b_op_opts(&b, LG_OP_SPLIT, LG_IDS(ax, p5), LG_IDS(s0, s1), LG_OPTS_SPLIT_OPTIONS, &so);
    reshape_to(&b, s0, o0);
    reshape_to(&b, s1, o1);
    lg_b_io(&b, LG_IDS(a, bb), LG_IDS(o0, o1));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    CHECK_RULES(m, o);
    CHECK(max_rank(o) <= 4);
    CHECK_EQ_INT(n_code(o, LG_OP_PACK), 0);
    CHECK_EQ_INT(n_code(o, LG_OP_SPLIT), 0);
    CHECK_EQ_INT(n_code(o, LG_OP_CONCATENATION), 1);
    CHECK_EQ_INT(n_code(o, LG_OP_SLICE), 2);
    float xa[120], xb[120], got[120];
    for (int i = 0; i < 120; i++) {
        xa[i] = (float)i;
        xb[i] = 1000.0f + (float)i;
    }
    for (uint32_t p = 0; p < 2; p++) {
        if (!run_f32(o, (const float *const[]){xa, xb}, 2, p, got, 120)) break;
        int bad = 0;
        for (int n = 0; n < 2; n++)
            for (int s = 0; s < 2; s++)
                for (int c = 0; c < 3; c++)
                    for (int hh = 0; hh < 2; hh++)
                        for (int w = 0; w < 5; w++)
                            bad += got[((n * 2 + s) * 3 + c) * 10 + hh * 5 + w] !=
                                   (s ? xb : xa)[((n * 3 + c) * 4 + 2 * (int)p + hh) * 5 + w];
        CHECK_EQ_INT(bad, 0);
    }
    DONE(m, o, rep);
}

/* A CONCATENATION with a fused RELU at rank 5: a, b [2,3,4] -> RESHAPE [1,2,3,2,2] -> CONCAT
   axis 2, RELU -> [1,2,6,2,2] -> RESHAPE [2,6,4]. The activation becomes its own RELU after the
   join. out[i][j][k] = max(0, (j < 3 ? a[i][j][k] : b[i][j-3][k])), a = f - 10, b = 5 - f. */
LG_TEST(rank_concat_fused_relu) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int a = ten(&b, "a", LG_DIMS(2, 3, 4)), bb = ten(&b, "b", LG_DIMS(2, 3, 4));
    int a5 = ten(&b, "a5", LG_DIMS(1, 2, 3, 2, 2)), b5 = ten(&b, "b5", LG_DIMS(1, 2, 3, 2, 2));
    int c5 = ten(&b, "c5", LG_DIMS(1, 2, 6, 2, 2)), out = ten(&b, "out", LG_DIMS(2, 6, 4));
    reshape_to(&b, a, a5);
    reshape_to(&b, bb, b5);
    lg_concatenation_options co;
    lg_opts_init(LG_OPTS_CONCATENATION_OPTIONS, &co, sizeof co);
    co.axis = 2;
    co.fused_activation_function = 1; /* RELU */
    lg_b_op_opts(&b, LG_OP_CONCATENATION, LG_IDS(a5, b5), LG_IDS(c5), LG_OPTS_CONCATENATION_OPTIONS, &co);
    reshape_to(&b, c5, out);
    lg_b_io(&b, LG_IDS(a, bb), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    CHECK_RULES(m, o);
    CHECK(max_rank(o) <= 4);
    CHECK_EQ_INT(n_code(o, LG_OP_RELU), 1);
    int32_t ci = first_op(o, LG_OP_CONCATENATION);
    CHECK(ci >= 0 && ((const lg_concatenation_options *)o->subgraphs[0].ops[ci].opts)->fused_activation_function == 0);
    float xa[24], xb[24], got[48];
    for (int i = 0; i < 24; i++) {
        xa[i] = (float)i - 10.0f;
        xb[i] = 5.0f - (float)i;
    }
    if (run_f32(o, (const float *const[]){xa, xb}, 2, 0, got, 48)) {
        int bad = 0;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 6; j++)
                for (int k = 0; k < 4; k++) {
                    float v = j < 3 ? xa[(i * 3 + j) * 4 + k] : xb[(i * 3 + j - 3) * 4 + k];
                    bad += got[(i * 6 + j) * 4 + k] != (v > 0 ? v : 0);
                }
        CHECK_EQ_INT(bad, 0);
    }
    DONE(m, o, rep);
}

/* ------------------------------------------------------------------ near-miss and refusals */

/* An op the pass does not rewrite on a rank-5 tensor (ARG_MAX): the region is left alone and
   the note names the op. */
LG_TEST(rank_unsupported_op_skipped) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "x", LG_DIMS(2, 3, 20));
    int r5 = ten(&b, "r5", LG_DIMS(2, 3, 4, 5, 1));
    int am = lg_b_tensor(&b, "am", LG_INT32, LG_DIMS(2, 3, 4, 1));
    reshape_to(&b, x, r5);
    int ax = lg_b_const_i32(&b, "axis", LG_DIMS(1), (const int32_t[]){3});
    lg_arg_max_options ao;
    lg_opts_init(LG_OPTS_ARG_MAX_OPTIONS, &ao, sizeof ao);
    ao.output_type = LG_INT32;
    lg_b_op_opts(&b, LG_OP_ARG_MAX, LG_IDS(r5, ax), LG_IDS(am), LG_OPTS_ARG_MAX_OPTIONS, &ao);
    lg_b_io(&b, LG_IDS(x), LG_IDS(am));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    CHECK_EQ_INT(rep->passes[0].delta.applied, 0);
    CHECK(strstr(rep->passes[0].delta.note, "ARG_MAX") != NULL);
    CHECK(same_ops(m, o));
    DONE(m, o, rep);
}

/* The channel shuffle at rank 4 ([1,4,6] -> [1,4,2,3] -> (0,1,3,2) -> [1,4,6]): nothing has
   rank 5, the pass must not touch it. */
LG_TEST(rank_near_miss_rank4_unchanged) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "x", LG_DIMS(1, 4, 6));
    int r4 = ten(&b, "r4", LG_DIMS(1, 4, 2, 3));
    int t4 = ten(&b, "t4", LG_DIMS(1, 4, 3, 2));
    int out = ten(&b, "out", LG_DIMS(1, 4, 6));
    reshape_to(&b, x, r4);
    transpose(&b, r4, LG_DIMS(0, 1, 3, 2), t4);
    reshape_to(&b, t4, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK(!(blockers(m, LG_TARGET_MLDRIFT) & rule_bit("tensor-rank")));
    FIXED(m, o, rep);
    CHECK_EQ_INT(rep->passes[0].delta.applied, 0);
    CHECK_EQ_INT(rep->passes[0].delta.skipped, 0);
    CHECK(same_ops(m, o));
    DONE(m, o, rep);
}

/* A 6-D transpose that keeps no two dims together even after any one is split off:
   [1,4,4,4] -> [2,2,2,2,2,2] -> (0,3,2,1,5,4) -> [1,4,4,4]. Left alone, with a note. */
LG_TEST(rank_irreducible_skipped_with_note) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "x", LG_DIMS(1, 4, 4, 4));
    int r6 = ten(&b, "r6", LG_DIMS(2, 2, 2, 2, 2, 2));
    int t6 = ten(&b, "t6", LG_DIMS(2, 2, 2, 2, 2, 2));
    int out = ten(&b, "out", LG_DIMS(1, 4, 4, 4));
    reshape_to(&b, x, r6);
    transpose(&b, r6, LG_DIMS(0, 3, 2, 1, 5, 4), t6);
    reshape_to(&b, t6, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    const lg_pass_delta *d = &rep->passes[0].delta;
    CHECK_EQ_INT(d->applied, 0);
    CHECK(d->skipped >= 1);
    CHECK(strstr(d->note, "tensor-rank") != NULL);
    CHECK(strstr(d->note, "split") != NULL);
    CHECK(same_ops(m, o));
    CHECK(blockers(o, LG_TARGET_MLDRIFT) & rule_bit("tensor-rank"));
    DONE(m, o, rep);
}

/* A 5-D transpose interleaving five axes of 17: a split needs 17 pieces, more than the cap
   (16). Left alone; the note says why. */
LG_TEST(rank_split_cap_skipped) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "x", LG_DIMS(289, 289, 17));
    int r5 = ten(&b, "r5", LG_DIMS(17, 17, 17, 17, 17));
    int t5 = ten(&b, "t5", LG_DIMS(17, 17, 17, 17, 17));
    int out = ten(&b, "out", LG_DIMS(289, 289, 17));
    reshape_to(&b, x, r5);
    transpose(&b, r5, LG_DIMS(4, 2, 0, 3, 1), t5);
    reshape_to(&b, t5, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    const lg_pass_delta *d = &rep->passes[0].delta;
    CHECK_EQ_INT(d->applied, 0);
    CHECK(d->skipped >= 1);
    CHECK(strstr(d->note, "17 pieces") != NULL);
    CHECK(same_ops(m, o));
    DONE(m, o, rep);
}

/* A rank-5 tensor that is a graph output cannot be rewritten (the interface stays). */
LG_TEST(rank_graph_output_skipped) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = ten(&b, "x", LG_DIMS(2, 3, 4));
    int r5 = ten(&b, "r5", LG_DIMS(1, 2, 3, 2, 2));
    reshape_to(&b, x, r5);
    lg_b_io(&b, LG_IDS(x), LG_IDS(r5));
    CHECK_EQ_INT(b.status, LG_OK);
    FIXED(m, o, rep);
    CHECK_EQ_INT(rep->passes[0].delta.applied, 0);
    CHECK(strstr(rep->passes[0].delta.note, "graph input or output") != NULL);
    CHECK(same_ops(m, o));
    DONE(m, o, rep);
}

/* A STRIDED_SLICE that shrinks every axis of a rank-5 tensor to a scalar: the rewrite would
   end in a RESHAPE to rank 0 (a 0-element shape, a dynamic shape for the GPU), a new blocker,
   so the region is left alone. The near-miss with a reduction to a scalar (which writes the
   scalar itself, keep_dims false) is rewritten. */
LG_TEST(rank_scalar_output) {
    for (int reduce = 0; reduce < 2; reduce++) {
        lg_builder b;
        lg_model *m = new_model(&b);
        int x = ten(&b, "x", LG_DIMS(2, 12));
        int r5 = ten(&b, "r5", LG_DIMS(2, 3, 1, 2, 2));
        int y = ten(&b, "y", LG_SCALAR);
        reshape_to(&b, x, r5);
        if (reduce) {
            int ax = lg_b_const_i32(&b, "axes", LG_DIMS(5), (const int32_t[]){0, 1, 2, 3, 4});
            lg_reducer_options ro = {false};
            lg_b_op_opts(&b, LG_OP_SUM, LG_IDS(r5, ax), LG_IDS(y), LG_OPTS_REDUCER_OPTIONS, &ro);
        } else {
            int bg = lg_b_const_i32(&b, "b", LG_DIMS(5), (const int32_t[]){1, 2, 0, 1, 0});
            int en = lg_b_const_i32(&b, "e", LG_DIMS(5), (const int32_t[]){2, 3, 1, 2, 1});
            int st = lg_b_const_i32(&b, "s", LG_DIMS(5), (const int32_t[]){1, 1, 1, 1, 1});
            lg_strided_slice_options so;
            lg_opts_init(LG_OPTS_STRIDED_SLICE_OPTIONS, &so, sizeof so);
            so.shrink_axis_mask = 31;
            lg_b_op_opts(&b, LG_OP_STRIDED_SLICE, LG_IDS(r5, bg, en, st), LG_IDS(y), LG_OPTS_STRIDED_SLICE_OPTIONS, &so);
        }
        lg_b_io(&b, LG_IDS(x), LG_IDS(y));
        CHECK_EQ_INT(b.status, LG_OK);
        FIXED(m, o, rep);
        if (reduce) {
            CHECK_EQ_INT(rep->passes[0].delta.applied, 1);
            CHECK_RULES(m, o);
            float in[24], got[1];
            iota(in, 24);
            if (run_f32(o, (const float *const[]){in}, 1, 0, got, 1)) CHECK_EQ_INT(got[0], 276); /* 0+...+23 */
        } else {
            CHECK_EQ_INT(rep->passes[0].delta.applied, 0);
            CHECK(strstr(rep->passes[0].delta.note, "rank 0") != NULL);
            CHECK(same_ops(m, o));
        }
        DONE(m, o, rep);
    }
}

/* ------------------------------------------------------------------ PyTorch-made fixtures */

/* Import tests/fixtures/onnx/NAME.op17.onnx (as `litegpu convert` does). */
static lg_model *import_fixture(const char *name) {
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/onnx/%s.op17.onnx", name);
    lg_onnx_model *om = NULL;
    lg_error err;
    if (lg_onnx_read_file(path, NULL, &om, &err) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "%s: %s", path, err.msg);
        return NULL;
    }
    lg_import_options io;
    memset(&io, 0, sizeof io);
    lg_model *m = NULL;
    lg_import_report *rep = NULL;
    lg_status st = lg_onnx_import(om, &io, &m, &rep, &err);
    lg_import_report_free(rep);
    lg_onnx_model_free(om);
    if (st != LG_OK) tf_fail(__FILE__, __LINE__, "import %s: %s", path, err.msg);
    return st == LG_OK ? m : NULL;
}

/* Run the fixed model on the fixture's input_0.npy; every output within 1e-4 of PyTorch's
   output_k.npy (of its magnitude). */
static void check_torch(const char *name, const lg_model *o) {
    char path[256];
    lg_npy in, want;
    lg_error err;
    snprintf(path, sizeof path, "tests/fixtures/onnx/%s.input_0.npy", name);
    if (lg_npy_read_file(path, &in, &err) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "%s", err.msg);
        return;
    }
    float *x = NULL;
    lg_npy_to_f32(&in, &x, &err);
    for (uint32_t k = 0; x && k < o->subgraphs[0].n_outputs; k++) {
        snprintf(path, sizeof path, "tests/fixtures/onnx/%s.output_%u.npy", name, k);
        if (lg_npy_read_file(path, &want, &err) != LG_OK) {
            tf_fail(__FILE__, __LINE__, "%s", err.msg);
            break;
        }
        float *w = NULL, *got = malloc((size_t)want.numel * sizeof *got);
        lg_npy_to_f32(&want, &w, &err);
        if (w && got && run_f32(o, (const float *const[]){x}, 1, k, got, (size_t)want.numel)) {
            double mag = 0, worst = 0;
            for (int64_t i = 0; i < want.numel; i++) {
                if (fabs(w[i]) > mag) mag = fabs(w[i]);
                if (fabs(got[i] - w[i]) > worst) worst = fabs(got[i] - w[i]);
            }
            if (!(worst <= 1e-4 * (mag > 0 ? mag : 1)))
                tf_fail(__FILE__, __LINE__, "%s output %u: max error %g of magnitude %g", name, k, worst, mag);
        }
        free(w);
        free(got);
        lg_npy_free(&want);
    }
    free(x);
    lg_npy_free(&in);
}

static void fixture_case(const char *name, uint32_t regions) {
    lg_model *m = import_fixture(name);
    if (!m) return;
    FIXED(m, o, rep);
    CHECK_EQ_INT(rep->passes[0].delta.applied, regions);
    CHECK_EQ_INT(rep->passes[0].delta.skipped, 0);
    CHECK_RULES(m, o);
    CHECK(max_rank(o) <= 4);
    CHECK(!(blockers(o, LG_TARGET_MLDRIFT) & rule_bit("transpose-perm")));
    check_torch(name, o);
    DONE(m, o, rep);
}

/* torch's fused-QKV attention (Linear 3d, reshape [B,N,3,h,d], permute (2,0,3,1,4), unbind as
   a Split): one region; after it the model is ready on both targets. */
LG_TEST(rank_fixture_fused_qkv_attention) {
    fixture_case("fused_qkv_attention", 1);
    lg_model *m = import_fixture("fused_qkv_attention");
    if (!m) return;
    FIXED(m, o, rep);
    CHECK_EQ_INT(blockers(o, LG_TARGET_MLDRIFT), 0);
    CHECK_EQ_INT(blockers(o, LG_TARGET_CLASSIC), 0);
    DONE(m, o, rep);
}

/* torchvision ShuffleNetV2: five channel shuffles (NCHW [1,2,c,H,W] transposes). */
LG_TEST(rank_fixture_shufflenet_v2) { fixture_case("shufflenet_v2", 5); }

/* conv + F.pixel_shuffle(2) (CRD) and F.pixel_unshuffle(2) on NCHW: two splits. */
LG_TEST(rank_fixture_pixel_shuffle) { fixture_case("pixel_shuffle", 2); }
