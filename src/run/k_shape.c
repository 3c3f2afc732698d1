/* Reference kernels: shape family. This file: the table, the shared helpers (strided box
 * copy, fill, input checks) and the small ops (RESHAPE, SQUEEZE, EXPAND_DIMS, SHAPE, FILL,
 * RANGE, WHERE, CUMSUM, ONE_HOT). The others live in k_shape_*.c. */
#include <stdio.h>

#include "run/k_shape.h"

/* ------------------------------------------------------------------ helpers */

void lgks_strides(const int32_t *shape, uint32_t rank, int64_t *strides) {
    int64_t s = 1;
    for (int i = (int)rank - 1; i >= 0; i--) {
        strides[i] = s;
        s *= shape[i];
    }
}

const char *lgks_shape_str(char *buf, size_t size, const int32_t *shape, uint32_t rank) {
    size_t k = 0;
    if (size < 3) return "";
    buf[k++] = '[';
    buf[k] = 0;
    for (uint32_t d = 0; d < rank && k + 1 < size; d++) {
        int w = snprintf(buf + k, size - k, "%s%d", d ? "," : "", shape[d]);
        if (w < 0) break;
        k += (size_t)w;
    }
    if (k + 2 <= size) {
        buf[k++] = ']';
        buf[k] = 0;
    }
    return buf;
}

void lgks_fill(uint8_t *dst, int64_t n, const uint8_t *val, uint32_t es) {
    if (n <= 0) return;
    int zero = 1;
    for (uint32_t b = 0; b < es; b++) zero &= val[b] == 0;
    if (zero || es == 1) {
        memset(dst, val[0], (size_t)n * es);
        return;
    }
    switch (es) {
    case 2: { uint16_t v; memcpy(&v, val, 2); for (int64_t i = 0; i < n; i++) memcpy(dst + 2 * i, &v, 2); break; }
    case 4: { uint32_t v; memcpy(&v, val, 4); for (int64_t i = 0; i < n; i++) memcpy(dst + 4 * i, &v, 4); break; }
    case 8: { uint64_t v; memcpy(&v, val, 8); for (int64_t i = 0; i < n; i++) memcpy(dst + 8 * i, &v, 8); break; }
    default: for (int64_t i = 0; i < n; i++) memcpy(dst + (size_t)i * es, val, es); break;
    }
}

/* The innermost run of a box copy: n elements with byte strides is (source) and id (dest). */
static void copy_run(uint8_t *d, const uint8_t *s, int64_t n, int64_t is, int64_t id, uint32_t es) {
    if (is == (int64_t)es && id == (int64_t)es) {
        memcpy(d, s, (size_t)n * es);
        return;
    }
    if (is == 0 && id == (int64_t)es) {
        lgks_fill(d, n, s, es);
        return;
    }
    switch (es) {
    case 1: for (int64_t j = 0; j < n; j++) d[j * id] = s[j * is]; break;
    case 2: for (int64_t j = 0; j < n; j++) memcpy(d + j * id, s + j * is, 2); break;
    case 4: for (int64_t j = 0; j < n; j++) memcpy(d + j * id, s + j * is, 4); break;
    case 8: for (int64_t j = 0; j < n; j++) memcpy(d + j * id, s + j * is, 8); break;
    default: for (int64_t j = 0; j < n; j++) memcpy(d + j * id, s + j * is, es); break;
    }
}

