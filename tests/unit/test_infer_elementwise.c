/* Shape inference of the elementwise and STABLEHLO rows (src/ops/infer_elementwise.c,
   elementwise.def, stablehlo.def). Every case builds a one-op model with the builder and
   calls lg_op_infer (input shapes may be overridden to make dimensions or ranks unknown).
   Expected shapes are derived by hand from the ops' definitions (derivations in comments
   where not obvious). The last tests build small static models for every op of the family
   with a reference kernel and check that the interpreter's prepared output shapes equal
   the inferred ones (and the hand-derived ones). */
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "lg/ops.h"
#include "lg/run.h"
#include "tf.h"

/* ------------------------------------------------------------------ the rig */

typedef struct tin {
    lg_dtype type;
    lg_dims shape;
    const void *data; /* constant data, or NULL for a runtime tensor */
    uint64_t nbytes;
} tin;

#define RT(t, ...) ((tin){t, LG_DIMS(__VA_ARGS__), NULL, 0})
#define RT0(t) ((tin){t, LG_SCALAR, NULL, 0})
#define CI32(sh, ...) \
    ((tin){LG_INT32, sh, (const int32_t[]){__VA_ARGS__}, sizeof((const int32_t[]){__VA_ARGS__})})

typedef struct res {
    lg_status st;
    lg_error err;
    lg_shape out[4];
    int8_t type[4];
} res;

/* One op `code` on inputs `in` with n_out outputs stored as out_stored (FLOAT32), inferred
   with input shapes `ovr` when non-NULL. */
static res infer_op(int32_t code, lg_opts_kind kind, const void *opts, const tin *in,
                    uint32_t n_in, const lg_shape *ovr, uint32_t n_out, lg_dims out_stored) {
    res r;
    memset(&r, 0, sizeof r);
    lg_model *m = NULL;
    r.st = lg_model_new(NULL, NULL, &m, &r.err);
    if (r.st != LG_OK) return r;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int32_t ins[8], outs[4];
    for (uint32_t i = 0; i < n_in; i++) {
        char nm[8] = {'i', (char)('0' + i), 0};
        ins[i] = in[i].data ? lg_b_const(&b, nm, in[i].type, in[i].shape, in[i].data, in[i].nbytes)
                            : lg_b_tensor(&b, nm, in[i].type, in[i].shape);
    }
    for (uint32_t o = 0; o < n_out; o++) {
        char nm[8] = {'o', (char)('0' + o), 0};
        outs[o] = lg_b_tensor(&b, nm, LG_FLOAT32, out_stored);
    }
    lg_b_op_opts(&b, code, (lg_dims){ins, n_in}, (lg_dims){outs, n_out}, kind, opts);
    if (b.status != LG_OK) {
        r.st = b.status;
        r.err = b.err;
    } else {
        r.st = lg_op_infer(m, 0, 0, ovr, LG_INFER_STATIC, r.out, r.type, 4, &r.err);
    }
    lg_model_free(m);
    return r;
}

static lg_shape mk(lg_dims d) {
    lg_shape s;
    memset(&s, 0, sizeof s);
    s.rank = (int32_t)d.n;
    for (uint32_t i = 0; i < d.n; i++) s.dim[i] = d.v[i];
    return s;
}
#define SH(...) mk(LG_DIMS(__VA_ARGS__))
static lg_shape unknown_rank(void) {
    lg_shape s;
    memset(&s, 0, sizeof s);
    s.rank = -1;
    return s;
}

static void check_shape(const char *file, int line, const lg_shape *got, lg_dims want) {
    bool ok = got->rank == (int32_t)want.n;
    for (uint32_t i = 0; ok && i < want.n; i++) ok = got->dim[i] == want.v[i];
    if (!ok) {
        char a[96];
        lg_shape w = mk(want);
        char b[96];
        tf_fail(file, line, "inferred %s, expected %s", lg_shape_str(got, a, sizeof a),
                lg_shape_str(&w, b, sizeof b));
    }
}
#define CHECK_SHAPE(got, ...) check_shape(__FILE__, __LINE__, &(got), LG_DIMS(__VA_ARGS__))
#define CHECK_SCALAR(got) check_shape(__FILE__, __LINE__, &(got), LG_SCALAR)
#define CHECK_RES_OK(r)                                                                     \
    do {                                                                                    \
        if ((r).st != LG_OK) tf_fail(__FILE__, __LINE__, "infer failed: %s", (r).err.msg);  \
    } while (0)
#define CHECK_RES_FAIL(r, substr)                                                           \
    do {                                                                                    \
        if ((r).st != LG_ERR_INVALID_ARG)                                                   \
            tf_fail(__FILE__, __LINE__, "status %d, expected INVALID_ARG", (int)(r).st);    \
        else if (!strstr((r).err.msg, substr))                                              \
            tf_fail(__FILE__, __LINE__, "message \"%s\" lacks \"%s\"", (r).err.msg, substr); \
    } while (0)

/* Shorthands: unary/binary ops without options, stored output [1]. */
static res un(int32_t code, tin a) {
    return infer_op(code, LG_OPTS_NONE, NULL, &a, 1, NULL, 1, LG_DIMS(1));
}
static res bin(int32_t code, tin a, tin b) {
    tin in[2] = {a, b};
    return infer_op(code, LG_OPTS_NONE, NULL, in, 2, NULL, 1, LG_DIMS(1));
}
static res bin_ovr(int32_t code, lg_shape a, lg_shape b) {
    tin in[2] = {RT(LG_FLOAT32, 1), RT(LG_FLOAT32, 1)};
    lg_shape ov[2] = {a, b};
    return infer_op(code, LG_OPTS_NONE, NULL, in, 2, ov, 1, LG_DIMS(1));
}

/* ------------------------------------------------------------------ the rows */

static const int32_t my_ops[] = {
    LG_OP_ADD, LG_OP_SUB, LG_OP_MUL, LG_OP_DIV, LG_OP_FLOOR_DIV, LG_OP_FLOOR_MOD, LG_OP_POW,
    LG_OP_MAXIMUM, LG_OP_MINIMUM, LG_OP_SQUARED_DIFFERENCE, LG_OP_ATAN2, LG_OP_BITWISE_XOR,
    LG_OP_RIGHT_SHIFT, LG_OP_PRELU, LG_OP_ADD_N, LG_OP_ABS, LG_OP_NEG, LG_OP_EXP, LG_OP_LOG,
    LG_OP_SIN, LG_OP_COS, LG_OP_SQRT, LG_OP_RSQRT, LG_OP_SQUARE, LG_OP_FLOOR, LG_OP_CEIL,
    LG_OP_ROUND, LG_OP_SIGN, LG_OP_LOGISTIC, LG_OP_TANH, LG_OP_RELU, LG_OP_RELU6,
    LG_OP_RELU_N1_TO_1, LG_OP_RELU_0_TO_1, LG_OP_LEAKY_RELU, LG_OP_ELU, LG_OP_HARD_SWISH,
    LG_OP_GELU, LG_OP_ZEROS_LIKE, LG_OP_LOGICAL_NOT, LG_OP_LESS, LG_OP_LESS_EQUAL,
    LG_OP_GREATER, LG_OP_GREATER_EQUAL, LG_OP_EQUAL, LG_OP_NOT_EQUAL, LG_OP_LOGICAL_AND,
    LG_OP_LOGICAL_OR, LG_OP_SELECT, LG_OP_SELECT_V2, LG_OP_CAST, LG_OP_QUANTIZE,
    LG_OP_DEQUANTIZE, LG_OP_FAKE_QUANT, LG_OP_DENSIFY, LG_OP_SOFTMAX, LG_OP_LOG_SOFTMAX,
    LG_OP_L2_NORMALIZATION, LG_OP_LOCAL_RESPONSE_NORMALIZATION, LG_OP_MEAN, LG_OP_SUM,
    LG_OP_REDUCE_PROD, LG_OP_REDUCE_MAX, LG_OP_REDUCE_MIN, LG_OP_REDUCE_ANY, LG_OP_REDUCE_ALL,
    LG_OP_ARG_MAX, LG_OP_ARG_MIN, LG_OP_CUMSUM, LG_OP_IMAG, LG_OP_REAL, LG_OP_COMPLEX_ABS,
};

