/* Which tensors the GPU delegate stores, and which it keeps in registers (LG_PREC_F32_F16).
 *
 * The rule, in one place. TFLite's GPU delegate (and ML Drift, which grew out of it) turns
 * the graph into GPU nodes, one per op, then merges every elementwise ("linkable") node into
 * the node that produces its first input: the two run as one shader, and the intermediate
 * value never leaves the ALU. With fp16 storage and fp32 arithmetic (F32_F16), that value is
 * therefore never rounded to half. Source: tensorflow/lite/delegates/gpu/common/gpu_model.cc,
 * MergeNodes(): for each node i in order (after merging, node i is tried again with its new
 * output), its output is merged into its consumer when
 *   1. node i has exactly one output, and exactly one (consumer, input slot) reads it later;
 *   2. the tensor is the consumer's input 0 (`link_index != 0` -> no merge);
 *   3. the consumer is linkable (GPUOperation::IsLinkable: an elementwise operation) and has
 *      one output;
 *   4. every input of the consumer is ready, i.e. produced by node i's chain or earlier.
 * A graph output is always stored (an output the caller reads must be written; measured on
 * ML Drift WebGPU: tapping a tensor as a graph output materializes it, bench/calibration.md).
 *
 * Input 0 is the delegate's order, not TFLite's:
 *  - a PAD of zero channels feeding an ADD is removed first (MergePaddingWithAdd, below): the
 *    ADD reads the PAD's input, whose writer is older, so the other operand links;
 *  - runtime inputs only: a constant operand becomes an attribute of the elementwise op
 *    (ParseInputsWithConstTensor), so x + c reads x as input 0 whatever TFLite's order;
 *  - MUL and ADD of two runtime tensors: "the larger input tensor must be bound to 1st input"
 *    (model_builder.cc, and ml_drift_delegate/tflite/convert/convert_elementwise.cc
 *    SwapInputs): the inputs swap when shape0.h <= shape1.h, shape0.w <= shape1.w and
 *    shape0.c == shape1.c (so equal shapes swap too);
 *  - then, for ADD and MUL without broadcasting (IsAssociativeLinkableOp), ConvertOperations
 *    moves the input written latest (by the highest node index) to position 0;
 *  - ADD(a, a) is parsed as MUL(a, 2) and MUL(a, a) as POW/SQUARE(a): one use, one input.
 * Linkable ops (selectors/operation_selector.cc GPUOperationFromNodePart0: the cases that
 * build CreateElementwiseOneInput / CreateElementwise / CreateElementwiseTwoInput, and ReLU,
 * PReLU): ABS COS ELU EXP HARD_SWISH LOG NEG RSQRT LOGISTIC SIN SQRT SQUARE TANH, RELU RELU6
 * RELU_N1_TO_1 LEAKY_RELU PRELU, and with one or two runtime inputs ADD (two runtime inputs of
 * unequal channels: tasks/add.cc CreateAdd, linkable when input 0 has the output's channels) SUB MUL DIV POW
 * SQUARED_DIFF MAXIMUM MINIMUM EQUAL NOT_EQUAL GREATER GREATER_EQUAL LESS LESS_EQUAL.
 * We also require the linked tensor to have the consumer's output shape (the merged shader
 * evaluates the producer per output element).
 *
 * Fused activations (CONV_2D's RELU6, ADD's RELU) are applied before the kernel's output is
 * rounded already, which is the same thing. In LG_PREC_F16 (a GPU computing in half), the
 * registers of a merged shader are halves too (FLT is half in F16 precision), so merging
 * changes nothing there and the rule applies to F32_F16 only.
 *
 * Not modelled: the graph rewrites that fold a MUL/ADD by a constant into the convolution's
 * weights (transformations/fuse_mul_to_conv.cc, fuse_add_to_conv.cc): the weights are
 * multiplied in fp32 and then stored as halves, which differs from our half weights times a
 * half constant by an ulp of a weight at most. */
#include "run/fusion.h"

#include "lg/graph.h"

