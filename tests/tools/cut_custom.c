/* cut_custom IN.tflite OUT.tflite NAME -- a copy of a model with its custom op NAME removed:
 * the op's inputs that are not constants become the graph's outputs (in input order), the op's
 * own outputs are dropped. For the real quantized corpus model whose detection post-processing
 * (TFLite_Detection_PostProcess, a custom op litegpu has no kernel for) ends the graph: the
 * cut model's outputs are the raw box encodings and class scores, which both runtimes compute.
 * Exit 0, 2 on error. Public API only. */
#include <stdio.h>
#include <string.h>

#include "lg/graph.h"
#include "lg/lg.h"

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: cut_custom IN.tflite OUT.tflite CUSTOM_NAME\n");
        return 2;
    }
    lg_model *m;
    lg_error err;
    if (lg_tflite_read_file(argv[1], NULL, &m, &err) != LG_OK) {
        fprintf(stderr, "cut_custom: %s\n", err.msg);
        return 2;
    }
    const lg_subgraph *sg = &m->subgraphs[0];
    int found = -1;
    for (uint32_t i = 0; i < sg->n_ops && found < 0; i++) {
        const char *c = m->opcodes[sg->ops[i].opcode_index].custom_code;
        if (c && strcmp(c, argv[3]) == 0) found = (int)i;
    }
    if (found < 0) {
        fprintf(stderr, "cut_custom: %s has no custom op %s\n", argv[1], argv[3]);
        lg_model_free(m);
        return 2;
    }
    int32_t outs[16];
    uint32_t no = 0;
    const lg_op *op = &sg->ops[found];
    for (uint32_t k = 0; k < op->n_inputs && no < 16; k++) {
        int32_t t = op->inputs[k];
        if (t >= 0 && !lg_tensor_is_const(m, 0, t)) outs[no++] = t;
    }
    lg_status st = lg_op_remove(m, 0, (uint32_t)found, &err);
    if (st == LG_OK) st = lg_subgraph_set_io(m, 0, sg->inputs, sg->n_inputs, outs, no, &err);
    if (st == LG_OK) st = lg_model_compact(m, NULL, NULL, &err);
    lg_write_options wo = {.force = true};
    if (st == LG_OK) st = lg_tflite_write_file(m, argv[2], &wo, &err);
    lg_model_free(m);
    if (st != LG_OK) {
        fprintf(stderr, "cut_custom: %s\n", err.msg);
        return 2;
    }
    return 0;
}
