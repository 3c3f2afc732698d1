/* litegpu tile: spatial tiling analysis (lg/tile.h). Reads a model, writes nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "lg/npy.h"
#include "lg/tile.h"

typedef struct t_args {
    const char *model, *output, *tile, *input;
    bool verify, json;
    int32_t tile_n[LG_TILE_MAX_AXES];
    uint32_t n_tile;
} t_args;

/* "8x8", "16" */
static int parse_tile(const cli_verb *v, t_args *a) {
    const char *p = a->tile;
    while (*p && a->n_tile < LG_TILE_MAX_AXES) {
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p || x < 1 || x > 1 << 20) return cli_usage_error(v, "--tile: bad size '%s' (HxW or N)", a->tile);
        a->tile_n[a->n_tile++] = (int32_t)x;
        if (*end == 'x' || *end == 'X') p = end + 1;
        else if (*end == 0) p = end;
        else return cli_usage_error(v, "--tile: bad size '%s' (HxW or N)", a->tile);
    }
    return CLI_OK;
}

/* The tile size of axis a of output o: --tile (one value for every axis when one is given). */
static int32_t tile_size(const t_args *a, const lg_tile_output *o, uint32_t ax) {
    if (!a->n_tile) return 0;
    int32_t n = a->n_tile == 1 ? a->tile_n[0] : (ax < a->n_tile ? a->tile_n[ax] : 0);
    if (n > o->axes[ax].out_size) n = o->axes[ax].out_size;
    return n;
}

static double jump(const lg_tile_axis *x) { return x->jump_den ? (double)x->jump_num / x->jump_den : 0; }

static void print_jump(const lg_tile_axis *x) {
    if (x->jump_den == 1) printf("%d", x->jump_num);
    else printf("%d/%d", x->jump_num, x->jump_den);
}

typedef struct t_out {
    bool has_tile, has_verify;
    int32_t tile_out[LG_TILE_MAX_AXES], tile_in[LG_TILE_MAX_AXES];
    lg_tile_verify_result vr;
    lg_status vst;
    char verr[512];
    bool verify_ok;
} t_out;

static void text_output(const lg_model *m, const lg_tile_output *o, uint32_t k, const t_out *to) {
    const lg_tensor *t = &m->subgraphs[0].tensors[o->tensor];
    printf("output %u \"%s\" [", k, o->name ? o->name : "");
    for (uint32_t i = 0; i < t->rank; i++) printf("%s%d", i ? "," : "", t->shape[i]);
    printf("]: %s\n", o->exact ? "exact tiling" : "NOT exactly tileable");
    if (!o->exact && o->first >= 0) {
        const lg_tile_breaker *b = &o->breakers[o->first];
        printf("  first inexact op: %d %s (tensor \"%s\"): %s\n", b->op, b->op_name,
               b->tensor_name ? b->tensor_name : "", b->detail);
        printf("  %u op(s) on the path stop exact tiling:", o->n_breakers);
        for (uint32_t i = 0; i < o->n_breakers && i < LG_TILE_MAX_BREAKERS; i++)
            printf("%s %d %s (%s)", i ? "," : "", o->breakers[i].op, o->breakers[i].op_name,
                   lg_tile_why_name(o->breakers[i].why));
        printf("%s\n", o->n_breakers > LG_TILE_MAX_BREAKERS ? ", ..." : "");
    }
    for (uint32_t a = 0; a < o->n_axes; a++) {
        const lg_tile_axis *x = &o->axes[a];
        printf("  axis %s (input %d axis %d, %d -> %d): ", x->name, x->input, x->input_axis, x->in_size, x->out_size);
        if (!o->exact) { printf("receptive field n/a (not local)\n"); continue; }
        if (x->out_axis < 0) { printf("the output has no extent along it\n"); continue; }
        printf("RF %d, jump ", x->rf);
        print_jump(x);
        printf(", halo %d left / %d right%s\n", x->halo_left, x->halo_right, x->causal ? " (causal: left only)" : "");
    }
    if (to->has_tile) {
        printf("  tile ");
        for (uint32_t a = 0; a < o->n_axes; a++) printf("%s%d", a ? "x" : "", to->tile_out[a]);
        printf(" -> input tile ");
        for (uint32_t a = 0; a < o->n_axes; a++) printf("%s%d", a ? "x" : "", to->tile_in[a]);
        printf(" ((n-1)*J + RF)\n");
    }
    if (o->streaming) {
        printf("  streaming (causal chunks): carried state %lld samples (%lld values) =",
               (long long)o->state_samples, (long long)o->state_values);
        for (uint32_t i = 0; i < o->n_layers; i++)
            printf("%s op %d %s k%d d%d: %d x %d ch", i ? " +" : "", o->layers[i].op,
                   lg_op_name(m, &m->subgraphs[0].ops[o->layers[i].op]), o->layers[i].kernel, o->layers[i].dilation, o->layers[i].state_samples,
                   o->layers[i].channels);
        printf("\n");
    }
    if (to->has_verify) {
        if (to->vst != LG_OK) { printf("  verify: not supported: %s\n", to->verr); return; }
        printf("  verify: %u tiled sub-model runs (largest input crop %lld of %lld elements): max |full - tiled| %.3g "
               "(relative %.3g): %s\n",
               to->vr.n_tiles, (long long)to->vr.max_crop_elems, (long long)to->vr.full_input_elems,
               to->vr.max_abs, to->vr.max_rel,
               o->exact ? (to->verify_ok ? "the tiles reproduce the full output"
                                         : "MISMATCH: the computed halo does not reproduce the output")
                        : (to->vr.max_rel > 1e-6 ? "differs, as expected for an inexact model"
                           : to->vr.max_crop_elems >= to->vr.full_input_elems
                               ? "no difference: every tile's crop is the whole input (the model is still inexact)"
                               : "no difference on this input (the model is still inexact)"));
    }
}

