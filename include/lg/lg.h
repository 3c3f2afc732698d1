/*
 * litegpu: read, check, run and fix TFLite models for the mobile GPU.
 *
 * This is the public C API. The library is layered (see README "Architecture"):
 *
 *   io/tflite  ->  ir (lg_model: subgraphs, tensors, ops, buffers; one arena)  ->  verbs
 *
 * The IR is a set of plain C structs (below) that know nothing of flatbuffers. Builtin
 * options are parsed into plain structs generated from the schema (lg/options.h), one per
 * options table, so every option of every op travels through the IR unchanged.
 *
 * Example: read a model, print its op names, write it back.
 *
 *     lg_model *m = NULL;
 *     lg_error err;
 *     if (lg_tflite_read_file("in.tflite", NULL, &m, &err) != LG_OK) {
 *         fprintf(stderr, "%s\n", err.msg);         // names the file and what is wrong
 *         return 2;
 *     }
 *     const lg_subgraph *sg = &m->subgraphs[0];
 *     for (uint32_t i = 0; i < sg->n_ops; i++)
 *         printf("%u %s\n", i, lg_op_name(m, &sg->ops[i]));
 *     lg_status st = lg_tflite_write_file(m, "out.tflite", NULL, &err);
 *     lg_model_free(m);
 *
 * Conventions
 *  - Every fallible function returns lg_status; details go to an optional lg_error *.
 *    The library never prints, never exits, never aborts on bad input.
 *  - Everything reachable from an lg_model (names, shapes, options, constant data) is owned
 *    by that model and released by lg_model_free(). Constant data read from a file points
 *    into the mapped file (no copy) until it is replaced through lg_buffer_set_data().
 *  - Vector fields are (pointer, count) pairs. A NULL pointer means "absent in the file";
 *    a non-NULL pointer with count 0 means "present and empty" (the difference survives
 *    a read/write round trip).
 *  - Arrays inside the model (tensors, ops, buffers...) may move when the builder grows
 *    them: keep indices, not pointers, across builder calls.
 *  - fb_present fields record which scalar fields were explicitly stored in the source file
 *    (bit i = flatbuffer field id i), so that a rewrite stores exactly what the input stored.
 *    Code that builds or edits models can ignore them (leave 0).
 */
#ifndef LG_LG_H
#define LG_LG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lg/options.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LG_VERSION_STRING "0.1.0"
/* The library's version at run time ("0.1.0"). */
const char *lg_version(void);

/* ---------------------------------------------------------------- status and errors */

/* X(name, text): one list makes the enum and lg_status_str(). */
#define LG_STATUS_LIST(X)                                                  \
    X(LG_OK, "ok")                                                         \
    X(LG_ERR_IO, "i/o error")                                              \
    X(LG_ERR_FORMAT, "malformed model file")                               \
    X(LG_ERR_NOMEM, "out of memory")                                       \
    X(LG_ERR_LIMIT, "resource limit exceeded")                             \
    X(LG_ERR_UNSUPPORTED, "unsupported")                                   \
    X(LG_ERR_INVALID_ARG, "invalid argument")                              \
    X(LG_ERR_EXISTS, "output exists")                                      \
    X(LG_ERR_INTERNAL, "internal error")

typedef enum lg_status {
#define LG_X_(name, text) name,
    LG_STATUS_LIST(LG_X_)
#undef LG_X_
    LG_STATUS_COUNT
} lg_status;

const char *lg_status_str(lg_status st);

/* Error details. msg is one line that names the file (if any), the place (subgraph, op,
   tensor) and what is wrong, e.g.
   "model.tflite: subgraph 0 op 12 (CONV_2D): input 3 refers to tensor 99 of 40". */
typedef struct lg_error {
    lg_status status;
    int32_t subgraph; /* -1 if not about a subgraph */
    int32_t op;       /* -1 if not about an op */
    int32_t tensor;   /* -1 if not about a tensor */
    char msg[512];
} lg_error;

/* ---------------------------------------------------------------- memory hook */

/* One allocator hook, Lua-style: nsize == 0 frees; otherwise (re)allocates. Returns NULL on
   failure. The default is the C library's realloc/free. Memory must be aligned for any scalar
   type, as malloc's is. A model's hook also serves the interpreters made from it (run.h). */
