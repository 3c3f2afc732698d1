/* The activation memory planner (internal): tensor lifetimes from the graph, then offsets in one
 * arena, greedy by size as TFLite's arena planner does (lite/simple_memory_arena.cc,
 * lite/arena_planner.cc). It knows nothing of the interpreter: it takes sizes and first/last
 * uses per tensor, so it can be tested on hand-made lifetimes (tests/unit/test_memplan.c). */
#ifndef LGI_RUN_MEMPLAN_H
#define LGI_RUN_MEMPLAN_H

#include "internal.h"
#include "lg/graph.h"

/* first[i] of a tensor that gets no arena memory (a constant, or nothing writes it). */
#define LGK_MP_NONE INT32_MAX

/* Lifetimes over the ops of sg (g: its graph index, lg_graph_build), as op indices [first[i], last[i]]: first = the op that writes
   the tensor first, -1 for graph inputs and variables (they exist before op 0); last = the
   last op that reads it, n_ops for graph outputs and variables (they outlive the run), at
   least first. skip[i] != 0 (a constant) or a tensor no op writes: first[i] = LGK_MP_NONE.
   keep_all: every placed tensor lives over the whole run ([-1, n_ops], no reuse). */
LG_INTERNAL void lgk_mp_lifetimes(const lg_subgraph *sg, const lg_graph *g, const uint8_t *skip,
                                  int keep_all, int32_t *first, int32_t *last);

typedef struct lgk_mp_result {
    uint64_t arena_bytes;     /* size of the arena */
    uint64_t peak_live_bytes; /* largest sum of exact sizes live at one op (-1 counts as op 0) */
    int32_t peak_op;          /* the first op with that sum; -1 when there are no ops */
    uint32_t n_peak;          /* tensors live at peak_op, written to peak[] in index order */
} lgk_mp_result;

/* Place the n tensors whose first[i] != LGK_MP_NONE: each in a 64-byte aligned slot of
   size[i] bytes (rounded up), at the lowest offset that overlaps no placed tensor whose
   lifetime intersects, taking the tensors by decreasing slot size (ties: lower index first).
   Writes offset[i] for those tensors and peak[0 .. n_peak) (capacity n). n_ops: ops in the
   graph. Temporaries come from alloc (NULL: realloc/free). LG_ERR_NOMEM on failure. */
LG_INTERNAL lg_status lgk_mp_plan(uint32_t n, uint32_t n_ops, const uint64_t *size, const int32_t *first,
                                  const int32_t *last, lg_alloc_fn alloc, void *alloc_ud, uint64_t *offset,
                                  int32_t *peak, lgk_mp_result *res, lg_error *err);

/* out[op] for op in [0, n_ops): the sum of size[i] over the placed tensors live at op (first[i]
   <= op <= last[i], a first of -1 counting from op 0), the sums lgk_mp_plan takes its peak from.
   A difference array: O(n + n_ops). */
LG_INTERNAL void lgk_mp_live(uint32_t n, uint32_t n_ops, const uint64_t *size, const int32_t *first,
                             const int32_t *last, uint64_t *out);

#endif
