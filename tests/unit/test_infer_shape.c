/* Shape inference of the shape family (src/ops/infer_shape*.c, rows in src/ops/shape.def).
 * One-op models built with the builder; lg_op_infer's output shapes are compared with
 * shapes derived by hand from each op's definition (the derivation is in a comment where it
 * is not obvious). Also: dynamic dimensions propagating, contradictions that must fail and
 * near misses that must pass, the rows themselves, and a cross-check of inferred shapes
 * against the reference interpreter's kernels (src/run/k_shape*.c). */
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "lg/ops.h"
#include "lg/run.h"
#include "tf.h"

/* ------------------------------------------------------------------ harness */

typedef struct T {
    lg_model *m;
    lg_builder b;
    lg_error err;
    lg_status st;
    lg_shape out[8];
    int8_t ty[8];
    char str[8][128];
    int flags;
    const lg_shape *ins; /* overrides the input shapes when set */
} T;

static void t_init(T *t) {
    memset(t, 0, sizeof *t);
    if (lg_model_new(NULL, NULL, &t->m, &t->err) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "lg_model_new: %s", t->err.msg);
        return;
    }
    lg_builder_init(&t->b, t->m, 0);
}

static void t_free(T *t) {
    lg_model_free(t->m);
    t->m = NULL;
}

static int32_t X(T *t, lg_dtype type, lg_dims d) { return lg_b_tensor(&t->b, "x", type, d); }
static int32_t XF(T *t, lg_dims d) { return X(t, LG_FLOAT32, d); }
static int32_t CI(T *t, lg_dims d, const int32_t *v) { return lg_b_const_i32(&t->b, "c", d, v); }
static int32_t CF(T *t, lg_dims d, const float *v) { return lg_b_const_f32(&t->b, "f", d, v); }

/* Shape signature (dynamic dims -1) on tensor i; inference then reads signatures. */
static void SIG(T *t, int32_t i, lg_dims sig) {
    lg_error e;
    if (lg_tensor_set_shape_signature(t->m, 0, (uint32_t)i, sig.v, sig.n, &e) != LG_OK)
        tf_fail(__FILE__, __LINE__, "signature: %s", e.msg);
    t->flags = LG_INFER_SIGNATURE;
}

/* Op `code` on inputs `in` with n_out fresh outputs (stored as scalars: inference does not
   read them, and the interpreter then keeps the shapes its kernels compute). */
static int OP(T *t, int32_t code, lg_dims in, uint32_t n_out, lg_opts_kind kind, const void *opts) {
    int32_t outs[8];
    for (uint32_t k = 0; k < n_out && k < 8; k++) outs[k] = X(t, LG_FLOAT32, LG_SCALAR);
    return lg_b_op_opts(&t->b, code, in, (lg_dims){outs, n_out}, kind, opts);
}

static lg_status infer(T *t, int op) {
    if (t->b.status != LG_OK) {
        tf_fail(__FILE__, __LINE__, "builder: %s", t->b.err.msg);
        return t->st = t->b.status;
    }
    t->st = lg_op_infer(t->m, 0, (uint32_t)op, t->ins, t->flags, t->out, t->ty, 8, &t->err);
    for (int k = 0; k < 8; k++) lg_shape_str(&t->out[k], t->str[k], sizeof t->str[k]);
    return t->st;
}

static void check_infer(T *t, int op, const char *const *want, int n, const char *file, int line) {
    if (infer(t, op) != LG_OK) {
        tf_fail(file, line, "inference failed: %s", t->err.msg);
        return;
    }
    for (int k = 0; k < n; k++)
        if (strcmp(t->str[k], want[k]) != 0)
            tf_fail(file, line, "output %d is %s, expected %s", k, t->str[k], want[k]);
}

static void check_fails(T *t, int op, const char *substr, const char *file, int line) {
    lg_status st = infer(t, op);
    if (st != LG_ERR_INVALID_ARG) {
        tf_fail(file, line, "expected LG_ERR_INVALID_ARG, got %d (output %s)", (int)st, t->str[0]);
        return;
    }
    if (!strstr(t->err.msg, substr)) tf_fail(file, line, "message \"%s\" lacks \"%s\"", t->err.msg, substr);
}

#define EXPECT(t, op, ...)                                                                     \
    check_infer((t), (op), (const char *const[]){__VA_ARGS__},                                 \
                (int)(sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *)),      \
                __FILE__, __LINE__)
#define EXPECT_FAIL(t, op, substr) check_fails((t), (op), (substr), __FILE__, __LINE__)

/* ------------------------------------------------------------------ RESHAPE */

