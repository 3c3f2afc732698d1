/* The op table as a whole: every builtin code of the schema has exactly one row (the family
   .def files together), names agree with the schema, options kinds exist, the custom rows are
   unique, and the validator holds models to it (options kind, arity, stored shapes). */
#include <stdlib.h>

#include "lg/lg.h"
#include "lg/ops.h"
#include "tf.h"

LG_TEST(op_table_every_builtin_has_a_row) {
    uint32_t missing = 0;
    for (int32_t c = 0; c <= LG_OP_MAX; c++) {
        const lg_op_info *e = lg_op_info_builtin(c);
        if (!e || !e->name) {
            tf_fail(__FILE__, __LINE__, "builtin %d (%s) has no op table row", c, lg_builtin_name(c));
            missing++;
            continue;
        }
        CHECK_EQ_INT(e->code, c);
        CHECK_STR(e->name, lg_builtin_name(c));
        CHECK(e->opts_kind == LG_OPTS_NONE || lg_opts_name(e->opts_kind) != NULL);
        CHECK(e->min_in <= e->max_in && e->min_out <= e->max_out);
        CHECK((unsigned)e->family < LG_FAM_COUNT);
    }
    CHECK_EQ_INT(missing, 0);
    CHECK(lg_op_info_builtin(-1) == NULL && lg_op_info_builtin(LG_OP_MAX + 1) == NULL);
}

LG_TEST(op_table_custom_rows_unique) {
    CHECK(lg_op_custom_count() >= 5);
    for (uint32_t i = 0; i < lg_op_custom_count(); i++) {
        const lg_op_info *e = lg_op_custom_at(i);
        CHECK(e && e->name && e->code == LG_OP_CUSTOM);
        CHECK(lg_op_info_custom(e->name) == e);
        for (uint32_t j = i + 1; j < lg_op_custom_count(); j++)
            CHECK(strcmp(e->name, lg_op_custom_at(j)->name) != 0);
    }
    CHECK(lg_op_info_custom("NoSuchOp") == NULL);
    CHECK(lg_op_info_custom("Convolution2DTransposeBias") != NULL);
}

