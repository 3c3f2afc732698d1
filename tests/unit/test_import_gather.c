/* Importer: the element-indexing lowerings of src/import/lower_gather.c and lower_scatter.c
   (GatherElements, GatherND, ScatterND, ScatterElements/Scatter, OneHot, Hardmax, ArgMax/ArgMin
   with select_last_index, EyeLike). Expected values derived by hand in the comments. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "test_import_util.h"
#include "tf.h"

/* import t (optimized), expecting success; NULL on failure (already reported) */
static lg_model *import_ok(ti_model *t) {
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    return m;
}

/* import t expecting status st with `what` in the message */
static void import_fails(ti_model *t, lg_status st, const char *what) {
    lg_model *m = NULL;
    lg_error err;
    CHECK_EQ_INT(ti_import(t, false, &m, NULL, &err), st);
    CHECK(strstr(err.msg, what) != NULL);
    lg_model_free(m);
    ti_free(t);
}

static void check_floats(const float *got, const float *want, int n, double tol) {
    for (int i = 0; i < n; i++) CHECK_NEAR(got[i], want[i], tol);
}

/* ------------------------------------------------------------------ GatherElements */

/* data [2, 3] = [[1, 2, 3], [4, 5, 6]], constant indices [[0, -1], [2, 1]] on axis 1:
   out[i][j] = data[i][idx[i][j]]: row 0 reads columns 0 and 2 (-1 is the last) -> [1, 3];
   row 1 columns 2 and 1 -> [6, 5]. One GATHER with a constant table, no index arithmetic. */
LG_TEST(import_gather_elements_const_negative) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2, 3}, 2);
    ti_init(t, "i", LG_ONNX_INT64, (const int64_t[]){2, 2}, 2, (const int64_t[]){0, -1, 2, 1});
    ti_node(t, "GatherElements", "x,i", "y");
    ti_attr_i(t, "axis", 1);
    ti_output(t, "y");
    lg_model *m = import_ok(t);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_GATHER), 1);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_FLOOR_MOD), 0);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_GATHER_ND), 0);
        float y[4];
        const float *in[1] = {(const float[]){1, 2, 3, 4, 5, 6}};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 4), 0);
        check_floats(y, (const float[]){1, 3, 6, 5}, 4, 0);
    }
    lg_model_free(m);
    ti_free(t);
}

/* The same with index 3 on an axis of 3 (valid: [-3, 3)): a format error naming the node and
   the index; -3 (the near-miss) is accepted. */
LG_TEST(import_gather_elements_out_of_range) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2, 3}, 2);
    ti_init(t, "i", LG_ONNX_INT64, (const int64_t[]){2, 2}, 2, (const int64_t[]){0, -3, 3, 1});
    ti_node(t, "GatherElements", "x,i", "y");
    ti_attr_i(t, "axis", 1);
    ti_output(t, "y");
    import_fails(t, LG_ERR_FORMAT, "(GatherElements, domain ai.onnx, opset 13): invalid: index 3 (indices element 2)");
    t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2, 3}, 2);
    ti_init(t, "i", LG_ONNX_INT64, (const int64_t[]){2, 2}, 2, (const int64_t[]){0, -3, 2, 1});
    ti_node(t, "GatherElements", "x,i", "y");
    ti_attr_i(t, "axis", 1);
    ti_output(t, "y");
    lg_model *m = import_ok(t);
    lg_model_free(m);
    ti_free(t);
}

/* Runtime INT64 indices on axis 0: data [3, 2] = [[1, 2], [3, 4], [5, 6]], indices
   [[2, -3], [-1, 1]]: out[i][j] = data[idx[i][j]][j]: (0,0) row 2 -> 5; (0,1) -3 is row 0 -> 2;
   (1,0) -1 is row 2 -> 5; (1,1) row 1 -> 4. Linear position FLOOR_MOD(idx, 3) * 2 + j. */
LG_TEST(import_gather_elements_runtime) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){3, 2}, 2);
    ti_input(t, "i", LG_ONNX_INT64, (const int64_t[]){2, 2}, 2);
    ti_node(t, "GatherElements", "x,i", "y");
    ti_output(t, "y");
    lg_model *m = import_ok(t);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_GATHER), 1);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_FLOOR_MOD), 1);
        float y[4];
        const void *in[2] = {(const float[]){1, 2, 3, 4, 5, 6}, (const int64_t[]){2, -3, -1, 1}};
        const lg_dtype ty[2] = {LG_FLOAT32, LG_INT64};
        CHECK_EQ_INT(ti_run_typed(m, in, ty, 2, 0, LG_FLOAT32, y, 4), 0);
        check_floats(y, (const float[]){5, 2, 5, 4}, 4, 0);
    }
    lg_model_free(m);
    ti_free(t);
}