static void json_breaker(json_w *j, const lg_tile_breaker *b) {
    json_obj_open(j);
    json_key_int(j, "op", b->op);
    json_key_str(j, "op_name", b->op_name);
    json_key_int(j, "tensor", b->tensor);
    json_key_str(j, "tensor_name", b->tensor_name);
    json_key_str(j, "why", lg_tile_why_name(b->why));
    json_key_str(j, "detail", b->detail);
    json_obj_close(j);
}

static void json_output(json_w *j, const lg_tile_output *o, uint32_t k, const t_out *to) {
    json_obj_open(j);
    json_key_int(j, "index", k);
    json_key_int(j, "tensor", o->tensor);
    json_key_str(j, "name", o->name);
    json_key_bool(j, "exact", o->exact);
    json_key(j, "first_inexact");
    if (o->first >= 0) json_breaker(j, &o->breakers[o->first]);
    else json_null(j);
    json_key_int(j, "n_breakers", o->n_breakers);
    json_key(j, "breakers");
    json_arr_open(j);
    for (uint32_t i = 0; i < o->n_breakers && i < LG_TILE_MAX_BREAKERS; i++) json_breaker(j, &o->breakers[i]);
    json_arr_close(j);
    json_key(j, "axes");
    json_arr_open(j);
    for (uint32_t a = 0; a < o->n_axes; a++) {
        const lg_tile_axis *x = &o->axes[a];
        bool known = o->exact && x->out_axis >= 0;
        json_obj_open_flat(j);
        json_key_str(j, "axis", x->name);
        json_key_int(j, "input_index", x->input);
        json_key_int(j, "input_axis", x->input_axis);
        json_key_int(j, "output_axis", x->out_axis);
        json_key_int(j, "in_size", x->in_size);
        json_key_int(j, "out_size", x->out_size);
        if (known) {
            json_key_int(j, "rf", x->rf);
            json_key_double(j, "jump", jump(x));
            json_key_int(j, "jump_num", x->jump_num);
            json_key_int(j, "jump_den", x->jump_den);
            json_key_int(j, "halo_left", x->halo_left);
            json_key_int(j, "halo_right", x->halo_right);
            json_key_bool(j, "causal", x->causal);
        } else {
            const char *ks[] = {"rf", "jump", "halo_left", "halo_right"};
            for (int i = 0; i < 4; i++) { json_key(j, ks[i]); json_null(j); }
        }
        json_obj_close(j);
    }
    json_arr_close(j);
    if (to->has_tile) {
        json_key(j, "tile");
        json_obj_open_flat(j);
        json_key(j, "output_tile");
        json_arr_open_flat(j);
        for (uint32_t a = 0; a < o->n_axes; a++) json_int(j, to->tile_out[a]);
        json_arr_close(j);
        json_key(j, "input_tile");
        json_arr_open_flat(j);
        for (uint32_t a = 0; a < o->n_axes; a++) json_int(j, to->tile_in[a]);
        json_arr_close(j);
        json_obj_close(j);
    }
    json_key(j, "streaming");
    if (o->streaming) {
        json_obj_open(j);
        json_key_int(j, "state_samples", o->state_samples);
        json_key_int(j, "state_values", o->state_values);
        json_key(j, "layers");
        json_arr_open(j);
        for (uint32_t i = 0; i < o->n_layers; i++) {
            const lg_tile_layer *l = &o->layers[i];
            json_obj_open_flat(j);
            json_key_int(j, "op", l->op);
            json_key_int(j, "kernel", l->kernel);
            json_key_int(j, "dilation", l->dilation);
            json_key_int(j, "stride", l->stride);
            json_key_int(j, "state_samples", l->state_samples);
            json_key_int(j, "channels", l->channels);
            json_obj_close(j);
        }
        json_arr_close(j);
        json_obj_close(j);
    } else {
        json_null(j);
    }
    if (to->has_verify) {
        json_key(j, "verify");
        json_obj_open(j);
        json_key_bool(j, "supported", to->vst == LG_OK);
        if (to->vst != LG_OK) {
            json_key_str(j, "reason", to->verr);
        } else {
            json_key_int(j, "n_tiles", to->vr.n_tiles);
            json_key_double(j, "max_abs", to->vr.max_abs);
            json_key_double(j, "ref_max_abs", to->vr.ref_max_abs);
            json_key(j, "max_rel");
            if (to->vr.ref_max_abs > 0) json_double(j, to->vr.max_rel);
            else json_null(j);
            json_key_int(j, "max_crop_elems", to->vr.max_crop_elems);
            json_key_int(j, "full_input_elems", to->vr.full_input_elems);
            json_key_bool(j, "reproduces", to->verify_ok);
        }
        json_obj_close(j);
    }
    json_obj_close(j);
}