LG_TEST(infer_ew_rows_well_formed) {
    int n = 0;
    for (size_t k = 0; k < sizeof my_ops / sizeof my_ops[0]; k++, n++) {
        const lg_op_info *e = lg_op_info_builtin(my_ops[k]);
        CHECK(e && e->name);
        if (!e || !e->name) continue;
        CHECK_EQ_INT(e->code, my_ops[k]);
        CHECK(e->opts_kind == LG_OPTS_NONE || lg_opts_name(e->opts_kind) != NULL);
        CHECK(e->min_in <= e->max_in && e->min_out <= e->max_out);
        CHECK(e->infer != NULL); /* every elementwise row is inferred */
    }
    /* every STABLEHLO_* builtin has a row of the stablehlo family with options of the
       BuiltinOptions2 union or none */
    for (int32_t code = 0; code <= LG_OP_MAX; code++) {
        const lg_op_info *e = lg_op_info_builtin(code);
        if (!e || !e->name || strncmp(e->name, "STABLEHLO_", 10) != 0) continue;
        n++;
        CHECK_EQ_INT(e->family, LG_FAM_STABLEHLO);
        CHECK(e->opts_kind == LG_OPTS_NONE ||
              (e->opts_kind > LG_OPTS_2_BASE && lg_opts_name(e->opts_kind) != NULL));
        CHECK(e->min_in <= e->max_in && e->min_out <= e->max_out);
    }
    /* 72 elementwise rows + 46 STABLEHLO_ rows (162..202, 204, 206..209) */
    CHECK_EQ_INT(n, 72 + 46);
    for (int32_t code = LG_OP_STABLEHLO_LOGISTIC; code <= LG_OP_STABLEHLO_CASE; code++) {
        if (code == LG_OP_DILATE || code == LG_OP_REDUCE_WINDOW) continue;
        const lg_op_info *e = lg_op_info_builtin(code);
        CHECK(e && e->name && strncmp(e->name, "STABLEHLO_", 10) == 0);
    }
    /* a few rows checked against the kernels / the corpus */
    CHECK_EQ_INT(lg_op_info_builtin(LG_OP_ADD)->opts_kind, LG_OPTS_ADD_OPTIONS);
    CHECK_EQ_INT(lg_op_info_builtin(LG_OP_MINIMUM)->opts_kind, LG_OPTS_MAXIMUM_MINIMUM_OPTIONS);
    CHECK_EQ_INT(lg_op_info_builtin(LG_OP_MEAN)->opts_kind, LG_OPTS_REDUCER_OPTIONS);
    CHECK_EQ_INT(lg_op_info_builtin(LG_OP_LOGISTIC)->opts_kind, LG_OPTS_NONE);
    CHECK_EQ_INT(lg_op_info_builtin(LG_OP_STABLEHLO_PAD)->opts_kind, LG_OPTS_STABLEHLO_PAD_OPTIONS);
    CHECK_EQ_INT(lg_op_info_builtin(LG_OP_ADD_N)->min_in, 2);
    CHECK_EQ_INT(lg_op_info_builtin(LG_OP_ADD_N)->max_in, LG_ARITY_ANY);
    CHECK_EQ_INT(lg_op_info_builtin(LG_OP_LESS)->dtype, LG_DT_BOOL);
    CHECK_EQ_INT(lg_op_info_builtin(LG_OP_MUL)->dtype, LG_DT_ANY);     /* INT16 -> INT8 */
    CHECK_EQ_INT(lg_op_info_builtin(LG_OP_SOFTMAX)->dtype, LG_DT_ANY); /* INT8 -> INT16 */
    CHECK(lg_op_info_builtin(LG_OP_ADD)->flags & LG_OPF_FUSED_ACT);
    CHECK(lg_op_info_builtin(LG_OP_ADD)->flags & LG_OPF_BROADCAST);
    CHECK(!(lg_op_info_builtin(LG_OP_STABLEHLO_ADD)->flags & LG_OPF_BROADCAST));
}

/* ------------------------------------------------------------------ binary broadcasting */

LG_TEST(infer_ew_binary_broadcast) {
    /* [2,1,3] vs [4,1], aligned at the end: 3|1 -> 3, 1|4 -> 4, 2|- -> 2 */
    res r = bin(LG_OP_ADD, RT(LG_FLOAT32, 2, 1, 3), RT(LG_FLOAT32, 4, 1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 4, 3);
    CHECK_EQ_INT(r.type[0], LG_FLOAT32); /* SAME */
    r = bin(LG_OP_SQUARED_DIFFERENCE, RT(LG_FLOAT32, 5), RT0(LG_FLOAT32));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 5);
    /* comparisons: broadcast, BOOL */
    r = bin(LG_OP_LESS, RT(LG_INT32, 2, 3), RT(LG_INT32, 3));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 3);
    CHECK_EQ_INT(r.type[0], LG_BOOL);
    /* MUL's type is not inferred (ANY) */
    r = bin(LG_OP_MUL, RT(LG_INT16, 2), RT(LG_INT16, 2));
    CHECK_EQ_INT(r.type[0], -1);
    /* contradiction, and the near miss */
    r = bin(LG_OP_SUB, RT(LG_FLOAT32, 4), RT(LG_FLOAT32, 5));
    CHECK_RES_FAIL(r, "broadcast");
    CHECK(strstr(r.err.msg, "SUB") != NULL);
    r = bin(LG_OP_SUB, RT(LG_FLOAT32, 4), RT(LG_FLOAT32, 1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 4);
}

LG_TEST(infer_ew_binary_dynamic) {
    /* unknown vs known 2 -> 2; unknown vs 1 -> unknown */
    res r = bin_ovr(LG_OP_MAXIMUM, SH(-1, 3), SH(2, 1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 3);
    r = bin_ovr(LG_OP_DIV, SH(-1, 3), SH(1, 3));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], -1, 3);
    r = bin_ovr(LG_OP_ADD, unknown_rank(), SH(2, 3));
    CHECK_RES_OK(r);
    CHECK_EQ_INT(r.out[0].rank, -1);
    r = bin_ovr(LG_OP_ADD, SH(-1, 4), SH(3));
    CHECK_RES_FAIL(r, "broadcast");
}

