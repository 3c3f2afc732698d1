/* Resize (opset 10+) and Upsample (7-9), exact per ONNX's coordinate transformation:
 *
 *  - nearest: the source index of every output position is computed here (coordinate mode,
 *    then nearest_mode rounding, clamped). On a 4-D input resized in H and W only, when the
 *    index table equals the one TFLite's RESIZE_NEAREST_NEIGHBOR computes for some
 *    (align_corners, half_pixel_centers) (GetNearestNeighbor in
 *    tensorflow/lite/kernels/internal/reference/resize_nearest_neighbor.h, emulated here in
 *    the same float arithmetic), that op runs between TRANSPOSEs; otherwise a GATHER per
 *    resized axis with the constant indices.
 *  - linear and cubic: separable, so one constant [out, in] interpolation matrix per resized
 *    axis (weights of the ONNX reference: linear 1 - r, r at floor(x), floor(x) + 1; cubic
 *    Keys with cubic_coeff_a and exclude_outside; indices clamped to the edge), applied with
 *    FULLY_CONNECTED on the last axis (the axis moved last by TRANSPOSEs when it is not).
 *  tf_crop_and_resize and the opset-18 axes / keep_aspect_ratio_policy are refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "import/import_impl.h"

enum { CT_HALF, CT_PYTORCH_HALF, CT_ALIGN, CT_ASYM, CT_TF_HALF_NN };
enum { NM_PREFER_FLOOR, NM_PREFER_CEIL, NM_FLOOR, NM_CEIL };

/* ONNX's length_resized is in * scale (not rounded) when scales are given */
static double src_coord(int ct, int64_t o, int64_t in, int64_t out, double scale) {
    double len = (double)in * scale;
    (void)out;
    switch (ct) {
    case CT_HALF: return ((double)o + 0.5) / scale - 0.5;
    case CT_PYTORCH_HALF: return len > 1 ? ((double)o + 0.5) / scale - 0.5 : 0.0;
    case CT_ALIGN: return len == 1 ? 0.0 : (double)o * (double)(in - 1) / (len - 1);
    case CT_TF_HALF_NN: return ((double)o + 0.5) / scale;
    default: return (double)o / scale;
    }
}