typedef void *(*lg_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);

/* Progress of long work (calibration, sensitivity sweeps): called with what is being done
   ("calibrate", "sensitivity"...), the steps done and the total; the library never prints,
   the CLI draws it on stderr when stderr is a terminal. May be NULL. */
typedef void (*lg_progress_fn)(void *ud, const char *what, uint64_t done, uint64_t total);

/* ---------------------------------------------------------------- types */

/* Tensor element types; values are TFLite's TensorType. */
typedef enum lg_dtype {
    LG_FLOAT32 = 0, LG_FLOAT16 = 1, LG_INT32 = 2, LG_UINT8 = 3, LG_INT64 = 4,
    LG_STRING = 5, LG_BOOL = 6, LG_INT16 = 7, LG_COMPLEX64 = 8, LG_INT8 = 9,
    LG_FLOAT64 = 10, LG_COMPLEX128 = 11, LG_UINT64 = 12, LG_RESOURCE = 13,
    LG_VARIANT = 14, LG_UINT32 = 15, LG_UINT16 = 16, LG_INT4 = 17, LG_BFLOAT16 = 18,
    LG_INT2 = 19, LG_UINT4 = 20, LG_FLOAT8_E4M3FN = 21, LG_FLOAT8_E5M2 = 22,
    LG_DTYPE_COUNT
} lg_dtype;

/* Name as in the schema ("FLOAT32"), or "?" for values out of range. */
const char *lg_dtype_name(int dtype);
/* Storage bits per element (4 for INT4, 2 for INT2, 0 for STRING/RESOURCE/VARIANT/unknown). */
int lg_dtype_bits(int dtype);

/* The largest tensor rank litegpu computes with (shape inference, the interpreter). */
#define LG_MAX_RANK 8

/* Builtin operator codes 0..LG_OP_MAX, from the schema (lg/ops.def). */
typedef enum lg_op_code {
#define LG_OP(name, code) LG_OP_##name = code,
#include "lg/ops.def"
#undef LG_OP
    LG_OP_MAX_PLUS_1_
} lg_op_code;
#define LG_OP_MAX (LG_OP_MAX_PLUS_1_ - 1)

/* "CONV_2D"; NULL if code is not a builtin of the schema. */
const char *lg_builtin_name(int32_t code);
/* Code for a builtin name, or -1. */
int32_t lg_builtin_from_name(const char *name);

/* ---------------------------------------------------------------- IR */

typedef struct lg_quant {
    const float *min;      uint32_t n_min;
    const float *max;      uint32_t n_max;
    const float *scale;    uint32_t n_scale;
    const int64_t *zero_point; uint32_t n_zero_point;
    int32_t quantized_dimension;
    lg_opts_kind details_kind; /* LG_OPTS_NONE or LG_QDETAILS_* */
    void *details;             /* lg_custom_quantization, lg_blockwise_quantization, ... */
    uint64_t details_present;
    uint32_t fb_present;
} lg_quant;

/* One dimension of a sparse tensor. Index vectors are stored widened to int32;
   *_type records the schema's SparseIndexVector type (1 Int32, 2 Uint16, 3 Uint8; 0 absent). */
typedef struct lg_dim_meta {
    int8_t format;         /* LG_DIMENSION_TYPE_DENSE / _SPARSE_CSR */
    int32_t dense_size;
    uint8_t segments_type; const int32_t *segments; uint32_t n_segments;
    uint8_t indices_type;  const int32_t *indices;  uint32_t n_indices;
    uint32_t fb_present;
} lg_dim_meta;

typedef struct lg_sparsity {
    const int32_t *traversal_order; uint32_t n_traversal_order;
    const int32_t *block_map;       uint32_t n_block_map;
    lg_dim_meta *dim_metadata;      uint32_t n_dim_metadata;
} lg_sparsity;

typedef struct lg_variant_subtype {
    const int32_t *shape; uint32_t rank;
    int8_t type;
    bool has_rank;
    uint32_t fb_present;
} lg_variant_subtype;

