/* Hand-built ONNX graphs for the importer's unit tests (test_import_util.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/run.h"
#include "test_import_util.h"

#define TI_CAP 64

struct ti_model {
    lg_onnx_model m;
    lg_onnx_graph g;
    lg_onnx_opset opset;
    lg_onnx_node nodes[TI_CAP];
    lg_onnx_tensor inits[TI_CAP];
    lg_onnx_value_info ins[TI_CAP], outs[TI_CAP];
    lg_onnx_attr attrs[TI_CAP][8];
    void *blocks[1024];
    uint32_t n_blocks;
};

static void *keep(ti_model *t, size_t n) {
    void *p = calloc(1, n ? n : 1);
    if (p && t->n_blocks < 1024) t->blocks[t->n_blocks++] = p;
    return p;
}

static lg_onnx_str str(ti_model *t, const char *s) {
    size_t n = strlen(s);
    char *p = keep(t, n + 1);
    memcpy(p, s, n);
    return (lg_onnx_str){p, (uint32_t)n};
}

ti_model *ti_new(int64_t opset) {
    ti_model *t = calloc(1, sizeof *t);
    t->opset.version = opset;
    t->m.ir_version = 8;
    t->m.opsets = &t->opset;
    t->m.n_opsets = 1;
    t->m.producer_name = str(t, "unit");
    t->m.graph = &t->g;
    t->g.nodes = t->nodes;
    t->g.initializers = t->inits;
    t->g.inputs = t->ins;
    t->g.outputs = t->outs;
    return t;
}

void ti_free(ti_model *t) {
    if (!t) return;
    for (uint32_t i = 0; i < t->n_blocks; i++) free(t->blocks[i]);
    free(t);
}

void ti_input(ti_model *t, const char *name, int32_t dtype, const int64_t *dims, uint32_t rank) {
    lg_onnx_value_info *v = &t->ins[t->g.n_inputs++];
    v->name = str(t, name);
    v->type.kind = LG_ONNX_TYPE_TENSOR;
    v->type.elem_type = dtype;
    v->type.has_shape = true;
    lg_onnx_dim *d = keep(t, (rank + 1) * sizeof *d);
    for (uint32_t i = 0; i < rank; i++) {
        if (dims[i] < 0) {
            d[i].kind = 2;
            d[i].param = str(t, "N");
        } else {
            d[i].kind = 1;
            d[i].value = dims[i];
        }
    }
    v->type.dims = d;
    v->type.n_dims = rank;
}

void ti_output(ti_model *t, const char *name) {
    lg_onnx_value_info *v = &t->outs[t->g.n_outputs++];
    v->name = str(t, name);
    v->type.kind = LG_ONNX_TYPE_TENSOR;
}

static int esize(int32_t dt) {
    int b = lg_onnx_dtype_bits(dt) / 8;
    return b ? b : 4;
}

void ti_init(ti_model *t, const char *name, int32_t dtype, const int64_t *dims, uint32_t rank,
             const void *data) {
    lg_onnx_tensor *x = &t->inits[t->g.n_initializers++];
    x->name = str(t, name);
    x->data_type = dtype;
    int64_t *d = keep(t, (rank + 1) * sizeof *d);
    uint64_t n = 1;
    for (uint32_t i = 0; i < rank; i++) n *= (uint64_t)(d[i] = dims[i]);
    x->dims = d;
    x->n_dims = rank;
    x->count = n;
    x->src = LG_ONNX_DATA_RAW;
    x->nbytes = n * (uint64_t)esize(dtype);
    void *p = keep(t, x->nbytes);
    memcpy(p, data, x->nbytes);
    x->data = p;
}

static void names(ti_model *t, const char *csv, const lg_onnx_str **out, uint32_t *n) {
    lg_onnx_str *v = keep(t, 16 * sizeof *v);
    uint32_t k = 0;
    const char *p = csv;
    while (k < 16) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char buf[128];
        memcpy(buf, p, len);
        buf[len] = 0;
        v[k++] = len ? str(t, buf) : (lg_onnx_str){"", 0};
        if (!e) break;
        p = e + 1;
    }
    *out = v;
    *n = k;
}

void ti_node(ti_model *t, const char *op_type, const char *inputs, const char *outputs) {
    uint32_t i = t->g.n_nodes++;
    lg_onnx_node *n = &t->nodes[i];
    char nm[32];
    snprintf(nm, sizeof nm, "n%u", i);
    n->name = str(t, nm);
    n->op_type = str(t, op_type);
    names(t, inputs, &n->inputs, &n->n_inputs);
    names(t, outputs, &n->outputs, &n->n_outputs);
    n->attrs = t->attrs[i];
}

static lg_onnx_attr *new_attr(ti_model *t, const char *name, int32_t type) {
    lg_onnx_node *n = &t->nodes[t->g.n_nodes - 1];
    lg_onnx_attr *a = &t->attrs[t->g.n_nodes - 1][n->n_attrs++];
    a->name = str(t, name);
    a->type = type;
    return a;
}

void ti_attr_i(ti_model *t, const char *name, int64_t v) { new_attr(t, name, LG_ONNX_ATTR_INT)->i = v; }
void ti_attr_f(ti_model *t, const char *name, float v) { new_attr(t, name, LG_ONNX_ATTR_FLOAT)->f = v; }
void ti_attr_s(ti_model *t, const char *name, const char *v) { new_attr(t, name, LG_ONNX_ATTR_STRING)->s = str(t, v); }
void ti_attr_ints(ti_model *t, const char *name, const int64_t *v, uint32_t n) {
    lg_onnx_attr *a = new_attr(t, name, LG_ONNX_ATTR_INTS);
    int64_t *p = keep(t, (n + 1) * sizeof *p);
    memcpy(p, v, n * sizeof *p);
    a->ints = p;
    a->n_ints = n;
}

void ti_attr_t(ti_model *t, const char *name, int32_t dtype, const int64_t *dims, uint32_t rank, const void *data) {
    lg_onnx_attr *a = new_attr(t, name, LG_ONNX_ATTR_TENSOR);
    lg_onnx_tensor *x = keep(t, sizeof *x);
    int64_t *d = keep(t, (rank + 1) * sizeof *d);
    uint64_t n = 1;
    for (uint32_t i = 0; i < rank; i++) n *= (uint64_t)(d[i] = dims[i]);
    x->data_type = dtype;
    x->dims = d;
    x->n_dims = rank;
    x->count = n;
    x->src = LG_ONNX_DATA_RAW;
    x->nbytes = n * (uint64_t)esize(dtype);
    void *p = keep(t, x->nbytes);
    memcpy(p, data, x->nbytes);
    x->data = p;
    a->t = x;
}

const lg_onnx_model *ti_model_of(ti_model *t) { return &t->m; }

lg_status ti_import(ti_model *t, bool raw, lg_model **m, lg_import_report **rep, lg_error *err) {
    lg_import_options o;
    memset(&o, 0, sizeof o);
    o.no_optimize = raw;
    o.sha256_hex = "00";
    return lg_onnx_import(&t->m, &o, m, rep, err);
}

int ti_run(const lg_model *m, const float *const *inputs, uint32_t n_inputs, uint32_t k, float *out, size_t n) {
    lg_interp *it = NULL;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_error err;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) return -1;
    int rc = 0;
    for (uint32_t i = 0; i < n_inputs && !rc; i++) {
        lg_tensor_view v;
        lg_interp_input(it, i, &v);
        if (lg_interp_set_input(it, i, LG_FLOAT32, inputs[i], (uint64_t)v.numel * 4, &err) != LG_OK) rc = -2;
    }
    if (!rc && lg_interp_invoke(it, &err) != LG_OK) rc = -3;
    lg_tensor_view v;
    if (!rc && (lg_interp_output(it, k, &v) != LG_OK || (size_t)v.numel != n || v.type != LG_FLOAT32)) rc = -4;
    if (!rc) memcpy(out, v.data, n * sizeof *out);
    lg_interp_free(it);
    return rc;
}

int ti_run_typed(const lg_model *m, const void *const *inputs, const lg_dtype *in_types, uint32_t n_inputs,
                 uint32_t k, lg_dtype out_type, void *out, size_t n) {
    lg_interp *it = NULL;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_error err;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) return -1;
    int rc = 0;
    for (uint32_t i = 0; i < n_inputs && !rc; i++) {
        lg_tensor_view v;
        lg_interp_input(it, i, &v);
        if (lg_interp_set_input(it, i, in_types[i], inputs[i], (uint64_t)v.numel * (uint64_t)(lg_dtype_bits(in_types[i]) / 8), &err) != LG_OK)
            rc = -2;
    }
    if (!rc && lg_interp_invoke(it, &err) != LG_OK) rc = -3;
    lg_tensor_view v;
    if (!rc && (lg_interp_output(it, k, &v) != LG_OK || (size_t)v.numel != n || v.type != out_type)) rc = -4;
    if (!rc) memcpy(out, v.data, n * (size_t)(lg_dtype_bits(out_type) / 8));
    lg_interp_free(it);
    return rc;
}

int ti_count_ops(const lg_model *m, int32_t code) {
    int n = 0;
    for (uint32_t i = 0; i < m->subgraphs[0].n_ops; i++)
        if (lg_op_builtin(m, &m->subgraphs[0].ops[i]) == code) n++;
    return n;
}
