/* fixt.h: the shared helpers of the `fix` pass tests. */
#include "fixt.h"

#include <stdlib.h>
#include <string.h>

#include "lg/run.h"
#include "tf.h"

lg_model *fixt_new(lg_builder *b) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(NULL, NULL, &m, &err) != LG_OK) return NULL;
    lg_builder_init(b, m, 0);
    return m;
}

static lg_check_report *check(const lg_model *m, lg_target t, lg_gpu gpu) {
    lg_check_options co = {t, 0, gpu};
    lg_check_report *rep = NULL;
    lg_error err;
    if (lg_check_model(m, &co, &rep, &err) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "lg_check_model: %s", err.msg);
        return NULL;
    }
    return rep;
}

bool fixt_has(const lg_model *m, lg_target t, lg_gpu gpu, const char *rule) {
    lg_check_report *rep = check(m, t, gpu);
    if (!rep) return false;
    bool found = false;
    for (uint32_t i = 0; i < rep->n_findings; i++)
        if (strcmp(rep->findings[i].rule->id, rule) == 0) found = true;
    lg_check_report_free(rep);
    return found;
}

bool fixt_ready(const lg_model *m, lg_target t, lg_gpu gpu) {
    lg_check_report *rep = check(m, t, gpu);
    if (!rep) return false;
    bool ready = rep->ready;
    if (!ready && getenv("FIXT_VERBOSE"))
        for (uint32_t i = 0; i < rep->n_findings; i++)
            if (rep->findings[i].rule->severity == LG_SEV_BLOCKER)
                fprintf(stderr, "  (not ready on %s: op %d %s: %s)\n", lg_target_name(t), rep->findings[i].op,
                        rep->findings[i].rule->id, rep->findings[i].reason);
    lg_check_report_free(rep);
    return ready;
}

lg_model *fixt_run(const lg_model *m, const char *const *names, lg_pass_report **rep,
                   const char *file, int line) {
    const lg_pass *passes[16];
    uint32_t n = 0;
    for (; names[n] && n < 16; n++) {
        passes[n] = lg_pass_find(names[n]);
        if (!passes[n]) {
            tf_fail(file, line, "no pass %s", names[n]);
            return NULL;
        }
    }
    lg_pass_run_options o;
    memset(&o, 0, sizeof o);
    o.prove = true;
    o.n_random = 2;
    lg_model *out = NULL;
    lg_error err;
    if (lg_passes_run(m, passes, n, 1, &o, &out, rep, &err) != LG_OK) {
        tf_fail(file, line, "lg_passes_run: %s", err.msg);
        return NULL;
    }
    return out;
}

const lg_pass_result *fixt_result(const lg_pass_report *r, const char *name) {
    for (uint32_t i = 0; r && i < r->n_passes; i++)
        if (strcmp(r->passes[i].pass, name) == 0) return &r->passes[i];
    return NULL;
}

uint32_t fixt_applied(const lg_pass_report *r, const char *name) {
    uint32_t n = 0;
    for (uint32_t i = 0; r && i < r->n_passes; i++)
        if (strcmp(r->passes[i].pass, name) == 0) n += r->passes[i].delta.applied;
    return n;
}

double fixt_max_rel(const lg_pass_report *r, const char *name) {
    const lg_pass_result *p = fixt_result(r, name);
    if (!p || !p->parity_measured) return -1;
    if (getenv("FIXT_VERBOSE"))
        fprintf(stderr, "  %s: max_rel %.3g max_abs %.3g over %u cases\n", name, p->max_rel, p->max_abs, p->n_cases);
    return p->max_rel;
}

uint32_t fixt_count(const lg_model *m, int32_t code) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->subgraphs[0].n_ops; i++)
        if (lg_op_builtin(m, &m->subgraphs[0].ops[i]) == code) n++;
    return n;
}

bool fixt_same_ops(const lg_model *a, const lg_model *b) {
    const lg_subgraph *x = &a->subgraphs[0], *y = &b->subgraphs[0];
    if (x->n_ops != y->n_ops || x->n_tensors != y->n_tensors) return false;
    for (uint32_t i = 0; i < x->n_ops; i++) {
        const lg_op *p = &x->ops[i], *q = &y->ops[i];
        if (lg_op_builtin(a, p) != lg_op_builtin(b, q) || p->n_inputs != q->n_inputs || p->n_outputs != q->n_outputs)
            return false;
        if (a->opcodes[p->opcode_index].version != b->opcodes[q->opcode_index].version) return false;
        if (memcmp(p->inputs, q->inputs, p->n_inputs * sizeof(int32_t)) != 0 ||
            memcmp(p->outputs, q->outputs, p->n_outputs * sizeof(int32_t)) != 0)
            return false;
    }
    return true;
}

int64_t fixt_eval(const lg_model *m, const float *const *inputs, uint32_t k, float *out, int64_t cap,
                  const char *file, int line) {
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.precision = LG_PREC_F32;
    lg_interp *it = NULL;
    lg_error err;
    int64_t n = -1;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) {
        tf_fail(file, line, "lg_interp_create: %s", err.msg);
        return -1;
    }
    for (uint32_t i = 0; i < m->subgraphs[0].n_inputs; i++) {
        const lg_tensor *t = &m->subgraphs[0].tensors[m->subgraphs[0].inputs[i]];
        int64_t ne = lg_tensor_numel(t);
        if (lg_interp_set_input(it, i, LG_FLOAT32, inputs[i], (uint64_t)ne * 4, &err) != LG_OK) {
            tf_fail(file, line, "lg_interp_set_input %u: %s", i, err.msg);
            goto done;
        }
    }
    if (lg_interp_invoke(it, &err) != LG_OK) {
        tf_fail(file, line, "lg_interp_invoke: %s", err.msg);
        goto done;
    }
    lg_tensor_view v;
    if (lg_interp_output(it, k, &v) != LG_OK || v.type != LG_FLOAT32 || v.numel > cap) {
        tf_fail(file, line, "output %u missing, not float or larger than %lld", k, (long long)cap);
        goto done;
    }
    memcpy(out, v.data, (size_t)v.numel * sizeof(float));
    n = v.numel;
done:
    lg_interp_free(it);
    return n;
}
