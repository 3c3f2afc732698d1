/*
 * onnx2tflite: a test driver for the ONNX importer (include/lg/import.h); the CLI's
 * `litegpu convert` is the user-facing verb.
 *
 *   onnx2tflite [--input-shape NAME=D0,D1,...]... [--nhwc-io] [--weights-fp16] [--report]
 *               [--const-input NAME=VALUE.pb]... [--print-inputs] MODEL.onnx OUT.tflite
 *
 * Exit 0 on success; 2 with one line on stderr when the model cannot be read or converted
 * (e.g. `node 3 "x" (Foo, domain ai.onnx, opset 17): not supported`); 1 on usage errors.
 * --print-inputs prints the names of the model's inputs (not initializers), one a line.
 * --report prints every node's lowering and the notes. --const-input freezes a graph input to
 * the serialized TensorProto's value (lg_import_options.const_inputs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/import.h"
#include "lg/onnx.h"
#include "lg/util.h"

static int usage(void) {
    fprintf(stderr, "usage: onnx2tflite [--input-shape NAME=D0,D1,...] [--nhwc-io] [--weights-fp16] "
                    "[--report] [--print-inputs] MODEL.onnx OUT.tflite\n");
    return 1;
}

static char *file_sha(const char *path) {
    static char hex[65];
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    lg_sha256_ctx c;
    lg_sha256_init(&c);
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) lg_sha256_update(&c, buf, n);
    fclose(f);
    uint8_t d[32];
    lg_sha256_final(&c, d);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
    return hex;
}

int main(int argc, char **argv) {
    lg_import_shape shapes[16];
    int64_t dims[16][8];
    uint32_t n_shapes = 0;
    lg_import_const consts[16];
    lg_onnx_model *const_models[16];
    void *const_bufs[16];
    uint32_t n_consts = 0;
    lg_import_options io;
    memset(&io, 0, sizeof io);
    bool report = false, print_inputs = false;
    const char *pos[2];
    int np = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--input-shape") && i + 1 < argc && n_shapes < 16) {
            char *s = argv[++i], *eq = strchr(s, '=');
            if (!eq) return usage();
            *eq = 0;
            shapes[n_shapes].name = s;
            uint32_t r = 0;
            for (char *p = eq + 1; *p && r < 8;) {
                dims[n_shapes][r++] = strtoll(p, &p, 10);
                if (*p == ',') p++;
                else if (*p) return usage();
            }
            shapes[n_shapes].dims = dims[n_shapes];
            shapes[n_shapes].rank = r;
            n_shapes++;
        } else if (!strcmp(argv[i], "--const-input") && i + 1 < argc && n_consts < 16) {
            char *s = argv[++i], *eq = strchr(s, '=');
            if (!eq) return usage();
            *eq = 0;
            FILE *f = fopen(eq + 1, "rb");
            if (!f) {
                fprintf(stderr, "%s: cannot open\n", eq + 1);
                return 2;
            }
            fseek(f, 0, SEEK_END);
            long n = ftell(f);
            fseek(f, 0, SEEK_SET);
            void *buf = malloc(n > 0 ? (size_t)n : 1);
            size_t got = buf && n > 0 ? fread(buf, 1, (size_t)n, f) : 0;
            fclose(f);
            lg_error e;
            if (!buf || (long)got != n || lg_onnx_read_tensor_mem(buf, (size_t)n, NULL, &const_models[n_consts], &e) != LG_OK) {
                fprintf(stderr, "%s: cannot read the tensor\n", eq + 1);
                return 2;
            }
            const_bufs[n_consts] = buf;
            consts[n_consts].name = s;
            consts[n_consts].value = const_models[n_consts]->tensor;
            n_consts++;
        } else if (!strcmp(argv[i], "--nhwc-io")) {
            io.nhwc_io = true;
        } else if (!strcmp(argv[i], "--weights-fp16")) {
            io.weights_fp16 = true;
        } else if (!strcmp(argv[i], "--report")) {
            report = true;
        } else if (!strcmp(argv[i], "--print-inputs")) {
            print_inputs = true;
        } else if (argv[i][0] == '-' || np == 2) {
            return usage();
        } else {
            pos[np++] = argv[i];
        }
    }
    if (np != 2 && !(print_inputs && np == 1)) return usage();
    lg_error err;
    lg_onnx_model *om = NULL;
    if (lg_onnx_read_file(pos[0], NULL, &om, &err) != LG_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    if (print_inputs) {
        const lg_onnx_graph *g = om->graph;
        for (uint32_t i = 0; i < g->n_inputs; i++) {
            bool init = false;
            for (uint32_t k = 0; k < g->n_initializers; k++)
                if (g->initializers[k].name.n == g->inputs[i].name.n &&
                    !memcmp(g->initializers[k].name.s, g->inputs[i].name.s, g->inputs[i].name.n))
                    init = true;
            for (uint32_t k = 0; k < n_consts; k++)
                if (lg_onnx_str_eq(g->inputs[i].name, consts[k].name)) init = true;
            if (!init) printf("%.*s\n", LG_ONNX_STR(g->inputs[i].name));
        }
        if (np == 1) {
            lg_onnx_model_free(om);
            return 0;
        }
    }
    io.const_inputs = consts;
    io.n_const_inputs = n_consts;
    io.input_shapes = shapes;
    io.n_input_shapes = n_shapes;
    io.sha256_hex = file_sha(pos[0]);
    lg_model *m = NULL;
    lg_import_report *rep = NULL;
    lg_status st = lg_onnx_import(om, &io, &m, &rep, &err);
    if (report && rep) {
        for (uint32_t i = 0; i < rep->n_nodes; i++)
            printf("node %u \"%s\" %s: %s\n", i, rep->nodes[i].name, rep->nodes[i].supported ? "ok" : "UNSUPPORTED",
                   rep->nodes[i].lowering ? rep->nodes[i].lowering : "-");
        for (uint32_t i = 0; i < rep->n_notes; i++) printf("note: %s\n", rep->notes[i]);
    }
    lg_import_report_free(rep);
    int rc = 0;
    if (st != LG_OK) {
        fprintf(stderr, "%s\n", err.msg);
        rc = 2;
    } else {
        lg_write_options wo;
        memset(&wo, 0, sizeof wo);
        wo.force = true;
        if (lg_tflite_write_file(m, pos[1], &wo, &err) != LG_OK) {
            fprintf(stderr, "%s\n", err.msg);
            rc = 2;
        }
    }
    lg_model_free(m);
    lg_onnx_model_free(om);
    for (uint32_t k = 0; k < n_consts; k++) {
        lg_onnx_model_free(const_models[k]);
        free(const_bufs[k]);
    }
    return rc;
}
