/* Internal to the checker: the context an op is checked in, and what the checker's files
 * give each other. The calls run one way, top to bottom:
 *
 *   check.c              the driver: lg_check_model, the rules every op gets (parser,
 *                        version, tensors, field rules), partitioning, the report
 *   check_tables.c       what each delegate takes: op sets, version limits, dtypes,
 *                        custom ops and composites, the fix for an unsupported op
 *   check_ops.c          the op code -> rule function table; lgc_check_op
 *   check_ops_*.c        the per-op rules, one file per op family (elementwise, conv, shape,
 *                        reduce, misc)
 *   check_quant.c        the quantized-model rules: DEQUANTIZE of integer constants, the bias
 *                        of a FULLY_CONNECTED with runtime weights, quantized graph outputs,
 *                        the stored version of a constant DEQUANTIZE
 *   check_util.c         the helpers the rules share: findings, tensors, constants,
 *                        options, input-count and broadcast checks
 *   check_rules.c        the rule table (from rules.def) and its public look-ups
 *   op_version*.c        the version TFLite's converter assigns an op (op_version.h), which
 *                        the driver compares with each delegate's maximum
 */
#ifndef LGI_CHECK_IMPL_H
#define LGI_CHECK_IMPL_H

#include <stddef.h>

#include "internal.h"
#include "lg/check.h"
#include "lg/graph.h"

enum {
#define RULE(sym, id, sev, tg, gpus, gnote, kind, src, title, fix, doc) R_##sym,
#include "check/rules.def"
#undef RULE
    R_COUNT
};

extern const lg_rule_info lgc_rule_table[R_COUNT];

typedef struct ck {
    const lg_model *m;
    const lg_subgraph *sg;
    uint32_t sg_index;
    lg_target target;
    unsigned gpus;          /* lg_gpu_mask of the checked family: a rule applies if it shares a bit */
    const lg_graph *g;      /* producers and uses of subgraph sg_index (lg/graph.h) */
    uint8_t *is_const;      /* per tensor: constant (buffer data, or folded fp16 DEQUANTIZE) */
    uint8_t *folded;        /* per op */
    uint8_t *blocked;       /* per op: has a blocker */
    lg_finding *f;
    uint32_t n_f, cap_f;
    uint32_t n_other_gpu;   /* findings left out because their rule is for other families */
    lg_status oom;
} ck;

/* The op being checked. */
typedef struct opx {
    const lg_op *op;
    int32_t idx;
    int32_t code;
    const char *name;
    int n_in;               /* non-optional inputs */
    int n_rt, n_const;      /* runtime / constant among them */
    int32_t in[16];         /* first non-optional inputs */
} opx;

/* ------------------------------------------------------------------ check_util.c */

LG_INTERNAL const lg_tensor *lgc_T(const ck *c, int32_t i);
/* The op producing tensor t (the first in op order), or -1. */
LG_INTERNAL int32_t lgc_producer(const ck *c, int32_t t);
/* How many places read t: every op input entry naming it (an op reading it twice counts
   twice) and every subgraph output entry. */
LG_INTERNAL uint32_t lgc_n_readers(const ck *c, int32_t t);
/* Record a finding of rule for op x (NULL: the model); fix NULL = the rule's default. A
   blocker marks the op unsupported. Returns NULL when the rule does not apply to the target
   or to the GPU family (the latter counted in n_other_gpu). */
LG_INTERNAL lg_finding *lgc_add(ck *c, int rule, const opx *x, const char *fix, const char *fmt, ...) LGI_PRINTF(5, 6);
/* Does rule apply to the checked target and GPU family? */
LG_INTERNAL int lgc_rule_applies(const ck *c, int rule);
LG_INTERNAL void lgc_with_tensor(lg_finding *f, int32_t t);
LG_INTERNAL const char *lgc_shp(const ck *c, int32_t t, char *buf, size_t n);  /* "[1,8,8,3]" */
LG_INTERNAL const char *lgc_tname(const ck *c, int32_t t);
LG_INTERNAL int lgc_const_int(const ck *c, int32_t t, uint32_t i, int64_t *v);
LG_INTERNAL int lgc_const_float(const ck *c, int32_t t, uint32_t i, double *v);
LG_INTERNAL int64_t lgc_numel_of(const ck *c, int32_t t);
LG_INTERNAL int lgc_is_compare(int32_t op);
LG_INTERNAL int lgc_is_q8(int t);
LG_INTERNAL int lgc_is_float(int t);

/* Exactly (rt runtime inputs, cst constant inputs, outs outputs), -1 = any; else an
   input-count finding and 0. */
LG_INTERNAL int lgc_need_io(ck *c, const opx *x, int rt, int cst, int outs);
/* Input position k (among all inputs, optional included) is a constant INT32; else a
   const-axes finding and 0. */