/* One 2-D block: element (i, j) goes from s + i*es + j*sc to d + i*dr + j*es. */
#define LGKS_TILE 16
#define LGKS_TILE_LOOP(T)                                                                     \
    for (int64_t i0 = 0; i0 < rows; i0 += LGKS_TILE) {                                        \
        int64_t i1 = i0 + LGKS_TILE < rows ? i0 + LGKS_TILE : rows;                           \
        for (int64_t j0 = 0; j0 < cols; j0 += LGKS_TILE) {                                    \
            int64_t j1 = j0 + LGKS_TILE < cols ? j0 + LGKS_TILE : cols;                       \
            for (int64_t i = i0; i < i1; i++) {                                               \
                uint8_t *dp = d + i * dr;                                                     \
                const uint8_t *sp = s + i * (int64_t)sizeof(T);                               \
                for (int64_t j = j0; j < j1; j++) {                                           \
                    T v;                                                                      \
                    memcpy(&v, sp + j * sc, sizeof(T));                                       \
                    memcpy(dp + j * (int64_t)sizeof(T), &v, sizeof(T));                       \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
    }

static void copy_block(uint8_t *d, const uint8_t *s, int64_t rows, int64_t cols, int64_t sc, int64_t dr, uint32_t es) {
    switch (es) {
    case 1: LGKS_TILE_LOOP(uint8_t); break;
    case 2: LGKS_TILE_LOOP(uint16_t); break;
    case 4: LGKS_TILE_LOOP(uint32_t); break;
    case 8: LGKS_TILE_LOOP(uint64_t); break;
    default:
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) memcpy(d + i * dr + j * (int64_t)es, s + i * (int64_t)es + j * sc, es);
        break;
    }
}

/* Normalized box whose dim r-2 is contiguous in the source and dim r-1 in the destination. */
static void copy_tiled(uint8_t *dst, const uint8_t *src, const int64_t *sh, const int64_t *s, const int64_t *d, uint32_t r,
                       uint32_t es) {
    int64_t idx[LGKS_BOX_MAX] = {0};
    int64_t so = 0, dof = 0;
    for (;;) {
        copy_block(dst + dof, src + so, sh[r - 2], sh[r - 1], s[r - 1], d[r - 2], es);
        int k = (int)r - 3;
        for (; k >= 0; k--) {
            so += s[k];
            dof += d[k];
            if (++idx[k] < sh[k]) break;
            so -= s[k] * sh[k];
            dof -= d[k] * sh[k];
            idx[k] = 0;
        }
        if (k < 0) break;
    }
}

void lgks_copy(uint8_t *dst, const uint8_t *src, const int64_t *shape, const int64_t *ss, const int64_t *ds,
               uint32_t rank, uint32_t es) {
    int64_t sh[LGKS_BOX_MAX], s[LGKS_BOX_MAX], d[LGKS_BOX_MAX];
    uint32_t r = 0;
    for (uint32_t i = 0; i < rank && i < LGKS_BOX_MAX; i++) {
        if (shape[i] <= 0) return;
        if (shape[i] == 1) continue;
        if (r > 0 && s[r - 1] == ss[i] * shape[i] && d[r - 1] == ds[i] * shape[i]) {
            sh[r - 1] *= shape[i];
            s[r - 1] = ss[i];
            d[r - 1] = ds[i];
            continue;
        }
        sh[r] = shape[i];
        s[r] = ss[i];
        d[r] = ds[i];
        r++;
    }
    if (r == 0) {
        memcpy(dst, src, es);
        return;
    }
    /* A transpose (the destination's innermost dim is strided in the source, and another dim
       is the source's contiguous one): move that dim next to the innermost and copy 2-D tiles,
       so both sides are read and written in cache-sized blocks. */
    if (r >= 2 && d[r - 1] == (int64_t)es && s[r - 1] != (int64_t)es && s[r - 1] != 0) {
        int j = -1;
        for (int k = 0; k < (int)r - 1; k++)
            if (s[k] == (int64_t)es) j = k;
        if (j >= 0) {
            int64_t a = sh[j], b = s[j], c = d[j];
            for (int k = j; k < (int)r - 2; k++) {
                sh[k] = sh[k + 1];
                s[k] = s[k + 1];
                d[k] = d[k + 1];
            }
            sh[r - 2] = a;
            s[r - 2] = b;
            d[r - 2] = c;
            copy_tiled(dst, src, sh, s, d, r, es);
            return;
        }
    }
    const int64_t n = sh[r - 1], is = s[r - 1], id = d[r - 1];
    int64_t idx[LGKS_BOX_MAX] = {0};
    int64_t so = 0, dof = 0; /* byte offsets of the current run */
    for (;;) {
        copy_run(dst + dof, src + so, n, is, id, es);
        int k = (int)r - 2;
        for (; k >= 0; k--) {
            so += s[k];
            dof += d[k];
            if (++idx[k] < sh[k]) break;
            so -= s[k] * sh[k];
            dof -= d[k] * sh[k];
            idx[k] = 0;
        }
        if (k < 0) break;
    }
}

lg_status lgks_input(const lgk_node *n, uint32_t i, lg_error *err) {
    if (i >= n->n_in || !n->in[i]) return lgk_fail(n, LG_ERR_FORMAT, err, "input %u is missing", i);
    const lgk_tensor *t = n->in[i];
    if (!lgk_elem_size(t->type))
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "input %u (tensor %d) has type %s, which the reference kernels do not support",
                        i, t->index, lg_dtype_name(t->ir->type));
    if (t->is_const) {
        if (t->ir->sparsity && n->code != LG_OP_DENSIFY)
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "input %u (tensor %d) is a sparse constant (only DENSIFY reads those)",
                            i, t->index);
        int ft = t->ir->type;
        if (t->type == LG_FLOAT32 && ft != LG_FLOAT32 && ft != LG_FLOAT16)
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "input %u (tensor %d) is a %s constant, which is not supported",
                            i, t->index, lg_dtype_name(ft));
        if (t->nbytes < (uint64_t)t->numel * lgk_elem_size(t->type) && !t->ir->sparsity)
            return lgk_fail(n, LG_ERR_FORMAT, err, "input %u (tensor %d): constant data is too short", i, t->index);
    }
    return LG_OK;
}

lg_status lgks_counts(const lgk_node *n, uint32_t lo, uint32_t hi, uint32_t olo, uint32_t ohi, lg_error *err) {
    if (n->n_in < lo || n->n_in > hi) {
        if (lo == hi) return lgk_fail(n, LG_ERR_FORMAT, err, "has %u inputs, expected %u", n->n_in, lo);
        return lgk_fail(n, LG_ERR_FORMAT, err, "has %u inputs, expected %u to %u", n->n_in, lo, hi);
    }
    if (n->n_out < olo || n->n_out > ohi) {
        if (olo == ohi) return lgk_fail(n, LG_ERR_FORMAT, err, "has %u outputs, expected %u", n->n_out, olo);
        return lgk_fail(n, LG_ERR_FORMAT, err, "has %u outputs, expected %u to %u", n->n_out, olo, ohi);
    }
    for (uint32_t i = 0; i < n->n_out; i++)
        if (!n->out[i]) return lgk_fail(n, LG_ERR_FORMAT, err, "output %u is missing", i);
    for (uint32_t i = 0; i < n->n_in; i++)
        if (n->in[i] || i < lo) LG_TRY(lgks_input(n, i, err));
    return LG_OK;
}

