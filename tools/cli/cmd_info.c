/* litegpu info MODEL [--json]: the lg_info summary printed as text or JSON. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "lg/info.h"

/* ---------------------------------------------------------------- text */

static void text_quoted(FILE *f, const char *s) {
    json_write_quoted(f, s ? s : "", s ? strlen(s) : 0);
}

/* The shape as [1,?,?,3]: dims that are -1 in shape_signature (or negative in shape when
   there is no signature) print as ?. */
static void text_shape(FILE *f, const lg_info_io *io) {
    fputc('[', f);
    bool use_sig = io->shape_signature && io->n_shape_signature == io->rank;
    for (uint32_t d = 0; d < io->rank; d++) {
        int32_t v = use_sig ? io->shape_signature[d] : io->shape[d];
        if (d) fputc(',', f);
        if (v < 0) fputc('?', f);
        else fprintf(f, "%" PRId32, io->shape[d]);
    }
    fputc(']', f);
}

static void text_io(FILE *f, const char *what, const lg_info_io *io) {
    fprintf(f, "  %-6s %" PRIu32 " ", what, io->index);
    if (io->tensor < 0) {
        fputs("(bad tensor index)\n", f);
        return;
    }
    text_quoted(f, io->name);
    fprintf(f, " %s ", lg_dtype_name(io->dtype));
    text_shape(f, io);
    if (io->n_dynamic) fprintf(f, "  (%" PRIu32 " dynamic)", io->n_dynamic);
    fputc('\n', f);
}

static void text_census(FILE *f, const char *label, const lg_info_count *c, uint32_t n,
                        bool quote) {
    if (!n) return;
    fprintf(f, "  %s: ", label);
    for (uint32_t i = 0; i < n; i++) {
        if (i) fputs(", ", f);
        if (quote) text_quoted(f, c[i].name);
        else fputs(c[i].name, f);
        fprintf(f, " %" PRIu32, c[i].count);
    }
    fputc('\n', f);
}

static void text_names(FILE *f, const char *const *names, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        if (i) fputc(',', f);
        text_quoted(f, names[i]);
    }
}

static void print_text(FILE *f, const char *path, const lg_info *in) {
    cli_write_path(f, path);
    fprintf(f, "  %" PRIu64 " bytes", in->file_size);
    if (in->has_sha256) fprintf(f, "  sha256 %s", in->sha256_hex);
    fprintf(f, "\nschema v%" PRIu32, in->schema_version);
    if (in->description) {
        fputs("  description ", f);
        text_quoted(f, in->description);
    }
    fputc('\n', f);

    for (uint32_t s = 0; s < in->n_subgraphs; s++) {
        const lg_info_subgraph *sg = &in->subgraphs[s];
        fprintf(f, "subgraph %" PRIu32 " ", sg->index);
        text_quoted(f, sg->name);
        fprintf(f, ": %" PRIu32 " ops, %" PRIu32 " tensors, max rank %" PRIu32 "\n", sg->n_ops,
                sg->n_tensors, sg->max_rank);
        for (uint32_t i = 0; i < sg->n_inputs; i++) text_io(f, "input", &sg->inputs[i]);
        for (uint32_t i = 0; i < sg->n_outputs; i++) text_io(f, "output", &sg->outputs[i]);
        text_census(f, "ops", sg->ops, sg->n_ops_census, false);
        text_census(f, "custom ops", sg->custom_ops, sg->n_custom_ops, true);
    }

    const lg_info_weights *w = &in->weights;
    fprintf(f, "weights: %" PRIu64 " params, %" PRIu64 " B in %" PRIu32 " buffers", w->params,
            w->bytes, w->n_buffers);
    for (uint32_t i = 0; i < w->n_by_dtype; i++) {
        const lg_info_dtype_bytes *d = &w->by_dtype[i];
        fprintf(f, "%s %s %" PRIu64 " B (%" PRIu64 " params", i ? "," : ";",
                lg_dtype_name(d->dtype), d->bytes, d->params);
        /* a sparse constant stores fewer values than its dense shape has: say so, or
           bytes / element size != params reads as a bug */
        if (d->n_sparse_buffers)
            fprintf(f, "; %" PRIu32 " sparse: %" PRIu64 " B stored for %" PRIu64 " dense params",
                    d->n_sparse_buffers, d->sparse_bytes, d->sparse_params);
        fputc(')', f);
    }
    fputc('\n', f);

    fputs("signatures:", f);
    if (!in->n_signatures) fputs(" none", f);
    for (uint32_t i = 0; i < in->n_signatures; i++) {
        const lg_info_signature *sig = &in->signatures[i];
        fputs(i ? "; " : " ", f);
        text_quoted(f, sig->key);
        fprintf(f, " (subgraph %" PRIu32 ") in ", sig->subgraph);
        text_names(f, sig->inputs, sig->n_inputs);
        fputs(" out ", f);
        text_names(f, sig->outputs, sig->n_outputs);
    }
    fputs("   metadata:", f);
    if (!in->n_metadata) fputs(" none", f);
    for (uint32_t i = 0; i < in->n_metadata; i++) {
        fputs(i ? ", " : " ", f);
        text_quoted(f, in->metadata[i].name);
        fprintf(f, " %" PRIu64 " B", in->metadata[i].bytes);
    }
    fputc('\n', f);
}

