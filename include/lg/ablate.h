/*
 * litegpu ablate: removable residual blocks of a deployed graph, ranked by what bypassing each
 * costs (issue #14 item 4; the handbook's chapter 4 "Remove a residual block" and its ablation
 * table, chapter 15).
 *
 * A removable residual block (subgraph 0) is an ADD  y = x + F(x)  (either operand order) where
 *  - x, F(x) and y have the same shape (no broadcast) and the same type and quantization;
 *  - F is the set of ops on the paths from x to the ADD's other operand (ops that are both
 *    reached from x and reach F(x)), at least one op, with its constant feeders: ops computed
 *    from constants only whose outputs only F reads (a weight's DEQUANTIZE in an fp16 model);
 *  - every tensor F computes is read only by ops of F (F(x) only by the ADD) and is not a model
 *    output: no other consumer of F's internals;
 *  - F reads, besides x and its own tensors, only constants and tensors something else reads
 *    too (else bypassing would delete ops outside the block);
 *  - F holds parameters (a weight-typed constant of >= 2 elements, lg_model_learned_params'
 *    rule) and no op with state or subgraph calls;
 *  - the ADD has no fused activation (relu(x + F(x)) has no identity bypass: reported, skipped).
 * The bypass replaces every use of y by x (a y that is a model output gives its name to x),
 * then removes the ops nothing reads any more (F, the ADD) and compacts the model. A block
 * inside another block's F is reported on its own, with its parent; removing the outer block
 * removes the inner one.
 *
 * Metrics of a candidate c against the original o, fp32, on a set of inputs; each output that
 * is FLOAT32 counts, the figures are averaged over those outputs:
 *   kl      mean over the inputs and the rows (every position but the last axis) of
 *           KL(softmax(o) || softmax(c)) along the last axis, in nats;
 *   mse     sum (c - o)^2 / sum o^2 over every value of every input (the mean squared error
 *           relative to the mean square of the original); undefined (NaN) when o is all zero;
 *   argmax  the fraction of the rows (one per input for a [1, classes] output) whose argmax
 *           along the last axis changes (first maximum wins, as numpy).
 * All three are measured; the ranking sorts by the chosen one, ascending (least harmful
 * first; NaN last; ties by block id).
 *
 * Ablation losses do not add (handbook chapter 4): the loss of removing two blocks is not the
 * sum of their single losses; lg_ablate measures the combination it builds.
 */
#ifndef LG_ABLATE_H
#define LG_ABLATE_H

#include "lg/lg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lg_ablate_metric { LG_ABLATE_KL = 0, LG_ABLATE_MSE = 1, LG_ABLATE_ARGMAX = 2 } lg_ablate_metric;
#define LG_ABLATE_N_METRICS 3
const char *lg_ablate_metric_name(lg_ablate_metric k); /* "kl", "mse", "argmax" */
int lg_ablate_metric_from_name(const char *s);         /* -1 if unknown */

typedef struct lg_ablate_block {
    uint32_t id;              /* 0, 1, ... in the order of the ADDs in the graph */
    int32_t add_op;           /* the ADD's op index (input model) */
    int32_t x, fx, y;         /* tensors: the shortcut x, F(x), the ADD's output y */
    char name[128];           /* y's name */
    char x_name[128];
    uint32_t n_ops;           /* ops of F (the ADD not counted) */
    char kinds[256];          /* F's ops by kind, most frequent first: "MUL 9, ADD 4, ..." */
    uint64_t params;          /* learned parameters the bypass removes (lg_model_learned_params
                                 of the model minus that of the bypassed model) */
    uint64_t params_f;        /* the same counted directly: the constants only F reads */
    int32_t parent;           /* id of the smallest block whose F holds this ADD, or -1 */
    uint32_t depth;           /* blocks enclosing it */
    double calib[LG_ABLATE_N_METRICS]; /* bypassed alone, on the calibration inputs */
    double eval[LG_ABLATE_N_METRICS];  /* ... on the evaluation inputs (NaN without them) */
    uint32_t rank;            /* 1 = least harmful by the chosen metric on calibration */
    bool removed;             /* in the candidate (lg_ablate with remove) */
} lg_ablate_block;

/* An ADD of two computed tensors that is not a removable block, and why. */
typedef struct lg_ablate_skip {
    int32_t add_op;
    char name[128];           /* its output's name */
    char why[256];
} lg_ablate_skip;

