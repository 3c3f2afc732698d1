/*
 * litegpu tile: spatial tiling analysis of a model (issue #14 item 5; the handbook
 * "Model Refactoring for Software Engineers", chapter 9: halos, receptive fields, the
 * GroupNorm counterexample, causal streaming state).
 *
 * For every output of subgraph 0 the analysis answers: can the output be computed tile by
 * tile from input crops (exact tiling), how large is the input crop for one output position
 * (the receptive field RF) and for a tile of n positions ((n-1)*J + RF, J the jump: input
 * samples per output step), how far the crop reaches before and after the tile (the halo,
 * left and right separately: a causal 1-D model reaches only back), and which op stops exact
 * tiling (the first one in execution order that the output depends on: a reduction over a
 * spatial axis such as global pooling or a norm over space, attention, a reshape that
 * merges space, a constant that varies over space...).
 *
 * Spatial axes. Every tensor axis is labelled with the model-input axis it carries (through
 * TRANSPOSE, RESHAPEs that only add or drop size-1 axes, elementwise ops, convs...). The
 * input axes that reach a convolution or pool at its H or W position with size > 1 are the
 * spatial axes; a model with none uses H,W of a rank-4 input (NHWC) or T of a rank-3 input
 * ([N,T,C]). The analysis is a per-axis interval ("demand") propagation from the output back
 * to the inputs, with each op's exact index map (TFLite's kernels: conv/pool
 * out->in = o*s - pad_before + j*d, j < k; SAME padding pad_total = max((out-1)*s +
 * (k-1)*d + 1 - in, 0), pad_before = pad_total/2, tensorflow/lite/kernels/padding.h).
 *
 * The library never prints: lg_tile_analyze fills a report; lg_tile_verify runs real tiled
 * sub-models (a copy of the model for each tile, cut to the tile's input crop) and measures.
 */
#ifndef LG_TILE_H
#define LG_TILE_H

#include "lg/lg.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LG_TILE_MAX_AXES 4
#define LG_TILE_MAX_BREAKERS 16
#define LG_TILE_MAX_LAYERS 64

/* Why an op stops exact tiling. */
typedef enum lg_tile_why {
    LG_TILE_REDUCE_SPACE = 1,   /* MEAN/SUM/REDUCE_* over a spatial axis (global pool, norm) */
    LG_TILE_ATTENTION,          /* BATCH_MATMUL contracting a spatial axis, SOFTMAX over one */
    LG_TILE_FC_SPACE,           /* FULLY_CONNECTED whose contraction axis is spatial */
    LG_TILE_RESHAPE_SPACE,      /* RESHAPE merging/splitting a spatial axis with another */
    LG_TILE_COORD_CONST,        /* a constant operand that varies along a spatial axis */
    LG_TILE_GATHER_SPACE,       /* GATHER / GATHER_ND / selects along a spatial axis */
    LG_TILE_RESIZE_COORD,       /* align_corners or a non-integer scale: coordinates change */
    LG_TILE_UNANALYSED          /* an op the analysis does not follow along space */
} lg_tile_why;
const char *lg_tile_why_name(lg_tile_why w);  /* "reduce_over_space", "attention", ... */

typedef struct lg_tile_breaker {
    int32_t op;            /* op index in subgraph 0 */
    const char *op_name;   /* "MEAN" (static or owned by the model) */
    int32_t tensor;        /* the input tensor that carries the spatial axis */
    const char *tensor_name;
    lg_tile_why why;
    char detail[160];      /* "reduces axes [1,2] (H,W of input 0)" */
} lg_tile_breaker;

/* One spatial axis of one model input, as seen from one output. */
typedef struct lg_tile_axis {
    int32_t input;         /* model input index */
    int32_t input_axis;    /* axis of that input (e.g. 2 = H of an NCHW input) */
    char name[8];          /* "H", "W", "T" */
    int32_t out_axis;      /* the output's axis carrying it; -1 when the output has none */
    int32_t in_size, out_size;
    /* Receptive field in input samples (max over output positions), the jump as a fraction
       (jump_num/jump_den input samples per output step: 2/1 after a stride 2, 1/2 after a
       2x upsampling), and the halo: input samples needed before o*J and after it. */
    int32_t rf;
    int32_t jump_num, jump_den;
    int32_t halo_left, halo_right;
    bool causal;           /* halo_right == 0, halo_left > 0, an integer jump (no upsampling) */
} lg_tile_axis;

