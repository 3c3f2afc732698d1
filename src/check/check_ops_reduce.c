/* Per-op rules of the reductions, cumulative sums and top-k. See rules.def for each rule's
   source. */
#include "check/check_impl.h"

/* MEAN, SUM, REDUCE_MAX/MIN/PROD/ALL/ANY: constant INT32 axes valid for a rank 1-4 input;
   a multi-axis MEAN/SUM over >= 65536 elements is the Mali NaN of the field notes. */
void lgc_rule_reduce(ck *c, const opx *x) {
    const lg_op *op = x->op;
    char s1[64];
    lgc_need_io(c, x, 1, 1, 1);
    if (!lgc_need_const_i32(c, x, 1, "axes")) return;
    int32_t in = op->inputs[0], ax = op->inputs[1];
    uint32_t r = lgc_T(c, in)->rank;
    int64_t n = lgc_numel_of(c, ax), extent = 1;
    int n_axes = 0;
    uint32_t seen = 0;
    for (int64_t i = 0; i < n && i < 16; i++) {
        int64_t a;
        if (!lgc_const_int(c, ax, (uint32_t)i, &a)) break;
        if (a < 0) a += r;
        if (a < 0 || a >= (int64_t)r || r > 4 || r < 1) {
            lg_finding *f = lgc_add(c, R_REDUCE_AXES, x, NULL, "%s axis %lld on an input of rank %u", x->name, (long long)a, r);
            lgc_with_tensor(f, in);
            break;
        }
        if (!(seen & (1u << a))) {
            seen |= 1u << a;
            n_axes++;
            extent *= lgc_T(c, in)->shape[a];
        }
    }
    if ((x->code == LG_OP_MEAN || x->code == LG_OP_SUM) && n_axes >= 2 && extent >= 65536) {
        lg_finding *f = lgc_add(c, R_LARGE_MULTI_AXIS_REDUCE, x, NULL, "%s over %d axes reduces %lld elements of %s at once (>= 65536)",
                            x->name, n_axes, (long long)extent, lgc_shp(c, in, s1, sizeof s1));
        lgc_with_tensor(f, in);
    }
}

void lgc_rule_cumsum(ck *c, const opx *x) {
    const lg_op *op = x->op;
    if (x->n_in != 2 || op->n_outputs != 1) {
        lgc_add(c, R_INPUT_COUNT, x, NULL, "CUMSUM has %d inputs, %u outputs; the GPU takes 2 and 1", x->n_in, op->n_outputs);
        return;
    }
    if (!lgc_is_float(lgc_T(c, op->inputs[0])->type) || lgc_T(c, op->outputs[0])->type != lgc_T(c, op->inputs[0])->type)
        lgc_add(c, R_OP_PARAMS, x, NULL, "CUMSUM needs a float input and an output of the same type");
    lgc_need_const_i32(c, x, 1, "axis");
}

void lgc_rule_topk_v2(ck *c, const opx *x) {
    const lg_op *op = x->op;
    if (x->n_rt != 1 || op->n_outputs != 2)
        lgc_add(c, R_INPUT_COUNT, x, NULL, "TOPK_V2 has %d runtime inputs and %u outputs; the GPU takes 1 and 2", x->n_rt, op->n_outputs);
    if (op->n_inputs >= 2 && op->inputs[1] >= 0 && (!c->is_const[op->inputs[1]] || lgc_numel_of(c, op->inputs[1]) != 1))
        lgc_add(c, R_OP_PARAMS, x, NULL, "TOPK_V2 k must be a constant scalar");
}