LG_TEST(infer_shape_reshape_tensor_and_stretch) {
    T t;
    t_init(&t);
    /* 2*3*4 = 24 elements; [4,-1] -> -1 = 24/4 = 6 */
    int x = XF(&t, LG_DIMS(2, 3, 4));
    int op = OP(&t, LG_OP_RESHAPE, LG_IDS(x, CI(&t, LG_DIMS(2), (int32_t[]){4, -1})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[4,6]");
    /* near miss: exactly 24 elements */
    op = OP(&t, LG_OP_RESHAPE, LG_IDS(x, CI(&t, LG_DIMS(1), (int32_t[]){24})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[24]");
    /* 25 != 24 */
    op = OP(&t, LG_OP_RESHAPE, LG_IDS(x, CI(&t, LG_DIMS(2), (int32_t[]){5, 5})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "cannot reshape");
    /* two -1 */
    op = OP(&t, LG_OP_RESHAPE, LG_IDS(x, CI(&t, LG_DIMS(3), (int32_t[]){-1, 2, -1})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "more than one -1");
    /* 24 is not divisible by 5: -1 -> 4, 4*5 = 20 != 24 */
    op = OP(&t, LG_OP_RESHAPE, LG_IDS(x, CI(&t, LG_DIMS(2), (int32_t[]){-1, 5})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "cannot reshape");
    t_free(&t);
}

LG_TEST(infer_shape_reshape_options_and_legacy) {
    T t;
    t_init(&t);
    int x = XF(&t, LG_DIMS(2, 3, 4));
    static const int32_t ns[2] = {3, 8};
    lg_reshape_options o;
    memset(&o, 0, sizeof o);
    o.new_shape = (lg_vec){ns, 2};
    int op = OP(&t, LG_OP_RESHAPE, LG_IDS(x), 1, LG_OPTS_RESHAPE_OPTIONS, &o);
    EXPECT(&t, op, "[3,8]");
    /* a shape input that is not 1-D INT32 is ignored in favour of new_shape (reshape.cc
       ShapeIsVector) */
    int64_t s64[1] = {24};
    int c64 = lg_b_const(&t.b, "s64", LG_INT64, LG_DIMS(1), s64, sizeof s64);
    op = OP(&t, LG_OP_RESHAPE, LG_IDS(x, c64), 1, LG_OPTS_RESHAPE_OPTIONS, &o);
    EXPECT(&t, op, "[3,8]");
    /* legacy new_shape [0] = scalar: from one element */
    static const int32_t zero[1] = {0};
    o.new_shape = (lg_vec){zero, 1};
    int one = XF(&t, LG_DIMS(1, 1));
    op = OP(&t, LG_OP_RESHAPE, LG_IDS(one), 1, LG_OPTS_RESHAPE_OPTIONS, &o);
    EXPECT(&t, op, "[]");
    op = OP(&t, LG_OP_RESHAPE, LG_IDS(x), 1, LG_OPTS_RESHAPE_OPTIONS, &o);
    EXPECT_FAIL(&t, op, "cannot reshape");
    t_free(&t);
}

LG_TEST(infer_shape_reshape_zero_size) {
    T t;
    t_init(&t);
    /* [0,3] to [-1,3]: input empty, the others give 3 != 0 -> the -1 becomes 0 */
    int x = XF(&t, LG_DIMS(0, 3));
    int op = OP(&t, LG_OP_RESHAPE, LG_IDS(x, CI(&t, LG_DIMS(2), (int32_t[]){-1, 3})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[0,3]");
    /* [0,3] to [-1,0]: the others give 0 elements -> -1 = nonzero(in) 3 / nonzero(out) 1 */
    op = OP(&t, LG_OP_RESHAPE, LG_IDS(x, CI(&t, LG_DIMS(2), (int32_t[]){-1, 0})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[3,0]");
    /* [0,3] to [2,2]: 0 != 4 */
    op = OP(&t, LG_OP_RESHAPE, LG_IDS(x, CI(&t, LG_DIMS(2), (int32_t[]){2, 2})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "cannot reshape");
    t_free(&t);
}

LG_TEST(infer_shape_reshape_dynamic) {
    T t;
    t_init(&t);
    /* a runtime shape of 3 values: rank 3, every dimension unknown */
    int x = XF(&t, LG_DIMS(2, 3, 4));
    int s = X(&t, LG_INT32, LG_DIMS(3));
    int op = OP(&t, LG_OP_RESHAPE, LG_IDS(x, s), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[?,?,?]");
    /* a dynamic batch: [?,3,4] to [-1,12] keeps the -1 unknown, 12 known */
    int y = XF(&t, LG_DIMS(1, 3, 4));
    SIG(&t, y, LG_DIMS(-1, 3, 4));
    op = OP(&t, LG_OP_RESHAPE, LG_IDS(y, CI(&t, LG_DIMS(2), (int32_t[]){-1, 12})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[?,12]");
    t_free(&t);
}

/* ------------------------------------------------------------------ SQUEEZE, EXPAND_DIMS, TRANSPOSE */

LG_TEST(infer_shape_squeeze) {
    T t;
    t_init(&t);
    int x = XF(&t, LG_DIMS(1, 3, 1, 2));
    lg_squeeze_options o;
    memset(&o, 0, sizeof o);
    int op = OP(&t, LG_OP_SQUEEZE, LG_IDS(x), 1, LG_OPTS_SQUEEZE_OPTIONS, &o);
    EXPECT(&t, op, "[3,2]");
    static const int32_t m2[1] = {-2}; /* axis 2 */
    o.squeeze_dims = (lg_vec){m2, 1};
    op = OP(&t, LG_OP_SQUEEZE, LG_IDS(x), 1, LG_OPTS_SQUEEZE_OPTIONS, &o);
    EXPECT(&t, op, "[1,3,2]");
    static const int32_t a1[1] = {1}; /* size 3 */
    o.squeeze_dims = (lg_vec){a1, 1};
    op = OP(&t, LG_OP_SQUEEZE, LG_IDS(x), 1, LG_OPTS_SQUEEZE_OPTIONS, &o);
    EXPECT_FAIL(&t, op, "cannot squeeze");
    /* squeeze everything with a dynamic dimension: which ones are 1 is unknown */
    int y = XF(&t, LG_DIMS(1, 3));
    SIG(&t, y, LG_DIMS(-1, 3));
    memset(&o, 0, sizeof o);
    op = OP(&t, LG_OP_SQUEEZE, LG_IDS(y), 1, LG_OPTS_SQUEEZE_OPTIONS, &o);
    EXPECT(&t, op, "[?]");
    t_free(&t);
}

LG_TEST(infer_shape_expand_dims) {
    T t;
    t_init(&t);
    int x = XF(&t, LG_DIMS(2, 3));
    int op = OP(&t, LG_OP_EXPAND_DIMS, LG_IDS(x, CI(&t, LG_SCALAR, (int32_t[]){-1})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[2,3,1]"); /* -1 + rank + 1 = 2 */
    op = OP(&t, LG_OP_EXPAND_DIMS, LG_IDS(x, CI(&t, LG_SCALAR, (int32_t[]){-3})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[1,2,3]"); /* -3 + 3 = 0 */
    op = OP(&t, LG_OP_EXPAND_DIMS, LG_IDS(x, CI(&t, LG_SCALAR, (int32_t[]){2})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[2,3,1]");
    op = OP(&t, LG_OP_EXPAND_DIMS, LG_IDS(x, CI(&t, LG_SCALAR, (int32_t[]){3})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "out of range");
    op = OP(&t, LG_OP_EXPAND_DIMS, LG_IDS(x, X(&t, LG_INT32, LG_SCALAR)), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[?,?,?]");
    t_free(&t);
}

LG_TEST(infer_shape_transpose) {
    T t;
    t_init(&t);
    int x = XF(&t, LG_DIMS(2, 3, 4));
    int p = CI(&t, LG_DIMS(3), (int32_t[]){2, 0, 1});
    int op = OP(&t, LG_OP_TRANSPOSE, LG_IDS(x, p), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[4,2,3]");
    op = OP(&t, LG_OP_TRANSPOSE, LG_IDS(x, CI(&t, LG_DIMS(2), (int32_t[]){1, 0})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "perm has 2 entries");
    op = OP(&t, LG_OP_TRANSPOSE, LG_IDS(x, CI(&t, LG_DIMS(3), (int32_t[]){0, 1, 3})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "out of range");
    op = OP(&t, LG_OP_TRANSPOSE, LG_IDS(x, X(&t, LG_INT32, LG_DIMS(3))), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[?,?,?]");
    /* a dynamic dimension follows its axis */
    int y = XF(&t, LG_DIMS(1, 3, 4));
    SIG(&t, y, LG_DIMS(-1, 3, 4));
    op = OP(&t, LG_OP_TRANSPOSE, LG_IDS(y, p), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[4,?,3]");
    /* an input of unknown rank with a constant perm: the rank is the perm's length */
    lg_shape ins[2];
    memset(ins, 0, sizeof ins);
    ins[0].rank = -1;
    ins[1].rank = 1;
    ins[1].dim[0] = 3;
    t.ins = ins;
    t.flags = 0;
    EXPECT(&t, op, "[?,?,?]");
    t_free(&t);
}

/* ------------------------------------------------------------------ STRIDED_SLICE */

static int strided(T *t, int x, lg_dims b, lg_dims e, lg_dims s, int bm, int em, int ell, int na,
                   int sh, bool offset) {
    lg_strided_slice_options o;
    memset(&o, 0, sizeof o);
    o.begin_mask = bm;
    o.end_mask = em;
    o.ellipsis_mask = ell;
    o.new_axis_mask = na;
    o.shrink_axis_mask = sh;
    o.offset = offset;
    int bi = CI(t, (lg_dims){(int32_t[]){(int32_t)b.n}, 1}, b.v);
    int ei = CI(t, (lg_dims){(int32_t[]){(int32_t)e.n}, 1}, e.v);
    int si = CI(t, (lg_dims){(int32_t[]){(int32_t)s.n}, 1}, s.v);
    return OP(t, LG_OP_STRIDED_SLICE, LG_IDS(x, bi, ei, si), 1, LG_OPTS_STRIDED_SLICE_OPTIONS, &o);
}

LG_TEST(infer_shape_strided_slice_basic) {
    T t;
    t_init(&t);
    int x = XF(&t, LG_DIMS(5, 6));
    /* [1:4, 0:6:2] -> 3, ceil(6/2) = 3 */
    int op = strided(&t, x, LG_DIMS(1, 0), LG_DIMS(4, 6), LG_DIMS(1, 2), 0, 0, 0, 0, 0, false);
    EXPECT(&t, op, "[3,3]");
    /* [0:6:4] on 6 -> elements 0, 4: 2 */
    op = strided(&t, x, LG_DIMS(0, 0), LG_DIMS(5, 6), LG_DIMS(1, 4), 0, 0, 0, 0, 0, false);
    EXPECT(&t, op, "[5,2]");
    /* begin_mask bit 1 (dim 1 begin ignored), end_mask bit 0 (dim 0 end ignored):
       dim 0 = 2:5 -> 3, dim 1 = 0:5 -> 5 */
    op = strided(&t, x, LG_DIMS(2, 3), LG_DIMS(0, 5), LG_DIMS(1, 1), 2, 1, 0, 0, 0, false);
    EXPECT(&t, op, "[3,5]");
    /* clamping: [-10:100] on 5 -> start -10+5 = -5 -> 0, end 100 -> 5: 5 */
    int y = XF(&t, LG_DIMS(5));
    op = strided(&t, y, LG_DIMS(-10), LG_DIMS(100), LG_DIMS(1), 0, 0, 0, 0, 0, false);
    EXPECT(&t, op, "[5]");
    /* begin after end with a positive stride: empty */
    op = strided(&t, y, LG_DIMS(3), LG_DIMS(1), LG_DIMS(1), 0, 0, 0, 0, 0, false);
    EXPECT(&t, op, "[0]");
    /* implicit trailing dimensions: [1:3] on [4,5,6] -> [2,5,6] */
    int z = XF(&t, LG_DIMS(4, 5, 6));
    op = strided(&t, z, LG_DIMS(1), LG_DIMS(3), LG_DIMS(1), 0, 0, 0, 0, 0, false);
    EXPECT(&t, op, "[2,5,6]");
    /* stride 0 */
    op = strided(&t, y, LG_DIMS(0), LG_DIMS(5), LG_DIMS(0), 0, 0, 0, 0, 0, false);
    EXPECT_FAIL(&t, op, "stride 0 is zero");
    t_free(&t);
}

LG_TEST(infer_shape_strided_slice_negative_strides) {
    T t;
    t_init(&t);
    int y = XF(&t, LG_DIMS(5));
    /* [-1:-6:-1] on 5: start -1+5 = 4 (clamp [-1,4]), end -6+5 = -1 (clamp [-1,4]) = -1;
       span -5, (-5+1)/-1 + 1 = 5: the whole tensor reversed */
    int op = strided(&t, y, LG_DIMS(-1), LG_DIMS(-6), LG_DIMS(-1), 0, 0, 0, 0, 0, false);
    EXPECT(&t, op, "[5]");
    /* [4:0:-2] -> 4, 2: 2 elements; span -4, (-4+1)/-2 + 1 = 1 + 1 = 2 */
    op = strided(&t, y, LG_DIMS(4), LG_DIMS(0), LG_DIMS(-2), 0, 0, 0, 0, 0, false);
    EXPECT(&t, op, "[2]");
    /* [::-1] by masks: start 4, end -1 -> 5 */
    op = strided(&t, y, LG_DIMS(0), LG_DIMS(0), LG_DIMS(-1), 1, 1, 0, 0, 0, false);
    EXPECT(&t, op, "[5]");
    /* negative stride from low to high: empty */
    op = strided(&t, y, LG_DIMS(1), LG_DIMS(4), LG_DIMS(-1), 0, 0, 0, 0, 0, false);
    EXPECT(&t, op, "[0]");
    t_free(&t);
}

LG_TEST(infer_shape_strided_slice_masks) {
    T t;
    t_init(&t);
    /* shrink dim 0: x[1, 0:4] on [3,4] -> [4] */
    int x = XF(&t, LG_DIMS(3, 4));
    int op = strided(&t, x, LG_DIMS(1, 0), LG_DIMS(2, 4), LG_DIMS(1, 1), 0, 0, 0, 0, 1, false);
    EXPECT(&t, op, "[4]");
    /* shrink with a negative index: x[-1] -> [4] */
    op = strided(&t, x, LG_DIMS(-1), LG_DIMS(0), LG_DIMS(1), 0, 0, 0, 0, 1, false);
    EXPECT(&t, op, "[4]");
    /* ellipsis: x[..., 1:3] on [2,3,4,5] -> [2,3,4,2] */
    int z = XF(&t, LG_DIMS(2, 3, 4, 5));
    op = strided(&t, z, LG_DIMS(0, 1), LG_DIMS(0, 3), LG_DIMS(1, 1), 0, 0, 1, 0, 0, false);
    EXPECT(&t, op, "[2,3,4,2]");
    /* ellipsis in the middle: x[1:2, ..., 0:1] -> [1,3,4,1] */
    op = strided(&t, z, LG_DIMS(1, 0, 0), LG_DIMS(2, 0, 1), LG_DIMS(1, 1, 1), 0, 0, 2, 0, 0, false);
    EXPECT(&t, op, "[1,3,4,1]");
    /* new axis: x[:, newaxis, 1:3] on [3,4] -> [3,1,2] */
    op = strided(&t, x, LG_DIMS(0, 0, 1), LG_DIMS(0, 0, 3), LG_DIMS(1, 1, 1), 1, 1, 0, 2, 0, false);
    EXPECT(&t, op, "[3,1,2]");
    /* offset: end holds sizes: [1:+3, 2:+2] on [6,6] -> [3,2] */
    int w = XF(&t, LG_DIMS(6, 6));
    op = strided(&t, w, LG_DIMS(1, 2), LG_DIMS(3, 2), LG_DIMS(1, 1), 0, 0, 0, 0, 0, true);
    EXPECT(&t, op, "[3,2]");
    t_free(&t);
}

LG_TEST(infer_shape_strided_slice_dynamic) {
    T t;
    t_init(&t);
    /* runtime begin: every kept dimension unknown, shrink still drops dim 0 */
    int x = XF(&t, LG_DIMS(3, 4));
    lg_strided_slice_options o;
    memset(&o, 0, sizeof o);
    o.shrink_axis_mask = 1;
    int b = X(&t, LG_INT32, LG_DIMS(2));
    int op = lg_b_op_opts(&t.b, LG_OP_STRIDED_SLICE,
                          LG_IDS(x, b, CI(&t, LG_DIMS(2), (int32_t[]){1, 4}), CI(&t, LG_DIMS(2), (int32_t[]){1, 1})),
                          LG_IDS(X(&t, LG_FLOAT32, LG_SCALAR)), LG_OPTS_STRIDED_SLICE_OPTIONS, &o);
    EXPECT(&t, op, "[?]");
    /* a dynamic batch passes through a full slice of it; the sliced dim is known */
    int y = XF(&t, LG_DIMS(1, 8));
    SIG(&t, y, LG_DIMS(-1, 8));
    op = strided(&t, y, LG_DIMS(0, 2), LG_DIMS(0, 6), LG_DIMS(1, 1), 1, 1, 0, 0, 0, false);
    EXPECT(&t, op, "[?,4]");
    t_free(&t);
}

/* ------------------------------------------------------------------ SLICE, GATHER, GATHER_ND */

LG_TEST(infer_shape_slice) {
    T t;
    t_init(&t);
    int x = XF(&t, LG_DIMS(4, 5, 6));
    /* size -1 -> 5 - 0 = 5 */
    int op = OP(&t, LG_OP_SLICE, LG_IDS(x, CI(&t, LG_DIMS(3), (int32_t[]){1, 0, 2}), CI(&t, LG_DIMS(3), (int32_t[]){2, -1, 3})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[2,5,3]");
    /* 2 + 3 = 5 <= 6: near miss */
    op = OP(&t, LG_OP_SLICE, LG_IDS(x, CI(&t, LG_DIMS(3), (int32_t[]){0, 0, 3}), CI(&t, LG_DIMS(3), (int32_t[]){4, 5, 3})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[4,5,3]");
    /* 4 + 3 = 7 > 6 */
    op = OP(&t, LG_OP_SLICE, LG_IDS(x, CI(&t, LG_DIMS(3), (int32_t[]){0, 0, 4}), CI(&t, LG_DIMS(3), (int32_t[]){4, 5, 3})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "exceed dimension 2");
    op = OP(&t, LG_OP_SLICE, LG_IDS(x, CI(&t, LG_DIMS(3), (int32_t[]){0, 0, 0}), CI(&t, LG_DIMS(3), (int32_t[]){-2, 5, 3})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "invalid");
    /* a dynamic first dim with size -1 stays unknown; size 2 is known */
    int y = XF(&t, LG_DIMS(1, 5));
    SIG(&t, y, LG_DIMS(-1, 5));
    op = OP(&t, LG_OP_SLICE, LG_IDS(y, CI(&t, LG_DIMS(2), (int32_t[]){0, 1}), CI(&t, LG_DIMS(2), (int32_t[]){-1, 2})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[?,2]");
    t_free(&t);
}

LG_TEST(infer_shape_gather) {
    T t;
    t_init(&t);
    int p = XF(&t, LG_DIMS(5, 6, 7));
    int ix = X(&t, LG_INT32, LG_DIMS(2, 3));
    lg_gather_options o;
    memset(&o, 0, sizeof o);
    o.axis = 1; /* [5] + [2,3] + [7] */
    int op = OP(&t, LG_OP_GATHER, LG_IDS(p, ix), 1, LG_OPTS_GATHER_OPTIONS, &o);
    EXPECT(&t, op, "[5,2,3,7]");
    o.axis = -1; /* axis 2: [5,6] + [2,3] */
    op = OP(&t, LG_OP_GATHER, LG_IDS(p, ix), 1, LG_OPTS_GATHER_OPTIONS, &o);
    EXPECT(&t, op, "[5,6,2,3]");
    o.axis = 3;
    op = OP(&t, LG_OP_GATHER, LG_IDS(p, ix), 1, LG_OPTS_GATHER_OPTIONS, &o);
    EXPECT_FAIL(&t, op, "out of range");
    /* batch_dims 1: params [2,6,7], indices [2,3], axis 1 -> [2] + [3] + [7] */
    int p2 = XF(&t, LG_DIMS(2, 6, 7));
    o.axis = 1;
    o.batch_dims = 1;
    op = OP(&t, LG_OP_GATHER, LG_IDS(p2, ix), 1, LG_OPTS_GATHER_OPTIONS, &o);
    EXPECT(&t, op, "[2,3,7]");
    /* batch_dims -1 = rank(indices) - 1 = 1: the same */
    o.batch_dims = -1;
    op = OP(&t, LG_OP_GATHER, LG_IDS(p2, ix), 1, LG_OPTS_GATHER_OPTIONS, &o);
    EXPECT(&t, op, "[2,3,7]");
    /* batch dims differ: params 5 vs indices 2 */
    o.batch_dims = 1;
    op = OP(&t, LG_OP_GATHER, LG_IDS(p, ix), 1, LG_OPTS_GATHER_OPTIONS, &o);
    EXPECT_FAIL(&t, op, "batch dimension 0 differs");
    /* batch_dims above axis */
    o.axis = 0;
    op = OP(&t, LG_OP_GATHER, LG_IDS(p2, ix), 1, LG_OPTS_GATHER_OPTIONS, &o);
    EXPECT_FAIL(&t, op, "batch_dims");
    t_free(&t);
}

LG_TEST(infer_shape_gather_nd) {
    T t;
    t_init(&t);
    int p = XF(&t, LG_DIMS(4, 5, 6));
    /* depth 2: [2] + params[2:] = [2,6] */
    int op = OP(&t, LG_OP_GATHER_ND, LG_IDS(p, X(&t, LG_INT32, LG_DIMS(2, 2))), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[2,6]");
    /* depth 3 = rank: [7,1] -> [7,1] + [] */
    op = OP(&t, LG_OP_GATHER_ND, LG_IDS(p, X(&t, LG_INT32, LG_DIMS(7, 1, 3))), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[7,1]");
    op = OP(&t, LG_OP_GATHER_ND, LG_IDS(p, X(&t, LG_INT32, LG_DIMS(3, 4))), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "index depth 4");
    t_free(&t);
}

/* ------------------------------------------------------------------ CONCATENATION, PACK, UNPACK */

LG_TEST(infer_shape_concat) {
    T t;
    t_init(&t);
    int a = XF(&t, LG_DIMS(2, 3)), b = XF(&t, LG_DIMS(2, 5)), c = XF(&t, LG_DIMS(3, 3));
    lg_concatenation_options o;
    memset(&o, 0, sizeof o);
    o.axis = 1;
    int op = OP(&t, LG_OP_CONCATENATION, LG_IDS(a, b, a), 1, LG_OPTS_CONCATENATION_OPTIONS, &o);
    EXPECT(&t, op, "[2,11]");
    o.axis = -1;
    op = OP(&t, LG_OP_CONCATENATION, LG_IDS(a, b), 1, LG_OPTS_CONCATENATION_OPTIONS, &o);
    EXPECT(&t, op, "[2,8]");
    /* dims other than the axis must agree: 2 vs 3 */
    op = OP(&t, LG_OP_CONCATENATION, LG_IDS(a, c), 1, LG_OPTS_CONCATENATION_OPTIONS, &o);
    EXPECT_FAIL(&t, op, "dimension 0");
    o.axis = 0; /* near miss: along axis 0 they do concatenate */
    op = OP(&t, LG_OP_CONCATENATION, LG_IDS(a, c), 1, LG_OPTS_CONCATENATION_OPTIONS, &o);
    EXPECT(&t, op, "[5,3]");
    o.axis = 2;
    op = OP(&t, LG_OP_CONCATENATION, LG_IDS(a, c), 1, LG_OPTS_CONCATENATION_OPTIONS, &o);
    EXPECT_FAIL(&t, op, "out of range");
    op = OP(&t, LG_OP_CONCATENATION, LG_IDS(a, XF(&t, LG_DIMS(2, 3, 1))), 1, LG_OPTS_CONCATENATION_OPTIONS, &o);
    EXPECT_FAIL(&t, op, "rank");
    /* dynamic: [?,3] ++ [2,3] along 1 -> the batch is learnt from the second: [2,6];
       along 0 -> the sum is unknown: [?,3] */
    int d = XF(&t, LG_DIMS(1, 3));
    SIG(&t, d, LG_DIMS(-1, 3));
    o.axis = 1;
    op = OP(&t, LG_OP_CONCATENATION, LG_IDS(d, a), 1, LG_OPTS_CONCATENATION_OPTIONS, &o);
    EXPECT(&t, op, "[2,6]");
    o.axis = 0;
    op = OP(&t, LG_OP_CONCATENATION, LG_IDS(d, a), 1, LG_OPTS_CONCATENATION_OPTIONS, &o);
    EXPECT(&t, op, "[?,3]");
    t_free(&t);
}

LG_TEST(infer_shape_pack_unpack) {
    T t;
    t_init(&t);
    int a = XF(&t, LG_DIMS(2, 3));
    lg_pack_options o;
    memset(&o, 0, sizeof o);
    o.values_count = 3;
    o.axis = 0;
    int op = OP(&t, LG_OP_PACK, LG_IDS(a, a, a), 1, LG_OPTS_PACK_OPTIONS, &o);
    EXPECT(&t, op, "[3,2,3]");
    o.axis = -1; /* -1 + 3 = 2 */
    op = OP(&t, LG_OP_PACK, LG_IDS(a, a, a), 1, LG_OPTS_PACK_OPTIONS, &o);
    EXPECT(&t, op, "[2,3,3]");
    o.axis = 0;
    o.values_count = 2;
    op = OP(&t, LG_OP_PACK, LG_IDS(a, XF(&t, LG_DIMS(2, 4))), 1, LG_OPTS_PACK_OPTIONS, &o);
    EXPECT_FAIL(&t, op, "shape");

    lg_unpack_options u;
    memset(&u, 0, sizeof u);
    u.num = 2;
    u.axis = 0;
    op = OP(&t, LG_OP_UNPACK, LG_IDS(a), 2, LG_OPTS_UNPACK_OPTIONS, &u);
    EXPECT(&t, op, "[3]", "[3]");
    u.axis = 1;
    u.num = 3;
    op = OP(&t, LG_OP_UNPACK, LG_IDS(a), 3, LG_OPTS_UNPACK_OPTIONS, &u);
    EXPECT(&t, op, "[2]", "[2]", "[2]");
    u.num = 2; /* 2 outputs for a dimension of 3 */
    op = OP(&t, LG_OP_UNPACK, LG_IDS(a), 2, LG_OPTS_UNPACK_OPTIONS, &u);
    EXPECT_FAIL(&t, op, "2 outputs for dimension 1 of size 3");
    t_free(&t);
}

/* ------------------------------------------------------------------ SPLIT, SPLIT_V */

LG_TEST(infer_shape_split) {
    T t;
    t_init(&t);
    int x = XF(&t, LG_DIMS(2, 6));
    lg_split_options o;
    memset(&o, 0, sizeof o);
    o.num_splits = 3;
    /* the axis is input 0 */
    int op = OP(&t, LG_OP_SPLIT, LG_IDS(CI(&t, LG_SCALAR, (int32_t[]){1}), x), 3, LG_OPTS_SPLIT_OPTIONS, &o);
    EXPECT(&t, op, "[2,2]", "[2,2]", "[2,2]");
    CHECK_EQ_INT(t.ty[0], LG_FLOAT32); /* the value's type, not the axis' INT32 */
    o.num_splits = 4; /* 6 % 4 != 0 */
    op = OP(&t, LG_OP_SPLIT, LG_IDS(CI(&t, LG_SCALAR, (int32_t[]){-1}), x), 4, LG_OPTS_SPLIT_OPTIONS, &o);
    EXPECT_FAIL(&t, op, "does not split evenly");
    o.num_splits = 2; /* axis 0: 2 / 2 */
    op = OP(&t, LG_OP_SPLIT, LG_IDS(CI(&t, LG_SCALAR, (int32_t[]){0}), x), 2, LG_OPTS_SPLIT_OPTIONS, &o);
    EXPECT(&t, op, "[1,6]", "[1,6]");

    lg_split_v_options v;
    memset(&v, 0, sizeof v);
    v.num_splits = 3;
    int y = XF(&t, LG_DIMS(2, 10));
    /* -1 takes 10 - 3 - 2 = 5 */
    op = OP(&t, LG_OP_SPLIT_V, LG_IDS(y, CI(&t, LG_DIMS(3), (int32_t[]){3, -1, 2}), CI(&t, LG_SCALAR, (int32_t[]){1})), 3, LG_OPTS_SPLIT_V_OPTIONS, &v);
    EXPECT(&t, op, "[2,3]", "[2,5]", "[2,2]");
    op = OP(&t, LG_OP_SPLIT_V, LG_IDS(y, CI(&t, LG_DIMS(3), (int32_t[]){3, 3, 3}), CI(&t, LG_SCALAR, (int32_t[]){1})), 3, LG_OPTS_SPLIT_V_OPTIONS, &v);
    EXPECT_FAIL(&t, op, "sum to 9");
    op = OP(&t, LG_OP_SPLIT_V, LG_IDS(y, CI(&t, LG_DIMS(3), (int32_t[]){3, 3, 4}), CI(&t, LG_SCALAR, (int32_t[]){1})), 3, LG_OPTS_SPLIT_V_OPTIONS, &v);
    EXPECT(&t, op, "[2,3]", "[2,3]", "[2,4]");
    t_free(&t);
}

/* ------------------------------------------------------------------ PAD, TILE, BROADCAST */

LG_TEST(infer_shape_pad) {
    T t;
    t_init(&t);
    int x = XF(&t, LG_DIMS(1, 4, 4, 3));
    int p = CI(&t, LG_DIMS(4, 2), (int32_t[]){0, 0, 1, 1, 2, 2, 0, 0});
    int op = OP(&t, LG_OP_PAD, LG_IDS(x, p), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[1,6,8,3]");
    op = OP(&t, LG_OP_PADV2, LG_IDS(x, p, CF(&t, LG_SCALAR, (float[]){0.5f})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[1,6,8,3]");
    lg_mirror_pad_options mo;
    memset(&mo, 0, sizeof mo);
    op = OP(&t, LG_OP_MIRROR_PAD, LG_IDS(x, p), 1, LG_OPTS_MIRROR_PAD_OPTIONS, &mo);
    EXPECT(&t, op, "[1,6,8,3]");
    op = OP(&t, LG_OP_PAD, LG_IDS(x, CI(&t, LG_DIMS(4, 2), (int32_t[]){0, 0, -1, 0, 0, 0, 0, 0})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "negative");
    op = OP(&t, LG_OP_PAD, LG_IDS(x, CI(&t, LG_DIMS(3, 2), (int32_t[]){0, 0, 1, 1, 0, 0})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "paddings has shape [3,2]");
    /* dynamic batch: [?,4,4,3] -> [?,6,8,3]; runtime paddings -> all unknown */
    int d = XF(&t, LG_DIMS(1, 4, 4, 3));
    SIG(&t, d, LG_DIMS(-1, 4, 4, 3));
    op = OP(&t, LG_OP_PAD, LG_IDS(d, p), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[?,6,8,3]");
    op = OP(&t, LG_OP_PAD, LG_IDS(x, X(&t, LG_INT32, LG_DIMS(4, 2))), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[?,?,?,?]");
    t_free(&t);
}

LG_TEST(infer_shape_tile_broadcast) {
    T t;
    t_init(&t);
    int x = XF(&t, LG_DIMS(2, 3));
    int op = OP(&t, LG_OP_TILE, LG_IDS(x, CI(&t, LG_DIMS(2), (int32_t[]){3, 2})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[6,6]");
    op = OP(&t, LG_OP_TILE, LG_IDS(x, CI(&t, LG_DIMS(3), (int32_t[]){3, 2, 1})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "multiples has 3 values");

    int y = XF(&t, LG_DIMS(3, 1));
    op = OP(&t, LG_OP_BROADCAST_TO, LG_IDS(y, CI(&t, LG_DIMS(3), (int32_t[]){2, 3, 4})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[2,3,4]");
    op = OP(&t, LG_OP_BROADCAST_TO, LG_IDS(x, CI(&t, LG_DIMS(3), (int32_t[]){2, 3, 4})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "does not broadcast");
    op = OP(&t, LG_OP_BROADCAST_TO, LG_IDS(x, CI(&t, LG_DIMS(1), (int32_t[]){3})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "below the input rank");
    op = OP(&t, LG_OP_BROADCAST_TO, LG_IDS(x, X(&t, LG_INT32, LG_DIMS(4))), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[?,?,?,?]");

    op = OP(&t, LG_OP_BROADCAST_ARGS, LG_IDS(X(&t, LG_INT32, LG_DIMS(2)), X(&t, LG_INT32, LG_DIMS(4))), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[4]");
    t_free(&t);
}

/* ------------------------------------------------------------------ SHAPE, RANK, FILL, RANGE, WHERE */

LG_TEST(infer_shape_shape_rank_fill) {
    T t;
    t_init(&t);
    int x = XF(&t, LG_DIMS(2, 3, 4));
    lg_shape_options so;
    memset(&so, 0, sizeof so);
    so.out_type = LG_INT64;
    int op = OP(&t, LG_OP_SHAPE, LG_IDS(x), 1, LG_OPTS_SHAPE_OPTIONS, &so);
    EXPECT(&t, op, "[3]");
    CHECK_EQ_INT(t.ty[0], LG_INT64);
    so.out_type = LG_INT32;
    op = OP(&t, LG_OP_SHAPE, LG_IDS(x), 1, LG_OPTS_SHAPE_OPTIONS, &so);
    EXPECT(&t, op, "[3]");
    CHECK_EQ_INT(t.ty[0], LG_INT32);

    op = OP(&t, LG_OP_RANK, LG_IDS(x), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[]");
    CHECK_EQ_INT(t.ty[0], LG_INT32);

    op = OP(&t, LG_OP_FILL, LG_IDS(CI(&t, LG_DIMS(2), (int32_t[]){2, 3}), CI(&t, LG_SCALAR, (int32_t[]){7})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[2,3]");
    CHECK_EQ_INT(t.ty[0], LG_INT32);
    op = OP(&t, LG_OP_FILL, LG_IDS(CI(&t, LG_DIMS(2), (int32_t[]){2, -3}), CF(&t, LG_SCALAR, (float[]){1})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "= -3");
    op = OP(&t, LG_OP_FILL, LG_IDS(X(&t, LG_INT32, LG_DIMS(3)), CF(&t, LG_SCALAR, (float[]){1})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[?,?,?]");
    CHECK_EQ_INT(t.ty[0], LG_FLOAT32);

    op = OP(&t, LG_OP_WHERE, LG_IDS(X(&t, LG_BOOL, LG_DIMS(3, 4))), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[?,2]");
    CHECK_EQ_INT(t.ty[0], LG_INT64);
    t_free(&t);
}

LG_TEST(infer_shape_range) {
    T t;
    t_init(&t);
    /* 0, 3, 6, 9: ceil(10 / 3) = 4 */
    int op = OP(&t, LG_OP_RANGE, LG_IDS(CI(&t, LG_SCALAR, (int32_t[]){0}), CI(&t, LG_SCALAR, (int32_t[]){10}), CI(&t, LG_SCALAR, (int32_t[]){3})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[4]");
    /* 5, 3, 1: |1-5| = 4, (4 + 2 - 1) / 2 = 2... start 5 limit 0 delta -2 -> 5,3,1 = 3 */
    op = OP(&t, LG_OP_RANGE, LG_IDS(CI(&t, LG_SCALAR, (int32_t[]){5}), CI(&t, LG_SCALAR, (int32_t[]){0}), CI(&t, LG_SCALAR, (int32_t[]){-2})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[3]");
    /* float: 0, 0.3, 0.6, 0.9 -> 4 */
    op = OP(&t, LG_OP_RANGE, LG_IDS(CF(&t, LG_SCALAR, (float[]){0}), CF(&t, LG_SCALAR, (float[]){1}), CF(&t, LG_SCALAR, (float[]){0.3f})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[4]");
    op = OP(&t, LG_OP_RANGE, LG_IDS(CI(&t, LG_SCALAR, (int32_t[]){0}), CI(&t, LG_SCALAR, (int32_t[]){10}), CI(&t, LG_SCALAR, (int32_t[]){-1})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "does not lead");
    op = OP(&t, LG_OP_RANGE, LG_IDS(CI(&t, LG_SCALAR, (int32_t[]){0}), CI(&t, LG_SCALAR, (int32_t[]){10}), CI(&t, LG_SCALAR, (int32_t[]){0})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "delta is zero");
    op = OP(&t, LG_OP_RANGE, LG_IDS(CI(&t, LG_SCALAR, (int32_t[]){0}), X(&t, LG_INT32, LG_SCALAR), CI(&t, LG_SCALAR, (int32_t[]){1})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[?]");
    t_free(&t);
}

/* ------------------------------------------------------------------ ONE_HOT, REVERSE, TOPK, UNIQUE */

LG_TEST(infer_shape_one_hot_topk_unique) {
    T t;
    t_init(&t);
    int ix = X(&t, LG_INT32, LG_DIMS(4));
    int depth = CI(&t, LG_SCALAR, (int32_t[]){5});
    int on = CF(&t, LG_SCALAR, (float[]){1}), off = CF(&t, LG_SCALAR, (float[]){0});
    lg_one_hot_options oh;
    memset(&oh, 0, sizeof oh);
    oh.axis = -1;
    int op = OP(&t, LG_OP_ONE_HOT, LG_IDS(ix, depth, on, off), 1, LG_OPTS_ONE_HOT_OPTIONS, &oh);
    EXPECT(&t, op, "[4,5]");
    CHECK_EQ_INT(t.ty[0], LG_FLOAT32);
    oh.axis = 0;
    op = OP(&t, LG_OP_ONE_HOT, LG_IDS(ix, depth, on, off), 1, LG_OPTS_ONE_HOT_OPTIONS, &oh);
    EXPECT(&t, op, "[5,4]");
    oh.axis = 2;
    op = OP(&t, LG_OP_ONE_HOT, LG_IDS(ix, depth, on, off), 1, LG_OPTS_ONE_HOT_OPTIONS, &oh);
    EXPECT_FAIL(&t, op, "axis 2");

    int x = XF(&t, LG_DIMS(3, 10));
    op = OP(&t, LG_OP_REVERSE_V2, LG_IDS(x, CI(&t, LG_DIMS(1), (int32_t[]){1})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[3,10]");
    op = OP(&t, LG_OP_TOPK_V2, LG_IDS(x, CI(&t, LG_SCALAR, (int32_t[]){4})), 2, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[3,4]", "[3,4]");
    CHECK_EQ_INT(t.ty[0], LG_FLOAT32);
    op = OP(&t, LG_OP_TOPK_V2, LG_IDS(x, CI(&t, LG_SCALAR, (int32_t[]){10})), 2, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[3,10]", "[3,10]");
    op = OP(&t, LG_OP_TOPK_V2, LG_IDS(x, CI(&t, LG_SCALAR, (int32_t[]){11})), 2, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "above the last dimension");

    lg_unique_options uo;
    memset(&uo, 0, sizeof uo);
    uo.idx_out_type = LG_INT64;
    op = OP(&t, LG_OP_UNIQUE, LG_IDS(XF(&t, LG_DIMS(7))), 2, LG_OPTS_UNIQUE_OPTIONS, &uo);
    EXPECT(&t, op, "[?]", "[7]");
    CHECK_EQ_INT(t.ty[0], LG_FLOAT32);
    CHECK_EQ_INT(t.ty[1], LG_INT64);
    op = OP(&t, LG_OP_UNIQUE, LG_IDS(x), 2, LG_OPTS_UNIQUE_OPTIONS, &uo);
    EXPECT_FAIL(&t, op, "1-D");
    t_free(&t);
}

/* ------------------------------------------------------------------ SPARSE_TO_DENSE, SCATTER_ND, EMBEDDING_LOOKUP */

LG_TEST(infer_shape_scatter_family) {
    T t;
    t_init(&t);
    int op = OP(&t, LG_OP_SPARSE_TO_DENSE,
                LG_IDS(X(&t, LG_INT32, LG_DIMS(2, 2)), CI(&t, LG_DIMS(2), (int32_t[]){3, 4}), XF(&t, LG_DIMS(2)), CF(&t, LG_SCALAR, (float[]){0})),
                1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[3,4]");
    CHECK_EQ_INT(t.ty[0], LG_FLOAT32);
    /* indices [4,1] into [8]: updates = [4] + shape[1:] = [4] */
    int ix = X(&t, LG_INT32, LG_DIMS(4, 1));
    int shp = CI(&t, LG_DIMS(1), (int32_t[]){8});
    op = OP(&t, LG_OP_SCATTER_ND, LG_IDS(ix, XF(&t, LG_DIMS(4)), shp), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[8]");
    op = OP(&t, LG_OP_SCATTER_ND, LG_IDS(ix, XF(&t, LG_DIMS(4, 2)), shp), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "updates have rank 2");
    op = OP(&t, LG_OP_SCATTER_ND, LG_IDS(ix, XF(&t, LG_DIMS(5)), shp), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "updates dimension 0 is 5");

    op = OP(&t, LG_OP_EMBEDDING_LOOKUP, LG_IDS(X(&t, LG_INT32, LG_DIMS(3)), XF(&t, LG_DIMS(10, 4))), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[3,4]");
    op = OP(&t, LG_OP_EMBEDDING_LOOKUP, LG_IDS(X(&t, LG_INT32, LG_DIMS(3)), XF(&t, LG_DIMS(10))), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "at least 2-D");
    t_free(&t);
}

/* ------------------------------------------------------------------ space/depth/batch */

LG_TEST(infer_shape_depth_space) {
    T t;
    t_init(&t);
    lg_depth_to_space_options d;
    d.block_size = 2;
    int op = OP(&t, LG_OP_DEPTH_TO_SPACE, LG_IDS(XF(&t, LG_DIMS(1, 2, 3, 8))), 1, LG_OPTS_DEPTH_TO_SPACE_OPTIONS, &d);
    EXPECT(&t, op, "[1,4,6,2]");
    op = OP(&t, LG_OP_DEPTH_TO_SPACE, LG_IDS(XF(&t, LG_DIMS(1, 2, 3, 6))), 1, LG_OPTS_DEPTH_TO_SPACE_OPTIONS, &d);
    EXPECT_FAIL(&t, op, "not divisible");
    lg_space_to_depth_options s;
    s.block_size = 2;
    op = OP(&t, LG_OP_SPACE_TO_DEPTH, LG_IDS(XF(&t, LG_DIMS(1, 4, 6, 3))), 1, LG_OPTS_SPACE_TO_DEPTH_OPTIONS, &s);
    EXPECT(&t, op, "[1,2,3,12]");
    op = OP(&t, LG_OP_SPACE_TO_DEPTH, LG_IDS(XF(&t, LG_DIMS(1, 5, 6, 3))), 1, LG_OPTS_SPACE_TO_DEPTH_OPTIONS, &s);
    EXPECT_FAIL(&t, op, "not divisible");
    op = OP(&t, LG_OP_SPACE_TO_DEPTH, LG_IDS(XF(&t, LG_DIMS(4, 6, 3))), 1, LG_OPTS_SPACE_TO_DEPTH_OPTIONS, &s);
    EXPECT_FAIL(&t, op, "4-D");
    t_free(&t);
}

LG_TEST(infer_shape_batch_space) {
    T t;
    t_init(&t);
    int blk = CI(&t, LG_DIMS(2), (int32_t[]){2, 2});
    int z = CI(&t, LG_DIMS(2, 2), (int32_t[]){0, 0, 0, 0});
    int op = OP(&t, LG_OP_BATCH_TO_SPACE_ND, LG_IDS(XF(&t, LG_DIMS(4, 2, 2, 1)), blk, z), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[1,4,4,1]");
    /* crops [[0,1],[1,0]]: 4-1 = 3 each */
    op = OP(&t, LG_OP_BATCH_TO_SPACE_ND, LG_IDS(XF(&t, LG_DIMS(4, 2, 2, 1)), blk, CI(&t, LG_DIMS(2, 2), (int32_t[]){0, 1, 1, 0})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[1,3,3,1]");
    op = OP(&t, LG_OP_BATCH_TO_SPACE_ND, LG_IDS(XF(&t, LG_DIMS(3, 2, 2, 1)), blk, z), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "not divisible");
    /* 3-D input: one spatial dimension: [4,3,5] block [4] -> [1,12,5] */
    op = OP(&t, LG_OP_BATCH_TO_SPACE_ND, LG_IDS(XF(&t, LG_DIMS(4, 3, 5)), CI(&t, LG_DIMS(1), (int32_t[]){4}), CI(&t, LG_DIMS(1, 2), (int32_t[]){0, 0})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[1,12,5]");

    op = OP(&t, LG_OP_SPACE_TO_BATCH_ND, LG_IDS(XF(&t, LG_DIMS(1, 4, 4, 1)), blk, z), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[4,2,2,1]");
    op = OP(&t, LG_OP_SPACE_TO_BATCH_ND, LG_IDS(XF(&t, LG_DIMS(1, 5, 4, 1)), blk, z), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "not divisible");
    /* near miss: padding 5 by [1,0] gives 6 = 3 * 2 */
    op = OP(&t, LG_OP_SPACE_TO_BATCH_ND, LG_IDS(XF(&t, LG_DIMS(1, 5, 4, 1)), blk, CI(&t, LG_DIMS(2, 2), (int32_t[]){1, 0, 0, 0})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[4,3,2,1]");
    /* runtime block: rank and channels known */
    op = OP(&t, LG_OP_SPACE_TO_BATCH_ND, LG_IDS(XF(&t, LG_DIMS(1, 4, 4, 3)), X(&t, LG_INT32, LG_DIMS(2)), z), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[?,?,?,3]");
    t_free(&t);
}

/* ------------------------------------------------------------------ matrix, segments, DUS */

LG_TEST(infer_shape_matrix_segment_dus) {
    T t;
    t_init(&t);
    int x = XF(&t, LG_DIMS(2, 3));
    int op = OP(&t, LG_OP_MATRIX_DIAG, LG_IDS(x), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[2,3,3]");
    op = OP(&t, LG_OP_MATRIX_SET_DIAG, LG_IDS(x, XF(&t, LG_DIMS(2))), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[2,3]");

    /* ids 0,0,1,2: last + 1 = 3 segments */
    int data = XF(&t, LG_DIMS(4, 3));
    op = OP(&t, LG_OP_SEGMENT_SUM, LG_IDS(data, CI(&t, LG_DIMS(4), (int32_t[]){0, 0, 1, 2})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[3,3]");
    op = OP(&t, LG_OP_SEGMENT_SUM, LG_IDS(data, X(&t, LG_INT32, LG_DIMS(4))), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[?,3]");
    op = OP(&t, LG_OP_SEGMENT_SUM, LG_IDS(data, X(&t, LG_INT32, LG_DIMS(5))), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "5 segment ids for 4 data rows");
    /* 70 constant ids (more than inference reads): the count stays unknown, no error */
    int32_t many[70];
    for (int k = 0; k < 70; k++) many[k] = k / 2; /* last id 34 */
    op = OP(&t, LG_OP_SEGMENT_SUM, LG_IDS(XF(&t, LG_DIMS(70, 3)), CI(&t, LG_DIMS(70), many)), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[?,3]");

    int ids = X(&t, LG_INT32, LG_DIMS(4));
    static const int32_t codes[4] = {LG_OP_UNSORTED_SEGMENT_SUM, LG_OP_UNSORTED_SEGMENT_PROD,
                                     LG_OP_UNSORTED_SEGMENT_MAX, LG_OP_UNSORTED_SEGMENT_MIN};
    for (int k = 0; k < 4; k++) {
        op = OP(&t, codes[k], LG_IDS(data, ids, CI(&t, LG_SCALAR, (int32_t[]){5})), 1, LG_OPTS_NONE, NULL);
        EXPECT(&t, op, "[5,3]");
    }
    /* ids [4,3] = data's full shape: output [5] */
    op = OP(&t, LG_OP_UNSORTED_SEGMENT_SUM, LG_IDS(data, X(&t, LG_INT32, LG_DIMS(4, 3)), CI(&t, LG_SCALAR, (int32_t[]){5})), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[5]");
    op = OP(&t, LG_OP_UNSORTED_SEGMENT_SUM, LG_IDS(data, X(&t, LG_INT32, LG_DIMS(3)), CI(&t, LG_SCALAR, (int32_t[]){5})), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "segment_ids dimension 0 is 3");

    int operand = XF(&t, LG_DIMS(4, 4));
    int starts = CI(&t, LG_DIMS(2), (int32_t[]){1, 1});
    op = OP(&t, LG_OP_DYNAMIC_UPDATE_SLICE, LG_IDS(operand, XF(&t, LG_DIMS(2, 4)), starts), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[4,4]");
    op = OP(&t, LG_OP_DYNAMIC_UPDATE_SLICE, LG_IDS(operand, XF(&t, LG_DIMS(5, 2)), starts), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "larger");
    t_free(&t);
}

/* ------------------------------------------------------------------ BITCAST, BUCKETIZE, DILATE */

LG_TEST(infer_shape_bitcast_bucketize_dilate) {
    T t;
    t_init(&t);
    int32_t y8 = X(&t, LG_UINT8, LG_SCALAR);
    int op = lg_b_op(&t.b, LG_OP_BITCAST, LG_IDS(XF(&t, LG_DIMS(2, 3))), LG_IDS(y8));
    EXPECT(&t, op, "[2,3,4]"); /* 4 bytes -> 4 x 1 byte */
    int32_t yf = X(&t, LG_FLOAT32, LG_SCALAR);
    op = lg_b_op(&t.b, LG_OP_BITCAST, LG_IDS(X(&t, LG_INT8, LG_DIMS(2, 4))), LG_IDS(yf));
    EXPECT(&t, op, "[2]");
    yf = X(&t, LG_FLOAT32, LG_SCALAR);
    op = lg_b_op(&t.b, LG_OP_BITCAST, LG_IDS(X(&t, LG_INT8, LG_DIMS(2, 3))), LG_IDS(yf));
    EXPECT_FAIL(&t, op, "needs 4");
    int32_t yi = X(&t, LG_INT32, LG_SCALAR);
    op = lg_b_op(&t.b, LG_OP_BITCAST, LG_IDS(XF(&t, LG_DIMS(2, 3))), LG_IDS(yi));
    EXPECT(&t, op, "[2,3]");

    op = OP(&t, LG_OP_BUCKETIZE, LG_IDS(XF(&t, LG_DIMS(2, 3))), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[2,3]");
    CHECK_EQ_INT(t.ty[0], LG_INT32);

    /* (3-1)*2+1 = 5, (3-1)*3+1 = 7 */
    int x = XF(&t, LG_DIMS(3, 3));
    int pv = CF(&t, LG_SCALAR, (float[]){0});
    op = OP(&t, LG_OP_DILATE, LG_IDS(x, CI(&t, LG_DIMS(2), (int32_t[]){2, 3}), pv), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[5,7]");
    op = OP(&t, LG_OP_DILATE, LG_IDS(x, CI(&t, LG_DIMS(2), (int32_t[]){1, 1}), pv), 1, LG_OPTS_NONE, NULL);
    EXPECT(&t, op, "[3,3]");
    op = OP(&t, LG_OP_DILATE, LG_IDS(x, CI(&t, LG_DIMS(2), (int32_t[]){0, 1}), pv), 1, LG_OPTS_NONE, NULL);
    EXPECT_FAIL(&t, op, "must be >= 1");
    t_free(&t);
}

/* ------------------------------------------------------------------ unknown ranks, whole graphs */

LG_TEST(infer_shape_unknown_rank_inputs) {
    T t;
    t_init(&t);
    int x = XF(&t, LG_DIMS(2, 3));
    lg_concatenation_options o;
    memset(&o, 0, sizeof o);
    o.axis = 0;
    int op = OP(&t, LG_OP_CONCATENATION, LG_IDS(x, x), 1, LG_OPTS_CONCATENATION_OPTIONS, &o);
    lg_shape ins[2];
    memset(ins, 0, sizeof ins);
    ins[0].rank = -1;
    ins[1].rank = 2;
    ins[1].dim[0] = 2;
    ins[1].dim[1] = 3;
    t.ins = ins;
    /* one input of unknown rank: the axis sum is unknown, the other dim is 3 */
    EXPECT(&t, op, "[?,3]");
    ins[1].rank = -1;
    EXPECT(&t, op, "[?]");
    t_free(&t);
}

LG_TEST(infer_shape_chain_through_model) {
    T t;
    t_init(&t);
    /* [?,4,4,3] -> PAD -> [?,6,6,3] -> RESHAPE [-1,108] -> [?,108]... with a known batch the
       -1 resolves: 1*6*6*3 = 108 -> [1,108] */
    int x = XF(&t, LG_DIMS(1, 4, 4, 3));
    int p = X(&t, LG_FLOAT32, LG_SCALAR), r = X(&t, LG_FLOAT32, LG_SCALAR);
    lg_b_op(&t.b, LG_OP_PAD, LG_IDS(x, CI(&t, LG_DIMS(4, 2), (int32_t[]){0, 0, 1, 1, 1, 1, 0, 0})), LG_IDS(p));
    lg_b_op(&t.b, LG_OP_RESHAPE, LG_IDS(p, CI(&t, LG_DIMS(2), (int32_t[]){-1, 108})), LG_IDS(r));
    lg_shape s[16];
    CHECK_OK(lg_model_infer_shapes(t.m, 0, LG_INFER_STATIC, s, &t.err), &t.err);
    char buf[64];
    CHECK_STR(lg_shape_str(&s[p], buf, sizeof buf), "[1,6,6,3]");
    CHECK_STR(lg_shape_str(&s[r], buf, sizeof buf), "[1,108]");
    t_free(&t);
}

/* ------------------------------------------------------------------ the rows */

LG_TEST(infer_shape_rows) {
    static const int32_t mine[] = {
        LG_OP_RESHAPE, LG_OP_SQUEEZE, LG_OP_EXPAND_DIMS, LG_OP_TRANSPOSE, LG_OP_STRIDED_SLICE,
        LG_OP_SLICE, LG_OP_GATHER, LG_OP_GATHER_ND, LG_OP_CONCATENATION, LG_OP_PACK,
        LG_OP_UNPACK, LG_OP_SPLIT, LG_OP_SPLIT_V, LG_OP_PAD, LG_OP_PADV2, LG_OP_MIRROR_PAD,
        LG_OP_TILE, LG_OP_BROADCAST_TO, LG_OP_BROADCAST_ARGS, LG_OP_SHAPE, LG_OP_RANK,
        LG_OP_FILL, LG_OP_RANGE, LG_OP_WHERE, LG_OP_ONE_HOT, LG_OP_REVERSE_V2,
        LG_OP_REVERSE_SEQUENCE, LG_OP_TOPK_V2, LG_OP_UNIQUE, LG_OP_SPARSE_TO_DENSE,
        LG_OP_SCATTER_ND, LG_OP_EMBEDDING_LOOKUP, LG_OP_DEPTH_TO_SPACE, LG_OP_SPACE_TO_DEPTH,
        LG_OP_BATCH_TO_SPACE_ND, LG_OP_SPACE_TO_BATCH_ND, LG_OP_MATRIX_DIAG,
        LG_OP_MATRIX_SET_DIAG, LG_OP_SEGMENT_SUM, LG_OP_UNSORTED_SEGMENT_SUM,
        LG_OP_UNSORTED_SEGMENT_PROD, LG_OP_UNSORTED_SEGMENT_MAX, LG_OP_UNSORTED_SEGMENT_MIN,
        LG_OP_DYNAMIC_UPDATE_SLICE, LG_OP_BITCAST, LG_OP_BUCKETIZE, LG_OP_DILATE};
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++) {
        const lg_op_info *e = lg_op_info_builtin(mine[i]);
        if (!e || !e->name) {
            tf_fail(__FILE__, __LINE__, "no row for builtin %d", mine[i]);
            continue;
        }
        CHECK_STR(e->name, lg_builtin_name(mine[i]));
        CHECK_EQ_INT(e->code, mine[i]);
        CHECK_EQ_INT(e->family, LG_FAM_SHAPE);
        if (e->opts_kind != LG_OPTS_NONE && !lg_opts_name(e->opts_kind))
            tf_fail(__FILE__, __LINE__, "%s: options kind %d has no name", e->name, (int)e->opts_kind);
        CHECK(e->min_in <= e->max_in && e->min_out <= e->max_out);
        CHECK(e->infer != NULL);
    }
    /* spot checks of cells that models depend on */
    CHECK_EQ_INT(lg_op_info_builtin(LG_OP_RESHAPE)->min_in, 1); /* ReshapeOptions-only form */
    CHECK_EQ_INT(lg_op_info_builtin(LG_OP_PAD)->max_in, 3);
    CHECK_EQ_INT(lg_op_info_builtin(LG_OP_PAD)->opts_kind, LG_OPTS_PAD_OPTIONS);
    CHECK_EQ_INT(lg_op_info_builtin(LG_OP_SPLIT)->dtype, LG_DT_BY_INFER);
    CHECK(lg_op_info_builtin(LG_OP_CONCATENATION)->flags & LG_OPF_FUSED_ACT);
    CHECK(lg_op_info_builtin(LG_OP_WHERE)->flags & LG_OPF_DYNAMIC);
}

/* ------------------------------------------------------------------ cross-check with the kernels */

typedef int (*build_fn)(T *t); /* builds one op whose input 0 is the graph input; returns the op */

static int xb_reshape(T *t) { return OP(t, LG_OP_RESHAPE, LG_IDS(XF(t, LG_DIMS(2, 3, 4)), CI(t, LG_DIMS(2), (int32_t[]){-1, 6})), 1, LG_OPTS_NONE, NULL); }
static int xb_squeeze(T *t) {
    lg_squeeze_options o;
    memset(&o, 0, sizeof o);
    return OP(t, LG_OP_SQUEEZE, LG_IDS(XF(t, LG_DIMS(1, 3, 1, 2))), 1, LG_OPTS_SQUEEZE_OPTIONS, &o);
}
static int xb_expand(T *t) { return OP(t, LG_OP_EXPAND_DIMS, LG_IDS(XF(t, LG_DIMS(2, 3)), CI(t, LG_SCALAR, (int32_t[]){1})), 1, LG_OPTS_NONE, NULL); }
static int xb_transpose(T *t) { return OP(t, LG_OP_TRANSPOSE, LG_IDS(XF(t, LG_DIMS(2, 3, 4)), CI(t, LG_DIMS(3), (int32_t[]){2, 0, 1})), 1, LG_OPTS_NONE, NULL); }
static int xb_concat(T *t) {
    lg_concatenation_options o;
    memset(&o, 0, sizeof o);
    o.axis = -1;
    int x = XF(t, LG_DIMS(2, 3));
    return OP(t, LG_OP_CONCATENATION, LG_IDS(x, CF(t, LG_DIMS(2, 2), (float[]){1, 2, 3, 4})), 1, LG_OPTS_CONCATENATION_OPTIONS, &o);
}
static int xb_pack(T *t) {
    lg_pack_options o;
    memset(&o, 0, sizeof o);
    o.values_count = 2;
    o.axis = 1;
    int x = XF(t, LG_DIMS(2, 3));
    return OP(t, LG_OP_PACK, LG_IDS(x, x), 1, LG_OPTS_PACK_OPTIONS, &o);
}
static int xb_unpack(T *t) {
    lg_unpack_options o;
    memset(&o, 0, sizeof o);
    o.num = 3;
    o.axis = 1;
    return OP(t, LG_OP_UNPACK, LG_IDS(XF(t, LG_DIMS(2, 3))), 3, LG_OPTS_UNPACK_OPTIONS, &o);
}
static int xb_split(T *t) {
    lg_split_options o;
    memset(&o, 0, sizeof o);
    o.num_splits = 2;
    int x = XF(t, LG_DIMS(2, 6));
    return OP(t, LG_OP_SPLIT, LG_IDS(CI(t, LG_SCALAR, (int32_t[]){1}), x), 2, LG_OPTS_SPLIT_OPTIONS, &o);
}
static int xb_split_v(T *t) {
    lg_split_v_options o;
    memset(&o, 0, sizeof o);
    o.num_splits = 2;
    return OP(t, LG_OP_SPLIT_V, LG_IDS(XF(t, LG_DIMS(2, 6)), CI(t, LG_DIMS(2), (int32_t[]){-1, 2}), CI(t, LG_SCALAR, (int32_t[]){1})), 2, LG_OPTS_SPLIT_V_OPTIONS, &o);
}
static int xb_slice(T *t) { return OP(t, LG_OP_SLICE, LG_IDS(XF(t, LG_DIMS(4, 5)), CI(t, LG_DIMS(2), (int32_t[]){1, 2}), CI(t, LG_DIMS(2), (int32_t[]){2, -1})), 1, LG_OPTS_NONE, NULL); }
static int xb_strided(T *t) {
    int x = XF(t, LG_DIMS(5, 6, 4));
    return strided(t, x, LG_DIMS(-1, 0, 1), LG_DIMS(-6, 6, 2), LG_DIMS(-2, 4, 1), 0, 0, 0, 0, 4, false);
}
static int xb_strided_masks(T *t) {
    int x = XF(t, LG_DIMS(2, 3, 4));
    return strided(t, x, LG_DIMS(0, 0, 1), LG_DIMS(0, 0, 3), LG_DIMS(1, 1, 1), 1, 1, 0, 2, 0, false);
}
static int xb_pad(T *t) { return OP(t, LG_OP_PAD, LG_IDS(XF(t, LG_DIMS(1, 2, 2, 1)), CI(t, LG_DIMS(4, 2), (int32_t[]){0, 0, 1, 2, 0, 1, 0, 0})), 1, LG_OPTS_NONE, NULL); }
static int xb_padv2(T *t) { return OP(t, LG_OP_PADV2, LG_IDS(XF(t, LG_DIMS(2, 2)), CI(t, LG_DIMS(2, 2), (int32_t[]){1, 0, 0, 3}), CF(t, LG_SCALAR, (float[]){1})), 1, LG_OPTS_NONE, NULL); }
static int xb_mirror(T *t) {
    lg_mirror_pad_options o;
    memset(&o, 0, sizeof o);
    return OP(t, LG_OP_MIRROR_PAD, LG_IDS(XF(t, LG_DIMS(3, 3)), CI(t, LG_DIMS(2, 2), (int32_t[]){1, 1, 2, 0})), 1, LG_OPTS_MIRROR_PAD_OPTIONS, &o);
}
static int xb_gather(T *t) {
    lg_gather_options o;
    memset(&o, 0, sizeof o);
    o.axis = 1;
    return OP(t, LG_OP_GATHER, LG_IDS(XF(t, LG_DIMS(3, 4, 2)), CI(t, LG_DIMS(2, 2), (int32_t[]){0, 1, 3, 2})), 1, LG_OPTS_GATHER_OPTIONS, &o);
}
static int xb_gather_nd(T *t) { return OP(t, LG_OP_GATHER_ND, LG_IDS(XF(t, LG_DIMS(3, 4, 2)), CI(t, LG_DIMS(2, 2), (int32_t[]){0, 1, 2, 3})), 1, LG_OPTS_NONE, NULL); }
static int xb_tile(T *t) { return OP(t, LG_OP_TILE, LG_IDS(XF(t, LG_DIMS(2, 3)), CI(t, LG_DIMS(2), (int32_t[]){2, 1})), 1, LG_OPTS_NONE, NULL); }
static int xb_bcast(T *t) { return OP(t, LG_OP_BROADCAST_TO, LG_IDS(XF(t, LG_DIMS(3, 1)), CI(t, LG_DIMS(3), (int32_t[]){2, 3, 4})), 1, LG_OPTS_NONE, NULL); }
static int xb_shape(T *t) {
    lg_shape_options o;
    memset(&o, 0, sizeof o);
    o.out_type = LG_INT32;
    int32_t y = X(t, LG_INT32, LG_SCALAR);
    return lg_b_op_opts(&t->b, LG_OP_SHAPE, LG_IDS(XF(t, LG_DIMS(2, 3, 4))), LG_IDS(y), LG_OPTS_SHAPE_OPTIONS, &o);
}
static int xb_fill(T *t) { return OP(t, LG_OP_FILL, LG_IDS(CI(t, LG_DIMS(2), (int32_t[]){2, 3}), XF(t, LG_SCALAR)), 1, LG_OPTS_NONE, NULL); }
static int xb_s2d(T *t) {
    lg_space_to_depth_options o = {2};
    return OP(t, LG_OP_SPACE_TO_DEPTH, LG_IDS(XF(t, LG_DIMS(1, 4, 6, 3))), 1, LG_OPTS_SPACE_TO_DEPTH_OPTIONS, &o);
}
static int xb_d2s(T *t) {
    lg_depth_to_space_options o = {2};
    return OP(t, LG_OP_DEPTH_TO_SPACE, LG_IDS(XF(t, LG_DIMS(1, 2, 3, 8))), 1, LG_OPTS_DEPTH_TO_SPACE_OPTIONS, &o);
}
static int xb_reverse(T *t) { return OP(t, LG_OP_REVERSE_V2, LG_IDS(XF(t, LG_DIMS(3, 4)), CI(t, LG_DIMS(1), (int32_t[]){1})), 1, LG_OPTS_NONE, NULL); }
static int xb_one_hot(T *t) {
    lg_one_hot_options o;
    memset(&o, 0, sizeof o);
    o.axis = -1;
    int32_t y = X(t, LG_FLOAT32, LG_SCALAR);
    return lg_b_op_opts(&t->b, LG_OP_ONE_HOT, LG_IDS(CI(t, LG_DIMS(2, 2), (int32_t[]){0, 2, 1, 3}), CI(t, LG_SCALAR, (int32_t[]){4}), XF(t, LG_SCALAR), CF(t, LG_SCALAR, (float[]){0})), LG_IDS(y), LG_OPTS_ONE_HOT_OPTIONS, &o);
}
static int xb_embedding(T *t) { return OP(t, LG_OP_EMBEDDING_LOOKUP, LG_IDS(CI(t, LG_DIMS(3), (int32_t[]){2, 0, 1}), XF(t, LG_DIMS(4, 5))), 1, LG_OPTS_NONE, NULL); }
static int xb_range(T *t) {
    int32_t y = X(t, LG_INT32, LG_SCALAR);
    return lg_b_op(&t->b, LG_OP_RANGE, LG_IDS(CI(t, LG_SCALAR, (int32_t[]){1}), CI(t, LG_SCALAR, (int32_t[]){12}), CI(t, LG_SCALAR, (int32_t[]){4})), LG_IDS(y));
}

/* Build, infer, run (inputs zero), and compare every output's run-time shape with the
   inferred one. */
static void cross_check(const char *name, build_fn build) {
    T t;
    t_init(&t);
    if (!t.m) return;
    int op = build(&t);
    if (t.b.status != LG_OK) {
        tf_fail(__FILE__, __LINE__, "%s: builder: %s", name, t.b.err.msg);
        t_free(&t);
        return;
    }
    const lg_subgraph *sg = &t.m->subgraphs[0];
    const lg_op *o = &sg->ops[op];
    int32_t ins[16];
    uint32_t ni = 0;
    for (uint32_t k = 0; k < o->n_inputs && ni < 16; k++) {
        const lg_tensor *tt = &sg->tensors[o->inputs[k]];
        if (tt->buffer == 0) ins[ni++] = o->inputs[k];
    }
    int32_t outs[8];
    uint32_t no = o->n_outputs;
    memcpy(outs, o->outputs, no * sizeof outs[0]);
    lg_b_io(&t.b, (lg_dims){ins, ni}, (lg_dims){outs, no});
    if (infer(&t, op) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "%s: inference failed: %s", name, t.err.msg);
        t_free(&t);
        return;
    }
    /* the outputs are stored without a shape (rank unknown: has_rank false), so the
       interpreter keeps the shapes its kernels compute and validation has nothing to hold
       them to */
    for (uint32_t k = 0; k < no; k++) {
        lg_tensor *ot = &t.m->subgraphs[0].tensors[outs[k]];
        if (ot->rank == 0) ot->has_rank = false;
    }
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.precision = LG_PREC_F32;
    ro.keep_all = true;
    lg_interp *it = NULL;
    lg_error err;
    if (lg_interp_create(t.m, &ro, &it, &err) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "%s: interp: %s", name, err.msg);
        t_free(&t);
        return;
    }
    lg_status st = LG_OK;
    for (uint32_t i = 0; i < lg_interp_n_inputs(it) && st == LG_OK; i++) {
        lg_tensor_view v;
        lg_interp_input(it, i, &v);
        void *zeros = calloc(1, v.nbytes ? v.nbytes : 1);
        st = lg_interp_set_input(it, i, v.type, zeros, v.nbytes, &err);
        free(zeros);
    }
    if (st == LG_OK) st = lg_interp_invoke(it, &err);
    if (st != LG_OK) tf_fail(__FILE__, __LINE__, "%s: run: %s", name, err.msg);
    for (uint32_t k = 0; st == LG_OK && k < no; k++) {
        lg_tensor_view v;
        if (lg_interp_tensor(it, outs[k], &v) != LG_OK) {
            tf_fail(__FILE__, __LINE__, "%s: no tensor %d", name, outs[k]);
            continue;
        }
        lg_shape run;
        memset(&run, 0, sizeof run);
        run.rank = (int32_t)v.rank;
        for (uint32_t d = 0; d < v.rank && d < LG_MAX_RANK; d++) run.dim[d] = v.shape[d];
        char a[128];
        lg_shape_str(&run, a, sizeof a);
        if (strcmp(a, t.str[k]) != 0)
            tf_fail(__FILE__, __LINE__, "%s output %u: the kernel gives %s, inference %s", name, k, a, t.str[k]);
    }
    lg_interp_free(it);
    t_free(&t);
}

LG_TEST(infer_shape_matches_kernels) {
    static const struct { const char *name; build_fn fn; } cases[] = {
        {"RESHAPE", xb_reshape}, {"SQUEEZE", xb_squeeze}, {"EXPAND_DIMS", xb_expand},
        {"TRANSPOSE", xb_transpose}, {"CONCATENATION", xb_concat}, {"PACK", xb_pack},
        {"UNPACK", xb_unpack}, {"SPLIT", xb_split}, {"SPLIT_V", xb_split_v},
        {"SLICE", xb_slice}, {"STRIDED_SLICE", xb_strided}, {"STRIDED_SLICE masks", xb_strided_masks},
        {"PAD", xb_pad}, {"PADV2", xb_padv2}, {"MIRROR_PAD", xb_mirror}, {"GATHER", xb_gather},
        {"GATHER_ND", xb_gather_nd}, {"TILE", xb_tile}, {"BROADCAST_TO", xb_bcast},
        {"SHAPE", xb_shape}, {"FILL", xb_fill}, {"SPACE_TO_DEPTH", xb_s2d},
        {"DEPTH_TO_SPACE", xb_d2s}, {"REVERSE_V2", xb_reverse}, {"ONE_HOT", xb_one_hot},
        {"EMBEDDING_LOOKUP", xb_embedding}, {"RANGE", xb_range},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) cross_check(cases[i].name, cases[i].fn);
}