static int quant_of(const lgk_tensor *t, double *scale, int64_t *zp) {
    const lg_quant *q = t->ir->quant;
    if (!q || !q->n_scale || !q->scale) return 0;
    *scale = q->scale[0];
    *zp = q->n_zero_point && q->zero_point ? q->zero_point[0] : 0;
    return 1;
}

lg_status lgks_out_like(const lgk_node *n, uint32_t o, const lgk_tensor *in, lg_error *err) {
    const lgk_tensor *out = n->out[o];
    lg_dtype got = lgk_storage_type(out->ir->type);
    if (got != in->type)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output %u (tensor %d) is %s but input tensor %d is %s", o, out->index,
                        lg_dtype_name(out->ir->type), in->index, lg_dtype_name(in->ir->type));
    if (in->type == LG_INT8 || in->type == LG_UINT8 || in->type == LG_INT16) {
        double sa, sb;
        int64_t za, zb;
        if (quant_of(in, &sa, &za) && quant_of(out, &sb, &zb) && (sa != sb || za != zb))
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err,
                            "output %u (tensor %d) has quantization scale %g zero point %lld but input tensor %d has "
                            "%g / %lld: requantizing is not supported", o, out->index, sb, (long long)zb, in->index, sa,
                            (long long)za);
    }
    return LG_OK;
}

lg_status lgks_const_scalar(const lgk_node *n, uint32_t i, int64_t *v, lg_error *err) {
    int64_t buf[1];
    uint32_t cnt = 0;
    LG_TRY(lgk_const_ints(n, i, buf, 1, &cnt, err));
    if (cnt != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "input %u must hold one value, not %u", i, cnt);
    *v = buf[0];
    return LG_OK;
}

static const void *opts_of(const lgk_node *n, lg_opts_kind kind) {
    return n->op->opts_kind == kind ? n->opts : NULL;
}

/* ------------------------------------------------------------------ RESHAPE, SQUEEZE, EXPAND_DIMS */

typedef struct reshape_state {
    int runtime; /* the shape comes from a tensor computed at run time: check it at eval */
} reshape_state;

/* TFLite's ResizeOutput: one -1 is inferred from the element count. */
static lg_status reshape_resolve(const lgk_node *n, const int64_t *want, uint32_t rank, int32_t *out,
                                 lg_error *err) {
    const lgk_tensor *in = n->in[0];
    if (rank > LG_MAX_RANK) return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "output rank %u > %d", rank, LG_MAX_RANK);
    int64_t nz_in = 1;
    for (uint32_t d = 0; d < in->rank; d++)
        if (in->shape[d]) nz_in *= in->shape[d];
    int stretch = -1;
    int64_t out_n = 1, nz_out = 1;
    for (uint32_t i = 0; i < rank; i++) {
        int64_t v = want[i];
        if (v == -1) {
            if (stretch >= 0) return lgk_fail(n, LG_ERR_FORMAT, err, "the new shape has more than one -1");
            stretch = (int)i;
            out[i] = 1;
            continue;
        }
        if (v < 0 || v > INT32_MAX) return lgk_fail(n, LG_ERR_FORMAT, err, "the new shape has dimension %lld", (long long)v);
        if (v && nz_out > INT64_MAX / v) return lgk_fail(n, LG_ERR_LIMIT, err, "the new shape is too large");
        if (v) nz_out *= v;
        out_n *= v;
        out[i] = (int32_t)v;
    }
    if (stretch >= 0) {
        int64_t s = (in->numel == 0 && out_n != 0) ? 0 : nz_in / nz_out;
        if (s > INT32_MAX) return lgk_fail(n, LG_ERR_LIMIT, err, "the inferred dimension is too large");
        out[stretch] = (int32_t)s;
        out_n *= s;
    }
    if (out_n != in->numel) {
        char a[128];
        return lgk_fail(n, LG_ERR_FORMAT, err, "cannot reshape %lld elements to %s", (long long)in->numel,
                        lgks_shape_str(a, sizeof a, out, rank));
    }
    return LG_OK;
}

static lg_status reshape_from_opts(const lgk_node *n, int64_t *want, uint32_t *rank, lg_error *err) {
    const lg_reshape_options *o = opts_of(n, LG_OPTS_RESHAPE_OPTIONS);
    *rank = 0;
    if (!o || !o->new_shape.data) return LG_OK;
    uint32_t r = o->new_shape.n;
    if (r > LG_MAX_RANK) return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "new_shape has rank %u > %d", r, LG_MAX_RANK);
    for (uint32_t i = 0; i < r; i++) {
        int32_t v;
        memcpy(&v, (const uint8_t *)o->new_shape.data + 4 * i, 4);
        want[i] = v;
    }
    if (r == 1 && want[0] == 0) r = 0; /* legacy: [0] means a scalar */
    *rank = r;
    return LG_OK;
}

