/* make_check_quant_models DIR [QUANT_IN.tflite QUANT_OUT.tflite] -- for
 * tests/e2e/test_check_quant.sh:
 *
 *   DIR/<rule-id>__<variant>.tflite   the LGQ_DELEGATE models of tests/models/quant_check_models.c
 *                                     (float32 graph I/O except where the rule is about it; the
 *                                     unit test tests/unit/test_check_quant.c asserts check's
 *                                     findings on the same models)
 *   DIR/manifest.tsv                  "file<TAB>rule<TAB>kind<TAB>check_args" after a header
 *                                     line (kind trigger|nearmiss), the format of
 *                                     tests/e2e/delegate_verdict.py
 *
 * With QUANT_IN/QUANT_OUT: a copy of QUANT_IN whose INT8/UINT8 graph outputs each get a
 * DEQUANTIZE to a float32 output of the same name + "_float", in place of the quantized one: the
 * fix of check's quant-graph-output (for the Coral SSD cut by tests/tools/cut_custom.c).
 * Public API only. Exit 0, 1 with one line on stderr per failure. */
#include <stdio.h>
#include <string.h>

#include "../models/quant_check_models.h"
#include "lg/lg.h"

static int write_one(const char *dir, const lgq_model *q, FILE *man) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.tflite", dir, q->name);
    lg_model *m = NULL;
    lg_error err;
    lg_status st = lg_model_new(NULL, NULL, &m, &err);
    if (st == LG_OK) {
        lg_builder b;
        lg_builder_init(&b, m, 0);
        q->build(&b);
        st = b.status;
        if (st != LG_OK) err = b.err;
    }
    lg_write_options wo = {.force = true};
    if (st == LG_OK) st = lg_tflite_write_file(m, path, &wo, &err);
    lg_model_free(m);
    if (st != LG_OK) {
        fprintf(stderr, "make_check_quant_models: %s: %s\n", path, err.msg);
        return 1;
    }
    fprintf(man, "%s.tflite\t%s\t%s\t\n", q->name, q->rule, strncmp(q->variant, "trigger", 7) == 0 ? "trigger" : "nearmiss");
    return 0;
}

/* The quantized outputs of in each through a DEQUANTIZE (version 1 for UINT8, 2 for INT8:
   op_version.cc), written to out. */
static int dequantize_outputs(const char *in, const char *out) {
    lg_model *m = NULL;
    lg_error err;
    lg_status st = lg_tflite_read_file(in, NULL, &m, &err);
    if (st != LG_OK) {
        fprintf(stderr, "make_check_quant_models: %s\n", err.msg);
        return 1;
    }
    int32_t outs[16];
    uint32_t n = m->subgraphs[0].n_outputs;
    if (n > 16) n = 16;
    for (uint32_t k = 0; k < n; k++) outs[k] = m->subgraphs[0].outputs[k];
    for (uint32_t k = 0; k < n && st == LG_OK; k++) {
        const lg_tensor *t = &m->subgraphs[0].tensors[outs[k]];
        if (t->type != LG_INT8 && t->type != LG_UINT8) continue;
        char name[256];
        snprintf(name, sizeof name, "%s_float", t->name ? t->name : "output");
        int ver = t->type == LG_INT8 ? 2 : 1;
        int32_t shape[8], y;
        uint32_t rank = t->rank < 8 ? t->rank : 8;
        memcpy(shape, t->shape, rank * sizeof *shape);
        st = lg_subgraph_add_tensor(m, 0, name, LG_FLOAT32, shape, rank, &y, &err);
        if (st == LG_OK)
            st = lg_subgraph_add_op(m, 0, LG_OP_DEQUANTIZE, NULL, ver, &outs[k], 1, &y, 1, LG_OPTS_NONE, NULL, NULL, &err);
        if (st == LG_OK) outs[k] = y;
    }
    const lg_subgraph *sg = &m->subgraphs[0];
    if (st == LG_OK) st = lg_subgraph_set_io(m, 0, sg->inputs, sg->n_inputs, outs, n, &err);
    lg_write_options wo = {.force = true};
    if (st == LG_OK) st = lg_tflite_write_file(m, out, &wo, &err);
    lg_model_free(m);
    if (st != LG_OK) {
        fprintf(stderr, "make_check_quant_models: %s: %s\n", out, err.msg);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 4) {
        fprintf(stderr, "usage: make_check_quant_models DIR [QUANT_IN.tflite QUANT_OUT.tflite]\n");
        return 1;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/manifest.tsv", argv[1]);
    FILE *man = fopen(path, "w");
    if (!man) {
        fprintf(stderr, "make_check_quant_models: cannot write %s\n", path);
        return 1;
    }
    fprintf(man, "file\trule\tkind\tcheck_args\n");
    unsigned n;
    const lgq_model *all = lgq_models(&n);
    int rc = 0;
    for (unsigned i = 0; i < n; i++)
        if (all[i].flags & LGQ_DELEGATE) rc |= write_one(argv[1], &all[i], man);
    if (fclose(man) != 0) {
        fprintf(stderr, "make_check_quant_models: cannot write %s\n", path);
        rc = 1;
    }
    if (argc == 4) rc |= dequantize_outputs(argv[2], argv[3]);
    return rc;
}
