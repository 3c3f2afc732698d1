/* Hand-built ONNX graphs for the importer's unit tests (tests/unit/test_import_*.c): plain
   lg_onnx_model structs, no protobuf. Names are C strings; lists of names are comma
   separated ("x,w,b"; an empty item is an absent optional input). */
#ifndef TEST_IMPORT_UTIL_H
#define TEST_IMPORT_UTIL_H
#include "lg/import.h"
#include "lg/onnx.h"

typedef struct ti_model ti_model;

ti_model *ti_new(int64_t opset);
void ti_free(ti_model *t);
/* dims: -1 is a symbolic dim "N" */
void ti_input(ti_model *t, const char *name, int32_t dtype, const int64_t *dims, uint32_t rank);
void ti_output(ti_model *t, const char *name);
void ti_init(ti_model *t, const char *name, int32_t dtype, const int64_t *dims, uint32_t rank,
             const void *data);
void ti_node(ti_model *t, const char *op_type, const char *inputs, const char *outputs);
/* attributes of the last node */
void ti_attr_i(ti_model *t, const char *name, int64_t v);
void ti_attr_f(ti_model *t, const char *name, float v);
void ti_attr_s(ti_model *t, const char *name, const char *v);
void ti_attr_ints(ti_model *t, const char *name, const int64_t *v, uint32_t n);
/* a tensor attribute (Constant's value) */
void ti_attr_t(ti_model *t, const char *name, int32_t dtype, const int64_t *dims, uint32_t rank, const void *data);
const lg_onnx_model *ti_model_of(ti_model *t);

/* Import (no_optimize when raw), run with float32 inputs, copy output k into out (n floats). */
lg_status ti_import(ti_model *t, bool raw, lg_model **m, lg_import_report **rep, lg_error *err);
int ti_run(const lg_model *m, const float *const *inputs, uint32_t n_inputs, uint32_t k, float *out,
           size_t n);
/* Same with typed inputs (in_types[i] the TFLite type of input i, its data numel elements)
   and output k of type out_type copied into out (n elements). */
int ti_run_typed(const lg_model *m, const void *const *inputs, const lg_dtype *in_types, uint32_t n_inputs,
                 uint32_t k, lg_dtype out_type, void *out, size_t n);
/* number of ops with this builtin code in subgraph 0 */
int ti_count_ops(const lg_model *m, int32_t code);
#endif
