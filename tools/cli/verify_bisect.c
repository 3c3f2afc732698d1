/* verify --bisect (verify_bisect.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/graph.h"
#include "verify_bisect.h"

typedef struct tap {
    int32_t op;              /* producer in the model */
    int32_t tensor;
    uint32_t output;         /* output index in the tapped model */
    bool have, pass, pearson_defined;
    lg_metrics m;
    lg_verdict v;
} tap;

static int by_op(const void *a, const void *b) {
    const tap *x = a, *y = b;
    if (x->op != y->op) return x->op < y->op ? -1 : 1;
    return x->output < y->output ? -1 : (x->output > y->output);
}


static void tap_json(json_w *j, const lg_model *m, const tap *t) {
    const lg_subgraph *sg = &m->subgraphs[0];
    json_obj_open_flat(j);
    json_key_int(j, "op", t->op);
    json_key_str(j, "op_name", t->op >= 0 ? lg_op_name(m, &sg->ops[t->op]) : NULL);
    json_key_int(j, "tensor", t->tensor);
    json_key_str(j, "name", sg->tensors[t->tensor].name);
    json_key_bool(j, "ok", t->have && t->pass);
    if (t->have) {
        json_key_double(j, "score", t->v.score);
        json_key_double(j, "pearson", t->pearson_defined ? t->m.pearson : NAN);
        json_key_double(j, "max_abs", t->m.max_abs);
    }
    json_obj_close(j);
}

int cli_bisect_report(const char *path, const lg_model *tapped, uint32_t n_orig_outputs, const jv *rep,
                      const char *dir, const char *prec, double corr, json_w *j) {
    const lg_subgraph *sg = &tapped->subgraphs[0];
    const jv *outs = jv_get(rep, "outputs");
    uint32_t n = sg->n_outputs;
    tap *taps = calloc(n ? n : 1, sizeof *taps);
    lg_graph *g = NULL;
    lg_error gerr;
    if (!taps || lg_graph_build(tapped, 0, &g, &gerr) != LG_OK) {
        free(taps);
        return 0;
    }
    for (uint32_t k = 0; k < n; k++) {
        tap *t = &taps[k];
        t->output = k;
        t->tensor = sg->outputs[k];
        t->op = lg_graph_producer(g, t->tensor);
        const jv *o = outs ? jv_at(outs, k) : NULL;
        if (o && cli_verify_judge(o, dir, corr, &t->m, &t->v, &t->pearson_defined) == 0) {
            t->have = true;
            t->pass = t->v.pass;
        }
    }
    /* the model's own outputs, then the taps in run order */
    uint32_t n_taps = n > n_orig_outputs ? n - n_orig_outputs : 0;
    qsort(taps + n_orig_outputs, n_taps, sizeof *taps, by_op);
    const tap *first = NULL;
    for (uint32_t k = n_orig_outputs; k < n && !first; k++)
        if (!taps[k].have || !taps[k].pass) first = &taps[k];
    bool outputs_ok = true;
    for (uint32_t k = 0; k < n_orig_outputs; k++) outputs_ok &= taps[k].have && taps[k].pass;
    int compiled = jv_bool(rep, "compiled", 0);
    if (j) {
        json_key(j, "bisect");
        json_obj_open(j);
        json_key_bool(j, "compiled", compiled);
        json_key_uint(j, "n_taps", n_taps);
        json_key_bool(j, "outputs_ok", outputs_ok);
        json_key(j, "first_divergent");
        if (first) tap_json(j, tapped, first);
        else json_null(j);
        json_key(j, "taps");
        json_arr_open(j);
        for (uint32_t k = n_orig_outputs; k < n; k++) tap_json(j, tapped, &taps[k]);
        json_arr_close(j);
        json_obj_close(j);
    } else {
        printf("%s on ML Drift (LiteRT.js WebGPU, %s), bisect over %u tap(s): ", path, prec, n_taps);
        if (!compiled) printf("the tapped model DID NOT COMPILE\n");
        else if (first) printf("first divergent op %d %s\n", first->op, lg_op_name(tapped, &sg->ops[first->op]));
        else printf("no tapped op diverges\n");
        if (compiled && first) {
            if (first->have)
                printf("  op %d %s output \"%s\": GPU vs CPU score %.3g (tol %.3g), pearson %s%.6f, max_abs %.3g%s\n",
                       first->op, lg_op_name(tapped, &sg->ops[first->op]), sg->tensors[first->tensor].name, first->v.score,
                       first->v.tol, first->pearson_defined ? "" : "n/a ", first->pearson_defined ? first->m.pearson : 0,
                       first->m.max_abs, first->v.new_nonfinite ? " (new inf/NaN)" : "");
            else
                printf("  op %d: no comparison (the GPU or CPU output is missing)\n", first->op);
            uint32_t before = (uint32_t)(first - taps) - n_orig_outputs;
            printf("  the %u tap(s) before it agree with the CPU\n", before);
            if (outputs_ok)
                printf("  the model's outputs agree: the tap itself may be what differs (a stored intermediate the "
                       "untapped model never writes)\n");
        }
        if (compiled && !first && !outputs_ok)
            printf("  but an output diverges: the divergence needs a fusion the taps prevent (each tap is stored)\n");
        for (uint32_t k = 0; compiled && k < n_orig_outputs; k++)
            printf("  output %u: %s (score %.3g)\n", k, taps[k].have && taps[k].pass ? "agrees" : "DIFFERS",
                   taps[k].have ? taps[k].v.score : NAN);
    }
    free(taps);
    lg_graph_free(g);
    return compiled && !first && outputs_ok;
}
