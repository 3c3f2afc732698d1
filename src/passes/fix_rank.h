/* Internal to the reduce-rank pass (src/passes/fix_rank*.c).
 *
 * The pass works on an abstract copy of one region of the graph (an rk_region): the ops that
 * carry rank >= 5 tensors, normalized to a few kinds (RESHAPE, TRANSPOSE, elementwise,
 * SOFTMAX, reductions, CONCATENATION, SLICE, GATHER, BATCH_MATMUL; PACK, UNPACK, SPLIT,
 * SPLIT_V, SQUEEZE, EXPAND_DIMS and STRIDED_SLICE are rewritten into those), and the rank <= 4
 * tensors it is entered and left through. Planning never edits the graph:
 *
 *   fix_rank.c        the pass: which op starts a region, the region read into an rk_region
 *   fix_rank_group.c  the grouping: a union-find of "merged" boundaries between adjacent
 *                     non-unit dims of every tensor, cut where an op needs two dims apart
 *   fix_rank_lower.c  the lowering of a region under a grouping to rank <= 4 ops (rk_low),
 *                     every tensor realized in the shapes its consumers need (RESHAPEs glue)
 *   fix_rank_split.c  the split along one axis into k pieces (SLICE ... CONCATENATION) when
 *                     no grouping reaches rank 4, and the choice between the plans
 *   fix_rank_emit.c   DEPTH_TO_SPACE / SPACE_TO_DEPTH for a region that is exactly one, and
 *                     the chosen rk_low written into the graph
 */
#ifndef LGI_FIX_RANK_H
#define LGI_FIX_RANK_H

#include "passes/passes_impl.h"

#define RK_MAX_IN 64     /* inputs of one abstract op (CONCATENATION, ADD_N) */
#define RK_GPU_RANK 4    /* the largest rank the GPU delegates take (tensor-rank) */
#define RK_SPLIT_CAP 16  /* the most pieces a split makes */
#define RK_MAX_ELEMS (1 << 22) /* the largest region tensor the DEPTH_TO_SPACE proof walks */

/* Tensor roles. */
enum {
    RK_TMP,   /* inside the region (every rank >= 5 tensor; pieces and views of the split) */
    RK_IN,    /* a runtime rank <= 4 tensor the region reads (kept as it is) */
    RK_OUT,   /* a rank <= 4 tensor a region op writes: rewritten ops write the same tensor */
    RK_CONST  /* constant data (reshaped or cut freely; written as new constants) */
};

/* Op kinds. */
enum { K_RESHAPE, K_TRANSPOSE, K_EW, K_SOFTMAX, K_REDUCE, K_CONCAT, K_SLICE, K_GATHER, K_BMM };

typedef struct rk_tensor {
    int32_t shape[LG_MAX_RANK];
    uint32_t rank;
    uint8_t role;
    int32_t gid;         /* the graph tensor (IN, OUT, CONST; TMP: the one it stands for, or -1) */
    int32_t like;        /* a graph tensor with its type, quantization and a name to derive from */
    int32_t cdim, cidx;  /* CONST: the slab cidx of dim cdim of constant gid's data viewed */
    int32_t csh[LG_MAX_RANK]; /* in shape csh (cdim -1: all of it; csh is then gid's own */
    uint32_t crank;           /* shape) */
} rk_tensor;

typedef struct rk_op {
    uint8_t kind;
    int32_t code;        /* the builtin (K_EW, K_SOFTMAX, K_REDUCE, K_BMM: the original op's) */
    int32_t src;         /* the graph op it comes from (options, names) */
    int32_t in[RK_MAX_IN];
    uint32_t n_in;       /* K_GATHER: in[1] is the 1-D index tensor */
    int32_t out;
    int32_t v[LG_MAX_RANK]; /* TRANSPOSE: permutation (out dim i = in dim v[i]); SLICE: begin */
    int32_t w[LG_MAX_RANK]; /* SLICE: size */
    int32_t s[LG_MAX_RANK]; /* SLICE: stride (> 0) */
    uint32_t mask;       /* REDUCE: reduced dims of the input */
    int32_t axis;        /* CONCAT, GATHER */
    bool same_io;        /* input 0 and the output have the same type and quantization */
} rk_op;

typedef struct rk_region {
    rk_tensor *t;
    uint32_t nt, ct;
    rk_op *o;
    uint32_t no, co;
} rk_region;

/* A grouping: for every tensor, which boundaries between consecutive non-unit dims are
   merged. Boundary j of tensor t (between its j-th and j+1-th non-unit dims) is node
   base[t] + j of the union-find; node 0 is "cut". */
typedef struct rk_grouping {
    uint32_t *base;      /* per tensor */
    uint32_t *parent;    /* union-find over n nodes */
    uint32_t n;
} rk_grouping;

/* One group of a tensor: dims first..last (the unit dims inside do not count), their
   product; an explicit dim (kept even when it is 1) is a group of its own. */
typedef struct rk_group {
    int32_t first, last, size;
} rk_group;

