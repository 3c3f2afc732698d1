/* TensorProto: dims, data type, and the data wherever it is stored (onnx.proto, message
   TensorProto): raw_data (referenced in the file, not copied), the typed repeated fields
   (decoded into the arena in raw_data layout, each value range-checked for its element
   type), string_data, or an external file (external.c). The data's size is checked against
   dims x element size here, for every tensor the reader sees. */
#include <string.h>

#include "io/onnx/wire.h"

/* ------------------------------------------------------------------ element types */

static const char *const DT_NAMES[LG_ONNX_DTYPE_COUNT] = {
    "UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING", "BOOL",
    "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN",
    "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4"};
static const uint8_t DT_BITS[LG_ONNX_DTYPE_COUNT] = {
    0, 32, 8, 8, 16, 16, 32, 64, 0, 8, 16, 64, 32, 64, 64, 128, 16, 8, 8, 8, 8, 4, 4};

const char *lg_onnx_dtype_name(int dtype) {
    return dtype >= 0 && dtype < LG_ONNX_DTYPE_COUNT ? DT_NAMES[dtype] : "?";
}

int lg_onnx_dtype_bits(int dtype) {
    return dtype >= 0 && dtype < LG_ONNX_DTYPE_COUNT ? DT_BITS[dtype] : 0;
}

int lg_onnx_str_eq(lg_onnx_str x, const char *c) {
    size_t n = strlen(c);
    return x.n == n && (n == 0 || (x.s && memcmp(x.s, c, n) == 0));
}

/* count = product of dims, nbytes = its storage; 0 if a dim is negative or it overflows
   (counts are kept below 2^56 so that byte sizes never wrap). */
int ox_tensor_size(int32_t dtype, const int64_t *dims, uint32_t n_dims, uint64_t *count, uint64_t *nbytes) {
    uint64_t c = 1;
    for (uint32_t i = 0; i < n_dims; i++) {
        if (dims[i] < 0) return 0;
        uint64_t d = (uint64_t)dims[i];
        if (d && c > ((uint64_t)1 << 56) / d) return 0;
        c *= d;
    }
    int bits = lg_onnx_dtype_bits(dtype);
    *count = c;
    *nbytes = bits == 4 ? (c + 1) / 2 : c * (uint64_t)(bits / 8);
    return 1;
}

lg_status lg_onnx_tensor_data(const lg_onnx_tensor *t, lg_onnx_data *out, lg_error *err) {
    if (!t || !out) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_onnx_tensor_data: NULL argument");
    memset(out, 0, sizeof *out);
    out->dtype = t->data_type;
    out->count = t->count;
    if (t->data_type == LG_ONNX_STRING) {
        out->strings = t->strings;
        out->n_strings = t->n_strings;
        return LG_OK;
    }
    uint64_t count, nbytes;
    if (!ox_tensor_size(t->data_type, t->dims, t->n_dims, &count, &nbytes) || nbytes != t->nbytes ||
        (nbytes && !t->data))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "tensor \"%.*s\": %llu bytes of data do not match its dims",
                        LG_ONNX_STR(t->name), (unsigned long long)t->nbytes);
    out->data = t->data;
    out->nbytes = t->nbytes;
    return LG_OK;
}

/* ------------------------------------------------------------------ TensorProto */

enum { T_DIMS = 1, T_DTYPE = 2, T_SEGMENT = 3, T_FLOAT = 4, T_INT32 = 5, T_STRING = 6, T_INT64 = 7,
       T_NAME = 8, T_RAW = 9, T_DOUBLE = 10, T_UINT64 = 11, T_EXT = 13, T_LOC = 14 };

static const ox_msg M_TENSOR = {
    "TensorProto",
    {[T_DIMS] = OXF_RVAR, [T_DTYPE] = OXF_VARINT, [T_SEGMENT] = OXF_MSG1, [T_FLOAT] = OXF_RF32,
     [T_INT32] = OXF_RVAR, [T_STRING] = OXF_LEN, [T_INT64] = OXF_RVAR, [T_NAME] = OXF_LEN,
     [T_RAW] = OXF_LEN, [T_DOUBLE] = OXF_RF64, [T_UINT64] = OXF_RVAR, [T_EXT] = OXF_LEN,
     [T_LOC] = OXF_VARINT},
    {[T_DIMS] = "dims", [T_DTYPE] = "data_type", [T_SEGMENT] = "segment", [T_FLOAT] = "float_data",
     [T_INT32] = "int32_data", [T_STRING] = "string_data", [T_INT64] = "int64_data", [T_NAME] = "name",
     [T_RAW] = "raw_data", [T_DOUBLE] = "double_data", [T_UINT64] = "uint64_data",
     [T_EXT] = "external_data", [T_LOC] = "data_location", [12] = "doc_string"}};