LG_TEST(infer_ew_prelu_add_n) {
    /* alpha [1,1,8] against [1,4,4,8]: [1,4,4,8], the input's shape */
    res r = bin(LG_OP_PRELU, RT(LG_FLOAT32, 1, 4, 4, 8), RT(LG_FLOAT32, 1, 1, 8));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 1, 4, 4, 8);
    /* alpha [2,4,4,8] would grow the batch: HaveSameShapes(input, output) fails */
    r = bin(LG_OP_PRELU, RT(LG_FLOAT32, 1, 4, 4, 8), RT(LG_FLOAT32, 2, 4, 4, 8));
    CHECK_RES_FAIL(r, "grows");
    r = bin(LG_OP_PRELU, RT(LG_FLOAT32, 4, 8), RT(LG_FLOAT32, 1, 4, 8));
    CHECK_RES_FAIL(r, "rank");

    tin three[3] = {RT(LG_FLOAT32, 2, 3), RT(LG_FLOAT32, 2, 3), RT(LG_FLOAT32, 2, 3)};
    r = infer_op(LG_OP_ADD_N, LG_OPTS_NONE, NULL, three, 3, NULL, 1, LG_DIMS(1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 3);
    lg_shape ov[3] = {SH(2, -1), SH(-1, 3), SH(2, 3)};
    r = infer_op(LG_OP_ADD_N, LG_OPTS_NONE, NULL, three, 3, ov, 1, LG_DIMS(1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 3);
    three[2] = RT(LG_FLOAT32, 3, 2);
    r = infer_op(LG_OP_ADD_N, LG_OPTS_NONE, NULL, three, 3, NULL, 1, LG_DIMS(1));
    CHECK_RES_FAIL(r, "one shape");
    three[2] = RT(LG_FLOAT32, 1, 3); /* no broadcasting in ADD_N */
    r = infer_op(LG_OP_ADD_N, LG_OPTS_NONE, NULL, three, 3, NULL, 1, LG_DIMS(1));
    CHECK_RES_FAIL(r, "one shape");
}

/* ------------------------------------------------------------------ selection */

static res sel(int32_t code, tin c0, tin x, tin y) {
    tin in[3] = {c0, x, y};
    return infer_op(code, LG_OPTS_NONE, NULL, in, 3, NULL, 1, LG_DIMS(1));
}

LG_TEST(infer_ew_select) {
    res r = sel(LG_OP_SELECT, RT(LG_BOOL, 4), RT(LG_INT32, 4, 2), RT(LG_INT32, 4, 2));
    CHECK_RES_OK(r); /* rank-1 condition along dimension 0 */
    CHECK_SHAPE(r.out[0], 4, 2);
    CHECK_EQ_INT(r.type[0], LG_INT32); /* x's type, not the condition's */
    r = sel(LG_OP_SELECT, RT0(LG_BOOL), RT(LG_FLOAT32, 4, 2), RT(LG_FLOAT32, 4, 2));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 4, 2);
    r = sel(LG_OP_SELECT, RT(LG_BOOL, 4, 2), RT(LG_FLOAT32, 4, 2), RT(LG_FLOAT32, 4, 2));
    CHECK_RES_OK(r);
    r = sel(LG_OP_SELECT, RT(LG_BOOL, 3), RT(LG_FLOAT32, 4, 2), RT(LG_FLOAT32, 4, 2));
    CHECK_RES_FAIL(r, "condition");
    r = sel(LG_OP_SELECT, RT(LG_BOOL, 4, 1), RT(LG_FLOAT32, 4, 2), RT(LG_FLOAT32, 4, 2));
    CHECK_RES_FAIL(r, "condition"); /* SELECT (v1) does not broadcast */
    r = sel(LG_OP_SELECT, RT(LG_BOOL, 4), RT(LG_FLOAT32, 4, 2), RT(LG_FLOAT32, 4, 3));
    CHECK_RES_FAIL(r, "one shape");
}

LG_TEST(infer_ew_select_v2) {
    /* [2,1,1], [1,3,1], [1,1,4] -> [2,3,4] */
    res r = sel(LG_OP_SELECT_V2, RT(LG_BOOL, 2, 1, 1), RT(LG_INT8, 1, 3, 1), RT(LG_INT8, 1, 1, 4));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 3, 4);
    CHECK_EQ_INT(r.type[0], LG_INT8);
    r = sel(LG_OP_SELECT_V2, RT(LG_BOOL, 4, 1), RT(LG_FLOAT32, 4, 2), RT(LG_FLOAT32, 2));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 4, 2);
    r = sel(LG_OP_SELECT_V2, RT(LG_BOOL, 2), RT(LG_FLOAT32, 3), RT(LG_FLOAT32, 1));
    CHECK_RES_FAIL(r, "broadcast");
    r = sel(LG_OP_SELECT_V2, RT(LG_BOOL, 3), RT(LG_FLOAT32, 3), RT(LG_FLOAT32, 2, 4));
    CHECK_RES_FAIL(r, "broadcast"); /* condition and x agree, y does not */
}

/* ------------------------------------------------------------------ unary, casts, norms */

LG_TEST(infer_ew_unary) {
    res r = un(LG_OP_RELU, RT(LG_FLOAT32, 1, 8, 8, 3));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 1, 8, 8, 3);
    CHECK_EQ_INT(r.type[0], LG_FLOAT32);
    r = un(LG_OP_LOGICAL_NOT, RT(LG_BOOL, 7));
    CHECK_SHAPE(r.out[0], 7);
    CHECK_EQ_INT(r.type[0], LG_BOOL);
    r = un(LG_OP_DEQUANTIZE, RT(LG_INT8, 2, 2));
    CHECK_SHAPE(r.out[0], 2, 2);
    CHECK_EQ_INT(r.type[0], -1); /* FLOAT: not pinned */
    r = un(LG_OP_QUANTIZE, RT(LG_FLOAT32, 3));
    CHECK_SHAPE(r.out[0], 3);
    CHECK_EQ_INT(r.type[0], -1);
    r = un(LG_OP_TANH, RT0(LG_FLOAT32));
    CHECK_SCALAR(r.out[0]);
    tin x = RT(LG_FLOAT32, 1, 1);
    lg_shape ov = SH(-1, 16);
    r = infer_op(LG_OP_HARD_SWISH, LG_OPTS_NONE, NULL, &x, 1, &ov, 1, LG_DIMS(1));
    CHECK_SHAPE(r.out[0], -1, 16);
    r = un(LG_OP_REAL, RT(LG_COMPLEX64, 3));
    CHECK_SHAPE(r.out[0], 3);
    CHECK_EQ_INT(r.type[0], LG_FLOAT32);
    r = un(LG_OP_COMPLEX_ABS, RT(LG_COMPLEX128, 2, 3));
    CHECK_SHAPE(r.out[0], 2, 3);
    CHECK_EQ_INT(r.type[0], LG_FLOAT64);
}

LG_TEST(infer_ew_cast_type) {
    tin x = RT(LG_FLOAT32, 2, 5);
    lg_cast_options o = {LG_FLOAT32, LG_INT32};
    res r = infer_op(LG_OP_CAST, LG_OPTS_CAST_OPTIONS, &o, &x, 1, NULL, 1, LG_DIMS(1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 5);
    CHECK_EQ_INT(r.type[0], LG_INT32);
    r = infer_op(LG_OP_CAST, LG_OPTS_NONE, NULL, &x, 1, NULL, 1, LG_DIMS(1));
    CHECK_EQ_INT(r.type[0], -1); /* no options: the stored type stands */
    lg_cast_options wrong_in = {LG_INT8, LG_INT32};
    r = infer_op(LG_OP_CAST, LG_OPTS_CAST_OPTIONS, &wrong_in, &x, 1, NULL, 1, LG_DIMS(1));
    CHECK_EQ_INT(r.type[0], -1); /* options that do not describe the input are not trusted */
    lg_cast_options defaults = {LG_FLOAT32, LG_FLOAT32};
    r = infer_op(LG_OP_CAST, LG_OPTS_CAST_OPTIONS, &defaults, &x, 1, NULL, 1, LG_DIMS(1));
    CHECK_EQ_INT(r.type[0], -1); /* indistinguishable from an empty table */
}

LG_TEST(infer_ew_norms) {
    res r = un(LG_OP_SOFTMAX, RT(LG_FLOAT32, 2, 5));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 5);
    r = un(LG_OP_SOFTMAX, RT0(LG_FLOAT32));
    CHECK_RES_FAIL(r, "scalar");
    r = un(LG_OP_LOCAL_RESPONSE_NORMALIZATION, RT(LG_FLOAT32, 1, 4, 4, 8));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 1, 4, 4, 8);
    r = un(LG_OP_LOCAL_RESPONSE_NORMALIZATION, RT(LG_FLOAT32, 4, 4, 8));
    CHECK_RES_FAIL(r, "4-D");
    r = un(LG_OP_L2_NORMALIZATION, RT(LG_FLOAT32, 3, 7));
    CHECK_SHAPE(r.out[0], 3, 7);
}

