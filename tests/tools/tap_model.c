/* tap_model: a copy of a model with intermediate tensors added as graph outputs (taps), to
 * see where the real GPU delegate rounds: a graph output must be stored, so tapping a tensor
 * also forces the delegate to materialize it.
 *
 *   tap_model IN.tflite OUT.tflite all          every float tensor an op computes at run time
 *   tap_model IN.tflite OUT.tflite T1,T2,...    these tensor indices
 *
 * The model's own outputs stay first (output_K keeps its meaning); the taps follow in the
 * order given (all: tensor order). Constant-folded tensors (outputs of ops whose inputs are all
 * constant, e.g. DEQUANTIZE of fp16 weights) are never tapped. Prints "K TENSOR" per tap
 * (K the output index). Exit 0, 2 on error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: tap_model IN.tflite OUT.tflite all|T1,T2,...\n");
        return 2;
    }
    lg_model *m;
    lg_error err;
    if (lg_tflite_read_file(argv[1], NULL, &m, &err) != LG_OK) { fprintf(stderr, "%s\n", err.msg); return 2; }
    const lg_subgraph *sg = &m->subgraphs[0];
    uint32_t nt = sg->n_tensors;
    char *cst = calloc(nt + 1, 1), *is_out = calloc(nt + 1, 1);
    int32_t *outs = malloc((nt + sg->n_outputs + 1) * sizeof *outs);
    if (!cst || !is_out || !outs) return 2;
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t b = sg->tensors[t].buffer;
        cst[t] = b && b < m->n_buffers && m->buffers[b].data != NULL;
    }
    char *made = calloc(nt + 1, 1);
    if (!made) return 2;
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        int all = op->n_inputs > 0;
        for (uint32_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= 0 && !cst[op->inputs[k]]) all = 0;
        for (uint32_t k = 0; k < op->n_outputs; k++) {
            if (all) cst[op->outputs[k]] = 1;
            else made[op->outputs[k]] = 1;
        }
    }
    uint32_t n = 0;
    for (uint32_t k = 0; k < sg->n_outputs; k++) { outs[n++] = sg->outputs[k]; is_out[sg->outputs[k]] = 1; }
    uint32_t first_tap = n;
    if (strcmp(argv[3], "all") == 0) {
        for (uint32_t t = 0; t < nt; t++)
            if (made[t] && !is_out[t] && (sg->tensors[t].type == LG_FLOAT32 || sg->tensors[t].type == LG_FLOAT16))
                outs[n++] = (int32_t)t, is_out[t] = 1;
    } else {
        for (char *p = argv[3]; *p;) {
            long t = strtol(p, &p, 10);
            if (t < 0 || (uint32_t)t >= nt || !made[t]) { fprintf(stderr, "tap_model: %ld is not a computed tensor\n", t); return 2; }
            if (!is_out[t]) outs[n++] = (int32_t)t, is_out[t] = 1;
            if (*p == ',') p++;
            else if (*p) { fprintf(stderr, "tap_model: bad list %s\n", argv[3]); return 2; }
        }
    }
    if (lg_subgraph_set_io(m, 0, sg->inputs, sg->n_inputs, outs, n, &err) != LG_OK) { fprintf(stderr, "%s\n", err.msg); return 2; }
    lg_write_options wo = {0};
    wo.force = true;
    if (lg_tflite_write_file(m, argv[2], &wo, &err) != LG_OK) { fprintf(stderr, "%s\n", err.msg); return 2; }
    for (uint32_t k = first_tap; k < n; k++) printf("%u %d\n", k, outs[k]);
    lg_model_free(m);
    free(cst); free(is_out); free(outs); free(made);
    return 0;
}
