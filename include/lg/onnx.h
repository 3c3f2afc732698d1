/*
 * litegpu ONNX reader: a verifying reader of .onnx files (protobuf wire format) into plain C
 * structs. Step 1 of the ONNX importer; nothing here converts to TFLite yet.
 *
 *     lg_onnx_model *m = NULL;
 *     lg_error err;
 *     if (lg_onnx_read_file("model.onnx", NULL, &m, &err) != LG_OK) {
 *         fprintf(stderr, "%s\n", err.msg);   // one line: file, message path, what is wrong
 *         return 2;
 *     }
 *     const lg_onnx_graph *g = m->graph;
 *     for (uint32_t i = 0; i < g->n_nodes; i++)
 *         printf("%.*s\n", LG_ONNX_STR(g->nodes[i].op_type));
 *     lg_onnx_model_free(m);
 *
 * Design (the reader is src/io/onnx/; its top comment has the details)
 *  - Our own wire-format reader, not protobuf-c: protobuf-c copies every raw_data initializer
 *    into malloc'ed memory (twice the file in RSS on big models) and allocates in proportion
 *    to what the file declares. Ours verifies as it reads (every varint <= 10 bytes without
 *    overflow, every length and nested message inside its parent, groups refused, nesting
 *    capped), references raw_data in the mapped file, and allocates its IR from one arena
 *    with a cap (64 MiB + 16 x the file size by default): a hostile file fails with
 *    LG_ERR_LIMIT or LG_ERR_FORMAT, never exhausts memory.
 *  - Strings are (pointer, length) into the file, never NUL-terminated copies. Names (values,
 *    nodes, op types, domains, attributes, graphs, dim params, metadata keys) are checked to
 *    be valid UTF-8 without NUL bytes. Byte fields (attribute s/strings, string_data) are
 *    taken as they are.
 *  - ONNX IR versions 3 to 10 are accepted (onnx 1.1 .. 1.16; 10 adds UINT4/INT4), others
 *    are LG_ERR_UNSUPPORTED. Opsets are recorded as stored; the importer checks them.
 *  - Reading ends with lg_onnx_validate: tensor data sizes match dims x element size, every
 *    node input names a graph input, an initializer or an earlier node output (or an outer
 *    graph's value, in subgraphs; the empty name is an absent optional input), no value is
 *    produced twice in one graph, graph inputs/outputs have names and outputs are produced.
 *  - External data (data_location EXTERNAL): `location` is resolved relative to the model's
 *    folder and refused when absolute, when it has a ".." component, or when its realpath
 *    leaves the folder (a symlink out); it must be a regular file and offset + length must
 *    lie inside it. The file is mapped once, never copied, and stays mapped for the model's
 *    life. The checksum key is recorded, not verified.
 *
 * Every fallible function returns lg_status with an optional lg_error (lg/lg.h); the reader
 * never prints, exits or aborts. Everything reachable from an lg_onnx_model is owned by it.
 */
#ifndef LG_ONNX_H
#define LG_ONNX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lg/lg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A string or byte field: n bytes at s (not NUL-terminated). s == NULL: absent. */
typedef struct lg_onnx_str {
    const char *s;
    uint32_t n;
} lg_onnx_str;
/* printf("%.*s", LG_ONNX_STR(x)) */
#define LG_ONNX_STR(x) (int)(x).n, (x).s ? (x).s : ""
/* 1 if x holds exactly the C string c */
int lg_onnx_str_eq(lg_onnx_str x, const char *c);

/* TensorProto.DataType (onnx.proto) */
typedef enum lg_onnx_dtype {
    LG_ONNX_UNDEFINED = 0, LG_ONNX_FLOAT = 1, LG_ONNX_UINT8 = 2, LG_ONNX_INT8 = 3,
    LG_ONNX_UINT16 = 4, LG_ONNX_INT16 = 5, LG_ONNX_INT32 = 6, LG_ONNX_INT64 = 7,
    LG_ONNX_STRING = 8, LG_ONNX_BOOL = 9, LG_ONNX_FLOAT16 = 10, LG_ONNX_DOUBLE = 11,
    LG_ONNX_UINT32 = 12, LG_ONNX_UINT64 = 13, LG_ONNX_COMPLEX64 = 14, LG_ONNX_COMPLEX128 = 15,
    LG_ONNX_BFLOAT16 = 16, LG_ONNX_FLOAT8E4M3FN = 17, LG_ONNX_FLOAT8E4M3FNUZ = 18,
    LG_ONNX_FLOAT8E5M2 = 19, LG_ONNX_FLOAT8E5M2FNUZ = 20, LG_ONNX_UINT4 = 21, LG_ONNX_INT4 = 22,
    LG_ONNX_DTYPE_COUNT
} lg_onnx_dtype;

