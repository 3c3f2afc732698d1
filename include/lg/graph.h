/*
 * litegpu: the editable graph. Producers and consumers of a subgraph's tensors, and the
 * edits every rewrite is made of: insert and remove an op, set an op's inputs, outputs and
 * options, replace all uses of a tensor, give a tensor constant data, topological sort, and
 * compaction of dead tensors, buffers and opcodes.
 *
 * Index invalidation, exactly:
 *  - An lg_graph is a snapshot: ANY edit below of its subgraph makes it stale (rebuild it).
 *  - lg_op_insert(at) shifts the ops at and after `at` up by one; lg_op_remove(op) shifts the
 *    ops after `op` down by one; lg_subgraph_toposort may reorder every op. No other edit
 *    changes op indices.
 *  - Tensor, buffer and opcode indices stay valid across every edit except lg_model_compact,
 *    which renumbers them (the optional maps say old -> new, -1 for removed).
 *  - Pointers into the model's arrays (lg_op *, lg_tensor *) may move on any edit that adds
 *    (insert, new tensors, new buffers): keep indices, not pointers.
 *
 * Example: bypass a RESHAPE whose output is not a graph output.
 *
 *     lg_graph *g; lg_graph_build(m, 0, &g, &err);
 *     int32_t in = m->subgraphs[0].ops[i].inputs[0], out = m->subgraphs[0].ops[i].outputs[0];
 *     if (!lg_graph_is_output(g, out)) {
 *         lg_tensor_replace_uses(m, 0, out, in, 0, NULL, &err);
 *         lg_op_remove(m, 0, i, &err);
 *     }
 *     lg_graph_free(g);
 */
#ifndef LG_GRAPH_H
#define LG_GRAPH_H

#include "lg/lg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- producers and consumers */

typedef struct lg_graph lg_graph;

/* One use of a tensor: input `slot` of op `op`. */
typedef struct lg_use {
    int32_t op;
    uint32_t slot;
} lg_use;

/* Build the index of subgraph sg. Allocates through the model's allocator hook (one block,
   LG_ERR_NOMEM on failure, *out NULL). A tensor reference out of range is
   LG_ERR_INVALID_ARG naming the op. */
lg_status lg_graph_build(const lg_model *m, uint32_t sg, lg_graph **out, lg_error *err);
void lg_graph_free(lg_graph *g);

/* The op that produces tensor t (its first producer in op order), or -1 (graph input,
   constant, variable, or nothing). */
int32_t lg_graph_producer(const lg_graph *g, int32_t t);
/* The uses of t as an op input, sorted by op then slot; *n their count (NULL if none). A
   graph output is not a use. */
const lg_use *lg_graph_uses(const lg_graph *g, int32_t t, uint32_t *n);
/* Number of distinct ops reading t. */
uint32_t lg_graph_n_consumers(const lg_graph *g, int32_t t);
bool lg_graph_is_input(const lg_graph *g, int32_t t);   /* a subgraph input */
bool lg_graph_is_output(const lg_graph *g, int32_t t);  /* a subgraph output */
/* Tensors produced by more than one op: a malformed graph; 0 on a sound one. */
uint32_t lg_graph_n_multi_produced(const lg_graph *g);
/* Tensor t has constant data (its buffer, not 0, has a data vector, possibly empty for a
   0-element constant); variable tensors are not constant. */
bool lg_tensor_is_const(const lg_model *m, uint32_t sg, int32_t t);

/* ---------------------------------------------------------------- edits */

/* Insert an op at position `at` (0..n_ops; n_ops appends). Same arguments as
   lg_subgraph_add_op; opts is deep-copied. The new op's index is `at`. */
lg_status lg_op_insert(lg_model *m, uint32_t sg, uint32_t at, int32_t builtin,
                       const char *custom_code, int32_t version, const int32_t *inputs,
                       uint32_t n_inputs, const int32_t *outputs, uint32_t n_outputs,
                       lg_opts_kind opts_kind, const void *opts, lg_error *err);