lg_status lgks_reshape_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 1, 2, 1, 1, err));
    const lgk_tensor *in = n->in[0];
    const lgk_tensor *st = n->n_in > 1 ? n->in[1] : NULL;
    LG_TRY(lgks_out_like(n, 0, in, err));
    reshape_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    n->state = s;
    int64_t want[LG_MAX_RANK] = {0};
    uint32_t rank = 0;
    if (st && st->rank == 1 && st->type == LG_INT32) {
        if (st->numel == 0) {
            rank = 0;
        } else if (st->is_const) {
            LG_TRY(lgk_const_ints(n, 1, want, LG_MAX_RANK, &rank, err));
        } else {
            if (st->numel > LG_MAX_RANK)
                return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "shape input has %lld values (max %d)", (long long)st->numel,
                                LG_MAX_RANK);
            /* computed at run time: predict from new_shape, else from the declared output, and
               check the run-time value at eval */
            s->runtime = 1;
            int32_t out[LG_MAX_RANK];
            LG_TRY(reshape_from_opts(n, want, &rank, err));
            if (rank == (uint32_t)st->numel && reshape_resolve(n, want, rank, out, NULL) == LG_OK)
                return lgk_set_output(n, 0, in->type, out, rank, err);
            const lg_tensor *ir = n->out[0]->ir;
            rank = ir->rank;
            for (uint32_t i = 0; i < rank && i < LG_MAX_RANK; i++) want[i] = ir->shape[i];
            if (rank == (uint32_t)st->numel && reshape_resolve(n, want, rank, out, NULL) == LG_OK)
                return lgk_set_output(n, 0, in->type, out, rank, err);
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err,
                            "the shape input (tensor %d) is computed at run time and neither new_shape nor the declared "
                            "output shape fits %lld elements in rank %lld: dynamic shapes are not supported",
                            st->index, (long long)in->numel, (long long)st->numel);
        }
    } else {
        LG_TRY(reshape_from_opts(n, want, &rank, err));
    }
    int32_t out[LG_MAX_RANK];
    LG_TRY(reshape_resolve(n, want, rank, out, err));
    return lgk_set_output(n, 0, in->type, out, rank, err);
}

lg_status lgks_reshape_eval(lgk_node *n, lg_error *err) {
    const reshape_state *s = n->state;
    const lgk_tensor *in = n->in[0];
    lgk_tensor *out = n->out[0];
    if (s->runtime) {
        const lgk_tensor *st = n->in[1];
        int64_t want[LG_MAX_RANK] = {0};
        uint32_t rank = (uint32_t)st->numel;
        for (uint32_t i = 0; i < rank; i++) want[i] = lgks_idx(st->data, LG_INT32, i);
        int32_t got[LG_MAX_RANK];
        lg_status r = reshape_resolve(n, want, rank, got, err);
        if (r != LG_OK) return r;
        int same = rank == out->rank;
        for (uint32_t i = 0; same && i < rank; i++) same = got[i] == out->shape[i];
        if (!same) {
            char a[128], b[128];
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err,
                            "the shape computed at run time is %s, not the declared %s: dynamic shapes are not supported",
                            lgks_shape_str(a, sizeof a, got, rank), lgks_shape_str(b, sizeof b, out->shape, out->rank));
        }
    }
    if (in->nbytes) memcpy(out->data, in->data, (size_t)in->nbytes);
    return LG_OK;
}

lg_status lgks_copy_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const lgk_tensor *in = n->in[0];
    if (in->nbytes) memcpy(n->out[0]->data, in->data, (size_t)in->nbytes);
    return LG_OK;
}

lg_status lgks_squeeze_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 1, 1, 1, 1, err));
    const lgk_tensor *in = n->in[0];
    LG_TRY(lgks_out_like(n, 0, in, err));
    const lg_squeeze_options *o = opts_of(n, LG_OPTS_SQUEEZE_OPTIONS);
    uint8_t drop[LG_MAX_RANK] = {0};
    if (!o || !o->squeeze_dims.data || o->squeeze_dims.n == 0) {
        for (uint32_t d = 0; d < in->rank && d < LG_MAX_RANK; d++) drop[d] = in->shape[d] == 1;
    } else {
        if (o->squeeze_dims.n > 8) return lgk_fail(n, LG_ERR_FORMAT, err, "%u squeeze_dims (max 8)", o->squeeze_dims.n);
        for (uint32_t i = 0; i < o->squeeze_dims.n; i++) {
            int32_t v;
            memcpy(&v, (const uint8_t *)o->squeeze_dims.data + 4 * i, 4);
            int64_t d = v < 0 ? (int64_t)v + in->rank : v;
            if (d < 0 || d >= (int64_t)in->rank || d >= LG_MAX_RANK)
                return lgk_fail(n, LG_ERR_FORMAT, err, "squeeze dim %d is out of range for rank %u", v, in->rank);
            if (in->shape[d] != 1)
                return lgk_fail(n, LG_ERR_FORMAT, err, "squeeze dim %d has size %d, not 1", v, in->shape[d]);
            drop[d] = 1;
        }
    }
    int32_t out[LG_MAX_RANK];
    uint32_t r = 0;
    for (uint32_t d = 0; d < in->rank; d++)
        if (!drop[d]) out[r++] = in->shape[d];
    return lgk_set_output(n, 0, in->type, out, r, err);
}

lg_status lgks_expand_dims_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 2, 2, 1, 1, err));
    const lgk_tensor *in = n->in[0];
    LG_TRY(lgks_out_like(n, 0, in, err));
    int64_t axis = 0;
    LG_TRY(lgks_const_scalar(n, 1, &axis, err));
    int64_t r = in->rank;
    if (axis < 0) axis += r + 1;
    if (axis < 0 || axis > r) return lgk_fail(n, LG_ERR_FORMAT, err, "axis is out of range for rank %u", in->rank);
    if (r + 1 > LG_MAX_RANK) return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "output rank %lld > %d", (long long)r + 1, LG_MAX_RANK);
    int32_t out[LG_MAX_RANK];
    for (int64_t d = 0, k = 0; d <= r; d++) out[d] = d == axis ? 1 : in->shape[k++];
    return lgk_set_output(n, 0, in->type, out, (uint32_t)r + 1, err);
}