/* ---------------------------------------------------------------- JSON */

static void json_dims(json_w *j, const int32_t *v, uint32_t n) {
    if (!v && n == 0) {
        json_null(j);
        return;
    }
    json_arr_open_flat(j);
    for (uint32_t i = 0; i < n; i++) json_int(j, v[i]);
    json_arr_close(j);
}

static void json_io_list(json_w *j, const char *key, const lg_info_io *v, uint32_t n) {
    json_key(j, key);
    json_arr_open(j);
    for (uint32_t i = 0; i < n; i++) {
        const lg_info_io *io = &v[i];
        json_obj_open(j);
        json_key_uint(j, "index", io->index);
        json_key_int(j, "tensor", io->tensor);
        json_key_str(j, "name", io->name);
        json_key_str(j, "dtype", io->tensor < 0 ? NULL : lg_dtype_name(io->dtype));
        json_key(j, "shape");
        /* a rank-0 tensor has shape [] */
        if (io->tensor >= 0 && !io->shape) {
            json_arr_open_flat(j);
            json_arr_close(j);
        } else {
            json_dims(j, io->shape, io->rank);
        }
        json_key(j, "shape_signature");
        json_dims(j, io->shape_signature, io->n_shape_signature);
        json_key_bool(j, "dynamic", io->n_dynamic > 0);
        json_obj_close(j);
    }
    json_arr_close(j);
}

static void json_census(json_w *j, const char *key, const char *name_key,
                        const lg_info_count *c, uint32_t n) {
    json_key(j, key);
    json_arr_open(j);
    for (uint32_t i = 0; i < n; i++) {
        json_obj_open_flat(j);
        json_key_str(j, name_key, c[i].name);
        json_key_uint(j, "count", c[i].count);
        json_obj_close(j);
    }
    json_arr_close(j);
}

static void json_names(json_w *j, const char *key, const char *const *names, uint32_t n) {
    json_key(j, key);
    json_arr_open_flat(j);
    for (uint32_t i = 0; i < n; i++) json_str(j, names[i]);
    json_arr_close(j);
}