static bool is_linkable_code(int32_t code) {
    switch (code) {
    case LG_OP_ABS: case LG_OP_COS: case LG_OP_ELU: case LG_OP_EXP: case LG_OP_HARD_SWISH:
    case LG_OP_LOG: case LG_OP_NEG: case LG_OP_RSQRT: case LG_OP_LOGISTIC: case LG_OP_SIN:
    case LG_OP_SQRT: case LG_OP_SQUARE: case LG_OP_TANH:
    case LG_OP_RELU: case LG_OP_RELU6: case LG_OP_RELU_N1_TO_1: case LG_OP_LEAKY_RELU: case LG_OP_PRELU:
    case LG_OP_ADD: case LG_OP_SUB: case LG_OP_MUL: case LG_OP_DIV: case LG_OP_POW:
    case LG_OP_SQUARED_DIFFERENCE: case LG_OP_MAXIMUM: case LG_OP_MINIMUM:
    case LG_OP_EQUAL: case LG_OP_NOT_EQUAL: case LG_OP_GREATER: case LG_OP_GREATER_EQUAL:
    case LG_OP_LESS: case LG_OP_LESS_EQUAL:
        return true;
    default:
        return false;
    }
}

/* Dimension d counted from the right (0: the last), 1 beyond the rank (right-aligned BHWC). */
static int32_t dim_r(const lgk_tensor *t, uint32_t d) { return d < t->rank ? t->shape[t->rank - 1 - d] : 1; }

static bool same_shape(const lgk_tensor *a, const lgk_tensor *b) {
    for (uint32_t d = 0; d < LG_MAX_RANK; d++)
        if (dim_r(a, d) != dim_r(b, d)) return false;
    return true;
}

/* A PAD the delegate removes before an ADD (transformations/merge_padding_with.cc,
   MergePaddingWithAdd, applied by RunGraphTransformsForGpuModel): zeros appended on the
   channel axis only, an input whose channels are a multiple of 4, and a single consumer that
   is an ADD of two runtime tensors. The ADD then reads the PAD's input (CreateAdd handles the
   unequal channels). */
static bool pad_merged_into_add(const lg_graph *g, const lgk_node *nodes, const lgk_node *pad, const lgk_node *add) {
    if (pad->code != LG_OP_PAD || pad->n_in < 2 || !pad->in[0] || !pad->in[1] || !pad->in[1]->is_const ||
        add->code != LG_OP_ADD || lg_graph_n_consumers(g, pad->out[0]->index) != 1 ||
        lg_graph_is_output(g, pad->out[0]->index))
        return false;
    for (uint32_t k = 0; k < add->n_in; k++)
        if (!add->in[k] || add->in[k]->is_const) return false;
    const lgk_tensor *x = pad->in[0], *pd = pad->in[1];
    if (x->rank == 0 || x->shape[x->rank - 1] % 4 != 0 || pd->numel != 2 * (int64_t)x->rank) return false;
    for (int64_t k = 0; k < pd->numel; k++)
        if (k != pd->numel - 1 && lgk_get_int(pd, k) != 0) return false;
    (void)nodes;
    return true;
}

/* The op that writes tensor t as the delegate sees consumer c's inputs (a PAD merged into the
   ADD is skipped to its input's writer); -1 for a graph input or a constant. */
static int32_t writer(const lg_graph *g, const lgk_node *nodes, int32_t t, const lgk_node *c) {
    int32_t p = lg_graph_producer(g, t);
    if (p >= 0 && pad_merged_into_add(g, nodes, &nodes[p], c)) p = lg_graph_producer(g, nodes[p].in[0]->index);
    return p >= 0 && nodes[p].folded ? -1 : p;
}

/* The consumer's runtime inputs in the delegate's order (see the header comment); returns
   their count (at most 2 are kept: more is not an elementwise op we link). */
