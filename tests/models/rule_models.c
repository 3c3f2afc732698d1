/* The rule-trigger models (see rule_models.h), part 1: the data, the table, the shared
   helpers (rule_models_impl.h) and the op-set, global and per-op rules; part 2 is
   rule_models_field.c. Output shapes follow TFLite's kernels; the comment above a model
   gives the arithmetic where it is not a copy of the input shape. */
#include "rule_models.h"
#include "rule_models_impl.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ data */

float lgm_i_wf[LGM_RAMP_N];    /* a small fixed ramp for weights and constant operands */
static uint16_t wh[LGM_RAMP_N]; /* the same ramp as FLOAT16 bits */
static int data_ready;

/* IEEE binary16 of a float that is exactly representable (the ramp's values are k/64). */
static uint16_t f16_bits(float f) {
    if (f == 0.0f) return 0;
    uint16_t s = f < 0 ? 0x8000u : 0;
    float a = fabsf(f);
    int e = 0;
    float m = frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    int he = e - 1 + 15;     /* a = (2m) * 2^(e-1) */
    uint32_t man = (uint32_t)lrintf((2.0f * m - 1.0f) * 1024.0f);
    return (uint16_t)(s | (uint32_t)he << 10 | man);
}

static void init_data(void) {
    if (data_ready) return;
    for (int i = 0; i < LGM_RAMP_N; i++) {
        lgm_i_wf[i] = (float)((i * 37) % 17 - 8) / 64.0f;
        wh[i] = f16_bits(lgm_i_wf[i]);
    }
    data_ready = 1;
}

const float *lgm_ramp_f32(void) {
    init_data();
    return lgm_i_wf;
}

const uint16_t *lgm_ramp_f16(void) {
    init_data();
    return wh;
}

lg_model *lgm_build(lgm_build_fn fn, lgm_io io, lg_error *err) {
    lg_model *m = NULL;
    if (lg_model_new(NULL, NULL, &m, err) != LG_OK) return NULL;
    init_data();
    lg_builder b;
    lg_builder_init(&b, m, 0);
    fn(&b, io);
    if (b.status != LG_OK) {
        if (err) *err = b.err;
        lg_model_free(m);
        return NULL;
    }
    return m;
}

#define LGM_ROW_(fn, rule, variant, flags, args) {#fn, rule, variant, flags, args, lgm_##fn},
const lgm_case lgm_cases[] = {LGM_MODELS(LGM_ROW_)};
#undef LGM_ROW_
const size_t lgm_n_cases = sizeof lgm_cases / sizeof lgm_cases[0];

/* ------------------------------------------------------------------ helpers */

static int ok(const lg_builder *b) { return b->status == LG_OK; }

lg_conv2d_options lgm_i_conv_opts(int act) {
    lg_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_SAME;
    o.stride_w = o.stride_h = 1;
    o.dilation_w_factor = o.dilation_h_factor = 1;
    o.fused_activation_function = (int8_t)act;
    return o;
}

lg_reducer_options lgm_i_keep_dims(bool keep) {
    lg_reducer_options o;
    memset(&o, 0, sizeof o);
    o.keep_dims = keep;
    return o;
}

/* A binary elementwise op with its options table (activation NONE), as converters write it. */
int32_t lgm_i_binop(lg_builder *b, int32_t code, int32_t x, int32_t y, int32_t out) {
    lg_add_options ao = {LG_ACTIVATION_FUNCTION_TYPE_NONE, false};
    lg_sub_options so = {LG_ACTIVATION_FUNCTION_TYPE_NONE, false};
    lg_mul_options mo = {LG_ACTIVATION_FUNCTION_TYPE_NONE};
    lg_div_options dop = {LG_ACTIVATION_FUNCTION_TYPE_NONE};
    switch (code) {
    case LG_OP_ADD: return lg_b_op_opts(b, code, LG_IDS(x, y), LG_IDS(out), LG_OPTS_ADD_OPTIONS, &ao);
    case LG_OP_SUB: return lg_b_op_opts(b, code, LG_IDS(x, y), LG_IDS(out), LG_OPTS_SUB_OPTIONS, &so);
    case LG_OP_MUL: return lg_b_op_opts(b, code, LG_IDS(x, y), LG_IDS(out), LG_OPTS_MUL_OPTIONS, &mo);
    case LG_OP_DIV: return lg_b_op_opts(b, code, LG_IDS(x, y), LG_IDS(out), LG_OPTS_DIV_OPTIONS, &dop);
    default: return lg_b_op(b, code, LG_IDS(x, y), LG_IDS(out));
    }
}

/* One unary op (builtin, 1 input, 1 output) on x[shape] of type dt. */
void lgm_i_unary(lg_builder *b, int32_t builtin, int32_t version, lg_dtype dt, lg_dims shape) {
    int x = lg_b_tensor(b, "x", dt, shape);
    int y = lg_b_tensor(b, "y", dt, shape);
    lg_b_op_v(b, builtin, version, LG_IDS(x), LG_IDS(y), LG_OPTS_NONE, NULL);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* x[1,8,8,4] -> CONV_2D 3x3 SAME stride 1 (4 -> 4 channels) with the given options -> y. */
static void conv_with(lg_builder *b, const lg_conv2d_options *o) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int w = lg_b_const_f32(b, "w", LG_DIMS(4, 3, 3, 4), lgm_i_wf);
    int bi = lg_b_const_f32(b, "bias", LG_DIMS(4), lgm_i_wf);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* Sets per-tensor (n 1) or per-channel quantization; a failure fails the builder. */
void lgm_i_quant(lg_builder *b, int t, const float *scale, uint32_t n, int32_t dim) {
    if (!ok(b)) return;
    lg_error err;
    if (lg_tensor_set_quant(b->m, b->sg, (uint32_t)t, scale, NULL, n, dim, &err) != LG_OK) {
        b->status = LG_ERR_INVALID_ARG;
        b->err = err;
    }
}

/* Marks constant t [4,4] as a sparse tensor stored dense (both dimensions DENSE, traversal
   order 0,1), as a DENSIFY input must be: TFLite's DENSIFY kernel refuses a tensor without
   sparsity parameters, and then the delegate never sees the model. */
static void mark_sparse(lg_builder *b, int t) {
    static const int32_t order[2] = {0, 1};
    static lg_dim_meta dims[2];
    static lg_sparsity sp;
    if (!ok(b)) return;
    memset(dims, 0, sizeof dims);
    dims[0].format = dims[1].format = LG_DIMENSION_TYPE_DENSE;
    dims[0].dense_size = dims[1].dense_size = 4;
    memset(&sp, 0, sizeof sp);
    sp.traversal_order = order;
    sp.n_traversal_order = 2;
    sp.dim_metadata = dims;
    sp.n_dim_metadata = 2;
    b->m->subgraphs[b->sg].tensors[t].sparsity = &sp;
}

/* The op's input of type dt: with LGM_IO_ANY (or a float32/int32 dt) the graph input
   itself; with LGM_IO_LITERT a float32 graph input converted by CAST (FLOAT16, INT64...). *graph_in gets the
   graph input. */
int lgm_i_typed_input(lg_builder *b, lgm_io io, const char *name, lg_dtype dt, lg_dims shape, int *graph_in) {
    if (io == LGM_IO_ANY || dt == LG_FLOAT32 || dt == LG_INT32) {
        *graph_in = lg_b_tensor(b, name, dt, shape);
        return *graph_in;
    }
    char n2[64];
    snprintf(n2, sizeof n2, "%s_%s", name, dt == LG_FLOAT16 ? "f16" : "cast");
    int x = lg_b_tensor(b, name, LG_FLOAT32, shape);
    int h = lg_b_tensor(b, n2, dt, shape);
    lg_b_op(b, LG_OP_CAST, LG_IDS(x), LG_IDS(h));
    *graph_in = x;
    return h;
}

/* The op's output of type dt named name: with LGM_IO_ANY (or a float32/int32 dt) the graph
   output; with LGM_IO_LITERT a tensor "<name>_<f16|cast>" that a CAST writes out as float32 graph output
   `name`. Returns the op's output; *graph_out gets the graph output (call typed_output_end
   after the op). */
int lgm_i_typed_output(lg_builder *b, lgm_io io, const char *name, lg_dtype dt, lg_dims shape, int *graph_out) {
    if (io == LGM_IO_ANY || dt == LG_FLOAT32 || dt == LG_INT32) {
        *graph_out = lg_b_tensor(b, name, dt, shape);
        return *graph_out;
    }
    char n2[64];
    snprintf(n2, sizeof n2, "%s_%s", name, dt == LG_FLOAT16 ? "f16" : "cast");
    int h = lg_b_tensor(b, n2, dt, shape);
    *graph_out = -1 - h; /* made by typed_output_end */
    return h;
}

int lgm_i_typed_output_end(lg_builder *b, const char *name, int h, int graph_out, lg_dims shape) {
    if (graph_out >= 0) return graph_out;
    int y = lg_b_tensor(b, name, LG_FLOAT32, shape);
    lg_b_op(b, LG_OP_CAST, LG_IDS(h), LG_IDS(y));
    return y;
}

/* x -> op (1 input, same type dt in and out) -> y, through typed_input/typed_output. */
static void unary_typed(lg_builder *b, lgm_io io, int32_t code, int32_t version, lg_opts_kind kind,
                        const void *opts, lg_dtype dt, lg_dims shape) {
    int xin, yout;
    int x = lgm_i_typed_input(b, io, "x", dt, shape, &xin);
    int h = lgm_i_typed_output(b, io, "y", dt, shape, &yout);
    lg_b_op_v(b, code, version, LG_IDS(x), LG_IDS(h), kind, opts);
    int y = lgm_i_typed_output_end(b, "y", h, yout, shape);
    lg_b_io(b, LG_IDS(xin), LG_IDS(y));
}

/* GATHER_ND indices [1,4,4,3] picking x[0, 2i, 2j] (x[:, ::2, ::2]). */
static const int32_t *gather_nd_idx(void) {
    static int32_t idx[4 * 4 * 3];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            idx[(i * 4 + j) * 3 + 0] = 0;
            idx[(i * 4 + j) * 3 + 1] = 2 * i;
            idx[(i * 4 + j) * 3 + 2] = 2 * j;
        }
    return idx;
}