/* The typed field that holds each element type (onnx.proto comments on the *_data fields),
   and how many values per element (complex: 2). */
static int typed_field(int32_t dt, uint64_t count, uint64_t *want) {
    *want = count;
    switch (dt) {
    case LG_ONNX_FLOAT: return T_FLOAT;
    case LG_ONNX_COMPLEX64: *want = 2 * count; return T_FLOAT;
    case LG_ONNX_DOUBLE: return T_DOUBLE;
    case LG_ONNX_COMPLEX128: *want = 2 * count; return T_DOUBLE;
    case LG_ONNX_INT64: return T_INT64;
    case LG_ONNX_UINT32: case LG_ONNX_UINT64: return T_UINT64;
    case LG_ONNX_STRING: return T_STRING;
    case LG_ONNX_UINT4: case LG_ONNX_INT4: *want = (count + 1) / 2; return T_INT32; /* 2 per value */
    default: return T_INT32; /* INT32, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16, BFLOAT16, FLOAT8* */
    }
}

/* Store one int32_data/int64_data/uint64_data value as element i, checking its range. */
static lg_status put_int(ox_rd *r, lg_onnx_tensor *t, uint8_t *dst, uint64_t i, uint64_t v, const char *fn) {
    int64_t s = (int64_t)v;
    int64_t lo = 0, hi = 0;
    unsigned w;
    switch (t->data_type) {
    case LG_ONNX_INT32: lo = INT32_MIN; hi = INT32_MAX; w = 4; break;
    case LG_ONNX_INT16: lo = INT16_MIN; hi = INT16_MAX; w = 2; break;
    case LG_ONNX_INT8: lo = INT8_MIN; hi = INT8_MAX; w = 1; break;
    case LG_ONNX_UINT16: case LG_ONNX_FLOAT16: case LG_ONNX_BFLOAT16: hi = 0xffff; w = 2; break;
    case LG_ONNX_BOOL: hi = 1; w = 1; break;
    case LG_ONNX_UINT32: w = 4; if (v > UINT32_MAX) goto range; lgi_wr_u32(dst + 4 * i, (uint32_t)v); return LG_OK;
    case LG_ONNX_INT64: case LG_ONNX_UINT64: lgi_wr_u64(dst + 8 * i, v); return LG_OK;
    default: hi = 0xff; w = 1; break; /* UINT8, FLOAT8*, 4-bit pairs */
    }
    if (s < lo || s > hi) goto range;
    if (w == 4) lgi_wr_u32(dst + 4 * i, (uint32_t)s);
    else if (w == 2) lgi_wr_u16(dst + 2 * i, (uint16_t)s);
    else dst[i] = (uint8_t)s;
    return LG_OK;
range:
    return ox_bad(r, "%s[%llu] = %lld does not fit a %s element", fn, (unsigned long long)i, (long long)s,
                  lg_onnx_dtype_name(t->data_type));
}

