/* Protobuf wire-format primitives for the ONNX reader: checked varints and fields, the
   first (checking, counting) pass over a message, strings, packed repeated scalars, and
   the error path. Every read is checked against the end of its message, which was itself
   checked against its parent's end, down to the file size. */
#include <stdio.h>
#include <string.h>

#include "io/onnx/wire.h"

/* ------------------------------------------------------------------ errors and path */

lg_status ox_fail(ox_rd *r, lg_status st, const char *fmt, ...) {
    if (!r->err) return st;
    char what[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (r->plen)
        return lgi_fail_at(r->err, st, -1, -1, -1, "%.200s: %s: %s", r->where, r->path, what);
    return lgi_fail_at(r->err, st, -1, -1, -1, "%.200s: %s", r->where, what);
}

lg_status ox_nomem(ox_rd *r) {
    if (r->arena->over_limit)
        return ox_fail(r, LG_ERR_LIMIT,
                       "the model needs more than %llu bytes of memory to read (corrupt or hostile "
                       "file? raise max_ir_bytes to allow it)", (unsigned long long)r->arena->limit);
    return ox_fail(r, LG_ERR_NOMEM, "out of memory");
}

size_t ox_push(ox_rd *r, const char *fmt, ...) {
    size_t old = r->plen;
    if (r->plen + 1 < sizeof r->path) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(r->path + r->plen, sizeof r->path - r->plen, fmt, ap);
        va_end(ap);
        if (n > 0) r->plen += (size_t)n;
        if (r->plen >= sizeof r->path) r->plen = sizeof r->path - 1;
    }
    return old;
}

void ox_push_esc(ox_rd *r, const char *pre, lg_onnx_str name, const char *post) {
    char tmp[100];
    size_t k = 0;
    uint32_t i = 0;
    for (; i < name.n && k + 8 < sizeof tmp; i++) {
        unsigned char c = (unsigned char)name.s[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') tmp[k++] = (char)c;
        else k += (size_t)snprintf(tmp + k, sizeof tmp - k, "\\x%02x", c);
    }
    if (i < name.n) k += (size_t)snprintf(tmp + k, sizeof tmp - k, "...");
    tmp[k] = 0;
    ox_push(r, "%s%s%s", pre, tmp, post);
}

void ox_push_name(ox_rd *r, lg_onnx_str name) { ox_push_esc(r, " \"", name, "\""); }

void ox_pop(ox_rd *r, size_t old) {
    r->plen = old;
    r->path[old] = 0;
}

lg_status ox_enter(ox_rd *r) {
    if (++r->depth > r->max_depth) {
        r->depth--;
        return ox_fail(r, LG_ERR_LIMIT, "messages nested more than %u deep (subgraphs inside "
                       "subgraphs?)", r->max_depth);
    }
    return LG_OK;
}

lg_status ox_array(ox_rd *r, uint64_t n, size_t elem, void **out) {
    if (n > UINT32_MAX) return ox_fail(r, LG_ERR_LIMIT, "%llu elements in one field (more than 2^32-1)",
                                       (unsigned long long)n);
    uint64_t bytes = (n ? n : 1) * (uint64_t)elem;
    if (bytes > SIZE_MAX) return ox_nomem(r);
    *out = lgi_arena_alloc(r->arena, (size_t)bytes);
    if (!*out) return ox_nomem(r);
    return LG_OK;
}

/* ------------------------------------------------------------------ varints and fields */

const char *ox_fname(const ox_msg *m, uint32_t num, char tmp[24]) {
    if (num < OX_MAXF && m->field[num]) return m->field[num];
    snprintf(tmp, 24, "field %u", num);
    return tmp;
}

lg_status ox_varint(ox_rd *r, uint64_t *pos, uint64_t end, uint64_t *v, const char *what) {
    uint64_t p = *pos, x = 0;
    for (unsigned i = 0;; i++) {
        if (p >= end)
            return ox_bad(r, "%s: varint at byte %llu runs past the end of its message (byte %llu)",
                          what, (unsigned long long)*pos, (unsigned long long)end);
        uint8_t b = r->buf[p++];
        if (i == 9 && (b & 0x80))
            return ox_bad(r, "%s: varint at byte %llu is longer than 10 bytes", what,
                          (unsigned long long)*pos);
        if (i == 9 && b > 1) /* the 10th byte holds bit 63 only */
            return ox_bad(r, "%s: varint at byte %llu overflows 64 bits", what, (unsigned long long)*pos);
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) break;
    }
    *v = x;
    *pos = p;
    return LG_OK;
}

