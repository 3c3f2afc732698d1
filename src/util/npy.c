/* NumPy .npy reader and writer. The header is a Python dict literal; we parse only the
   three keys numpy writes ('descr', 'fortran_order', 'shape') and refuse anything else. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "lg/npy.h"
#include "util/file.h"
#include "util/half.h"

static const struct { const char *descr; lg_dtype type; uint32_t size; } npy_types[] = {
    {"<f4", LG_FLOAT32, 4}, {"<f2", LG_FLOAT16, 2}, {"<f8", LG_FLOAT64, 8},
    {"|i1", LG_INT8, 1},    {"<i2", LG_INT16, 2},   {"<i4", LG_INT32, 4}, {"<i8", LG_INT64, 8},
    {"|u1", LG_UINT8, 1},   {"<u2", LG_UINT16, 2},  {"<u4", LG_UINT32, 4}, {"<u8", LG_UINT64, 8},
    {"|b1", LG_BOOL, 1},
};
#define N_TYPES (sizeof npy_types / sizeof npy_types[0])

void lg_npy_free(lg_npy *a) {
    if (!a) return;
    free(a->data);
    a->data = NULL;
}

static const char *skip_ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == ',')) p++;
    return p;
}

lg_status lg_npy_read_mem(const void *buf, size_t size, const char *name, lg_npy *out, lg_error *err) {
    const uint8_t *b = buf;
    if (!name) name = "array";
    memset(out, 0, sizeof *out);
    if (size < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
        return lgi_fail(err, LG_ERR_FORMAT, "%s: not a .npy file (no \\x93NUMPY magic)", name);
    unsigned major = b[6];
    size_t hlen, hstart;
    if (major == 1) { hlen = lgi_rd_u16(b + 8); hstart = 10; }
    else if (major == 2 || major == 3) {
        if (size < 12) return lgi_fail(err, LG_ERR_FORMAT, "%s: truncated .npy header", name);
        hlen = lgi_rd_u32(b + 8);
        hstart = 12;
    } else return lgi_fail(err, LG_ERR_UNSUPPORTED, "%s: .npy format version %u", name, major);
    if (hlen > size - hstart) return lgi_fail(err, LG_ERR_FORMAT, "%s: .npy header runs past the end", name);
    const char *h = (const char *)b + hstart, *hend = h + hlen;
    /* descr */
    const char *d = NULL, *fo = NULL, *sh = NULL;
    for (const char *p = h; p + 7 < hend; p++) {
        if (!d && strncmp(p, "'descr'", 7) == 0) d = p + 7;
        if (!fo && p + 15 < hend && strncmp(p, "'fortran_order'", 15) == 0) fo = p + 15;
        if (!sh && strncmp(p, "'shape'", 7) == 0) sh = p + 7;
    }
    if (!d || !fo || !sh) return lgi_fail(err, LG_ERR_FORMAT, "%s: .npy header lacks descr/fortran_order/shape", name);
    d = skip_ws(d, hend);
    if (d >= hend || *d != ':') return lgi_fail(err, LG_ERR_FORMAT, "%s: bad .npy header", name);
    d = skip_ws(d + 1, hend);
    if (d + 5 > hend || *d != '\'') return lgi_fail(err, LG_ERR_FORMAT, "%s: bad descr", name);
    char descr[8] = {0};
    size_t dl = 0;
    for (const char *p = d + 1; p < hend && *p != '\'' && dl < 7; p++) descr[dl++] = *p;
    if (descr[0] == '=') descr[0] = '<';
    if (descr[0] == '<' && descr[1] == 'b') descr[0] = '|';
    if ((descr[0] == '<' || descr[0] == '>') && descr[2] == '1' && !descr[3]) descr[0] = '|';
    int ti = -1;
    for (size_t i = 0; i < N_TYPES; i++)
        if (strcmp(descr, npy_types[i].descr) == 0) ti = (int)i;
    if (ti < 0) return lgi_fail(err, LG_ERR_UNSUPPORTED, "%s: .npy dtype '%s' is not supported (little-endian numbers or bool only)", name, descr);
    fo = skip_ws(fo, hend);
    if (fo < hend && *fo == ':') fo = skip_ws(fo + 1, hend);
    if (fo + 4 <= hend && strncmp(fo, "True", 4) == 0)
        return lgi_fail(err, LG_ERR_UNSUPPORTED, "%s: Fortran-order .npy arrays are not supported (save with C order)", name);
    sh = skip_ws(sh, hend);
    if (sh >= hend || *sh != ':') return lgi_fail(err, LG_ERR_FORMAT, "%s: bad shape", name);
    sh = skip_ws(sh + 1, hend);
    if (sh >= hend || *sh != '(') return lgi_fail(err, LG_ERR_FORMAT, "%s: bad shape", name);
    sh++;
    int64_t numel = 1;
    while (1) {
        sh = skip_ws(sh, hend);
        if (sh >= hend) return lgi_fail(err, LG_ERR_FORMAT, "%s: unterminated shape", name);
        if (*sh == ')') break;
        if (*sh < '0' || *sh > '9') return lgi_fail(err, LG_ERR_FORMAT, "%s: bad shape", name);
        int64_t v = 0;
        while (sh < hend && *sh >= '0' && *sh <= '9') {
            v = v * 10 + (*sh - '0');
            if (v > INT32_MAX) return lgi_fail(err, LG_ERR_LIMIT, "%s: dimension too large", name);
            sh++;
        }
        if (out->rank >= 8) return lgi_fail(err, LG_ERR_UNSUPPORTED, "%s: rank above 8", name);
        out->shape[out->rank++] = (int32_t)v;
        if (v && numel > INT64_MAX / v) return lgi_fail(err, LG_ERR_LIMIT, "%s: too many elements", name);
        numel *= v;
    }
    uint32_t es = npy_types[ti].size;
    uint64_t nbytes = (uint64_t)numel * es;
    size_t dstart = hstart + hlen;
    if (nbytes > size - dstart)
        return lgi_fail(err, LG_ERR_FORMAT, "%s: .npy data is %zu bytes, the shape needs %llu", name, size - dstart,
                        (unsigned long long)nbytes);
    out->type = npy_types[ti].type;
    out->numel = numel;
    out->nbytes = nbytes;
    out->data = malloc(nbytes ? (size_t)nbytes : 1);
    if (!out->data) return lgi_fail(err, LG_ERR_NOMEM, "%s: out of memory", name);
    memcpy(out->data, b + dstart, (size_t)nbytes);
    return LG_OK;
}