/* ------------------------------------------------------------------ GatherND */

/* data [2, 2, 2] = 0..7 ([[[0, 1], [2, 3]], [[4, 5], [6, 7]]]).
   batch_dims 0, indices [[0, 1], [-1, 0]]: data[0, 1, :] = [2, 3], data[1, 0, :] = [4, 5].
   batch_dims 1, indices [[1], [-1]]: batch 0 data[0, 1, :] = [2, 3], batch 1 data[1, 1, :] = [6, 7].
   Both with runtime and with constant indices; never GATHER_ND. */
static void gather_nd_case(int64_t batch_dims, const int64_t *idx, const int64_t *idims, uint32_t irank,
                           bool runtime, const float want[4]) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2, 2, 2}, 3);
    if (runtime) ti_input(t, "i", LG_ONNX_INT64, idims, irank);
    else ti_init(t, "i", LG_ONNX_INT64, idims, irank, idx);
    ti_node(t, "GatherND", "x,i", "y");
    ti_attr_i(t, "batch_dims", batch_dims);
    ti_output(t, "y");
    lg_model *m = import_ok(t);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_GATHER_ND), 0);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_GATHER), 1);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_FLOOR_MOD), runtime ? 1 : 0);
        float y[4];
        const void *in[2] = {(const float[]){0, 1, 2, 3, 4, 5, 6, 7}, idx};
        const lg_dtype ty[2] = {LG_FLOAT32, LG_INT64};
        CHECK_EQ_INT(ti_run_typed(m, in, ty, runtime ? 2 : 1, 0, LG_FLOAT32, y, 4), 0);
        check_floats(y, want, 4, 0);
    }
    lg_model_free(m);
    ti_free(t);
}

LG_TEST(import_gather_nd) {
    static const int64_t i0[4] = {0, 1, -1, 0}, i1[2] = {1, -1};
    gather_nd_case(0, i0, (const int64_t[]){2, 2}, 2, true, (const float[]){2, 3, 4, 5});
    gather_nd_case(0, i0, (const int64_t[]){2, 2}, 2, false, (const float[]){2, 3, 4, 5});
    gather_nd_case(1, i1, (const int64_t[]){2, 1}, 2, true, (const float[]){2, 3, 6, 7});
    gather_nd_case(1, i1, (const int64_t[]){2, 1}, 2, false, (const float[]){2, 3, 6, 7});
}

/* Constant index 2 on a dim of 2: a format error; a last dim past the data's rank: malformed. */
LG_TEST(import_gather_nd_bad) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2, 2, 2}, 3);
    ti_init(t, "i", LG_ONNX_INT64, (const int64_t[]){2, 2}, 2, (const int64_t[]){0, 1, 2, 0});
    ti_node(t, "GatherND", "x,i", "y");
    ti_output(t, "y");
    import_fails(t, LG_ERR_FORMAT, "index 2 (indices element 2) is out of range [-2, 2)");
    t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2, 2}, 2);
    ti_input(t, "i", LG_ONNX_INT64, (const int64_t[]){1, 3}, 2);
    ti_node(t, "GatherND", "x,i", "y");
    ti_output(t, "y");
    import_fails(t, LG_ERR_FORMAT, "last dim is 3");
}

/* ------------------------------------------------------------------ ScatterND */

/* data [4] runtime = [1, 2, 3, 4], constant indices [[1], [-1], [1]], runtime updates
   [10, 20, 30], reduction none: position 1 gets 10 then 30 (the last write wins), position 3
   (-1) gets 20 -> [1, 30, 3, 20]. One CONCATENATION + one GATHER. */
LG_TEST(import_scatter_nd_runtime_data) {
    ti_model *t = ti_new(16);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){4}, 1);
    ti_init(t, "i", LG_ONNX_INT64, (const int64_t[]){3, 1}, 2, (const int64_t[]){1, -1, 1});
    ti_input(t, "u", LG_ONNX_FLOAT, (const int64_t[]){3}, 1);
    ti_node(t, "ScatterND", "x,i,u", "y");
    ti_output(t, "y");
    lg_model *m = import_ok(t);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_GATHER), 1);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_CONCATENATION), 1);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_SCATTER_ND), 0);
        float y[4];
        const float *in[2] = {(const float[]){1, 2, 3, 4}, (const float[]){10, 20, 30}};
        CHECK_EQ_INT(ti_run(m, in, 2, 0, y, 4), 0);
        check_floats(y, (const float[]){1, 30, 3, 20}, 4, 0);
    }
    lg_model_free(m);
    ti_free(t);
}

