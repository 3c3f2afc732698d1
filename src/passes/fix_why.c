/* Why no exact rewrite removes a rule, per rule id of src/check/rules.def: what the passes
 * cover (covered: some pass lists the rule in lg_pass.removes), what they do not, and what to
 * do instead (--split). `litegpu fix` prints this for every blocker it leaves; the README's
 * fix table is generated from the same rows (scripts/readme-rules.sh fix). */
#include "lg/fix.h"

#include <stdbool.h>
#include <string.h>

typedef struct why_row {
    const char *rule;
    bool covered; /* a pass removes (some cases of) it: the text says what it does not cover */
    const char *why;
} why_row;

static const why_row rows[] = {
    {"op-unsupported", true,
     "rewritten: GATHER_ND/GATHER with constant indices (slices, or a strided "
     "AVERAGE_POOL_2D), SQUEEZE/EXPAND_DIMS (RESHAPE), BROADCAST_TO (TILE or dropped), "
     "LOG_SOFTMAX, DENSIFY of constants; not this op: a data-dependent op (WHERE, "
     "NON_MAX_SUPPRESSION, UNIQUE, a runtime GATHER_ND/SCATTER_ND) or one with no GPU form "
     "(ARG_MAX/TOPK on classic) has no exact rewrite: --split runs it on the CPU"},
    {"op-no-compat-case", true,
     "rewritten: RELU_0_TO_1 (MINIMUM(1, RELU(x))); integer bit operations (BITWISE_XOR) "
     "have no float form: --split"},
    {"custom-op-unsupported", false,
     "a custom op's semantics are not known to litegpu, so nothing can be rewritten "
     "exactly: --split runs it on the CPU"},
    {"op-version", true,
     "rewritten: a stored version above what the op's features need, TRANSPOSE_CONV "
     "version 4 (a fused activation); a version that comes from a feature the delegate "
     "lacks (FLOAT16 runtime tensors, int16) changes results if widened: --split"},
    {"tensor-rank", true,
     "rewritten by reduce-rank where the rank-5/6 region's dimensions can be merged or "
     "split to rank 4; this region has no such grouping (reduce-rank's note says why): "
     "--split"},
    {"tensor-dtype", true,
     "rewritten: INT64 narrowed to INT32 where values fit (int64-to-int32); bool/integer "
     "logic has no exact float form on a GPU that holds integers exactly only up to 2048 "
     "in fp16: --split"},
    {"quant-per-channel-runtime", false,
     "a per-channel quantized runtime tensor has no float form the delegate reads, and "
     "requantizing changes values: dequantize at export, or --split"},
    {"dequantize-const-shape", false,
     "the integer constant is what the delegate cannot build; storing it another way is a "
     "quantization choice, not an exact rewrite: litegpu quantize --exclude the op (FLOAT16 "
     "weights fold), or --split"},
    {"fc-runtime-weights-bias", false,
     "no pass yet: the exact rewrite is the FULLY_CONNECTED without its bias followed by an ADD "
     "of the bias; or keep the weights constant (litegpu quantize --exclude FULLY_CONNECTED)"},
    {"quant-graph-output", false,
     "the model's output type is its interface: end the graph in float with a DEQUANTIZE at "
     "export (the app quantizes on the host if it needs integers), or accept the CPU copy"},
    {"fused-activation", true,
     "rewritten: a fused RELU/RELU6/RELU_N1_TO_1/TANH becomes its own op; SIGN_BIT and "
     "unknown values have no standalone TFLite op"},
    {"broadcast", true,
     "rewritten (classic): the lower-rank operand of a mixed-rank ADD/MUL reshaped to the "
     "other's rank with leading 1s (broadcast-rank); shapes that do not broadcast (a model TFLite "
     "refuses) and operands above rank 4 (ML Drift's cases) have no exact rewrite"},
    {"input-count", true,
     "rewritten: an op whose inputs are all constant is folded; ADD_N of n != 2 inputs as ADDs "
     "in TFLite's input order (add-n-chain); other counts are fixed by the op's semantics (a "
     "runtime weight where the GPU needs a constant): --split"},
    {"const-axes", true,
     "rewritten: constant INT64 axes narrowed to INT32; axes computed at run time: convert "
     "with static shapes (--input-shape) so they fold"},
    {"dynamic-tensor", false,
     "a shape computed at run time from a graph input: fix --freeze NAME=FILE.npy makes that "
     "parameter a constant (the shapes then fold), fix --input-shape fixes dynamic input "
     "dimensions; a shape that depends on the data itself: --split"},
    {"identical-inputs", true,
     "rewritten: x OP x (a binary op other than ADD/MUL, or BATCH_MATMUL) reads a RESHAPE of x to "
     "its own shape as the second operand (distinct-operands); a constant x is folded instead; "
     "a scalar (rank 0) or dynamic x is left (the copy would change its shape)"},
    {"op-params", true,
     "rewritten: GATHER indices of rank >= 2 (flattened, then the result reshaped), "
     "constant-index GATHER with non-1-D indices, DEQUANTIZE of a DENSIFY, 2-D SELECT values "
     "(SELECT-free ELU); other parameter forms (invalid exports, shapes the GPU kernel lacks) "
     "have no exact rewrite: --split"},
    {"resize-flags", false,
     "align_corners with half_pixel_centers: TFLite itself refuses the combination, so "
     "there is no meaning to keep"},
    {"strided-slice-masks", true,
     "rewritten: a strided H/W subsample as AVERAGE_POOL_2D 1x1 (strided-subsample-pool), any "
     "other masked slice of a float tensor of rank 1-4 as a plain SLICE/STRIDED_SLICE + RESHAPE "
     "(slice-plain); not integer tensors (the element map is read off a float run), rank 5, or "
     "a reversal of more than 16 elements"},
    {"strided-slice-reverse", true,
     "rewritten: the ascending slice, then each reversed axis of up to 16 elements as "
     "single-element SLICEs in reverse order joined by CONCATENATION (slice-plain); longer "
     "reversals (one SLICE per element), integer tensors and rank 5 are left: --split"},
    {"slice-rank", true,
     "rewritten: a slice of rank-1/2 float data as a rank-4 SLICE/STRIDED_SLICE between RESHAPEs "
     "(slice-plain); rank-5 slices are reduce-rank's, and a rank-5 graph input or output cannot "
     "be reshaped away: --split"},
    {"transpose-perm", true,
     "rewritten by reduce-rank for rank-5/6 transposes; other permutations the GPU "
     "refuses: no exact rewrite yet"},
    {"softmax-beta", true,
     "rewritten: SOFTMAX beta != 1 as the kernel's own exp((x - max) * beta); a negative "
     "or non-finite beta is left"},
    {"depthwise-shape", false,
     "a depthwise conv whose shape the GPU kernel does not take is a malformed export: no "
     "exact rewrite"},
    {"mirror-pad-mode", true,
     "rewritten: SYMMETRIC pads up to 8 per side as slices and CONCATENATION; wider pads: "
     "--split"},
    {"pad-shape", true,
     "rewritten: padding of rank-1/2 data as a PAD of a rank-4 view padded on H and W, RESHAPEd "
     "back (pad-rank4); not runtime paddings (dynamic-tensor), dynamic shapes or a pad with no "
     "padded dim; rank-5 data is reduce-rank's"},
    {"cast-types", false,
     "the CAST between these types is the computation itself: --split"},
    {"compare-consumer", true,
     "rewritten: a comparison read by several CAST/SELECT ops producing float as one comparison "
     "per consumer (compare-per-consumer); one that is a graph output or feeds other ops (bool "
     "logic) has no exact GPU form: --split"},
    {"reduce-axes", false,
     "a reduction over axes the GPU reduce does not map: no exact rewrite yet"},
    {"mali-transpose-conv", true,
     "rewritten: TRANSPOSE_CONV as the ZeroStuff conv (nearest resize, stride mask, "
     "flipped CONV_2D, crop); not with runtime weights, quantized tensors, or a stride "
     "where the nearest resize would not read the aligned pixels exactly"},
    {"const-only-inputs", true,
     "rewritten: folded by fold-constants; not when litegpu cannot run the op or the "
     "constant would grow past the folding limit (16 MiB and 4x its inputs)"},
    {"padv2-nonzero", true,
     "rewritten: PAD(0) when the input is proven non-negative, the max pool's own SAME "
     "padding, or PAD(0) plus a constant holding the value on the border (exact for any "
     "constant, -inf included); refused when that constant would pass 4 MiB: --split"},
    {"large-multi-axis-reduce", true,
     "rewritten: a chain of single-axis reductions (exact up to the order of fp32 "
     "additions)"},
    {"fc-2d-broadcast", true,
     "rewritten: the FULLY_CONNECTED output reshaped to the other operand's rank, or a "
     "per-channel constant folded into its weights"},
    {"int64-tensor", true,
     "rewritten: INT64 narrowed to INT32 inside where values fit; INT64 arithmetic (int32 "
     "could overflow), values outside int32, and INT64 graph inputs/outputs (the model's "
     "contract: fix --io-int32 changes it on request) are left"},
    {"gather-const-indices", true,
     "rewritten: runs of constant indices as SLICE/STRIDED_SLICE + CONCATENATION (up to 64 "
     "slices), or a strided subsample as AVERAGE_POOL_2D; more separate runs: --split"},
    {"resize-align-corners", true,
     "rewritten (fix --warnings): RESIZE_BILINEAR align_corners=True of fp32 NHWC data as two "
     "constant interpolation matrices (FULLY_CONNECTED between TRANSPOSEs, resize-align-corners: "
     "the kernel's own weights, within fp32 rounding)"},
    {"field-banned-op", true,
     "rewritten (fix --warnings): PACK, SPLIT, SPLIT_V as RESHAPE/CONCATENATION/SLICE "
     "(pack-unpack-split), SELECT of a constant condition (select-const-condition), SELECT-based "
     "ELU (elu-select-free); TOPK_V2, CAST and comparisons are the computation itself: --split, "
     "or re-author the model"},
    {"webgpu-pad-layout", true,
     "rewritten (fix --warnings): a PAD of rank-3 data or of the batch axis as a PAD of a rank-4 "
     "view padded on H and W only (pad-rank4); three padded dims have no such view"},
    {"webgpu-space-depth-batch", true,
     "rewritten: the batch folded into H around the op, RESHAPE [N,H,W,C] -> [1,N*H,W,C], the op, "
     "RESHAPE back (space-depth-batch1); not with dynamic shapes"},
};

static const why_row *find(const char *rule_id) {
    for (size_t i = 0; rule_id && i < sizeof rows / sizeof rows[0]; i++)
        if (strcmp(rows[i].rule, rule_id) == 0) return &rows[i];
    return NULL;
}

const char *lg_fix_why(const char *rule_id) {
    const why_row *r = find(rule_id);
    return r ? r->why : NULL;
}

bool lg_fix_rule_covered(const char *rule_id) {
    const why_row *r = find(rule_id);
    return r && r->covered;
}
