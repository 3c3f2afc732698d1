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
    {"fused-activation", true,
     "rewritten: a fused RELU/RELU6/RELU_N1_TO_1/TANH becomes its own op; SIGN_BIT and "
     "unknown values have no standalone TFLite op"},
    {"broadcast", false,
     "no rewrite yet (an exact one exists for mixed ranks: RESHAPE the lower-rank operand "
     "to equal rank); materializing the broadcast (TILE) can be refused or too large"},
    {"input-count", true,
     "rewritten: an op whose inputs are all constant is folded; other counts are fixed by "
     "the op's semantics (a runtime weight where the GPU needs a constant); ADD_N as an "
     "ADD chain is exact but not written yet"},
    {"const-axes", true,
     "rewritten: constant INT64 axes narrowed to INT32; axes computed at run time: convert "
     "with static shapes (--input-shape) so they fold"},
    {"dynamic-tensor", false,
     "a shape known only at run time: convert with --input-shape so shapes are static; "
     "otherwise --split"},
    {"identical-inputs", false,
     "no rewrite yet: x OP x with one tensor twice (an exact one exists: pass one side "
     "through MUL(x, 1); folding x-x to 0 is not exact for inf/NaN)"},
    {"op-params", true,
     "rewritten: GATHER indices of rank >= 2 (flattened, then the result reshaped), "
     "constant-index GATHER with non-1-D indices, DEQUANTIZE of a DENSIFY, 2-D SELECT values "
     "(SELECT-free ELU); other parameter forms (invalid exports, shapes the GPU kernel lacks) "
     "have no exact rewrite: --split"},
    {"resize-flags", false,
     "align_corners with half_pixel_centers: TFLite itself refuses the combination, so "
     "there is no meaning to keep"},
    {"strided-slice-masks", true,
     "rewritten: a strided H/W subsample (AVERAGE_POOL_2D 1x1, stride s); other mask "
     "combinations: no rewrite yet (STRIDED_SLICE without masks + RESHAPE would be exact)"},
    {"strided-slice-reverse", false,
     "no rewrite yet: a reversal (slices in reverse order joined by CONCATENATION would be "
     "exact)"},
    {"slice-rank", false,
     "no rewrite yet (a RESHAPE to rank 4 around the slice would be exact)"},
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
    {"pad-shape", false,
     "no rewrite yet: padding of rank 1-2 tensors (a RESHAPE to rank 4 would be exact); "
     "padding along the batch axis has no GPU form"},
    {"cast-types", false,
     "the CAST between these types is the computation itself: --split"},
    {"compare-consumer", false,
     "no rewrite yet (duplicating the comparison for each consumer would be exact)"},
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
