/* Why no exact rewrite removes a rule, per rule id of src/check/rules.def: what would have to
 * be known or changed, and what to do instead. Rules some pass removes (lg_pass.removes) say
 * what the pass does not cover. `litegpu fix` prints this for every blocker it leaves. */
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
     "the op has no GPU kernel and no exact rewrite into ops that have one (rewrites exist for "
     "GATHER_ND/GATHER with constant indices, DENSIFY of constants, LOG_SOFTMAX, SQUEEZE/PACK/"
     "UNPACK/SPLIT); --split runs it on the CPU"},
    {"op-no-compat-case", false,
     "ML Drift has no compatibility case for this op; no exact rewrite is known; --split runs it "
     "on the CPU"},
    {"custom-op-unsupported", false,
     "a custom op's semantics are not known to litegpu, so nothing can be rewritten exactly; "
     "--split runs it on the CPU"},
    {"op-version", true,
     "only TRANSPOSE_CONV version 4 (a fused activation) and ops whose version comes from a "
     "fused activation are rewritten; other versions come from features (int16, broadcasting "
     "forms) the delegate does not implement; --split"},
    {"tensor-rank", true,
     "the rank-5/6 region has no grouping of adjacent dimensions that reaches rank 4 and cannot "
     "be split into few enough rank-4 pieces (reduce-rank says which); --split"},
    {"tensor-dtype", false,
     "the GPU computes only float (and int32 indices); an op on this dtype has no float form "
     "with the same results; int64 is narrowed where values fit (int64-to-int32); --split"},
    {"quant-per-channel-runtime", false,
     "a per-channel quantized runtime tensor has no float form the delegate reads; dequantize "
     "at export (litegpu quantize writes per-channel weights only); --split"},
    {"fused-activation", true,
     "the op's fused activation is one the delegate refuses and no standalone op computes it "
     "on the GPU either"},
    {"broadcast", false,
     "the broadcast pattern is not one the GPU kernel implements, and materializing it "
     "(TILE) would be refused or too large"},
    {"input-count", false,
     "the op's input count is fixed by its semantics (a runtime weight where the GPU needs a "
     "constant, or a third runtime input); no exact rewrite"},
    {"const-axes", false,
     "axes computed at run time cannot be made constant without knowing their values: convert "
     "with static shapes (--input-shape) so they fold"},
    {"dynamic-tensor", false,
     "a shape known only at run time: convert with --input-shape so shapes are static; "
     "otherwise --split"},
    {"identical-inputs", false,
     "x OP x with the same tensor twice: no rewrite yet (an exact one exists: x*x -> SQUARE, "
     "x+x -> x*2)"},
    {"op-params", false,
     "the op's parameters are outside what the GPU kernel implements, and no exact rewrite of "
     "this parameter form is known; --split"},
    {"resize-flags", true,
     "this combination of align_corners/half_pixel_centers has no GPU form; resize-align-corners "
     "rewrites bilinear resizes into constant matrices where sizes are static"},
    {"strided-slice-masks", false,
     "ellipsis/new-axis/shrink masks change the rank in ways the GPU slice does not; no exact "
     "rewrite yet for this mask combination"},
    {"strided-slice-reverse", false,
     "a negative-stride slice (a reversal): REVERSE_V2 is not accepted either; no exact rewrite"},
    {"slice-rank", false, "a slice of a tensor of rank other than 4 the GPU refuses; no exact rewrite yet"},
    {"transpose-perm", false,
     "a permutation the GPU TRANSPOSE refuses; reduce-rank rewrites rank-5/6 transposes, other "
     "permutations have no exact rewrite yet"},
    {"softmax-beta", true, "SOFTMAX beta != 1 on a form the rewrite does not match"},
    {"depthwise-shape", false,
     "a depthwise conv whose channel multiplier / shape the GPU kernel does not take; no exact "
     "rewrite yet (a grouped CONV_2D form exists in principle)"},
    {"mirror-pad-mode", true, "pads wider than the rewrite's slice limit; --split"},
    {"pad-shape", false, "padding along the batch axis or of a rank the GPU PAD refuses: no exact rewrite"},
    {"cast-types", false, "a CAST between types the classic delegate does not convert; --split"},
    {"compare-consumer", false,
     "a comparison whose consumers are not one CAST/SELECT to float; no exact rewrite of the "
     "consumers is known in general"},
    {"reduce-axes", false, "a reduction over axes the GPU reduce does not map; no exact rewrite yet"},
    {"mali-transpose-conv", true,
     "a TRANSPOSE_CONV form the zero-stuff rewrite does not cover (runtime weights, or "
     "quantized)"},
    {"const-only-inputs", true,
     "an op whose inputs are all constant that litegpu cannot evaluate (or would grow the file "
     "past the folding limit)"},
    {"padv2-nonzero", true,
     "the PADV2's input is not proven non-negative and the pad is not a MAX_POOL's SAME padding: "
     "a zero pad would change the result"},
    {"large-multi-axis-reduce", true, "a reduction the single-axis split does not match"},
    {"fc-2d-broadcast", true,
     "the FULLY_CONNECTED output's consumer is not a constant per-channel MUL (LayerScale), so "
     "the scale cannot be folded into the weights"},
    {"int64-tensor", true,
     "an INT64 graph input or output: changing it changes the model's contract (fix --io-int32 "
     "does, on request), or values that do not fit in int32"},
    {"gather-const-indices", true,
     "a constant-index GATHER with too many separate runs of indices to emit as slices; --split"},
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