/* Slices: data [3, 2] = [[1, 2], [3, 4], [5, 6]], indices [[-1]] (row 2), updates [[7, 8]]
   -> [[1, 2], [3, 4], [7, 8]]. */
LG_TEST(import_scatter_nd_slice) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){3, 2}, 2);
    ti_init(t, "i", LG_ONNX_INT64, (const int64_t[]){1, 1}, 2, (const int64_t[]){-1});
    ti_input(t, "u", LG_ONNX_FLOAT, (const int64_t[]){1, 2}, 2);
    ti_node(t, "ScatterND", "x,i,u", "y");
    ti_output(t, "y");
    lg_model *m = import_ok(t);
    if (m) {
        float y[6];
        const float *in[2] = {(const float[]){1, 2, 3, 4, 5, 6}, (const float[]){7, 8}};
        CHECK_EQ_INT(ti_run(m, in, 2, 0, y, 6), 0);
        check_floats(y, (const float[]){1, 2, 3, 4, 7, 8}, 6, 0);
    }
    lg_model_free(m);
    ti_free(t);
}

/* Reductions with duplicate constant indices [[1], [1], [3]] on runtime data [1, 2, 3, 4] and
   runtime updates [10, 20, 30], in order:
   add: position 1: 2 + 10 + 20 = 32, position 3: 4 + 30 = 34 -> [1, 32, 3, 34];
   mul: 2 * 10 * 20 = 400, 4 * 30 = 120 -> [1, 400, 3, 120];
   max (opset 18): max(2, 10, 20) = 20, max(4, 30) = 30 -> [1, 20, 3, 30];
   min (opset 18): min(2, 10, 20) = 2, min(4, 30) = 4 -> [1, 2, 3, 4].
   Position 1 is written twice: two layers, each a SELECT_V2 (positions 0 and 2 never written). */
static void scatter_nd_reduce_case(const char *red, int64_t opset, const float want[4]) {
    ti_model *t = ti_new(opset);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){4}, 1);
    ti_init(t, "i", LG_ONNX_INT64, (const int64_t[]){3, 1}, 2, (const int64_t[]){1, 1, 3});
    ti_input(t, "u", LG_ONNX_FLOAT, (const int64_t[]){3}, 1);
    ti_node(t, "ScatterND", "x,i,u", "y");
    ti_attr_s(t, "reduction", red);
    ti_output(t, "y");
    lg_model *m = import_ok(t);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_SELECT_V2), 2);
        float y[4];
        const float *in[2] = {(const float[]){1, 2, 3, 4}, (const float[]){10, 20, 30}};
        CHECK_EQ_INT(ti_run(m, in, 2, 0, y, 4), 0);
        check_floats(y, want, 4, 0);
    }
    lg_model_free(m);
    ti_free(t);
}

LG_TEST(import_scatter_nd_reductions) {
    scatter_nd_reduce_case("add", 16, (const float[]){1, 32, 3, 34});
    scatter_nd_reduce_case("mul", 16, (const float[]){1, 400, 3, 120});
    scatter_nd_reduce_case("max", 18, (const float[]){1, 20, 3, 30});
    scatter_nd_reduce_case("min", 18, (const float[]){1, 2, 3, 4});
}

/* Every input constant: data [2, 2] zeros, indices [[0, 1], [1, 0]], updates [5, 6] ->
   [[0, 5], [6, 0]]; it all folds: no GATHER, no CONCATENATION remain. */
LG_TEST(import_scatter_nd_folds) {
    ti_model *t = ti_new(13);
    ti_input(t, "a", LG_ONNX_FLOAT, (const int64_t[]){2, 2}, 2);
    ti_init(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2, 2}, 2, (const float[]){0, 0, 0, 0});
    ti_init(t, "i", LG_ONNX_INT64, (const int64_t[]){2, 2}, 2, (const int64_t[]){0, 1, 1, 0});
    ti_init(t, "u", LG_ONNX_FLOAT, (const int64_t[]){2}, 1, (const float[]){5, 6});
    ti_node(t, "ScatterND", "x,i,u", "s");
    ti_node(t, "Add", "a,s", "y");
    ti_output(t, "y");
    lg_model *m = import_ok(t);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_GATHER), 0);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_CONCATENATION), 0);
        float y[4];
        const float *in[1] = {(const float[]){1, 1, 1, 1}};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 4), 0);
        check_floats(y, (const float[]){1, 6, 7, 1}, 4, 0);
    }
    lg_model_free(m);
    ti_free(t);
}

