/*
 * litegpu prune: dependency groups and physical structured pruning of subgraph 0 (issue 14;
 * the refactoring handbook, seed 001, chapters 5-7).
 *
 * A group is one prunable channel axis: the producer op(s) whose output channels go (a
 * FULLY_CONNECTED's weight rows [out,in] and bias, a CONV_2D's OHWI out dim and bias), the
 * channel-transparent ops on the way (activations, elementwise chains, binary ops with a
 * broadcast constant, transposes, pooling, reductions over other axes), the per-channel
 * constants sliced with it (norm scales and shifts, biases added by ADD, depthwise weights),
 * and the consumers whose input channels go (FC weight columns, CONV_2D OHWI input dim).
 * Coupled cases (the handbook's warning cases) make one group: a residual ADD (or any binary
 * op, BATCH_MATMUL batch axis) joins its two runtime operands' channels, a CONCATENATION on
 * the channel axis places a producer's channels at an offset of its output, a grouped conv
 * keeps whole conv groups, a depthwise conv passes its channels on (its weights and bias
 * sliced), a RESHAPE that splits the channel axis into [.., H, d] keeps whole heads.
 *
 * A group is pruned in units: `n_units` units of `unit` base channels each (unit 1 for a plain
 * FFN or conv, the head dimension for heads, the conv-group width for grouped convs). A model
 * output reached by the group makes it fixed (the public interface stays); anything the
 * analysis cannot follow makes it not prunable, with the op and the reason in `why`.
 *
 *     lg_prune_groups *gs;
 *     lg_prune_groups_find(m, &gs, &err);
 *     uint32_t keep[] = {0, 2};                      // ascending unit indices
 *     lg_prune_sel sel = {.group = 3, .keep = keep, .n_keep = 2};
 *     lg_model *out;
 *     lg_prune_apply(m, gs, &sel, 1, LG_PRUNE_PHYSICAL, &out, &err);
 *     lg_prune_groups_free(gs);
 */
#ifndef LG_PRUNE_H
#define LG_PRUNE_H
#include "lg/lg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lg_prune_role {
    LG_PRUNE_PRODUCER = 0,   /* a constant whose rows (out channels) are removed: weight, bias */
    LG_PRUNE_CONSUMER,       /* a constant whose input columns are removed: FC/conv weight */
    LG_PRUNE_TRANSPARENT,    /* a runtime tensor (an op's output) carrying the channels */
    LG_PRUNE_SLICED          /* a per-channel constant sliced with the group */
} lg_prune_role;

/* "producer rows", "consumer columns", "transparent", "sliced constant". */
const char *lg_prune_role_name(lg_prune_role r);

/* One tensor of a group: unit u occupies indices [offset + u*width, offset + (u+1)*width) of
   `axis`. Constants name the op and input slot that reads them; runtime tensors the op that
   produces them (slot -1). */
typedef struct lg_prune_member {
    int32_t op;
    int32_t slot;
    int32_t tensor;
    int32_t axis;
    int32_t offset;
    int32_t width;
    int32_t p_, q_;          /* private: base channel -> axis index ratio */
    lg_prune_role role;
} lg_prune_member;

typedef struct lg_prune_group {
    uint32_t id;
    const char *kind;        /* "heads", "concat", "grouped", "residual", "coupled" (a binary op
                                other than ADD/SUB joins producers, e.g. a squeeze-excite MUL),
                                "depthwise", "conv", "ffn": the first that applies */
    bool conv;               /* its producers are CONV_2D (else FULLY_CONNECTED) */
    bool heads;              /* a reshape splits its channel axis into heads */
    bool residual;           /* an ADD/SUB couples two producers' channels */
    bool concat;             /* a CONCATENATION places the channels at an offset */
    bool grouped;            /* a grouped CONV_2D: whole conv groups */
    bool depthwise;          /* a DEPTHWISE_CONV_2D carries the channels */
    uint32_t n_units;        /* channels (or heads, conv groups) that can be removed */
    uint32_t unit;           /* base channels per unit */
    uint32_t n_base;         /* the producers' output channels */
    uint32_t n_producers;
    bool prunable;
    bool fixed;              /* reaches a model output: never pruned */
    char why[256];           /* when !prunable: "op 30 (MEAN): reduces over the channel axis" */
    lg_prune_member *members; uint32_t n_members;
    uint64_t params_per_unit; /* learned parameters one removed unit saves */
} lg_prune_group;

