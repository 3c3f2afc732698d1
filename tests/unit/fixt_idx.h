/* More helpers for the `fix` pass tests of test_fix_index.c and test_fix_misc.c (fixt.h has
   the shared ones; these run one pass by name, with remove-dead after it): build a model, run one pass (with
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
#include "fixt.h"
#include "tf.h"



/* Run pass `name` then remove-dead with parity proved (golden + 2 random inputs); NULL (and a
   failed check) when the runner fails. opt may be NULL. */
static inline lg_model *fixti_run_opt(const lg_model *m, const char *name, const lg_pass_run_options *opt,
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

static inline lg_model *fixti_run(const lg_model *m, const char *name, lg_pass_report **rep) {
    return fixti_run_opt(m, name, NULL, rep);
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



/* Run m (fp32) on inputs (one array per input, in the input's type) and copy output k (numel
   elements of its type) into out; false (and a failed check) on an error. */
static inline bool fixti_eval(const lg_model *m, const void *const *in, uint32_t k, void *out, int64_t numel) {
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