static int64_t clampi(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static int64_t nearest_idx(int nm, double x, int64_t in) {
    double f = floor(x);
    int64_t v;
    switch (nm) {
    case NM_FLOOR: v = (int64_t)f; break;
    case NM_CEIL: v = (int64_t)ceil(x); break;
    case NM_PREFER_CEIL: v = (x - f == 0.5) ? (int64_t)f + 1 : (int64_t)llround(x); break;
    default: v = (x - f == 0.5) ? (int64_t)f : (int64_t)llround(x); break;
    }
    return clampi(v, 0, in - 1);
}

/* TFLite's GetNearestNeighbor, in float as the kernel computes it */
static int64_t tfl_nearest(int64_t o, int64_t in, int64_t out, bool align, bool half) {
    float scale = (align && out > 1) ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
    float offset = half ? 0.5f : 0.0f;
    int64_t v = align ? (int64_t)roundf(((float)o + offset) * scale) : (int64_t)floorf(((float)o + offset) * scale);
    if (v > in - 1) v = in - 1;
    if (half && v < 0) v = 0;
    return v;
}

static void cubic_coeffs(double r, double A, double c[4]) {
    double x0 = 1 + r, x1 = r, x2 = 1 - r, x3 = 2 - r;
    c[0] = ((A * x0 - 5 * A) * x0 + 8 * A) * x0 - 4 * A;
    c[1] = ((A + 2) * x1 - (A + 3)) * x1 * x1 + 1;
    c[2] = ((A + 2) * x2 - (A + 3)) * x2 * x2 + 1;
    c[3] = ((A * x3 - 5 * A) * x3 + 8 * A) * x3 - 4 * A;
}

/* weights [out, in] for one axis */
static void interp_matrix(float *w, int64_t in, int64_t out, double scale, int ct, bool cubic, double A,
                          bool exclude) {
    memset(w, 0, (size_t)(in * out) * sizeof *w);
    for (int64_t o = 0; o < out; o++) {
        double x = src_coord(ct, o, in, out, scale), f = floor(x), r = x - f;
        double acc[4] = {0};
        int64_t idx[4];
        int n;
        if (!cubic) {
            n = 2;
            idx[0] = (int64_t)f, idx[1] = (int64_t)f + 1;
            acc[0] = 1 - r, acc[1] = r;
        } else {
            n = 4;
            cubic_coeffs(r, A, acc);
            for (int k = 0; k < 4; k++) idx[k] = (int64_t)f - 1 + k;
            if (exclude) {
                double s = 0;
                for (int k = 0; k < 4; k++) {
                    if (idx[k] < 0 || idx[k] >= in) acc[k] = 0;
                    s += acc[k];
                }
                for (int k = 0; k < 4 && s != 0; k++) acc[k] /= s;
            }
        }
        double row[4096];
        bool big = in > 4096;
        for (int64_t i = 0; i < in && !big; i++) row[i] = 0;
        for (int k = 0; k < n; k++) {
            int64_t i = clampi(idx[k], 0, in - 1);
            if (big) w[o * in + i] += (float)acc[k];
            else row[i] += acc[k];
        }
        for (int64_t i = 0; i < in && !big; i++) w[o * in + i] = (float)row[i];
    }
}

/* y = x with axis a resized by the matrix w [out, in] */
static int32_t apply_matrix(li_ctx *c, int32_t x, int a, const float *w, int64_t in, int64_t out) {
    int r = li_rank(c, x), perm[LG_MAX_RANK];
    for (int i = 0; i < r; i++) perm[i] = i;
    perm[a] = r - 1;
    perm[r - 1] = a;
    int32_t t = li_transpose(c, x, perm, r);
    int32_t wt = li_kf32(c, (const int64_t[]){out, in}, 2, w);
    lg_fully_connected_options o;
    lg_opts_init(LG_OPTS_FULLY_CONNECTED_OPTIONS, &o, sizeof o);
    o.keep_num_dims = true;
    int32_t y = LI_OP(c, LG_OP_FULLY_CONNECTED, &o, -1, t, wt, -1);
    return li_transpose(c, y, perm, r);
}

static lg_status resize(li_ctx *c, const li_val *x, const double *scales, const int64_t *sizes, int ct, bool nearest,
                        bool cubic, int nm) {
    lg_shape s = li_shape(c, x->t);
    int r = s.rank;
    int64_t out[LG_MAX_RANK];
    double sc[LG_MAX_RANK];
    int n_resized = 0;
    for (int i = 0; i < r; i++) {
        out[i] = sizes ? sizes[i] : (int64_t)floor((double)s.dim[i] * scales[i] + 1e-9);
        sc[i] = sizes ? (double)out[i] / (double)s.dim[i] : scales[i];
        if (out[i] < 1) return li_bad(c, LG_ERR_FORMAT, "output dimension %d is empty", i);
        if (out[i] != s.dim[i] || sc[i] != 1.0) n_resized++;
    }
    int32_t y = x->t;
    if (n_resized == 0) return li_out(c, 0, y, x->onnx_type);
    if (nearest) {
        int64_t *idx[LG_MAX_RANK] = {0};
        bool ok = true;
        for (int i = 0; i < r && ok; i++) {
            idx[i] = malloc((size_t)out[i] * sizeof *idx[i]);
            if (!idx[i]) ok = false;
            for (int64_t o = 0; ok && o < out[i]; o++)
                idx[i][o] = nearest_idx(nm, src_coord(ct, o, s.dim[i], out[i], sc[i]), s.dim[i]);
        }
        if (!ok) {
            for (int i = 0; i < r; i++) free(idx[i]);
            return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        }
        /* RESIZE_NEAREST_NEIGHBOR when N and C stay and TFLite's table is ONNX's */
        int mode = -1;
        if (r == 4 && out[0] == s.dim[0] && out[1] == s.dim[1]) {
            static const bool combos[3][2] = {{false, false}, {true, false}, {false, true}};
            for (int k = 0; k < 3 && mode < 0; k++) {
                bool same = true;
                for (int a = 2; a < 4 && same; a++)
                    for (int64_t o = 0; o < out[a] && same; o++)
                        same = tfl_nearest(o, s.dim[a], out[a], combos[k][0], combos[k][1]) == idx[a][o];
                if (same) mode = k;
            }
            if (mode >= 0) {
                lg_resize_nearest_neighbor_options o = {mode == 1, mode == 2};
                int32_t xn = li_to_nhwc(c, y);
                int32_t sz = li_ki32(c, (const int64_t[]){out[2], out[3]}, 2);
                y = li_to_nchw(c, LI_OP(c, LG_OP_RESIZE_NEAREST_NEIGHBOR, &o, -1, xn, sz));
            }
        }
        for (int i = 0; i < r && mode < 0 && LI_OK(c); i++) {
            if (out[i] == s.dim[i]) {
                bool ident = true;
                for (int64_t o = 0; o < out[i]; o++) ident &= idx[i][o] == o;
                if (ident) continue;
            }
            int32_t *i32 = malloc((size_t)out[i] * sizeof *i32);
            if (!i32) break;
            for (int64_t o = 0; o < out[i]; o++) i32[o] = (int32_t)idx[i][o];
            int32_t it = li_konst(c, LG_INT32, &out[i], 1, i32, 4ull * (uint64_t)out[i]);
            free(i32);
            lg_gather_options go = {i, 0};
            y = LI_OP(c, LG_OP_GATHER, &go, -1, y, it);
        }
        for (int i = 0; i < r; i++) free(idx[i]);
        return li_out(c, 0, y, x->onnx_type);
    }
    double A = li_attr_f(c->node, "cubic_coeff_a", -0.75f);
    bool exclude = li_attr_i(c->node, "exclude_outside", 0) != 0;
    for (int i = 0; i < r && LI_OK(c); i++) {
        if (out[i] == s.dim[i] && sc[i] == 1.0) continue;
        float *w = malloc((size_t)(out[i] * s.dim[i]) * sizeof *w);
        if (!w) return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        interp_matrix(w, s.dim[i], out[i], sc[i], ct, cubic, A, exclude);
        y = apply_matrix(c, y, i, w, s.dim[i], out[i]);
        free(w);
    }
    return li_out(c, 0, y, x->onnx_type);
}

static lg_status read_scales(li_ctx *c, int32_t t, int r, double *sc) {
    const float *f = li_const_f32(c, t);
    if (!f) return li_unsupported(c, "scales computed at run time");
    if (lg_tensor_numel(li_t(c, t)) != r) return li_bad(c, LG_ERR_FORMAT, "scales of the wrong length");
    for (int i = 0; i < r; i++) {
        if (!(f[i] > 0)) return li_bad(c, LG_ERR_FORMAT, "scale %g", (double)f[i]);
        sc[i] = f[i];
    }
    return c->st;
}

static lg_status lower_resize(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    if (li_type(c, x->t) != LG_FLOAT32) return li_unsupported(c, "non-float input");
    int r = li_rank(c, x->t);
    bool upsample = lg_onnx_str_eq(c->node->op_type, "Upsample");
    bool nearest = li_attr_is(c->node, "mode", "nearest", "nearest");
    bool linear = li_attr_is(c->node, "mode", "linear", "nearest") || li_attr_is(c->node, "mode", "bilinear", "nearest");
    bool cubic = li_attr_is(c->node, "mode", "cubic", "nearest");
    if (!nearest && !linear && !cubic) return li_unsupported(c, "mode");
    if (li_attr(c->node, "axes") || li_attr(c->node, "keep_aspect_ratio_policy")) return li_unsupported(c, "axes / keep_aspect_ratio_policy");
    int ct = CT_ASYM, nm = NM_FLOOR;
    double sc[LG_MAX_RANK];
    int64_t sizes[LG_MAX_RANK];
    bool have_sizes = false;
    if (upsample || c->opset < 11) {
        /* Upsample and Resize-10: asymmetric; nearest floors */
        if (upsample && c->opset < 9) {
            float f[LG_MAX_RANK];
            if (li_attr_floats(c->node, "scales", f, LG_MAX_RANK) != r) return li_bad(c, LG_ERR_FORMAT, "scales");
            for (int i = 0; i < r; i++) sc[i] = f[i];
        } else {
            const li_val *s = li_need(c, 1);
            LI_TRY(c);
            LG_TRY(read_scales(c, s->t, r, sc));
        }
        if (cubic) return li_unsupported(c, "cubic before opset 11");
    } else {
        const lg_onnx_attr *a = li_attr(c->node, "coordinate_transformation_mode");
        ct = CT_HALF;
        if (a) {
            if (lg_onnx_str_eq(a->s, "half_pixel")) ct = CT_HALF;
            else if (lg_onnx_str_eq(a->s, "pytorch_half_pixel")) ct = CT_PYTORCH_HALF;
            else if (lg_onnx_str_eq(a->s, "align_corners")) ct = CT_ALIGN;
            else if (lg_onnx_str_eq(a->s, "asymmetric")) ct = CT_ASYM;
            else if (lg_onnx_str_eq(a->s, "tf_half_pixel_for_nn")) ct = CT_TF_HALF_NN;
            else return li_unsupported(c, "coordinate_transformation_mode \"%.*s\"", LG_ONNX_STR(a->s));
        }
        const lg_onnx_attr *b = li_attr(c->node, "nearest_mode");
        nm = NM_PREFER_FLOOR;
        if (b) {
            if (lg_onnx_str_eq(b->s, "round_prefer_floor")) nm = NM_PREFER_FLOOR;
            else if (lg_onnx_str_eq(b->s, "round_prefer_ceil")) nm = NM_PREFER_CEIL;
            else if (lg_onnx_str_eq(b->s, "floor")) nm = NM_FLOOR;
            else if (lg_onnx_str_eq(b->s, "ceil")) nm = NM_CEIL;
            else return li_unsupported(c, "nearest_mode");
        }
        const li_val *s = li_in(c, 2), *z = li_in(c, 3);
        if (z && lg_tensor_numel(li_t(c, z->t)) > 0) {
            uint32_t n = 0;
            if (!li_const_ints(c, z->t, sizes, LG_MAX_RANK, &n)) return li_unsupported(c, "sizes computed at run time");
            if ((int)n != r) return li_bad(c, LG_ERR_FORMAT, "sizes of the wrong length");
            have_sizes = true;
        } else if (s && lg_tensor_numel(li_t(c, s->t)) > 0) {
            LG_TRY(read_scales(c, s->t, r, sc));
        } else {
            return li_bad(c, LG_ERR_FORMAT, "neither scales nor sizes");
        }
    }
    return resize(c, x, sc, have_sizes ? sizes : NULL, ct, nearest, cubic, nm);
}

const li_op_entry li_ops_resize[] = {
    {"Resize", 10, 17, lower_resize},
    {"Upsample", 7, 9, lower_resize},
    {NULL, 0, 0, NULL},
};
