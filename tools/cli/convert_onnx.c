/* convert's ONNX input: read (src/io/onnx, verifying), import (src/import: NCHW kept inside,
   explicit transposes around NHWC-only ops, then the exact --optimize passes), and the
   --report of every node's lowering. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "lg/import.h"
#include "lg/onnx.h"
#include "lg/util.h"

/* "NAME=1,3,224,224" into s (dims allocated into dims_buf, at most 8). 0 or CLI_ERROR. */
int cli_parse_shape(const char *spec, char *name_buf, size_t name_size, int64_t *dims_buf, uint32_t *rank) {
    const char *eq = strrchr(spec, '=');
    if (!eq || eq == spec || !eq[1])
        return cli_error("--input-shape %s: expected NAME=D0,D1,... (e.g. input=1,3,224,224)", spec);
    size_t nl = (size_t)(eq - spec);
    if (nl >= name_size) return cli_error("--input-shape: the name is too long");
    memcpy(name_buf, spec, nl);
    name_buf[nl] = 0;
    uint32_t r = 0;
    const char *p = eq + 1;
    while (*p) {
        if (r == 8) return cli_error("--input-shape %s: more than 8 dimensions", spec);
        char *end;
        errno = 0;
        long long d = strtoll(p, &end, 10);
        if (end == p || errno || d < 1 || d > (1 << 30))
            return cli_error("--input-shape %s: dimension %u is not a positive integer", spec, r);
        dims_buf[r++] = d;
        if (*end == ',') p = end + 1;
        else if (*end == 0) p = end;
        else return cli_error("--input-shape %s: expected digits and commas", spec);
    }
    *rank = r;
    return 0;
}

static int parse_shape(const char *spec, lg_import_shape *s, int64_t *dims_buf, char *name_buf,
                       size_t name_size) {
    uint32_t r = 0;
    if (cli_parse_shape(spec, name_buf, name_size, dims_buf, &r)) return CLI_ERROR;
    s->name = name_buf;
    s->dims = dims_buf;
    s->rank = r;
    return 0;
}

void cli_onnx_report_json(json_w *j, const lg_import_report *r) {
    json_key(j, "import");
    json_obj_open(j);
    json_key_int(j, "opset", r->opset);
    json_key_uint(j, "n_nodes", r->n_nodes);
    json_key_uint(j, "n_unsupported", r->n_unsupported);
    json_key(j, "nodes");
    json_arr_open(j);
    for (uint32_t i = 0; i < r->n_nodes; i++) {
        const lg_import_node *n = &r->nodes[i];
        json_obj_open_flat(j);
        json_key_uint(j, "index", i);
        json_key_str(j, "name", n->name);
        json_key_str(j, "op_type", n->op_type);
        json_key_str(j, "domain", n->domain && n->domain[0] ? n->domain : "ai.onnx");
        json_key_int(j, "opset", n->opset);
        json_key_bool(j, "supported", n->supported);
        json_key_str(j, "lowering", n->lowering);
        json_obj_close(j);
    }
    json_arr_close(j);
    json_key(j, "notes");
    json_arr_open(j);
    for (uint32_t i = 0; i < r->n_notes; i++) json_str(j, r->notes[i]);
    json_arr_close(j);
    json_obj_close(j);
}

void cli_onnx_report_text(const lg_import_report *r) {
    printf("onnx import: %u node(s), ai.onnx opset %lld, %u unsupported\n", r->n_nodes,
           (long long)r->opset, r->n_unsupported);
    for (uint32_t i = 0; i < r->n_nodes; i++) {
        const lg_import_node *n = &r->nodes[i];
        printf("  node %u \"%s\" (%s%s%s): %s%s\n", i, n->name ? n->name : "", n->op_type,
               n->domain && n->domain[0] ? ", domain " : "", n->domain && n->domain[0] ? n->domain : "",
               n->supported ? "" : "NOT SUPPORTED: ", n->lowering ? n->lowering : "");
    }
    for (uint32_t i = 0; i < r->n_notes; i++) printf("  note: %s\n", r->notes[i]);
}

int cli_onnx_import(const char *path, const cli_onnx_options *o, lg_model **m,
                    lg_import_report **rep_out) {
    *m = NULL;
    *rep_out = NULL;
    cli_file f;
    if (cli_file_open(path, &f) != 0) return CLI_ERROR;
    uint8_t digest[32];
    char hex[65];
    lg_sha256(f.data, f.size, digest);
    lg_hex(digest, sizeof digest, hex);
    cli_file_close(&f);

    lg_import_shape shapes[64];
    int64_t dims[64][8];
    char names[64][256];
    for (int i = 0; i < o->n_shapes && i < 64; i++)
        if (parse_shape(o->shapes[i], &shapes[i], dims[i], names[i], sizeof names[i])) return CLI_ERROR;

    lg_onnx_model *om = NULL;
    lg_error err;
    if (lg_onnx_read_file(path, NULL, &om, &err) != LG_OK) return cli_lib_error(path, &err);
    lg_import_options io;
    memset(&io, 0, sizeof io);
    io.input_shapes = shapes;
    io.n_input_shapes = (uint32_t)o->n_shapes;
    io.nhwc_io = o->nhwc_io;
    io.weights_fp16 = o->weights_fp16;
    io.sha256_hex = hex;
    lg_import_report *rep = NULL;
    lg_status st = lg_onnx_import(om, &io, m, &rep, &err);
    lg_onnx_model_free(om);
    if (st != LG_OK) {
        *m = NULL;
        /* with --report the whole gap is shown before the one error line */
        if (o->report && rep) {
            if (o->json) {
                json_w j;
                json_init(&j, stdout);
                json_obj_open(&j);
                json_key_str(&j, "verb", "convert");
                json_key_str(&j, "model", path);
                json_key_bool(&j, "ok", false);
                cli_onnx_report_json(&j, rep);
                json_obj_close(&j);
                json_finish(&j);
            } else {
                cli_onnx_report_text(rep);
            }
        }
        lg_import_report_free(rep);
        return cli_lib_error(path, &err);
    }
    *rep_out = rep;
    return CLI_OK;
}

int cli_load_model(const char *path, lg_model **m) {
    int fmt = cli_model_format(path);
    if (fmt < 0) return CLI_ERROR;
    if (fmt == CLI_FORMAT_ONNX) {
        cli_onnx_options oo;
        memset(&oo, 0, sizeof oo);
        lg_import_report *irep = NULL;
        int rc = cli_onnx_import(path, &oo, m, &irep);
        lg_import_report_free(irep);
        return rc;
    }
    lg_error err;
    if (lg_tflite_read_file(path, NULL, m, &err) != LG_OK) return cli_lib_error(path, &err);
    return CLI_OK;
}