/* ------------------------------------------------------------------ op-unsupported */

/* x -> RELU -> GATHER_ND (x[:, ::2, ::2]) -> y: GATHER_ND is in no parser switch. Output:
   indices.shape[:-1] + params.shape[3:] = [1,4,4] + [4] (gather_nd.cc Prepare). */
void lgm_op_unsupported_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int i = lg_b_const_i32(b, "idx", LG_DIMS(1, 4, 4, 3), gather_nd_idx());
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_op(b, LG_OP_GATHER_ND, LG_IDS(r, i), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* DENSIFY (classic only) of a sparse constant feeding a FULLY_CONNECTED's weights:
   x[1,4] x w[4,4]^T -> [1,4]. */
void lgm_op_unsupported_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    lg_fully_connected_options fo;
    memset(&fo, 0, sizeof fo);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int ws = lg_b_const_f32(b, "w_sparse", LG_DIMS(4, 4), lgm_i_wf);
    int w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 4));
    mark_sparse(b, ws);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(b, LG_OP_DENSIFY, LG_IDS(ws), LG_IDS(w));
    lg_b_op_opts(b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w), LG_IDS(y), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* conv -> RELU -> GATHER_ND -> conv: two GPU subsets around the CPU op (ops 0-1, 3). */
void lgm_op_unsupported_trigger3(lg_builder *b, lgm_io io) {
    (void)io;
    lg_conv2d_options o = lgm_i_conv_opts(0);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int w = lg_b_const_f32(b, "w", LG_DIMS(4, 3, 3, 4), lgm_i_wf);
    int bi = lg_b_const_f32(b, "bias", LG_DIMS(4), lgm_i_wf);
    int c1 = lg_b_tensor(b, "c1", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r1 = lg_b_tensor(b, "r1", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int ix = lg_b_const_i32(b, "idx", LG_DIMS(1, 4, 4, 3), gather_nd_idx());
    int g = lg_b_tensor(b, "g", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(c1), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_op(b, LG_OP_RELU, LG_IDS(c1), LG_IDS(r1));
    lg_b_op(b, LG_OP_GATHER_ND, LG_IDS(r1, ix), LG_IDS(g));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(g, w, bi), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* x[1,8,8,4] -> RELU -> GATHER on channels (axis 3) with constant INT32 indices idx[n]
   -> y[1,8,8,n]; kind 2: the indices [2] are a runtime graph input. */
void lgm_i_gather_channels(lg_builder *b, const int32_t *idx, int n, int runtime) {
    lg_gather_options go = {3, 0};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int i = runtime ? lg_b_tensor(b, "idx", LG_INT32, LG_DIMS(n)) : lg_b_const_i32(b, "idx", LG_DIMS(n), idx);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, n));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_op_opts(b, LG_OP_GATHER, LG_IDS(r, i), LG_IDS(y), LG_OPTS_GATHER_OPTIONS, &go);
    if (runtime) lg_b_io(b, LG_IDS(x, i), LG_IDS(y));
    else lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

const int32_t lgm_i_idx02[2] = {0, 2};
static const int32_t idx2[1] = {2};

/* GATHER of one channel with a 1-D INT32 constant index: in both parsers. */
void lgm_op_unsupported_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    lgm_i_gather_channels(b, idx2, 1, 0);
}

/* ROUND: not in the classic parser, in ML Drift's. */
void lgm_op_unsupported_nearmiss2(lg_builder *b, lgm_io io) {
    (void)io;
    lgm_i_unary(b, LG_OP_ROUND, 1, LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
}

/* LOGICAL_OR on bool tensors (ML Drift only). LGM_IO_ANY: bool graph inputs a, c and output
   o (the LOGICAL_OR is op 0); LGM_IO_LITERT: the bools made from float32 inputs by GREATER
   (x > 0.5) and read back through a CAST. */
void lgm_op_unsupported_nearmiss3(lg_builder *b, lgm_io io) {
    if (io == LGM_IO_ANY) {
        int a = lg_b_tensor(b, "a", LG_BOOL, LG_DIMS(1, 8, 8, 4));
        int c = lg_b_tensor(b, "c", LG_BOOL, LG_DIMS(1, 8, 8, 4));
        int o = lg_b_tensor(b, "o", LG_BOOL, LG_DIMS(1, 8, 8, 4));
        lg_b_op(b, LG_OP_LOGICAL_OR, LG_IDS(a, c), LG_IDS(o));
        lg_b_io(b, LG_IDS(a, c), LG_IDS(o));
        return;
    }
    const float half = 0.5f;
    int xa = lg_b_tensor(b, "xa", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int xc = lg_b_tensor(b, "xc", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int th = lg_b_const_f32(b, "threshold", LG_DIMS(1), &half);
    int a = lg_b_tensor(b, "a", LG_BOOL, LG_DIMS(1, 8, 8, 4));
    int c = lg_b_tensor(b, "c", LG_BOOL, LG_DIMS(1, 8, 8, 4));
    int o = lg_b_tensor(b, "o", LG_BOOL, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_GREATER, LG_IDS(xa, th), LG_IDS(a));
    lg_b_op(b, LG_OP_GREATER, LG_IDS(xc, th), LG_IDS(c));
    lg_b_op(b, LG_OP_LOGICAL_OR, LG_IDS(a, c), LG_IDS(o));
    lg_b_op(b, LG_OP_CAST, LG_IDS(o), LG_IDS(y));
    lg_b_io(b, LG_IDS(xa, xc), LG_IDS(y));
}

/* ------------------------------------------------------------------ op-no-compat-case */

void lgm_op_no_compat_case_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    lgm_i_unary(b, LG_OP_RELU_0_TO_1, 1, LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
}

/* BITWISE_XOR on INT32 graph I/O (int32 is fine for LiteRT.js). */
void lgm_op_no_compat_case_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    int a = lg_b_tensor(b, "a", LG_INT32, LG_DIMS(1, 8, 8, 4));
    int c = lg_b_tensor(b, "c", LG_INT32, LG_DIMS(1, 8, 8, 4));
    int o = lg_b_tensor(b, "o", LG_INT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_BITWISE_XOR, LG_IDS(a, c), LG_IDS(o));
    lg_b_io(b, LG_IDS(a, c), LG_IDS(o));
}

void lgm_op_no_compat_case_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    lgm_i_unary(b, LG_OP_RELU, 1, LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
}

/* ------------------------------------------------------------------ custom-op-unsupported */

static void custom_after_relu(lg_builder *b, const char *name) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_custom(b, name, LG_IDS(r), LG_IDS(y), NULL, 0);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

void lgm_custom_op_unsupported_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    custom_after_relu(b, "MyOp");
}

/* Convolution2DTransposeBias as MediaPipe writes it (selfie_segmentation): input, weights
   [O,H,W,I], bias [O]; custom options TfLiteTransposeConvParams {padding SAME = 1, stride 2,
   2}: 8 x 2 = 16 per spatial dimension. */
void lgm_custom_op_unsupported_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    const int32_t opts[3] = {1, 2, 2};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int w = lg_b_const_f32(b, "w", LG_DIMS(4, 2, 2, 4), lgm_i_wf);
    int bi = lg_b_const_f32(b, "bias", LG_DIMS(4), lgm_i_wf);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 16, 16, 4));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_custom(b, "Convolution2DTransposeBias", LG_IDS(r, w, bi), LG_IDS(y), opts, sizeof opts);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* custom_call.LayerNorm (an ML Drift custom norm; the classic delegate has none). */
void lgm_custom_op_unsupported_nearmiss2(lg_builder *b, lgm_io io) {
    (void)io;
    custom_after_relu(b, "custom_call.LayerNorm");
}

/* ------------------------------------------------------------------ op-version */

/* TRANSPOSE_CONV: output_shape, weights [O,H,W,I], input (+ bias); v4 = fused activation,
   v3 = bias. The output is output_shape's value [1,16,16,4] (transpose_conv.cc
   ResizeTensor), which VALID stride 2 with a 2x2 filter gives from 8: (8-1)*2+2 = 16. */
void lgm_i_transpose_conv(lg_builder *b, int act, int with_bias) {
    int32_t os[4] = {1, 16, 16, 4};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int s = lg_b_const_i32(b, "output_shape", LG_DIMS(4), os);
    int w = lg_b_const_f32(b, "w", LG_DIMS(4, 2, 2, 4), lgm_i_wf);
    int bi = with_bias ? lg_b_const_f32(b, "bias", LG_DIMS(4), lgm_i_wf) : -1;
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 16, 16, 4));
    lg_transpose_conv_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_VALID;
    o.stride_w = o.stride_h = 2;
    o.fused_activation_function = (int8_t)act;
    int v = act != LG_ACTIVATION_FUNCTION_TYPE_NONE ? 4 : with_bias ? 3 : 1;
    if (with_bias)
        lg_b_op_v(b, LG_OP_TRANSPOSE_CONV, v, LG_IDS(s, w, x, bi), LG_IDS(y), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o);
    else
        lg_b_op_v(b, LG_OP_TRANSPOSE_CONV, v, LG_IDS(s, w, x), LG_IDS(y), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

void lgm_op_version_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    lgm_i_transpose_conv(b, LG_ACTIVATION_FUNCTION_TYPE_RELU, 1);
}

