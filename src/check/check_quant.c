/* The rules of quantized models that the per-op tables do not cover (rules.def
 * dequantize-const-shape, quant-graph-output, op-version-understated), read in LiteRT's source
 * at f67457790c9c and held to the ML Drift delegate on WebGPU by tests/e2e/test_check_quant.sh:
 *
 *  - A DEQUANTIZE of an integer constant is no GPU op: both delegates turn it into a CONSTANT
 *    node while building the GPU graph. ML Drift (ml_drift_delegate/tflite/model_builder.cc,
 *    DequantizeOperationParser::ReadConstTensor) builds a rank-2 [h,w] constant as BHWC
 *    (1,1,h,w) and a rank-3 [h,w,c] one as (1,h,w,c), while the op's output value gets the
 *    tensor's own layout (model_builder_helper.cc ExtractTensorShape: rank 2 = BC (h,1,1,w),
 *    rank 3 = BWC (h,1,w,c)); with h > 1 they differ and the GPU model build stops with
 *    "Shape mismatch". The classic parser reads the constant with ObjectReader::ReadTensor into
 *    a BHWC tensor, whose SetAllDimensions takes rank 4 only, and CreateVectorCopyData<float>
 *    has no INT4 case.
 *  - ML Drift's FULLY_CONNECTED parser, given runtime weights (2 runtime inputs: what a
 *    DEQUANTIZE of INT8 weights leaves), builds a node without the constant bias
 *    (model_builder.cc FullyConnectedOperationParser::Parse).
 *  - ML Drift quantizes an INT8/UINT8 graph output on the CPU after every run
 *    (delegate_webgpu.cc Invoke: DownloadGpuMemoryToIntermediateCpuTensors, QuantizeOutputs).
 *  - CheckMaxSupportedOpVersion compares the stored opcode version; for a DEQUANTIZE of a
 *    constant the features that raise the computed version (per-channel INT8: 5, INT4: 6) are
 *    handled by the constant read, so that op is judged on its stored version (check.c). */
#include <stdio.h>

#include "check/check_impl.h"

/* The constant a DEQUANTIZE reads at build time: an input with data that is not FLOAT16 (a
   FLOAT16 one is folded, scan_graph), else -1. */
static int32_t dequantized_const(const ck *c, const opx *x) {
    const lg_op *op = x->op;
    if (x->code != LG_OP_DEQUANTIZE || op->n_inputs < 1 || op->inputs[0] < 0) return -1;
    int32_t in = op->inputs[0];
    const lg_tensor *t = lgc_T(c, in);
    if (!lg_tensor_buffer(c->m, t) || t->type == LG_FLOAT16) return -1;
    return in;
}

int lgc_version_from_stored(const ck *c, const opx *x) { return dequantized_const(c, x) >= 0; }

/* The first op reading t, "" if none: the op whose weights the fix keeps float. */
static const char *first_consumer(const ck *c, int32_t t, int32_t *op) {
    uint32_t n;
    const lg_use *u = lg_graph_uses(c->g, t, &n);
    *op = n ? u[0].op : -1;
    return n ? lg_op_name(c->m, &c->sg->ops[u[0].op]) : "";
}

static void dequantize_fix(const ck *c, const opx *x, char *fix, size_t n) {
    int32_t k;
    const char *name = x->op->n_outputs ? first_consumer(c, x->op->outputs[0], &k) : "";
    if (!*name) {
        snprintf(fix, n, "%s", lgc_rule_table[R_DEQUANTIZE_CONST_SHAPE].fix);
        return;
    }
    snprintf(fix, n, "keep the weights of %s (op %d) float or FLOAT16: litegpu quantize --exclude %s (the "
             "delegates fold a FLOAT16 DEQUANTIZE)", name, k, name);
}

/* ML Drift: the CONSTANT node's shape against the output value's (see the top). */
static void dequantize_const_mldrift(ck *c, const opx *x, int32_t in, const char *fix) {
    const lg_tensor *t = lgc_T(c, in);
    if ((t->rank != 2 && t->rank != 3) || t->shape[0] <= 1) return;
    char s1[64], built[64], read[64];
    if (t->rank == 2) {
        snprintf(built, sizeof built, "{1,1,%d,%d}", t->shape[0], t->shape[1]);
        snprintf(read, sizeof read, "{%d,1,1,%d}", t->shape[0], t->shape[1]);
    } else {
        snprintf(built, sizeof built, "{1,%d,%d,%d}", t->shape[0], t->shape[1], t->shape[2]);
        snprintf(read, sizeof read, "{%d,1,%d,%d}", t->shape[0], t->shape[1], t->shape[2]);
    }
    lg_finding *f = lgc_add(c, R_DEQUANTIZE_CONST_SHAPE, x, fix,
                            "DEQUANTIZE of the %s constant %s is built as BHWC %s but its output is read as %s: "
                            "\"Shape mismatch\", the GPU model build fails whole",
                            lg_dtype_name(t->type), lgc_shp(c, in, s1, sizeof s1), built, read);
    lgc_with_tensor(f, in);
}

