/* Helpers for the `fix` pass tests (test_fix_*.c): build a model, run one pass (with
   remove-dead after it, as the fix pipeline does) with parity proved by the runner, look at
   lg_check's findings before and after, and run a model on given inputs. */
#ifndef LG_FIXT_IDX_H
#define LG_FIXT_IDX_H
#include <stdlib.h>

#include "lg/check.h"
#include "lg/graph.h"
#include "lg/lg.h"
#include "lg/ops.h"
#include "lg/passes.h"
#include "lg/run.h"
#include "tf.h"

static inline lg_model *fixt_new(lg_builder *b) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(NULL, NULL, &m, &err) != LG_OK) return NULL;
    lg_builder_init(b, m, 0);
    return m;
}

static inline const lg_pass_result *fixt_result(const lg_pass_report *r, const char *name) {
    for (uint32_t i = 0; r && i < r->n_passes; i++)
        if (strcmp(r->passes[i].pass, name) == 0) return &r->passes[i];
    return NULL;
}

/* Run pass `name` then remove-dead with parity proved (golden + 2 random inputs); NULL (and a
   failed check) when the runner fails. opt may be NULL. */
static inline lg_model *fixt_run_opt(const lg_model *m, const char *name, const lg_pass_run_options *opt,
                                     lg_pass_report **rep) {
    const lg_pass *p = lg_pass_find(name), *dead = lg_pass_find("remove-dead");
    if (!p || !dead) {
        tf_fail(__FILE__, __LINE__, "no pass %s", name);
        return NULL;
    }
    const lg_pass *ps[2] = {p, dead};
    lg_pass_run_options o;
    memset(&o, 0, sizeof o);
    if (opt) o = *opt;
    o.prove = true;
    o.n_random = 2;
    lg_model *out = NULL;
    lg_error err;
    if (lg_passes_run(m, ps, 2, 4, &o, &out, rep, &err) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "lg_passes_run(%s): %s", name, err.msg);
        return NULL;
    }
    return out;
}

static inline lg_model *fixt_run(const lg_model *m, const char *name, lg_pass_report **rep) {
    return fixt_run_opt(m, name, NULL, rep);
}

/* The pass applied and its parity was proved within the exact bound. */
static inline bool fixt_proved(const lg_pass_report *rep, const char *name) {
    const lg_pass_result *r = fixt_result(rep, name);
    return r && r->delta.applied > 0 && r->parity_measured && r->max_rel <= 1e-6;
}

static inline uint32_t fixt_findings(const lg_model *m, lg_target t, const char *rule) {
    lg_check_options co = {t, 0, LG_GPU_ANY};
    lg_check_report *rep = NULL;
    lg_error err;
    if (lg_check_model(m, &co, &rep, &err) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "lg_check_model: %s", err.msg);
        return 0;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < rep->n_findings; i++) n += strcmp(rep->findings[i].rule->id, rule) == 0;
    lg_check_report_free(rep);
    return n;
}

static inline uint32_t fixt_blockers(const lg_model *m, lg_target t) {
    lg_check_options co = {t, 0, LG_GPU_ANY};
    lg_check_report *rep = NULL;
    lg_error err;
    if (lg_check_model(m, &co, &rep, &err) != LG_OK) return 999;
    uint32_t n = rep->n_blockers;
    lg_check_report_free(rep);
    return n;
}

static inline uint32_t fixt_count(const lg_model *m, int32_t code) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->subgraphs[0].n_ops; i++) n += lg_op_builtin(m, &m->subgraphs[0].ops[i]) == code;
    return n;
}

/* The same op codes in the same order. */
static inline bool fixt_same_ops(const lg_model *a, const lg_model *b) {
    if (a->subgraphs[0].n_ops != b->subgraphs[0].n_ops) return false;
    for (uint32_t i = 0; i < a->subgraphs[0].n_ops; i++)
        if (lg_op_builtin(a, &a->subgraphs[0].ops[i]) != lg_op_builtin(b, &b->subgraphs[0].ops[i])) return false;
    return true;
}

/* Run m (fp32) on inputs (one array per input, in the input's type) and copy output k (numel
   elements of its type) into out; false (and a failed check) on an error. */
static inline bool fixt_eval(const lg_model *m, const void *const *in, uint32_t k, void *out, int64_t numel) {
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_interp *it = NULL;
    lg_error err;
    memset(&err, 0, sizeof err);
    bool ok = lg_interp_create(m, &ro, &it, &err) == LG_OK;
    for (uint32_t i = 0; ok && i < lg_interp_n_inputs(it); i++) {
        lg_tensor_view v;
        lg_interp_input(it, i, &v);
        ok = lg_interp_set_input(it, i, v.type, in[i], v.nbytes, &err) == LG_OK;
    }
    lg_tensor_view v;
    if (ok) ok = lg_interp_invoke(it, &err) == LG_OK;
    if (ok) ok = lg_interp_output(it, k, &v) == LG_OK && v.numel == numel;
    if (ok) memcpy(out, v.data, (size_t)v.nbytes);
    else tf_fail(__FILE__, __LINE__, "eval: %s", err.msg);
    lg_interp_free(it);
    return ok;
}

/* 0, 1, 2, ... */
static inline void fixt_iota(float *x, int64_t n) {
    for (int64_t i = 0; i < n; i++) x[i] = (float)i;
}
#endif
