/* Descriptors generated from the TFLite schema (schema_gen.c, by tools/gen/gen_schema.py).
   Internal to the library. */
#ifndef LGI_SCHEMA_GEN_H
#define LGI_SCHEMA_GEN_H
#include <stdint.h>
#include "lg/lg.h"

#define LGI_BUILTIN_COUNT (LG_OP_MAX + 1)

/* Field kinds of options tables. Scalars and vectors of scalars; strings. */
typedef enum lgi_field_kind {
    LGI_F_BOOL, LGI_F_I8, LGI_F_U8, LGI_F_I16, LGI_F_U16, LGI_F_I32, LGI_F_U32,
    LGI_F_I64, LGI_F_U64, LGI_F_F32, LGI_F_F64, LGI_F_STRING,
    LGI_F_VEC_BOOL, LGI_F_VEC_I8, LGI_F_VEC_U8, LGI_F_VEC_I16, LGI_F_VEC_U16, LGI_F_VEC_I32,
    LGI_F_VEC_U32, LGI_F_VEC_I64, LGI_F_VEC_U64, LGI_F_VEC_F32, LGI_F_VEC_F64
} lgi_field_kind;

typedef struct lgi_field_desc {
    const char *name;   /* NULL terminates a field list */
    uint16_t id;        /* flatbuffer field id (vtable slot) */
    uint8_t kind;       /* lgi_field_kind */
    uint16_t offset;    /* offsetof in the generated struct */
    double def;         /* schema default of a scalar */
} lgi_field_desc;

typedef struct lgi_table_desc {
    const char *name;   /* schema table name, e.g. "Conv2DOptions" */
    uint32_t size;      /* sizeof the generated struct */
    const lgi_field_desc *fields;
} lgi_table_desc;

typedef struct lgi_enum_entry { int64_t value; const char *name; } lgi_enum_entry;
typedef struct lgi_enum_desc { const char *name; const lgi_enum_entry *values; } lgi_enum_desc;
typedef struct lgi_field_enum { const char *table, *field, *enum_name; } lgi_field_enum;

extern const char *const lgi_builtin_names[LGI_BUILTIN_COUNT];
/* [0] unused, then BuiltinOptions types 1..count1, BuiltinOptions2 types 1..count2,
   QuantizationDetails types 1..qdetails_count. Use lgi_opts_table(). */
extern const lgi_table_desc lgi_opts_tables[];
extern const int lgi_opts_count1, lgi_opts_count2, lgi_qdetails_count;
extern const lgi_enum_desc lgi_enums[];
extern const lgi_field_enum lgi_field_enums[];

/* Descriptor of an options kind, or NULL if the kind is not one of the schema's. */
const lgi_table_desc *lgi_opts_table(lg_opts_kind kind);
/* Element size in bytes of a field kind (for vectors, of one element). */
uint32_t lgi_field_elem_size(lgi_field_kind k);
int lgi_field_is_vec(lgi_field_kind k);
/* Scalar value of a field read from a struct, widened to double / int64. */
double lgi_field_get_f64(const void *st, const lgi_field_desc *f);
/* Name of an enum value by the enum's schema name, or NULL. */
const char *lgi_enum_value_name(const char *enum_name, int64_t v);
/* The enum a field of an options table uses (schema name), or NULL. */
const char *lgi_field_enum_name(const char *table, const char *field);

#endif
