/* Per-op rules of the elementwise ops: unary math and activations, binary arithmetic,
   comparisons and logic, CAST, SELECT. See rules.def for each rule's source. */
#include "check/check_impl.h"

/* One runtime input, one output (unary ops, BITCAST). */
void lgc_rule_unary(ck *c, const opx *x) { lgc_need_io(c, x, 1, 0, 1); }

/* The classic delegate takes the RELU family as it comes; ML Drift wants 1 runtime input. */
void lgc_rule_relu(ck *c, const opx *x) {
    if (c->target == LG_TARGET_MLDRIFT) lgc_need_io(c, x, 1, 0, 1);
}

/* ADD/MUL operands: same rank (or a rank <= 1 operand) broadcast numpy-style; otherwise the
   classic delegate takes only its three mixed-rank forms, ML Drift numpy broadcasts of rank
   <= 4 operands. */
static void check_broadcast(ck *c, const opx *x) {
    if (x->op->n_inputs < 2 || x->op->inputs[0] < 0 || x->op->inputs[1] < 0) return;
    int32_t ia = x->op->inputs[0], ib = x->op->inputs[1];
    const lg_tensor *a = lgc_T(c, ia), *b = lgc_T(c, ib);
    char s1[64], s2[64];
    if (a->rank == b->rank || a->rank <= 1 || b->rank <= 1) {
        if (!lgc_broadcastable(a, b)) {
            lg_finding *f = lgc_add(c, R_BROADCAST, x, NULL, "shapes %s and %s do not broadcast",
                                lgc_shp(c, ia, s1, sizeof s1), lgc_shp(c, ib, s2, sizeof s2));
            lgc_with_tensor(f, ia);
            lgc_with_tensor(f, ib);
        }
        return;
    }
    const lg_tensor *hi = a->rank > b->rank ? a : b, *lo = a->rank > b->rank ? b : a;
    int ok;
    if (c->target == LG_TARGET_CLASSIC) {
        ok = 0;
        if (hi->rank == 4 && lo->rank == 3 && hi->shape[0] == 1 && lgc_broadcastable(hi, lo)) ok = 1;
        if (hi->rank == 4 && lo->rank == 2 && lo->shape[0] == 1 && lo->shape[1] == 1) ok = 1;
        if (hi->rank == 4 && lo->rank == 2 && lo->shape[0] == hi->shape[0] &&
            lo->shape[1] == hi->shape[3])
            ok = 1;
    } else {
        ok = hi->rank <= 4 && lgc_broadcastable(hi, lo);
    }
    if (!ok) {
        lg_finding *f = lgc_add(c, R_BROADCAST, x, NULL, "%s %s and %s: %s",
                            x->name, lgc_shp(c, ia, s1, sizeof s1), lgc_shp(c, ib, s2, sizeof s2),
                            c->target == LG_TARGET_CLASSIC
                                ? "the classic delegate only broadcasts 4D+3D (batch 1), 4D+[1,1] "
                                  "and 4D [b,h,w,c]+2D [b,c]"
                                : "not a numpy broadcast of rank <= 4 operands");
        lgc_with_tensor(f, ia);
        lgc_with_tensor(f, ib);
    }
}

void lgc_rule_add_mul(ck *c, const opx *x) {
    char s1[64];
    if (x->n_in != 2)
        lgc_add(c, R_INPUT_COUNT, x, NULL, "%s has %d inputs; the GPU takes exactly 2", x->name, x->n_in);
    if (x->op->n_inputs == 2) check_broadcast(c, x);
    if (c->target == LG_TARGET_MLDRIFT && x->n_rt == 2) {
        for (int i = 0; i < 2; i++)
            if (lgc_T(c, x->in[i])->rank > 5) {
                lg_finding *f = lgc_add(c, R_BROADCAST, x, NULL, "%s operand %s has rank > 5", x->name,
                                    lgc_shp(c, x->in[i], s1, sizeof s1));
                lgc_with_tensor(f, x->in[i]);
            }
    }
}

void lgc_rule_add_n(ck *c, const opx *x) {
    if (x->n_in != 2) lgc_add(c, R_INPUT_COUNT, x, NULL, "ADD_N has %d inputs; the GPU takes exactly 2", x->n_in);
}

/* The classic delegate takes a comparison only when its output has exactly 1 consumer, a
   CAST/SELECT/SELECT_V2 producing float. */
static void check_compare_consumer(ck *c, const opx *x) {
    const lg_op *op = x->op;
    int32_t out = op->n_outputs ? op->outputs[0] : -1;
    int ok = 0;
    uint32_t n_readers = out >= 0 ? lgc_n_readers(c, out) : 0, n_uses;
    const lg_use *use = lg_graph_uses(c->g, out, &n_uses);
    if (n_readers == 1 && n_uses == 1) {
        const lg_op *u = &c->sg->ops[use->op];
        int32_t uc = lg_op_builtin(c->m, u);
        ok = (uc == LG_OP_CAST || uc == LG_OP_SELECT || uc == LG_OP_SELECT_V2) && u->n_outputs == 1 &&
             u->outputs[0] >= 0 && lgc_is_float(lgc_T(c, u->outputs[0])->type);
    }
    if (!ok) {
        lg_finding *f = lgc_add(c, R_COMPARE_CONSUMER, x, NULL,
                            "Not supported logical op case: %s output %d has %u consumer(s); the classic delegate needs exactly one CAST/SELECT producing float",
                            x->name, out, n_readers);
        lgc_with_tensor(f, out);
    }
}