/* Runtime indices: unsupported, saying which input must be constant; an out-of-range
   constant index (4 on a dim of 4): a format error. */
LG_TEST(import_scatter_nd_unsupported) {
    ti_model *t = ti_new(16);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){4}, 1);
    ti_input(t, "i", LG_ONNX_INT64, (const int64_t[]){3, 1}, 2);
    ti_input(t, "u", LG_ONNX_FLOAT, (const int64_t[]){3}, 1);
    ti_node(t, "ScatterND", "x,i,u", "y");
    ti_output(t, "y");
    import_fails(t, LG_ERR_UNSUPPORTED, "(ScatterND, domain ai.onnx, opset 16): not supported: indices (input 1) are computed at run time");
    t = ti_new(16);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){4}, 1);
    ti_init(t, "i", LG_ONNX_INT64, (const int64_t[]){3, 1}, 2, (const int64_t[]){1, 4, 0});
    ti_input(t, "u", LG_ONNX_FLOAT, (const int64_t[]){3}, 1);
    ti_node(t, "ScatterND", "x,i,u", "y");
    ti_output(t, "y");
    import_fails(t, LG_ERR_FORMAT, "index 4 (indices element 1) is out of range [-4, 4)");
}

/* ------------------------------------------------------------------ ScatterElements, Scatter */

/* data [3, 3] = [[1, 2, 3], [4, 5, 6], [7, 8, 9]], indices [[1, 0, 2], [0, 2, -2]] (-2 is row 1),
   updates [[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]], axis 0: output[idx[i][j]][j] = updates[i][j]:
   (0,0) -> out[1][0] = 1.0, (0,1) -> out[0][1] = 1.1, (0,2) -> out[2][2] = 1.2,
   (1,0) -> out[0][0] = 2.0, (1,1) -> out[2][1] = 2.1, (1,2) -> out[1][2] = 2.2;
   the rest keeps the data: [[2.0, 1.1, 3], [1.0, 5, 2.2], [7, 2.1, 1.2]] (ONNX's example 1 with
   a non-zero data). */
LG_TEST(import_scatter_elements) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){3, 3}, 2);
    ti_init(t, "i", LG_ONNX_INT64, (const int64_t[]){2, 3}, 2, (const int64_t[]){1, 0, 2, 0, 2, -2});
    ti_input(t, "u", LG_ONNX_FLOAT, (const int64_t[]){2, 3}, 2);
    ti_node(t, "ScatterElements", "x,i,u", "y");
    ti_output(t, "y");
    lg_model *m = import_ok(t);
    if (m) {
        float y[9];
        const float *in[2] = {(const float[]){1, 2, 3, 4, 5, 6, 7, 8, 9}, (const float[]){1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f}};
        CHECK_EQ_INT(ti_run(m, in, 2, 0, y, 9), 0);
        check_floats(y, (const float[]){2.0f, 1.1f, 3, 1.0f, 5, 2.2f, 7, 2.1f, 1.2f}, 9, 0);
    }
    lg_model_free(m);
    ti_free(t);
}

/* Scatter (opset 10, ScatterElements' former name), axis 1: data [[1, 2, 3, 4, 5]], indices
   [[1, 3]], updates [[1.1, 2.1]] -> [[1, 1.1, 3, 2.1, 5]] (ONNX's example 2). Reduction add at
   opset 16 with the duplicate indices [[1, 1]]: 2 + 1.1 + 2.1 at position 1 -> [[1, 5.2, 3, 4, 5]]
   (float rounding: 3.1f + 2.1f, within 1e-6). An index of 5 on the axis of 5: a format error. */
static ti_model *scatter_row(int64_t opset, const char *op, const int64_t idx[2], const char *red) {
    ti_model *t = ti_new(opset);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 5}, 2);
    ti_init(t, "i", LG_ONNX_INT64, (const int64_t[]){1, 2}, 2, idx);
    ti_input(t, "u", LG_ONNX_FLOAT, (const int64_t[]){1, 2}, 2);
    ti_node(t, op, "x,i,u", "y");
    ti_attr_i(t, "axis", 1);
    if (red) ti_attr_s(t, "reduction", red);
    ti_output(t, "y");
    return t;
}