/* read() until n bytes or end of file; returns the count, or -1 with errno. */
static ssize_t read_full(int fd, uint8_t *buf, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

lg_status lg_npy_read_file(const char *path, lg_npy *out, lg_error *err) {
    memset(out, 0, sizeof *out);
    int fd;
    uint64_t n;
    /* a regular file only (lg.h "files"): a directory, a device or a FIFO is refused at once */
    LG_TRY(lg_input_open(path, &fd, &n, err));
    if (n > SIZE_MAX / 2) {
        close(fd);
        return lgi_fail(err, LG_ERR_LIMIT, "%s: file too large", path);
    }
    uint8_t *buf = malloc(n ? (size_t)n : 1);
    if (!buf) {
        close(fd);
        return lgi_fail(err, LG_ERR_NOMEM, "%s: out of memory (%llu bytes)", path, (unsigned long long)n);
    }
    ssize_t got = read_full(fd, buf, (size_t)n);
    int e = errno;
    close(fd);
    if (got < 0 || (uint64_t)got != n) {
        free(buf);
        if (got < 0) return lgi_fail(err, LG_ERR_IO, "%s: cannot read: %s", path, strerror(e));
        return lgi_fail(err, LG_ERR_IO, "%s: short read (the file changed while read?)", path);
    }
    lg_status st = lg_npy_read_mem(buf, (size_t)n, path, out, err);
    free(buf);
    return st;
}

static int write_full(int fd, const void *p, size_t n) {
    const uint8_t *b = p;
    while (n) {
        ssize_t k = write(fd, b, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return 0;
        b += k;
        n -= (size_t)k;
    }
    return 1;
}

lg_status lg_npy_write_file(const char *path, lg_dtype type, const int32_t *shape, uint32_t rank,
                            const void *data, bool force, lg_error *err) {
    int ti = -1;
    for (size_t i = 0; i < N_TYPES; i++)
        if (npy_types[i].type == type) ti = (int)i;
    if (ti < 0) return lgi_fail(err, LG_ERR_UNSUPPORTED, "%s: cannot write %s as .npy", path, lg_dtype_name(type));
    char dict[256];
    size_t k = (size_t)snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", npy_types[ti].descr);
    int64_t numel = 1;
    for (uint32_t i = 0; i < rank && k < sizeof dict; i++) {
        k += (size_t)snprintf(dict + k, sizeof dict - k, "%d%s", shape[i], rank == 1 ? "," : (i + 1 < rank ? ", " : ""));
        numel *= shape[i];
    }
    if (k < sizeof dict) k += (size_t)snprintf(dict + k, sizeof dict - k, "), }");
    if (k >= sizeof dict - 64) return lgi_fail(err, LG_ERR_LIMIT, "%s: header too long", path);
    /* pad with spaces so that the data starts at a multiple of 64; end with a newline */
    size_t total = 10 + k + 1;
    size_t pad = (64 - total % 64) % 64;
    size_t hlen = k + pad + 1;
    uint8_t hdr[10];
    memcpy(hdr, "\x93NUMPY\x01\x00", 8);
    lgi_wr_u16(hdr + 8, (uint16_t)hlen);
    /* the output rules (lg.h "files"): checked before writing, and again at the rename */
    LG_TRY(lg_output_check(path, force, err));
    int fd;
    char *tmp = NULL;
    LG_TRY(lgi_tmp_create(path, &fd, &tmp, err));
    uint64_t nbytes = (uint64_t)numel * npy_types[ti].size;
    uint8_t spaces[64];
    memset(spaces, ' ', sizeof spaces);
    int ok = write_full(fd, hdr, 10) && write_full(fd, dict, k) && write_full(fd, spaces, pad) &&
             write_full(fd, "\n", 1) && (nbytes == 0 || write_full(fd, data, (size_t)nbytes));
    lg_status st;
    if (!ok) {
        st = lgi_fail(err, LG_ERR_IO, "%s: write failed: %s", path, strerror(errno));
        close(fd);
        unlink(tmp);
    } else {
        /* not fsync'ed: --dump-all writes hundreds of these */
        st = lgi_tmp_commit(fd, tmp, path, force, false, err);
    }
    free(tmp);
    return st;
}

lg_status lg_npy_to_f32(const lg_npy *a, float **out, lg_error *err) {
    float *f = malloc(a->numel ? (size_t)a->numel * 4 : 4);
    if (!f) return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    const uint8_t *p = a->data;
    for (int64_t i = 0; i < a->numel; i++) {
        double v = 0;
        switch (a->type) {
        case LG_FLOAT32: { float x; memcpy(&x, p + 4 * i, 4); v = x; break; }
        case LG_FLOAT16: v = lg_half_to_float(lgi_rd_u16(p + 2 * i)); break;
        case LG_FLOAT64: { double x; memcpy(&x, p + 8 * i, 8); v = x; break; }
        case LG_INT8: v = ((const int8_t *)p)[i]; break;
        case LG_UINT8: case LG_BOOL: v = p[i]; break;
        case LG_INT16: { int16_t x; memcpy(&x, p + 2 * i, 2); v = x; break; }
        case LG_UINT16: v = lgi_rd_u16(p + 2 * i); break;
        case LG_INT32: { int32_t x; memcpy(&x, p + 4 * i, 4); v = x; break; }
        case LG_UINT32: v = lgi_rd_u32(p + 4 * i); break;
        case LG_INT64: { int64_t x; memcpy(&x, p + 8 * i, 8); v = (double)x; break; }
        case LG_UINT64: v = (double)lgi_rd_u64(p + 8 * i); break;
        default: free(f); return lgi_fail(err, LG_ERR_UNSUPPORTED, "cannot convert %s", lg_dtype_name(a->type));
        }
        f[i] = (float)v;
    }
    *out = f;
    return LG_OK;
}
