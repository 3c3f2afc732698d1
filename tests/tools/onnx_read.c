/*
 * onnx_read: a CLI-less test tool for the ONNX reader (include/lg/onnx.h).
 *
 *   onnx_read [--dump] [--no-external] MODEL.onnx...   read each model (lg_onnx_read_file)
 *   onnx_read --tensor FILE.pb...                      read each serialized TensorProto
 *
 * Prints one line per file: "OK FILE: ir 7, opset 13, 12 nodes, 3 initializers, 1 inputs,
 * 1 outputs" or the reader's one-line error; exits 0 when every file was read, 2 otherwise
 * (1 on usage errors). --dump adds, after each OK line, a canonical summary the e2e test
 * compares with python3-onnx's own parse:
 *     nodes N
 *     op DOMAIN:OP_TYPE              (one per node, in order)
 *     init NAME DTYPE [D0,D1,...]    (one per initializer)
 *     input NAME / output NAME
 * --tensor prints "tensor NAME DTYPE [dims] sha256 HEX", HEX being the SHA-256 of the data
 * in raw_data layout (for STRING tensors: each string's 8-byte little-endian length and bytes).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lg/onnx.h"
#include "lg/util.h"

static void print_dims(const int64_t *d, uint32_t n) {
    printf("[");
    for (uint32_t i = 0; i < n; i++) printf("%s%lld", i ? "," : "", (long long)d[i]);
    printf("]");
}

static void dump(const lg_onnx_model *m) {
    const lg_onnx_graph *g = m->graph;
    printf("nodes %u\n", g->n_nodes);
    for (uint32_t i = 0; i < g->n_nodes; i++)
        printf("op %.*s:%.*s\n", LG_ONNX_STR(g->nodes[i].domain), LG_ONNX_STR(g->nodes[i].op_type));
    for (uint32_t i = 0; i < g->n_initializers; i++) {
        const lg_onnx_tensor *t = &g->initializers[i];
        printf("init %.*s %s ", LG_ONNX_STR(t->name), lg_onnx_dtype_name(t->data_type));
        print_dims(t->dims, t->n_dims);
        printf("\n");
    }
    for (uint32_t i = 0; i < g->n_inputs; i++) printf("input %.*s\n", LG_ONNX_STR(g->inputs[i].name));
    for (uint32_t i = 0; i < g->n_outputs; i++) printf("output %.*s\n", LG_ONNX_STR(g->outputs[i].name));
}

static int read_all(const char *path, uint8_t **buf, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || st.st_size < 0) { fclose(f); return 0; }
    *n = (size_t)st.st_size;
    *buf = malloc(*n ? *n : 1);
    int ok = *buf && fread(*buf, 1, *n, f) == *n;
    fclose(f);
    return ok;
}

static int do_tensor(const char *path) {
    uint8_t *buf = NULL;
    size_t n = 0;
    if (!read_all(path, &buf, &n)) {
        printf("%s: cannot read: %s\n", path, strerror(errno));
        free(buf);
        return 0;
    }
    lg_onnx_read_options o = {0};
    o.name = path;
    lg_onnx_model *m = NULL;
    lg_error err;
    if (lg_onnx_read_tensor_mem(buf, n, &o, &m, &err) != LG_OK) {
        printf("%s\n", err.msg);
        free(buf);
        return 0;
    }
    const lg_onnx_tensor *t = m->tensor;
    lg_onnx_data d;
    int ok = lg_onnx_tensor_data(t, &d, &err) == LG_OK;
    if (!ok) printf("%s: %s\n", path, err.msg);
    else {
        lg_sha256_ctx c;
        uint8_t dg[32];
        char hex[65];
        lg_sha256_init(&c);
        if (d.dtype == LG_ONNX_STRING) {
            for (uint32_t i = 0; i < d.n_strings; i++) {
                uint8_t len[8];
                for (int k = 0; k < 8; k++) len[k] = (uint8_t)((uint64_t)d.strings[i].n >> (8 * k));
                lg_sha256_update(&c, len, 8);
                lg_sha256_update(&c, d.strings[i].s, d.strings[i].n);
            }
        } else {
            lg_sha256_update(&c, d.data, (size_t)d.nbytes);
        }
        lg_sha256_final(&c, dg);
        lg_hex(dg, 32, hex);
        printf("tensor %.*s %s ", LG_ONNX_STR(t->name), lg_onnx_dtype_name(d.dtype));
        print_dims(t->dims, t->n_dims);
        printf(" sha256 %s\n", hex);
    }
    lg_onnx_model_free(m);
    free(buf);
    return ok;
}

static int do_model(const char *path, int want_dump, int no_external) {
    lg_onnx_read_options o = {0};
    o.no_external = no_external;
    lg_onnx_model *m = NULL;
    lg_error err;
    if (lg_onnx_read_file(path, &o, &m, &err) != LG_OK) {
        printf("%s\n", err.msg);
        return 0;
    }
    const lg_onnx_graph *g = m->graph;
    int64_t opset = -1;
    for (uint32_t i = 0; i < m->n_opsets; i++)
        if (!m->opsets[i].domain.n || lg_onnx_str_eq(m->opsets[i].domain, "ai.onnx")) opset = m->opsets[i].version;
    printf("OK %s: ir %lld, opset %lld, %u nodes, %u initializers, %u inputs, %u outputs\n", path,
           (long long)m->ir_version, (long long)opset, g->n_nodes, g->n_initializers, g->n_inputs, g->n_outputs);
    if (want_dump) dump(m);
    lg_onnx_model_free(m);
    return 1;
}

int main(int argc, char **argv) {
    int want_dump = 0, tensor = 0, no_external = 0, i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--dump")) want_dump = 1;
        else if (!strcmp(argv[i], "--tensor")) tensor = 1;
        else if (!strcmp(argv[i], "--no-external")) no_external = 1;
        else { fprintf(stderr, "onnx_read: unknown option %s\n", argv[i]); return 1; }
    }
    if (i >= argc) {
        fprintf(stderr, "usage: onnx_read [--dump] [--no-external] MODEL... | --tensor FILE.pb...\n");
        return 1;
    }
    int bad = 0;
    for (; i < argc; i++) bad += tensor ? !do_tensor(argv[i]) : !do_model(argv[i], want_dump, no_external);
    fflush(stdout);
    return bad ? 2 : 0;
}