void lgm_op_version_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    lgm_i_unary(b, LG_OP_RELU, 3, LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
}

void lgm_op_version_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    lgm_i_unary(b, LG_OP_RELU, 2, LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
}

/* SOFTMAX on FLOAT16 (v4): over the classic maximum (2), within ML Drift's (4). */
void lgm_op_version_nearmiss2(lg_builder *b, lgm_io io) {
    lg_softmax_options so = {1.0f};
    unary_typed(b, io, LG_OP_SOFTMAX, 4, LG_OPTS_SOFTMAX_OPTIONS, &so, LG_FLOAT16, LG_DIMS(1, 10));
}

/* CONCATENATION of two [1,8,8,4] on channels -> [1,8,8,8], of type dt (FLOAT16: v6, over
   the classic maximum 2, within ML Drift's 6). */
static void concat(lg_builder *b, lgm_io io, lg_dtype dt) {
    lg_concatenation_options co = {3, LG_ACTIVATION_FUNCTION_TYPE_NONE};
    int xin, x2in, yout;
    int x = lgm_i_typed_input(b, io, "x", dt, LG_DIMS(1, 8, 8, 4), &xin);
    int x2 = lgm_i_typed_input(b, io, "x2", dt, LG_DIMS(1, 8, 8, 4), &x2in);
    int h = lgm_i_typed_output(b, io, "y", dt, LG_DIMS(1, 8, 8, 8), &yout);
    lg_b_op_v(b, LG_OP_CONCATENATION, dt == LG_FLOAT16 ? 6 : 1, LG_IDS(x, x2), LG_IDS(h),
              LG_OPTS_CONCATENATION_OPTIONS, &co);
    int y = lgm_i_typed_output_end(b, "y", h, yout, LG_DIMS(1, 8, 8, 8));
    lg_b_io(b, LG_IDS(xin, x2in), LG_IDS(y));
}

void lgm_op_version_nearmiss3(lg_builder *b, lgm_io io) { concat(b, io, LG_FLOAT16); }
void lgm_op_version_nearmiss4(lg_builder *b, lgm_io io) { concat(b, io, LG_FLOAT32); }

/* ------------------------------------------------------------------ tensor-rank */

/* RELU -> RESHAPE 256 elements to rank 5 [1,8,8,2,2] or rank 3 [1,8,32]. */
static void relu_reshape(lg_builder *b, int five) {
    int32_t s5[5] = {1, 8, 8, 2, 2}, s3[3] = {1, 8, 32};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int s = five ? lg_b_const_i32(b, "shape", LG_DIMS(5), s5) : lg_b_const_i32(b, "shape", LG_DIMS(3), s3);
    int y = five ? lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 2, 2)) : lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 32));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_op(b, LG_OP_RESHAPE, LG_IDS(r, s), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

void lgm_tensor_rank_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    relu_reshape(b, 1);
}

void lgm_tensor_rank_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    relu_reshape(b, 0);
}

/* ------------------------------------------------------------------ tensor-dtype */

