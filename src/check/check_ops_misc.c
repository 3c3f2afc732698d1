/* Per-op rules of the ops of no other family: SOFTMAX, ONE_HOT, LSTM and the quantization
   ops (QUANTIZE, DEQUANTIZE, DENSIFY). See rules.def for each rule's source. */
#include "check/check_impl.h"

void lgc_rule_softmax(ck *c, const opx *x) {
    const lg_op *op = x->op;
    lgc_need_io(c, x, 1, 0, 1);
    lg_softmax_options d;
    const lg_softmax_options *o = lgc_opts(op, LG_OPTS_SOFTMAX_OPTIONS, &d, sizeof d);
    char note[128];
    if (o->beta != 1.0f)
        lgc_add(c, R_SOFTMAX_BETA, x, NULL, "SOFTMAX beta %g%s", (double)o->beta,
            lgc_opts_note(op, LG_OPTS_SOFTMAX_OPTIONS, note, sizeof note));
}

/* The classic delegate's ONE_HOT checks (shared with gpu_compatibility.cc): constant
   scalar on/off values, INT32 indices, only batch and channels > 1. */
static void check_one_hot_classic(ck *c, const opx *x, const lg_tensor *ids, const lg_tensor *out) {
    const lg_op *op = x->op;
    char s1[64];
    if (ids->type != LG_INT32) lgc_add(c, R_OP_PARAMS, x, NULL, "ONE_HOT indices must be INT32");
    if (!c->is_const[op->inputs[2]] || !c->is_const[op->inputs[3]] || lgc_numel_of(c, op->inputs[2]) != 1 ||
        lgc_numel_of(c, op->inputs[3]) != 1)
        lgc_add(c, R_OP_PARAMS, x, NULL, "ONE_HOT on/off values must be constant scalars");
    for (uint32_t d = 0; d + 1 < out->rank; d++) {
        int batch = out->rank > 3 && d == 0;
        if (!batch && out->shape[d] != 1) {
            lgc_add(c, R_OP_PARAMS, x, NULL, "ONE_HOT output %s: only the batch and channel dimensions may be larger than 1",
                lgc_shp(c, op->outputs[0], s1, sizeof s1));
            break;
        }
    }
}

void lgc_rule_one_hot(ck *c, const opx *x) {
    const lg_op *op = x->op;
    if (c->target == LG_TARGET_MLDRIFT ? x->n_in < 4 : x->n_in != 4) {
        lgc_add(c, R_INPUT_COUNT, x, NULL, "ONE_HOT has %d inputs; the GPU takes 4", x->n_in);
        return;
    }
    if (op->n_outputs != 1) {
        lgc_add(c, R_INPUT_COUNT, x, NULL, "ONE_HOT has %u outputs", op->n_outputs);
        return;
    }
    const lg_tensor *ids = lgc_T(c, op->inputs[0]), *out = lgc_T(c, op->outputs[0]);
    lg_one_hot_options d;
    int axis = ((const lg_one_hot_options *)lgc_opts(op, LG_OPTS_ONE_HOT_OPTIONS, &d, sizeof d))->axis;
    char note[128];
    if (axis != -1 && axis != (int)out->rank - 1)
        lgc_add(c, R_OP_PARAMS, x, NULL, "ONE_HOT axis %d: only -1 (the last dimension) is supported%s", axis,
            lgc_opts_note(op, LG_OPTS_ONE_HOT_OPTIONS, note, sizeof note));
    if (c->target == LG_TARGET_MLDRIFT) {
        /* ML Drift skips the shared check; its own parser checks the axis and 4-D ids */
        if (ids->rank == 4 && ids->shape[3] != 1)
            lgc_add(c, R_OP_PARAMS, x, NULL, "ONE_HOT 4-D indices need dims[3] == 1");
        return;
    }
    check_one_hot_classic(c, x, ids, out);
}

void lgc_rule_lstm(ck *c, const opx *x) {
    if (!(x->n_in == 20 || x->n_in == 24 || (x->n_rt == 3 && x->n_const == 2)))
        lgc_add(c, R_OP_PARAMS, x, NULL, "LSTM with %d inputs: the GPU takes the full kernel (20/24 inputs) or the basic kernel (3 runtime + 2 constant)", x->n_in);
}

void lgc_rule_quantize(ck *c, const opx *x) {
    const lg_op *op = x->op;
    lgc_need_io(c, x, 1, 0, 1);
    if (op->n_outputs && op->outputs[0] >= 0 &&
        (!lgc_T(c, op->outputs[0])->quant || !lgc_T(c, op->outputs[0])->quant->n_scale))
        lgc_add(c, R_OP_PARAMS, x, NULL, "QUANTIZE output has no quantization parameters");
}

/* ML Drift's own DEQUANTIZE checks: constants of rank 2-4, no per-channel runtime input. */
static void check_dequantize_mldrift(ck *c, const opx *x, int32_t in) {
    if (c->is_const[in] && (lgc_T(c, in)->rank < 2 || lgc_T(c, in)->rank > 4)) {
        lg_finding *f = lgc_add(c, R_OP_PARAMS, x, NULL, "DEQUANTIZE of a constant of rank %u (ML Drift takes rank 2-4)", lgc_T(c, in)->rank);
        lgc_with_tensor(f, in);
    }
    if (!c->is_const[in] && lgc_T(c, in)->quant && lgc_T(c, in)->quant->n_scale > 1) {
        lg_finding *f = lgc_add(c, R_OP_PARAMS, x, NULL, "DEQUANTIZE of a per-channel quantized runtime tensor");
        lgc_with_tensor(f, in);
    }
}

void lgc_rule_dequantize(ck *c, const opx *x) {
    const lg_op *op = x->op;
    if (x->n_in != 1 || op->n_outputs != 1) {
        lgc_add(c, R_INPUT_COUNT, x, NULL, "DEQUANTIZE has %d inputs, %u outputs; the GPU takes 1 and 1", x->n_in, op->n_outputs);
        return;
    }
    int32_t in = op->inputs[0];
    int32_t p = lgc_producer(c, in);
    if (c->target == LG_TARGET_MLDRIFT && p >= 0 && lg_op_builtin(c->m, &c->sg->ops[p]) == LG_OP_DENSIFY) {
        lg_finding *f = lgc_add(c, R_OP_PARAMS, x, "store the weights dense (densify at export): no DENSIFY, no DEQUANTIZE of it",
                            "Dequantize for Densify is not supported (its input comes from DENSIFY op %d)", p);
        lgc_with_tensor(f, in);
    }
    if (lgc_T(c, in)->type == LG_INT16) {
        lg_finding *f = lgc_add(c, R_OP_PARAMS, x, NULL, "DEQUANTIZE of an INT16 tensor");
        lgc_with_tensor(f, in);
    }
    if (c->target == LG_TARGET_MLDRIFT) check_dequantize_mldrift(c, x, in);
    lgc_rule_dequantize_const(c, x);
}

void lgc_rule_densify(ck *c, const opx *x) { lgc_need_io(c, x, 0, -1, 1); }
