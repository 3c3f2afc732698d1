/*
 * litegpu info: a summary of a model (the data behind `litegpu info`).
 *
 * lg_info_compute() builds a plain result struct; the CLI prints it as text or JSON.
 * The result owns copies of every string it holds, so it stays valid after the model and
 * the file bytes are released.
 *
 *     lg_info *info = NULL;
 *     if (lg_info_compute(m, bytes, size, &info, &err) == LG_OK) {
 *         printf("%s, %u subgraphs\n", info->sha256_hex, info->n_subgraphs);
 *         for (uint32_t i = 0; i < info->subgraphs[0].n_ops_census; i++)
 *             printf("%s %u\n", info->subgraphs[0].ops[i].name, info->subgraphs[0].ops[i].count);
 *         lg_info_free(info);
 *     }
 */
#ifndef LG_INFO_H
#define LG_INFO_H

#include "lg/lg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One line of a census: a name and how many times it occurs. */
typedef struct lg_info_count {
    const char *name;       /* builtin name ("CONV_2D") or custom op code */
    int32_t builtin;        /* builtin code; LG_OP_CUSTOM for custom ops; -1 if unknown */
    uint32_t count;
} lg_info_count;

/* A subgraph input or output. */
typedef struct lg_info_io {
    uint32_t index;                 /* position in the subgraph's inputs/outputs */
    int32_t tensor;                 /* tensor index; -1 if out of range */
    const char *name;               /* "" if the tensor has no name */
    int8_t dtype;                   /* lg_dtype */
    const int32_t *shape;           uint32_t rank;
    const int32_t *shape_signature; uint32_t n_shape_signature; /* NULL if absent */
    uint32_t n_dynamic;             /* dims that are -1 in shape_signature (or in shape) */
} lg_info_io;

typedef struct lg_info_subgraph {
    uint32_t index;
    const char *name;               /* "" if absent */
    uint32_t n_ops, n_tensors, max_rank;
    lg_info_io *inputs;             uint32_t n_inputs;
    lg_info_io *outputs;            uint32_t n_outputs;
    /* ops by operator (custom ops counted together under "CUSTOM"), sorted by count
       descending, then name ascending; their counts add up to n_ops. */
    lg_info_count *ops;             uint32_t n_ops_census;
    /* custom ops by custom code, same order. */
    lg_info_count *custom_ops;      uint32_t n_custom_ops;
} lg_info_subgraph;

/* Constant data of one element type. */
typedef struct lg_info_dtype_bytes {
    int8_t dtype;                   /* lg_dtype */
    uint64_t bytes;                 /* bytes stored in the buffers */
    uint64_t params;                /* elements of the tensors' (dense) shapes */
    uint32_t n_buffers;
    /* Of those, the sparse constants (a tensor with sparsity parameters): their stored bytes
       are the non-zero values plus nothing else (the index vectors live in the flatbuffer's
       sparsity table), so bytes / element size < params: params counts their dense shape. */
    uint32_t n_sparse_buffers;
    uint64_t sparse_bytes;          /* bytes stored for them */
    uint64_t sparse_params;         /* elements of their dense shapes */
} lg_info_dtype_bytes;

/* Weights: constant data, i.e. buffers that hold bytes and that a tensor refers to.
   Each buffer is counted once, even when several tensors share it; it is classified by
   the first tensor (in subgraph order, then tensor order) that refers to it. */
typedef struct lg_info_weights {
    uint64_t params;                /* sum of numel over the counted tensors */
    uint64_t bytes;                 /* sum of their buffer sizes */
    uint32_t n_buffers;
    lg_info_dtype_bytes *by_dtype;  uint32_t n_by_dtype; /* ascending dtype code */
} lg_info_weights;

typedef struct lg_info_signature {
    const char *key;                /* "" if absent */
    uint32_t subgraph;
    const char **inputs;            uint32_t n_inputs;   /* signature names ("" if absent) */
    const char **outputs;           uint32_t n_outputs;
} lg_info_signature;

typedef struct lg_info_metadata {
    const char *name;               /* "" if absent */
    uint32_t buffer;
    uint64_t bytes;                 /* size of its buffer; 0 if the buffer is missing */
} lg_info_metadata;

typedef struct lg_info {
    uint64_t file_size;
    bool has_sha256;                /* false when no file bytes were given */
    uint8_t sha256[32];
    char sha256_hex[65];            /* "" when !has_sha256 */
    uint32_t schema_version;
    const char *description;        /* NULL if absent */
    lg_info_subgraph *subgraphs;    uint32_t n_subgraphs;
    lg_info_weights weights;
    lg_info_signature *signatures;  uint32_t n_signatures;
    lg_info_metadata *metadata;     uint32_t n_metadata;
    void *priv_;                    /* private: the result's memory */
} lg_info;

/* Summarize model m. file_bytes/file_size are the file m was read from (hashed for
   sha256); file_bytes may be NULL, then only file_size is recorded and has_sha256 is
   false. Does not modify m. On success *out is a new result to release with
   lg_info_free(); on failure *out is NULL.
   Returns LG_OK, LG_ERR_INVALID_ARG (NULL m or out) or LG_ERR_NOMEM. */
lg_status lg_info_compute(const lg_model *m, const void *file_bytes, size_t file_size,
                          lg_info **out, lg_error *err);

/* Release a result (NULL is fine). */
void lg_info_free(lg_info *info);

/* The model's learned parameters as the refactoring handbook counts them (seed 001: weights,
   biases, norm scales and shifts): elements of the constants of a weight type (FLOAT32,
   FLOAT16, BFLOAT16, INT8, UINT8, INT4, INT16, or INT32 with quantization parameters, i.e. a
   quantized bias) that hold at least 2 elements. Scalars (epsilons, GELU's and the norms'
   constants, a converter's 1-element folds) and integer shape/axis/index constants are not
   parameters. Each buffer is counted once, as lg_info's weights; a sparse constant counts its
   dense shape. A DEQUANTIZE'd weight counts once (its constant input), the float copy a
   converter may keep beside it is counted if present. Every refactor verb (prune, lowrank,
   ablate) and evidence record reports this number. LG_ERR_NOMEM is the only failure. */
lg_status lg_model_learned_params(const lg_model *m, uint64_t *out, lg_error *err);
/* The type rule alone: whether constant t's type is a weight type in the sense above. */
bool lg_tensor_weight_type(const lg_tensor *t);

#ifdef __cplusplus
}
#endif
#endif
