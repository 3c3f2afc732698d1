/*
 * litegpu: cutting a model into parts (graph surgery on the deployed graph).
 *
 *  - lg_model_cut: the model computing only the chosen tensors (the seed's "choose the output
 *    point": raw detection heads instead of decode and NMS). Ops nothing needs are removed,
 *    inputs nothing reads are dropped.
 *  - lg_model_taps: the model with intermediate tensors added as extra outputs (after its own),
 *    so a device run shows the first op whose output breaks (the seed's per-layer taps).
 *  - lg_split_model: the model as a chain of parts that each run wholly on the GPU or on the
 *    CPU, for a target whose ML Drift path needs full residency: ops check finds no blocker
 *    on are GPU ops, the others CPU ops; parts alternate, each as large as the dependencies
 *    allow (a GPU part takes every GPU op whose inputs are ready), and tensors passing between
 *    parts are named uniquely (unnamed or duplicate names get "litegpu/split/tN"). Running the
 *    parts in order, feeding each its inputs by name, computes the model.
 *
 * Every part keeps the original tensors' names, types, shapes and quantization; a part's
 * inputs are the original graph inputs it reads (in their order) then the tensors it receives
 * from earlier parts (in tensor order); its outputs the original graph outputs it computes (in
 * their order) then the tensors later parts read. Signatures are dropped from parts (they
 * describe the whole model); descriptions and metadata are kept.
 */
#ifndef LG_SPLIT_H
#define LG_SPLIT_H

#include "lg/check.h"
#include "lg/lg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The model computing the tensors named (subgraph 0; every name must exist once). */
lg_status lg_model_cut(const lg_model *m, const char *const *names, uint32_t n, lg_model **out,
                       lg_error *err);

/* The model with tensors added as outputs after its own (subgraph 0 tensor indices; n == 0:
   every float tensor an op computes at run time, constant-folded ones excepted). Tensors that
   are already outputs or not computed by an op are skipped. *n_added (may be NULL) counts. */
lg_status lg_model_taps(const lg_model *m, const int32_t *tensors, uint32_t n, lg_model **out,
                        uint32_t *n_added, lg_error *err);

typedef struct lg_split_part {
    lg_model *model;
    bool gpu;                 /* placed on the GPU (check found no blocker on its ops) */
    uint32_t n_ops;
    uint32_t *ops;            /* the original op indices, ascending */
    bool ready;               /* gpu parts: check on the part alone is ready */
    uint32_t n_blockers;      /* gpu parts: blockers check finds on the part alone */
} lg_split_part;

typedef struct lg_split {
    lg_split_part *parts; uint32_t n_parts;   /* in run order */
    uint32_t n_gpu_ops, n_cpu_ops;
    uint32_t n_renamed;                       /* boundary tensors given a unique name */
    char **input_names; uint32_t n_inputs;    /* the model's inputs and outputs, by the names */
    char **output_names; uint32_t n_outputs;  /* the parts use (for lg_chain_create) */
} lg_split;

/* GPU parts of fewer than min_gpu_ops ops (0: LG_SPLIT_MIN_GPU_OPS) run on the CPU instead,
   unless the whole model is one part: a boundary costs a copy and a sync. */
#define LG_SPLIT_MIN_GPU_OPS 4u
lg_status lg_split_model(const lg_model *m, const lg_check_options *opt, uint32_t min_gpu_ops,
                         lg_split **out, lg_error *err);
void lg_split_free(lg_split *s);

#ifdef __cplusplus
}
#endif
#endif