void lgm_tensor_dtype_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    lgm_i_unary(b, LG_OP_RELU, 1, LG_INT32, LG_DIMS(1, 8, 8, 4));
}

/* RELU on FLOAT16. */
void lgm_tensor_dtype_nearmiss(lg_builder *b, lgm_io io) {
    unary_typed(b, io, LG_OP_RELU, 1, LG_OPTS_NONE, NULL, LG_FLOAT16, LG_DIMS(1, 8, 8, 4));
}

/* INT32 ADD: ML Drift's IsIntSupportedOp takes it (classic does not). */
void lgm_tensor_dtype_nearmiss2(lg_builder *b, lgm_io io) {
    (void)io;
    int a = lg_b_tensor(b, "a", LG_INT32, LG_DIMS(1, 8, 8, 4));
    int c = lg_b_tensor(b, "c", LG_INT32, LG_DIMS(1, 8, 8, 4));
    int o = lg_b_tensor(b, "o", LG_INT32, LG_DIMS(1, 8, 8, 4));
    lgm_i_binop(b, LG_OP_ADD, a, c, o);
    lg_b_io(b, LG_IDS(a, c), LG_IDS(o));
}

/* ------------------------------------------------------------------ quant-per-channel-runtime */

static const float sc4[4] = {0.1f, 0.2f, 0.3f, 0.4f}, sc1[1] = {0.1f};

/* An INT8 graph input x[1,8,8,4] (LGM_IO_ANY), or x = QUANTIZE(float32 input "in")
   (LGM_IO_LITERT: LiteRT.js feeds no INT8 graph input). */
static int int8_input(lg_builder *b, lgm_io io, int *graph_in) {
    int in = io == LGM_IO_ANY ? -1 : lg_b_tensor(b, "in", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int x = lg_b_tensor(b, "x", LG_INT8, LG_DIMS(1, 8, 8, 4));
    *graph_in = io == LGM_IO_ANY ? x : in;
    if (io != LGM_IO_ANY) lg_b_op(b, LG_OP_QUANTIZE, LG_IDS(in), LG_IDS(x));
    return x;
}

/* The INT8 result r as the graph output (LGM_IO_ANY) or DEQUANTIZE(r) -> float32 "y". */
static int int8_output(lg_builder *b, lgm_io io, int r) {
    if (io == LGM_IO_ANY) return r;
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(r), LG_IDS(y));
    return y;
}

/* x INT8 (per-tensor, or per-channel on axis 3) -> RELU -> INT8 (per-tensor). */
static void int8_relu(lg_builder *b, lgm_io io, int per_channel) {
    int in;
    int x = int8_input(b, io, &in);
    int r = lg_b_tensor(b, io == LGM_IO_ANY ? "y" : "r", LG_INT8, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    int y = int8_output(b, io, r);
    lg_b_io(b, LG_IDS(in), LG_IDS(y));
    lgm_i_quant(b, x, per_channel ? sc4 : sc1, per_channel ? 4 : 1, per_channel ? 3 : 0);
    lgm_i_quant(b, r, sc1, 1, 0);
}

void lgm_quant_per_channel_runtime_trigger(lg_builder *b, lgm_io io) { int8_relu(b, io, 1); }
void lgm_quant_per_channel_runtime_nearmiss(lg_builder *b, lgm_io io) { int8_relu(b, io, 0); }

/* A quantized CONV_2D (v3): per-tensor activations, per-channel constant weights, INT32
   bias (scales = input scale x weight scale, as TFLite requires). */
void lgm_quant_per_channel_runtime_nearmiss2(lg_builder *b, lgm_io io) {
    int8_t w8[4 * 3 * 3 * 4];
    int32_t b32[4] = {0, 1, 2, 3};
    const float bsc[4] = {0.01f, 0.02f, 0.03f, 0.04f};
    for (int i = 0; i < (int)sizeof w8; i++) w8[i] = (int8_t)((i * 37) % 17 - 8);
    lg_conv2d_options o = lgm_i_conv_opts(0);
    int in;
    int x = int8_input(b, io, &in);
    int w = lg_b_const(b, "w", LG_INT8, LG_DIMS(4, 3, 3, 4), w8, sizeof w8);
    int bi = lg_b_const(b, "bias", LG_INT32, LG_DIMS(4), b32, sizeof b32);
    int c = lg_b_tensor(b, io == LGM_IO_ANY ? "y" : "c", LG_INT8, LG_DIMS(1, 8, 8, 4));
    lg_b_op_v(b, LG_OP_CONV_2D, 3, LG_IDS(x, w, bi), LG_IDS(c), LG_OPTS_CONV2D_OPTIONS, &o);
    int y = int8_output(b, io, c);
    lg_b_io(b, LG_IDS(in), LG_IDS(y));
    lgm_i_quant(b, x, sc1, 1, 0);
    lgm_i_quant(b, w, sc4, 4, 0);
    lgm_i_quant(b, bi, bsc, 4, 0);
    lgm_i_quant(b, c, sc1, 1, 0);
}

/* ------------------------------------------------------------------ fused-activation */

static void fused_act(lg_builder *b, int act) {
    lg_conv2d_options o = lgm_i_conv_opts(act);
    conv_with(b, &o);
}

void lgm_fused_activation_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    fused_act(b, LG_ACTIVATION_FUNCTION_TYPE_SIGN_BIT);
}

void lgm_fused_activation_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    fused_act(b, LG_ACTIVATION_FUNCTION_TYPE_RELU6);
}

void lgm_fused_activation_nearmiss2(lg_builder *b, lgm_io io) {
    (void)io;
    fused_act(b, LG_ACTIVATION_FUNCTION_TYPE_TANH);
}

void lgm_fused_activation_nearmiss3(lg_builder *b, lgm_io io) {
    (void)io;
    fused_act(b, LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1);
}

void lgm_fused_activation_nearmiss4(lg_builder *b, lgm_io io) {
    (void)io;
    fused_act(b, LG_ACTIVATION_FUNCTION_TYPE_NONE);
}

void lgm_fused_activation_nearmiss5(lg_builder *b, lgm_io io) {
    (void)io;
    fused_act(b, LG_ACTIVATION_FUNCTION_TYPE_RELU);
}

/* ------------------------------------------------------------------ broadcast */

/* ADD a[sa] + c[sc] -> o[so], both runtime inputs; so is the numpy broadcast of sa and sc. */
static void add2(lg_builder *b, lg_dims sa, lg_dims sc, lg_dims so) {
    int a = lg_b_tensor(b, "a", LG_FLOAT32, sa);
    int c = lg_b_tensor(b, "c", LG_FLOAT32, sc);
    int o = lg_b_tensor(b, "o", LG_FLOAT32, so);
    lgm_i_binop(b, LG_OP_ADD, a, c, o);
    lg_b_io(b, LG_IDS(a, c), LG_IDS(o));
}

/* Same rank, not broadcastable (4 vs 3): TFLite refuses (add.cc: "Given shapes ... are not
   broadcastable"); o takes a's shape. */
void lgm_broadcast_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    add2(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 8, 8, 3), LG_DIMS(1, 8, 8, 4));
}

/* 4D + 3D, the 3D not broadcastable: refused by TFLite as above. */
void lgm_broadcast_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    add2(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(8, 8, 3), LG_DIMS(1, 8, 8, 4));
}

/* 4D (batch 1) + 3D */
void lgm_broadcast_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    add2(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(8, 8, 4), LG_DIMS(1, 8, 8, 4));
}

