/* litegpu quantize --mode int8-dynamic: TFLite's dynamic-range quantization (the weights
 * part; the activations are quantized on the fly by the runtime's hybrid kernels: see
 * src/run/k_hybrid.h). quant.c selects and stores the weights as for int8-weights; these
 * hooks say, for the dynamic mode, which weights, in which form, and how they are connected.
 *
 * The rules are those of the current converter, the MLIR dynamic-range quantizer (LiteRT
 * tflite/converter/, the same code as tensorflow/compiler/mlir/lite/):
 *   transforms/prepare_quantize_dynamic_range.cc PrepareDynamicRangeQuantizableOp:
 *     - only the operands an op lists in GetQuantizableOperandIndices (ir/tfl_ops.td):
 *       CONV_2D 1, DEPTHWISE_CONV_2D 1, FULLY_CONNECTED 1, BATCH_MATMUL 1, TRANSPOSE_CONV 1,
 *       EMBEDDING_LOOKUP 1, GATHER 0 (and the RNN/LSTM family, which litegpu does not quantize);
 *     - a constant with fewer than minimum_elements_for_weights elements (1024 by default,
 *       quantization_config.h; the old quantizer's kWeightsMinNumElementsDefault in
 *       tensorflow/lite/tools/optimize/quantize_weights.cc) stays float;
 *     - symmetric, narrow range [-127, 127], per axis when the op has an affine operand with a
 *       quantization dimension (GetQuantizationDimIndex: CONV_2D 0, DEPTHWISE_CONV_2D 3,
 *       FULLY_CONNECTED 0 (dense layers are per-channel unless disable_per_channel_for_dense_layers),
 *       TRANSPOSE_CONV 0) and per-channel is enabled; per tensor otherwise (BATCH_MATMUL,
 *       GATHER, EMBEDDING_LOOKUP) (tests/prepare-quantize-dynamic-range.mlir QuantizeFullyConnected
 *       shows the per-axis FC weights, QuantizeBatchMatmulWithActConst the per-tensor rhs);
 *     - RequireAsymmetricQuantizeInputsAttr (FULLY_CONNECTED, BATCH_MATMUL): the op gets
 *       asymmetric_quantize_inputs = true.
 *   transforms/quantize.cc IsWeightOnlyOp: an op without GetDynamicRangeQuantKernelSupport
 *     (TRANSPOSE_CONV, GATHER, EMBEDDING_LOOKUP) keeps the DEQUANTIZE (weight-only); CONV_2D,
 *     DEPTHWISE_CONV_2D, FULLY_CONNECTED and BATCH_MATMUL read the INT8 constant directly
 *     (tests/quantize-dynamic-range.mlir: "tfl.conv_2d"(%arg0, %w_qconst, %b)).
 *   Biases stay float (FLOAT16 biases of the quantized ops become FLOAT32, as int8-weights
 *   does). The op versions follow from the types (check/op_version.c: FULLY_CONNECTED 12
 *   per-channel / 9 asymmetric per tensor, CONV_2D 5 / 2, DEPTHWISE_CONV_2D 6, BATCH_MATMUL 4).
 *
 * Departures, each for a runtime reason:
 *   - --per-tensor DEPTHWISE_CONV_2D keeps its DEQUANTIZE: TFLite's hybrid depthwise kernel
 *     reads one scale per output channel (depthwise_conv.cc EvalHybridPerChannel with
 *     affine_quantization->scale->data[output_channel]) and XNNPACK does not take it, so a
 *     per-tensor hybrid depthwise does not run right anywhere;
 *   - a weight read by ops of both kinds (hybrid and weight-only) keeps the DEQUANTIZE for all
 *     (the converter would store two copies);
 *   - weights already FLOAT16 (read through DEQUANTIZE) are quantized from their exact values
 *     (quant.c), and a weight whose INT8 form would not be smaller stays as it is.
 */
#include <stdio.h>
#include <string.h>

#include "lg/graph.h"
#include "lg/ops.h"
#include "passes/quant_impl.h"

/* What the GPU delegates do with a dynamic-range model: shared/reference/
   conversion-quantization-pruning.md (DequantizeConstantTensor; ML Drift's
   AllowSrcQuantizedFcConvOps), gpu-delegate-rules.md (version limits), and measured on ML
   Drift through LiteRT.js WebGPU (tests/e2e/test_quantize_dynamic.sh: a hybrid CONV_2D's GPU
   output equals the float conv of its dequantized weights to 3e-7, the CPU's hybrid result
   differs by the activation quantization, 0.5% of the output). */
const char lgq_dyn_gpu_note[] =
    "the hybrid ops (CONV_2D v2/v5, DEPTHWISE_CONV_2D v6, FULLY_CONNECTED v9/v12, BATCH_MATMUL v4 reading INT8 "
    "weights directly) are a CPU form: the GPU delegates dequantize INT8 constant weights to float at load "
    "(DequantizeConstantTensor) and compute in float (measured on ML Drift, LiteRT.js WebGPU: fully on the GPU, "
    "outputs equal the float op on the dequantized weights, so GPU and CPU differ by the CPU's activation "
    "quantization; ML Drift's AllowSrcQuantizedFcConvOps, dynamic 8-bit inputs on devices that have them, was not "
    "in effect); the classic delegate takes FULLY_CONNECTED only up to version 9 (per-channel hybrid is 12: "
    "--per-tensor gives 9); TRANSPOSE_CONV, GATHER and EMBEDDING_LOOKUP weights keep a DEQUANTIZE (per tensor "
    "version 2, per channel version 5, which both delegates refuse above version 3)";

#define DYN_MIN_ELEMENTS 1024 /* minimum_elements_for_weights */

static int32_t code_of(const lg_model *m, const lg_op *op) { return lg_op_builtin(m, op); }

