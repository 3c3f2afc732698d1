/* LOGISTIC, TANH and SOFTMAX with int16 activations (k_quant_more.h), and TFLite's 16-bit
 * look-up tables (LUTPopulateInt16, k_quant_fp.h). XNNPACK takes no int16 tensor, so these are
 * TFLite's builtin kernels in both --int-arith modes. The 8-bit forms of the three ops go on
 * to k_quant_ew.c (lgq_lut_*, lgq_softmax_*).
 *
 * Sources (tflite/kernels/):
 *   activations.cc TanhPrepare / SigmoidPrepare (int16): zero points 0, output scale 2^-15
 *     (CheckedLog2: log(s) / log(2) within 1e-3 of -15; LOGISTIC also s_out == 1/32768
 *     exactly); input_left_shift = 12 + round(log2 s_in). A power-of-two input scale with that
 *     shift 0 (TANH: 0 or 1) takes optimized_ops' gemmlowp fixed-point path, which is refused
 *     here; otherwise multiplier = s_in * 4096 * 3 (double), doubled with the shift + 1 while
 *     <= 32767 / 2 (shift <= 30), truncated to int, and TanhEval / SigmoidEval run
 *     internal/reference/integer_ops/{logistic,tanh}.h: x' = (x * mult + round) >> shift,
 *     interpolation in sigmoid_table_uint16 (internal/common.h) on |x'| (Q9 / Q8 fractions),
 *     the sign folded back, rounded down to 16 bits.
 *   activations.cc SoftmaxPrepare (int16): zero points 0, s_out = 1/32768 (+-0.1%); exp_lut =
 *     LUTPopulate<int16_t>(10/65535, 32767, 2/65535, 0, exp) and one_over_one_plus_x_lut =
 *     LUTPopulate(1/65535, -32768, 2/65535, 0, 1/(1+x)), both the double form; the input
 *     multiplier QuantizeMultiplier(float(s_in * beta) / (10 / 65535)).
 *     internal/reference/softmax.h SoftmaxInt16: per row, exp of MBQM(x - max) + 32767 through
 *     exp_lut, sum in int32, its reciprocal through one_over_one_plus_x_lut on the normalized
 *     sum, y = (e * r + round) >> (31 - clz(sum)), clamped to [0, 32767].
 */
#include "run/k_quant_fp.h"
#include "run/k_quant_more.h"

/* ------------------------------------------------------------------ LUTPopulateInt16 */

void lgq_lut16_populate_f(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, lgq_lut_ff f,
                          const void *ud, int16_t *lut) {
    const float input_min = in_scale * (float)(INT16_MIN - in_zp);
    const float input_max = in_scale * (float)(INT16_MAX - in_zp);
    const float output_min = out_scale * (float)(INT16_MIN - out_zp);
    const float output_max = out_scale * (float)(INT16_MAX - out_zp);
    const int nb_steps = 512;
    const float step = (input_max - input_min) / (float)nb_steps;
    const float half_step = step / 2;
    const float output_scaling_inv = (float)(INT16_MAX - INT16_MIN + 1) / (output_max - output_min);
    const float table_min = (float)INT16_MIN, table_max = (float)INT16_MAX;
    for (int i = 0; i < nb_steps; i++) {
        const float val = f(input_min + (float)i * step, ud);
        const float val_midpoint = f(input_min + (float)i * step + half_step, ud);
        const float val_next = f(input_min + (float)(i + 1) * step, ud);
        const float sample_val = roundf(val * output_scaling_inv);
        const float midpoint_interp_val = roundf((val_next * output_scaling_inv + roundf(val * output_scaling_inv)) / 2);
        const float midpoint_val = roundf(val_midpoint * output_scaling_inv);
        const float midpoint_err = midpoint_interp_val - midpoint_val;
        const float bias = roundf(midpoint_err / 2);
        lut[i] = (int16_t)fminf(fmaxf(sample_val - bias, table_min), table_max);
    }
    lut[nb_steps] = (int16_t)fminf(fmaxf(roundf(f(input_max, ud) * output_scaling_inv), table_min), table_max);
}