/* 4D with batch 2 + 3D: classic blocked, ML Drift fine */
void lgm_broadcast_nearmiss2(lg_builder *b, lgm_io io) {
    (void)io;
    add2(b, LG_DIMS(2, 8, 8, 4), LG_DIMS(8, 8, 4), LG_DIMS(2, 8, 8, 4));
}

/* 3D + 2D: classic only broadcasts onto 4D; ML Drift fine */
void lgm_broadcast_nearmiss3(lg_builder *b, lgm_io io) {
    (void)io;
    add2(b, LG_DIMS(1, 8, 4), LG_DIMS(8, 4), LG_DIMS(1, 8, 4));
}

/* 4D [b,h,w,c] + 2D [b,c] */
void lgm_broadcast_nearmiss4(lg_builder *b, lgm_io io) {
    (void)io;
    add2(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 4), LG_DIMS(1, 8, 8, 4));
}

/* 4D + [1,1] */
void lgm_broadcast_nearmiss5(lg_builder *b, lgm_io io) {
    (void)io;
    add2(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 1), LG_DIMS(1, 8, 8, 4));
}

/* 4D + 1-D */
void lgm_broadcast_nearmiss6(lg_builder *b, lgm_io io) {
    (void)io;
    add2(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(4), LG_DIMS(1, 8, 8, 4));
}

/* ------------------------------------------------------------------ input-count */

static void logistic(lg_builder *b, int two) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int x2 = two ? lg_b_tensor(b, "x2", LG_FLOAT32, LG_DIMS(1, 8, 8, 4)) : -1;
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    if (two) {
        lg_b_op(b, LG_OP_LOGISTIC, LG_IDS(x, x2), LG_IDS(y));
        lg_b_io(b, LG_IDS(x, x2), LG_IDS(y));
    } else {
        lg_b_op(b, LG_OP_LOGISTIC, LG_IDS(x), LG_IDS(y));
        lg_b_io(b, LG_IDS(x), LG_IDS(y));
    }
}

/* CONV_2D with runtime weights; the bias runtime (3 runtime inputs) or constant. */
static void conv_rt_weights(lg_builder *b, int rt_bias) {
    lg_conv2d_options o = lgm_i_conv_opts(0);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 3, 3, 4));
    int bi = rt_bias ? lg_b_tensor(b, "bias", LG_FLOAT32, LG_DIMS(4)) : lg_b_const_f32(b, "bias", LG_DIMS(4), lgm_i_wf);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o);
    if (rt_bias) lg_b_io(b, LG_IDS(x, w, bi), LG_IDS(y));
    else lg_b_io(b, LG_IDS(x, w), LG_IDS(y));
}

/* LOGISTIC with 2 inputs: TFLite refuses (activations.cc: NumInputs(node) == 1). */
void lgm_input_count_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    logistic(b, 1);
}

void lgm_input_count_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    conv_rt_weights(b, 1);
}

void lgm_input_count_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    logistic(b, 0);
}

void lgm_input_count_nearmiss2(lg_builder *b, lgm_io io) {
    (void)io;
    conv_rt_weights(b, 0);
}

/* CONV_2D(x, DEQUANTIZE(w16), DEQUANTIZE(b16)): the delegates fold the fp16 DEQUANTIZEs, so
   the conv has 1 runtime + 2 constant inputs. */
void lgm_input_count_nearmiss3(lg_builder *b, lgm_io io) {
    (void)io;
    lg_conv2d_options o = lgm_i_conv_opts(LG_ACTIVATION_FUNCTION_TYPE_RELU6);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int w16 = lg_b_const(b, "w16", LG_FLOAT16, LG_DIMS(4, 3, 3, 4), wh, 4 * 3 * 3 * 4 * 2);
    int b16 = lg_b_const(b, "b16", LG_FLOAT16, LG_DIMS(4), wh, 4 * 2);
    int w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 3, 3, 4));
    int bi = lg_b_tensor(b, "bias", LG_FLOAT32, LG_DIMS(4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(w16), LG_IDS(w));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(b16), LG_IDS(bi));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* ADD_N of n runtime [1,8,8,4] inputs a0..a(n-1) (add_n.cc: >= 2 of one shape; the output
   takes it). */
static void add_n(lg_builder *b, int n) {
    static const char *const names[3] = {"a0", "a1", "a2"};
    int a[3];
    for (int k = 0; k < n && k < 3; k++) a[k] = lg_b_tensor(b, names[k], LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_dims in = {a, (uint32_t)n};
    lg_b_op(b, LG_OP_ADD_N, in, LG_IDS(y));
    lg_b_io(b, in, LG_IDS(y));
}

/* ADD_N of 3 inputs (the GPU takes exactly 2) */
void lgm_input_count_trigger3(lg_builder *b, lgm_io io) {
    (void)io;
    add_n(b, 3);
}

void lgm_input_count_nearmiss4(lg_builder *b, lgm_io io) {
    (void)io;
    add_n(b, 2);
}

/* ------------------------------------------------------------------ const-axes */

/* MEAN x[1,8,8,4] over axes 1,2 (keep_dims: [1,1,1,4]): 0 constant INT32, 1 constant INT64,
   2 runtime INT32 (a graph input; the output shape is then known only at run time). */
static void mean_axes(lg_builder *b, int axes_kind) {
    lg_reducer_options ro = lgm_i_keep_dims(true);
    int32_t a32[2] = {1, 2};
    int64_t a64[2] = {1, 2};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int ax = axes_kind == 0   ? lg_b_const_i32(b, "axes", LG_DIMS(2), a32)
             : axes_kind == 1 ? lg_b_const(b, "axes", LG_INT64, LG_DIMS(2), a64, sizeof a64)
                              : lg_b_tensor(b, "axes", LG_INT32, LG_DIMS(2));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 1, 1, 4));
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(x, ax), LG_IDS(y), LG_OPTS_REDUCER_OPTIONS, &ro);
    if (axes_kind == 2) lg_b_io(b, LG_IDS(x, ax), LG_IDS(y));
    else lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

void lgm_const_axes_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    mean_axes(b, 1);
}

void lgm_const_axes_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    mean_axes(b, 2);
}

void lgm_const_axes_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    mean_axes(b, 0);
}

/* ------------------------------------------------------------------ dynamic-tensor */

/* RELU -> RESHAPE to [1,256], the shape constant or a runtime graph input. */
static void reshape_shape(lg_builder *b, int rt) {
    int32_t s[2] = {1, 256};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int sh = rt ? lg_b_tensor(b, "shape", LG_INT32, LG_DIMS(2)) : lg_b_const_i32(b, "shape", LG_DIMS(2), s);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 256));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_op(b, LG_OP_RESHAPE, LG_IDS(r, sh), LG_IDS(y));
    if (rt) lg_b_io(b, LG_IDS(x, sh), LG_IDS(y));
    else lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* RESIZE_BILINEAR [1,8,8,4] to size 16x16 (half_pixel_centers), the size constant or a
   runtime graph input. */
static void resize_size(lg_builder *b, int rt) {
    int32_t s[2] = {16, 16};
    lg_resize_bilinear_options ro = {false, true};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int sz = rt ? lg_b_tensor(b, "size", LG_INT32, LG_DIMS(2)) : lg_b_const_i32(b, "size", LG_DIMS(2), s);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 16, 16, 4));
    lg_b_op_opts(b, LG_OP_RESIZE_BILINEAR, LG_IDS(x, sz), LG_IDS(y), LG_OPTS_RESIZE_BILINEAR_OPTIONS, &ro);
    if (rt) lg_b_io(b, LG_IDS(x, sz), LG_IDS(y));
    else lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