typedef struct lg_tensor {
    const char *name;
    int8_t type;                 /* lg_dtype */
    const int32_t *shape;        uint32_t rank;
    const int32_t *shape_signature; uint32_t n_shape_signature; /* -1 = dynamic dim */
    uint32_t buffer;             /* index into lg_model.buffers; 0 = no constant data */
    lg_quant *quant;             /* NULL if absent */
    lg_sparsity *sparsity;       /* NULL if absent */
    bool is_variable;
    bool has_rank;
    lg_variant_subtype *variant_tensors; uint32_t n_variant_tensors;
    uint32_t external_buffer;
    uint32_t fb_present;
} lg_tensor;

typedef struct lg_opcode {
    int32_t builtin;             /* effective code: max(deprecated_builtin_code, builtin_code) */
    int8_t deprecated_builtin_code;
    int32_t builtin_code;        /* the raw field */
    const char *custom_code;     /* custom op name, or NULL */
    int32_t version;
    uint32_t fb_present;
} lg_opcode;

typedef struct lg_op {
    uint32_t opcode_index;       /* into lg_model.opcodes */
    const int32_t *inputs;  uint32_t n_inputs;   /* -1 = optional input not given */
    const int32_t *outputs; uint32_t n_outputs;
    const int32_t *intermediates; uint32_t n_intermediates;
    const uint8_t *mutating_variable_inputs; uint32_t n_mutating_variable_inputs;
    lg_opts_kind opts_kind;      /* which options struct opts points to */
    void *opts;                  /* e.g. (lg_conv2d_options *) for LG_OPTS_CONV2D_OPTIONS */
    uint64_t opts_present;       /* fields present in the file (bit = field id) */
    const uint8_t *custom_options; uint32_t n_custom_options; /* verbatim bytes */
    int8_t custom_options_format;
    bool custom_options_large;   /* stored after the flatbuffer (schema 3d) in the source */
    int32_t debug_metadata_index;
    uint32_t fb_present;
} lg_op;

typedef struct lg_subgraph {
    const char *name;
    lg_tensor *tensors; uint32_t n_tensors;
    lg_op *ops;         uint32_t n_ops;
    const int32_t *inputs;  uint32_t n_inputs;
    const int32_t *outputs; uint32_t n_outputs;
    int32_t debug_metadata_index;
    uint32_t fb_present;
    uint32_t cap_tensors_, cap_ops_; /* private: builder capacity */
} lg_subgraph;

typedef struct lg_buffer {
    const uint8_t *data; uint64_t size; /* NULL = no data vector in the file */
    bool external;       /* the source stored the bytes after the flatbuffer (offset/size) */
    uint32_t fb_present;
} lg_buffer;

typedef struct lg_metadata {
    const char *name;
    uint32_t buffer;
    uint32_t fb_present;
} lg_metadata;

typedef struct lg_tensor_map {
    const char *name;
    uint32_t tensor_index;
    uint32_t fb_present;
} lg_tensor_map;

typedef struct lg_signature {
    const char *key;
    uint32_t subgraph_index;
    lg_tensor_map *inputs;  uint32_t n_inputs;
    lg_tensor_map *outputs; uint32_t n_outputs;
    uint32_t fb_present;
} lg_signature;

typedef struct lg_external_buffer_group {
    const char *name;
} lg_external_buffer_group;

typedef struct lg_external_buffer {
    uint32_t id, group;
    uint64_t offset, length;
    const char *packing;
    uint32_t fb_present;
} lg_external_buffer;

typedef struct lgi_model_priv lgi_model_priv;

typedef struct lg_model {
    uint32_t version;            /* schema version, 3 for current files */
    const char *description;
    lg_opcode *opcodes;          uint32_t n_opcodes;
    lg_subgraph *subgraphs;      uint32_t n_subgraphs;
    lg_buffer *buffers;          uint32_t n_buffers;
    const int32_t *metadata_buffer; uint32_t n_metadata_buffer;
    lg_metadata *metadata;       uint32_t n_metadata;
    lg_signature *signatures;    uint32_t n_signatures;
    lg_external_buffer_group *external_buffer_groups; uint32_t n_external_buffer_groups;
    lg_external_buffer *external_buffers; uint32_t n_external_buffers;
    uint32_t fb_present;
    lgi_model_priv *priv;        /* arena, file mapping, allocator: private */
} lg_model;