LG_TEST(import_scatter_axis1_and_add) {
    const float *in[2] = {(const float[]){1, 2, 3, 4, 5}, (const float[]){1.1f, 2.1f}};
    float y[5];
    ti_model *t = scatter_row(10, "Scatter", (const int64_t[]){1, 3}, NULL);
    lg_model *m = import_ok(t);
    if (m) {
        CHECK_EQ_INT(ti_run(m, in, 2, 0, y, 5), 0);
        check_floats(y, (const float[]){1, 1.1f, 3, 2.1f, 5}, 5, 0);
    }
    lg_model_free(m);
    ti_free(t);
    t = scatter_row(16, "ScatterElements", (const int64_t[]){1, 1}, "add");
    m = import_ok(t);
    if (m) {
        CHECK_EQ_INT(ti_run(m, in, 2, 0, y, 5), 0);
        check_floats(y, (const float[]){1, 5.2f, 3, 4, 5}, 5, 1e-6);
    }
    lg_model_free(m);
    ti_free(t);
    import_fails(scatter_row(16, "ScatterElements", (const int64_t[]){1, 5}, NULL), LG_ERR_FORMAT,
                 "index 5 (indices element 1) is out of range [-5, 5)");
    import_fails(scatter_row(16, "ScatterElements", (const int64_t[]){1, 2}, "xor"), LG_ERR_UNSUPPORTED,
                 "reduction \"xor\"");
}

/* ------------------------------------------------------------------ OneHot */

/* indices [0, -1, -4, 3] (runtime INT64), depth 3, values [off 0, on 5]:
   opset 11 axis -1: [5, 0, 0], -1 is 2 -> [0, 0, 5], -4 < -3 -> all off, 3 >= 3 -> all off.
   axis 0 (the output [3, 4] with out[d][i] = on iff index i is d): [[5, 0, 0, 0], [0, 0, 0, 0],
   [0, 5, 0, 0]]. Opset 9 (no negative indices): -1 is all off too. */
static void onehot_case(int64_t opset, int64_t axis, const float want[12]) {
    ti_model *t = ti_new(opset);
    ti_input(t, "i", LG_ONNX_INT64, (const int64_t[]){4}, 1);
    ti_init(t, "d", LG_ONNX_INT64, NULL, 0, (const int64_t[]){3});
    ti_init(t, "v", LG_ONNX_FLOAT, (const int64_t[]){2}, 1, (const float[]){0, 5});
    ti_node(t, "OneHot", "i,d,v", "y");
    ti_attr_i(t, "axis", axis);
    ti_output(t, "y");
    lg_model *m = import_ok(t);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_ONE_HOT), 1);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_GATHER), 0); /* on and off fold to constants */
        float y[12];
        const void *in[1] = {(const int64_t[]){0, -1, -4, 3}};
        const lg_dtype ty[1] = {LG_INT64};
        CHECK_EQ_INT(ti_run_typed(m, in, ty, 1, 0, LG_FLOAT32, y, 12), 0);
        check_floats(y, want, 12, 0);
    }
    lg_model_free(m);
    ti_free(t);
}

LG_TEST(import_onehot) {
    onehot_case(11, -1, (const float[]){5, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0});
    onehot_case(11, 0, (const float[]){5, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0});
    onehot_case(9, -1, (const float[]){5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    /* a runtime depth is refused */
    ti_model *t = ti_new(11);
    ti_input(t, "i", LG_ONNX_INT64, (const int64_t[]){4}, 1);
    ti_input(t, "d", LG_ONNX_INT64, (const int64_t[]){1}, 1);
    ti_init(t, "v", LG_ONNX_FLOAT, (const int64_t[]){2}, 1, (const float[]){0, 5});
    ti_node(t, "OneHot", "i,d,v", "y");
    ti_output(t, "y");
    import_fails(t, LG_ERR_UNSUPPORTED, "depth (input 1) is computed at run time");
}

/* ------------------------------------------------------------------ Hardmax */

/* x [2, 3] = [[1, 3, 3], [-5, -2, -5]].
   opset 13, axis -1: the first maximum per row: [[0, 1, 0], [0, 1, 0]].
   opset 13, axis 0: per column (1 > -5, 3 > -2, 3 > -5): [[1, 1, 1], [0, 0, 0]].
   opset 11, axis 0: on the [1, 6] view, one maximum over all: the first 3 -> [[0, 1, 0], [0, 0, 0]].
   opset 11, axis 1 (the default): the [2, 3] view, rows: [[0, 1, 0], [0, 1, 0]]. */
static void hardmax_case(int64_t opset, int64_t axis, bool has_axis, const float want[6]) {
    ti_model *t = ti_new(opset);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2, 3}, 2);
    ti_node(t, "Hardmax", "x", "y");
    if (has_axis) ti_attr_i(t, "axis", axis);
    ti_output(t, "y");
    lg_model *m = import_ok(t);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_ARG_MAX), 1);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_ONE_HOT), 1);
        float y[6];
        const float *in[1] = {(const float[]){1, 3, 3, -5, -2, -5}};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 6), 0);
        check_floats(y, want, 6, 0);
    }
    lg_model_free(m);
    ti_free(t);
}

