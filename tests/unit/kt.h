/* kt: the shared kernel-test runner of tests/unit/test_k_*.c and test_fp16_classes.c.
 *
 *   - a small model under construction (kt_model: a builder plus the graph inputs with the
 *     data they are fed with), run through the public interpreter API in a given precision
 *     and thread count, its outputs read as lg_tensor_view until kt_free;
 *   - a one-op model from a compact description (kt_op: op code, options, inputs runtime or
 *     constant with optional quantization, outputs), built and run by kt_run_op;
 *   - comparisons with expected values (exact, absolute or relative tolerance; NaN matches
 *     NaN, an infinity must match exactly) that record the first mismatch with the caller's
 *     file:line through tf_fail and keep going.
 *
 * Expected values stay in the tests (hand-derived or from naive loops there); kt only runs
 * and compares. */
#ifndef LG_TESTS_KT_H
#define LG_TESTS_KT_H
#include <stdint.h>

#include "lg/lg.h"
#include "lg/run.h"

enum { KT_MAX_IO = 8, KT_MAX_IN = 4, KT_MAX_OUT = 2 };

/* One tensor of a kt_op. data: the values of a constant (FLOAT16 constants: uint16 halves),
   or what a runtime input is fed with (FLOAT16 inputs: floats); NULL: zeros. */
typedef struct kt_tensor {
    lg_dtype type;
    lg_dims shape;
    const void *data;
    int is_const;
    const float *scale;   /* quantization (NULL: none) */
    const int64_t *zp;
    uint32_t nq;
    int32_t qdim;
} kt_tensor;

/* A one-op model: inputs in order (graph inputs for the non-constant ones), outputs. */
typedef struct kt_op {
    int32_t code;
    lg_opts_kind kind;
    const void *opts;
    int n_in;
    kt_tensor in[KT_MAX_IN];
    int n_out;            /* 0 counts as 1 */
    kt_tensor out[KT_MAX_OUT];
} kt_op;

typedef struct kt_model {
    lg_model *m;
    lg_builder b;
    int32_t ins[KT_MAX_IO];         /* graph inputs, in order */
    const void *in_data[KT_MAX_IO]; /* what kt_run feeds them (NULL: zeros) */
    uint32_t n_ins;
    int32_t outs[KT_MAX_IO];        /* graph outputs, in order */
    uint32_t n_outs;
    lg_interp *it;                  /* after kt_run: the interpreter holding the outputs */
    lg_status st;                   /* of the last build or run step */
    lg_error err;
} kt_model;

/* ---------------------------------------------------------------- models */

/* An empty model; on failure the builder is left failed (every later call is a no-op). */
void kt_init(kt_model *t);
/* A runtime graph input fed with data (its declared size) at run time. */
int32_t kt_input(kt_model *t, const char *name, lg_dtype type, lg_dims shape, const void *data);
/* A constant: numel values of the type (FLOAT16: uint16 halves); data NULL: zeros. */
int32_t kt_const(kt_model *t, const char *name, lg_dtype type, lg_dims shape, const void *data);
/* A graph output. */
int32_t kt_output(kt_model *t, const char *name, lg_dtype type, lg_dims shape);
/* Sets the graph's inputs and outputs to the kt_input/kt_output tensors. */
void kt_io(kt_model *t);
/* Adds the one-op model c (tensors, the op, the graph I/O) to an empty t. */
void kt_add_op(kt_model *t, const kt_op *c);
/* Creates the interpreter (precision p, threads; 0 = 1), feeds every graph input (inputs[i],
   or the kt_input data when inputs is NULL) and invokes. The status is also in t->st, the
   message in t->err. */
lg_status kt_run(kt_model *t, lg_precision p, int threads, const void *const *inputs);
/* kt_run with the kt_input data, then output 0 copied into out (at most cap floats), its
   element count into *numel (may be NULL) and the message into *err (may be NULL). */
lg_status kt_run_f32(kt_model *t, lg_precision p, int threads, float *out, int64_t cap, int64_t *numel,
                     lg_error *err);
/* Output i of the last run (zeroed when there is none). */
lg_tensor_view kt_out(const kt_model *t, uint32_t i);
/* Output i's data as floats (NULL when there is none). */
const float *kt_f32(const kt_model *t, uint32_t i);
void kt_free(kt_model *t);

/* kt_init + kt_add_op + kt_run; t must be freed with kt_free. */
lg_status kt_run_op(const kt_op *c, lg_precision p, int threads, kt_model *t);

/* Element i of an integer (or BOOL) view as int64. */
int64_t kt_int(const lg_tensor_view *v, int64_t i);
int64_t kt_numel(lg_dims d);

/* ---------------------------------------------------------------- comparisons */

typedef enum kt_cmp {
    KT_ABS,  /* |got - want| <= tol */
    KT_REL,  /* |got - want| <= tol * (1 + |want|) */
    KT_BITS  /* the same bits (NaN matches any NaN) */
} kt_cmp;

/* Each returns 1 when it holds, else 0 after one tf_fail naming `what` (may be NULL) and the
   first mismatch. */
int kt_check_f32(const char *file, int line, const char *what, const float *got, const float *want,
                 int64_t n, double tol, kt_cmp how);
/* v is FLOAT32 with n elements that match want. */
int kt_check_view_f32(const char *file, int line, const char *what, const lg_tensor_view *v,
                      const float *want, int64_t n, double tol, kt_cmp how);
/* v has type `type` and n elements equal to want. */
int kt_check_view_ints(const char *file, int line, const char *what, const lg_tensor_view *v,
                       lg_dtype type, const int64_t *want, int64_t n);
int kt_check_view_shape(const char *file, int line, const char *what, const lg_tensor_view *v,
                        lg_dims want);

/* ---------------------------------------------------------------- one-op expectations */

/* kt_run_op, recording a failure when the run fails; returns 1 when it ran. */
int kt_run_ok(const char *file, int line, const kt_op *c, lg_precision p, int threads, kt_model *t);
/* Output 0 is FLOAT32 of c->out[0].shape and matches want within tol (KT_ABS). */
void kt_expect_f32(const char *file, int line, const kt_op *c, lg_precision p, int threads,
                   const float *want, int64_t n, double tol);
/* Output 0 has c->out[0].shape, type `type` and the values want. */
void kt_expect_ints(const char *file, int line, const kt_op *c, lg_precision p, int threads,
                    lg_dtype type, const int64_t *want, int64_t n);
/* The run (fp32) fails with status st and a message containing substr. */
void kt_expect_fail(const char *file, int line, const kt_op *c, lg_precision p, lg_status st,
                    const char *substr);

/* Shorthands for the tensors of a kt_op. */
#define KT_IN(type_, shape_, data_) ((kt_tensor){type_, shape_, data_, 0, NULL, NULL, 0, 0})
#define KT_CONST(type_, shape_, data_) ((kt_tensor){type_, shape_, data_, 1, NULL, NULL, 0, 0})
#define KT_OUT(type_, shape_) ((kt_tensor){type_, shape_, NULL, 0, NULL, NULL, 0, 0})
#endif
