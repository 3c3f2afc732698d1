/* The helpers of the `fix` passes (fix_util.h). */
#include <stdlib.h>

#include "check/op_version.h"
#include "lg/run.h"
#include "passes/fix_util.h"
#include "util/half.h"

static void name_after(const lg_pass_ctx *c, int32_t like, const char *suffix, char *buf,
                       size_t n) {
    const char *base = like >= 0 ? lgp_tensor(c, like)->name : NULL;
    snprintf(buf, n, "%.150s/%.40s", base ? base : "fix", suffix);
}

static lg_status copy_quant(lg_pass_ctx *c, int32_t from, int32_t to) {
    if (from < 0) return LG_OK;
    const lg_quant *q = lgp_tensor(c, from)->quant;
    if (!q || q->n_scale != 1) return LG_OK;
    float scale = q->scale[0];
    int64_t zp = q->n_zero_point ? q->zero_point[0] : 0;
    return lg_tensor_set_quant(c->m, c->sg, (uint32_t)to, &scale, &zp, 1, 0, c->err);
}

lg_status lgf_tensor(lg_pass_ctx *c, int32_t like, const char *suffix, lg_dtype type,
                     const int32_t *shape, uint32_t rank, int32_t *out) {
    char name[200];
    name_after(c, like, suffix, name, sizeof name);
    LG_TRY(lg_subgraph_add_tensor(c->m, c->sg, name, type, shape, rank, out, c->err));
    return copy_quant(c, like, *out);
}

lg_status lgf_tensor_like(lg_pass_ctx *c, int32_t like, const char *suffix, const int32_t *shape,
                          uint32_t rank, int32_t *out) {
    return lgf_tensor(c, like, suffix, (lg_dtype)lgp_tensor(c, like)->type, shape, rank, out);
}

lg_status lgf_const(lg_pass_ctx *c, int32_t like, const char *suffix, lg_dtype type,
                    const int32_t *shape, uint32_t rank, const void *data, uint64_t nbytes,
                    int32_t *out) {
    char name[200];
    name_after(c, like, suffix, name, sizeof name);
    return lg_subgraph_add_const(c->m, c->sg, name, type, shape, rank, data, nbytes, out, c->err);
}

lg_status lgf_const_i32(lg_pass_ctx *c, int32_t like, const char *suffix, const int32_t *v,
                        uint32_t n, int32_t *out) {
    int32_t shape[1] = {(int32_t)n};
    return lgf_const(c, like, suffix, LG_INT32, shape, 1, v, 4ull * n, out);
}

lg_status lgf_const_scalar(lg_pass_ctx *c, int32_t like, const char *suffix, float v,
                           int32_t *out) {
    int32_t shape[1] = {1};
    return lgf_const(c, like, suffix, LG_FLOAT32, shape, 1, &v, 4, out);
}

lg_status lgf_set_version(lg_pass_ctx *c, uint32_t op) {
    const lg_subgraph *sg = &c->m->subgraphs[c->sg];
    int32_t code = lgp_code(c, op);
    int v = lgi_op_version(c->m, sg, &sg->ops[op]);
    if (c->m->opcodes[sg->ops[op].opcode_index].version == v) return LG_OK;
    return lg_op_set_opcode(c->m, c->sg, op, code, NULL, v, c->err);
}

lg_status lgf_op(lg_pass_ctx *c, int32_t code, const int32_t *in, uint32_t n_in,
                 const int32_t *out, uint32_t n_out, const void *opts) {
    const lg_op_info *e = lg_op_info_builtin(code);
    lg_opts_kind kind = opts && e ? e->opts_kind : LG_OPTS_NONE;
    int32_t idx = -1;
    LG_TRY(lg_subgraph_add_op(c->m, c->sg, code, NULL, 1, in, n_in, out, n_out, kind, opts, &idx,
                              c->err));
    c->delta->ops_added++;
    return lgf_set_version(c, (uint32_t)idx);
}

lg_status lgf_done(lg_pass_ctx *c, uint32_t op) {
    LG_TRY(lg_op_remove(c->m, c->sg, op, c->err));
    LG_TRY(lg_subgraph_toposort(c->m, c->sg, NULL, c->err));
    c->delta->applied++;
    c->delta->ops_removed++;
    return LG_OK;
}

int32_t lgf_act_op(int act) {
    switch (act) {
    case LG_ACTIVATION_FUNCTION_TYPE_RELU: return LG_OP_RELU;
    case LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1: return LG_OP_RELU_N1_TO_1;
    case LG_ACTIVATION_FUNCTION_TYPE_RELU6: return LG_OP_RELU6;
    case LG_ACTIVATION_FUNCTION_TYPE_TANH: return LG_OP_TANH;
    default: return -1;
    }
}