LG_TEST(import_hardmax) {
    hardmax_case(13, -1, false, (const float[]){0, 1, 0, 0, 1, 0});
    hardmax_case(13, 0, true, (const float[]){1, 1, 1, 0, 0, 0});
    hardmax_case(11, 0, true, (const float[]){0, 1, 0, 0, 0, 0});
    hardmax_case(11, 1, false, (const float[]){0, 1, 0, 0, 1, 0});
}

/* ------------------------------------------------------------------ ArgMax, ArgMin */

/* x [2, 3] = [[1, 3, 3], [-5, -2, -5]] on axis 1, keepdims 0:
   ArgMax first [1, 1], last [2, 1] (the tie 3, 3 in row 0); ArgMin first [0, 0], last [0, 2]
   (the tie -5, -5 in row 1). select_last_index adds one REVERSE_V2. */
static void arg_case(const char *op, int64_t last, const int64_t want[2]) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2, 3}, 2);
    ti_node(t, op, "x", "y");
    ti_attr_i(t, "axis", 1);
    ti_attr_i(t, "keepdims", 0);
    ti_attr_i(t, "select_last_index", last);
    ti_output(t, "y");
    lg_model *m = import_ok(t);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_REVERSE_V2), last ? 1 : 0);
        int64_t y[2];
        const void *in[1] = {(const float[]){1, 3, 3, -5, -2, -5}};
        const lg_dtype ty[1] = {LG_FLOAT32};
        CHECK_EQ_INT(ti_run_typed(m, in, ty, 1, 0, LG_INT64, y, 2), 0);
        CHECK_EQ_INT(y[0], want[0]);
        CHECK_EQ_INT(y[1], want[1]);
    }
    lg_model_free(m);
    ti_free(t);
}

LG_TEST(import_arg_select_last_index) {
    arg_case("ArgMax", 0, (const int64_t[]){1, 1});
    arg_case("ArgMax", 1, (const int64_t[]){2, 1});
    arg_case("ArgMin", 0, (const int64_t[]){0, 0});
    arg_case("ArgMin", 1, (const int64_t[]){0, 2});
}

/* ------------------------------------------------------------------ EyeLike */

/* x INT32 [3, 4]; dtype FLOAT: k = 1: ones where column - row = 1 ->
   [[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]; k = -2: only (2, 0). No op computes it (a
   constant, copied to the output). dtype DOUBLE: unsupported. */
static void eyelike_case(int64_t k, const float want[12]) {
    ti_model *t = ti_new(9);
    ti_input(t, "x", LG_ONNX_INT32, (const int64_t[]){3, 4}, 2);
    ti_node(t, "EyeLike", "x", "y");
    ti_attr_i(t, "k", k);
    ti_attr_i(t, "dtype", LG_ONNX_FLOAT);
    ti_output(t, "y");
    lg_model *m = import_ok(t);
    if (m) {
        float y[12];
        const void *in[1] = {(const int32_t[12]){0}};
        const lg_dtype ty[1] = {LG_INT32};
        CHECK_EQ_INT(ti_run_typed(m, in, ty, 1, 0, LG_FLOAT32, y, 12), 0);
        check_floats(y, want, 12, 0);
    }
    lg_model_free(m);
    ti_free(t);
}

LG_TEST(import_eyelike) {
    eyelike_case(1, (const float[]){0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
    eyelike_case(-2, (const float[]){0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0});
    ti_model *t = ti_new(9);
    ti_input(t, "x", LG_ONNX_INT32, (const int64_t[]){3, 4}, 2);
    ti_node(t, "EyeLike", "x", "y");
    ti_attr_i(t, "dtype", LG_ONNX_DOUBLE);
    ti_output(t, "y");
    import_fails(t, LG_ERR_UNSUPPORTED, "dtype DOUBLE");
}
