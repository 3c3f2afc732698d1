/* The quantized-model rules of `litegpu check` (dequantize-const-shape, fc-runtime-weights-bias,
 * quant-graph-output, op-version-understated; src/check/check_quant.c), a trigger and near-misses
 * each, built once for both of their users:
 *
 *   tests/unit/test_check_quant.c        asserts what lg_check_model reports on each model,
 *                                        on both targets;
 *   tests/tools/make_check_quant_models.c writes the LGQ_DELEGATE ones as .tflite files for
 *                                        tests/e2e/test_check_quant.sh, which runs them through
 *                                        the real ML Drift delegate (LiteRT.js WebGPU).
 *
 * Names follow the ML Drift target (a trigger is a model on which `check --target mldrift`
 * reports the rule); the unit test also asserts the classic target's outcome, which differs
 * where the classic parser's own rule does (a rank-2 constant of one row, an INT4 constant).
 * Every model has float32 graph inputs and outputs except where the rule is about them;
 * LiteRT.js feeds and reads no INT8 graph tensor ("Element type INT8 is not supported"), so a
 * model with one is not LGQ_DELEGATE. Constants hold fixed non-trivial data (lgq_fill_i8).
 *
 * Include as "../models/quant_check_models.h"; link tests/models/quant_check_models.c. */
#ifndef LG_TESTS_QUANT_CHECK_MODELS_H
#define LG_TESTS_QUANT_CHECK_MODELS_H
#include "lg/lg.h"

typedef void (*lgq_build_fn)(lg_builder *b);

enum { LGQ_DELEGATE = 1u << 0 }; /* written by make_check_quant_models for the delegate run */

/* X(fn, rule, variant, flags): every model, the delegate's in the order of its manifest. */
#define LGQ_MODELS(X)                                                               \
    X(dqc_trigger, "dequantize-const-shape", "trigger", LGQ_DELEGATE)               \
    X(dqc_trigger2, "dequantize-const-shape", "trigger2", LGQ_DELEGATE)             \
    X(dqc_trigger3, "dequantize-const-shape", "trigger3", LGQ_DELEGATE)             \
    X(dqc_trigger4, "dequantize-const-shape", "trigger4", LGQ_DELEGATE)             \
    X(dqc_trigger5, "dequantize-const-shape", "trigger5", LGQ_DELEGATE)             \
    X(dqc_trigger6, "dequantize-const-shape", "trigger6", LGQ_DELEGATE)             \
    X(dqc_nearmiss, "dequantize-const-shape", "nearmiss", LGQ_DELEGATE)             \
    X(dqc_nearmiss2, "dequantize-const-shape", "nearmiss2", LGQ_DELEGATE)           \
    X(dqc_nearmiss3, "dequantize-const-shape", "nearmiss3", LGQ_DELEGATE)           \
    X(dqc_nearmiss4, "dequantize-const-shape", "nearmiss4", LGQ_DELEGATE)           \
    X(dqc_nearmiss5, "dequantize-const-shape", "nearmiss5", LGQ_DELEGATE)           \
    X(dqc_nearmiss6, "dequantize-const-shape", "nearmiss6", LGQ_DELEGATE)           \
    X(frw_trigger, "fc-runtime-weights-bias", "trigger", LGQ_DELEGATE)              \
    X(frw_trigger2, "fc-runtime-weights-bias", "trigger2", LGQ_DELEGATE)            \
    X(frw_nearmiss, "fc-runtime-weights-bias", "nearmiss", LGQ_DELEGATE)            \
    X(frw_nearmiss2, "fc-runtime-weights-bias", "nearmiss2", LGQ_DELEGATE)          \
    X(qgo_trigger, "quant-graph-output", "trigger", LGQ_DELEGATE)                   \
    X(qgo_trigger2, "quant-graph-output", "trigger2", LGQ_DELEGATE)                 \
    X(qgo_trigger3, "quant-graph-output", "trigger3", 0)                            \
    X(qgo_nearmiss, "quant-graph-output", "nearmiss", LGQ_DELEGATE)                 \
    X(qgo_nearmiss2, "quant-graph-output", "nearmiss2", LGQ_DELEGATE)               \
    X(ovu_trigger, "op-version-understated", "trigger", LGQ_DELEGATE)               \
    X(ovu_trigger2, "op-version-understated", "trigger2", LGQ_DELEGATE)             \
    X(ovu_nearmiss, "op-version-understated", "nearmiss", LGQ_DELEGATE)             \
    X(ovu_nearmiss2, "op-version-understated", "nearmiss2", LGQ_DELEGATE)           \
    X(ovu_nearmiss3, "op-version-understated", "nearmiss3", LGQ_DELEGATE)

#define LGQ_DECLARE(fn, rule, variant, flags) void lgq_##fn(lg_builder *b);
LGQ_MODELS(LGQ_DECLARE)
#undef LGQ_DECLARE

typedef struct lgq_model {
    const char *name; /* "rule__variant" */
    const char *rule, *variant;
    unsigned flags;
    lgq_build_fn build;
} lgq_model;

/* Every model of LGQ_MODELS, in order. */
const lgq_model *lgq_models(unsigned *n);

#endif