static int load_input(const t_args *a, float **data) {
    *data = NULL;
    if (!a->input) return CLI_OK;
    lg_npy arr;
    lg_error err;
    if (lg_npy_read_file(a->input, &arr, &err) != LG_OK) return cli_lib_error(a->input, &err);
    lg_status st = lg_npy_to_f32(&arr, data, &err);
    lg_npy_free(&arr);
    return st == LG_OK ? CLI_OK : cli_lib_error(a->input, &err);
}

static void do_output(const t_args *a, const lg_model *m, const lg_tile_report *r, uint32_t k,
                      const float *input, t_out *to) {
    const lg_tile_output *o = &r->outputs[k];
    memset(to, 0, sizeof *to);
    lg_error err;
    if (a->n_tile && o->exact) {
        int32_t o0[LG_TILE_MAX_AXES] = {0}, lo[LG_TILE_MAX_AXES], hi[LG_TILE_MAX_AXES];
        for (uint32_t x = 0; x < o->n_axes; x++) to->tile_out[x] = tile_size(a, o, x);
        if (lg_tile_input_crop(m, r, k, o0, to->tile_out, lo, hi, &err) == LG_OK) {
            to->has_tile = true;
            /* (n-1)*J + RF: the crop of a tile away from the border, from the analysis */
            for (uint32_t x = 0; x < o->n_axes; x++) to->tile_in[x] = hi[x] - lo[x] + 1;
        }
    }
    if (a->verify) {
        to->has_verify = true;
        lg_tile_verify_options vo;
        memset(&vo, 0, sizeof vo);
        vo.output = k;
        for (uint32_t x = 0; x < o->n_axes; x++) vo.tile[x] = tile_size(a, o, x);
        vo.input = input;
        to->vst = lg_tile_verify(m, r, &vo, &to->vr, &err);
        if (to->vst != LG_OK) snprintf(to->verr, sizeof to->verr, "%s", err.msg);
        to->verify_ok = to->vst == LG_OK && (!o->exact || to->vr.max_rel <= 1e-6);
    }
}