LG_INTERNAL int lgc_need_const_i32(ck *c, const opx *x, uint32_t k, const char *what);
/* A shape-determining input k computed at run time makes the graph dynamic (a finding). */
LG_INTERNAL void lgc_need_static(ck *c, const opx *x, uint32_t k, const char *what);
/* The options of op read as kind's struct: op->opts when the op carries kind's table,
   else (no table stored, or a table of another kind) the schema's defaults written into buf
   (size = sizeof kind's struct). Never NULL. Every read of op->opts goes through this. */
LG_INTERNAL const void *lgc_opts(const lg_op *op, lg_opts_kind kind, void *buf, size_t size);
/* "" when op carries kind's table, else a note for a finding's reason that says the values
   are the defaults: " (no Pool2DOptions stored: the schema's defaults)". */
LG_INTERNAL const char *lgc_opts_note(const lg_op *op, lg_opts_kind kind, char *buf, size_t n);
/* Do the stored shapes broadcast (lg_broadcast, the tree's one numpy rule)? The GPU's own
   narrower broadcast rules stay in the rules that apply them (check_ops_elementwise.c). */
LG_INTERNAL int lgc_broadcastable(const lg_tensor *a, const lg_tensor *b);

/* The per-op rules (check_ops_*.c), called through lgc_check_op's table. */
typedef void (*lgc_op_rule)(ck *c, const opx *x);

/* ------------------------------------------------------------------ check_tables.c */

/* Does the target's parser take builtin code op (its op list, not its per-op checks)? */
LG_INTERNAL int lgc_parser_takes(lg_target t, int32_t op);
/* Does gpu_compatibility.cc have a case for op? */
LG_INTERNAL int lgc_compat_has(int32_t op);
/* The max op version the target takes (CheckMaxSupportedOpVersion); 0 = no version check. */
LG_INTERNAL int lgc_max_version(lg_target t, int32_t op);
/* What to do instead of an op the GPU has no parser for. */
LG_INTERNAL const char *lgc_fix_for_unsupported(int32_t op);
LG_INTERNAL int lgc_custom_supported(lg_target t, const char *name);
LG_INTERNAL int lgc_composite_supported(const char *name);
/* Ops the field notes saw keep models off the phone's GPU. */
LG_INTERNAL int lgc_field_banned(int32_t op);
/* Is dtype t allowed for a runtime input (in = 1) or output of op on the target? */
LG_INTERNAL int lgc_dtype_ok(const ck *c, int32_t op, int t, int in, int input_pos);

/* ------------------------------------------------------------------ check_ops.c */

/* The per-op rules of builtin op x: its fused activation, then its table entry. */
LG_INTERNAL void lgc_check_op(ck *c, const opx *x);

/* check_ops_elementwise.c */
LG_INTERNAL void lgc_rule_unary(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_relu(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_add_mul(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_add_n(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_binary(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_cast(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_select(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_stablehlo_clamp(ck *c, const opx *x);
/* check_ops_conv.c */
LG_INTERNAL void lgc_rule_conv_2d(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_depthwise_conv_2d(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_transpose_conv(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_fully_connected(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_batch_matmul(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_pool_2d(ck *c, const opx *x);
/* check_ops_shape.c */
LG_INTERNAL void lgc_rule_pad(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_reshape(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_slice(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_transpose(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_tile(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_gather(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_split_v(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_space_depth(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_resize(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_reverse_v2(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_dynamic_update_slice(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_embedding_lookup(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_broadcast_in_dim(ck *c, const opx *x);
/* check_ops_reduce.c */
LG_INTERNAL void lgc_rule_reduce(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_cumsum(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_topk_v2(ck *c, const opx *x);
/* check_ops_misc.c */
LG_INTERNAL void lgc_rule_softmax(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_one_hot(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_lstm(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_quantize(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_dequantize(ck *c, const opx *x);
LG_INTERNAL void lgc_rule_densify(ck *c, const opx *x);

/* check_quant.c */
/* DEQUANTIZE of an integer constant the target builds in the wrong shape or cannot read. */
LG_INTERNAL void lgc_rule_dequantize_const(ck *c, const opx *x);
/* ML Drift: a FULLY_CONNECTED with runtime weights drops its constant bias. */
LG_INTERNAL void lgc_rule_fc_runtime_weights(ck *c, const opx *x);
/* Is op x judged on its stored version only (a DEQUANTIZE of a non-FLOAT16 constant)? */
LG_INTERNAL int lgc_version_from_stored(const ck *c, const opx *x);
/* The op-version-understated warning for such an op (stored <= maxv < computed). */
LG_INTERNAL void lgc_version_understated(ck *c, const opx *x, int stored, int computed, int maxv, const char *why);
/* Model-level: INT8/UINT8 graph outputs (ML Drift quantizes them on the CPU). */
LG_INTERNAL void lgc_check_quant_outputs(ck *c);

#endif
