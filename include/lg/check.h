/*
 * litegpu check: will this model run fully on the phone's GPU, and if not, why and what
 * fixes it.
 *
 * The rules come from the GPU delegates' own source (LiteRT's gpu_compatibility.cc, the
 * classic delegate's model_builder.cc, ML Drift's model_builder.cc/operation_parser.cc),
 * plus field rules that phones enforce beyond the source (the seed field notes), each with
 * its source. One table (src/check/rules.def) defines every rule: the checker, `--explain`
 * and the README's rule list are generated from it. Each rule names the GPU families it
 * applies to (lg_gpu): the delegate-source rules all of them, a field rule the families it
 * was seen on; lg_check_options.gpu picks one family (LG_GPU_ANY, the default: all rules).
 *
 *     lg_check_options opt = {LG_TARGET_MLDRIFT, 0, LG_GPU_MALI};
 *     lg_check_report *rep;
 *     if (lg_check_model(m, &opt, &rep, &err) == LG_OK) {
 *         for (uint32_t i = 0; i < rep->n_findings; i++)
 *             printf("%s op %d: %s\n", rep->findings[i].rule->id, rep->findings[i].op,
 *                    rep->findings[i].reason);
 *         lg_check_report_free(rep);
 *     }
 */
#ifndef LG_CHECK_H
#define LG_CHECK_H

#include "lg/lg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lg_target {
    LG_TARGET_MLDRIFT = 0, /* CompiledModel GPU (ML Drift): needs full residency */
    LG_TARGET_CLASSIC = 1, /* the older GPU delegate (OpenCL/GL), partial delegation */
    LG_TARGET_COUNT
} lg_target;

#define LG_TARGET_BIT(t) (1u << (t))
#define LG_TARGETS_ALL (LG_TARGET_BIT(LG_TARGET_MLDRIFT) | LG_TARGET_BIT(LG_TARGET_CLASSIC))

const char *lg_target_name(lg_target t); /* "mldrift", "classic" */
/* Parse "mldrift"/"classic"; returns -1 if unknown. */
int lg_target_from_name(const char *name);

/* The GPU family a model is checked for. A rule applies to a family when it was read in code
   that family runs (the delegate-source rules: all families) or seen on it (the field rules).
   LG_GPU_ANY applies every rule: the conservative union, for a model that must run anywhere. */
typedef enum lg_gpu {
    LG_GPU_ANY = 0,    /* every family's rules (the default) */
    LG_GPU_MALI = 1,   /* Arm Mali (the seed field notes: Pixel 8a) */
    LG_GPU_ADRENO = 2, /* Qualcomm Adreno: no field reports, the delegate-source rules only */
    LG_GPU_WEBGPU = 3, /* ML Drift's WebGPU backend (LiteRT.js; litegpu verify) */
    LG_GPU_COUNT
} lg_gpu;

/* Rule family masks: LG_GPU_BIT(LG_GPU_MALI) ... ; LG_GPUS_ALL = the three families. */
#define LG_GPU_BIT(g) (1u << (g))
#define LG_GPUS_ALL (LG_GPU_BIT(LG_GPU_MALI) | LG_GPU_BIT(LG_GPU_ADRENO) | LG_GPU_BIT(LG_GPU_WEBGPU))

const char *lg_gpu_name(lg_gpu g); /* "any", "mali", "adreno", "webgpu" */
/* Parse "any"/"mali"/"adreno"/"webgpu"; returns -1 if unknown. */
int lg_gpu_from_name(const char *name);
/* The families of a check for gpu: LG_GPUS_ALL for LG_GPU_ANY, else the family's bit. */
unsigned lg_gpu_mask(lg_gpu g);

typedef enum lg_severity { LG_SEV_BLOCKER = 0, LG_SEV_WARNING = 1 } lg_severity;
const char *lg_severity_name(lg_severity s); /* "blocker", "warning" */

/* One rule of the table. All strings are static. */
typedef struct lg_rule_info {
    const char *id;          /* stable id, e.g. "tensor-rank" */
    lg_severity severity;
    unsigned targets;        /* LG_TARGET_BIT mask */
    unsigned gpus;           /* LG_GPU_BIT mask of the families it applies to */
    const char *gpus_note;   /* why those families (seen where; believed elsewhere?) */
    const char *source_kind; /* "delegate-source", "device-reported (Mali)", "webgpu-observed" */
    const char *source;      /* where it comes from: file/function, seed section, issue */
    const char *title;       /* one line */
    const char *fix;         /* the default fix (findings may refine it) */
    const char *doc;         /* the longer explanation for --explain */
} lg_rule_info;