bool lgq_dyn_slot(const lg_model *m, const lg_subgraph *sg, uint32_t i, uint32_t *slot, int32_t *axis) {
    const lg_op *op = &sg->ops[i];
    switch (code_of(m, op)) {
    case LG_OP_FULLY_CONNECTED: *slot = 1; *axis = 0; break;   /* [out, in] */
    case LG_OP_CONV_2D: *slot = 1; *axis = 0; break;           /* [out, kh, kw, in] */
    case LG_OP_DEPTHWISE_CONV_2D: *slot = 1; *axis = 3; break; /* [1, kh, kw, out] */
    case LG_OP_TRANSPOSE_CONV: *slot = 1; *axis = 0; break;    /* [out, kh, kw, in] */
    case LG_OP_EMBEDDING_LOOKUP: *slot = 1; *axis = 0; break;  /* stored per tensor (lgq_dyn_form) */
    case LG_OP_GATHER: *slot = 0; *axis = 0; break;            /* stored per tensor */
    case LG_OP_BATCH_MATMUL: {
        /* the constant rhs of a runtime lhs (a constant lhs is not a quantizable operand);
           stored per tensor, the axis only ties its readers together */
        if (op->n_inputs != 2 || op->inputs[0] < 0 || op->inputs[1] < 0) return false;
        if (lg_tensor_is_const(m, 0, op->inputs[0])) return false;
        const lg_batch_mat_mul_options *o = op->opts_kind == LG_OPTS_BATCH_MAT_MUL_OPTIONS ? op->opts : NULL;
        const int32_t r = (int32_t)sg->tensors[op->inputs[1]].rank;
        *slot = 1;
        *axis = o && o->adj_y ? r - 2 : r - 1;
        if (*axis < 0) return false;
        break;
    }
    default: return false;
    }
    return op->n_inputs > *slot && op->inputs[*slot] >= 0;
}

/* The first reader of w (readers_agree in quant.c has checked that they all take w in the
   same slot and axis). */
static const lg_op *first_reader(const lg_model *m, const lg_graph *g, int32_t w) {
    uint32_t n = 0;
    const lg_use *u = lg_graph_uses(g, w, &n);
    return n ? &m->subgraphs[0].ops[u[0].op] : NULL;
}

bool lgq_dyn_form(const lg_model *m, const lg_graph *g, int32_t w, lgq_form *f, char *why, size_t n_why) {
    const lg_tensor *x = &m->subgraphs[0].tensors[w];
    const int64_t n = lg_tensor_numel(x);
    if (n < DYN_MIN_ELEMENTS) {
        snprintf(why, n_why, "%lld elements, fewer than the %d of TFLite's dynamic-range quantizer "
                 "(minimum_elements_for_weights): kept float", (long long)n, DYN_MIN_ELEMENTS);
        return true;
    }
    const lg_op *op = first_reader(m, g, w);
    const int32_t code = op ? code_of(m, op) : -1;
    f->type = LG_INT8;
    f->block = 0;
    /* quant.c has set f->axis from --per-tensor for the per-channel ops */
    if (code == LG_OP_BATCH_MATMUL || code == LG_OP_GATHER || code == LG_OP_EMBEDDING_LOOKUP) f->axis = -1;
    return false;
}

/* w's readers read it as hybrid ops (every one of them). */
bool lgq_dyn_direct(const lg_model *m, const lg_graph *g, int32_t w, bool per_tensor) {
    uint32_t n = 0;
    const lg_use *u = lg_graph_uses(g, w, &n);
    if (!n) return false;
    for (uint32_t k = 0; k < n; k++) {
        switch (code_of(m, &m->subgraphs[0].ops[u[k].op])) {
        case LG_OP_FULLY_CONNECTED: case LG_OP_CONV_2D: case LG_OP_BATCH_MATMUL: break;
        case LG_OP_DEPTHWISE_CONV_2D:
            if (per_tensor) return false;
            break;
        default: return false;
        }
    }
    return true;
}

/* FULLY_CONNECTED / BATCH_MATMUL: asymmetric_quantize_inputs = true (the other options kept;
   absent options become the schema defaults). */
static lg_status set_asymmetric(lg_model *m, uint32_t op, lg_error *err) {
    const lg_op *o = &m->subgraphs[0].ops[op];
    if (code_of(m, o) == LG_OP_FULLY_CONNECTED) {
        lg_fully_connected_options fo;
        memset(&fo, 0, sizeof fo);
        if (o->opts_kind == LG_OPTS_FULLY_CONNECTED_OPTIONS && o->opts) fo = *(const lg_fully_connected_options *)o->opts;
        fo.asymmetric_quantize_inputs = true;
        return lg_op_set_options(m, 0, op, LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo, err);
    }
    if (code_of(m, o) == LG_OP_BATCH_MATMUL) {
        lg_batch_mat_mul_options bo;
        memset(&bo, 0, sizeof bo);
        if (o->opts_kind == LG_OPTS_BATCH_MAT_MUL_OPTIONS && o->opts) bo = *(const lg_batch_mat_mul_options *)o->opts;
        bo.asymmetric_quantize_inputs = true;
        return lg_op_set_options(m, 0, op, LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo, err);
    }
    return LG_OK;
}

lg_status lgq_dyn_connect(lg_model *m, const lg_graph *g, int32_t w, int32_t qtensor, uint32_t shift, lg_error *err) {
    uint32_t n = 0;
    const lg_use *u = lg_graph_uses(g, w, &n);
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t op = (uint32_t)u[k].op + shift; /* the copy's index: ops were inserted at the front */
        LG_TRY(lg_op_set_input(m, 0, op, u[k].slot, qtensor, err));
        LG_TRY(set_asymmetric(m, op, err));
    }
    return LG_OK;
}
