/* Importer: shape arithmetic folded to constants, dynamic dims, unsupported nodes listed at
   once, the int64 boundary, Slice with a negative step or an empty result. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "test_import_util.h"
#include "tf.h"

/* y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])): x [2,3,4] -> [2, 12]; all the
   shape ops fold away, one RESHAPE remains. */
LG_TEST(import_shape_arithmetic_folds) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2, 3, 4}, 3);
    ti_init(t, "zero", LG_ONNX_INT64, NULL, 0, (const int64_t[]){0});
    ti_init(t, "ax0", LG_ONNX_INT64, (const int64_t[]){1}, 1, (const int64_t[]){0});
    ti_init(t, "m1", LG_ONNX_INT64, (const int64_t[]){1}, 1, (const int64_t[]){-1});
    ti_node(t, "Shape", "x", "s");
    ti_node(t, "Gather", "s,zero", "b");
    ti_node(t, "Unsqueeze", "b,ax0", "b1");
    ti_node(t, "Concat", "b1,m1", "shape");
    ti_attr_i(t, "axis", 0);
    ti_node(t, "Reshape", "x,shape", "y");
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        CHECK_EQ_INT(m->subgraphs[0].n_ops, 1);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_RESHAPE), 1);
        const lg_tensor *y = &m->subgraphs[0].tensors[m->subgraphs[0].outputs[0]];
        CHECK_EQ_INT(y->rank, 2);
        CHECK_EQ_INT(y->shape[0], 2);
        CHECK_EQ_INT(y->shape[1], 12);
        CHECK_STR(y->name, "y");
    }
    lg_model_free(m);
    ti_free(t);
}

/* a symbolic dim with no shape given: LG_ERR_INVALID_ARG naming the input and the dim;
   with input_shapes the import succeeds. */
LG_TEST(import_dynamic_dim_needs_shape) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){-1, 3}, 2);
    ti_node(t, "Relu", "x", "y");
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    CHECK_EQ_INT(ti_import(t, false, &m, NULL, &err), LG_ERR_INVALID_ARG);
    CHECK(strstr(err.msg, "input \"x\": dimension 0 (\"N\") is dynamic") != NULL);
    CHECK(m == NULL);
    lg_import_options o;
    memset(&o, 0, sizeof o);
    lg_import_shape s = {"x", (const int64_t[]){5, 3}, 2};
    o.input_shapes = &s;
    o.n_input_shapes = 1;
    CHECK_OK(lg_onnx_import(ti_model_of(t), &o, &m, NULL, &err), &err);
    if (m) CHECK_EQ_INT(m->subgraphs[0].tensors[m->subgraphs[0].inputs[0]].shape[0], 5);
    lg_model_free(m);
    ti_free(t);
}

/* two unknown ops: both in the report, the first in the one-line error */
LG_TEST(import_unsupported_listed_at_once) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){3}, 1);
    ti_node(t, "Foo", "x", "a");
    ti_node(t, "Relu", "a", "b");
    ti_node(t, "Bar", "b", "y");
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_import_report *rep = NULL;
    lg_error err;
    CHECK_EQ_INT(ti_import(t, false, &m, &rep, &err), LG_ERR_UNSUPPORTED);
    CHECK_STR(err.msg, "node 0 \"n0\" (Foo, domain ai.onnx, opset 13): not supported (and 1 more unsupported nodes)");
    CHECK(strchr(err.msg, '\n') == NULL);
    CHECK(rep != NULL);
    if (rep) {
        CHECK_EQ_INT(rep->n_unsupported, 2);
        CHECK(!rep->nodes[0].supported && rep->nodes[1].supported && !rep->nodes[2].supported);
        CHECK_STR(rep->nodes[2].op_type, "Bar");
        CHECK_STR(rep->nodes[2].domain, "ai.onnx");
        CHECK_EQ_INT(rep->nodes[2].opset, 13);
    }
    lg_import_report_free(rep);
    ti_free(t);
}