/* The rule table and look-up by id (NULL if unknown). */
const lg_rule_info *lg_rules(uint32_t *n);
const lg_rule_info *lg_rule_find(const char *id);

/* What happens to an op on the target. */
typedef enum lg_op_place {
    LG_PLACE_GPU = 0,    /* delegated */
    LG_PLACE_CPU = 1,    /* falls back to the CPU (not supported, or outside the delegated partition) */
    LG_PLACE_FOLDED = 2, /* folded into a constant by the delegate (DEQUANTIZE of fp16 weights) */
} lg_op_place;

typedef struct lg_finding {
    const lg_rule_info *rule;
    int32_t subgraph;
    int32_t op;              /* -1 = about the whole model */
    int32_t tensors[4];      /* tensors involved (first n_tensors) */
    uint32_t n_tensors;
    char reason[320];        /* why, with the values that matter */
    char fix[320];           /* the fix for this case */
} lg_finding;

typedef struct lg_partition {
    uint32_t first_op, last_op; /* execution-order span (inclusive) */
    uint32_t n_ops;             /* ops in the partition (folded ops excluded) */
    uint32_t *ops;              /* those n_ops op indices, ascending (the subset is not a
                                   contiguous range: first_op..last_op may hold other
                                   partitions' ops) */
    bool gpu;                   /* a delegated (GPU) subset, else a CPU subset */
    bool delegated;             /* for GPU subsets: chosen by the delegate (classic takes the largest) */
} lg_partition;

typedef struct lg_check_report {
    lg_target target;
    lg_gpu gpu;                 /* the family checked for (LG_GPU_ANY: all rules) */
    uint32_t subgraph;          /* the checked subgraph (0, the primary) */
    uint32_t n_ops;             /* ops in it */
    uint32_t n_gpu_ops;         /* delegated */
    uint32_t n_folded_ops;      /* folded away */
    uint32_t n_cpu_ops;         /* on the CPU */
    uint32_t n_supported_ops;   /* pass every rule (GPU + those left out of the largest partition) */
    uint32_t n_blockers, n_warnings;
    uint32_t n_other_gpu_findings; /* findings left out: their rule is for other families only */
    bool ready;                 /* no blocker: runs fully on the GPU */
    lg_finding *findings;       uint32_t n_findings;  /* ordered by op, then rule */
    lg_partition *partitions;   uint32_t n_partitions; /* alternating GPU/CPU subsets */
    uint32_t n_gpu_partitions;
    uint8_t *op_place;          /* lg_op_place per op of the subgraph */
} lg_check_report;

/* The default max_gpu_ops (see below). */
#define LG_CHECK_DEFAULT_MAX_GPU_OPS 900u

typedef struct lg_check_options {
    lg_target target;
    /* Warn (graph-size) when a delegated graph has more ops than this, the Mali shader
       compile limit seen in the field; 0 = LG_CHECK_DEFAULT_MAX_GPU_OPS (900): in the seed
       field notes a 923-op delegated graph failed to compile, an 893-op one compiled. */
    uint32_t max_gpu_ops;
    /* The GPU family: only the rules for it apply (LG_GPU_ANY = 0, the default: every
       rule). The classic delegate has no WebGPU backend: LG_GPU_WEBGPU with
       LG_TARGET_CLASSIC is LG_ERR_INVALID_ARG. */
    lg_gpu gpu;
} lg_check_options;

/* Memory. lg_check_model's temporaries (the graph index of lg/graph.h, the per-tensor and
   per-op flags, the partitioner's work arrays) come from the model's allocator hook (the
   alloc given to lg_model_new or in lg_read_options; realloc/free when none) and go back
   through it before it returns. One exception, on purpose:
   - the report (the lg_check_report, its findings, partitions and op_place) comes from
     malloc/realloc, because lg_check_report_free takes no model to find a hook with. */

/* Check a model. The report is owned by the caller (lg_check_report_free). */
lg_status lg_check_model(const lg_model *m, const lg_check_options *opt, lg_check_report **out,
                         lg_error *err);
void lg_check_report_free(lg_check_report *r);

#ifdef __cplusplus
}
#endif
#endif