/* Classic: ReadTensor into BHWC (rank 4 only), CreateVectorCopyData<float> (no INT4). */
static void dequantize_const_classic(ck *c, const opx *x, int32_t in, const char *fix) {
    const lg_tensor *t = lgc_T(c, in);
    char s1[64];
    lg_finding *f = NULL;
    if (t->type != LG_INT8 && t->type != LG_UINT8 && t->type != LG_INT32 && t->type != LG_FLOAT32)
        f = lgc_add(c, R_DEQUANTIZE_CONST_SHAPE, x, fix,
                    "DEQUANTIZE of the %s constant %s: \"Unsupported data type for float32 tensor\" when the "
                    "classic delegate builds its graph; the whole delegation fails",
                    lg_dtype_name(t->type), lgc_shp(c, in, s1, sizeof s1));
    else if (t->rank != 4)
        f = lgc_add(c, R_DEQUANTIZE_CONST_SHAPE, x, fix,
                    "DEQUANTIZE of the %s constant %s (rank %u): the classic parser reads it as BHWC (\"Expected "
                    "a 4D tensor of shape BxHxWxC\"); the whole delegation fails",
                    lg_dtype_name(t->type), lgc_shp(c, in, s1, sizeof s1), t->rank);
    lgc_with_tensor(f, in);
}

void lgc_rule_dequantize_const(ck *c, const opx *x) {
    int32_t in = dequantized_const(c, x);
    if (in < 0) return;
    const lg_tensor *t = lgc_T(c, in);
    /* outside ML Drift's rank 2-4 the op-params finding (check_ops_misc.c) says it */
    if (c->target == LG_TARGET_MLDRIFT && (t->rank < 2 || t->rank > 4)) return;
    char fix[320];
    dequantize_fix(c, x, fix, sizeof fix);
    if (c->target == LG_TARGET_MLDRIFT) dequantize_const_mldrift(c, x, in, fix);
    else dequantize_const_classic(c, x, in, fix);
}

/* Is constant t non-zero anywhere (a float value != 0, or for other types any byte)? */
static int nonzero_const(const ck *c, int32_t t) {
    int64_t n = lgc_numel_of(c, t);
    const lg_tensor *x = lgc_T(c, t);
    if (lgc_is_float(x->type) || !lg_tensor_buffer(c->m, x)) {
        for (int64_t i = 0; i < n; i++) {
            double v;
            if (!lgc_const_float(c, t, (uint32_t)i, &v) || v != 0.0) return 1;
        }
        return 0;
    }
    const lg_buffer *b = lg_tensor_buffer(c->m, x);
    for (uint64_t i = 0; i < b->size; i++)
        if (b->data[i]) return 1;
    return 0;
}

void lgc_rule_fc_runtime_weights(ck *c, const opx *x) {
    const lg_op *op = x->op;
    if (c->target != LG_TARGET_MLDRIFT || op->n_inputs < 3 || op->inputs[1] < 0 || op->inputs[2] < 0) return;
    int32_t w = op->inputs[1], bias = op->inputs[2];
    if (c->is_const[w] || !c->is_const[bias] || !nonzero_const(c, bias)) return;
    char s1[64], s2[64];
    int32_t p = lgc_producer(c, w);
    lg_finding *f = lgc_add(c, R_FC_RUNTIME_WEIGHTS_BIAS, x, NULL,
                            "FULLY_CONNECTED weights %d \"%s\" %s are computed at run time (%s) and its bias %s is a "
                            "non-zero constant: ML Drift builds the op without the bias (silently wrong)",
                            w, lgc_tname(c, w), lgc_shp(c, w, s1, sizeof s1),
                            p < 0 ? "a graph input" : lg_op_name(c->m, &c->sg->ops[p]), lgc_shp(c, bias, s2, sizeof s2));
    lgc_with_tensor(f, w);
    lgc_with_tensor(f, bias);
}

void lgc_version_understated(ck *c, const opx *x, int stored, int computed, int maxv, const char *why) {
    int32_t in = dequantized_const(c, x);
    char s1[64];
    lg_finding *f = lgc_add(c, R_OP_VERSION_UNDERSTATED, x, NULL,
                            "DEQUANTIZE of the %s constant %s: stored version %d is within the max %d, though its "
                            "input needs %d (%s); the delegate reads the stored version and takes it",
                            lg_dtype_name(lgc_T(c, in)->type), lgc_shp(c, in, s1, sizeof s1), stored, maxv,
                            computed, why);
    lgc_with_tensor(f, in);
}

void lgc_check_quant_outputs(ck *c) {
    const lg_subgraph *sg = c->sg;
    char s1[64];
    for (uint32_t k = 0; k < sg->n_outputs; k++) {
        int32_t t = sg->outputs[k];
        if (t < 0 || !lgc_is_q8(lgc_T(c, t)->type)) continue;
        lg_finding *f = lgc_add(c, R_QUANT_GRAPH_OUTPUT, NULL, NULL,
                                "graph output %u: tensor %d \"%s\" %s %s is quantized on the CPU after every run "
                                "(QuantizeOutputs): CompiledModel hands it out as a CPU buffer",
                                k, t, lgc_tname(c, t), lg_dtype_name(lgc_T(c, t)->type), lgc_shp(c, t, s1, sizeof s1));
        lgc_with_tensor(f, t);
    }
}