int lgf_fused_act(const lg_pass_ctx *c, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    if (!op->opts) return 0;
    switch (op->opts_kind) {
    case LG_OPTS_CONV2D_OPTIONS: return ((const lg_conv2d_options *)op->opts)->fused_activation_function;
    case LG_OPTS_DEPTHWISE_CONV2D_OPTIONS:
        return ((const lg_depthwise_conv2d_options *)op->opts)->fused_activation_function;
    case LG_OPTS_POOL2D_OPTIONS: return ((const lg_pool2d_options *)op->opts)->fused_activation_function;
    case LG_OPTS_FULLY_CONNECTED_OPTIONS:
        return ((const lg_fully_connected_options *)op->opts)->fused_activation_function;
    case LG_OPTS_CONCATENATION_OPTIONS:
        return ((const lg_concatenation_options *)op->opts)->fused_activation_function;
    case LG_OPTS_ADD_OPTIONS: return ((const lg_add_options *)op->opts)->fused_activation_function;
    case LG_OPTS_SUB_OPTIONS: return ((const lg_sub_options *)op->opts)->fused_activation_function;
    case LG_OPTS_MUL_OPTIONS: return ((const lg_mul_options *)op->opts)->fused_activation_function;
    case LG_OPTS_DIV_OPTIONS: return ((const lg_div_options *)op->opts)->fused_activation_function;
    case LG_OPTS_TRANSPOSE_CONV_OPTIONS:
        return ((const lg_transpose_conv_options *)op->opts)->fused_activation_function;
    case LG_OPTS_L2_NORM_OPTIONS: return ((const lg_l2_norm_options *)op->opts)->fused_activation_function;
    default: return 0;
    }
}

bool lgf_is_float(const lg_pass_ctx *c, int32_t t) {
    if (t < 0 || (uint32_t)t >= c->m->subgraphs[c->sg].n_tensors) return false;
    const lg_tensor *x = lgp_tensor(c, t);
    if (x->type != LG_FLOAT32 && x->type != LG_FLOAT16) return false;
    return !x->quant || (!x->quant->n_scale && !x->quant->n_zero_point);
}

bool lgf_static(const lg_pass_ctx *c, int32_t t) {
    if (t < 0) return false;
    lg_shape s = lg_shape_of_tensor(lgp_tensor(c, t), true);
    return lg_shape_is_static(&s);
}

/* The dense constant data of t, with its type, or NULL. */
static const lg_buffer *dense_const(const lg_pass_ctx *c, int32_t t) {
    if (t < 0 || (uint32_t)t >= c->m->subgraphs[c->sg].n_tensors) return NULL;
    const lg_tensor *x = lgp_tensor(c, t);
    if (x->sparsity || (x->quant && (x->quant->n_scale || x->quant->n_zero_point))) return NULL;
    return lg_tensor_buffer(c->m, x);
}

bool lgf_const_floats(const lg_pass_ctx *c, const lg_graph *g, int32_t t, float **data,
                      bool *fp16) {
    *data = NULL;
    *fp16 = false;
    int32_t src = t;
    if (!lg_tensor_is_const(c->m, c->sg, t)) {
        int32_t p = lg_graph_producer(g, t);
        if (p < 0 || lgp_code(c, (uint32_t)p) != LG_OP_DEQUANTIZE) return false;
        const lg_op *dq = lgp_op(c, (uint32_t)p);
        if (dq->n_inputs != 1 || dq->inputs[0] < 0) return false;
        src = dq->inputs[0];
        if (lgp_tensor(c, src)->type != LG_FLOAT16 || lgp_tensor(c, t)->type != LG_FLOAT32) return false;
    }
    const lg_buffer *b = dense_const(c, src);
    const lg_tensor *x = lgp_tensor(c, src);
    int64_t n = lg_tensor_numel(x);
    if (!b || n <= 0 || n > ((int64_t)1 << 28)) return false;
    uint32_t es = x->type == LG_FLOAT32 ? 4 : x->type == LG_FLOAT16 ? 2 : 0;
    if (!es || b->size != (uint64_t)n * es) return false;
    float *d = malloc((size_t)n * sizeof(float));
    if (!d) return false;
    for (int64_t k = 0; k < n; k++) {
        if (es == 4) {
            uint32_t u = lgi_rd_u32(b->data + 4 * k);
            memcpy(&d[k], &u, 4);
        } else {
            d[k] = lg_half_to_float(lgi_rd_u16(b->data + 2 * k));
        }
    }
    *data = d;
    *fp16 = es == 2;
    return true;
}