/* Release a model and everything it owns (NULL is fine). */
void lg_model_free(lg_model *m);

/* Convenience look-ups (no allocation). */
int32_t lg_op_builtin(const lg_model *m, const lg_op *op);   /* -1 if opcode_index is bad */
/* The builtin name, or the custom code for CUSTOM ops; "?" if unknown. */
const char *lg_op_name(const lg_model *m, const lg_op *op);
/* Number of elements (product of shape; 1 for rank 0). Returns -1 on a negative dim or
   overflow past INT64_MAX. */
int64_t lg_tensor_numel(const lg_tensor *t);
/* The same quantization on both tensors: the same scales and zero points (absent zero points
   count as 0; none at all = not quantized), and the same axis when per-channel. */
bool lg_tensor_same_quant(const lg_tensor *a, const lg_tensor *b);
/* Constant data of tensor t, or NULL if it has none (buffer 0 or an empty buffer). */
const lg_buffer *lg_tensor_buffer(const lg_model *m, const lg_tensor *t);
/* Options name ("Conv2DOptions") for an options kind, or NULL. */
const char *lg_opts_name(lg_opts_kind kind);
/* Fill an options struct with the schema's defaults (e.g. dilation factors 1), which a
   zeroed struct does not have. size must be sizeof the struct for kind. */
lg_status lg_opts_init(lg_opts_kind kind, void *opts, size_t size);

/* ---------------------------------------------------------------- files

   The rules every litegpu reader and writer applies to paths (the library's and the CLI's
   verbs alike; util/file.c):
   - An input is a regular file (or a symbolic link to one). A directory, a device
     (/dev/zero, /dev/urandom), a FIFO or a socket is refused at once, before a byte is read
     (opening never waits on a FIFO), so a read never runs unbounded.
   - An output path either does not exist, or is a regular file, which is replaced only with
     force. Anything else is refused even with force: a character or block device (/dev/null),
     a FIFO, a socket, a directory, and a symbolic link. litegpu neither replaces a link (that
     would break it) nor writes through it: give the path the link points to.
   - Files are written to a temporary file next to the target and renamed into place, so a
     failed write leaves no partial file; their mode is 0666 & ~umask (0644 under umask 022). */

/* What a stat() mode is, for messages: "a directory", "a character device", "a FIFO"... */
const char *lg_file_kind(unsigned mode);

/* Whether path may be written as an output under the rules above: LG_OK (absent, or a
   regular file with force), LG_ERR_EXISTS (a regular file, no force), LG_ERR_INVALID_ARG
   (a link, device, FIFO, socket or directory), LG_ERR_IO (cannot stat). The final path
   component is not followed. */
lg_status lg_output_check(const char *path, bool force, lg_error *err);

/* Open an input file for reading under the rules above: *fd (O_CLOEXEC, blocking) and its
   *size on LG_OK; LG_ERR_IO naming the path and what it is otherwise. */
lg_status lg_input_open(const char *path, int *fd, uint64_t *size, lg_error *err);

/* ---------------------------------------------------------------- reading */

typedef struct lg_read_options {
    lg_alloc_fn alloc; void *alloc_ud; /* NULL = realloc/free */
    /* Cap on IR memory the reader may allocate, in bytes; 0 = default
       (64 MiB + 16 x file size). A file that needs more fails with LG_ERR_LIMIT. */
    uint64_t max_ir_bytes;
    /* Name used in error messages for lg_tflite_read_mem (default "model"). */
    const char *name;
} lg_read_options;

/* Read a .tflite file. The file is memory-mapped; constant data points into the mapping,
   which lives as long as the model. It must be a regular file ("files" above: a device or
   FIFO is refused at once). On failure *out is NULL and err says what and where.
   Returns LG_OK, LG_ERR_IO, LG_ERR_FORMAT, LG_ERR_NOMEM or LG_ERR_LIMIT. */
lg_status lg_tflite_read_file(const char *path, const lg_read_options *opt, lg_model **out,
                              lg_error *err);