/* ------------------------------------------------------------------ ops computed at prepare */

static void *new_blob(lgk_node *n, uint64_t nbytes) {
    lgks_blob *s = lgk_alloc(n, sizeof *s);
    if (!s) return NULL;
    void *p = lgk_alloc(n, (size_t)nbytes);
    if (!p) return NULL;
    s->data = p;
    s->nbytes = nbytes;
    n->state = s;
    return p;
}

lg_status lgks_state_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const lgks_blob *s = n->state;
    if (s->nbytes) memcpy(n->out[0]->data, s->data, (size_t)s->nbytes);
    return LG_OK;
}

lg_status lgks_shape_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 1, 1, 1, 1, err));
    const lgk_tensor *in = n->in[0];
    int declared = n->out[0]->ir->type;
    const lg_shape_options *o = opts_of(n, LG_OPTS_SHAPE_OPTIONS);
    if (o && (o->out_type == LG_INT32 || o->out_type == LG_INT64) && o->out_type != declared)
        return lgk_fail(n, LG_ERR_FORMAT, err, "out_type is %s but the output tensor is %s", lg_dtype_name(o->out_type),
                        lg_dtype_name(declared));
    if (declared != LG_INT32 && declared != LG_INT64)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "output type %s (SHAPE gives INT32 or INT64)", lg_dtype_name(declared));
    int32_t oshape[1] = {(int32_t)in->rank};
    LG_TRY(lgk_set_output(n, 0, (lg_dtype)declared, oshape, 1, err));
    uint8_t *p = new_blob(n, n->out[0]->nbytes);
    if (!p) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    for (uint32_t d = 0; d < in->rank; d++) {
        if (declared == LG_INT32) {
            int32_t v = in->shape[d];
            memcpy(p + 4 * d, &v, 4);
        } else {
            int64_t v = in->shape[d];
            memcpy(p + 8 * d, &v, 8);
        }
    }
    return LG_OK;
}

lg_status lgks_fill_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 2, 2, 1, 1, err));
    const lgk_tensor *val = n->in[1];
    if (val->numel != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "the value input must be a scalar, it has %lld elements",
                                         (long long)val->numel);
    LG_TRY(lgks_out_like(n, 0, val, err));
    int64_t dims[LG_MAX_RANK];
    uint32_t r = 0;
    if (n->in[0]->numel > LG_MAX_RANK)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "output rank %lld > %d", (long long)n->in[0]->numel, LG_MAX_RANK);
    LG_TRY(lgk_const_ints(n, 0, dims, LG_MAX_RANK, &r, err));
    int32_t out[LG_MAX_RANK];
    for (uint32_t i = 0; i < r; i++) {
        if (dims[i] < 0 || dims[i] > INT32_MAX)
            return lgk_fail(n, LG_ERR_FORMAT, err, "dims[%u] is %lld", i, (long long)dims[i]);
        out[i] = (int32_t)dims[i];
    }
    return lgk_set_output(n, 0, val->type, out, r, err);
}

lg_status lgks_fill_eval(lgk_node *n, lg_error *err) {
    (void)err;
    lgk_tensor *out = n->out[0];
    lgks_fill(out->data, out->numel, n->in[1]->data, lgk_elem_size(out->type));
    return LG_OK;
}

/* RANGE with constant inputs: TFLite's GetSize, then value += delta (through lgk_add for
   floats). Computed at prepare. */