/* Decode the typed field fnum (want values) into the arena in raw_data layout. */
static lg_status decode_typed(ox_rd *r, uint64_t off, uint64_t end, lg_onnx_tensor *t, int fnum, uint64_t want) {
    void *p;
    LG_TRY(ox_array(r, t->nbytes, 1, &p));
    uint8_t *dst = p;
    uint64_t n = 0, pos = off;
    char tmp[24];
    const char *fn = ox_fname(&M_TENSOR, (uint32_t)fnum, tmp);
    for (;;) {
        ox_field f;
        int more;
        LG_TRY(ox_next(r, &M_TENSOR, &pos, end, &f, &more));
        if (!more) break;
        if ((int)f.num != fnum) continue;
        if (fnum == T_FLOAT || fnum == T_DOUBLE) {
            unsigned w = fnum == T_FLOAT ? 4 : 8;
            uint64_t k = f.wt == 2 ? f.len / w : 1;
            if (k > t->nbytes / w - n) return ox_fail(r, LG_ERR_INTERNAL, "%s: more values than counted", fn);
            if (f.wt == 2) memcpy(dst + n * w, r->buf + f.off, (size_t)f.len);
            else if (w == 4) lgi_wr_u32(dst + n * 4, (uint32_t)f.v);
            else lgi_wr_u64(dst + n * 8, f.v);
            n += k;
            continue;
        }
        if (f.wt == 0) {
            if (n >= want) return ox_fail(r, LG_ERR_INTERNAL, "%s: more values than counted", fn);
            LG_TRY(put_int(r, t, dst, n++, f.v, fn));
            continue;
        }
        uint64_t q = f.off, qe = f.off + f.len;
        while (q < qe) {
            uint64_t v;
            LG_TRY(ox_varint(r, &q, qe, &v, fn));
            if (n >= want) return ox_fail(r, LG_ERR_INTERNAL, "%s: more values than counted", fn);
            LG_TRY(put_int(r, t, dst, n++, v, fn));
        }
    }
    t->data = dst;
    return LG_OK;
}

/* Is one field among the typed ones holding values? Returns the field (0 if none). */
static lg_status which_data(ox_rd *r, const ox_scan_t *s, int *which) {
    static const int typed[] = {T_FLOAT, T_INT32, T_STRING, T_INT64, T_DOUBLE, T_UINT64};
    *which = 0;
    for (unsigned i = 0; i < sizeof typed / sizeof typed[0]; i++) {
        if (!s->cnt[typed[i]]) continue;
        if (*which)
            return ox_bad(r, "has both %s and %s: a tensor keeps its values in one field",
                          M_TENSOR.field[*which], M_TENSOR.field[typed[i]]);
        *which = typed[i];
    }
    if (*which && s->cnt[T_RAW])
        return ox_bad(r, "has both raw_data and %s: a tensor keeps its values in one field",
                      M_TENSOR.field[*which]);
    return LG_OK;
}

/* Pass 2: dims, string_data, external_data (the repeated fields other than the values). */
static lg_status tensor_lists(ox_rd *r, uint64_t off, uint64_t end, const ox_scan_t *s, lg_onnx_tensor *t) {
    void *p;
    LG_TRY(ox_array(r, s->cnt[T_DIMS], sizeof(int64_t), &p));
    int64_t *dims = p;
    LG_TRY(ox_array(r, s->cnt[T_STRING], sizeof(lg_onnx_str), &p));
    lg_onnx_str *strs = p;
    LG_TRY(ox_array(r, s->cnt[T_EXT], sizeof(lg_onnx_kv), &p));
    lg_onnx_kv *kvs = p;
    uint64_t nd = 0, ns = 0, ne = 0, pos = off;
    for (;;) {
        ox_field f;
        int more;
        LG_TRY(ox_next(r, &M_TENSOR, &pos, end, &f, &more));
        if (!more) break;
        if (f.num == T_DIMS) {
            LG_TRY(ox_rvar(r, &M_TENSOR, &f, (uint64_t *)dims, s->cnt[T_DIMS], &nd));
        } else if (f.num == T_STRING) {
            LG_TRY(ox_bytes(r, &M_TENSOR, &f, &strs[ns++]));
        } else if (f.num == T_EXT) {
            size_t old = ox_push(r, ".external_data[%llu]", (unsigned long long)ne);
            LG_TRY(ox_kv(r, f.off, f.off + f.len, &kvs[ne++]));
            ox_pop(r, old);
        }
    }
    t->dims = dims;
    t->n_dims = (uint32_t)nd;
    t->strings = strs;
    t->n_strings = (uint32_t)ns;
    t->external_data = kvs;
    t->n_external_data = (uint32_t)ne;
    for (uint32_t i = 0; i < t->n_dims; i++)
        if (dims[i] < 0)
            return ox_bad(r, "dims[%u] = %lld is negative", i, (long long)dims[i]);
    return LG_OK;
}

