/* fold-constants: an op whose inputs are all constant is computed once, here, and its outputs
 * become constants. This is the cure for the device rule "an op whose inputs are all constant
 * is rejected" (rules.def const-only-inputs; the seed's field notes), where the seed's
 * workaround was to taint the op with `+ 1e-9 * x.mean()` to keep it alive.
 *
 * The op is evaluated by litegpu's own fp32 kernels (bit-identical to LiteRT.js on the
 * corpus): a one-op model holding copies of its constant inputs is built and run through the
 * interpreter. SHAPE and RANK of a tensor whose shape is static fold without running.
 *
 * Never folded: DEQUANTIZE and DENSIFY (fp16, int8 and sparse weights stay in their storage
 * form: folding would widen the file), ops with side effects or random numbers, ops whose outputs are variables
 * or graph outputs, and folds whose result would be larger than fold_max_bytes and more than
 * fold_max_growth times its inputs (a BROADCAST_TO of a scalar to a large tensor). */
#include <stdlib.h>

#include "lg/run.h"
#include "passes/passes_impl.h"
#include "util/half.h"

static bool static_shape(const lg_tensor *t) {
    lg_shape s = lg_shape_of_tensor(t, true);
    return lg_shape_is_static(&s);
}

static bool foldable_op(const lg_pass_ctx *c, const lg_graph *g, uint32_t i, bool *shape_only) {
    const lg_op *op = lgp_op(c, i);
    const lg_op_info *e = lg_op_info_of(c->m, op);
    int32_t code = lgp_code(c, i);
    *shape_only = false;
    /* DEQUANTIZE and DENSIFY are storage forms (fp16/int8 weights, sparse weights): folding
       them widens the file; the delegates fold DEQUANTIZE themselves. `fix` densifies for
       ML Drift, which has no DENSIFY. */
    if (!e || code == LG_OP_DEQUANTIZE || code == LG_OP_DENSIFY || op->n_outputs == 0 ||
        op->n_inputs == 0)
        return false;
    if (e->flags & (LG_OPF_STATEFUL | LG_OPF_RANDOM | LG_OPF_SUBGRAPHS)) return false;
    for (uint32_t k = 0; k < op->n_outputs; k++) {
        int32_t t = op->outputs[k];
        if (t < 0 || lgp_tensor(c, t)->is_variable || lg_graph_is_output(g, t)) return false;
        if (!static_shape(lgp_tensor(c, t))) return false;
    }
    if ((code == LG_OP_SHAPE || code == LG_OP_RANK) && op->inputs[0] >= 0 &&
        static_shape(lgp_tensor(c, op->inputs[0]))) {
        *shape_only = true;
        return true;
    }
    bool any = false;
    for (uint32_t k = 0; k < op->n_inputs; k++) {
        int32_t t = op->inputs[k];
        if (t < 0) continue;
        if (!lg_tensor_is_const(c->m, c->sg, t)) return false;
        any = true;
    }
    return any;
}

static bool fold_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    bool shape_only;
    return foldable_op(c, g, i, &shape_only);
}

/* SHAPE / RANK of a static tensor: the values are its dimensions. */
static lg_status fold_shape(lg_pass_ctx *c, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    const lg_tensor *x = lgp_tensor(c, op->inputs[0]);
    int32_t out = op->outputs[0];
    int type = lgp_tensor(c, out)->type;
    int64_t vals[LG_MAX_RANK + 1];
    uint32_t n = 0;
    if (lgp_code(c, i) == LG_OP_RANK) vals[n++] = x->rank;
    else for (uint32_t d = 0; d < x->rank && d < LG_MAX_RANK; d++) vals[n++] = x->shape[d];
    if (lg_tensor_numel(lgp_tensor(c, out)) != (lgp_code(c, i) == LG_OP_RANK ? 1 : (int64_t)n)) {
        lgp_skip(c, "op %u: stored output shape does not hold the values", i);
        return LG_OK;
    }
    uint8_t buf[8 * (LG_MAX_RANK + 1)];
    uint64_t nbytes;
    if (type == LG_INT64) {
        for (uint32_t k = 0; k < n; k++) lgi_wr_u64(buf + 8 * k, (uint64_t)vals[k]);
        nbytes = 8ull * n;
    } else if (type == LG_INT32) {
        for (uint32_t k = 0; k < n; k++) lgi_wr_u32(buf + 4 * k, (uint32_t)vals[k]);
        nbytes = 4ull * n;
    } else {
        lgp_skip(c, "op %u: %s output", i, lg_dtype_name(type));
        return LG_OK;
    }
    LG_TRY(lg_tensor_set_const(c->m, c->sg, out, (lg_dtype)type, buf, nbytes, c->err));
    LG_TRY(lg_op_remove(c->m, c->sg, i, c->err));
    c->delta->applied++;
    c->delta->ops_removed++;
    c->delta->tensors_folded++;
    return LG_OK;
}