lg_status lgks_range_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 3, 3, 1, 1, err));
    const lgk_tensor *a = n->in[0], *b = n->in[1], *c = n->in[2];
    lg_dtype t = a->type;
    if (b->type != t || c->type != t)
        return lgk_fail(n, LG_ERR_FORMAT, err, "start, limit and delta must have the same type");
    if (t != LG_INT32 && t != LG_INT64 && t != LG_FLOAT32)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "type %s (supported: FLOAT32, INT32, INT64)", lg_dtype_name(a->ir->type));
    if (a->rank || b->rank || c->rank) return lgk_fail(n, LG_ERR_FORMAT, err, "start, limit and delta must be scalars");
    for (uint32_t i = 0; i < 3; i++)
        if (!n->in[i]->is_const)
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err,
                            "input %u (tensor %d) is computed at run time: RANGE's output size would depend on data", i,
                            n->in[i]->index);
    LG_TRY(lgks_out_like(n, 0, a, err));
    int64_t size;
    if (t == LG_FLOAT32) {
        float s, l, d;
        memcpy(&s, a->data, 4);
        memcpy(&l, b->data, 4);
        memcpy(&d, c->data, 4);
        if (d == 0) return lgk_fail(n, LG_ERR_FORMAT, err, "delta is 0");
        if (!((s >= l && d < 0) || (s <= l && d > 0)))
            return lgk_fail(n, LG_ERR_FORMAT, err, "delta %g does not go from %g towards %g", d, s, l);
        float q = ceilf(fabsf((l - s) / d));
        if (!(q <= (float)INT32_MAX)) return lgk_fail(n, LG_ERR_LIMIT, err, "the range is too long");
        size = (int64_t)q;
    } else {
        int64_t s = lgk_get_int(a, 0), l = lgk_get_int(b, 0), d = lgk_get_int(c, 0);
        if (d == 0) return lgk_fail(n, LG_ERR_FORMAT, err, "delta is 0");
        if (!((s >= l && d < 0) || (s <= l && d > 0)))
            return lgk_fail(n, LG_ERR_FORMAT, err, "delta %lld does not go from %lld towards %lld", (long long)d,
                            (long long)s, (long long)l);
        if ((s < 0 && l > INT64_MAX + s) || (s > 0 && l < INT64_MIN + s) || d == INT64_MIN)
            return lgk_fail(n, LG_ERR_LIMIT, err, "the range is too long");
        uint64_t span = (uint64_t)(l > s ? l - s : s - l), ad = (uint64_t)(d < 0 ? -d : d);
        uint64_t q = span / ad + (span % ad != 0);
        if (q > INT32_MAX) return lgk_fail(n, LG_ERR_LIMIT, err, "the range is too long");
        size = (int64_t)q;
    }
    int32_t oshape[1] = {(int32_t)size};
    LG_TRY(lgk_set_output(n, 0, t, oshape, 1, err));
    uint8_t *p = new_blob(n, n->out[0]->nbytes);
    if (!p) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory for a range of %lld", (long long)size);
    if (t == LG_FLOAT32) {
        float v, d;
        memcpy(&v, a->data, 4);
        memcpy(&d, c->data, 4);
        for (int64_t i = 0; i < size; i++) {
            memcpy(p + 4 * i, &v, 4);
            v = lgk_add(n->ctx, v, d);
        }
    } else {
        uint64_t v = (uint64_t)lgk_get_int(a, 0), d = (uint64_t)lgk_get_int(c, 0);
        for (int64_t i = 0; i < size; i++, v += d) {
            if (t == LG_INT32) {
                int32_t w = (int32_t)(uint32_t)v;
                memcpy(p + 4 * i, &w, 4);
            } else {
                memcpy(p + 8 * i, &v, 8);
            }
        }
    }
    return LG_OK;
}

/* WHERE (one input): the coordinates of the true elements, INT64 [count, rank]. The output
   shape depends on the data, so only a constant condition is supported (computed here). */
lg_status lgks_where_prepare(lgk_node *n, lg_error *err) {
    if (n->n_in != 1)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "WHERE with %u inputs (only the one-input form is supported)", n->n_in);
    LG_TRY(lgks_counts(n, 1, 1, 1, 1, err));
    const lgk_tensor *in = n->in[0];
    if (!in->is_const)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err,
                        "the condition (tensor %d) is computed at run time: WHERE's output shape depends on data", in->index);
    if (n->out[0]->ir->type != LG_INT64)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output type %s (WHERE gives INT64)", lg_dtype_name(n->out[0]->ir->type));
    int64_t count = 0;
    const uint8_t *p = in->data;
    uint32_t es = lgk_elem_size(in->type);
    for (int64_t i = 0; i < in->numel; i++) {
        int nz = 0;
        for (uint32_t b = 0; b < es && !nz; b++) nz = p[i * es + b] != 0;
        if (in->type == LG_FLOAT32 && nz) {
            float f;
            memcpy(&f, p + 4 * i, 4);
            nz = f != 0.0f; /* -0.0 is false */
        }
        count += nz;
    }
    if (count > INT32_MAX) return lgk_fail(n, LG_ERR_LIMIT, err, "too many true elements");
    int32_t oshape[2] = {(int32_t)count, (int32_t)in->rank};
    LG_TRY(lgk_set_output(n, 0, LG_INT64, oshape, 2, err));
    uint8_t *o = new_blob(n, n->out[0]->nbytes);
    if (!o) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    int64_t st[LG_MAX_RANK], k = 0;
    lgks_strides(in->shape, in->rank, st);
    for (int64_t i = 0; i < in->numel; i++) {
        int nz = 0;
        for (uint32_t b = 0; b < es && !nz; b++) nz = p[i * es + b] != 0;
        if (in->type == LG_FLOAT32 && nz) {
            float f;
            memcpy(&f, p + 4 * i, 4);
            nz = f != 0.0f;
        }
        if (!nz) continue;
        int64_t rem = i;
        for (uint32_t d = 0; d < in->rank; d++) {
            int64_t c = rem / st[d];
            rem -= c * st[d];
            memcpy(o + 8 * (k * in->rank + d), &c, 8);
        }
        k++;
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ CUMSUM */

typedef struct cumsum_state {
    int64_t outer, len, inner;
    bool exclusive, reverse;
} cumsum_state;

lg_status lgks_cumsum_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 2, 2, 1, 1, err));
    const lgk_tensor *in = n->in[0];
    if (in->type != LG_FLOAT32 && in->type != LG_INT32 && in->type != LG_INT64)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "type %s (supported: FLOAT32, INT32, INT64)", lg_dtype_name(in->ir->type));
    LG_TRY(lgks_out_like(n, 0, in, err));
    int64_t axis = 0;
    LG_TRY(lgks_const_scalar(n, 1, &axis, err));
    if (axis < 0) axis += in->rank;
    if (axis < 0 || axis >= (int64_t)in->rank)
        return lgk_fail(n, LG_ERR_FORMAT, err, "axis is out of range for rank %u", in->rank);
    cumsum_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    const lg_cumsum_options *o = opts_of(n, LG_OPTS_CUMSUM_OPTIONS);
    s->exclusive = o && o->exclusive;
    s->reverse = o && o->reverse;
    s->outer = s->inner = 1;
    for (int64_t d = 0; d < axis; d++) s->outer *= in->shape[d];
    for (int64_t d = axis + 1; d < (int64_t)in->rank; d++) s->inner *= in->shape[d];
    s->len = in->shape[axis];
    n->state = s;
    return lgk_set_output(n, 0, in->type, in->shape, in->rank, err);
}