/* ---- the lowered region: rank <= 4 ops over existing and new tensors */
typedef struct rk_ltensor {
    int32_t shape[LG_MAX_RANK];
    uint32_t rank;
    int32_t gid;         /* an existing graph tensor, or -1: a new one */
    int32_t like;        /* the graph tensor whose type, quantization and name it takes */
    int32_t cgid, cdim, cidx; /* a new constant: the slab cidx of dim cdim of constant cgid, */
    int32_t cshape[LG_MAX_RANK]; /* its data viewed in this shape */
    uint32_t crank;
    bool is_const;       /* a new constant (cdim -1: all of cgid's data, in this shape) */
    int32_t prod;        /* the lowered op writing it, -1 */
    int32_t next;        /* the next realization of the same data, -1 */
} rk_ltensor;

typedef struct rk_lop {
    int32_t code, src;
    int32_t in[RK_MAX_IN];
    uint32_t n_in;       /* data inputs (lowered tensors) */
    int32_t out;
    int32_t vec[3][LG_MAX_RANK]; /* INT32 vectors appended as constant inputs: the shape, the */
    uint32_t len[3], n_vec;      /* permutation, begin/size, begin/end/strides, the axes */
    int32_t axis;        /* CONCATENATION, GATHER; reductions: keep_dims; DEPTH_TO_SPACE,
                            SPACE_TO_DEPTH: the block size */
    bool live;
} rk_lop;

typedef struct rk_low {
    rk_ltensor *t;
    uint32_t nt, ct;
    rk_lop *o;
    uint32_t no, co;
    uint32_t n_live;     /* live ops: the plan's cost */
} rk_low;

/* ---- fix_rank.c */
LG_INTERNAL int32_t lgrk_add_tensor(rk_region *r, const rk_tensor *t);
LG_INTERNAL int32_t lgrk_add_op(rk_region *r, const rk_op *o);
LG_INTERNAL void lgrk_region_free(rk_region *r);
LG_INTERNAL int64_t lgrk_numel(const rk_tensor *t);
/* The next / previous dim of t after / before d with size > 1, or -1. */
LG_INTERNAL int32_t lgrk_next_nu(const rk_tensor *t, int32_t d);
LG_INTERNAL int32_t lgrk_prev_nu(const rk_tensor *t, int32_t d);

/* ---- fix_rank_group.c */
/* The coarsest grouping every op of r accepts. */
LG_INTERNAL lg_status lgrk_group(const rk_region *r, rk_grouping *g, lg_error *err);
LG_INTERNAL void lgrk_grouping_free(rk_grouping *g);
/* Boundary after non-unit dim d of tensor t merged? */
LG_INTERNAL bool lgrk_merged(rk_grouping *g, const rk_region *r, int32_t t, int32_t d);
/* The groups of tensor t (explicit: a mask of dims kept as their own groups). */
LG_INTERNAL uint32_t lgrk_groups(rk_grouping *g, const rk_region *r, int32_t t,
                                 uint32_t explicit_mask, rk_group *out);

/* ---- fix_rank_lower.c */
/* Lower r under g. *ok false (with why) when some op would need a tensor of rank > 4. */
LG_INTERNAL lg_status lgrk_lower(const rk_region *r, rk_grouping *g, rk_low *l, bool *ok,
                                 char *why, size_t nwhy, lg_error *err);
LG_INTERNAL void lgrk_low_free(rk_low *l);

/* ---- fix_rank_split.c */
/* The best plan for r: the grouping if it reaches rank 4, else the cheapest split. *ok false
   (with why) when there is none. */
LG_INTERNAL lg_status lgrk_plan(const rk_region *r, rk_low *best, bool *ok, char *why,
                                size_t nwhy, lg_error *err);

/* ---- fix_rank_emit.c */
/* A region that is exactly DEPTH_TO_SPACE or SPACE_TO_DEPTH (a chain of RESHAPE/TRANSPOSE
   from one rank-4 tensor to another whose element map is that op's): the plan in *l. */
LG_INTERNAL lg_status lgrk_pixel_plan(const lg_pass_ctx *c, const rk_region *r, rk_low *l,
                                      bool *ok, lg_error *err);
/* Write plan l into the graph in place of the region's ops (ops, ascending). */
LG_INTERNAL lg_status lgrk_emit(lg_pass_ctx *c, const rk_low *l, const int32_t *ops,
                                uint32_t n_ops);

/* Lowered-list builders (fix_rank_lower.c), shared with the DEPTH_TO_SPACE plan. */
LG_INTERNAL int32_t lgrk_low_tensor(rk_low *l, const rk_tensor *at, const int32_t *shape,
                                    uint32_t rank, int32_t gid, bool is_const);
LG_INTERNAL int32_t lgrk_low_op(rk_low *l, int32_t code, int32_t src, const int32_t *in,
                                uint32_t n_in, int32_t out);
LG_INTERNAL void lgrk_low_vec(rk_low *l, int32_t op, const int32_t *v, uint32_t n);

#endif