lg_status ox_next(ox_rd *r, const ox_msg *m, uint64_t *pos, uint64_t end, ox_field *f, int *more) {
    char tmp[24], what[64];
    *more = 0;
    if (*pos >= end) return LG_OK;
    uint64_t tag;
    f->at = *pos;
    snprintf(what, sizeof what, "%s field tag", m->name);
    LG_TRY(ox_varint(r, pos, end, &tag, what));
    if (tag > UINT32_MAX || (tag >> 3) == 0)
        return ox_bad(r, "%s: bad field tag %llu at byte %llu", m->name, (unsigned long long)tag,
                      (unsigned long long)f->at);
    f->num = (uint32_t)(tag >> 3);
    f->wt = (uint32_t)(tag & 7);
    f->v = f->off = f->len = 0;
    const char *fn = ox_fname(m, f->num, tmp);
    switch (f->wt) {
    case 0:
        LG_TRY(ox_varint(r, pos, end, &f->v, fn));
        break;
    case 1:
    case 5: {
        uint64_t w = f->wt == 1 ? 8 : 4;
        if (end - *pos < w)
            return ox_bad(r, "%s: %llu-byte value at byte %llu past the end of its message (byte %llu)",
                          fn, (unsigned long long)w, (unsigned long long)*pos, (unsigned long long)end);
        f->v = w == 8 ? lgi_rd_u64(r->buf + *pos) : lgi_rd_u32(r->buf + *pos);
        *pos += w;
        break;
    }
    case 2: {
        uint64_t len;
        LG_TRY(ox_varint(r, pos, end, &len, fn));
        if (len > end - *pos)
            return ox_bad(r, "%s length %llu past the end at byte %llu (its message ends at byte %llu)",
                          fn, (unsigned long long)len, (unsigned long long)*pos, (unsigned long long)end);
        f->off = *pos;
        f->len = len;
        *pos += len;
        break;
    }
    case 3:
    case 4:
        return ox_bad(r, "%s: %s uses the deprecated group encoding (wire type %u) at byte %llu: not supported",
                      m->name, fn, f->wt, (unsigned long long)f->at);
    default:
        return ox_bad(r, "%s: %s has invalid wire type %u at byte %llu", m->name, fn, f->wt,
                      (unsigned long long)f->at);
    }
    *more = 1;
    return LG_OK;
}

/* Elements of a packed varint payload: one per byte without the continuation bit, and the
   payload must end on such a byte. */
static lg_status packed_varints(ox_rd *r, const char *fn, const ox_field *f, uint64_t *n) {
    uint64_t k = 0;
    for (uint64_t i = 0; i < f->len; i++) k += !(r->buf[f->off + i] & 0x80);
    if (f->len && (r->buf[f->off + f->len - 1] & 0x80))
        return ox_bad(r, "packed %s (%llu bytes at byte %llu) ends inside a varint", fn,
                      (unsigned long long)f->len, (unsigned long long)f->off);
    *n = k;
    return LG_OK;
}