typedef struct lg_ablate_list {
    lg_ablate_block *blocks; uint32_t n_blocks;   /* in graph order (blocks[i].id == i) */
    lg_ablate_skip *skipped; uint32_t n_skipped;
    uint32_t n_ops;           /* the model's ops (subgraph 0) */
    uint8_t *in_f_;           /* private: n_blocks x n_ops, 1 where op is in block's F */
} lg_ablate_list;

/* Find the blocks of m (subgraph 0). *out: free with lg_ablate_list_free. Never modifies m. */
lg_status lg_ablate_find(const lg_model *m, lg_ablate_list **out, lg_error *err);
void lg_ablate_list_free(lg_ablate_list *l);
/* Whether block `inner`'s ADD is inside block `outer`'s F. */
bool lg_ablate_nested(const lg_ablate_list *l, uint32_t inner, uint32_t outer);

/* A copy of m with the n blocks ids[] bypassed (every use of y replaced by x, the dead ops
   removed, compacted, validated with every output shape re-inferred). Nested ids are fine
   (the outer removes the inner). */
lg_status lg_ablate_bypass(const lg_model *m, const lg_ablate_list *l, const uint32_t *ids, uint32_t n,
                           lg_model **out, lg_error *err);

/* Run the model m and the candidate c on the n cases (cases[k][i]: input i's data in its type (FLOAT32 for a float input);
   NULL cases: one case of the "pattern" fill) and measure the three metrics into out[]. */
lg_status lg_ablate_measure(const lg_model *m, const lg_model *c, const void *const *const *cases, uint32_t n_cases,
                            double out[LG_ABLATE_N_METRICS], lg_error *err);

typedef struct lg_ablate_options {
    lg_ablate_metric metric;
    const void *const *const *calib; uint32_t n_calib;  /* NULL: one "pattern" input */
    const void *const *const *eval; uint32_t n_eval;   /* NULL: none */
    /* The candidate: remove_k > 0 the k least harmful blocks (by rank, skipping a block
       nested with one already chosen), or remove_ids (n_remove_ids > 0); neither: rank only. */
    uint32_t remove_k;
    const uint32_t *remove_ids; uint32_t n_remove_ids;
    const char *calib_name, *eval_name; /* recorded in the metadata (may be NULL) */
} lg_ablate_options;

typedef struct lg_ablate_report {
    lg_ablate_list *list;
    lg_ablate_metric metric;
    uint32_t n_calib, n_eval; /* cases measured (1 for the pattern fill) */
    bool pattern_fill;
    bool measured;            /* false: the interpreter cannot run the model (an op it lacks):
                                 blocks listed unranked (figures NaN), --remove-block only */
    char measure_note[600];   /* why not, when !measured */
    uint64_t n_params;        /* lg_model_learned_params of the input */
    uint32_t n_ops;
    const uint32_t *order;    /* block ids by rank */
    /* the candidate (when asked) */
    bool has_candidate;
    uint32_t *removed; uint32_t n_removed;        /* ids bypassed (by rank for remove_k; as given
                                                     for remove_ids, less those inside another
                                                     one given); blocks inside them go too
                                                     (lg_ablate_block.removed) */
    uint64_t n_params_after;
    uint32_t n_ops_after;
    double cand_calib[LG_ABLATE_N_METRICS], cand_eval[LG_ABLATE_N_METRICS];
    double sum_calib[LG_ABLATE_N_METRICS], sum_eval[LG_ABLATE_N_METRICS]; /* sums of the singles */
    char *metadata;           /* the "litegpu.ablate" JSON written into the candidate */
} lg_ablate_report;

/* Find, rank (every block bypassed alone, measured on calib and eval), and with remove build
   the candidate *out (metadata "litegpu.ablate": the removed blocks' ids, ADD output and x
   names, parameters; the metric and the inputs). out may be NULL when nothing is removed.
   Removing more blocks than there are independent ones, or an unknown id, is
   LG_ERR_INVALID_ARG. */
lg_status lg_ablate(const lg_model *m, const lg_ablate_options *o, lg_ablate_report **rep, lg_model **out,
                    lg_error *err);
void lg_ablate_report_free(lg_ablate_report *r);

#ifdef __cplusplus
}
#endif
#endif