/* One line of the scan. Element k of the line is at base[k * inner + j] for j in [0, inner).
   Inclusive: y[k] = y[k-1] + x[k]; exclusive: y[k] = y[k-1] + x[k-1], y[0] = 0; reverse runs
   k from the end. The sum is over j-vectors so the inner loop vectorizes. */
#define LGKS_SCAN(T, ADD)                                                                     \
    do {                                                                                      \
        const T *x = (const T *)in->data;                                                     \
        T *y = (T *)out->data;                                                                \
        for (int64_t o = 0; o < s->outer; o++) {                                              \
            const T *xl = x + o * len * inner;                                                \
            T *yl = y + o * len * inner;                                                      \
            for (int64_t step = 0; step < len; step++) {                                      \
                int64_t k = s->reverse ? len - 1 - step : step;                               \
                int64_t prev = s->reverse ? k + 1 : k - 1;                                    \
                T *yk = yl + k * inner;                                                       \
                if (step == 0) {                                                              \
                    if (s->exclusive) for (int64_t j = 0; j < inner; j++) yk[j] = 0;          \
                    else for (int64_t j = 0; j < inner; j++) yk[j] = xl[k * inner + j];       \
                    continue;                                                                 \
                }                                                                             \
                const T *yp = yl + prev * inner;                                              \
                const T *xs = xl + (s->exclusive ? prev : k) * inner;                         \
                for (int64_t j = 0; j < inner; j++) yk[j] = ADD(yp[j], xs[j]);                \
            }                                                                                 \
        }                                                                                     \
    } while (0)

#define LGKS_ADD_F(a, b) ((a) + (b))
#define LGKS_ADD_I32(a, b) ((int32_t)((uint32_t)(a) + (uint32_t)(b)))
#define LGKS_ADD_I64(a, b) ((int64_t)((uint64_t)(a) + (uint64_t)(b)))

lg_status lgks_cumsum_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const cumsum_state *s = n->state;
    const lgk_tensor *in = n->in[0];
    lgk_tensor *out = n->out[0];
    const int64_t len = s->len, inner = s->inner;
    if (in->type == LG_FLOAT32) {
        /* An fp32 accumulator in every precision: the GPU delegate's F16 kernel keeps a float4
           running sum and rounds only what it stores (tflite/delegates/gpu/common/tasks/
           cumsum.cc, Cumsum::GetCumsumCode: `float4 res` when precision is F16,
           `Write(TO_FLT4(res))`). The outputs here are the fp32 running sums; the interpreter
           rounds them to half after eval, which is that store. (In F32_F16 the same generator
           declares `res` of the tensor's type, half: a half accumulator there. f32_f16 keeps
           fp32 arithmetic throughout, so that is not modelled.) */
        LGKS_SCAN(float, LGKS_ADD_F);
    } else if (in->type == LG_INT32) {
        LGKS_SCAN(int32_t, LGKS_ADD_I32);
    } else {
        LGKS_SCAN(int64_t, LGKS_ADD_I64);
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ ONE_HOT */

typedef struct one_hot_state {
    int64_t prefix, depth, suffix;
    int runtime_depth;
} one_hot_state;

lg_status lgks_one_hot_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 4, 4, 1, 1, err));
    const lgk_tensor *idx = n->in[0], *dep = n->in[1], *on = n->in[2], *off = n->in[3];
    if (idx->type != LG_INT32 && idx->type != LG_INT64)
        return lgk_fail(n, LG_ERR_FORMAT, err, "indices must be INT32 or INT64, not %s", lg_dtype_name(idx->ir->type));
    if (dep->type != LG_INT32 || dep->numel != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "depth must be an INT32 scalar");
    if (on->numel != 1 || off->numel != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "on_value and off_value must be scalars");
    if (on->type != off->type) return lgk_fail(n, LG_ERR_FORMAT, err, "on_value and off_value types differ");
    LG_TRY(lgks_out_like(n, 0, on, err));
    const lg_one_hot_options *o = opts_of(n, LG_OPTS_ONE_HOT_OPTIONS);
    int64_t axis = o ? o->axis : 0;
    int64_t r = idx->rank;
    if (axis == -1) axis = r;
    if (axis < 0 || axis > r) return lgk_fail(n, LG_ERR_FORMAT, err, "axis %lld is out of range for rank %lld",
                                              (long long)axis, (long long)r + 1);
    if (r + 1 > LG_MAX_RANK) return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "output rank %lld > %d", (long long)r + 1, LG_MAX_RANK);
    one_hot_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    n->state = s;
    int64_t depth;
    if (dep->is_const) {
        depth = lgk_get_int(dep, 0);
    } else {
        /* computed at run time: take the declared output's size and check it at eval */
        const lg_tensor *ir = n->out[0]->ir;
        if (ir->rank != (uint32_t)r + 1)
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err,
                            "depth (tensor %d) is computed at run time and the output has no declared shape", dep->index);
        depth = ir->shape[axis];
        s->runtime_depth = 1;
    }
    if (depth < 0) return lgk_fail(n, LG_ERR_FORMAT, err, "depth is %lld", (long long)depth);
    int32_t out[LG_MAX_RANK];
    s->prefix = s->suffix = 1;
    for (int64_t d = 0, k = 0; d <= r; d++) {
        if (d == axis) {
            out[d] = (int32_t)depth;
            continue;
        }
        out[d] = idx->shape[k];
        if (d < axis) s->prefix *= idx->shape[k];
        else s->suffix *= idx->shape[k];
        k++;
    }
    s->depth = depth;
    return lgk_set_output(n, 0, on->type, out, (uint32_t)r + 1, err);
}

