/* fp16 hardening, internal to src/passes: the pattern matchers (fix_fp16_match.c), the rewrites
 * and the harden-fp16 pass (fix_fp16_rewrite.c), the gate and lg_harden_fp16 (fix_fp16.c).
 * The public side and the maths are in include/lg/passes.h ("fp16 hardening"). */
#ifndef LGI_PASSES_FIX_FP16_H
#define LGI_PASSES_FIX_FP16_H

#include "lg/graph.h"
#include "passes/passes_impl.h"

/* A global reduce is matched from this many elements reduced into each value. */
#define LGP_FP16_GLOBAL_MIN 1024
/* The fp32 parity bound of harden-fp16-split: a reordered sum of n fp32 terms differs from the
   sequential one by about sqrt(n) ulps of the sum (measured 5e-6 of the output at n = 65536);
   1e-4 leaves room to n ~ 1e7 (include/lg/passes.h). */
#define LGP_FP16_SPLIT_BOUND 1e-4
/* The conv rescale aims the conv's output magnitude at about this (the seed: "|10|"). */
#define LGP_FP16_CONV_TARGET 10.0

/* How eps enters the statistic. */
typedef enum lgp_eps_kind {
    LGP_EPS_NONE = 0,
    LGP_EPS_ADD,       /* rsqrt/sqrt(m2 + eps): eps scales as a square */
    LGP_EPS_MAX,       /* rsqrt/sqrt(max(m2, eps)): as a square */
    LGP_EPS_MAX_ROOT   /* max(sqrt(m2), eps): as a root */
} lgp_eps_kind;

/* One matched pattern. Tensors are indices of the subgraph (-1: absent). */
typedef struct lgp_fp16_match {
    lg_fp16_pattern kind;
    int32_t anchor;            /* op index the runner matches at */
    uint32_t ops[LG_HARDEN_MAX_OPS]; uint32_t n_ops; /* the pattern's ops, ascending */
    int32_t x;                 /* the input */
    uint32_t axes;             /* bit d: reduced */
    int64_t extent;
    bool centered;             /* x - mean(x) (layer/instance norm) */
    bool moment2;              /* the variance as mean(x^2) - mean(x)^2 (the unfused batch norm form) */
    bool sum;                  /* uncentred: SUM (l2) rather than MEAN (rms) */
    bool l2_op;                /* an L2_NORMALIZATION op */
    int32_t mu;                /* mean(x) */
    int32_t d;                 /* x - mu */
    int32_t r;                 /* rsqrt(...) */
    int32_t s;                 /* sqrt(...) */
    int32_t c;                 /* max(sqrt(m2), eps) (LGP_EPS_MAX_ROOT) */
    int32_t inv;               /* 1 / s or 1 / c */
    int32_t y;                 /* the normalized output (d or x times the inverse root), -1: not found */
    lgp_eps_kind eps_kind;
    float eps;
    int32_t eps_op;            /* the op reading the eps constant, and its slot */
    uint32_t eps_slot;
    /* global reduce */
    bool reduce_keep;
    int32_t reduce_out;        /* the SUM/MEAN output */
    int32_t scale_op;          /* a MUL/DIV by a scalar constant applied to the SUM (-1: none) */
    double scale;              /* the factor it applies */
    int32_t result;            /* reduce: the tensor the rewrite replaces (scale_op's output or the SUM's) */
    /* conv rescale */
    int32_t conv_op;           /* a rescalable producer of x through single-use reshapes (-1) */
    int32_t conv_out;
} lgp_fp16_match;

/* Match a pattern anchored at op (the norms at their RSQRT/SQRT/L2_NORMALIZATION, a global
   reduce at its MEAN/SUM). */
LG_INTERNAL bool lgp_fp16_match_at(const lg_model *m, uint32_t sg, const lg_graph *g, uint32_t op,
                                   lgp_fp16_match *out);
/* Every match of subgraph sg in op order (malloc'ed, *n of them). */
LG_INTERNAL lg_status lgp_fp16_match_all(const lg_model *m, uint32_t sg, lgp_fp16_match **out,
                                         uint32_t *n, lg_error *err);
/* Whether op is in the match. */
LG_INTERNAL bool lgp_fp16_match_has(const lgp_fp16_match *mt, uint32_t op);
/* The tensors whose value the rewrite of mt replaces (uses redirected), at most 7: those the
   pattern's result consists of (what the gate judges). */
LG_INTERNAL uint32_t lgp_fp16_results(const lg_model *m, uint32_t sg, const lg_graph *g,
                                      const lgp_fp16_match *mt, int32_t *t);

/* What to do at one anchor (lg_pass_run_options.fp16_sel). The pass marks a pick done when it
   applies it, so a pattern left in place (a conv rescale alone) is not rewritten twice. */
typedef struct lgp_fp16_pick {
    int32_t anchor_tensor;     /* the anchor op's output 0 (stable while the runner rewrites) */
    unsigned fix;              /* LG_FP16_FIX_* */
    int32_t conv_shift;        /* with LG_FP16_FIX_CONV_RESCALE */
    bool done;
} lgp_fp16_pick;

struct lgp_fp16_sel {
    lgp_fp16_pick *picks;
    uint32_t n;
};

/* The rewrite a match gets from the exact pass (split false) or the split pass (0: none). */
LG_INTERNAL unsigned lgp_fp16_default_fix(const lgp_fp16_match *mt, bool split);

/* The conv weights (input 1) and bias (input 2) of a rescalable conv can take 2^-k exactly:
   the largest k' <= k that keeps every value exact (FLOAT16 weights: normal halves), or 0. */
LG_INTERNAL int32_t lgp_fp16_conv_max_shift(const lg_model *m, uint32_t sg, const lg_graph *g,
                                            int32_t conv_op, int32_t k);

/* ---- the gate (fix_fp16_gate.c) */

typedef struct lgp_fp16_gate {
    const lg_model *m;
    lg_harden_mode mode;
    lg_precision prec;          /* the emulated precision */
    lg_judge_options jo;
    const float *const *const *cases; /* input sets: cases[k][i] is input i of set k */
    uint32_t n_cases;
    int threads;
    bool allow_approx;          /* the split may be applied */
} lgp_fp16_gate;

/* One match, measured and decided. */
typedef struct lgp_hazard {
    lgp_fp16_match mt;
    lg_harden_item item;        /* kind, ops, before/after errors, fix, rewritten, why */
    int32_t anchor_t;           /* the anchor op's output 0 (for the pick) */
} lgp_hazard;

/* Fold one judged output into the worst error so far (by severity; the flags accumulate). */
LG_INTERNAL void lgp_fp16_worst_of(lg_fp16_error *e, const lg_metrics *m, const lg_verdict *v);

/* Every match of gt->m's subgraph 0, each measured in gt->prec against fp32 on every input set
   (the worst set counts) and decided as gt->mode says (off: matched only). *out is malloc'ed
   (*n entries, possibly 0). */
LG_INTERNAL lg_status lgp_fp16_hazards(const lgp_fp16_gate *gt, lgp_hazard **out, uint32_t *n, lg_error *err);

#endif