/* Remove op `op` (its tensors stay; compaction removes those left unused). */
lg_status lg_op_remove(lg_model *m, uint32_t sg, uint32_t op, lg_error *err);
/* Set input `slot` (< n_inputs; use lg_op_set_inputs to change the count) of an op to
   tensor t (-1: absent optional input). */
lg_status lg_op_set_input(lg_model *m, uint32_t sg, uint32_t op, uint32_t slot, int32_t t,
                          lg_error *err);
/* Replace an op's whole input list. */
lg_status lg_op_set_inputs(lg_model *m, uint32_t sg, uint32_t op, const int32_t *inputs,
                           uint32_t n_inputs, lg_error *err);
lg_status lg_op_set_output(lg_model *m, uint32_t sg, uint32_t op, uint32_t slot, int32_t t,
                           lg_error *err);
/* Replace an op's options (deep copy; kind LG_OPTS_NONE clears them). */
lg_status lg_op_set_options(lg_model *m, uint32_t sg, uint32_t op, lg_opts_kind kind,
                            const void *opts, lg_error *err);
/* Point the op at another opcode (builtin, custom code, version), found or added. */
lg_status lg_op_set_opcode(lg_model *m, uint32_t sg, uint32_t op, int32_t builtin,
                           const char *custom_code, int32_t version, lg_error *err);

enum {
    LG_REPLACE_OUTPUTS = 1u << 0 /* also the subgraph's outputs and signature outputs */
};
/* Replace every use of tensor `from` as an op input by `to` (and, with LG_REPLACE_OUTPUTS,
   every subgraph/signature output entry). *n_replaced (may be NULL) counts the entries. */
lg_status lg_tensor_replace_uses(lg_model *m, uint32_t sg, int32_t from, int32_t to,
                                 unsigned flags, uint32_t *n_replaced, lg_error *err);

/* Set a tensor's shape (copied; the shape signature is dropped when its length differs). */
lg_status lg_tensor_set_shape(lg_model *m, uint32_t sg, int32_t t, const int32_t *shape,
                              uint32_t rank, lg_error *err);
/* Rename tensor t (the name is copied; NULL clears it). Signature names are not changed. */
lg_status lg_tensor_set_name(lg_model *m, uint32_t sg, int32_t t, const char *name, lg_error *err);
/* Make tensor t a constant of the given type holding a copy of data (nbytes must match the
   shape): a new buffer, so buffers shared with other tensors are never changed. Sparsity and
   the tensor's external_buffer are dropped (the data is dense, inline); quantization is kept:
   drop it with lg_tensor_clear_quant. */
lg_status lg_tensor_set_const(lg_model *m, uint32_t sg, int32_t t, lg_dtype type,
                              const void *data, uint64_t nbytes, lg_error *err);
/* Remove tensor t's quantization parameters (t->quant = NULL). */
lg_status lg_tensor_clear_quant(lg_model *m, uint32_t sg, int32_t t, lg_error *err);

/* Topological sort, stable: ops already in order keep their order; otherwise Kahn's algorithm
   taking the lowest original index first. A cycle, or a tensor produced by two ops, is
   LG_ERR_INVALID_ARG naming an op on it. *changed (may be NULL) says whether the order moved. */
lg_status lg_subgraph_toposort(lg_model *m, uint32_t sg, bool *changed, lg_error *err);

/* Remove tensors no op, subgraph input/output or signature refers to, buffers no tensor or
   metadata refers to (buffer 0, the empty sentinel, stays; buffers shared between tensors
   stay shared), and opcodes no op uses; renumber the rest in their old order. The memory
   of constant data no buffer uses any more (the removed buffers', data replaced through
   lg_buffer_set_data) is given back here: a pointer to such data taken before does not
   survive the call. */
typedef struct lg_compact_stats {
    uint32_t tensors_removed, buffers_removed, opcodes_removed;
} lg_compact_stats;
/* tensor_map (per subgraph 0 only, may be NULL): n_tensors-before entries, old -> new or -1. */
lg_status lg_model_compact(lg_model *m, lg_compact_stats *stats, int32_t *tensor_map_sg0,
                           lg_error *err);

#ifdef __cplusplus
}
#endif
#endif