static lg_status tensor_body(ox_rd *r, uint64_t off, uint64_t end, lg_onnx_tensor *t) {
    ox_scan_t s;
    lg_onnx_str pk = ox_peek(r, off, end, T_NAME);
    if (pk.s) ox_push_name(r, pk);
    LG_TRY(ox_scan(r, &M_TENSOR, off, end, &s));
    if (s.cnt[T_NAME]) LG_TRY(ox_name(r, &M_TENSOR, &s.last[T_NAME], &t->name));
    if (s.cnt[T_SEGMENT])
        return ox_fail(r, LG_ERR_UNSUPPORTED, "segment (a tensor stored in segments) is not supported");
    if (s.cnt[T_DTYPE]) LG_TRY(ox_int32(r, &M_TENSOR, &s.last[T_DTYPE], &t->data_type));
    if (s.cnt[T_LOC]) {
        if (s.last[T_LOC].v > 1)
            return ox_bad(r, "data_location = %lld is neither DEFAULT (0) nor EXTERNAL (1)",
                          (long long)s.last[T_LOC].v);
        t->data_location = (int)s.last[T_LOC].v;
    }
    LG_TRY(tensor_lists(r, off, end, &s, t));
    if (t->data_type == LG_ONNX_UNDEFINED) return ox_bad(r, "data_type is UNDEFINED (0)");
    if (t->data_type < 0 || t->data_type >= LG_ONNX_DTYPE_COUNT)
        return ox_fail(r, LG_ERR_UNSUPPORTED, "data_type %d is not a type this reader knows (1..%d)",
                       t->data_type, LG_ONNX_DTYPE_COUNT - 1);
    if (!ox_tensor_size(t->data_type, t->dims, t->n_dims, &t->count, &t->nbytes))
        return ox_fail(r, LG_ERR_LIMIT, "dims (%u of them) make more than 2^56 elements", t->n_dims);
    int which;
    LG_TRY(which_data(r, &s, &which));
    uint64_t want;
    int field = typed_field(t->data_type, t->count, &want);
    if (t->data_location == 1) {
        if (which || s.cnt[T_RAW])
            return ox_bad(r, "is EXTERNAL but also holds %s", which ? M_TENSOR.field[which] : "raw_data");
        if (t->data_type == LG_ONNX_STRING) return ox_bad(r, "STRING tensors cannot be EXTERNAL");
        t->src = LG_ONNX_DATA_EXTERNAL;
        return ox_external(r, t);
    }
    if (s.cnt[T_RAW]) {
        const ox_field *f = &s.last[T_RAW];
        if (t->data_type == LG_ONNX_STRING) return ox_bad(r, "STRING tensors cannot use raw_data");
        if (f->len != t->nbytes)
            return ox_bad(r, "raw_data is %llu bytes, dims (%llu %s elements) need %llu", (unsigned long long)f->len,
                          (unsigned long long)t->count, lg_onnx_dtype_name(t->data_type),
                          (unsigned long long)t->nbytes);
        t->src = LG_ONNX_DATA_RAW;
        t->data = f->len ? r->buf + f->off : NULL;
        return LG_OK;
    }
    if (!which) {
        if (t->count)
            return ox_bad(r, "has %llu elements but no data", (unsigned long long)t->count);
        return LG_OK;
    }
    if (which != field)
        return ox_bad(r, "holds %s, which is not the field for %s values (%s)", M_TENSOR.field[which],
                      lg_onnx_dtype_name(t->data_type), M_TENSOR.field[field]);
    if (s.cnt[which] != want)
        return ox_bad(r, "%s has %llu values, dims (%llu %s elements) need %llu", M_TENSOR.field[which],
                      (unsigned long long)s.cnt[which], (unsigned long long)t->count,
                      lg_onnx_dtype_name(t->data_type), (unsigned long long)want);
    if (which == T_STRING) {
        t->src = LG_ONNX_DATA_STRINGS;
        return LG_OK;
    }
    t->src = LG_ONNX_DATA_TYPED;
    return decode_typed(r, off, end, t, which, want);
}

lg_status ox_tensor(ox_rd *r, uint64_t off, uint64_t end, lg_onnx_tensor *t) {
    LG_TRY(ox_enter(r));
    size_t old = r->plen;
    lg_status st = tensor_body(r, off, end, t);
    ox_pop(r, old);
    ox_leave(r);
    return st;
}