void lgq_lut16_populate_d(double in_scale, int32_t in_zp, double out_scale, int32_t out_zp, lgq_lut_fd f,
                          const void *ud, int16_t *lut) {
    const double input_min = in_scale * (double)(INT16_MIN - in_zp);
    const double input_max = in_scale * (double)(INT16_MAX - in_zp);
    const double output_min = out_scale * (double)(INT16_MIN - out_zp);
    const double output_max = out_scale * (double)(INT16_MAX - out_zp);
    const int nb_steps = 512;
    const double step = (input_max - input_min) / nb_steps;
    const double half_step = step / 2;
    const double output_scaling_inv = (double)(INT16_MAX - INT16_MIN + 1) / (output_max - output_min);
    const double table_min = (double)INT16_MIN, table_max = (double)INT16_MAX;
    for (int i = 0; i < nb_steps; i++) {
        const double val = f(input_min + i * step, ud);
        const double val_midpoint = f(input_min + i * step + half_step, ud);
        const double val_next = f(input_min + (i + 1) * step, ud);
        const double sample_val = round(val * output_scaling_inv);
        const double midpoint_interp_val = round((val_next * output_scaling_inv + round(val * output_scaling_inv)) / 2);
        const double midpoint_val = round(val_midpoint * output_scaling_inv);
        const double midpoint_err = midpoint_interp_val - midpoint_val;
        const double bias = round(midpoint_err / 2);
        lut[i] = (int16_t)fmin(fmax(sample_val - bias, table_min), table_max);
    }
    lut[nb_steps] = (int16_t)fmin(fmax(round(f(input_max, ud) * output_scaling_inv), table_min), table_max);
}

/* ------------------------------------------------------------------ state */

/* internal/common.h sigmoid_table_uint16: 65536 / (1 + exp(-k / 32)) for k = 0..255, rounded */
static const uint16_t sigmoid_table_uint16[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498,
    40149, 40794, 41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255,
    46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409, 51865,
    52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174,
    56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544, 58800, 59048, 59288,
    59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279, 61441,
    61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886,
    62990, 63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835,
    63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450,
    64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845,
    64873, 64900, 64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097,
    65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234, 65246, 65258,
    65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
    65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425,
    65429, 65433, 65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465,
    65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
    65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508,
    65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516, 65517, 65517, 65518,
    65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524, 65525,
    65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529,
    65529, 65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531,
    65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533,
    65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534,
    65534, 65534, 65535};

typedef struct qact16 {
    int32_t mult;
    int shift;
    int64_t rows, len;
    int16_t exp_lut[513], recip_lut[513];
} qact16;

/* quantization_util.cc CheckedLog2: log(x) * (1 / log(2)) in float, rounded; true when within
   1e-3 of an integer. */
static int checked_log2(float x, int *log2_result) {
    const float x_log2 = logf(x) * (1.0f / logf(2.0f));
    const float r = roundf(x_log2);
    *log2_result = (int)r;
    return fabsf(x_log2 - r) < 1e-3f;
}

/* TanhPrepare / SigmoidPrepare's int16 block */
static lg_status sigmoid16_prepare(lgk_node *n, qact16 *q, const lgq_tp *in, const lgq_tp *out, lg_error *err) {
    const int is_tanh = n->code == LG_OP_TANH;
    if (!is_tanh && out->scale != 1.0f / 32768)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output scale %g must be 1/32768 (TFLite)", (double)out->scale);
    int l2;
    int pot = checked_log2(in->scale, &l2);
    int shift = (15 - 3) + l2;
    pot = pot && (shift == 0 || (is_tanh && shift == 1));
    if (pot)
        return lgq_unsupported(n, err, "int16 %s with the power-of-two input scale %g (TFLite's gemmlowp path) is not "
                               "supported", n->name, (double)in->scale);
    double multiplier = (double)in->scale * 4096.0 * 3.0;
    shift = 0;
    while (multiplier <= 32767.0 / 2.0 && shift <= 30) {
        shift++;
        multiplier = multiplier * 2.0;
    }
    q->mult = (int32_t)multiplier;
    q->shift = shift;
    int ol2;
    if (!checked_log2(out->scale, &ol2) || ol2 != -15)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output scale %g must be 2^-15 (TFLite)", (double)out->scale);
    if (q->mult <= 0)
        return lgq_unsupported(n, err, "int16 %s with input scale %g (no multiplier) is not supported", n->name,
                               (double)in->scale);
    return LG_OK;
}