void lgm_dynamic_tensor_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    reshape_shape(b, 1);
}

void lgm_dynamic_tensor_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    resize_size(b, 1);
}

void lgm_dynamic_tensor_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    reshape_shape(b, 0);
}

void lgm_dynamic_tensor_nearmiss2(lg_builder *b, lgm_io io) {
    (void)io;
    resize_size(b, 0);
}

/* ------------------------------------------------------------------ dynamic-input */

/* RELU [1,8,8,4] whose input's shape_signature is [-1,8,8,4] (dyn) or [1,8,8,4]. */
static void relu_signature(lg_builder *b, int dyn) {
    lgm_i_unary(b, LG_OP_RELU, 1, LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    if (!ok(b)) return;
    const int32_t sig_dyn[4] = {-1, 8, 8, 4}, sig_static[4] = {1, 8, 8, 4};
    lg_error err;
    if (lg_tensor_set_shape_signature(b->m, b->sg, (uint32_t)b->m->subgraphs[b->sg].inputs[0],
                                      dyn ? sig_dyn : sig_static, 4, &err) != LG_OK) {
        b->status = LG_ERR_INVALID_ARG;
        b->err = err;
    }
}

void lgm_dynamic_input_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    relu_signature(b, 1);
}

void lgm_dynamic_input_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    relu_signature(b, 0);
}

/* ------------------------------------------------------------------ identical-inputs */

/* op(x, x) when same, else op(x, x2): runtime graph inputs [1,8,8,4]. */
static void binary_self(lg_builder *b, int32_t op, int same) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int x2 = same ? -1 : lg_b_tensor(b, "x2", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    if (same) {
        lgm_i_binop(b, op, x, x, y);
        lg_b_io(b, LG_IDS(x), LG_IDS(y));
    } else {
        lgm_i_binop(b, op, x, x2, y);
        lg_b_io(b, LG_IDS(x, x2), LG_IDS(y));
    }
}

void lgm_identical_inputs_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    binary_self(b, LG_OP_DIV, 1);
}

void lgm_identical_inputs_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    binary_self(b, LG_OP_SUB, 1);
}

void lgm_identical_inputs_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    binary_self(b, LG_OP_MUL, 1);
}

void lgm_identical_inputs_nearmiss2(lg_builder *b, lgm_io io) {
    (void)io;
    binary_self(b, LG_OP_ADD, 1);
}

void lgm_identical_inputs_nearmiss3(lg_builder *b, lgm_io io) {
    (void)io;
    binary_self(b, LG_OP_DIV, 0);
}

/* BATCH_MATMUL x[1,12,2,2] by itself (same) or by x2 -> [1,12,2,2] (batch_matmul.cc: the
   batch dims broadcast, [2,2] x [2,2] per batch). */
static void bmm_self(lg_builder *b, int same) {
    lg_batch_mat_mul_options bo;
    memset(&bo, 0, sizeof bo);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 12, 2, 2));
    int x2 = same ? x : lg_b_tensor(b, "x2", LG_FLOAT32, LG_DIMS(1, 12, 2, 2));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 12, 2, 2));
    lg_b_op_opts(b, LG_OP_BATCH_MATMUL, LG_IDS(x, x2), LG_IDS(y), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo);
    if (same) lg_b_io(b, LG_IDS(x), LG_IDS(y));
    else lg_b_io(b, LG_IDS(x, x2), LG_IDS(y));
}

/* BATCH_MATMUL(x, x): ML Drift on WebGPU never finishes it (rules.def identical-inputs) */
void lgm_identical_inputs_trigger3(lg_builder *b, lgm_io io) {
    (void)io;
    bmm_self(b, 1);
}

void lgm_identical_inputs_nearmiss4(lg_builder *b, lgm_io io) {
    (void)io;
    bmm_self(b, 0);
}

/* ------------------------------------------------------------------ op-params */

/* SPACE_TO_DEPTH [1,8,8,4] block bs: [1, 8/bs, 8/bs, 4*bs*bs] (space_to_depth.cc). */
static void space_to_depth(lg_builder *b, int bs) {
    lg_space_to_depth_options so = {bs};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int y = bs == 1 ? lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4)) : lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 16));
    lg_b_op_opts(b, LG_OP_SPACE_TO_DEPTH, LG_IDS(x), LG_IDS(y), LG_OPTS_SPACE_TO_DEPTH_OPTIONS, &so);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

void lgm_op_params_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    space_to_depth(b, 1);
}

/* CONV_2D with stride_h 0: TFLite refuses (conv.cc: the output size divides by the stride;
   padding.h ComputeOutSize returns 0 for stride 0). */
void lgm_op_params_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    lg_conv2d_options o = lgm_i_conv_opts(0);
    o.stride_h = 0;
    conv_with(b, &o);
}

/* A sparse FLOAT16 constant [4,4] -> DENSIFY -> DEQUANTIZE -> FULLY_CONNECTED weights:
   "Dequantize for Densify is not supported" (ML Drift). */
void lgm_op_params_trigger3(lg_builder *b, lgm_io io) {
    (void)io;
    int w16 = lg_b_const(b, "w16", LG_FLOAT16, LG_DIMS(4, 4), wh, 32);
    mark_sparse(b, w16);
    int wd = lg_b_tensor(b, "w_dense", LG_FLOAT16, LG_DIMS(4, 4));
    int w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 4));
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(b, LG_OP_DENSIFY, LG_IDS(w16), LG_IDS(wd));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(wd), LG_IDS(w));
    lg_b_op(b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

void lgm_op_params_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    space_to_depth(b, 2);
}

/* BATCH_MATMUL a[1,4,8] x constant c[8,4] (rank 2) or c[1,8,4] (rank 3) -> [1,4,4]. */
static void bmm_const(lg_builder *b, int rank) {
    lg_batch_mat_mul_options bo;
    memset(&bo, 0, sizeof bo);
    int a = lg_b_tensor(b, "a", LG_FLOAT32, LG_DIMS(1, 4, 8));
    int c = rank == 2 ? lg_b_const_f32(b, "c", LG_DIMS(8, 4), lgm_i_wf) : lg_b_const_f32(b, "c", LG_DIMS(1, 8, 4), lgm_i_wf);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4));
    lg_b_op_opts(b, LG_OP_BATCH_MATMUL, LG_IDS(a, c), LG_IDS(y), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo);
    lg_b_io(b, LG_IDS(a), LG_IDS(y));
}

void lgm_op_params_nearmiss2(lg_builder *b, lgm_io io) {
    (void)io;
    bmm_const(b, 3);
}

void lgm_op_params_nearmiss3(lg_builder *b, lgm_io io) {
    (void)io;
    bmm_const(b, 2);
}

/* DEQUANTIZE of a FLOAT16 constant feeding a FULLY_CONNECTED (folded). */
void lgm_op_params_nearmiss4(lg_builder *b, lgm_io io) {
    (void)io;
    int w16 = lg_b_const(b, "w16", LG_FLOAT16, LG_DIMS(4, 4), wh, 32);
    int w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 4));
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(w16), LG_IDS(w));
    lg_b_op(b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* ------------------------------------------------------------------ resize-flags, resize-align-corners */

/* x[1,8,8,4] -> RESIZE_BILINEAR to 16x16 with the given flags. */
static void resize_bilinear(lg_builder *b, bool align, bool half) {
    int32_t s[2] = {16, 16};
    lg_resize_bilinear_options ro = {align, half};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int sz = lg_b_const_i32(b, "size", LG_DIMS(2), s);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 16, 16, 4));
    lg_b_op_opts(b, LG_OP_RESIZE_BILINEAR, LG_IDS(x, sz), LG_IDS(y), LG_OPTS_RESIZE_BILINEAR_OPTIONS, &ro);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* align_corners with half_pixel_centers: TFLite's resize_bilinear.cc Prepare refuses the
   flags ("If half_pixel_centers is True, align_corners must be False."); the shape is right. */
