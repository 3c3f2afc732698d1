/* Reference kernels, reduce family: row normalizations over the last dimension.
 *
 *   SOFTMAX           y = exp((x - max) * beta) / sum_c exp((x_c - max) * beta)
 *   LOG_SOFTMAX       y = x - max - log(sum_c exp(x_c - max))
 *   L2_NORMALIZATION  y = x / max(sqrt(sum_c x_c^2), 1e-6)
 *   LOCAL_RESPONSE_NORMALIZATION (4-D)
 *                     y = x * (bias + alpha * sum_{|c'-c| <= radius} x_c'^2) ^ -beta
 *
 * SOFTMAX computes in fp32 in every precision, as the GPU delegate's softmax kernels do even
 * in F16 (tflite/delegates/gpu/common/tasks/softmax.cc, GetSoftmaxThreePassKernelCode and
 * GetSoftmaxTwoPassKernelCode: `float sum`, `float maximum`, `Read<float>`, `exp(t) / sum`,
 * one `TO_FLT4` at the store; softmax1x1.cc, Softmax1x1::GetSoftmaxKernelCode, the same with
 * `float sum` and a float work-group reduction): max, exp, the sum in channel order and the
 * division in fp32, rounded to half once, by the interpreter, at the output.
 * The other sums run through lgk_add / lgk_mac in channel order, so in LG_PREC_F16 they are
 * half accumulators: each exp term and each partial sum is rounded to half; a sum of squares
 * above 65504 is inf and L2_NORMALIZATION then gives x / inf = 0. The GPU delegate has no
 * kernel for LOG_SOFTMAX, L2_NORMALIZATION or LOCAL_RESPONSE_NORMALIZATION (model_builder.cc,
 * NewOperationParser, lists none of them), so no source says how a GPU accumulates them; they
 * keep the conservative half accumulator. exp, log, sqrt, pow and the final division are
 * elementwise fp32. */
#include <float.h>

#include "run/k_reduce.h"

typedef struct row_state {
    int64_t rows, depth;
    float beta;                 /* SOFTMAX */
    int64_t radius;             /* LRN */
    float bias, alpha, lrn_beta;
} row_state;

/* One float input, one float output of the same shape; rows over the last dimension. */
static lg_status rows_prepare(lgk_node *n, uint32_t need_rank, lg_error *err) {
    LG_TRY(lgk_red_arity(n, 1, 1, err));
    const lgk_tensor *x = n->in[0];
    LG_TRY(lgk_red_static_shape(n, x, err));
    if (x->type != LG_FLOAT32)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "input type %s is not supported (float only)", lg_dtype_name(x->ir->type));
    LG_TRY(lgk_red_out_type(n, 0, LG_FLOAT32, err));
    if (need_rank && x->rank != need_rank)
        return lgk_fail(n, LG_ERR_FORMAT, err, "input must have rank %u, not %u", need_rank, x->rank);
    if (x->rank < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "input must have rank >= 1");
    LG_TRY(lgk_set_output(n, 0, LG_FLOAT32, x->shape, x->rank, err));
    row_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    s->depth = x->shape[x->rank - 1];
    s->rows = s->depth ? x->numel / s->depth : 0;
    n->state = s;
    return LG_OK;
}

typedef struct row_job {
    const lgk_node *n;
    const row_state *s;
    const float *x;
    float *y;
} row_job;

static void row_run(const lgk_node *n, lgk_range_fn fn) {
    row_job j = {n, n->state, n->in[0]->data, n->out[0]->data};
    lgk_parallel_for(n->ctx, j.s->rows, 1, fn, &j);
}

static inline float row_max(const float *x, int64_t D) {
    float m = -FLT_MAX; /* TFLite starts from lowest() */
    for (int64_t c = 0; c < D; c++) m = x[c] > m ? x[c] : m;
    return m;
}

static void div_row(float *restrict y, float d, int64_t n) { LGK_RED_LOOP(n, y[i] = y[i] / d); }
static void div_into(float *restrict y, const float *restrict x, float d, int64_t n) {
    LGK_RED_LOOP(n, y[i] = x[i] / d);
}

/* ------------------------------------------------------------------ SOFTMAX */

lg_status lgk_softmax_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(rows_prepare(n, 0, err));
    const lg_softmax_options *o = lgk_red_opts(n, LG_OPTS_SOFTMAX_OPTIONS);
    ((row_state *)n->state)->beta = o ? o->beta : 0.0f; /* absent options: TFLite's zeroed beta */
    return LG_OK;
}

static void softmax_rows(void *ud, int64_t begin, int64_t end) {
    const row_job *j = ud;
    const int64_t D = j->s->depth;
    const float beta = j->s->beta;
    for (int64_t r = begin; r < end; r++) {
        const float *x = j->x + r * D;
        float *y = j->y + r * D;
        const float mx = row_max(x, D);
        float sum = 0.0f;
        for (int64_t k = 0; k < D; k++) {
            float e = expf((x[k] - mx) * beta); /* fp32 in every precision (see the header) */
            y[k] = e;
            sum += e;
        }
        div_row(y, sum, D);
    }
}

