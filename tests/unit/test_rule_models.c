/* The shared rule-model library (tests/models/rule_models.c): every model builds in both I/O
   forms, passes lg_model_validate and lg_model_validate_ops, and its stored output shapes are
   what the ops compute. The shape oracle is the interpreter's prepare (lg_interp_create),
   whose kernels compute each output shape as TFLite's Prepare does and refuse a model that
   declares another one (LG_ERR_FORMAT, "computed output shape ... but the model declares
   ..."); an op it has no kernel for (LG_ERR_UNSUPPORTED: BITWISE_XOR, custom ops, INT8
   arithmetic, runtime axes...) stops the check there, and those shapes are derived by hand
   in the library's comments. The LGM_INVALID models, triggers that only exist as models
   TFLite refuses, must be refused as malformed. The delegate's form has float32/int32 graph
   I/O only. */
#include <string.h>

#include "../models/rule_models.h"
#include "lg/lg.h"
#include "lg/ops.h"
#include "lg/run.h"
#include "tf.h"

/* The status of preparing m for a run (fp32). */
static lg_status prepare(const lg_model *m, lg_error *err) {
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.precision = LG_PREC_F32;
    lg_interp *it = NULL;
    lg_status st = lg_interp_create(m, &ro, &it, err);
    lg_interp_free(it);
    return st;
}

static int io_type_ok(lg_dtype t) { return t == LG_FLOAT32 || t == LG_INT32; }

LG_TEST(rule_models_shape_consistent) {
    int n_invalid = 0;
    for (size_t i = 0; i < lgm_n_cases; i++) {
        const lgm_case *c = &lgm_cases[i];
        for (int io = 0; io < 2; io++) {
            lg_error err;
            lg_model *m = lgm_build(c->build, (lgm_io)io, &err);
            if (!m) {
                tf_fail(__FILE__, __LINE__, "%s (io %d): build failed: %s", c->name, io, err.msg);
                continue;
            }
            if (lg_model_validate(m, &err) != LG_OK)
                tf_fail(__FILE__, __LINE__, "%s (io %d): lg_model_validate: %s", c->name, io, err.msg);
            /* the op table's inference; while it is a skeleton this holds trivially, and the
               LGM_INVALID models are not held to it (the validator will refuse them) */
            if (!(c->flags & LGM_INVALID) && lg_model_validate_ops(m, &err) != LG_OK)
                tf_fail(__FILE__, __LINE__, "%s (io %d): lg_model_validate_ops: %s", c->name, io, err.msg);
            lg_status st = prepare(m, &err);
            if (c->flags & LGM_INVALID) {
                if (st != LG_ERR_FORMAT)
                    tf_fail(__FILE__, __LINE__, "%s (io %d): flagged LGM_INVALID but prepares: %s", c->name, io,
                            lg_status_str(st));
                n_invalid += io == 0;
            } else if (st != LG_OK && st != LG_ERR_UNSUPPORTED) {
                tf_fail(__FILE__, __LINE__, "%s (io %d): %s", c->name, io, err.msg);
            }
            lg_model_free(m);
        }
    }
    CHECK_EQ_INT(n_invalid, 5); /* the five listed in rule_models.h */
}

/* LGM_IO_LITERT models feed and read float32/int32 only (LiteRT.js refuses other graph I/O). */
LG_TEST(rule_models_litert_io_types) {
    int n_delegate = 0;
    for (size_t i = 0; i < lgm_n_cases; i++) {
        const lgm_case *c = &lgm_cases[i];
        if (!(c->flags & LGM_DELEGATE)) continue;
        n_delegate++;
        lg_error err;
        lg_model *m = lgm_build(c->build, LGM_IO_LITERT, &err);
        if (!m) continue; /* reported above */
        const lg_subgraph *sg = &m->subgraphs[0];
        for (uint32_t k = 0; k < sg->n_inputs; k++)
            if (!io_type_ok(sg->tensors[sg->inputs[k]].type))
                tf_fail(__FILE__, __LINE__, "%s: graph input %u is %s", c->name, k,
                        lg_dtype_name(sg->tensors[sg->inputs[k]].type));
        for (uint32_t k = 0; k < sg->n_outputs; k++)
            if (!io_type_ok(sg->tensors[sg->outputs[k]].type))
                tf_fail(__FILE__, __LINE__, "%s: graph output %u is %s", c->name, k,
                        lg_dtype_name(sg->tensors[sg->outputs[k]].type));
        lg_model_free(m);
    }
    CHECK_EQ_INT(n_delegate, 137); /* tests/e2e/test_check_vs_delegate.sh's models */
}
