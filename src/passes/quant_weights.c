/* litegpu quantize: the numeric conversions of one constant and the edits that store it.
 *
 * Sources (rules in include/lg/quantize.h):
 *  - fp16: TFLite's QuantizeTensorFloat16 (tensorflow/lite/tools/optimize/quantization_utils.cc):
 *    std::min(std::max(a, -65504), 65504), then static_cast<Eigen::half> (nearest even).
 *  - int8 / int4 per channel: SymmetricPerChannelQuantization + SymmetricPerChannelQuantizeValues
 *    (same file): half_range = max(|min|, |max|) per channel, scale = half_range / kMax,
 *    q = TfLiteRound(val * (kMax / half_range)) clamped to [kMin, kMax], kMax 127 (8 bit) or 7
 *    (4 bit, kMinQuantizedValue4bit = -7); per tensor PortableSymmetricQuantizeFloats
 *    (tensorflow/lite/kernels/internal/reference/portable_tensor_utils.cc): the same with
 *    scale 1 for a range of 0.
 *  - int4 blockwise: ai-edge-quantizer's uniform_quantize_tensor.py
 *    (tensor_zp_scale_from_min_max: bound = max(|min|, |max|, 1e-4), clipped to the float16
 *    range 65280 * 7, scale = bound / 7 rounded through bfloat16 to float16) and
 *    transformations/quantize_tensor.py (_perform_blockwise_quantization: a FLOAT16 scales
 *    tensor NAME_scales, zero_points -1, quantized_dimension 0). Rounding: TfLiteRound, as
 *    TFLite's SymmetricPerBlockQuantizeValues; range [-8, 7] as ai-edge-quantizer (4 bits
 *    are not narrow-range there).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/graph.h"
#include "passes/quant_impl.h"
#include "util/half.h"

int32_t lgq_round(float x) { return (int32_t)roundf(x); }

static int32_t clampi(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

void lgq_symmetric(const float *w, int64_t outer, int64_t n_ch, int64_t inner, int qmax, float *scales,
                   int8_t *q) {
    const float fq = (float)qmax;
    for (int64_t c = 0; c < n_ch; c++) {
        float r = 0;
        for (int64_t a = 0; a < outer; a++)
            for (int64_t i = 0; i < inner; i++) {
                float v = fabsf(w[(a * n_ch + c) * inner + i]);
                if (v > r) r = v;
            }
        const float inv = r == 0 ? 0 : fq / r;
        scales[c] = r == 0 ? 1.0f : r / fq;
        for (int64_t a = 0; a < outer; a++)
            for (int64_t i = 0; i < inner; i++) {
                const int64_t k = (a * n_ch + c) * inner + i;
                q[k] = (int8_t)clampi(lgq_round(w[k] * inv), -qmax, qmax);
            }
    }
}

/* float -> bfloat16 -> float, rounded to nearest even (finite values) */
static float round_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    memcpy(&f, &u, 4);
    return f;
}

void lgq_blockwise4(const float *w, int64_t rows, int64_t cols, int64_t block, uint16_t *scales_h, int8_t *q) {
    const int64_t nb = cols / block;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t b = 0; b < nb; b++) {
            const float *wb = w + r * cols + b * block;
            float bound = 1e-4f;
            for (int64_t i = 0; i < block; i++)
                if (fabsf(wb[i]) > bound) bound = fabsf(wb[i]);
            if (bound > 65280.0f * 7.0f) bound = 65280.0f * 7.0f;
            const uint16_t h = lg_float_to_half(round_bf16(bound / 7.0f));
            const float inv = 1.0f / lg_half_to_float(h);
            scales_h[r * nb + b] = h;
            for (int64_t i = 0; i < block; i++) q[r * cols + b * block + i] = (int8_t)clampi(lgq_round(wb[i] * inv), -8, 7);
        }
}

void lgq_pack_int4(const int8_t *q, int64_t n, uint8_t *out) {
    for (int64_t i = 0; i + 1 < n; i += 2)
        out[i / 2] = (uint8_t)(((unsigned)q[i] & 15u) | (((unsigned)q[i + 1] & 15u) << 4));
    if (n % 2) out[n / 2] = (uint8_t)((unsigned)q[n - 1] & 15u);
}