/* A model with op i alone: its constant inputs copied, its outputs as graph outputs. The
   quantization and sparsity of the inputs are shared (shallow) with c->m, which outlives it. */
static lg_status one_op_model(lg_pass_ctx *c, uint32_t i, lg_model **out, lg_error *err) {
    const lg_op *op = lgp_op(c, i);
    const lg_model *m = c->m;
    const lg_opcode *oc = &m->opcodes[op->opcode_index];
    lg_model *mm = NULL;
    LG_TRY(lg_model_new(NULL, NULL, &mm, err));
    lg_builder b;
    lg_builder_init(&b, mm, 0);
    int32_t ins[64], outs[64];
    if (op->n_inputs > 64 || op->n_outputs > 64) {
        lg_model_free(mm);
        return lgi_fail(err, LG_ERR_LIMIT, "too many inputs to fold");
    }
    for (uint32_t k = 0; k < op->n_inputs; k++) {
        int32_t t = op->inputs[k];
        if (t < 0) { ins[k] = -1; continue; }
        const lg_tensor *x = lgp_tensor(c, t);
        const lg_buffer *buf = &m->buffers[x->buffer];
        if (x->sparsity) {
            /* a sparse constant stores fewer bytes than its dense shape: its own buffer */
            uint32_t bi = 0;
            ins[k] = lg_b_tensor(&b, x->name, (lg_dtype)x->type, (lg_dims){x->shape, x->rank});
            if (ins[k] >= 0 && lg_model_add_buffer(mm, buf->data, buf->size, &bi, &b.err) != LG_OK)
                b.status = b.err.status ? b.err.status : LG_ERR_NOMEM;
            if (b.status == LG_OK) mm->subgraphs[0].tensors[ins[k]].buffer = bi;
        } else {
            ins[k] = lg_b_const(&b, x->name, (lg_dtype)x->type, (lg_dims){x->shape, x->rank},
                                buf->data, buf->size);
        }
        if (ins[k] >= 0 && b.status == LG_OK) {
            lg_tensor *y = &mm->subgraphs[0].tensors[ins[k]];
            y->quant = x->quant;
            y->sparsity = x->sparsity;
        }
    }
    for (uint32_t k = 0; k < op->n_outputs; k++) {
        const lg_tensor *x = lgp_tensor(c, op->outputs[k]);
        outs[k] = lg_b_tensor(&b, x->name, (lg_dtype)x->type, (lg_dims){x->shape, x->rank});
        if (outs[k] >= 0) mm->subgraphs[0].tensors[outs[k]].quant = x->quant;
    }
    int32_t idx = -1;
    if (b.status == LG_OK &&
        lg_subgraph_add_op(mm, 0, oc->builtin, oc->custom_code, oc->version, ins, op->n_inputs,
                           outs, op->n_outputs, op->opts_kind, op->opts, &idx, &b.err) != LG_OK)
        b.status = b.err.status ? b.err.status : LG_ERR_INVALID_ARG;
    if (b.status == LG_OK && op->n_custom_options &&
        lg_op_set_custom_options(mm, 0, (uint32_t)idx, op->custom_options, op->n_custom_options,
                                 &b.err) != LG_OK)
        b.status = b.err.status ? b.err.status : LG_ERR_INVALID_ARG;
    lg_b_io(&b, LG_NO_IDS, (lg_dims){outs, op->n_outputs});
    if (b.status != LG_OK) {
        lg_status st = b.status;
        if (err) *err = b.err;
        lg_model_free(mm);
        return st;
    }
    *out = mm;
    return LG_OK;
}

