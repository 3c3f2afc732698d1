/* The op table: one entry per builtin operator code and per known custom op, assembled from
 * the family .def files (see ops_impl.h for the row format). */
#include "ops/ops_impl.h"
#include "ops/infer_conv.h"
#include "ops/infer_elementwise.h"
#include "ops/infer_shape.h"

#define OPD(N, FAM, OPTS, MIN_IN, MAX_IN, MIN_OUT, MAX_OUT, OPT_IN, DT, FLAGS, INFER)              \
    [LG_OP_##N] = {#N, LG_OP_##N, LG_FAM_##FAM, LG_OPTS_##OPTS, MIN_IN, MAX_IN, MIN_OUT, MAX_OUT, \
                   OPT_IN, LG_DT_##DT, FLAGS, INFER},
#define OPC(NAME, FAM, MIN_IN, MAX_IN, MIN_OUT, MAX_OUT, OPT_IN, DT, FLAGS, INFER)
static const lg_op_info builtin_table[LG_OP_MAX + 1] = {
#include "ops/elementwise.def"
#include "ops/stablehlo.def"
#include "ops/shape.def"
#include "ops/conv.def"
#include "ops/misc.def"
#include "ops/custom.def"
};
#undef OPD
#undef OPC
_Static_assert(sizeof builtin_table / sizeof builtin_table[0] == LG_OP_MAX + 1,
               "one op table entry slot per builtin code");

#define OPD(N, FAM, OPTS, MIN_IN, MAX_IN, MIN_OUT, MAX_OUT, OPT_IN, DT, FLAGS, INFER)
#define OPC(NAME, FAM, MIN_IN, MAX_IN, MIN_OUT, MAX_OUT, OPT_IN, DT, FLAGS, INFER)                \
    {NAME, LG_OP_CUSTOM, LG_FAM_##FAM, LG_OPTS_NONE, MIN_IN, MAX_IN, MIN_OUT, MAX_OUT, OPT_IN,     \
     LG_DT_##DT, FLAGS, INFER},
static const lg_op_info custom_table[] = {
#include "ops/custom.def"
    {NULL, 0, LG_FAM_OTHER, LG_OPTS_NONE, 0, 0, 0, 0, 0, LG_DT_ANY, 0, NULL}};
#undef OPD
#undef OPC

/* Every row's arity is well formed: checked at compile time. */
#define OPD(N, FAM, OPTS, MIN_IN, MAX_IN, MIN_OUT, MAX_OUT, OPT_IN, DT, FLAGS, INFER)              \
    _Static_assert((MIN_IN) <= (MAX_IN) && (MIN_OUT) <= (MAX_OUT), #N ": min arity above max");
#define OPC(NAME, FAM, MIN_IN, MAX_IN, MIN_OUT, MAX_OUT, OPT_IN, DT, FLAGS, INFER)                \
    _Static_assert((MIN_IN) <= (MAX_IN) && (MIN_OUT) <= (MAX_OUT), NAME ": min arity above max");
#include "ops/elementwise.def"
#include "ops/stablehlo.def"
#include "ops/shape.def"
#include "ops/conv.def"
#include "ops/misc.def"
#include "ops/custom.def"
#undef OPD
#undef OPC

const lg_op_info *lg_op_info_builtin(int32_t code) {
    if (code < 0 || code > LG_OP_MAX) return NULL;
    return &builtin_table[code];
}

const lg_op_info *lg_op_info_custom(const char *custom_code) {
    if (!custom_code) return NULL;
    for (const lg_op_info *e = custom_table; e->name; e++)
        if (strcmp(e->name, custom_code) == 0) return e;
    return NULL;
}

const lg_op_info *lg_op_info_of(const lg_model *m, const lg_op *op) {
    int32_t code = lg_op_builtin(m, op);
    if (code < 0) return NULL;
    if (code == LG_OP_CUSTOM) return lg_op_info_custom(m->opcodes[op->opcode_index].custom_code);
    const lg_op_info *e = lg_op_info_builtin(code);
    return e && e->name ? e : NULL;
}

uint32_t lg_op_custom_count(void) { return (uint32_t)(sizeof custom_table / sizeof custom_table[0] - 1); }

const lg_op_info *lg_op_custom_at(uint32_t i) {
    return i < lg_op_custom_count() ? &custom_table[i] : NULL;
}

const char *lg_op_family_name(lg_op_family f) {
    static const char *const names[LG_FAM_COUNT] = {
        "other", "elementwise", "conv", "pool", "reduce", "norm", "shape",
        "resize", "quant", "rnn", "control", "stablehlo", "custom"};
    return (unsigned)f < LG_FAM_COUNT ? names[f] : "?";
}