/* Binary ops other than ADD/MUL: arithmetic, comparisons, logic. */
void lgc_rule_binary(ck *c, const opx *x) {
    const lg_op *op = x->op;
    char s1[64], s2[64];
    if (!((x->n_rt == 2 && x->n_const == 0) || (x->n_rt == 1 && x->n_const == 1)) ||
        op->n_outputs != 1)
        lgc_add(c, R_INPUT_COUNT, x, NULL, "Op can only handle 1 or 2 operand(s): %s has %d runtime and %d constant inputs",
            x->name, x->n_rt, x->n_const);
    if (c->target == LG_TARGET_MLDRIFT && op->n_inputs >= 2 && op->inputs[0] >= 0 &&
        op->inputs[0] == op->inputs[1]) {
        lg_finding *f = lgc_add(c, R_IDENTICAL_INPUTS, x, NULL,
                            "No support of few identical inputs in the same operation: %s(x, x) on tensor %d \"%s\"",
                            x->name, op->inputs[0], lgc_tname(c, op->inputs[0]));
        lgc_with_tensor(f, op->inputs[0]);
    }
    if (op->n_inputs >= 2 && op->inputs[0] >= 0 && op->inputs[1] >= 0 &&
        !lgc_broadcastable(lgc_T(c, op->inputs[0]), lgc_T(c, op->inputs[1]))) {
        lg_finding *f = lgc_add(c, R_BROADCAST, x, NULL, "Inputs dimensions sizes don't match, broadcasting isn't applicable: %s and %s",
                            lgc_shp(c, op->inputs[0], s1, sizeof s1), lgc_shp(c, op->inputs[1], s2, sizeof s2));
        lgc_with_tensor(f, op->inputs[0]);
        lgc_with_tensor(f, op->inputs[1]);
    }
    if (c->target == LG_TARGET_CLASSIC && lgc_is_compare(x->code)) check_compare_consumer(c, x);
}

/* ML Drift takes any CAST of 1 runtime input; the classic delegate a few type pairs, and a
   cast from bool only right after a comparison. */
void lgc_rule_cast(ck *c, const opx *x) {
    const lg_op *op = x->op;
    int32_t in = op->n_inputs ? op->inputs[0] : -1, out = op->n_outputs ? op->outputs[0] : -1;
    if (c->target == LG_TARGET_MLDRIFT) {
        lgc_need_io(c, x, 1, 0, 1);
        return;
    }
    if (!lgc_need_io(c, x, 1, 0, 1) || in < 0 || out < 0) return;
    int ti = lgc_T(c, in)->type, to = lgc_T(c, out)->type;
    int ok = (ti == LG_BOOL && lgc_is_float(to)) || (lgc_is_float(ti) && to == LG_BOOL) ||
             ((ti == LG_FLOAT32 || ti == LG_INT32) && (to == LG_FLOAT32 || to == LG_INT32));
    if (!ok) {
        lg_finding *f = lgc_add(c, R_CAST_TYPES, x, NULL, "Not supported Cast case: %s -> %s", lg_dtype_name(ti), lg_dtype_name(to));
        lgc_with_tensor(f, in);
        lgc_with_tensor(f, out);
    } else if (ti == LG_BOOL) {
        int32_t p = lgc_producer(c, in);
        int from_cmp = p >= 0 && lgc_is_compare(lg_op_builtin(c->m, &c->sg->ops[p])) && lgc_n_readers(c, in) == 1;
        int is_out = lg_graph_is_output(c->g, out);
        if (!from_cmp || is_out) {
            lg_finding *f = lgc_add(c, R_CAST_TYPES, x, NULL, "%s",
                                is_out ? "Cast from bool not supported for outputs"
                                       : "a cast from bool must read a single comparison op with one consumer");
            lgc_with_tensor(f, in);
        }
    }
}

void lgc_rule_select(ck *c, const opx *x) {
    const lg_op *op = x->op;
    char s1[64], s2[64];
    if (x->n_in != 3 || op->n_outputs != 1) {
        lgc_add(c, R_INPUT_COUNT, x, NULL, "%s has %d inputs; the GPU takes 3", x->name, x->n_in);
        return;
    }
    const lg_tensor *cond = lgc_T(c, op->inputs[0]), *out = lgc_T(c, op->outputs[0]);
    if (!(cond->type == LG_BOOL || lgc_is_float(cond->type)))
        lgc_add(c, R_OP_PARAMS, x, NULL, "%s condition is %s (BOOL/FLOAT16/FLOAT32 only)", x->name, lg_dtype_name(cond->type));
    if (!lgc_broadcastable(cond, out))
        lgc_add(c, R_OP_PARAMS, x, NULL, "%s condition %s does not broadcast to the output %s", x->name,
            lgc_shp(c, op->inputs[0], s1, sizeof s1), lgc_shp(c, op->outputs[0], s2, sizeof s2));
    for (int k = 1; k <= 2; k++) {
        int32_t t = op->inputs[k];
        const lg_tensor *v = lgc_T(c, t);
        int same = v->rank == out->rank;
        for (uint32_t i = 0; same && i < v->rank; i++) same = v->shape[i] == out->shape[i];
        if (!same && lgc_numel_of(c, t) != 1) {
            lg_finding *f = lgc_add(c, R_OP_PARAMS, x, NULL, "%s %s value %s must equal the output shape %s or be a scalar",
                                x->name, k == 1 ? "true" : "false", lgc_shp(c, t, s1, sizeof s1), lgc_shp(c, op->outputs[0], s2, sizeof s2));
            lgc_with_tensor(f, t);
        } else if (c->target == LG_TARGET_CLASSIC && v->rank == 2 && !c->is_const[t] && lgc_numel_of(c, t) != 1) {
            lgc_add(c, R_OP_PARAMS, x, NULL, "2-D if/else tensor only supported if constant");
        }
    }
}

void lgc_rule_stablehlo_clamp(ck *c, const opx *x) { lgc_need_io(c, x, 3, 0, -1); }