typedef struct lg_prune_groups {
    lg_prune_group *groups; uint32_t n_groups;
    void *priv_;
} lg_prune_groups;

/* The dependency groups of subgraph 0, in the order of their first producer op.
   LG_ERR_INVALID_ARG on a model without subgraphs, LG_ERR_NOMEM. */
lg_status lg_prune_groups_find(const lg_model *m, lg_prune_groups **out, lg_error *err);
void lg_prune_groups_free(lg_prune_groups *g);

/* What to keep of one group: unit indices, strictly ascending, 1 <= n_keep <= n_units. */
typedef struct lg_prune_sel {
    uint32_t group;
    const uint32_t *keep;
    uint32_t n_keep;
} lg_prune_sel;

typedef enum lg_prune_mode {
    LG_PRUNE_PHYSICAL = 0,   /* smaller dense constants, every shape re-inferred */
    LG_PRUNE_MASKED = 1,     /* same shapes; the consumers' input columns of removed units 0 */
    LG_PRUNE_MASKED_ROWS = 2 /* same shapes; the producers' rows and biases of removed units 0
                                (the handbook's masking of the hidden activations: equal to
                                the pruned model when the carrying ops map 0 to 0, as ReLU
                                and GELU do, not when e.g. a bias is added after the FC) */
} lg_prune_mode;

/* A new model with the selected groups pruned (or masked). Refuses (LG_ERR_INVALID_ARG,
   naming the group and why) a group that is not prunable or fixed, bad keep lists, a group
   selected twice. The result is validated (lg_model_validate, op shapes re-inferred). */
lg_status lg_prune_apply(const lg_model *m, const lg_prune_groups *gs, const lg_prune_sel *sel,
                         uint32_t n_sel, lg_prune_mode mode, lg_model **out, lg_error *err);

/* The learned parameters (lg_model_learned_params' rule: constants of >= 2 elements) the
   selection removes, predicted from the group maps and the keep lists alone: for every
   constant touched, its element count minus the product of its kept sizes per axis (a conv
   filter that loses output rows to one group and input columns to another counts the
   overlap once). */
lg_status lg_prune_expected_params(const lg_model *m, const lg_prune_groups *gs, const lg_prune_sel *sel,
                                   uint32_t n_sel, uint64_t *removed, lg_error *err);

/* Magnitude importance of each unit: sum over the group's producer weights (not biases) of
   the L2 norm of the unit's rows. out has n_units entries. */
lg_status lg_prune_importance_magnitude(const lg_model *m, const lg_prune_group *g, double *out,
                                        lg_error *err);

/* The group's first consumer (FC/conv whose input columns go): its member index in
   g->members, or -1 when it has none. The consumer's input tensor is the activation that
   --importance activation measures. */
int32_t lg_prune_first_consumer(const lg_prune_group *g);

/* L2 norm of each input column of consumer member `member` (FC weight [:, i], conv weight
   [:, :, :, i]), per index of its axis: out has the weight's axis size entries. */
lg_status lg_prune_column_norms(const lg_model *m, const lg_prune_group *g, uint32_t member,
                                double *out, lg_error *err);

/* Top-k selection: the k largest scores (ties to the lower index, NaN last), returned
   ascending in keep[k]. LG_ERR_INVALID_ARG when k > n. */
lg_status lg_prune_top_k(const double *score, uint32_t n, uint32_t k, uint32_t *keep, lg_error *err);

#ifdef __cplusplus
}
#endif
#endif
