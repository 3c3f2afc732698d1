/* Internal to int8-static (quant_static.c, quant_static_emit.c): the per-op table and the
   plan (which op computes in int8, the parameters of every int8 tensor) the edits follow. */
#ifndef LGI_QUANT_STATIC_IMPL_H
#define LGI_QUANT_STATIC_IMPL_H

#include "lg/graph.h"
#include "passes/quant_static.h"

typedef enum lgqs_kind { LGQS_WEIGHTED, LGQS_BINARY, LGQS_UNARY, LGQS_MOVE, LGQS_JOIN, LGQS_SAME } lgqs_kind;

/* A row of quant_static_ops.def. */
typedef struct lgqs_op {
    int32_t code;
    lgqs_kind kind;
    int8_t data_slot;          /* WEIGHTED / UNARY / MOVE: the input that carries the data */
    int8_t axis;               /* WEIGHTED: the weights' output-channel axis */
    float fixed_scale;         /* > 0: the output's parameters are fixed */
    int32_t fixed_zp;
    int8_t act;                /* 1: fused activation NONE/RELU/RELU6/RELU_N1_TO_1; 2: NONE only */
    const char *source;
} lgqs_op;

/* The row of builtin `code`, or NULL (the op stays float). */
LG_INTERNAL const lgqs_op *lgqs_find(int32_t code);
/* WEIGHTED rows: the weights are input 1, the bias follows the data (CONV_2D: data 0, bias 2;
   TRANSPOSE_CONV: output_shape 0, data 2, bias 3). */
static inline uint32_t lgqs_bias_slot(const lgqs_op *e) { return e->data_slot == 2 ? 3u : 2u; }

/* A JOIN input whose parameters are fixed elsewhere: requantized into the join's. */
typedef struct lgqs_requant {
    int32_t op;
    uint32_t slot;
    int32_t tensor;            /* the input (src index) */
} lgqs_requant;

typedef struct lgqs_plan {
    const lg_model *src;
    const lg_subgraph *sg;
    lg_graph *g;
    const lgq_calib *cal;
    const lg_quant_options *o;
    const uint8_t *keep_float;
    uint32_t n_ops, n_tensors;
    /* per op */
    uint8_t *op_const;         /* every input is a constant or folded: computed at load */
    uint8_t *eligible;         /* in the table and every constraint holds */
    uint8_t *op_int8;          /* computes in int8 (a folded clamp: as part of its producer) */
    /* clamps folded into their producer (quant_static_fold.c): per op */
    int32_t *fold_z;           /* a producer: the clamp chain's last output, which it writes; -1 */
    int32_t *fold_of;          /* a clamp op of a chain: its producer; -1 */
    float (*fold_ab)[2];       /* a producer: the chain's clamp [a, b] (its own act included) */
    int8_t *fold_act;          /* a producer: the fused activation it gets (once the params hold) */
    uint8_t *fold_off;         /* a producer: the fold does not hold (refused after the params) */
    char (*why)[160];          /* not int8: why ("" for op_const ops) */
    /* per tensor */
    uint8_t *cderived;         /* a constant, or computed from constants only */
    uint8_t *member;           /* has int8 parameters (read or written in int8 by an op, or int8 I/O) */
    uint8_t *derived;          /* its parameters are its group's (MOVE / JOIN outputs) */
    uint8_t *gone;             /* a tensor inside a folded clamp chain: not in the result */
    float *min_scale;          /* per group root: the smallest scale allowed (a constant operand
                                  widened for XNNPACK's scale ratios); 0: none */
    int32_t *parent;           /* union-find of the groups sharing parameters */
    float *scale;              /* per member: its group's parameters */
    int32_t *zp;
    lgqs_requant *rq; uint32_t n_rq;
} lgqs_plan;

/* Decide the int8 ops and every member's parameters. p's inputs (src, cal, o, keep_float) must
   be set; the rest is allocated (lgqs_plan_free). */
LG_INTERNAL lg_status lgqs_plan_make(lgqs_plan *p, lg_error *err);
LG_INTERNAL void lgqs_plan_free(lgqs_plan *p);
/* The group (root tensor) of t. */
LG_INTERNAL int32_t lgqs_root(const lgqs_plan *p, int32_t t);
/* Input `slot` of an int8 op of row e carries an activation (quantized with its tensor's
   parameters), not weights, a bias, a pad value or an integer operand. */
LG_INTERNAL bool lgqs_act_slot(const lgqs_op *e, int32_t code, uint32_t slot);
/* A FLOAT32 runtime tensor (not constant, not folded, not a variable). */
LG_INTERNAL bool lgqs_is_act(const lgqs_plan *p, int32_t t);
/* The fused activation of op (0 when its options have none). */
LG_INTERNAL int lgqs_fused_act(const lg_op *op);
/* Output k of op i as the int8 model has it: a producer with a folded chain writes the chain's
   last tensor. */
LG_INTERNAL int32_t lgqs_output(const lgqs_plan *p, uint32_t i, uint32_t k);
/* The fold is in force for producer i (and its chain ops): i computes in int8 and the fold
   was not refused. */
LG_INTERNAL bool lgqs_fold_active(const lgqs_plan *p, uint32_t i);
/* Op i is a clamp of an active chain: its producer computes it, the op is not written. */
LG_INTERNAL bool lgqs_folded(const lgqs_plan *p, uint32_t i);

/* The folds (quant_static_fold.c). lgqs_fold_find: after the eligibility, the chains of clamp
   ops (MAXIMUM / MINIMUM with a constant scalar, RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1) that
   follow an eligible producer through single-use tensors; lgqs_fold_check: once the parameters
   are known, the fused activation each producer gets, or the fold refused (false: none was). */
LG_INTERNAL void lgqs_fold_find(lgqs_plan *p);
LG_INTERNAL bool lgqs_fold_check(lgqs_plan *p);
/* TFLite's and XNNPACK's int8 range of fused activation act with output parameters (s, zp)
   (kernel_util.cc CalculateActivationRangeQuantized; XNNPACK's delegate: lrintf of the float
   bound / s + zp, clamped): *lo, *hi; false for an activation the int8 kernels do not take. */
LG_INTERNAL bool lgqs_act_bounds(int act, bool xnnpack, float s, int32_t zp, int32_t *lo, int32_t *hi);

/* The edits (quant_static_emit.c): the int8 model of the plan. */
LG_INTERNAL lg_status lgqs_emit(const lgqs_plan *p, lg_model **out, int32_t *map, lg_quant_report *rep, lg_error *err);

#endif