lg_status ox_scan(ox_rd *r, const ox_msg *m, uint64_t off, uint64_t end, ox_scan_t *s) {
    memset(s, 0, sizeof *s);
    uint64_t pos = off;
    for (;;) {
        ox_field f;
        int more;
        char tmp[24];
        LG_TRY(ox_next(r, m, &pos, end, &f, &more));
        if (!more) return LG_OK;
        if (f.num >= OX_MAXF || m->kind[f.num] == OXF_UNKNOWN) continue; /* unknown: skipped */
        const char *fn = ox_fname(m, f.num, tmp);
        unsigned k = m->kind[f.num];
        uint64_t add = 1;
        int ok;
        switch (k) {
        case OXF_VARINT: ok = f.wt == 0; break;
        case OXF_F32: ok = f.wt == 5; break;
        case OXF_LEN: case OXF_MSG1: ok = f.wt == 2; break;
        case OXF_RVAR:
            ok = f.wt == 0 || f.wt == 2;
            if (ok && f.wt == 2) LG_TRY(packed_varints(r, fn, &f, &add));
            break;
        case OXF_RF32:
        case OXF_RF64: {
            uint64_t w = k == OXF_RF32 ? 4 : 8;
            ok = f.wt == 2 || f.wt == (k == OXF_RF32 ? 5u : 1u);
            if (ok && f.wt == 2) {
                if (f.len % w)
                    return ox_bad(r, "packed %s is %llu bytes at byte %llu, not a multiple of %llu", fn,
                                  (unsigned long long)f.len, (unsigned long long)f.off, (unsigned long long)w);
                add = f.len / w;
            }
            break;
        }
        default: ok = 0;
        }
        if (!ok)
            return ox_bad(r, "%s.%s has wire type %u at byte %llu, which does not fit its type", m->name,
                          fn, f.wt, (unsigned long long)f.at);
        if (k == OXF_MSG1 && s->cnt[f.num])
            return ox_bad(r, "%s.%s appears twice (at byte %llu): merging repeated sub-messages is not "
                          "supported", m->name, fn, (unsigned long long)f.at);
        s->cnt[f.num] += add;
        s->last[f.num] = f;
    }
}

/* The first occurrence of string field num, for the message path only: a lenient walk that
   stops at the first malformed field (the checked passes report that one). */
lg_onnx_str ox_peek(ox_rd *r, uint64_t off, uint64_t end, uint32_t num) {
    lg_onnx_str out = {NULL, 0};
    uint64_t p = off;
    while (p < end) {
        uint64_t v[2] = {0, 0};
        for (int k = 0; k < 2; k++) {
            unsigned sh = 0;
            for (;;) {
                if (p >= end || sh > 63) return out;
                uint8_t b = r->buf[p++];
                v[k] |= (uint64_t)(b & 0x7f) << sh;
                sh += 7;
                if (!(b & 0x80)) break;
            }
            uint32_t wt = (uint32_t)(v[0] & 7);
            if (k == 0 && wt == 1) { if (end - p < 8) return out; p += 8; break; }
            if (k == 0 && wt == 5) { if (end - p < 4) return out; p += 4; break; }
            if (k == 0 && wt != 0 && wt != 2) return out;
            if (k == 1 && wt == 2) {
                if (v[1] > end - p || v[1] > UINT32_MAX) return out;
                if ((v[0] >> 3) == num) {
                    out.s = (const char *)r->buf + p;
                    out.n = (uint32_t)v[1];
                    return out;
                }
                p += v[1];
            }
        }
    }
    return out;
}

/* ------------------------------------------------------------------ strings */

int ox_utf8_ok(const uint8_t *s, uint64_t n, uint64_t *bad_at) {
    uint64_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        uint32_t need, cp, min;
        if (c == 0) goto bad;
        if (c < 0x80) { i++; continue; }
        if ((c & 0xe0) == 0xc0) { need = 1; cp = c & 0x1f; min = 0x80; }
        else if ((c & 0xf0) == 0xe0) { need = 2; cp = c & 0x0f; min = 0x800; }
        else if ((c & 0xf8) == 0xf0) { need = 3; cp = c & 0x07; min = 0x10000; }
        else goto bad;
        if (n - i <= need) goto bad;
        for (uint32_t k = 1; k <= need; k++) {
            if ((s[i + k] & 0xc0) != 0x80) goto bad;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        /* overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8 */
        if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) goto bad;
        i += need + 1;
    }
    return 1;
bad:
    *bad_at = i;
    return 0;
}