/* The folded value of output k in the tensor's file type, into a malloc'ed buffer. */
static lg_status file_bytes(const lg_tensor_view *v, int type, void **data, uint64_t *nbytes,
                            lg_error *err) {
    *data = NULL;
    if (type == LG_FLOAT16 && v->type == LG_FLOAT32) {
        uint16_t *h = malloc((size_t)(v->numel ? v->numel : 1) * 2);
        if (!h) return lgi_fail(err, LG_ERR_NOMEM, "out of memory folding");
        const float *f = v->data;
        for (int64_t q = 0; q < v->numel; q++) h[q] = lg_float_to_half(f[q]);
        *data = h;
        *nbytes = (uint64_t)v->numel * 2;
        return LG_OK;
    }
    if ((int)v->type != type) return lgi_fail(err, LG_ERR_UNSUPPORTED, "a %s result", lg_dtype_name(type));
    *data = malloc((size_t)(v->nbytes ? v->nbytes : 1));
    if (!*data) return lgi_fail(err, LG_ERR_NOMEM, "out of memory folding");
    if (v->nbytes) memcpy(*data, v->data, (size_t)v->nbytes);
    *nbytes = v->nbytes;
    return LG_OK;
}

static bool too_big(const lg_pass_ctx *c, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    uint64_t in = 0, out = 0;
    for (uint32_t k = 0; k < op->n_inputs; k++)
        if (op->inputs[k] >= 0) in += c->m->buffers[lgp_tensor(c, op->inputs[k])->buffer].size;
    for (uint32_t k = 0; k < op->n_outputs; k++) {
        const lg_tensor *t = lgp_tensor(c, op->outputs[k]);
        int64_t n = lg_tensor_numel(t);
        out += (uint64_t)(n > 0 ? n : 0) * (uint64_t)(lg_dtype_bits(t->type) / 8);
    }
    return out > c->opt->fold_max_bytes && (double)out > c->opt->fold_max_growth * (double)in;
}

static lg_status fold_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    bool shape_only = false;
    if (!foldable_op(c, g, i, &shape_only)) return LG_OK;
    if (shape_only) return fold_shape(c, i);
    if (too_big(c, i)) {
        lgp_skip(c, "op %u (%s): the folded constant would be larger than its inputs allow", i,
                 lg_op_name(c->m, lgp_op(c, i)));
        return LG_OK;
    }
    return lgp_fold_op(c, i);
}

lg_status lgp_fold_op(lg_pass_ctx *c, uint32_t i) {
    lg_model *mm = NULL;
    lg_error e2;
    lg_interp *it = NULL;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.precision = LG_PREC_F32;
    if (one_op_model(c, i, &mm, &e2) != LG_OK || lg_interp_create(mm, &ro, &it, &e2) != LG_OK) {
        lgp_skip(c, "op %u (%s): not folded: %.100s", i, lg_op_name(c->m, lgp_op(c, i)), e2.msg);
        lg_model_free(mm);
        return LG_OK;
    }
    const lg_op *op = lgp_op(c, i);
    uint32_t n_out = op->n_outputs;
    int32_t outs[64];
    memcpy(outs, op->outputs, n_out * sizeof(int32_t));
    void *vals[64] = {0};
    uint64_t sizes[64] = {0};
    lg_status st = LG_OK;
    for (uint32_t k = 0; k < n_out && st == LG_OK; k++) {
        lg_tensor_view v;
        if (lg_interp_output(it, k, &v) != LG_OK || !v.data) {
            st = LG_ERR_UNSUPPORTED;
            snprintf(e2.msg, sizeof e2.msg, "output %u was not computed at load", k);
            break;
        }
        st = file_bytes(&v, lgp_tensor(c, outs[k])->type, &vals[k], &sizes[k], &e2);
    }
    lg_interp_free(it);
    lg_model_free(mm);
    if (st == LG_OK)
        for (uint32_t k = 0; k < n_out && st == LG_OK; k++)
            st = lg_tensor_set_const(c->m, c->sg, outs[k], (lg_dtype)lgp_tensor(c, outs[k])->type,
                                     vals[k], sizes[k], c->err);
    for (uint32_t k = 0; k < n_out; k++) free(vals[k]);
    if (st == LG_ERR_UNSUPPORTED) {
        lgp_skip(c, "op %u: not folded: %.100s", i, e2.msg);
        return LG_OK;
    }
    LG_TRY(st);
    LG_TRY(lg_op_remove(c->m, c->sg, i, c->err));
    c->delta->applied++;
    c->delta->ops_removed++;
    c->delta->tensors_folded += n_out;
    return LG_OK;
}

const lg_pass lgp_fold_constants = {
    "fold-constants", "compute ops whose inputs are all constant (never widening fp16 weights)",
    {"const-only-inputs", "input-count", NULL}, true, 0, fold_match, fold_apply, false};