/* Read from memory. buf must stay valid and unchanged for the model's lifetime. */
lg_status lg_tflite_read_mem(const void *buf, size_t size, const lg_read_options *opt,
                             lg_model **out, lg_error *err);

/* ---------------------------------------------------------------- writing */

typedef struct lg_write_options {
    /* Store constant data after the flatbuffer (schema 3d offset/size) instead of inline.
       Chosen automatically when inline data would pass the 2 GiB flatbuffer limit. */
    bool external_buffers;
    /* Replace an existing output file (otherwise LG_ERR_EXISTS). */
    bool force;
    /* Write even a model the op table refuses (an options kind the op does not take, an
       arity outside the op's, a stored shape that contradicts inference): only for test
       fixtures that must hold such a model. Every litegpu reader refuses the file, as TFLite
       does at prepare. Structural validation (indices, sizes) always runs. */
    bool unchecked_ops;
} lg_write_options;

/* Serialize to a malloc'ed buffer (identifier "TFL3", buffers 16-byte aligned).
   The caller frees *out with free(). Identical models give identical bytes. */
lg_status lg_tflite_write_mem(const lg_model *m, const lg_write_options *opt, void **out,
                              size_t *size, lg_error *err);

/* Write atomically: a temporary file in the same directory, fsync, then rename (mode
   0666 & ~umask). The output rules of "files" above apply: an existing regular file is
   replaced only with opt->force (otherwise LG_ERR_EXISTS); a symbolic link, device, FIFO,
   socket or directory is refused even with force (LG_ERR_INVALID_ARG), and so is the file
   the model was read from. */
lg_status lg_tflite_write_file(const lg_model *m, const char *path, const lg_write_options *opt,
                               lg_error *err);

/* ---------------------------------------------------------------- building and editing */

/* A new empty model: version 3, buffer 0 (the empty sentinel), one subgraph "main". */
lg_status lg_model_new(lg_alloc_fn alloc, void *alloc_ud, lg_model **out, lg_error *err);

/* Each adder appends and returns the new index through *out_index. */
lg_status lg_model_add_subgraph(lg_model *m, const char *name, uint32_t *out_index, lg_error *err);
/* Copies data (size bytes). data == NULL with size 0 adds a buffer with no data vector. */
lg_status lg_model_add_buffer(lg_model *m, const void *data, uint64_t size, uint32_t *out_index,
                              lg_error *err);
/* Replace a buffer's bytes (copied; the mapped file is never touched). */
lg_status lg_buffer_set_data(lg_model *m, uint32_t buffer, const void *data, uint64_t size,
                             lg_error *err);
/* Find or append the opcode (builtin, custom_code, version). */
lg_status lg_model_opcode(lg_model *m, int32_t builtin, const char *custom_code, int32_t version,
                          uint32_t *out_index, lg_error *err);
/* A runtime tensor (buffer 0). shape may be NULL when rank is 0. */
lg_status lg_subgraph_add_tensor(lg_model *m, uint32_t sg, const char *name, lg_dtype type,
                                 const int32_t *shape, uint32_t rank, int32_t *out_index,
                                 lg_error *err);
/* A constant tensor: adds a buffer holding a copy of data (nbytes must match the shape). */
lg_status lg_subgraph_add_const(lg_model *m, uint32_t sg, const char *name, lg_dtype type,
                                const int32_t *shape, uint32_t rank, const void *data,
                                uint64_t nbytes, int32_t *out_index, lg_error *err);
/* Append an op. builtin is an lg_op_code; for LG_OP_CUSTOM pass custom_code.
   opts (may be NULL) points to the options struct for opts_kind and is deep-copied.
   Tensor indices are checked against the subgraph. */
lg_status lg_subgraph_add_op(lg_model *m, uint32_t sg, int32_t builtin, const char *custom_code,
                             int32_t version, const int32_t *inputs, uint32_t n_inputs,
                             const int32_t *outputs, uint32_t n_outputs, lg_opts_kind opts_kind,
                             const void *opts, int32_t *out_index, lg_error *err);
lg_status lg_op_set_custom_options(lg_model *m, uint32_t sg, uint32_t op, const void *data,
                                   uint32_t size, lg_error *err);