/* A convolution on a causal 1-D path: its streaming state (k-1)*d samples of its input. */
typedef struct lg_tile_layer {
    int32_t op;
    int32_t kernel, dilation, stride;
    int32_t state_samples;     /* (k-1)*d */
    int32_t channels;          /* channels of the layer's input */
} lg_tile_layer;

typedef struct lg_tile_output {
    int32_t tensor;
    const char *name;
    bool exact;
    uint32_t n_breakers;   /* ops the output depends on that stop exact tiling (op order; the
                              first LG_TILE_MAX_BREAKERS kept, n_breakers counts them all) */
    lg_tile_breaker breakers[LG_TILE_MAX_BREAKERS];
    /* the first inexact op: the first breaker that surely changes the result when tiled
       (reduce, attention, dense over space, position constant, selection, resize); when
       there is none, the first op not analysed, then the first RESHAPE merging space (only a
       layout change); -1 if none */
    int32_t first;
    uint32_t n_axes;
    lg_tile_axis axes[LG_TILE_MAX_AXES];
    /* streaming (one causal spatial axis, the others of size 1) */
    bool streaming;
    uint32_t n_layers;
    lg_tile_layer layers[LG_TILE_MAX_LAYERS];
    int64_t state_samples, state_values;
} lg_tile_output;

typedef struct lg_tile_report {
    uint32_t n_outputs;
    lg_tile_output *outputs;
} lg_tile_report;

/* Analyse subgraph 0 of m. *out is allocated (lg_tile_report_free). Errors: a model whose
   shapes are not static, or a malformed graph (LG_ERR_INVALID_ARG naming the op). */
lg_status lg_tile_analyze(const lg_model *m, lg_tile_report **out, lg_error *err);
void lg_tile_report_free(lg_tile_report *r);

/* The input crop one output tile needs, per analysed axis of output `out`: the tile is
   [o0[a], o0[a] + n[a]) on axis a (axes as in the report); lo/hi (inclusive) the input
   interval, not clipped to the input (it reaches past the border into the model's own
   padding). LG_ERR_INVALID_ARG when the output is not exact. */
lg_status lg_tile_input_crop(const lg_model *m, const lg_tile_report *r, uint32_t out,
                             const int32_t *o0, const int32_t *n, int32_t *lo, int32_t *hi,
                             lg_error *err);

/* --verify: run the full model once, then for each tile of the tile grid (tile[a] positions
   per axis a of the output's analysed axes; 0 = half the output, rounded up) build a copy of
   the model cut to that tile's input crop (every op's spatial extent re-derived, SAME padding
   turned into explicit zero padding applied only where the tile touches the image border,
   the model's PAD ops cut likewise, SLICEs where a consumer needs less than its producer
   computes), run it on the crop of the same input and compare with the tile of the full
   output. For an inexact model the sub-model does what a naive tiler does (a MEAN over space
   sees only the tile): the difference shows the tiling is wrong. */
typedef struct lg_tile_verify_options {
    uint32_t output;                   /* which output */
    int32_t tile[LG_TILE_MAX_AXES];    /* output tile size per analysed axis; 0 = half */
    const float *input;                /* input 0 (float32, its numel); NULL = pattern fill */
} lg_tile_verify_options;

typedef struct lg_tile_verify_result {
    uint32_t n_tiles;
    double max_abs;        /* over every tile: max |full - tiled| */
    double ref_max_abs;    /* max |full| over the output */
    double max_rel;        /* max_abs / ref_max_abs (0 when both 0) */
    int64_t max_crop_elems;   /* the largest input crop, in elements */
    int64_t full_input_elems;
} lg_tile_verify_result;

/* LG_ERR_UNSUPPORTED (naming the op) when a sub-model cannot be cut: more than one model
   input, a non-float input, an op on the path this cutter does not rewrite (transpose conv,
   resize, average pool with SAME padding at the border, mirror padding...). */
lg_status lg_tile_verify(const lg_model *m, const lg_tile_report *r,
                         const lg_tile_verify_options *o, lg_tile_verify_result *res,
                         lg_error *err);

#ifdef __cplusplus
}
#endif
#endif