/* x[1,8,8,4] + y[1,8,8,4] -> z stored as `zshape`, with options of `kind`. */
static lg_model *add_model(lg_dims zshape, int32_t code, lg_opts_kind kind, const void *opts) {
    lg_model *m = NULL;
    lg_error err;
    lg_model_new(NULL, NULL, &m, &err);
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int z = lg_b_tensor(&b, "z", LG_FLOAT32, zshape);
    if (code == LG_OP_ADD) lg_b_op_opts(&b, code, LG_IDS(x, y), LG_IDS(z), kind, opts);
    else lg_b_op_opts(&b, code, LG_IDS(x), LG_IDS(z), kind, opts);
    lg_b_io(&b, LG_IDS(x, y), LG_IDS(z));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

LG_TEST(validate_ops_refuses_contradicting_stored_shape) {
    lg_error err;
    lg_model *m = add_model(LG_DIMS(1, 8, 8, 5), LG_OP_ADD, LG_OPTS_NONE, NULL);
    CHECK_EQ_INT(lg_model_validate_ops(m, &err), LG_ERR_INVALID_ARG);
    CHECK(strstr(err.msg, "op 0 (ADD)") && strstr(err.msg, "[1,8,8,5]") &&
          strstr(err.msg, "[1,8,8,4]") && strstr(err.msg, "\"z\""));
    CHECK_EQ_INT(err.op, 0);
    CHECK_EQ_INT(err.tensor, 2);
    /* the writer refuses to write it, and a file holding it is refused on reading */
    void *buf = NULL;
    size_t n = 0;
    CHECK(lg_tflite_write_mem(m, NULL, &buf, &n, &err) != LG_OK);
    free(buf);
    lg_model_free(m);
    /* near miss: the right shape */
    m = add_model(LG_DIMS(1, 8, 8, 4), LG_OP_ADD, LG_OPTS_NONE, NULL);
    CHECK_OK(lg_model_validate_ops(m, &err), &err);
    lg_model_free(m);
}

LG_TEST(validate_ops_refuses_wrong_options_kind) {
    lg_error err;
    lg_add_options ao;
    lg_opts_init(LG_OPTS_ADD_OPTIONS, &ao, sizeof ao);
    /* a SOFTMAX carrying AddOptions (2 bytes, where SoftmaxOptions has a float beta) */
    lg_model *m = add_model(LG_DIMS(1, 8, 8, 4), LG_OP_SOFTMAX, LG_OPTS_ADD_OPTIONS, &ao);
    CHECK_EQ_INT(lg_model_validate_ops(m, &err), LG_ERR_INVALID_ARG);
    CHECK(strstr(err.msg, "SOFTMAX") && strstr(err.msg, "AddOptions") &&
          strstr(err.msg, "SoftmaxOptions"));
    lg_model_free(m);
    /* an AVERAGE_POOL_2D carrying AddOptions */
    m = add_model(LG_DIMS(1, 8, 8, 4), LG_OP_AVERAGE_POOL_2D, LG_OPTS_ADD_OPTIONS, &ao);
    CHECK_EQ_INT(lg_model_validate_ops(m, &err), LG_ERR_INVALID_ARG);
    CHECK(strstr(err.msg, "Pool2DOptions") != NULL);
    lg_model_free(m);
    /* near miss: its own options, or none (the schema's defaults) */
    lg_softmax_options so;
    lg_opts_init(LG_OPTS_SOFTMAX_OPTIONS, &so, sizeof so);
    m = add_model(LG_DIMS(1, 8, 8, 4), LG_OP_SOFTMAX, LG_OPTS_SOFTMAX_OPTIONS, &so);
    CHECK_OK(lg_model_validate_ops(m, &err), &err);
    lg_model_free(m);
    m = add_model(LG_DIMS(1, 8, 8, 4), LG_OP_SOFTMAX, LG_OPTS_NONE, NULL);
    CHECK_OK(lg_model_validate_ops(m, &err), &err);
    lg_model_free(m);
}

LG_TEST(validate_ops_arity) {
    lg_model *m = NULL;
    lg_error err;
    lg_model_new(NULL, NULL, &m, &err);
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(4));
    int z = lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(4));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(x), LG_IDS(z)); /* ADD with one input */
    lg_b_io(&b, LG_IDS(x), LG_IDS(z));
    CHECK_EQ_INT(lg_model_validate_ops(m, &err), LG_ERR_INVALID_ARG);
    CHECK(strstr(err.msg, "1 inputs, it takes 2") != NULL);
    lg_model_free(m);
    /* an absent input where none is optional */
    lg_model_new(NULL, NULL, &m, &err);
    lg_builder_init(&b, m, 0);
    x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(4));
    z = lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(4));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(x, -1), LG_IDS(z));
    lg_b_io(&b, LG_IDS(x), LG_IDS(z));
    CHECK_EQ_INT(lg_model_validate_ops(m, &err), LG_ERR_INVALID_ARG);
    CHECK(strstr(err.msg, "absent") != NULL);
    lg_model_free(m);
}

LG_TEST(broadcast_rule) {
    lg_shape a = {4, {1, 8, 1, 4}}, b = {2, {8, 1}}, o;
    lg_error err;
    CHECK_OK(lg_broadcast(&a, &b, &o, &err), &err);
    CHECK(o.rank == 4 && o.dim[0] == 1 && o.dim[1] == 8 && o.dim[2] == 8 && o.dim[3] == 4);
    lg_shape c = {1, {3}};
    CHECK_EQ_INT(lg_broadcast(&a, &c, &o, &err), LG_ERR_INVALID_ARG);
    CHECK(strstr(err.msg, "4 vs 3") != NULL);
    /* unknown against 1 stays unknown; against 5 is 5 */
    lg_shape u = {2, {-1, -1}}, v = {2, {1, 5}};
    CHECK_OK(lg_broadcast(&u, &v, &o, &err), &err);
    CHECK(o.dim[0] == -1 && o.dim[1] == 5);
    lg_shape r = {-1, {0}};
    CHECK_OK(lg_broadcast(&r, &v, &o, &err), &err);
    CHECK_EQ_INT(o.rank, -1);
}

LG_TEST(shape_helpers) {
    char buf[64];
    lg_shape s = {3, {2, -1, 4}};
    CHECK_STR(lg_shape_str(&s, buf, sizeof buf), "[2,?,4]");
    CHECK_EQ_INT(lg_shape_numel(&s), -1);
    CHECK(!lg_shape_is_static(&s));
    lg_shape t = {3, {2, 7, 4}};
    CHECK(lg_shape_compatible(&s, &t));
    t.dim[0] = 3;
    CHECK(!lg_shape_compatible(&s, &t));
    lg_shape u = {-1, {0}};
    CHECK_STR(lg_shape_str(&u, buf, sizeof buf), "[?]");
    CHECK(lg_shape_compatible(&u, &t));
}