/* ------------------------------------------------------------------ reductions */

static res reduce(int32_t code, bool keep, tin x, tin axes, const lg_shape *ovr) {
    lg_reducer_options o = {keep};
    tin in[2] = {x, axes};
    return infer_op(code, LG_OPTS_REDUCER_OPTIONS, &o, in, 2, ovr, 1, LG_DIMS(1));
}

LG_TEST(infer_ew_reduce) {
    tin x = RT(LG_FLOAT32, 2, 3, 4, 5);
    /* axes {1, -1} = {1, 3}: removed -> [2,4]; kept as 1 -> [2,1,4,1] */
    res r = reduce(LG_OP_MEAN, false, x, CI32(LG_DIMS(2), 1, -1), NULL);
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 4);
    r = reduce(LG_OP_SUM, true, x, CI32(LG_DIMS(2), 1, -1), NULL);
    CHECK_SHAPE(r.out[0], 2, 1, 4, 1);
    /* duplicates count once: {1, -3} = {1, 1} -> [2,4,5] */
    r = reduce(LG_OP_REDUCE_MAX, false, x, CI32(LG_DIMS(2), 1, -3), NULL);
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 4, 5);
    /* a scalar axis */
    r = reduce(LG_OP_REDUCE_PROD, false, x, CI32(LG_SCALAR, 0), NULL);
    CHECK_SHAPE(r.out[0], 3, 4, 5);
    /* no axes: nothing reduced */
    r = reduce(LG_OP_REDUCE_MIN, false, x, (tin){LG_INT32, LG_DIMS(0), "", 0}, NULL);
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 3, 4, 5);
    /* out of range, and the near miss -4 (= 0) */
    r = reduce(LG_OP_MEAN, false, x, CI32(LG_DIMS(1), 4), NULL);
    CHECK_RES_FAIL(r, "out of range");
    r = reduce(LG_OP_MEAN, false, x, CI32(LG_DIMS(1), -5), NULL);
    CHECK_RES_FAIL(r, "out of range");
    r = reduce(LG_OP_MEAN, false, x, CI32(LG_DIMS(1), -4), NULL);
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 3, 4, 5);
    /* a scalar input gives a scalar whatever the axes (reduce.cc) */
    r = reduce(LG_OP_REDUCE_ANY, false, RT0(LG_BOOL), CI32(LG_DIMS(1), 3), NULL);
    CHECK_RES_OK(r);
    CHECK_SCALAR(r.out[0]);
    CHECK_EQ_INT(r.type[0], LG_BOOL);
}

LG_TEST(infer_ew_reduce_dynamic) {
    tin x = RT(LG_FLOAT32, 2, 3, 4);
    /* axes not constant: rank known only with keep_dims */
    res r = reduce(LG_OP_MEAN, true, x, RT(LG_INT32, 1), NULL);
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], -1, -1, -1);
    r = reduce(LG_OP_MEAN, false, x, RT(LG_INT32, 1), NULL);
    CHECK_RES_OK(r);
    CHECK_EQ_INT(r.out[0].rank, -1);
    /* unknown input dims propagate; reduced ones become 1 */
    lg_shape ov[2] = {SH(-1, 3, -1), SH(1)};
    r = reduce(LG_OP_SUM, true, x, CI32(LG_DIMS(1), 2), ov);
    CHECK_SHAPE(r.out[0], -1, 3, 1);
    lg_shape ov2[2] = {unknown_rank(), SH(1)};
    r = reduce(LG_OP_SUM, true, x, CI32(LG_DIMS(1), 2), ov2);
    CHECK_EQ_INT(r.out[0].rank, -1);
    /* a float axis tensor is an error */
    r = reduce(LG_OP_SUM, true, x, (tin){LG_FLOAT32, LG_DIMS(1), (const float[]){1}, 4}, NULL);
    CHECK_RES_FAIL(r, "integer");
}

LG_TEST(infer_ew_arg_minmax) {
    lg_arg_max_options o32 = {LG_INT32};
    tin in[2] = {RT(LG_FLOAT32, 2, 3, 4), CI32(LG_DIMS(1), -1)};
    res r = infer_op(LG_OP_ARG_MAX, LG_OPTS_ARG_MAX_OPTIONS, &o32, in, 2, NULL, 1, LG_DIMS(1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 3);
    CHECK_EQ_INT(r.type[0], LG_INT32);
    lg_arg_min_options o64 = {LG_INT64};
    in[1] = CI32(LG_SCALAR, 1);
    r = infer_op(LG_OP_ARG_MIN, LG_OPTS_ARG_MIN_OPTIONS, &o64, in, 2, NULL, 1, LG_DIMS(1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 4);
    CHECK_EQ_INT(r.type[0], LG_INT64);
    /* no options stored: the type is not guessed */
    r = infer_op(LG_OP_ARG_MIN, LG_OPTS_NONE, NULL, in, 2, NULL, 1, LG_DIMS(1));
    CHECK_EQ_INT(r.type[0], -1);
    in[1] = CI32(LG_DIMS(1), 3);
    r = infer_op(LG_OP_ARG_MAX, LG_OPTS_ARG_MAX_OPTIONS, &o32, in, 2, NULL, 1, LG_DIMS(1));
    CHECK_RES_FAIL(r, "out of range");
    in[1] = CI32(LG_DIMS(2), 0, 1);
    r = infer_op(LG_OP_ARG_MAX, LG_OPTS_ARG_MAX_OPTIONS, &o32, in, 2, NULL, 1, LG_DIMS(1));
    CHECK_RES_FAIL(r, "at most 1");
    in[1] = RT(LG_INT32, 1); /* not constant: rank 2, dims unknown */
    r = infer_op(LG_OP_ARG_MAX, LG_OPTS_ARG_MAX_OPTIONS, &o32, in, 2, NULL, 1, LG_DIMS(1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], -1, -1);
}

LG_TEST(infer_ew_cumsum) {
    tin in[2] = {RT(LG_FLOAT32, 2, 3), CI32(LG_SCALAR, 1)};
    lg_cumsum_options o = {false, false};
    res r = infer_op(LG_OP_CUMSUM, LG_OPTS_CUMSUM_OPTIONS, &o, in, 2, NULL, 1, LG_DIMS(1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 3);
    in[1] = CI32(LG_SCALAR, 2);
    r = infer_op(LG_OP_CUMSUM, LG_OPTS_CUMSUM_OPTIONS, &o, in, 2, NULL, 1, LG_DIMS(1));
    CHECK_RES_FAIL(r, "out of range");
    in[1] = CI32(LG_SCALAR, -2);
    r = infer_op(LG_OP_CUMSUM, LG_OPTS_CUMSUM_OPTIONS, &o, in, 2, NULL, 1, LG_DIMS(1));
    CHECK_RES_OK(r);
}

/* ------------------------------------------------------------------ StableHLO */

#define VEC(...) ((lg_vec){(const int64_t[]){__VA_ARGS__}, \
    (uint32_t)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))})

