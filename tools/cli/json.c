/* Streaming JSON writer (see json.h). */
#include "json.h"

#include <inttypes.h>
#include <math.h>

void json_init(json_w *j, FILE *f) {
    j->f = f;
    j->depth = 0;
    j->flat_from = 0;
    j->after_key = false;
    for (int i = 0; i <= JSON_MAX_DEPTH; i++) j->has_items[i] = j->is_obj[i] = false;
}

static int level(const json_w *j) {
    return j->depth < JSON_MAX_DEPTH ? j->depth : JSON_MAX_DEPTH;
}

static void newline_indent(json_w *j, int depth) {
    fputc('\n', j->f);
    for (int i = 0; i < depth; i++) fputs("  ", j->f);
}

/* Separator and layout before a value or a key at the current depth. */
static void before_item(json_w *j) {
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (j->depth == 0) return;
    if (j->has_items[level(j)]) fputs(j->flat_from && j->is_obj[level(j)] ? ", " : ",", j->f);
    j->has_items[level(j)] = true;
    if (!j->flat_from) newline_indent(j, j->depth);
}

static void open_container(json_w *j, char c, bool flat) {
    before_item(j);
    fputc(c, j->f);
    j->depth++;
    j->has_items[level(j)] = false;
    j->is_obj[level(j)] = c == '{';
    if (flat && !j->flat_from) j->flat_from = j->depth;
}

static void close_container(json_w *j, char c) {
    bool had = j->has_items[level(j)];
    bool flat = j->flat_from != 0;
    if (j->flat_from == j->depth) j->flat_from = 0;
    j->depth--;
    if (had && !flat) newline_indent(j, j->depth);
    fputc(c, j->f);
}

void json_obj_open(json_w *j) { open_container(j, '{', false); }
void json_obj_open_flat(json_w *j) { open_container(j, '{', true); }
void json_obj_close(json_w *j) { close_container(j, '}'); }
void json_arr_open(json_w *j) { open_container(j, '[', false); }
void json_arr_open_flat(json_w *j) { open_container(j, '[', true); }
void json_arr_close(json_w *j) { close_container(j, ']'); }

/* ---------------------------------------------------------------- strings */

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid; *skip is how many
   bytes an invalid sequence covers (its maximal valid prefix, at least 1), so that each
   broken sequence becomes one U+FFFD. */
static size_t utf8_seq(const unsigned char *s, size_t n, size_t *skip) {
    unsigned c = s[0];
    size_t len;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0;      /* no overlong forms */
        else if (c == 0xED) hi = 0x9F; /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90;
        else if (c == 0xF4) hi = 0x8F; /* nothing above U+10FFFF */
    } else {
        *skip = 1;
        return 0;
    }
    size_t i = 1;
    for (; i < len && i < n; i++) {
        unsigned b = s[i];
        unsigned l = i == 1 ? lo : 0x80, h = i == 1 ? hi : 0xBF;
        if (b < l || b > h) break;
    }
    if (i == len) return len;
    *skip = i;
    return 0;
}

void json_write_quoted(FILE *f, const char *str, size_t n) {
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', f);
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        if (c < 0x80) {
            switch (c) {
            case '"': fputs("\\\"", f); break;
            case '\\': fputs("\\\\", f); break;
            case '\b': fputs("\\b", f); break;
            case '\f': fputs("\\f", f); break;
            case '\n': fputs("\\n", f); break;
            case '\r': fputs("\\r", f); break;
            case '\t': fputs("\\t", f); break;
            default:
                if (c < 0x20 || c == 0x7F) fprintf(f, "\\u%04x", c);
                else fputc((int)c, f);
            }
            i++;
            continue;
        }
        size_t skip = 1, len = utf8_seq(s + i, n - i, &skip);
        if (len) {
            fwrite(s + i, 1, len, f);
            i += len;
        } else {
            fputs("\\ufffd", f);
            i += skip;
        }
    }
    fputc('"', f);
}

void json_strn(json_w *j, const char *s, size_t n) {
    before_item(j);
    json_write_quoted(j->f, s, n);
}

void json_str(json_w *j, const char *s) {
    if (!s) {
        json_null(j);
        return;
    }
    size_t n = 0;
    while (s[n]) n++;
    json_strn(j, s, n);
}

void json_key(json_w *j, const char *key) {
    json_str(j, key);
    fputs(": ", j->f);
    j->after_key = true;
}

/* ---------------------------------------------------------------- scalars */

void json_int(json_w *j, int64_t v) {
    before_item(j);
    fprintf(j->f, "%" PRId64, v);
}

void json_uint(json_w *j, uint64_t v) {
    before_item(j);
    fprintf(j->f, "%" PRIu64, v);
}

void json_double(json_w *j, double v) {
    if (isnan(v) || isinf(v)) {
        json_null(j);
        return;
    }
    before_item(j);
    fprintf(j->f, "%.9g", v);
}

void json_bool(json_w *j, bool v) {
    before_item(j);
    fputs(v ? "true" : "false", j->f);
}

void json_null(json_w *j) {
    before_item(j);
    fputs("null", j->f);
}

void json_key_str(json_w *j, const char *key, const char *s) { json_key(j, key); json_str(j, s); }
void json_key_int(json_w *j, const char *key, int64_t v) { json_key(j, key); json_int(j, v); }
void json_key_uint(json_w *j, const char *key, uint64_t v) { json_key(j, key); json_uint(j, v); }
void json_key_double(json_w *j, const char *key, double v) { json_key(j, key); json_double(j, v); }
void json_key_bool(json_w *j, const char *key, bool v) { json_key(j, key); json_bool(j, v); }

int json_finish(json_w *j) {
    fputc('\n', j->f);
    if (fflush(j->f) != 0 || ferror(j->f)) return -1;
    return 0;
}
