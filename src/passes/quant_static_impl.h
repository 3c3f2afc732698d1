/* Internal to int8-static (quant_static.c, quant_static_emit.c): the per-op table and the
   plan (which op computes in int8, the parameters of every int8 tensor) the edits follow. */
#ifndef LGI_QUANT_STATIC_IMPL_H
#define LGI_QUANT_STATIC_IMPL_H

#include "lg/graph.h"
#include "passes/quant_static.h"

typedef enum lgqs_kind { LGQS_WEIGHTED, LGQS_BINARY, LGQS_UNARY, LGQS_MOVE, LGQS_JOIN } lgqs_kind;

/* A row of quant_static_ops.def. */
typedef struct lgqs_op {
    int32_t code;
    lgqs_kind kind;
    int8_t data_slot;          /* UNARY / MOVE: the input that carries the data */
    int8_t axis;               /* WEIGHTED: the weights' output-channel axis */
    float fixed_scale;         /* > 0: the output's parameters are fixed */
    int32_t fixed_zp;
    int8_t act;                /* 1: fused activation NONE/RELU/RELU6/RELU_N1_TO_1; 2: NONE only */
    const char *source;
} lgqs_op;

/* The row of builtin `code`, or NULL (the op stays float). */
LG_INTERNAL const lgqs_op *lgqs_find(int32_t code);

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
    uint8_t *op_int8;          /* computes in int8 */
    char (*why)[160];          /* not int8: why ("" for op_const ops) */
    /* per tensor */
    uint8_t *cderived;         /* a constant, or computed from constants only */
    uint8_t *member;           /* has int8 parameters (read or written in int8 by an op, or int8 I/O) */
    uint8_t *derived;          /* its parameters are its group's (MOVE / JOIN outputs) */
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

/* The edits (quant_static_emit.c): the int8 model of the plan. */
LG_INTERNAL lg_status lgqs_emit(const lgqs_plan *p, lg_model **out, int32_t *map, lg_quant_report *rep, lg_error *err);

#endif