lg_status lgf_weights(lg_pass_ctx *c, int32_t like, const char *suffix, const int32_t *shape,
                      uint32_t rank, const float *data, bool fp16, int32_t *out) {
    int64_t n = 1;
    for (uint32_t d = 0; d < rank; d++) n *= shape[d];
    if (!fp16) return lgf_const(c, like, suffix, LG_FLOAT32, shape, rank, data, (uint64_t)n * 4, out);
    uint16_t *h = malloc((size_t)(n ? n : 1) * 2);
    if (!h) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory for fp16 weights");
    for (int64_t k = 0; k < n; k++) h[k] = lg_float_to_half(data[k]); /* exact: data were halves */
    char sfx[64];
    snprintf(sfx, sizeof sfx, "%.50s_f16", suffix);
    int32_t hw = -1;
    lg_status st = lgf_const(c, like, sfx, LG_FLOAT16, shape, rank, h, (uint64_t)n * 2, &hw);
    free(h);
    LG_TRY(st);
    char name[200];
    name_after(c, like, suffix, name, sizeof name);
    LG_TRY(lg_subgraph_add_tensor(c->m, c->sg, name, LG_FLOAT32, shape, rank, out, c->err));
    return lgf_op(c, LG_OP_DEQUANTIZE, &hw, 1, out, 1, NULL);
}

/* ------------------------------------------------------------------ one-op evaluation */

bool lgf_eval_op(const lg_pass_ctx *c, uint32_t i, uint32_t slot, const float *x, float **y,
                 int64_t *n) {
    *y = NULL;
    *n = 0;
    const lg_op *op = lgp_op(c, i);
    const lg_model *m = c->m;
    if (op->n_inputs > 16 || op->n_outputs < 1 || op->n_outputs > 16 || slot >= op->n_inputs)
        return false;
    lg_model *mm = NULL;
    lg_error e2;
    if (lg_model_new(NULL, NULL, &mm, &e2) != LG_OK) return false;
    lg_builder b;
    lg_builder_init(&b, mm, 0);
    int32_t ins[16], outs[16];
    for (uint32_t k = 0; k < op->n_inputs; k++) {
        int32_t t = op->inputs[k];
        ins[k] = -1;
        if (t < 0) continue;
        const lg_tensor *tt = lgp_tensor(c, t);
        lg_dims dims = {tt->shape, tt->rank};
        if (k == slot) {
            int64_t ne = lg_tensor_numel(tt);
            ins[k] = lg_b_const(&b, "x", LG_FLOAT32, dims, x, (uint64_t)(ne > 0 ? ne : 0) * 4);
            continue;
        }
        const lg_buffer *buf = dense_const(c, t);
        if (!buf) {
            lg_model_free(mm);
            return false;
        }
        ins[k] = lg_b_const(&b, tt->name, (lg_dtype)tt->type, dims, buf->data, buf->size);
    }
    for (uint32_t k = 0; k < op->n_outputs; k++) {
        const lg_tensor *tt = lgp_tensor(c, op->outputs[k]);
        lg_dtype type = k == 0 && tt->type == LG_FLOAT16 ? LG_FLOAT32 : (lg_dtype)tt->type;
        outs[k] = lg_b_tensor(&b, tt->name, type, (lg_dims){tt->shape, tt->rank});
    }
    const lg_opcode *oc = &m->opcodes[op->opcode_index];
    int32_t idx = -1;
    if (b.status == LG_OK &&
        lg_subgraph_add_op(mm, 0, oc->builtin, oc->custom_code, oc->version, ins, op->n_inputs,
                           outs, op->n_outputs, op->opts_kind, op->opts, &idx, &b.err) != LG_OK)
        b.status = LG_ERR_INVALID_ARG;
    lg_b_io(&b, LG_NO_IDS, (lg_dims){outs, op->n_outputs});
    lg_interp *it = NULL;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.precision = LG_PREC_F32;
    bool ok = b.status == LG_OK && lg_interp_create(mm, &ro, &it, &e2) == LG_OK;
    lg_tensor_view v;
    if (ok) ok = lg_interp_output(it, 0, &v) == LG_OK && v.data && v.type == LG_FLOAT32;
    if (ok) {
        *y = malloc((size_t)(v.numel > 0 ? v.numel : 1) * sizeof(float));
        ok = *y != NULL;
        if (ok) {
            memcpy(*y, v.data, (size_t)v.numel * sizeof(float));
            *n = v.numel;
        }
    }
    lg_interp_free(it);
    lg_model_free(mm);
    return ok;
}