/* an INT64 input and output stay INT64 at the boundary; inside INT32 (noted) */
LG_TEST(import_int64_boundary) {
    ti_model *t = ti_new(13);
    ti_input(t, "i", LG_ONNX_INT64, (const int64_t[]){3}, 1);
    ti_init(t, "k", LG_ONNX_INT64, (const int64_t[]){1}, 1, (const int64_t[]){7});
    ti_node(t, "Add", "i,k", "y");
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_import_report *rep = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, &rep, &err), &err);
    if (m && rep) {
        const lg_subgraph *sg = &m->subgraphs[0];
        CHECK_EQ_INT(sg->tensors[sg->inputs[0]].type, LG_INT64);
        CHECK_EQ_INT(sg->tensors[sg->outputs[0]].type, LG_INT64);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_CAST), 2);
        bool noted = false;
        for (uint32_t i = 0; i < rep->n_notes; i++) noted |= strstr(rep->notes[i], "INT64 at the boundary") != NULL;
        CHECK(noted);
    }
    lg_import_report_free(rep);
    lg_model_free(m);
    ti_free(t);
}

/* Slice x[::-1] written the torch way (start -1, end INT64_MIN, step -1): 4,3,2,1,0 */
LG_TEST(import_slice_negative_step) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){5}, 1);
    ti_init(t, "st", LG_ONNX_INT64, (const int64_t[]){1}, 1, (const int64_t[]){-1});
    ti_init(t, "en", LG_ONNX_INT64, (const int64_t[]){1}, 1, (const int64_t[]){INT64_MIN});
    ti_init(t, "ax", LG_ONNX_INT64, (const int64_t[]){1}, 1, (const int64_t[]){0});
    ti_init(t, "sp", LG_ONNX_INT64, (const int64_t[]){1}, 1, (const int64_t[]){-1});
    ti_node(t, "Slice", "x,st,en,ax,sp", "y");
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        float y[5];
        const float *in[1] = {(const float[]){0, 1, 2, 3, 4}};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 5), 0);
        for (int i = 0; i < 5; i++) CHECK_NEAR(y[i], 4 - i, 0);
    }
    lg_model_free(m);
    ti_free(t);
}

/* Reshape(x, Concat([6], Shape(x)[2:])) for x [2, 3], as torch exports the updates' shape of
   Swin's mask ScatterND: the Slice of the rank-2 shape vector from 2 (to INT64_MAX) is empty,
   an empty constant that Concat drops: the shape is [6]. The near-miss: an empty Slice of a
   runtime tensor stays unsupported. */
LG_TEST(import_slice_empty_constant) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2, 3}, 2);
    ti_init(t, "st", LG_ONNX_INT64, (const int64_t[]){1}, 1, (const int64_t[]){2});
    ti_init(t, "en", LG_ONNX_INT64, (const int64_t[]){1}, 1, (const int64_t[]){INT64_MAX});
    ti_init(t, "six", LG_ONNX_INT64, (const int64_t[]){1}, 1, (const int64_t[]){6});
    ti_node(t, "Shape", "x", "s");
    ti_node(t, "Slice", "s,st,en", "tail");
    ti_node(t, "Concat", "six,tail", "shape");
    ti_attr_i(t, "axis", 0);
    ti_node(t, "Reshape", "x,shape", "y");
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        const lg_tensor *y = &m->subgraphs[0].tensors[m->subgraphs[0].outputs[0]];
        CHECK_EQ_INT(y->rank, 1);
        CHECK_EQ_INT(y->shape[0], 6);
    }
    lg_model_free(m);
    ti_free(t);
    t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){5}, 1);
    ti_init(t, "st", LG_ONNX_INT64, (const int64_t[]){1}, 1, (const int64_t[]){5});
    ti_init(t, "en", LG_ONNX_INT64, (const int64_t[]){1}, 1, (const int64_t[]){INT64_MAX});
    ti_node(t, "Slice", "x,st,en", "y");
    ti_output(t, "y");
    m = NULL;
    CHECK_EQ_INT(ti_import(t, false, &m, NULL, &err), LG_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "an empty slice") != NULL);
    lg_model_free(m);
    ti_free(t);
}
