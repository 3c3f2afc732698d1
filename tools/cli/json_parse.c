/* A small recursive-descent JSON reader (RFC 8259), depth-capped, for trusted-ish input
   (our own harness's output) but written to fail cleanly on anything malformed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_parse.h"

#define JV_MAX_DEPTH 64

typedef struct jp {
    const char *p, *end;
    char *err;
    size_t err_size;
    int depth;
} jp;

static void jp_err(jp *j, const char *what) {
    if (j->err && !j->err[0]) snprintf(j->err, j->err_size, "JSON: %s", what);
}

static void ws(jp *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static jv *node(jv_type t) {
    jv *v = calloc(1, sizeof *v);
    if (v) v->type = t;
    return v;
}

void jv_free(jv *v) {
    while (v) {
        jv *next = v->next;
        jv_free(v->child);
        free(v->str);
        free(v->key);
        free(v);
        v = next;
    }
}

static void put_utf8(char *out, size_t *k, unsigned cp) {
    if (cp < 0x80) out[(*k)++] = (char)cp;
    else if (cp < 0x800) { out[(*k)++] = (char)(0xC0 | (cp >> 6)); out[(*k)++] = (char)(0x80 | (cp & 0x3F)); }
    else if (cp < 0x10000) {
        out[(*k)++] = (char)(0xE0 | (cp >> 12));
        out[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*k)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        out[(*k)++] = (char)(0xF0 | (cp >> 18));
        out[(*k)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*k)++] = (char)(0x80 | (cp & 0x3F));
    }
}

static int hex4(jp *j, unsigned *cp) {
    if (j->end - j->p < 4) return 0;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = j->p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    j->p += 4;
    *cp = v;
    return 1;
}

static char *string(jp *j) {
    if (j->p >= j->end || *j->p != '"') { jp_err(j, "expected a string"); return NULL; }
    j->p++;
    const char *s = j->p;
    size_t cap = 0;
    while (s < j->end && *s != '"') { if (*s == '\\') s++; s++; cap++; }
    char *out = malloc(cap * 4 + 1);
    if (!out) { jp_err(j, "out of memory"); return NULL; }
    size_t k = 0;
    while (j->p < j->end && *j->p != '"') {
        char c = *j->p++;
        if ((unsigned char)c < 0x20) { free(out); jp_err(j, "control character in a string"); return NULL; }
        if (c != '\\') { out[k++] = c; continue; }
        if (j->p >= j->end) break;
        c = *j->p++;
        switch (c) {
        case '"': out[k++] = '"'; break;
        case '\\': out[k++] = '\\'; break;
        case '/': out[k++] = '/'; break;
        case 'b': out[k++] = '\b'; break;
        case 'f': out[k++] = '\f'; break;
        case 'n': out[k++] = '\n'; break;
        case 'r': out[k++] = '\r'; break;
        case 't': out[k++] = '\t'; break;
        case 'u': {
            unsigned cp;
            if (!hex4(j, &cp)) { free(out); jp_err(j, "bad \\u escape"); return NULL; }
            if (cp >= 0xD800 && cp < 0xDC00 && j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u') {
                unsigned lo;
                j->p += 2;
                if (!hex4(j, &lo)) { free(out); jp_err(j, "bad \\u escape"); return NULL; }
                if (lo >= 0xDC00 && lo < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                else cp = 0xFFFD;
            } else if (cp >= 0xD800 && cp < 0xE000) {
                cp = 0xFFFD;
            }
            put_utf8(out, &k, cp);
            break;
        }
        default: free(out); jp_err(j, "bad escape"); return NULL;
        }
    }
    if (j->p >= j->end) { free(out); jp_err(j, "unterminated string"); return NULL; }
    j->p++;
    out[k] = 0;
    return out;
}

static jv *value(jp *j);

static jv *container(jp *j, int obj) {
    jv *v = node(obj ? JV_OBJ : JV_ARR), *last = NULL;
    if (!v) { jp_err(j, "out of memory"); return NULL; }
    if (++j->depth > JV_MAX_DEPTH) { jp_err(j, "nested too deeply"); jv_free(v); return NULL; }
    j->p++;
    ws(j);
    if (j->p < j->end && *j->p == (obj ? '}' : ']')) { j->p++; j->depth--; return v; }
    for (;;) {
        char *key = NULL;
        ws(j);
        if (obj) {
            if (!(key = string(j))) { jv_free(v); return NULL; }
            ws(j);
            if (j->p >= j->end || *j->p != ':') { free(key); jp_err(j, "expected ':'"); jv_free(v); return NULL; }
            j->p++;
        }
        jv *c = value(j);
        if (!c) { free(key); jv_free(v); return NULL; }
        c->key = key;
        if (last) last->next = c; else v->child = c;
        last = c;
        v->n++;
        ws(j);
        if (j->p < j->end && *j->p == ',') { j->p++; continue; }
        if (j->p < j->end && *j->p == (obj ? '}' : ']')) { j->p++; break; }
        jp_err(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        jv_free(v);
        return NULL;
    }
    j->depth--;
    return v;
}

static jv *value(jp *j) {
    ws(j);
    if (j->p >= j->end) { jp_err(j, "unexpected end"); return NULL; }
    char c = *j->p;
    if (c == '{' || c == '[') return container(j, c == '{');
    if (c == '"') {
        jv *v = node(JV_STR);
        if (!v) { jp_err(j, "out of memory"); return NULL; }
        if (!(v->str = string(j))) { free(v); return NULL; }
        return v;
    }
    if (j->end - j->p >= 4 && strncmp(j->p, "true", 4) == 0) { j->p += 4; jv *v = node(JV_BOOL); if (v) v->num = 1; return v; }
    if (j->end - j->p >= 5 && strncmp(j->p, "false", 5) == 0) { j->p += 5; return node(JV_BOOL); }
    if (j->end - j->p >= 4 && strncmp(j->p, "null", 4) == 0) { j->p += 4; return node(JV_NULL); }
    if (c == '-' || (c >= '0' && c <= '9')) {
        char buf[64];
        size_t n = 0;
        while (j->p < j->end && n < sizeof buf - 1 && strchr("+-0123456789.eE", *j->p)) buf[n++] = *j->p++;
        buf[n] = 0;
        char *e;
        double d = strtod(buf, &e);
        if (*e) { jp_err(j, "bad number"); return NULL; }
        jv *v = node(JV_NUM);
        if (v) v->num = d;
        return v;
    }
    jp_err(j, "unexpected character");
    return NULL;
}

jv *jv_parse(const char *text, size_t len, char *err, size_t err_size) {
    jp j = {text, text + len, err, err_size, 0};
    if (err && err_size) err[0] = 0;
    jv *v = value(&j);
    if (!v) return NULL;
    ws(&j);
    if (j.p != j.end) { jp_err(&j, "trailing characters"); jv_free(v); return NULL; }
    return v;
}

const jv *jv_get(const jv *obj, const char *key) {
    if (!obj || obj->type != JV_OBJ) return NULL;
    for (const jv *c = obj->child; c; c = c->next)
        if (c->key && strcmp(c->key, key) == 0) return c;
    return NULL;
}

const jv *jv_at(const jv *arr, size_t i) {
    if (!arr || (arr->type != JV_ARR && arr->type != JV_OBJ)) return NULL;
    const jv *c = arr->child;
    while (c && i--) c = c->next;
    return c;
}

const char *jv_str(const jv *obj, const char *key, const char *def) {
    const jv *v = jv_get(obj, key);
    return v && v->type == JV_STR ? v->str : def;
}

double jv_num(const jv *obj, const char *key, double def) {
    const jv *v = jv_get(obj, key);
    return v && (v->type == JV_NUM || v->type == JV_BOOL) ? v->num : def;
}

int jv_bool(const jv *obj, const char *key, int def) {
    const jv *v = jv_get(obj, key);
    return v && v->type == JV_BOOL ? (int)v->num : def;
}