LG_TEST(infer_ew_hlo_elementwise) {
    res r = bin(LG_OP_STABLEHLO_ADD, RT(LG_FLOAT32, 2, 3), RT(LG_FLOAT32, 2, 3));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 3);
    /* no implicit broadcasting in StableHLO */
    r = bin(LG_OP_STABLEHLO_MULTIPLY, RT(LG_FLOAT32, 2, 3), RT(LG_FLOAT32, 2, 1));
    CHECK_RES_FAIL(r, "one shape");
    r = bin_ovr(LG_OP_STABLEHLO_SUBTRACT, SH(2, -1), SH(-1, 3));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 3);
    r = bin(LG_OP_STABLEHLO_COMPARE, RT(LG_INT32, 4), RT(LG_INT32, 4));
    CHECK_SHAPE(r.out[0], 4);
    CHECK_EQ_INT(r.type[0], LG_BOOL);
    r = un(LG_OP_STABLEHLO_CBRT, RT(LG_FLOAT32, 3, 3));
    CHECK_SHAPE(r.out[0], 3, 3);
    /* clamp: scalar bounds allowed, a bound of another shape is not */
    tin cl[3] = {RT0(LG_FLOAT32), RT(LG_FLOAT32, 4), RT(LG_FLOAT32, 4)};
    r = infer_op(LG_OP_STABLEHLO_CLAMP, LG_OPTS_NONE, NULL, cl, 3, NULL, 1, LG_DIMS(1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 4);
    CHECK_EQ_INT(r.type[0], LG_FLOAT32);
    cl[2] = RT(LG_FLOAT32, 5);
    r = infer_op(LG_OP_STABLEHLO_CLAMP, LG_OPTS_NONE, NULL, cl, 3, NULL, 1, LG_DIMS(1));
    CHECK_RES_FAIL(r, "one shape");
    /* select: scalar predicate, result of on_true's type */
    r = sel(LG_OP_STABLEHLO_SELECT, RT0(LG_BOOL), RT(LG_INT32, 2, 2), RT(LG_INT32, 2, 2));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 2);
    CHECK_EQ_INT(r.type[0], LG_INT32);
    r = sel(LG_OP_STABLEHLO_SELECT, RT(LG_BOOL, 2), RT(LG_INT32, 2, 2), RT(LG_INT32, 2, 2));
    CHECK_RES_FAIL(r, "one shape");
}

LG_TEST(infer_ew_hlo_transpose_concat) {
    lg_stablehlo_transpose_options t = {VEC(2, 0, 1)};
    tin x = RT(LG_FLOAT32, 2, 3, 4);
    /* result[i] = operand[perm[i]]: [4,2,3] */
    res r = infer_op(LG_OP_STABLEHLO_TRANSPOSE, LG_OPTS_STABLEHLO_TRANSPOSE_OPTIONS, &t, &x, 1,
                     NULL, 1, LG_DIMS(1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 4, 2, 3);
    lg_stablehlo_transpose_options rep = {VEC(0, 0, 1)};
    r = infer_op(LG_OP_STABLEHLO_TRANSPOSE, LG_OPTS_STABLEHLO_TRANSPOSE_OPTIONS, &rep, &x, 1,
                 NULL, 1, LG_DIMS(1));
    CHECK_RES_FAIL(r, "repeated");
    lg_stablehlo_transpose_options shortp = {VEC(1, 0)};
    r = infer_op(LG_OP_STABLEHLO_TRANSPOSE, LG_OPTS_STABLEHLO_TRANSPOSE_OPTIONS, &shortp, &x, 1,
                 NULL, 1, LG_DIMS(1));
    CHECK_RES_FAIL(r, "rank 3");

    lg_stablehlo_concatenate_options cat = {1};
    tin two[2] = {RT(LG_FLOAT32, 2, 3), RT(LG_FLOAT32, 2, 5)};
    r = infer_op(LG_OP_STABLEHLO_CONCATENATE, LG_OPTS_STABLEHLO_CONCATENATE_OPTIONS, &cat, two,
                 2, NULL, 1, LG_DIMS(1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 8);
    lg_shape ov[2] = {SH(2, -1), SH(-1, 5)};
    r = infer_op(LG_OP_STABLEHLO_CONCATENATE, LG_OPTS_STABLEHLO_CONCATENATE_OPTIONS, &cat, two,
                 2, ov, 1, LG_DIMS(1));
    CHECK_SHAPE(r.out[0], 2, -1);
    two[1] = RT(LG_FLOAT32, 3, 5);
    r = infer_op(LG_OP_STABLEHLO_CONCATENATE, LG_OPTS_STABLEHLO_CONCATENATE_OPTIONS, &cat, two,
                 2, NULL, 1, LG_DIMS(1));
    CHECK_RES_FAIL(r, "dimension 0 differs");
    lg_stablehlo_concatenate_options cat2 = {2};
    two[1] = RT(LG_FLOAT32, 2, 5);
    r = infer_op(LG_OP_STABLEHLO_CONCATENATE, LG_OPTS_STABLEHLO_CONCATENATE_OPTIONS, &cat2, two,
                 2, NULL, 1, LG_DIMS(1));
    CHECK_RES_FAIL(r, "out of range");
}

LG_TEST(infer_ew_hlo_slice_pad) {
    /* [10,8], start [1,0], limit [7,8], strides [2,3]: ceil(6/2) = 3, ceil(8/3) = 3 */
    lg_stablehlo_slice_options s = {VEC(1, 0), VEC(7, 8), VEC(2, 3)};
    tin x = RT(LG_FLOAT32, 10, 8);
    res r = infer_op(LG_OP_STABLEHLO_SLICE, LG_OPTS_STABLEHLO_SLICE_OPTIONS, &s, &x, 1, NULL, 1,
                     LG_DIMS(1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 3, 3);
    lg_stablehlo_slice_options over = {VEC(1, 0), VEC(11, 8), VEC(1, 1)};
    r = infer_op(LG_OP_STABLEHLO_SLICE, LG_OPTS_STABLEHLO_SLICE_OPTIONS, &over, &x, 1, NULL, 1,
                 LG_DIMS(1));
    CHECK_RES_FAIL(r, "do not fit");
    lg_stablehlo_slice_options full = {VEC(0, 0), VEC(10, 8), VEC(1, 1)};
    r = infer_op(LG_OP_STABLEHLO_SLICE, LG_OPTS_STABLEHLO_SLICE_OPTIONS, &full, &x, 1, NULL, 1,
                 LG_DIMS(1));
    CHECK_SHAPE(r.out[0], 10, 8);

    /* [3,4], low [1,0], high [2,-1], interior [1,0]:
       dim 0: 3 + (3-1)*1 + 1 + 2 = 8; dim 1: 4 + 0 + 0 - 1 = 3 */
    lg_stablehlo_pad_options p = {VEC(1, 0), VEC(2, -1), VEC(1, 0)};
    tin pin[2] = {RT(LG_FLOAT32, 3, 4), RT0(LG_FLOAT32)};
    r = infer_op(LG_OP_STABLEHLO_PAD, LG_OPTS_STABLEHLO_PAD_OPTIONS, &p, pin, 2, NULL, 1,
                 LG_DIMS(1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 8, 3);
    lg_shape ov[2] = {SH(-1, 4), SH()};
    r = infer_op(LG_OP_STABLEHLO_PAD, LG_OPTS_STABLEHLO_PAD_OPTIONS, &p, pin, 2, ov, 1,
                 LG_DIMS(1));
    CHECK_SHAPE(r.out[0], -1, 3);
    lg_stablehlo_pad_options neg = {VEC(0, 0), VEC(0, 0), VEC(-1, 0)};
    r = infer_op(LG_OP_STABLEHLO_PAD, LG_OPTS_STABLEHLO_PAD_OPTIONS, &neg, pin, 2, NULL, 1,
                 LG_DIMS(1));
    CHECK_RES_FAIL(r, "interior");
    lg_stablehlo_pad_options crop = {VEC(0, -3), VEC(0, -2), VEC(0, 0)};
    r = infer_op(LG_OP_STABLEHLO_PAD, LG_OPTS_STABLEHLO_PAD_OPTIONS, &crop, pin, 2, NULL, 1,
                 LG_DIMS(1));
    CHECK_RES_FAIL(r, "negative"); /* 4 - 3 - 2 = -1 */
    lg_stablehlo_pad_options rank1 = {VEC(0), VEC(0), VEC(0)};
    r = infer_op(LG_OP_STABLEHLO_PAD, LG_OPTS_STABLEHLO_PAD_OPTIONS, &rank1, pin, 2, NULL, 1,
                 LG_DIMS(1));
    CHECK_RES_FAIL(r, "rank 2");
}

LG_TEST(infer_ew_hlo_from_output) {
    /* reshape, iota and broadcast_in_dim take the output tensor's stored shape */
    tin x = RT(LG_FLOAT32, 2, 6);
    res r = infer_op(LG_OP_STABLEHLO_RESHAPE, LG_OPTS_NONE, NULL, &x, 1, NULL, 1, LG_DIMS(3, 4));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 3, 4);
    r = infer_op(LG_OP_STABLEHLO_RESHAPE, LG_OPTS_NONE, NULL, &x, 1, NULL, 1, LG_DIMS(5, 2));
    CHECK_RES_FAIL(r, "elements");

    lg_stablehlo_iota_options io = {1};
    r = infer_op(LG_OP_STABLEHLO_IOTA, LG_OPTS_STABLEHLO_IOTA_OPTIONS, &io, NULL, 0, NULL, 1,
                 LG_DIMS(4, 5));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 4, 5);
    lg_stablehlo_iota_options io2 = {2};
    r = infer_op(LG_OP_STABLEHLO_IOTA, LG_OPTS_STABLEHLO_IOTA_OPTIONS, &io2, NULL, 0, NULL, 1,
                 LG_DIMS(4, 5));
    CHECK_RES_FAIL(r, "iota_dimension");

    /* operand [3] into [2,3] along result dimension 1 */
    lg_stablehlo_broadcast_in_dim_options bd = {VEC(1)};
    tin v = RT(LG_FLOAT32, 3);
    r = infer_op(LG_OP_STABLEHLO_BROADCAST_IN_DIM, LG_OPTS_STABLEHLO_BROADCAST_IN_DIM_OPTIONS, &bd,
                 &v, 1, NULL, 1, LG_DIMS(2, 3));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 3);
    lg_stablehlo_broadcast_in_dim_options bd0 = {VEC(0)}; /* 3 against result dim 0 (2) */
    r = infer_op(LG_OP_STABLEHLO_BROADCAST_IN_DIM, LG_OPTS_STABLEHLO_BROADCAST_IN_DIM_OPTIONS,
                 &bd0, &v, 1, NULL, 1, LG_DIMS(2, 3));
    CHECK_RES_FAIL(r, "cannot broadcast");
    tin one = RT(LG_FLOAT32, 1); /* size 1 broadcasts anywhere */
    r = infer_op(LG_OP_STABLEHLO_BROADCAST_IN_DIM, LG_OPTS_STABLEHLO_BROADCAST_IN_DIM_OPTIONS,
                 &bd0, &one, 1, NULL, 1, LG_DIMS(2, 3));
    CHECK_RES_OK(r);

    /* rng_bit_generator: new state = the state's shape, output as stored */
    tin st = RT(LG_UINT64, 2);
    lg_stablehlo_rng_bit_generator_options rg = {0};
    r = infer_op(LG_OP_STABLEHLO_RNG_BIT_GENERATOR, LG_OPTS_STABLEHLO_RNG_BIT_GENERATOR_OPTIONS,
                 &rg, &st, 1, NULL, 2, LG_DIMS(3, 4));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2);
    CHECK_SHAPE(r.out[1], 3, 4);
}

