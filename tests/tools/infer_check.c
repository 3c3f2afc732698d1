/* infer_check MODEL...: shape inference against the interpreter and the stored shapes.
 *
 * For every model: infer every tensor of subgraph 0 from the graph inputs and constants
 * (lg_model_infer_shapes, no stored shape of a produced tensor used where inference knows it),
 * run the interpreter (fp32, every tensor kept) and compare, for every tensor an op produces:
 * inferred == the interpreter's computed shape == the stored shape. Prints one line per model
 * ("MODEL: N tensors, N inferred exactly, N unknown to inference") and "infer_check: N passed,
 * N failed"; exits 1 on any disagreement. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "lg/ops.h"
#include "lg/run.h"

static int check_model(const char *path) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_tflite_read_file(path, NULL, &m, &err) != LG_OK) {
        printf("FAIL %s: %s\n", path, err.msg);
        return 1;
    }
    const lg_subgraph *sg = &m->subgraphs[0];
    /* pure inference: produced tensors start unknown, so nothing stored can leak in */
    lg_shape *inf = calloc(sg->n_tensors ? sg->n_tensors : 1, sizeof *inf);
    lg_interp *it = NULL;
    lg_run_options ro = {0};
    ro.precision = LG_PREC_F32;
    ro.keep_all = true;
    int bad = 0;
    uint32_t n = 0, exact = 0, unknown = 0;
    if (!inf || lg_model_infer_shapes(m, 0, LG_INFER_STATIC, inf, &err) != LG_OK) {
        printf("FAIL %s: inference: %s\n", path, inf ? err.msg : "out of memory");
        bad = 1;
        goto out;
    }
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) {
        printf("FAIL %s: interpreter: %s\n", path, err.msg);
        bad = 1;
        goto out;
    }
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        /* per op, from the interpreter's own input shapes: what lg_op_infer alone says */
        lg_shape ins[64], outs[64];
        int8_t types[64];
        if (op->n_inputs > 64 || op->n_outputs > 64) continue;
        for (uint32_t k = 0; k < op->n_inputs; k++) {
            lg_tensor_view v;
            if (op->inputs[k] < 0 || lg_interp_tensor(it, op->inputs[k], &v) != LG_OK) {
                ins[k].rank = -1;
                continue;
            }
            ins[k].rank = (int32_t)v.rank;
            for (uint32_t d = 0; d < v.rank; d++) ins[k].dim[d] = v.shape[d];
        }
        if (lg_op_infer(m, 0, i, ins, LG_INFER_STATIC, outs, types, 64, &err) != LG_OK) {
            printf("FAIL %s: op %u: %s\n", path, i, err.msg);
            bad = 1;
            continue;
        }
        for (uint32_t k = 0; k < op->n_outputs; k++) {
            int32_t t = op->outputs[k];
            lg_tensor_view v;
            if (t < 0 || lg_interp_tensor(it, t, &v) != LG_OK) continue;
            n++;
            lg_shape run;
            run.rank = (int32_t)v.rank;
            for (uint32_t d = 0; d < v.rank; d++) run.dim[d] = v.shape[d];
            lg_shape stored = lg_shape_of_tensor(&sg->tensors[t], false);
            char a[128], b[128], c[128];
            if (!lg_shape_is_static(&outs[k])) {
                unknown++;
            } else if (!lg_shape_compatible(&outs[k], &run) || outs[k].rank != run.rank) {
                printf("FAIL %s: op %u (%s) output %u: inferred %s, the interpreter computed %s\n",
                       path, i, lg_op_name(m, op), k, lg_shape_str(&outs[k], a, sizeof a),
                       lg_shape_str(&run, b, sizeof b));
                bad = 1;
            } else {
                exact++;
            }
            if (!lg_shape_compatible(&inf[t], &run) || !lg_shape_compatible(&stored, &run)) {
                printf("FAIL %s: tensor %d: whole-graph inference %s, interpreter %s, stored %s\n",
                       path, t, lg_shape_str(&inf[t], a, sizeof a), lg_shape_str(&run, b, sizeof b),
                       lg_shape_str(&stored, c, sizeof c));
                bad = 1;
            }
        }
    }
    printf("%s: %u tensors, %u inferred exactly, %u unknown to inference\n", path, n, exact, unknown);
out:
    lg_interp_free(it);
    free(inf);
    lg_model_free(m);
    return bad;
}

int main(int argc, char **argv) {
    int pass = 0, fail = 0;
    for (int i = 1; i < argc; i++) {
        if (check_model(argv[i])) fail++;
        else pass++;
    }
    printf("infer_check: %d passed, %d failed\n", pass, fail);
    return fail || argc < 2 ? 1 : 0;
}