static double exp_d(double v, const void *ud) {
    (void)ud;
    return exp(v);
}
static double recip1p_d(double v, const void *ud) {
    (void)ud;
    return 1.0 / (1.0 + v);
}

static lg_status softmax16_prepare(lgk_node *n, qact16 *q, const lgq_tp *in, const lgq_tp *out, lg_error *err) {
    if (fabsf(out->scale - 1.0f / 32768) > 0.001f * 1.0f / 32768)
        return lgk_fail(n, LG_ERR_FORMAT, err, "int16 output must have scale 1/32768 (TFLite)");
    const int32_t range = INT16_MAX - INT16_MIN;
    lgq_lut16_populate_d(10.0 / range, INT16_MAX, 2.0 / range, 0, exp_d, NULL, q->exp_lut);
    lgq_lut16_populate_d(1.0 / range, INT16_MIN, 2.0 / range, 0, recip1p_d, NULL, q->recip_lut);
    const float beta = n->op->opts_kind == LG_OPTS_SOFTMAX_OPTIONS && n->opts ? ((const lg_softmax_options *)n->opts)->beta : 1.0f;
    const double rescale = (double)(in->scale * beta) / (10.0 / 65535.0);
    if (!lgq_quantize_multiplier(rescale, &q->mult, &q->shift) || q->shift > 30)
        return lgk_fail(n, LG_ERR_FORMAT, err, "bad input scale %g", (double)in->scale);
    const lgk_tensor *x = n->in[0];
    if (x->rank < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "input must have rank >= 1");
    q->len = x->shape[x->rank - 1];
    q->rows = q->len ? x->numel / q->len : 0;
    return LG_OK;
}

lg_status lgq_act16_prepare(lgk_node *n, lg_error *err) {
    if (n->n_in < 1 || !n->in[0] || n->in[0]->type != LG_INT16)
        return n->code == LG_OP_SOFTMAX ? lgq_softmax_prepare(n, err) : lgq_lut_prepare(n, err);
    if (n->n_in != 1 || n->n_out != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "expected 1 input and 1 output");
    const lgk_tensor *x = n->in[0], *y = n->out[0];
    if (lgk_storage_type(y->ir->type) != LG_INT16)
        return lgq_unsupported(n, err, "INT16 input with %s output is not supported", lg_dtype_name(y->ir->type));
    lgq_tp in, out;
    LG_TRY(lgq_params(n, x, "input", &in, err));
    LG_TRY(lgq_params(n, y, "output", &out, err));
    if (in.zp || out.zp) return lgk_fail(n, LG_ERR_FORMAT, err, "int16 %s needs zero points 0 (TFLite)", n->name);
    qact16 *q = lgk_alloc(n, sizeof *q);
    if (!q) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    memset(q, 0, sizeof *q);
    if (n->code == LG_OP_SOFTMAX) LG_TRY(softmax16_prepare(n, q, &in, &out, err));
    else if (n->code == LG_OP_LOGISTIC || n->code == LG_OP_TANH) LG_TRY(sigmoid16_prepare(n, q, &in, &out, err));
    else return lgq_unsupported(n, err, "int16 %s is not supported", n->name);
    n->state = q;
    return lgk_set_output(n, 0, LG_INT16, x->shape, x->rank, err);
}

/* ------------------------------------------------------------------ eval */

