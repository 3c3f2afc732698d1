/* litegpu taps MODEL -o OUT: intermediates as extra outputs (lg_model_taps), for finding
   the first broken op on a device by hand, as the seed's per-layer tap harness does. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "lg/graph.h"
#include "lg/split.h"


/* The tensors to tap: --tensors by name, --every N, or all (n = 0). */
static int pick(const lg_model *m, const lg_graph *g, const char *names, const char *every, int32_t **out,
                uint32_t *n) {
    const lg_subgraph *sg = &m->subgraphs[0];
    *out = malloc(((size_t)sg->n_tensors + 1) * sizeof **out);
    *n = 0;
    if (!*out) return cli_error("out of memory");
    if (names) {
        char buf[8192];
        if (snprintf(buf, sizeof buf, "%s", names) >= (int)sizeof buf) return cli_error("--tensors: too long");
        for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
            int32_t hit = -1;
            for (uint32_t k = 0; k < sg->n_tensors && hit < 0; k++)
                if (sg->tensors[k].name && strcmp(sg->tensors[k].name, t) == 0) hit = (int32_t)k;
            if (hit < 0) return cli_error("--tensors: no tensor is named \"%s\"", t);
            if (lg_graph_producer(g, hit) < 0) return cli_error("--tensors: \"%s\" is not computed by an op", t);
            (*out)[(*n)++] = hit;
        }
    } else if (every) {
        char *end;
        long e = strtol(every, &end, 10);
        if (*end || e < 1) return cli_error("--every takes a number >= 1");
        for (uint32_t i = (uint32_t)e - 1; i < sg->n_ops; i += (uint32_t)e)
            for (uint32_t k = 0; k < sg->ops[i].n_outputs; k++) {
                int32_t t = sg->ops[i].outputs[k];
                if (t >= 0 && sg->tensors[t].type == LG_FLOAT32) {
                    (*out)[(*n)++] = t;
                    break;
                }
            }
        if (!*n) return cli_error("--every %ld: no op with a float output", e);
    }
    return 0;
}

int cmd_taps(const cli_verb *v, int argc, char **argv) {
    const char *out = NULL, *names = NULL, *every = NULL;
    bool force = false, json = false;
    const cli_flag flags[] = {
        {"--output", "-o", NULL, &out, NULL, NULL, 0},
        {"--tensors", NULL, NULL, &names, NULL, NULL, 0},
        {"--every", NULL, NULL, &every, NULL, NULL, 0},
        {"--force", NULL, &force, NULL, NULL, NULL, 0},
        {"--json", NULL, &json, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, 0},
    };
    const char *pos[1];
    int n_pos = 0;
    int rc = cli_parse(v, argc, argv, flags, pos, 1, &n_pos);
    if (rc >= 0) return rc;
    if (n_pos != 1) return cli_usage_error(v, "missing MODEL");
    if (!out) return cli_usage_error(v, "missing -o OUT");
    if (names && every) return cli_usage_error(v, "--tensors and --every exclude each other");
    if (cli_same_file(pos[0], out)) return cli_error("%s: refusing to write over the input file", out);
    if (cli_output_check(out, force)) return CLI_ERROR;
    cli_file f;
    lg_model *m = NULL, *t = NULL;
    if (cli_model_load(pos[0], &f, &m) != 0) return CLI_ERROR;
    int32_t *pk = NULL;
    uint32_t n = 0, added = 0;
    lg_error err;
    lg_graph *g = NULL, *gt = NULL;
    rc = CLI_OK;
    if (lg_graph_build(m, 0, &g, &err) != LG_OK) rc = cli_lib_error(pos[0], &err);
    if (!rc) rc = pick(m, g, names, every, &pk, &n);
    if (!rc && lg_model_taps(m, pk, n, &t, &added, &err) != LG_OK) rc = cli_lib_error(pos[0], &err);
    lg_write_options wo = {.force = force};
    if (!rc) {
        lg_status st = lg_tflite_write_file(t, out, &wo, &err);
        if (st == LG_ERR_EXISTS) rc = cli_error("%s: output exists (use --force to replace it)", out);
        else if (st != LG_OK) rc = cli_lib_error(out, &err);
    }
    if (!rc && lg_graph_build(t, 0, &gt, &err) != LG_OK) rc = cli_lib_error(out, &err);
    if (!rc) {
        const lg_subgraph *sg = &t->subgraphs[0];
        uint32_t first = sg->n_outputs - added;
        json_w j;
        if (json) {
            json_init(&j, stdout);
            json_obj_open(&j);
            json_key_str(&j, "verb", "taps");
            json_key_str(&j, "model", pos[0]);
            json_key_bool(&j, "ok", true);
            json_key_str(&j, "output", out);
            json_key_uint(&j, "n_outputs", first);
            json_key_uint(&j, "n_taps", added);
            json_key(&j, "taps");
            json_arr_open(&j);
        } else {
            printf("%s: %u tap(s) after the model's %u output(s)\n", out, added, first);
        }
        for (uint32_t k = first; k < sg->n_outputs; k++) {
            int32_t tt = sg->outputs[k], op = lg_graph_producer(gt, tt);
            const char *nm = sg->tensors[tt].name ? sg->tensors[tt].name : "";
            const char *on = op >= 0 ? lg_op_name(t, &sg->ops[op]) : "?";
            if (json) {
                json_obj_open_flat(&j);
                json_key_uint(&j, "output", k);
                json_key_int(&j, "tensor", tt);
                json_key_str(&j, "name", nm);
                json_key_int(&j, "op", op);
                json_key_str(&j, "op_name", on);
                json_obj_close(&j);
            } else {
                printf("  output %u: tensor %d \"%s\" (op %d %s)\n", k, tt, nm, op, on);
            }
        }
        if (json) {
            json_arr_close(&j);
            json_obj_close(&j);
            if (json_finish(&j)) rc = cli_error("cannot write the report");
        }
    }
    free(pk);
    lg_graph_free(g);
    lg_graph_free(gt);
    lg_model_free(t);
    lg_model_free(m);
    cli_file_close(&f);
    return rc;
}