/* "FLOAT", "INT64"...; "?" when out of range. */
const char *lg_onnx_dtype_name(int dtype);
/* Storage bits per element (4 for UINT4/INT4, 0 for STRING/UNDEFINED/unknown). */
int lg_onnx_dtype_bits(int dtype);

typedef struct lg_onnx_kv {
    lg_onnx_str key, value;
} lg_onnx_kv;

/* Where a tensor's data came from. */
typedef enum lg_onnx_data_src {
    LG_ONNX_DATA_NONE = 0,     /* no data field (only valid for 0 elements) */
    LG_ONNX_DATA_RAW = 1,      /* raw_data, pointing into the model file */
    LG_ONNX_DATA_TYPED = 2,    /* float_data/int32_data/int64_data/double_data/uint64_data,
                                  decoded into the arena */
    LG_ONNX_DATA_STRINGS = 3,  /* string_data (STRING tensors) */
    LG_ONNX_DATA_EXTERNAL = 4  /* external file, mapped */
} lg_onnx_data_src;

typedef struct lg_onnx_tensor {
    lg_onnx_str name;
    int32_t data_type;               /* lg_onnx_dtype */
    const int64_t *dims; uint32_t n_dims;
    uint64_t count;                  /* product of dims (1 for a scalar) */
    lg_onnx_data_src src;
    /* the data in raw_data layout: little-endian elements, 4-bit types two per byte (low
       nibble first), complex as (re, im). May be unaligned: use memcpy. NULL with nbytes 0
       when empty. For STRING tensors data is NULL and strings holds count entries. */
    const void *data; uint64_t nbytes;
    const lg_onnx_str *strings; uint32_t n_strings;
    int data_location;               /* 0 DEFAULT, 1 EXTERNAL */
    const lg_onnx_kv *external_data; uint32_t n_external_data;
    /* EXTERNAL: the parsed keys (location, offset, length, checksum) */
    lg_onnx_str ext_location, ext_checksum;
    uint64_t ext_offset, ext_length;
} lg_onnx_tensor;

/* TypeProto kinds */
typedef enum lg_onnx_type_kind {
    LG_ONNX_TYPE_NONE = 0,        /* no type given */
    LG_ONNX_TYPE_TENSOR = 1,
    LG_ONNX_TYPE_SEQUENCE = 2,    /* recorded, not read further: unsupported by the importer */
    LG_ONNX_TYPE_MAP = 3,
    LG_ONNX_TYPE_OPTIONAL = 4,
    LG_ONNX_TYPE_SPARSE_TENSOR = 5,
    LG_ONNX_TYPE_OTHER = 6        /* a value kind this reader does not know */
} lg_onnx_type_kind;

typedef struct lg_onnx_dim {
    int kind;                     /* 0 unknown, 1 dim_value, 2 dim_param */
    int64_t value;
    lg_onnx_str param;
} lg_onnx_dim;

typedef struct lg_onnx_type {
    lg_onnx_type_kind kind;
    int32_t elem_type;            /* TENSOR / SPARSE_TENSOR */
    bool has_shape;               /* false: rank unknown */
    const lg_onnx_dim *dims; uint32_t n_dims;
} lg_onnx_type;

typedef struct lg_onnx_value_info {
    lg_onnx_str name;
    lg_onnx_type type;
} lg_onnx_value_info;

/* AttributeProto.AttributeType */
typedef enum lg_onnx_attr_type {
    LG_ONNX_ATTR_UNDEFINED = 0, LG_ONNX_ATTR_FLOAT = 1, LG_ONNX_ATTR_INT = 2,
    LG_ONNX_ATTR_STRING = 3, LG_ONNX_ATTR_TENSOR = 4, LG_ONNX_ATTR_GRAPH = 5,
    LG_ONNX_ATTR_FLOATS = 6, LG_ONNX_ATTR_INTS = 7, LG_ONNX_ATTR_STRINGS = 8,
    LG_ONNX_ATTR_TENSORS = 9, LG_ONNX_ATTR_GRAPHS = 10, LG_ONNX_ATTR_SPARSE_TENSOR = 11,
    LG_ONNX_ATTR_SPARSE_TENSORS = 12, LG_ONNX_ATTR_TYPE_PROTO = 13, LG_ONNX_ATTR_TYPE_PROTOS = 14
} lg_onnx_attr_type;

typedef struct lg_onnx_graph lg_onnx_graph;

typedef struct lg_onnx_attr {
    lg_onnx_str name, ref_attr_name;
    int32_t type;                 /* lg_onnx_attr_type */
    float f;
    int64_t i;
    lg_onnx_str s;
    const lg_onnx_tensor *t;      /* NULL if absent */
    const lg_onnx_graph *g;       /* NULL if absent */
    const float *floats; uint32_t n_floats;
    const int64_t *ints; uint32_t n_ints;
    const lg_onnx_str *strings; uint32_t n_strings;
    const lg_onnx_tensor *tensors; uint32_t n_tensors;
    const lg_onnx_graph *graphs; uint32_t n_graphs;
} lg_onnx_attr;

