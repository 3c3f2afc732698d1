/* Internal to the checker: the context an op is checked in, and the helpers the rule
   files share (check.c: the driver, partitioning and the op sets; check_ops.c: the per-op
   rules of the delegates' parsers). */
#ifndef LGI_CHECK_IMPL_H
#define LGI_CHECK_IMPL_H

#include "internal.h"
#include "lg/check.h"

enum {
#define RULE(sym, id, sev, tg, kind, src, title, fix, doc) R_##sym,
#include "check/rules.def"
#undef RULE
    R_COUNT
};

extern const lg_rule_info lgc_rule_table[R_COUNT];

typedef struct opsets {
    uint8_t compat[LG_OP_MAX + 1];
    uint8_t parser[LG_TARGET_COUNT][LG_OP_MAX + 1];
} opsets;


typedef struct ck {
    const lg_model *m;
    const lg_subgraph *sg;
    uint32_t sg_index;
    lg_target target;
    const opsets *sets;
    uint8_t *is_const;      /* per tensor: constant (buffer data, or folded fp16 DEQUANTIZE) */
    int32_t *producer;      /* per tensor: producing op or -1 */
    uint32_t *n_consumers;  /* per tensor */
    uint8_t *folded;        /* per op */
    uint8_t *blocked;       /* per op: has a blocker */
    lg_finding *f;
    uint32_t n_f, cap_f;
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


LG_INTERNAL const lg_tensor *lgc_T(const ck *c, int32_t i);
/* Record a finding of rule for op x (NULL: the model); fix NULL = the rule's default. A
   blocker marks the op unsupported. Returns NULL when the rule does not apply to the target. */
LG_INTERNAL lg_finding *lgc_add(ck *c, int rule, const opx *x, const char *fix, const char *fmt, ...) LGI_PRINTF(5, 6);
LG_INTERNAL void lgc_with_tensor(lg_finding *f, int32_t t);
LG_INTERNAL const char *lgc_shp(const ck *c, int32_t t, char *buf, size_t n);  /* "[1,8,8,3]" */
LG_INTERNAL const char *lgc_tname(const ck *c, int32_t t);
LG_INTERNAL int lgc_const_int(const ck *c, int32_t t, uint32_t i, int64_t *v);
LG_INTERNAL int lgc_const_float(const ck *c, int32_t t, uint32_t i, double *v);
LG_INTERNAL int64_t lgc_numel_of(const ck *c, int32_t t);
LG_INTERNAL int lgc_is_compare(int32_t op);
LG_INTERNAL int lgc_is_q8(int t);
LG_INTERNAL int lgc_is_float(int t);
/* Is dtype t allowed for a runtime input (in = 1) or output of op on the target? */
LG_INTERNAL int lgc_dtype_ok(const ck *c, int32_t op, int t, int in, int input_pos);
/* The per-op rules (check_ops.c). */
LG_INTERNAL void lgc_check_op(ck *c, const opx *x);

#endif