uint16_t lgq_to_half(float f) {
    if (f > LGQ_HALF_MAX) f = LGQ_HALF_MAX;
    else if (f < -LGQ_HALF_MAX) f = -LGQ_HALF_MAX;
    return lg_float_to_half(f);
}

/* ------------------------------------------------------------------ fp16 */

lg_status lg_const_to_fp16(lg_model *m, uint32_t sg, int32_t t, uint32_t at, int32_t *fp16_tensor, lg_error *err) {
    if (fp16_tensor) *fp16_tensor = -1;
    if (!m || sg >= m->n_subgraphs || t < 0 || (uint32_t)t >= m->subgraphs[sg].n_tensors)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_const_to_fp16: no tensor %d in subgraph %u", t, sg);
    const lg_tensor *x = &m->subgraphs[sg].tensors[t];
    const lg_buffer *b = lg_tensor_buffer(m, x);
    int64_t n = lg_tensor_numel(x);
    if (x->type != LG_FLOAT32 || !b || x->sparsity || n < 0 || b->size != (uint64_t)n * 4)
        return lgi_fail_at(err, LG_ERR_INVALID_ARG, (int32_t)sg, -1, t, "tensor %d \"%s\" is not a dense FLOAT32 constant", t,
                           lgi_printable(x->name).s);
    uint16_t *h = lgi_model_malloc(m, (size_t)(n ? n : 1) * 2);
    if (!h) return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++) {
        float f;
        memcpy(&f, b->data + 4 * i, 4);
        h[i] = lgq_to_half(f);
    }
    char nm[300];
    snprintf(nm, sizeof nm, "%s_fp16", x->name ? x->name : "");
    int32_t shape[LG_MAX_RANK];
    uint32_t rank = x->rank <= LG_MAX_RANK ? x->rank : LG_MAX_RANK;
    if (rank) memcpy(shape, x->shape, rank * sizeof *shape);
    int32_t ht = -1;
    lg_status st = lg_subgraph_add_const(m, sg, nm, LG_FLOAT16, shape, rank, h, (uint64_t)n * 2, &ht, err);
    lgi_model_mfree(m, h, (size_t)(n ? n : 1) * 2);
    if (st != LG_OK) return st;
    m->subgraphs[sg].tensors[t].buffer = 0; /* now computed by the DEQUANTIZE */
    LG_TRY(lg_op_insert(m, sg, at, LG_OP_DEQUANTIZE, NULL, 1, &ht, 1, &t, 1, LG_OPTS_NONE, NULL, err));
    if (fp16_tensor) *fp16_tensor = ht;
    return LG_OK;
}

/* ------------------------------------------------------------------ int8 / int4 */

static lg_status set_blockwise(lg_model *m, uint32_t sg, int32_t qt, int32_t scales, uint32_t block, lg_error *err) {
    lgi_arena *a = &m->priv->arena;
    lg_quant *q = lgi_arena_alloc(a, sizeof *q);
    lg_blockwise_quantization *bw = q ? lgi_arena_alloc(a, sizeof *bw) : NULL;
    if (!bw) return lgi_fail(err, a->over_limit ? LG_ERR_LIMIT : LG_ERR_NOMEM, "out of memory setting quantization");
    bw->scales = scales;
    bw->zero_points = -1;
    bw->block_size = (int32_t)block;
    q->details_kind = LG_QDETAILS_BLOCKWISE_QUANTIZATION;
    q->details = bw;
    q->quantized_dimension = 0;
    m->subgraphs[sg].tensors[qt].quant = q;
    return LG_OK;
}

/* max |w| and max |w - dequantized(q)| computed as DEQUANTIZE computes it */
static void errors(const float *w, const int8_t *q, int64_t n, const float *scale_of, int64_t period, int64_t stride,
                   double *max_abs, double *max_err) {
    double ma = 0, me = 0;
    for (int64_t k = 0; k < n; k++) {
        const int64_t s = (k / stride) % period; /* element k's scale: per channel or per block */
        const double d = fabs((double)w[k] - (double)(scale_of[s] * (float)q[k]));
        if (fabs((double)w[k]) > ma) ma = fabs((double)w[k]);
        if (d > me) me = d;
    }
    *max_abs = ma;
    *max_err = me;
}