void lgm_resize_flags_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    resize_bilinear(b, true, true);
}

void lgm_resize_flags_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    resize_bilinear(b, false, true);
}

void lgm_resize_align_corners_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    resize_bilinear(b, true, false);
}

void lgm_resize_align_corners_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    resize_bilinear(b, false, false);
}

/* ------------------------------------------------------------------ strided slices, slices */

/* STRIDED_SLICE x[in] with begin/end/strides of length rank(in). */
static void strided_slice(lg_builder *b, lg_dims in, lg_dims out, const int32_t *begin, const int32_t *end,
                          const int32_t *strides, const lg_strided_slice_options *o) {
    lg_dims d1 = {(const int32_t[]){(int32_t)in.n}, 1};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, in);
    int bg = lg_b_const_i32(b, "begin", d1, begin);
    int en = lg_b_const_i32(b, "end", d1, end);
    int st = lg_b_const_i32(b, "strides", d1, strides);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, out);
    lg_b_op_opts(b, LG_OP_STRIDED_SLICE, LG_IDS(x, bg, en, st), LG_IDS(y), LG_OPTS_STRIDED_SLICE_OPTIONS, o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static const int32_t ss_begin[4] = {0, 0, 0, 0}, ss_end[4] = {1, 8, 8, 4}, ss_ones[4] = {1, 1, 1, 1};

static lg_strided_slice_options ss_opts(int begin_mask, int end_mask, int shrink) {
    lg_strided_slice_options o;
    memset(&o, 0, sizeof o);
    o.begin_mask = begin_mask;
    o.end_mask = end_mask;
    o.shrink_axis_mask = shrink;
    return o;
}

/* shrink_axis_mask 1: dimension 0 (0:1) is removed: [8,8,4]. */
void lgm_strided_slice_masks_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    lg_strided_slice_options o = ss_opts(0, 0, 1);
    strided_slice(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(8, 8, 4), ss_begin, ss_end, ss_ones, &o);
}

/* begin/end masks on dimension 0 are fine: the whole tensor. */
void lgm_strided_slice_masks_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    lg_strided_slice_options o = ss_opts(1, 1, 0);
    strided_slice(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 8, 8, 4), ss_begin, ss_end, ss_ones, &o);
}

/* Stride -1 on H from 7 with end_mask on H (to the start): all 8 rows, reversed. */
void lgm_strided_slice_reverse_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    const int32_t begin[4] = {0, 7, 0, 0}, end[4] = {1, 0, 8, 4}, rev[4] = {1, -1, 1, 1};
    lg_strided_slice_options o = ss_opts(0, 2, 0);
    strided_slice(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 8, 8, 4), begin, end, rev, &o);
}

/* x[0, 2:6, ::2, 1] of [1,8,8,4]: shrink dims 0 and 3 (mask 9), W from 0 to 8 by 2: [4,4]. */
void lgm_strided_slice_masks_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    const int32_t begin[4] = {0, 2, 0, 1}, end[4] = {1, 6, 8, 2}, st[4] = {1, 1, 2, 1};
    lg_strided_slice_options o = ss_opts(0, 0, 9);
    strided_slice(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(4, 4), begin, end, st, &o);
}

/* x[..., 1:3] of [1,8,8,4]: the ellipsis (mask 1) stands for the first three dims: [1,8,8,2]. */
void lgm_strided_slice_masks_trigger3(lg_builder *b, lgm_io io) {
    (void)io;
    const int32_t begin[2] = {0, 1}, end[2] = {0, 3}, st[2] = {1, 1};
    lg_strided_slice_options o = ss_opts(0, 0, 0);
    o.ellipsis_mask = 1;
    lg_dims d1 = LG_DIMS(2);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int bg = lg_b_const_i32(b, "begin", d1, begin);
    int en = lg_b_const_i32(b, "end", d1, end);
    int sd = lg_b_const_i32(b, "strides", d1, st);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 2));
    lg_b_op_opts(b, LG_OP_STRIDED_SLICE, LG_IDS(x, bg, en, sd), LG_IDS(y), LG_OPTS_STRIDED_SLICE_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* Stride -2 on W from 7 with end_mask on W (mask 4): columns 7, 5, 3, 1: [1,8,4,4]. */
void lgm_strided_slice_reverse_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    const int32_t begin[4] = {0, 0, 7, 0}, end[4] = {1, 8, 0, 4}, rev[4] = {1, 1, -2, 1};
    lg_strided_slice_options o = ss_opts(0, 4, 0);
    strided_slice(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 8, 4, 4), begin, end, rev, &o);
}

/* Stride 2 on H: rows 0, 2, 4, 6. */
void lgm_strided_slice_reverse_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    const int32_t fwd[4] = {1, 2, 1, 1};
    lg_strided_slice_options o = ss_opts(0, 0, 0);
    strided_slice(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 4, 8, 4), ss_begin, ss_end, fwd, &o);
}

/* SLICE x[in] -> y[out] with begin 0 and size = out. */
static void slice(lg_builder *b, lg_dims in, lg_dims out) {
    int32_t zero[5] = {0, 0, 0, 0, 0};
    lg_dims d1 = {(const int32_t[]){(int32_t)in.n}, 1};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, in);
    int bg = lg_b_const_i32(b, "begin", d1, zero);
    int sz = lg_b_const_i32(b, "size", d1, out.v);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, out);
    lg_b_op(b, LG_OP_SLICE, LG_IDS(x, bg, sz), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* On ML Drift SLICE and STRIDED_SLICE take ranks 1-4 (the delegate was seen to take rank-1
   and rank-2 STRIDED_SLICEs, exactly), so the ML Drift triggers are rank 5 (tensor-rank
   fires too); the classic-only triggers, STRIDED_SLICE/SLICE of rank 2 and 1, are
   near-misses. Rank 5 is within TFLite's kernels (slice.cc and strided_slice.cc: <= 5). */
void lgm_slice_rank_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    const int32_t begin[5] = {0, 0, 0, 0, 0}, end[5] = {1, 2, 2, 2, 2}, strides[5] = {1, 1, 1, 1, 1};
    lg_strided_slice_options o = ss_opts(0, 0, 0);
    strided_slice(b, LG_DIMS(1, 2, 2, 2, 4), LG_DIMS(1, 2, 2, 2, 2), begin, end, strides, &o);
}

void lgm_slice_rank_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    slice(b, LG_DIMS(1, 2, 2, 2, 4), LG_DIMS(1, 2, 2, 2, 2));
}

void lgm_slice_rank_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    slice(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 4, 4, 4));
}

void lgm_slice_rank_nearmiss2(lg_builder *b, lgm_io io) {
    (void)io;
    slice(b, LG_DIMS(1, 8, 4), LG_DIMS(1, 4, 4));
}

/* SLICE of rank 2: classic blocked (rank 3 or 4), ML Drift fine. */
void lgm_slice_rank_nearmiss3(lg_builder *b, lgm_io io) {
    (void)io;
    slice(b, LG_DIMS(8, 4), LG_DIMS(4, 4));
}