lg_status ox_bytes(ox_rd *r, const ox_msg *m, const ox_field *f, lg_onnx_str *out) {
    char tmp[24];
    if (f->len > UINT32_MAX)
        return ox_fail(r, LG_ERR_LIMIT, "%s is %llu bytes long (more than 4 GiB)", ox_fname(m, f->num, tmp),
                       (unsigned long long)f->len);
    out->s = (const char *)r->buf + f->off;
    out->n = (uint32_t)f->len;
    return LG_OK;
}

lg_status ox_name(ox_rd *r, const ox_msg *m, const ox_field *f, lg_onnx_str *out) {
    char tmp[24];
    uint64_t at;
    LG_TRY(ox_bytes(r, m, f, out));
    if (!ox_utf8_ok(r->buf + f->off, f->len, &at))
        return ox_bad(r, "%s at byte %llu: %s at byte %llu", ox_fname(m, f->num, tmp),
                      (unsigned long long)f->off,
                      r->buf[f->off + at] ? "not valid UTF-8" : "a NUL byte in a name",
                      (unsigned long long)(f->off + at));
    return LG_OK;
}

lg_status ox_int32(ox_rd *r, const ox_msg *m, const ox_field *f, int32_t *out) {
    char tmp[24];
    int64_t v = (int64_t)f->v;
    if (v < INT32_MIN || v > INT32_MAX)
        return ox_bad(r, "%s = %lld at byte %llu does not fit an int32", ox_fname(m, f->num, tmp),
                      (long long)v, (unsigned long long)f->at);
    *out = (int32_t)v;
    return LG_OK;
}

/* ------------------------------------------------------------------ repeated scalars */

static lg_status rep_overflow(ox_rd *r, const ox_msg *m, const ox_field *f) {
    char tmp[24];
    /* cannot happen: the first pass counted the same bytes */
    return ox_fail(r, LG_ERR_INTERNAL, "%s at byte %llu: more elements than counted",
                   ox_fname(m, f->num, tmp), (unsigned long long)f->at);
}

lg_status ox_rvar(ox_rd *r, const ox_msg *m, const ox_field *f, uint64_t *a, uint64_t cap, uint64_t *n) {
    char tmp[24];
    const char *fn = ox_fname(m, f->num, tmp);
    if (f->wt == 0) {
        if (*n >= cap) return rep_overflow(r, m, f);
        a[(*n)++] = f->v;
        return LG_OK;
    }
    uint64_t p = f->off, end = f->off + f->len;
    while (p < end) {
        if (*n >= cap) return rep_overflow(r, m, f);
        LG_TRY(ox_varint(r, &p, end, &a[*n], fn));
        (*n)++;
    }
    return LG_OK;
}

static lg_status rfixed(ox_rd *r, const ox_msg *m, const ox_field *f, void *a, unsigned w, uint64_t cap,
                        uint64_t *n) {
    if (f->wt != 2) {
        if (*n >= cap) return rep_overflow(r, m, f);
        if (w == 4) ((uint32_t *)a)[(*n)++] = (uint32_t)f->v;
        else ((uint64_t *)a)[(*n)++] = f->v;
        return LG_OK;
    }
    uint64_t k = f->len / w;
    if (k > cap - *n) return rep_overflow(r, m, f);
    for (uint64_t i = 0; i < k; i++) {
        const uint8_t *p = r->buf + f->off + i * w;
        if (w == 4) ((uint32_t *)a)[*n + i] = lgi_rd_u32(p);
        else ((uint64_t *)a)[*n + i] = lgi_rd_u64(p);
    }
    *n += k;
    return LG_OK;
}

lg_status ox_rf32(ox_rd *r, const ox_msg *m, const ox_field *f, uint32_t *a, uint64_t cap, uint64_t *n) {
    return rfixed(r, m, f, a, 4, cap, n);
}

lg_status ox_rf64(ox_rd *r, const ox_msg *m, const ox_field *f, uint64_t *a, uint64_t cap, uint64_t *n) {
    return rfixed(r, m, f, a, 8, cap, n);
}