static int16_t logistic16(const qact16 *q, int16_t x) {
    const int32_t round = q->shift > 0 ? 1 << (q->shift - 1) : 0;
    const int32_t v = (x * q->mult + round) >> q->shift;
    const uint32_t a = (uint32_t)(v < 0 ? -v : v);
    const uint32_t uh = a >> 9;
    uint32_t r;
    if (uh >= 255) {
        r = 0x7FFFu << 10;
    } else {
        const uint32_t ua = sigmoid_table_uint16[uh], ub = sigmoid_table_uint16[uh + 1];
        r = (ua << 9) + (a & 0x1ff) * (ub - ua);
    }
    r = v >= 0 ? r + (1u << 9) : (1u << (16 + 9)) - r + (1u << 9) - 1;
    return (int16_t)(r >> 10);
}

static int16_t tanh16(const qact16 *q, int16_t x) {
    const int32_t round = q->shift > 0 ? 1 << (q->shift - 1) : 0;
    const int32_t v = (x * q->mult + round) >> q->shift;
    const uint32_t a = (uint32_t)(v < 0 ? -v : v);
    const uint32_t uh = a >> 8;
    int32_t r;
    if (uh >= 255) {
        r = 0xFFFF << 8;
    } else {
        const uint32_t ua = sigmoid_table_uint16[uh], ub = sigmoid_table_uint16[uh + 1];
        r = (int32_t)((ua << 8) + (uint8_t)(a & 0xFF) * (ub - ua));
    }
    r = v >= 0 ? r - (1 << (14 + 9)) + (1 << (9 - 2)) : -r + (1 << (14 + 9)) + (1 << (9 - 2)) - 1;
    return (int16_t)(r >> (9 - 1));
}

static void softmax16_row(const qact16 *q, const int16_t *x, int16_t *y) {
    int16_t mx = INT16_MIN;
    for (int64_t c = 0; c < q->len; c++) mx = x[c] > mx ? x[c] : mx;
    int32_t sum = 0;
    for (int64_t c = 0; c < q->len; c++) {
        /* SoftMaxCalculateExp: [-65535, 0] scaled to [-10, 0], recentred, saturated */
        const int32_t scaled = lgq_mbqm(x[c] - mx, q->mult, q->shift) + 32767;
        const int16_t sat = (int16_t)lgq_clamp(scaled, -32768, 32767);
        y[c] = lgq_lut16(sat, q->exp_lut);
        sum += y[c];
    }
    const uint8_t hp1 = (uint8_t)lgq_clz32((uint32_t)sum);
    const int32_t shifted = (int32_t)((((int64_t)sum << (hp1 - 1)) + (1 << 13)) >> 14);
    const int32_t sym = shifted + (-((1 << 15) + (1 << 16)));
    const int16_t recip = lgq_lut16((int16_t)lgq_clamp(sym, -32768, 32767), q->recip_lut);
    const uint8_t right_shift = (uint8_t)(31 - hp1);
    const int64_t round = (int64_t)(1 << (right_shift - 1));
    for (int64_t c = 0; c < q->len; c++) {
        const int32_t r = (int32_t)(((int64_t)y[c] * (int64_t)recip + round) >> right_shift);
        y[c] = (int16_t)lgq_clamp(r, 0, 32767);
    }
}

lg_status lgq_act16_eval(lgk_node *n, lg_error *err) {
    if (n->in[0]->type != LG_INT16) return n->code == LG_OP_SOFTMAX ? lgq_softmax_eval(n, err) : lgq_lut_eval(n, err);
    const qact16 *q = n->state;
    const int16_t *x = n->in[0]->data;
    int16_t *y = n->out[0]->data;
    const int64_t cnt = n->out[0]->numel;
    if (n->code == LG_OP_SOFTMAX) {
        for (int64_t r = 0; r < q->rows; r++) softmax16_row(q, x + r * q->len, y + r * q->len);
    } else if (n->code == LG_OP_LOGISTIC) {
        for (int64_t i = 0; i < cnt; i++) y[i] = logistic16(q, x[i]);
    } else {
        for (int64_t i = 0; i < cnt; i++) y[i] = tanh16(q, x[i]);
    }
    return LG_OK;
}
