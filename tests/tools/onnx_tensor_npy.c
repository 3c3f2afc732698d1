/*
 * onnx_tensor_npy: serialized ONNX TensorProto files (test_data_set_N/input_K.pb) to .npy,
 * and the comparison of outputs with the expected .pb, for tests/e2e/test_onnx_conformance.sh.
 *
 *   onnx_tensor_npy IN.pb OUT.npy [IN.pb OUT.npy]...        convert (FLOAT, DOUBLE, FLOAT16,
 *                                                           INT8..INT64, UINT8..UINT64, BOOL)
 *   onnx_tensor_npy --compare EXPECTED.pb ACTUAL.npy [...]  same shape and, elementwise,
 *       |a - e| <= atol + rtol * |e| with rtol 1e-3, atol 1e-7 (the ONNX backend tests'
 *       numpy.testing.assert_allclose defaults there), NaN equal to NaN, infinities equal
 *       when of the same sign. Integer and bool data are compared as doubles.
 *
 * Exit 0 when everything converted / matched; 3 on a mismatch (one line per pair says where);
 * 2 on an unreadable file; 1 on usage errors.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/npy.h"
#include "lg/onnx.h"
#include "util/half.h"

typedef struct loaded {
    void *buf;
    lg_onnx_model *m;
} loaded;

static int load_pb(const char *path, loaded *l) {
    memset(l, 0, sizeof *l);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    l->buf = malloc(n > 0 ? (size_t)n : 1);
    if (!l->buf || (n > 0 && fread(l->buf, 1, (size_t)n, f) != (size_t)n)) {
        fclose(f);
        fprintf(stderr, "%s: cannot read\n", path);
        return 2;
    }
    fclose(f);
    lg_error err;
    lg_onnx_read_options ro;
    memset(&ro, 0, sizeof ro);
    ro.name = path;
    if (lg_onnx_read_tensor_mem(l->buf, (size_t)n, &ro, &l->m, &err) != LG_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    return 0;
}

static void unload(loaded *l) {
    lg_onnx_model_free(l->m);
    free(l->buf);
}

static int npy_type(int ot) {
    switch (ot) {
    case LG_ONNX_FLOAT: return LG_FLOAT32;
    case LG_ONNX_DOUBLE: return LG_FLOAT64;
    case LG_ONNX_FLOAT16: return LG_FLOAT16;
    case LG_ONNX_INT8: return LG_INT8;
    case LG_ONNX_INT16: return LG_INT16;
    case LG_ONNX_INT32: return LG_INT32;
    case LG_ONNX_INT64: return LG_INT64;
    case LG_ONNX_UINT8: return LG_UINT8;
    case LG_ONNX_UINT16: return LG_UINT16;
    case LG_ONNX_UINT32: return LG_UINT32;
    case LG_ONNX_UINT64: return LG_UINT64;
    case LG_ONNX_BOOL: return LG_BOOL;
    default: return -1;
    }
}

static int convert(const char *in, const char *out) {
    loaded l;
    int rc = load_pb(in, &l);
    if (rc) return rc;
    const lg_onnx_tensor *t = l.m->tensor;
    int ty = npy_type(t->data_type);
    lg_onnx_data d;
    lg_error err;
    if (ty < 0 || t->n_dims > 8 || lg_onnx_tensor_data(t, &d, &err) != LG_OK) {
        fprintf(stderr, "%s: type %s or rank %u not convertible\n", in, lg_onnx_dtype_name(t->data_type), t->n_dims);
        unload(&l);
        return 2;
    }
    int32_t shape[8];
    for (uint32_t i = 0; i < t->n_dims; i++) shape[i] = (int32_t)t->dims[i];
    void *data = malloc(d.nbytes ? d.nbytes : 1);
    if (d.nbytes) memcpy(data, d.data, d.nbytes);
    lg_status st = lg_npy_write_file(out, (lg_dtype)ty, shape, t->n_dims, data, true, &err);
    free(data);
    unload(&l);
    if (st != LG_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    return 0;
}

static double elem(const void *p, int ty, int64_t i) {
    const uint8_t *b = p;
    switch (ty) {
    case LG_FLOAT32: { float v; memcpy(&v, b + 4 * i, 4); return v; }
    case LG_FLOAT64: { double v; memcpy(&v, b + 8 * i, 8); return v; }
    case LG_FLOAT16: { uint16_t v; memcpy(&v, b + 2 * i, 2); return lg_half_to_float(v); }
    case LG_INT8: return (int8_t)b[i];
    case LG_UINT8: case LG_BOOL: return b[i];
    case LG_INT16: { int16_t v; memcpy(&v, b + 2 * i, 2); return v; }
    case LG_UINT16: { uint16_t v; memcpy(&v, b + 2 * i, 2); return v; }
    case LG_INT32: { int32_t v; memcpy(&v, b + 4 * i, 4); return v; }
    case LG_UINT32: { uint32_t v; memcpy(&v, b + 4 * i, 4); return v; }
    case LG_INT64: { int64_t v; memcpy(&v, b + 8 * i, 8); return (double)v; }
    case LG_UINT64: { uint64_t v; memcpy(&v, b + 8 * i, 8); return (double)v; }
    default: return NAN;
    }
}

static int compare(const char *exp_pb, const char *act_npy) {
    loaded l;
    int rc = load_pb(exp_pb, &l);
    if (rc) return rc;
    const lg_onnx_tensor *t = l.m->tensor;
    lg_onnx_data d;
    lg_error err;
    lg_npy a;
    int ty = npy_type(t->data_type);
    if (ty < 0 || lg_onnx_tensor_data(t, &d, &err) != LG_OK) {
        fprintf(stderr, "%s: type %s not comparable\n", exp_pb, lg_onnx_dtype_name(t->data_type));
        unload(&l);
        return 2;
    }
    if (lg_npy_read_file(act_npy, &a, &err) != LG_OK) {
        fprintf(stderr, "%s\n", err.msg);
        unload(&l);
        return 2;
    }
    rc = 0;
    bool shape_ok = a.rank == t->n_dims;
    for (uint32_t i = 0; shape_ok && i < a.rank; i++) shape_ok = a.shape[i] == t->dims[i];
    if (!shape_ok) {
        printf("MISMATCH %s: shape differs (rank %u vs %u)\n", act_npy, a.rank, t->n_dims);
        rc = 3;
    } else if ((ty == LG_BOOL) != (a.type == LG_BOOL) || ((ty == LG_INT64) != (a.type == LG_INT64))) {
        printf("MISMATCH %s: dtype %s, expected %s\n", act_npy, lg_dtype_name(a.type), lg_onnx_dtype_name(t->data_type));
        rc = 3;
    } else {
        int64_t bad = 0, first = -1;
        double worst = 0;
        for (int64_t i = 0; i < a.numel; i++) {
            double e = elem(d.data, ty, i), v = elem(a.data, a.type, i);
            bool ok;
            if (isnan(e) || isnan(v)) ok = isnan(e) && isnan(v);
            else if (isinf(e) || isinf(v)) ok = e == v;
            else ok = fabs(v - e) <= 1e-7 + 1e-3 * fabs(e);
            if (!ok) {
                if (first < 0) first = i;
                bad++;
                if (fabs(v - e) > worst || isnan(v - e)) worst = fabs(v - e);
            }
        }
        if (bad) {
            printf("MISMATCH %s: %lld of %lld elements, first at %lld (%g vs expected %g), worst |diff| %g\n", act_npy,
                   (long long)bad, (long long)a.numel, (long long)first, elem(a.data, a.type, first),
                   elem(d.data, ty, first), worst);
            rc = 3;
        }
    }
    lg_npy_free(&a);
    unload(&l);
    return rc;
}

int main(int argc, char **argv) {
    bool cmp = argc > 1 && !strcmp(argv[1], "--compare");
    int first = cmp ? 2 : 1;
    if (argc - first < 2 || (argc - first) % 2) {
        fprintf(stderr, "usage: onnx_tensor_npy IN.pb OUT.npy [...] | --compare EXPECTED.pb ACTUAL.npy [...]\n");
        return 1;
    }
    int rc = 0;
    for (int i = first; i + 1 < argc; i += 2) {
        int r = cmp ? compare(argv[i], argv[i + 1]) : convert(argv[i], argv[i + 1]);
        if (r > rc) rc = r;
    }
    return rc;
}