typedef struct lg_onnx_node {
    lg_onnx_str name, op_type, domain;
    const lg_onnx_str *inputs; uint32_t n_inputs;   /* an empty name: absent optional input */
    const lg_onnx_str *outputs; uint32_t n_outputs;
    const lg_onnx_attr *attrs; uint32_t n_attrs;
} lg_onnx_node;

struct lg_onnx_graph {
    lg_onnx_str name;
    const lg_onnx_node *nodes; uint32_t n_nodes;
    const lg_onnx_tensor *initializers; uint32_t n_initializers;
    const lg_onnx_value_info *inputs; uint32_t n_inputs;
    const lg_onnx_value_info *outputs; uint32_t n_outputs;
    const lg_onnx_value_info *value_info; uint32_t n_value_info;
};

typedef struct lg_onnx_opset {
    lg_onnx_str domain;           /* "" or absent: the default domain ai.onnx */
    int64_t version;
} lg_onnx_opset;

typedef struct lg_onnx_priv lg_onnx_priv;

typedef struct lg_onnx_model {
    int64_t ir_version;
    const lg_onnx_opset *opsets; uint32_t n_opsets;
    lg_onnx_str producer_name, producer_version, domain, doc_string;
    int64_t model_version;
    const lg_onnx_graph *graph;   /* NULL only for lg_onnx_read_tensor_mem */
    const lg_onnx_kv *metadata; uint32_t n_metadata;
    uint32_t n_functions;         /* model-local functions (counted, not read) */
    uint32_t n_training_info;     /* training info (counted, not read) */
    const lg_onnx_tensor *tensor; /* lg_onnx_read_tensor_mem: the tensor read */
    lg_onnx_priv *priv;
} lg_onnx_model;

typedef struct lg_onnx_read_options {
    lg_alloc_fn alloc; void *alloc_ud; /* NULL = realloc/free */
    /* Cap on IR memory, bytes; 0 = 64 MiB + 16 x file size. Passing it is LG_ERR_LIMIT. */
    uint64_t max_ir_bytes;
    /* Name used in messages for the _mem readers (default "model"). */
    const char *name;
    /* Folder external data is resolved in. lg_onnx_read_file: default the model file's
       folder. lg_onnx_read_mem: NULL refuses every external tensor (LG_ERR_UNSUPPORTED). */
    const char *base_dir;
    /* Refuse external data even for files (LG_ERR_UNSUPPORTED). */
    bool no_external;
    /* Message nesting cap (0 = 64); If/Loop/Scan bodies nest 4 levels per graph. */
    uint32_t max_depth;
} lg_onnx_read_options;

/* Read a .onnx file (memory-mapped; raw_data points into the mapping, which lives as long
   as the model). Returns LG_OK, LG_ERR_IO, LG_ERR_FORMAT, LG_ERR_UNSUPPORTED, LG_ERR_NOMEM or
   LG_ERR_LIMIT; on failure *out is NULL and err names the file, the message path (e.g.
   `graph.node[12].attribute[3] "kernel_shape"`) and what is wrong. */
lg_status lg_onnx_read_file(const char *path, const lg_onnx_read_options *opt, lg_onnx_model **out,
                            lg_error *err);
/* Read from memory; buf must stay valid and unchanged for the model's lifetime. */
lg_status lg_onnx_read_mem(const void *buf, size_t size, const lg_onnx_read_options *opt,
                           lg_onnx_model **out, lg_error *err);
/* Read one serialized TensorProto (e.g. test_data_set_0/input_0.pb): (*out)->tensor. */
lg_status lg_onnx_read_tensor_mem(const void *buf, size_t size, const lg_onnx_read_options *opt,
                                  lg_onnx_model **out, lg_error *err);
void lg_onnx_model_free(lg_onnx_model *m);

/* The checks listed above (run by the readers; callable again after building a model by
   hand). LG_ERR_FORMAT with the graph path and the name on failure. */
lg_status lg_onnx_validate(const lg_onnx_model *m, lg_error *err);

/* A tensor's data: pointer (raw_data layout, see lg_onnx_tensor), byte size, element type,
   element count. STRING tensors: data NULL, strings/n_strings set. */
typedef struct lg_onnx_data {
    const void *data;
    uint64_t nbytes;
    int32_t dtype;
    uint64_t count;
    const lg_onnx_str *strings; uint32_t n_strings;
} lg_onnx_data;
lg_status lg_onnx_tensor_data(const lg_onnx_tensor *t, lg_onnx_data *out, lg_error *err);

#ifdef __cplusplus
}
#endif
#endif