int cmd_tile(const cli_verb *v, int argc, char **argv) {
    t_args a;
    memset(&a, 0, sizeof a);
    const cli_flag flags[] = {
        {"--output", NULL, NULL, &a.output, NULL, NULL, 0},
        {"--tile", NULL, NULL, &a.tile, NULL, NULL, 0},
        {"--verify", NULL, &a.verify, NULL, NULL, NULL, 0},
        {"--input", "-i", NULL, &a.input, NULL, NULL, 0},
        {"--json", NULL, &a.json, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, 0},
    };
    const char *pos[1];
    int n_pos = 0;
    int rc = cli_parse(v, argc, argv, flags, pos, 1, &n_pos);
    if (rc >= 0) return rc;
    if (n_pos != 1) return cli_usage_error(v, "missing MODEL");
    a.model = pos[0];
    if (a.tile && (rc = parse_tile(v, &a)) != CLI_OK) return rc;
    if (a.input && !a.verify) return cli_usage_error(v, "--input is only used with --verify");
    long only = -1;
    if (a.output) {
        char *end;
        only = strtol(a.output, &end, 10);
        if (end == a.output || *end || only < 0) return cli_usage_error(v, "--output: bad index '%s'", a.output);
    }
    lg_model *m = NULL;
    if ((rc = cli_load_model(a.model, &m)) != CLI_OK) return rc;
    lg_tile_report *r = NULL;
    lg_error err;
    if (lg_tile_analyze(m, &r, &err) != LG_OK) {
        rc = cli_lib_error(a.model, &err);
        lg_model_free(m);
        return rc;
    }
    if (only >= (long)r->n_outputs) {
        uint32_t n_out = r->n_outputs;
        lg_tile_report_free(r);
        lg_model_free(m);
        return cli_error("%s: --output %ld: the model has %u output(s)", a.model, only, n_out);
    }
    float *input = NULL;
    if ((rc = load_input(&a, &input)) != CLI_OK) {
        lg_tile_report_free(r);
        lg_model_free(m);
        return rc;
    }
    t_out *tos = calloc(r->n_outputs ? r->n_outputs : 1, sizeof *tos);
    bool all_ok = tos != NULL;
    for (uint32_t k = 0; k < r->n_outputs && tos; k++) {
        if (only >= 0 && k != (uint32_t)only) continue;
        do_output(&a, m, r, k, input, &tos[k]);
        if (tos[k].has_verify && tos[k].vst == LG_OK && !tos[k].verify_ok && r->outputs[k].exact) all_ok = false;
    }
    if (!tos) {
        rc = cli_error("out of memory");
    } else if (a.json) {
        json_w j;
        json_init(&j, stdout);
        json_obj_open(&j);
        json_key_str(&j, "verb", "tile");
        json_key_str(&j, "model", a.model);
        json_key_bool(&j, "ok", all_ok);
        json_key_int(&j, "n_outputs", r->n_outputs);
        uint32_t n_exact = 0;
        for (uint32_t k = 0; k < r->n_outputs; k++) n_exact += r->outputs[k].exact;
        json_key_int(&j, "n_exact", n_exact);
        json_key(&j, "outputs");
        json_arr_open(&j);
        for (uint32_t k = 0; k < r->n_outputs; k++)
            if (only < 0 || k == (uint32_t)only) json_output(&j, &r->outputs[k], k, &tos[k]);
        json_arr_close(&j);
        json_obj_close(&j);
        if (json_finish(&j)) rc = cli_error("cannot write the report");
    } else {
        for (uint32_t k = 0; k < r->n_outputs; k++)
            if (only < 0 || k == (uint32_t)only) text_output(m, &r->outputs[k], k, &tos[k]);
    }
    if (rc == CLI_OK && !all_ok) rc = CLI_FINDINGS;
    free(tos);
    free(input);
    lg_tile_report_free(r);
    lg_model_free(m);
    return rc;
}
