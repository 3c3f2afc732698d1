/* The delegate's kernel fusion, as far as it decides rounding (internal; the rule and its
 * sources are in fusion.c). */
#ifndef LGI_RUN_FUSION_H
#define LGI_RUN_FUSION_H

#include "lg/graph.h"
#include "run/kernel.h"

/* Mark every tensor the GPU delegate keeps in registers (in_registers = true: an elementwise
   consumer is merged into its producer's shader, so the value is never stored as a half).
   nodes[0..n_ops) must be prepared (folded set, shapes known); head[n_ops] receives, per op,
   the op heading the GPU node it runs in (itself when not merged). The interpreter calls it
   for LG_PREC_F32_F16 only. */
LG_INTERNAL void lgk_fusion_plan(const lg_graph *g, lgk_node *nodes, uint32_t n_ops, int32_t *head);

#endif