lg_status lgq_store_weight(lg_model *m, uint32_t sg, int32_t shape_of, const float *w, const lgq_form *f, lgq_result *r,
                           lg_error *err) {
    memset(r, 0, sizeof *r);
    r->qtensor = -1;
    const lg_tensor *x = &m->subgraphs[sg].tensors[shape_of];
    int32_t shape[LG_MAX_RANK];
    uint32_t rank = x->rank;
    if (rank > LG_MAX_RANK) return lgi_fail(err, LG_ERR_UNSUPPORTED, "rank %u", rank);
    if (rank) memcpy(shape, x->shape, rank * sizeof *shape);
    const int64_t n = lg_tensor_numel(x);
    char nm[300];
    snprintf(nm, sizeof nm, "%s_%s", x->name ? x->name : "", f->type == LG_INT4 ? "int4" : "int8");
    const int qmax = f->type == LG_INT4 ? 7 : 127;
    int8_t *q = malloc((size_t)(n ? n : 1));
    uint8_t *packed = f->type == LG_INT4 ? malloc((size_t)(n / 2 + 1)) : NULL;
    float *scales = NULL;
    uint16_t *hs = NULL;
    int64_t outer = 1, n_ch = 1, inner = n, n_s = 1;
    if (f->block) {
        n_s = n / f->block;
        hs = malloc((size_t)(n_s ? n_s : 1) * sizeof *hs);
        scales = malloc((size_t)(n_s ? n_s : 1) * sizeof *scales);
    } else {
        if (f->axis >= 0) {
            n_ch = shape[f->axis];
            outer = inner = 1;
            for (int32_t d = 0; d < f->axis; d++) outer *= shape[d];
            for (uint32_t d = (uint32_t)f->axis + 1; d < rank; d++) inner *= shape[d];
        }
        n_s = n_ch;
        scales = malloc((size_t)(n_ch ? n_ch : 1) * sizeof *scales);
    }
    lg_status st = LG_OK;
    if (!q || !scales || (f->type == LG_INT4 && !packed) || (f->block && !hs)) {
        st = lgi_fail(err, LG_ERR_NOMEM, "out of memory quantizing tensor %d", shape_of);
        goto done;
    }
    if (f->block) {
        lgq_blockwise4(w, shape[0], shape[1], f->block, hs, q);
        for (int64_t k = 0; k < n_s; k++) scales[k] = lg_half_to_float(hs[k]);
        errors(w, q, n, scales, n_s, f->block, &r->max_abs, &r->max_err);
    } else {
        lgq_symmetric(w, outer, n_ch, inner, qmax, scales, q);
        errors(w, q, n, scales, n_ch, inner ? inner : 1, &r->max_abs, &r->max_err);
    }
    const void *data = q;
    uint64_t nbytes = (uint64_t)n;
    if (f->type == LG_INT4) {
        lgq_pack_int4(q, n, packed);
        data = packed;
        nbytes = (uint64_t)(n + 1) / 2;
    }
    st = lg_subgraph_add_const(m, sg, nm, f->type, shape, rank, data, nbytes, &r->qtensor, err);
    if (st != LG_OK) goto done;
    r->n_scales = (uint32_t)n_s;
    if (f->block) {
        int32_t sdims[2] = {shape[0], (int32_t)(shape[1] / (int32_t)f->block)}, stn = -1;
        snprintf(nm, sizeof nm, "%s_scales", x->name ? x->name : "");
        x = NULL; /* the tensor array may have moved */
        st = lg_subgraph_add_const(m, sg, nm, LG_FLOAT16, sdims, 2, hs, (uint64_t)n_s * 2, &stn, err);
        if (st == LG_OK) st = set_blockwise(m, sg, r->qtensor, stn, f->block, err);
        r->bytes = nbytes + 2 * (uint64_t)n_s;
    } else {
        st = lg_tensor_set_quant(m, sg, (uint32_t)r->qtensor, scales, NULL, (uint32_t)n_s, f->axis >= 0 ? f->axis : 0,
                                 err);
        r->bytes = nbytes + 12 * (uint64_t)n_s; /* float scale + int64 zero point each */
    }
done:
    free(q);
    free(packed);
    free(scales);
    free(hs);
    return st;
}