/* STRIDED_SLICE of a rank-3 tensor (the shared check's lower bound). */
void lgm_slice_rank_nearmiss4(lg_builder *b, lgm_io io) {
    (void)io;
    const int32_t begin[3] = {0, 0, 0}, end[3] = {1, 4, 4}, strides[3] = {1, 1, 1};
    lg_strided_slice_options o = ss_opts(0, 0, 0);
    strided_slice(b, LG_DIMS(1, 8, 4), LG_DIMS(1, 4, 4), begin, end, strides, &o);
}

/* STRIDED_SLICE of rank 2: classic blocked, ML Drift fine. */
void lgm_slice_rank_nearmiss5(lg_builder *b, lgm_io io) {
    (void)io;
    const int32_t begin[2] = {0, 0}, end[2] = {4, 4}, strides[2] = {1, 1};
    lg_strided_slice_options o = ss_opts(0, 0, 0);
    strided_slice(b, LG_DIMS(8, 4), LG_DIMS(4, 4), begin, end, strides, &o);
}

/* STRIDED_SLICE of rank 1: [8] from 2 to 6. */
void lgm_slice_rank_nearmiss6(lg_builder *b, lgm_io io) {
    (void)io;
    const int32_t begin[1] = {2}, end[1] = {6}, strides[1] = {1};
    lg_strided_slice_options o = ss_opts(0, 0, 0);
    strided_slice(b, LG_DIMS(8), LG_DIMS(4), begin, end, strides, &o);
}

/* ------------------------------------------------------------------ transpose-perm, softmax-beta */

/* TRANSPOSE [8] by perm {0} (length 1), or [1,8,4,4] by {0,2,1,3} -> [1,4,8,4]. */
static void transpose_len(lg_builder *b, int four) {
    int32_t p1[1] = {0}, p4[4] = {0, 2, 1, 3};
    int x = four ? lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 4, 4)) : lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(8));
    int p = four ? lg_b_const_i32(b, "perm", LG_DIMS(4), p4) : lg_b_const_i32(b, "perm", LG_DIMS(1), p1);
    int y = four ? lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 8, 4)) : lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(8));
    lg_b_op(b, LG_OP_TRANSPOSE, LG_IDS(x, p), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

void lgm_transpose_perm_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    transpose_len(b, 0);
}

void lgm_transpose_perm_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    transpose_len(b, 1);
}

static void softmax_beta(lg_builder *b, float beta) {
    lg_softmax_options so = {beta};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 10));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 10));
    lg_b_op_opts(b, LG_OP_SOFTMAX, LG_IDS(x), LG_IDS(y), LG_OPTS_SOFTMAX_OPTIONS, &so);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

void lgm_softmax_beta_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    softmax_beta(b, 0.5f);
}

void lgm_softmax_beta_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    softmax_beta(b, 1.0f);
}

/* ------------------------------------------------------------------ depthwise-shape */

/* x[1,8,8,4], filter [1,3,3,8], 8 output channels (filter dim 3, depthwise_conv.cc);
   consistent only with depth_multiplier 2 (4 x 2 = 8). */
static void depthwise(lg_builder *b, int dm) {
    lg_depthwise_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_SAME;
    o.stride_w = o.stride_h = 1;
    o.dilation_w_factor = o.dilation_h_factor = 1;
    o.depth_multiplier = dm;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int w = lg_b_const_f32(b, "w", LG_DIMS(1, 3, 3, 8), lgm_i_wf);
    int bi = lg_b_const_f32(b, "bias", LG_DIMS(8), lgm_i_wf);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 8));
    lg_b_op_opts(b, LG_OP_DEPTHWISE_CONV_2D, LG_IDS(x, w, bi), LG_IDS(y), LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

void lgm_depthwise_shape_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    depthwise(b, 1);
}

void lgm_depthwise_shape_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    depthwise(b, 2);
}

/* ------------------------------------------------------------------ pads */

/* PAD-family op x[in] by paddings[rank,2] (before, after per dimension) -> y[out]. */
static void pad_with(lg_builder *b, int32_t op, lg_dims in, lg_dims out, const int32_t *pads,
                     const lg_mirror_pad_options *mo) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, in);
    int p = lg_b_const_i32(b, "paddings", LG_DIMS((int32_t)in.n, 2), pads);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, out);
    if (op == LG_OP_MIRROR_PAD) lg_b_op_opts(b, op, LG_IDS(x, p), LG_IDS(y), LG_OPTS_MIRROR_PAD_OPTIONS, mo);
    else lg_b_op(b, op, LG_IDS(x, p), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

const int32_t lgm_i_pad4_hw[8] = {0, 0, 1, 1, 1, 1, 0, 0}; /* [1,8,8,4] -> [1,10,10,4] */
static const int32_t pad3_01[6] = {1, 1, 1, 1, 0, 0};       /* [8,8,4] -> [10,10,4] */
static const int32_t pad2[4] = {1, 1, 1, 1};                /* [8,4] -> [10,6] */
static const int32_t pad4_b[8] = {1, 1, 0, 0, 0, 0, 0, 0};  /* [1,8,8,4] -> [3,8,8,4] */
static const int32_t pad3_h[6] = {0, 0, 1, 1, 0, 0};        /* [1,8,4] -> [1,10,4] */

void lgm_mirror_pad_mode_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    lg_mirror_pad_options sym = {LG_MIRROR_PAD_MODE_SYMMETRIC};
    pad_with(b, LG_OP_MIRROR_PAD, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 10, 10, 4), lgm_i_pad4_hw, &sym);
}

void lgm_mirror_pad_mode_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    lg_mirror_pad_options refl = {LG_MIRROR_PAD_MODE_REFLECT};
    pad_with(b, LG_OP_MIRROR_PAD, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 10, 10, 4), lgm_i_pad4_hw, &refl);
}

/* paddings [2,2]: rank-2 data */
void lgm_pad_shape_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    pad_with(b, LG_OP_PAD, LG_DIMS(8, 4), LG_DIMS(10, 6), pad2, NULL);
}

/* paddings [1,2]: rank-1 data [8] -> [13] */
void lgm_pad_shape_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    static const int32_t pad1[2] = {2, 3};
    pad_with(b, LG_OP_PAD, LG_DIMS(8), LG_DIMS(13), pad1, NULL);
}

/* [1,8,8,4] padded on H and W (also the webgpu-pad-layout near-miss) */
void lgm_pad_shape_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    pad_with(b, LG_OP_PAD, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 10, 10, 4), lgm_i_pad4_hw, NULL);
}

/* paddings [3,2] on [8,8,4] (a first dimension > 1: also the webgpu-pad-layout trigger) */
void lgm_pad_shape_nearmiss2(lg_builder *b, lgm_io io) {
    (void)io;
    pad_with(b, LG_OP_PAD, LG_DIMS(8, 8, 4), LG_DIMS(10, 10, 4), pad3_01, NULL);
}

/* webgpu-pad-layout: rank 3 with a first dimension > 1 (= pad-shape's nearmiss2) */
void lgm_webgpu_pad_layout_trigger(lg_builder *b, lgm_io io) { lgm_pad_shape_nearmiss2(b, io); }

/* padding the batch of a rank-4 tensor */
void lgm_webgpu_pad_layout_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    pad_with(b, LG_OP_PAD, LG_DIMS(1, 8, 8, 4), LG_DIMS(3, 8, 8, 4), pad4_b, NULL);
}

/* rank 3 with a first dimension 1, padded on H (the rank-4 near-miss is pad-shape's) */
void lgm_webgpu_pad_layout_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    pad_with(b, LG_OP_PAD, LG_DIMS(1, 8, 4), LG_DIMS(1, 10, 4), pad3_h, NULL);
}