lg_status lgk_softmax_eval(lgk_node *n, lg_error *err) {
    (void)err;
    row_run(n, softmax_rows);
    return LG_OK;
}

/* ------------------------------------------------------------------ LOG_SOFTMAX */

lg_status lgk_log_softmax_prepare(lgk_node *n, lg_error *err) { return rows_prepare(n, 0, err); }

static void log_softmax_rows(void *ud, int64_t begin, int64_t end) {
    const row_job *j = ud;
    const lgk_ctx *c = j->n->ctx;
    const int64_t D = j->s->depth;
    for (int64_t r = begin; r < end; r++) {
        const float *x = j->x + r * D;
        float *y = j->y + r * D;
        const float mx = row_max(x, D);
        float sum = 0.0f;
        for (int64_t k = 0; k < D; k++) sum = lgk_add(c, sum, lgk_h(c, expf(x[k] - mx)));
        const float log_sum = logf(sum);
        for (int64_t k = 0; k < D; k++) y[k] = x[k] - mx - log_sum;
    }
}

lg_status lgk_log_softmax_eval(lgk_node *n, lg_error *err) {
    (void)err;
    row_run(n, log_softmax_rows);
    return LG_OK;
}

/* ------------------------------------------------------------------ L2_NORMALIZATION */

lg_status lgk_l2norm_prepare(lgk_node *n, lg_error *err) {
    const lg_l2_norm_options *o = lgk_red_opts(n, LG_OPTS_L2_NORM_OPTIONS);
    if (o && o->fused_activation_function != 0)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err,
                        "fused activation %d is not supported (TFLite's kernel accepts only NONE)",
                        o->fused_activation_function);
    return rows_prepare(n, 0, err);
}

static void l2norm_rows(void *ud, int64_t begin, int64_t end) {
    const row_job *j = ud;
    const lgk_ctx *c = j->n->ctx;
    const int64_t D = j->s->depth;
    for (int64_t r = begin; r < end; r++) {
        const float *x = j->x + r * D;
        float *y = j->y + r * D;
        float sq = 0.0f;
        for (int64_t k = 0; k < D; k++) sq = lgk_mac(c, sq, x[k], x[k]);
        float l2 = sqrtf(sq);
        if (l2 < 1e-6f) l2 = 1e-6f; /* std::max(l2, epsilon) */
        div_into(y, x, l2, D);
    }
}

lg_status lgk_l2norm_eval(lgk_node *n, lg_error *err) {
    (void)err;
    row_run(n, l2norm_rows);
    return LG_OK;
}

/* ------------------------------------------------------------------ LOCAL_RESPONSE_NORMALIZATION */

lg_status lgk_lrn_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(rows_prepare(n, 4, err));
    const lg_local_response_normalization_options *o =
        lgk_red_opts(n, LG_OPTS_LOCAL_RESPONSE_NORMALIZATION_OPTIONS);
    row_state *s = n->state;
    if (o && o->radius < 0) return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "radius %d < 0 is not supported", o->radius);
    s->radius = o ? o->radius : 0;
    s->bias = o ? o->bias : 0.0f;
    s->alpha = o ? o->alpha : 0.0f;
    s->lrn_beta = o ? o->beta : 0.0f;
    return LG_OK;
}

static void lrn_rows(void *ud, int64_t begin, int64_t end) {
    const row_job *j = ud;
    const lgk_ctx *c = j->n->ctx;
    const row_state *s = j->s;
    const int64_t D = s->depth, R = s->radius;
    for (int64_t r = begin; r < end; r++) {
        const float *x = j->x + r * D;
        float *y = j->y + r * D;
        for (int64_t k = 0; k < D; k++) {
            /* the window [k - radius, k + radius], as TF and TFLite's optimized kernel (the
               TFLite reference_ops version stops one channel short) */
            int64_t lo = k - R < 0 ? 0 : k - R, hi = k + R >= D ? D - 1 : k + R;
            float sq = 0.0f;
            for (int64_t i = lo; i <= hi; i++) sq = lgk_mac(c, sq, x[i], x[i]);
            float scale = s->bias + s->alpha * sq;
            float mul;
            if (s->lrn_beta == 1.0f) mul = 1.0f / scale;
            else if (s->lrn_beta == 0.5f) mul = 1.0f / sqrtf(scale);
            else mul = powf(scale, -s->lrn_beta);
            y[k] = x[k] * mul;
        }
    }
}

lg_status lgk_lrn_eval(lgk_node *n, lg_error *err) {
    (void)err;
    row_run(n, lrn_rows);
    return LG_OK;
}