lg_status lg_subgraph_set_io(lg_model *m, uint32_t sg, const int32_t *inputs, uint32_t n_inputs,
                             const int32_t *outputs, uint32_t n_outputs, lg_error *err);
lg_status lg_tensor_set_shape_signature(lg_model *m, uint32_t sg, uint32_t tensor,
                                        const int32_t *sig, uint32_t n, lg_error *err);
/* Per-tensor (n == 1) or per-channel quantization. zero_point may be NULL (all 0). */
lg_status lg_tensor_set_quant(lg_model *m, uint32_t sg, uint32_t tensor, const float *scale,
                              const int64_t *zero_point, uint32_t n, int32_t quantized_dimension,
                              lg_error *err);
lg_status lg_model_set_description(lg_model *m, const char *description, lg_error *err);
lg_status lg_model_add_metadata(lg_model *m, const char *name, const void *data, uint64_t size,
                                lg_error *err);
lg_status lg_model_add_signature(lg_model *m, const char *key, uint32_t sg,
                                 const char *const *input_names, const uint32_t *input_tensors,
                                 uint32_t n_inputs, const char *const *output_names,
                                 const uint32_t *output_tensors, uint32_t n_outputs, lg_error *err);

/* A deep copy of m (written to memory and read back, so it is verified like a file); the
   copy owns its bytes and is independent of m. Free it with lg_model_free. */
lg_status lg_model_clone(const lg_model *m, lg_model **out, lg_error *err);

/* Structural validation of a model in memory (indices in range, shapes sane, every op's
   opcode exists, subgraph references valid). The reader runs it on every file; writers and
   passes run it before writing. */
lg_status lg_model_validate(const lg_model *m, lg_error *err);

/* ---------------------------------------------------------------- sticky builder */

/* Convenience for tests and passes: remembers the first error; later calls do nothing and
   return -1. Check b.status (or lg_builder_status) once at the end.

     lg_builder b; lg_builder_init(&b, m, 0);
     int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 3));
     int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 3));
     lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(y));
     lg_b_io(&b, LG_IDS(x), LG_IDS(y));
     if (b.status != LG_OK) ... b.err.msg ...
*/
typedef struct lg_builder {
    lg_model *m;
    uint32_t sg;
    lg_status status;
    lg_error err;
} lg_builder;

typedef struct lg_dims { const int32_t *v; uint32_t n; } lg_dims;
#define LG_DIMS(...) ((lg_dims){(const int32_t[]){__VA_ARGS__}, \
        (uint32_t)(sizeof((const int32_t[]){__VA_ARGS__}) / sizeof(int32_t))})
#define LG_SCALAR ((lg_dims){NULL, 0})
#define LG_IDS(...) LG_DIMS(__VA_ARGS__)
#define LG_NO_IDS ((lg_dims){NULL, 0})

void lg_builder_init(lg_builder *b, lg_model *m, uint32_t sg);
int32_t lg_b_tensor(lg_builder *b, const char *name, lg_dtype type, lg_dims shape);
int32_t lg_b_const(lg_builder *b, const char *name, lg_dtype type, lg_dims shape,
                   const void *data, uint64_t nbytes);
/* Float32 constant; data holds numel floats. */
int32_t lg_b_const_f32(lg_builder *b, const char *name, lg_dims shape, const float *data);
/* Int32 constant; data holds numel ints. */
int32_t lg_b_const_i32(lg_builder *b, const char *name, lg_dims shape, const int32_t *data);
int32_t lg_b_op(lg_builder *b, int32_t builtin, lg_dims inputs, lg_dims outputs);
int32_t lg_b_op_opts(lg_builder *b, int32_t builtin, lg_dims inputs, lg_dims outputs,
                     lg_opts_kind kind, const void *opts);
int32_t lg_b_op_v(lg_builder *b, int32_t builtin, int32_t version, lg_dims inputs,
                  lg_dims outputs, lg_opts_kind kind, const void *opts);
int32_t lg_b_custom(lg_builder *b, const char *custom_code, lg_dims inputs, lg_dims outputs,
                    const void *custom_options, uint32_t size);
void lg_b_io(lg_builder *b, lg_dims inputs, lg_dims outputs);

#ifdef __cplusplus
}
#endif
#endif