lg_status lgks_one_hot_eval(lgk_node *n, lg_error *err) {
    const one_hot_state *s = n->state;
    const lgk_tensor *idx = n->in[0];
    lgk_tensor *out = n->out[0];
    if (s->runtime_depth && lgk_get_int(n->in[1], 0) != s->depth)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "depth computed at run time is %lld, not the declared %lld",
                        (long long)lgk_get_int(n->in[1], 0), (long long)s->depth);
    uint32_t es = lgk_elem_size(out->type);
    const uint8_t *on = n->in[2]->data, *off = n->in[3]->data;
    uint8_t *o = out->data;
    const uint8_t *ip = idx->data;
    for (int64_t p = 0; p < s->prefix; p++) {
        uint8_t *blk = o + (size_t)(p * s->depth * s->suffix) * es;
        lgks_fill(blk, s->depth * s->suffix, off, es);
        for (int64_t j = 0; j < s->suffix; j++) {
            int64_t v = lgks_idx(ip, idx->type, p * s->suffix + j);
            if (v >= 0 && v < s->depth) memcpy(blk + (size_t)(v * s->suffix + j) * es, on, es);
        }
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ the table */

const lgk_kernel lgk_shape_kernels[] = {
    {LG_OP_RESHAPE, NULL, lgks_reshape_prepare, lgks_reshape_eval},
    {LG_OP_SQUEEZE, NULL, lgks_squeeze_prepare, lgks_copy_eval},
    {LG_OP_EXPAND_DIMS, NULL, lgks_expand_dims_prepare, lgks_copy_eval},
    {LG_OP_TRANSPOSE, NULL, lgks_transpose_prepare, lgks_box_eval},
    {LG_OP_CONCATENATION, NULL, lgks_concat_prepare, lgks_join_eval},
    {LG_OP_PACK, NULL, lgks_pack_prepare, lgks_join_eval},
    {LG_OP_UNPACK, NULL, lgks_unpack_prepare, lgks_part_eval},
    {LG_OP_SPLIT, NULL, lgks_split_prepare, lgks_part_eval},
    {LG_OP_SPLIT_V, NULL, lgks_split_v_prepare, lgks_part_eval},
    {LG_OP_SLICE, NULL, lgks_slice_prepare, lgks_box_eval},
    {LG_OP_STRIDED_SLICE, NULL, lgks_strided_slice_prepare, lgks_box_eval},
    {LG_OP_PAD, NULL, lgks_pad_prepare, lgks_pad_eval},
    {LG_OP_PADV2, NULL, lgks_pad_prepare, lgks_pad_eval},
    {LG_OP_MIRROR_PAD, NULL, lgks_mirror_pad_prepare, lgks_mirror_pad_eval},
    {LG_OP_GATHER, NULL, lgks_gather_prepare, lgks_gather_eval},
    {LG_OP_GATHER_ND, NULL, lgks_gather_nd_prepare, lgks_gather_nd_eval},
    {LG_OP_TILE, NULL, lgks_tile_prepare, lgks_box_eval},
    {LG_OP_BROADCAST_TO, NULL, lgks_broadcast_to_prepare, lgks_box_eval},
    {LG_OP_SHAPE, NULL, lgks_shape_prepare, lgks_state_eval},
    {LG_OP_FILL, NULL, lgks_fill_prepare, lgks_fill_eval},
    {LG_OP_SPACE_TO_DEPTH, NULL, lgks_space_to_depth_prepare, lgks_box_eval},
    {LG_OP_DEPTH_TO_SPACE, NULL, lgks_depth_to_space_prepare, lgks_box_eval},
    {LG_OP_REVERSE_V2, NULL, lgks_reverse_prepare, lgks_box_eval},
    {LG_OP_ONE_HOT, NULL, lgks_one_hot_prepare, lgks_one_hot_eval},
    {LG_OP_EMBEDDING_LOOKUP, NULL, lgks_embedding_lookup_prepare, lgks_embedding_lookup_eval},
    {LG_OP_RANGE, NULL, lgks_range_prepare, lgks_state_eval},
    {LG_OP_CUMSUM, NULL, lgks_cumsum_prepare, lgks_cumsum_eval},
    {LG_OP_WHERE, NULL, lgks_where_prepare, lgks_state_eval},
    {LG_OP_DENSIFY, NULL, lgks_densify_prepare, lgks_state_eval},
    {0, NULL, NULL, NULL},
};
