/* Look-ups over the generated schema descriptors. */
#include <stdbool.h>
#include <string.h>
#include "ir/schema_gen.h"

const lgi_table_desc *lgi_opts_table(lg_opts_kind kind) {
    int k = (int)kind;
    if (k >= 1 && k <= lgi_opts_count1) return &lgi_opts_tables[k];
    if (k > LG_OPTS_2_BASE && k <= LG_OPTS_2_BASE + lgi_opts_count2)
        return &lgi_opts_tables[lgi_opts_count1 + (k - LG_OPTS_2_BASE)];
    if (k > 2000 && k <= 2000 + lgi_qdetails_count)
        return &lgi_opts_tables[lgi_opts_count1 + lgi_opts_count2 + (k - 2000)];
    return NULL;
}

const char *lg_opts_name(lg_opts_kind kind) {
    const lgi_table_desc *t = lgi_opts_table(kind);
    return t ? t->name : NULL;
}

lg_status lg_opts_init(lg_opts_kind kind, void *opts, size_t size) {
    const lgi_table_desc *t = lgi_opts_table(kind);
    if (!t || !opts || size != t->size) return LG_ERR_INVALID_ARG;
    memset(opts, 0, size);
    for (const lgi_field_desc *f = t->fields; f->name; f++) {
        if (f->def == 0 || lgi_field_is_vec((lgi_field_kind)f->kind) || f->kind == LGI_F_STRING) continue;
        uint8_t *p = (uint8_t *)opts + f->offset;
        double d = f->def;
        switch ((lgi_field_kind)f->kind) {
        case LGI_F_BOOL: { bool v = d != 0; memcpy(p, &v, 1); break; }
        case LGI_F_I8: { int8_t v = (int8_t)d; memcpy(p, &v, 1); break; }
        case LGI_F_U8: { uint8_t v = (uint8_t)d; memcpy(p, &v, 1); break; }
        case LGI_F_I16: { int16_t v = (int16_t)d; memcpy(p, &v, 2); break; }
        case LGI_F_U16: { uint16_t v = (uint16_t)d; memcpy(p, &v, 2); break; }
        case LGI_F_I32: { int32_t v = (int32_t)d; memcpy(p, &v, 4); break; }
        case LGI_F_U32: { uint32_t v = (uint32_t)d; memcpy(p, &v, 4); break; }
        case LGI_F_I64: { int64_t v = (int64_t)d; memcpy(p, &v, 8); break; }
        case LGI_F_U64: { uint64_t v = (uint64_t)d; memcpy(p, &v, 8); break; }
        case LGI_F_F32: { float v = (float)d; memcpy(p, &v, 4); break; }
        case LGI_F_F64: memcpy(p, &d, 8); break;
        default: break;
        }
    }
    return LG_OK;
}

uint32_t lgi_field_elem_size(lgi_field_kind k) {
    switch (k) {
    case LGI_F_BOOL: case LGI_F_I8: case LGI_F_U8:
    case LGI_F_VEC_BOOL: case LGI_F_VEC_I8: case LGI_F_VEC_U8: return 1;
    case LGI_F_I16: case LGI_F_U16: case LGI_F_VEC_I16: case LGI_F_VEC_U16: return 2;
    case LGI_F_I32: case LGI_F_U32: case LGI_F_F32:
    case LGI_F_VEC_I32: case LGI_F_VEC_U32: case LGI_F_VEC_F32: return 4;
    case LGI_F_I64: case LGI_F_U64: case LGI_F_F64:
    case LGI_F_VEC_I64: case LGI_F_VEC_U64: case LGI_F_VEC_F64: return 8;
    case LGI_F_STRING: return 4;
    }
    return 0;
}

int lgi_field_is_vec(lgi_field_kind k) { return k >= LGI_F_VEC_BOOL; }

double lgi_field_get_f64(const void *st, const lgi_field_desc *f) {
    const uint8_t *p = (const uint8_t *)st + f->offset;
    switch ((lgi_field_kind)f->kind) {
    case LGI_F_BOOL: return *(const bool *)p;
    case LGI_F_I8: return *(const int8_t *)p;
    case LGI_F_U8: return *(const uint8_t *)p;
    case LGI_F_I16: return *(const int16_t *)p;
    case LGI_F_U16: return *(const uint16_t *)p;
    case LGI_F_I32: return *(const int32_t *)p;
    case LGI_F_U32: return *(const uint32_t *)p;
    case LGI_F_I64: return (double)*(const int64_t *)p;
    case LGI_F_U64: return (double)*(const uint64_t *)p;
    case LGI_F_F32: return *(const float *)p;
    case LGI_F_F64: return *(const double *)p;
    default: return 0;
    }
}

const char *lgi_enum_value_name(const char *enum_name, int64_t v) {
    for (const lgi_enum_desc *e = lgi_enums; e->name; e++) {
        if (strcmp(e->name, enum_name) != 0) continue;
        for (const lgi_enum_entry *x = e->values; x->name; x++)
            if (x->value == v) return x->name;
        return NULL;
    }
    return NULL;
}

const char *lgi_field_enum_name(const char *table, const char *field) {
    for (const lgi_field_enum *f = lgi_field_enums; f->table; f++)
        if (strcmp(f->table, table) == 0 && strcmp(f->field, field) == 0) return f->enum_name;
    return NULL;
}

const char *lg_builtin_name(int32_t code) {
    if (code < 0 || code > LG_OP_MAX) return NULL;
    const char *n = lgi_builtin_names[code];
    return n[0] ? n : NULL;
}

int32_t lg_builtin_from_name(const char *name) {
    for (int32_t i = 0; i <= LG_OP_MAX; i++)
        if (lgi_builtin_names[i][0] && strcmp(lgi_builtin_names[i], name) == 0) return i;
    return -1;
}