static uint32_t delegate_inputs(const lgk_node *c, const lgk_node *nodes, const lg_graph *g,
                                const lgk_tensor **r) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < c->n_in; k++) {
        const lgk_tensor *x = c->in[k];
        if (!x || x->is_const) continue;
        if (n == 2) return 3;
        r[n++] = x;
    }
    bool assoc = c->code == LG_OP_ADD || c->code == LG_OP_MUL;
    if (n == 2 && r[0] == r[1]) return assoc ? 1 : 3; /* ADD(a,a) -> MUL(a,2), MUL(a,a) -> SQUARE */
    if (n != 2 || !assoc) return n;
    /* the parser binds the "larger" tensor first (h, w of the right-aligned BHWC, c equal) */
    if (dim_r(r[0], 2) <= dim_r(r[1], 2) && dim_r(r[0], 1) <= dim_r(r[1], 1) && dim_r(r[0], 0) == dim_r(r[1], 0)) {
        const lgk_tensor *s = r[0]; r[0] = r[1]; r[1] = s;
    }
    /* IsAssociativeLinkableOp: no input broadcast to the output -> latest written first */
    const lgk_tensor *o = c->out[0];
    for (uint32_t k = 0; k < 2; k++)
        for (uint32_t d = 0; d < LG_MAX_RANK; d++)
            if (dim_r(o, d) != dim_r(r[k], d) && dim_r(r[k], d) == 1) return n;
    int32_t p0 = writer(g, nodes, r[0]->index, c), p1 = writer(g, nodes, r[1]->index, c);
    if (p1 > p0) { const lgk_tensor *s = r[0]; r[0] = r[1]; r[1] = s; }
    return n;
}

/* The single consumer of t that could absorb it, or -1: exactly one use by a running op. */
static int32_t single_consumer(const lg_graph *g, const lgk_node *nodes, int32_t t) {
    uint32_t nu;
    const lg_use *u = lg_graph_uses(g, t, &nu);
    int32_t c = -1;
    uint32_t slots = 0;
    for (uint32_t k = 0; k < nu; k++) {
        if (nodes[u[k].op].folded) continue;
        if (c >= 0 && u[k].op != c) return -1;
        c = u[k].op;
        slots++;
    }
    if (c < 0) return -1;
    if (slots > 1 && !(slots == 2 && (nodes[c].code == LG_OP_ADD || nodes[c].code == LG_OP_MUL))) return -1;
    return c;
}

/* Can node `cur` (in the chain headed by op `head`) merge its output into its consumer?
   Returns the consumer's op index or -1. */
static int32_t link_target(const lg_graph *g, const lgk_node *nodes, const int32_t *head, int32_t cur,
                           int32_t chain) {
    const lgk_node *n = &nodes[cur];
    if (n->n_out != 1) return -1;
    const lgk_tensor *t = n->out[0];
    if (lg_graph_is_output(g, t->index)) return -1;
    int32_t c = single_consumer(g, nodes, t->index);
    if (c < 0 || c <= cur) return -1;
    const lgk_node *cn = &nodes[c];
    if (!is_linkable_code(cn->code) || cn->n_out != 1 || !same_shape(t, cn->out[0])) return -1;
    const lgk_tensor *r[3];
    uint32_t nr = delegate_inputs(cn, nodes, g, r);
    if (nr < 1 || nr > 2 || r[0] != t) return -1;
    /* every other input ready: produced by this chain or an earlier node */
    for (uint32_t k = 1; k < nr; k++) {
        int32_t p = writer(g, nodes, r[k]->index, cn);
        if (p >= 0 && head[p] > chain) return -1;
    }
    return c;
}

void lgk_fusion_plan(const lg_graph *g, lgk_node *nodes, uint32_t n_ops, int32_t *head) {
    for (uint32_t i = 0; i < n_ops; i++) head[i] = (int32_t)i;
    for (uint32_t i = 0; i < n_ops; i++) {
        if (nodes[i].folded || head[i] != (int32_t)i) continue; /* merged into an earlier node */
        int32_t cur = (int32_t)i, c;
        while ((c = link_target(g, nodes, head, cur, (int32_t)i)) >= 0) {
            nodes[cur].out[0]->in_registers = true;
            head[c] = (int32_t)i;
            cur = c;
        }
    }
}