LG_TEST(infer_ew_hlo_dot_general) {
    /* lhs [8,2,3], rhs [8,3,5], batch 0/0, contracting 2/1: [8] + [2] + [5] */
    lg_stablehlo_dot_general_options o = {VEC(0), VEC(0), VEC(2), VEC(1), {NULL, 0}};
    tin in[2] = {RT(LG_FLOAT32, 8, 2, 3), RT(LG_FLOAT32, 8, 3, 5)};
    res r = infer_op(LG_OP_STABLEHLO_DOT_GENERAL, LG_OPTS_STABLEHLO_DOT_GENERAL_OPTIONS, &o, in,
                     2, NULL, 1, LG_DIMS(1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 8, 2, 5);
    in[1] = RT(LG_FLOAT32, 8, 4, 5);
    r = infer_op(LG_OP_STABLEHLO_DOT_GENERAL, LG_OPTS_STABLEHLO_DOT_GENERAL_OPTIONS, &o, in, 2,
                 NULL, 1, LG_DIMS(1));
    CHECK_RES_FAIL(r, "contracting");
    /* plain matmul [2,3] x [3,4], no batch */
    lg_stablehlo_dot_general_options mm = {{NULL, 0}, {NULL, 0}, VEC(1), VEC(0), {NULL, 0}};
    tin m2[2] = {RT(LG_FLOAT32, 2, 3), RT(LG_FLOAT32, 3, 4)};
    r = infer_op(LG_OP_STABLEHLO_DOT_GENERAL, LG_OPTS_STABLEHLO_DOT_GENERAL_OPTIONS, &mm, m2, 2,
                 NULL, 1, LG_DIMS(1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 4);
    lg_stablehlo_dot_general_options bad = {{NULL, 0}, {NULL, 0}, VEC(2), VEC(0), {NULL, 0}};
    r = infer_op(LG_OP_STABLEHLO_DOT_GENERAL, LG_OPTS_STABLEHLO_DOT_GENERAL_OPTIONS, &bad, m2, 2,
                 NULL, 1, LG_DIMS(1));
    CHECK_RES_FAIL(r, "out of range");
}

LG_TEST(infer_ew_hlo_variadic) {
    /* dynamic_slice: slice_sizes, whatever the (runtime) starts */
    lg_stablehlo_dynamic_slice_options ds = {VEC(2, 3)};
    tin in[3] = {RT(LG_FLOAT32, 5, 6), RT0(LG_INT32), RT0(LG_INT32)};
    res r = infer_op(LG_OP_STABLEHLO_DYNAMIC_SLICE, LG_OPTS_STABLEHLO_DYNAMIC_SLICE_OPTIONS, &ds,
                     in, 3, NULL, 1, LG_DIMS(1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 3);
    lg_stablehlo_dynamic_slice_options big = {VEC(6, 3)};
    r = infer_op(LG_OP_STABLEHLO_DYNAMIC_SLICE, LG_OPTS_STABLEHLO_DYNAMIC_SLICE_OPTIONS, &big,
                 in, 3, NULL, 1, LG_DIMS(1));
    CHECK_RES_FAIL(r, "does not fit");
    /* dynamic_update_slice: the operand's shape */
    tin du[4] = {RT(LG_FLOAT32, 5, 6), RT(LG_FLOAT32, 2, 2), RT0(LG_INT32), RT0(LG_INT32)};
    r = infer_op(LG_OP_STABLEHLO_DYNAMIC_UPDATE_SLICE, LG_OPTS_NONE, NULL, du, 4, NULL, 1,
                 LG_DIMS(1));
    CHECK_SHAPE(r.out[0], 5, 6);
    /* reduce(operand [2,3,4], init scalar), dimensions {1}: [2,4] */
    lg_stablehlo_reduce_options rd = {VEC(1), 1};
    tin ri[2] = {RT(LG_FLOAT32, 2, 3, 4), RT0(LG_FLOAT32)};
    r = infer_op(LG_OP_STABLEHLO_REDUCE, LG_OPTS_STABLEHLO_REDUCE_OPTIONS, &rd, ri, 2, NULL, 1,
                 LG_DIMS(1));
    CHECK_RES_OK(r);
    CHECK_SHAPE(r.out[0], 2, 4);
    lg_stablehlo_reduce_options rd3 = {VEC(3), 1};
    r = infer_op(LG_OP_STABLEHLO_REDUCE, LG_OPTS_STABLEHLO_REDUCE_OPTIONS, &rd3, ri, 2, NULL, 1,
                 LG_DIMS(1));
    CHECK_RES_FAIL(r, "out of range");
    /* sort: two operands, two results of their shapes and types */
    lg_stablehlo_sort_options so = {0, false, 1};
    tin si[2] = {RT(LG_FLOAT32, 7), RT(LG_INT32, 7)};
    r = infer_op(LG_OP_STABLEHLO_SORT, LG_OPTS_STABLEHLO_SORT_OPTIONS, &so, si, 2, NULL, 2,
                 LG_DIMS(1));
    CHECK_SHAPE(r.out[0], 7);
    CHECK_SHAPE(r.out[1], 7);
    CHECK_EQ_INT(r.type[1], LG_INT32);
    /* scatter(operand, indices, updates): the operand's shape */
    lg_stablehlo_scatter_options sc;
    memset(&sc, 0, sizeof sc);
    tin sci[3] = {RT(LG_FLOAT32, 4, 4), RT(LG_INT32, 2, 1), RT(LG_FLOAT32, 2, 4)};
    r = infer_op(LG_OP_STABLEHLO_SCATTER, LG_OPTS_STABLEHLO_SCATTER_OPTIONS, &sc, sci, 3, NULL, 1,
                 LG_DIMS(1));
    CHECK_SHAPE(r.out[0], 4, 4);
    CHECK_EQ_INT(r.type[0], LG_FLOAT32);
}

/* ------------------------------------------------------------------ against the interpreter */

typedef struct xcase {
    int32_t code;
    lg_opts_kind kind;
    const void *opts;
    uint32_t n_in;
    tin in[3];
    lg_dtype out_type;
    lg_dims want; /* hand-derived output shape (also stored on the output tensor) */
    float in_scale, out_scale; /* quantization of input 0 / the output when non-zero */
} xcase;

/* Build the case as a static model, infer, create an fp32 interpreter and compare. */
static void cross_check(const xcase *k) {
    lg_model *m = NULL;
    lg_error err;
    const lg_op_info *e = lg_op_info_builtin(k->code);
    const char *nm = e && e->name ? e->name : "?";
    if (lg_model_new(NULL, NULL, &m, &err) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "%s: %s", nm, err.msg);
        return;
    }
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int32_t ins[3], graph_in[3];
    uint32_t ng = 0;
    for (uint32_t i = 0; i < k->n_in; i++) {
        char n2[8] = {'i', (char)('0' + i), 0};
        if (k->in[i].data) {
            ins[i] = lg_b_const(&b, n2, k->in[i].type, k->in[i].shape, k->in[i].data,
                                k->in[i].nbytes);
        } else {
            ins[i] = lg_b_tensor(&b, n2, k->in[i].type, k->in[i].shape);
            graph_in[ng++] = ins[i];
        }
    }
    int32_t out = lg_b_tensor(&b, "out", k->out_type, k->want);
    if (b.status == LG_OK && k->in_scale > 0)
        b.status = lg_tensor_set_quant(m, 0, (uint32_t)ins[0], &k->in_scale, NULL, 1, 0, &b.err);
    if (b.status == LG_OK && k->out_scale > 0)
        b.status = lg_tensor_set_quant(m, 0, (uint32_t)out, &k->out_scale, NULL, 1, 0, &b.err);
    lg_b_op_opts(&b, k->code, (lg_dims){ins, k->n_in}, LG_IDS(out), k->kind, k->opts);
    lg_b_io(&b, (lg_dims){graph_in, ng}, LG_IDS(out));
    if (b.status != LG_OK) {
        tf_fail(__FILE__, __LINE__, "%s: building: %s", nm, b.err.msg);
        lg_model_free(m);
        return;
    }
    lg_shape inf[1];
    int8_t ty[1];
    lg_status st = lg_op_infer(m, 0, 0, NULL, LG_INFER_STATIC, inf, ty, 1, &err);
    if (st != LG_OK) tf_fail(__FILE__, __LINE__, "%s: infer: %s", nm, err.msg);
    else check_shape(__FILE__, __LINE__, &inf[0], k->want);
    if (lg_model_validate_ops(m, &err) != LG_OK)
        tf_fail(__FILE__, __LINE__, "%s: validate_ops: %s", nm, err.msg);
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.precision = LG_PREC_F32;
    lg_interp *it = NULL;
    st = lg_interp_create(m, &ro, &it, &err);
    if (st != LG_OK) {
        tf_fail(__FILE__, __LINE__, "%s: interpreter: %s", nm, err.msg);
    } else {
        lg_tensor_view v;
        if (lg_interp_tensor(it, out, &v) != LG_OK) {
            tf_fail(__FILE__, __LINE__, "%s: no view of the output", nm);
        } else {
            bool same = (int32_t)v.rank == inf[0].rank;
            for (uint32_t d = 0; same && d < v.rank; d++) same = v.shape[d] == inf[0].dim[d];
            if (!same) {
                lg_shape ks;
                memset(&ks, 0, sizeof ks);
                ks.rank = (int32_t)v.rank;
                for (uint32_t d = 0; d < v.rank; d++) ks.dim[d] = v.shape[d];
                char a[96], c2[96];
                tf_fail(__FILE__, __LINE__, "%s: kernel prepares %s, inference gives %s", nm,
                        lg_shape_str(&ks, a, sizeof a), lg_shape_str(&inf[0], c2, sizeof c2));
            }
        }
        lg_interp_free(it);
    }
    lg_model_free(m);
}

#define F32(...) RT(LG_FLOAT32, __VA_ARGS__)
/* [2,1,3] op [4,1] -> [2,4,3] (aligned at the end); unary ops keep [1,3,2,5] */
#define BIN_X(code, type) \
    {code, LG_OPTS_NONE, NULL, 2, {F32(2, 1, 3), F32(4, 1)}, type, LG_DIMS(2, 4, 3), 0, 0}
#define UN_X(code) \
    {code, LG_OPTS_NONE, NULL, 1, {F32(1, 3, 2, 5)}, LG_FLOAT32, LG_DIMS(1, 3, 2, 5), 0, 0}

LG_TEST(infer_ew_matches_interpreter_binary_unary) {
    const xcase cases[] = {
        BIN_X(LG_OP_ADD, LG_FLOAT32), BIN_X(LG_OP_SUB, LG_FLOAT32), BIN_X(LG_OP_MUL, LG_FLOAT32),
        BIN_X(LG_OP_DIV, LG_FLOAT32), BIN_X(LG_OP_MAXIMUM, LG_FLOAT32),
        BIN_X(LG_OP_MINIMUM, LG_FLOAT32), BIN_X(LG_OP_POW, LG_FLOAT32),
        BIN_X(LG_OP_SQUARED_DIFFERENCE, LG_FLOAT32), BIN_X(LG_OP_FLOOR_DIV, LG_FLOAT32),
        BIN_X(LG_OP_FLOOR_MOD, LG_FLOAT32), BIN_X(LG_OP_ATAN2, LG_FLOAT32),
        BIN_X(LG_OP_EQUAL, LG_BOOL), BIN_X(LG_OP_NOT_EQUAL, LG_BOOL), BIN_X(LG_OP_LESS, LG_BOOL),
        BIN_X(LG_OP_LESS_EQUAL, LG_BOOL), BIN_X(LG_OP_GREATER, LG_BOOL),
        BIN_X(LG_OP_GREATER_EQUAL, LG_BOOL),
        {LG_OP_LOGICAL_AND, LG_OPTS_NONE, NULL, 2, {RT(LG_BOOL, 3, 1), RT(LG_BOOL, 4)}, LG_BOOL,
         LG_DIMS(3, 4), 0, 0},
        {LG_OP_LOGICAL_OR, LG_OPTS_NONE, NULL, 2, {RT(LG_BOOL, 3), RT(LG_BOOL, 2, 1)}, LG_BOOL,
         LG_DIMS(2, 3), 0, 0},
        {LG_OP_PRELU, LG_OPTS_NONE, NULL, 2, {F32(1, 4, 4, 8), F32(1, 1, 8)}, LG_FLOAT32,
         LG_DIMS(1, 4, 4, 8), 0, 0},
        {LG_OP_ADD_N, LG_OPTS_NONE, NULL, 3, {F32(2, 3), F32(2, 3), F32(2, 3)}, LG_FLOAT32,
         LG_DIMS(2, 3), 0, 0},
        UN_X(LG_OP_ABS), UN_X(LG_OP_NEG), UN_X(LG_OP_EXP), UN_X(LG_OP_LOG), UN_X(LG_OP_SQRT),
        UN_X(LG_OP_RSQRT), UN_X(LG_OP_SQUARE), UN_X(LG_OP_SIN), UN_X(LG_OP_COS),
        UN_X(LG_OP_TANH), UN_X(LG_OP_LOGISTIC), UN_X(LG_OP_RELU), UN_X(LG_OP_RELU6),
        UN_X(LG_OP_RELU_N1_TO_1), UN_X(LG_OP_RELU_0_TO_1), UN_X(LG_OP_LEAKY_RELU),
        UN_X(LG_OP_ELU), UN_X(LG_OP_HARD_SWISH), UN_X(LG_OP_GELU), UN_X(LG_OP_FLOOR),
        UN_X(LG_OP_CEIL), UN_X(LG_OP_ROUND), UN_X(LG_OP_SIGN), UN_X(LG_OP_ZEROS_LIKE),
        {LG_OP_LOGICAL_NOT, LG_OPTS_NONE, NULL, 1, {RT(LG_BOOL, 5)}, LG_BOOL, LG_DIMS(5), 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) cross_check(&cases[i]);
}

LG_TEST(infer_ew_matches_interpreter_other) {
    static const lg_reducer_options keep = {true}, drop = {false};
    static const lg_arg_max_options amax = {LG_INT32};
    static const lg_arg_min_options amin = {LG_INT64};
    static const lg_cast_options cast = {LG_FLOAT32, LG_INT32};
    static const lg_softmax_options sm = {1.0f};
    static const lg_local_response_normalization_options lrn = {2, 1.0f, 1.0f, 0.5f};
    static const lg_l2_norm_options l2 = {0};
    static const lg_cumsum_options cs = {false, true};
    const xcase cases[] = {
        {LG_OP_SELECT, LG_OPTS_NONE, NULL, 3, {RT(LG_BOOL, 4), F32(4, 2), F32(4, 2)}, LG_FLOAT32,
         LG_DIMS(4, 2), 0, 0},
        {LG_OP_SELECT_V2, LG_OPTS_NONE, NULL, 3, {RT(LG_BOOL, 2, 1, 1), F32(1, 3, 1), F32(1, 1, 4)},
         LG_FLOAT32, LG_DIMS(2, 3, 4), 0, 0},
        {LG_OP_CAST, LG_OPTS_CAST_OPTIONS, &cast, 1, {F32(2, 5)}, LG_INT32, LG_DIMS(2, 5), 0, 0},
        {LG_OP_DEQUANTIZE, LG_OPTS_NONE, NULL, 1, {RT(LG_INT8, 3, 2)}, LG_FLOAT32, LG_DIMS(3, 2),
         0.5f, 0},
        {LG_OP_QUANTIZE, LG_OPTS_NONE, NULL, 1, {F32(3, 2)}, LG_INT8, LG_DIMS(3, 2), 0, 0.25f},
        {LG_OP_SOFTMAX, LG_OPTS_SOFTMAX_OPTIONS, &sm, 1,
         {F32(2, 7)}, LG_FLOAT32, LG_DIMS(2, 7), 0, 0},
        {LG_OP_LOG_SOFTMAX, LG_OPTS_NONE, NULL, 1, {F32(2, 7)}, LG_FLOAT32, LG_DIMS(2, 7), 0, 0},
        {LG_OP_L2_NORMALIZATION, LG_OPTS_L2_NORM_OPTIONS, &l2, 1, {F32(1, 2, 6)}, LG_FLOAT32,
         LG_DIMS(1, 2, 6), 0, 0},
        {LG_OP_LOCAL_RESPONSE_NORMALIZATION, LG_OPTS_LOCAL_RESPONSE_NORMALIZATION_OPTIONS, &lrn, 1,
         {F32(1, 2, 2, 6)}, LG_FLOAT32, LG_DIMS(1, 2, 2, 6), 0, 0},
        /* [2,3,4,5], axes {1,-1}: [2,4] / [2,1,4,1] */
        {LG_OP_MEAN, LG_OPTS_REDUCER_OPTIONS, &drop, 2, {F32(2, 3, 4, 5), CI32(LG_DIMS(2), 1, -1)},
         LG_FLOAT32, LG_DIMS(2, 4), 0, 0},
        {LG_OP_SUM, LG_OPTS_REDUCER_OPTIONS, &keep, 2, {F32(2, 3, 4, 5), CI32(LG_DIMS(2), 1, -1)},
         LG_FLOAT32, LG_DIMS(2, 1, 4, 1), 0, 0},
        /* duplicate axes {0, -3} of a rank-3 input reduce dimension 0 once */
        {LG_OP_REDUCE_PROD, LG_OPTS_REDUCER_OPTIONS, &drop, 2,
         {F32(2, 3, 4), CI32(LG_DIMS(2), 0, -3)},
         LG_FLOAT32, LG_DIMS(3, 4), 0, 0},
        {LG_OP_REDUCE_MAX, LG_OPTS_REDUCER_OPTIONS, &keep, 2, {F32(2, 3, 4), CI32(LG_SCALAR, 2)},
         LG_FLOAT32, LG_DIMS(2, 3, 1), 0, 0},
        {LG_OP_REDUCE_MIN, LG_OPTS_REDUCER_OPTIONS, &drop, 2,
         {F32(2, 3, 4), CI32(LG_DIMS(3), 0, 1, 2)},
         LG_FLOAT32, LG_SCALAR, 0, 0},
        {LG_OP_REDUCE_ANY, LG_OPTS_REDUCER_OPTIONS, &drop, 2,
         {RT(LG_BOOL, 3, 4), CI32(LG_DIMS(1), 1)},
         LG_BOOL, LG_DIMS(3), 0, 0},
        {LG_OP_REDUCE_ALL, LG_OPTS_REDUCER_OPTIONS, &keep, 2,
         {RT(LG_BOOL, 3, 4), CI32(LG_DIMS(1), 0)},
         LG_BOOL, LG_DIMS(1, 4), 0, 0},
        {LG_OP_ARG_MAX, LG_OPTS_ARG_MAX_OPTIONS, &amax, 2, {F32(2, 3, 4), CI32(LG_DIMS(1), -1)},
         LG_INT32, LG_DIMS(2, 3), 0, 0},
        {LG_OP_ARG_MIN, LG_OPTS_ARG_MIN_OPTIONS, &amin, 2, {F32(2, 3, 4), CI32(LG_SCALAR, 1)},
         LG_INT64, LG_DIMS(2, 4), 0, 0},
        {LG_OP_CUMSUM, LG_OPTS_CUMSUM_OPTIONS, &cs, 2, {F32(3, 5), CI32(LG_SCALAR, -1)},
         LG_FLOAT32, LG_DIMS(3, 5), 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) cross_check(&cases[i]);
}