static int print_json(FILE *f, const char *path, const lg_info *in) {
    json_w jw, *j = &jw;
    json_init(j, f);
    json_obj_open(j);
    json_key_str(j, "verb", "info");
    json_key_str(j, "model", path);
    json_key_bool(j, "ok", true);
    json_key_uint(j, "size", in->file_size);
    json_key_str(j, "sha256", in->has_sha256 ? in->sha256_hex : NULL);
    json_key_uint(j, "schema_version", in->schema_version);
    json_key_str(j, "description", in->description);

    json_key_uint(j, "n_subgraphs", in->n_subgraphs);
    json_key(j, "subgraphs");
    json_arr_open(j);
    for (uint32_t s = 0; s < in->n_subgraphs; s++) {
        const lg_info_subgraph *sg = &in->subgraphs[s];
        json_obj_open(j);
        json_key_uint(j, "index", sg->index);
        json_key_str(j, "name", sg->name);
        json_key_uint(j, "n_ops", sg->n_ops);
        json_key_uint(j, "n_tensors", sg->n_tensors);
        json_key_uint(j, "max_rank", sg->max_rank);
        json_key_uint(j, "n_inputs", sg->n_inputs);
        json_key_uint(j, "n_outputs", sg->n_outputs);
        json_io_list(j, "inputs", sg->inputs, sg->n_inputs);
        json_io_list(j, "outputs", sg->outputs, sg->n_outputs);
        json_census(j, "ops", "op", sg->ops, sg->n_ops_census);
        json_census(j, "custom_ops", "name", sg->custom_ops, sg->n_custom_ops);
        json_obj_close(j);
    }
    json_arr_close(j);

    const lg_info_weights *w = &in->weights;
    json_key(j, "weights");
    json_obj_open(j);
    json_key_uint(j, "params", w->params);
    json_key_uint(j, "bytes", w->bytes);
    json_key_uint(j, "n_buffers", w->n_buffers);
    json_key(j, "by_dtype");
    json_arr_open(j);
    for (uint32_t i = 0; i < w->n_by_dtype; i++) {
        const lg_info_dtype_bytes *d = &w->by_dtype[i];
        json_obj_open_flat(j);
        json_key_str(j, "dtype", lg_dtype_name(d->dtype));
        json_key_uint(j, "bytes", d->bytes);
        json_key_uint(j, "params", d->params);
        json_key_uint(j, "n_buffers", d->n_buffers);
        json_key_uint(j, "n_sparse_buffers", d->n_sparse_buffers);
        json_key_uint(j, "sparse_bytes", d->sparse_bytes);
        json_key_uint(j, "sparse_params", d->sparse_params);
        json_obj_close(j);
    }
    json_arr_close(j);
    json_obj_close(j);

    json_key(j, "signatures");
    json_arr_open(j);
    for (uint32_t i = 0; i < in->n_signatures; i++) {
        const lg_info_signature *sig = &in->signatures[i];
        json_obj_open(j);
        json_key_str(j, "key", sig->key);
        json_key_uint(j, "subgraph", sig->subgraph);
        json_names(j, "inputs", sig->inputs, sig->n_inputs);
        json_names(j, "outputs", sig->outputs, sig->n_outputs);
        json_obj_close(j);
    }
    json_arr_close(j);

    json_key(j, "metadata");
    json_arr_open(j);
    for (uint32_t i = 0; i < in->n_metadata; i++) {
        json_obj_open_flat(j);
        json_key_str(j, "name", in->metadata[i].name);
        json_key_uint(j, "bytes", in->metadata[i].bytes);
        json_obj_close(j);
    }
    json_arr_close(j);

    json_obj_close(j);
    return json_finish(j);
}

/* ---------------------------------------------------------------- verb */

int cmd_info(const cli_verb *v, int argc, char **argv) {
    bool as_json = false;
    const cli_flag flags[] = {{"--json", NULL, &as_json, NULL, NULL, NULL, 0}, {NULL, NULL, NULL, NULL, NULL, NULL, 0}};
    const char *pos[1];
    int n_pos = 0;
    int rc = cli_parse(v, argc, argv, flags, pos, 1, &n_pos);
    if (rc >= 0) return rc;
    if (n_pos != 1) return cli_usage_error(v, "missing MODEL");

    const char *path = pos[0];
    cli_file f;
    lg_model *m = NULL;
    if (cli_model_load(path, &f, &m) != 0) return CLI_ERROR;

    lg_info *info = NULL;
    lg_error err;
    /* The model's constant data points into the same mapping that is hashed here: the
       file is read from disk once and nothing is copied. */
    lg_status st = lg_info_compute(m, f.data, f.size, &info, &err);
    lg_model_free(m);
    cli_file_close(&f);
    if (st != LG_OK) return cli_lib_error(path, &err);

    int out_rc = 0;
    if (as_json) {
        out_rc = print_json(stdout, path, info);
    } else {
        print_text(stdout, path, info);
        out_rc = fflush(stdout) != 0 || ferror(stdout) ? -1 : 0;
    }
    lg_info_free(info);
    if (out_rc != 0) return cli_error("writing the output failed");
    return CLI_OK;
}
