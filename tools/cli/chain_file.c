/* Split models on disk (chain_file.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chain_file.h"
#include "json_parse.h"

bool cli_is_split_file(const char *path) {
    /* only a regular file is opened here (a FIFO would block); the rest is refused by the
       model loader with the one-line error every verb gives */
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    int ch;
    while ((ch = fgetc(f)) == ' ' || ch == '\n' || ch == '\t' || ch == '\r') {}
    fclose(f);
    return ch == '{';
}

void cli_chain_close(cli_chain *c) {
    lg_chain_free(c->chain);
    for (uint32_t i = 0; i < c->n; i++) {
        lg_model_free(c->models[i]);
        if (c->files[i].map) cli_file_close(&c->files[i]);
    }
    free(c->models);
    free(c->files);
    free(c->in_names);
    free(c->out_names);
    jv_free(c->root);
    memset(c, 0, sizeof *c);
}

/* The strings of an array member, into *out (pointing into the JSON tree). */
static int names(const char *path, const jv *obj, const char *key, const char ***out, uint32_t *n) {
    const jv *a = jv_get(obj, key);
    if (!a || a->type != JV_ARR) return cli_error("%s: \"%s\" is not a list of names", path, key);
    *out = calloc(a->n + 1, sizeof **out);
    if (!*out) return cli_error("out of memory");
    *n = 0;
    for (const jv *e = a->child; e; e = e->next) {
        if (e->type != JV_STR || !e->str[0]) return cli_error("%s: \"%s\" holds something else than a name", path, key);
        (*out)[(*n)++] = e->str;
    }
    return 0;
}

static int read_all(const char *path, char **text, size_t *len) {
    cli_file f;
    if (cli_file_open(path, &f) != 0) return CLI_ERROR;
    *text = malloc(f.size + 1);
    if (!*text) {
        cli_file_close(&f);
        return cli_error("out of memory");
    }
    memcpy(*text, f.data, f.size);
    *len = f.size;
    cli_file_close(&f);
    return 0;
}

int cli_chain_open(const char *path, const lg_run_options *ro, cli_chain *c) {
    memset(c, 0, sizeof *c);
    char *text = NULL;
    size_t len = 0;
    if (read_all(path, &text, &len)) return CLI_ERROR;
    char perr[160];
    jv *root = jv_parse(text, len, perr, sizeof perr);
    free(text);
    if (!root) return cli_error("%s: not a split file: %s", path, perr);
    c->root = root;
    int rc = 0;
    const jv *parts = jv_get(root, "parts");
    if (root->type != JV_OBJ || jv_num(root, "litegpu_split", 0) != 1 || !parts || parts->type != JV_ARR || !parts->n)
        rc = cli_error("%s: not a litegpu split file (no \"litegpu_split\": 1 with parts)", path);
    if (!rc) rc = names(path, root, "inputs", &c->in_names, &c->n_in);
    if (!rc) rc = names(path, root, "outputs", &c->out_names, &c->n_out);
    if (!rc) {
        c->models = calloc(parts->n, sizeof *c->models);
        c->files = calloc(parts->n, sizeof *c->files);
        if (!c->models || !c->files) rc = cli_error("out of memory");
    }
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
    for (const jv *p = parts && !rc ? parts->child : NULL; p && !rc; p = p->next) {
        const char *file = jv_str(p, "file", NULL);
        if (!file || !file[0] || file[0] == '/' || strstr(file, ".."))
            rc = cli_error("%s: part %u: \"file\" must be a path inside the split file's folder", path, c->n);
        char full[4096];
        if (!rc && (size_t)snprintf(full, sizeof full, "%.*s%s", (int)dl, path, file) >= sizeof full)
            rc = cli_error("%s: part %u: path too long", path, c->n);
        if (!rc && cli_model_load(full, &c->files[c->n], &c->models[c->n]) != 0) rc = CLI_ERROR;
        if (!rc) c->n_ops += c->models[c->n]->subgraphs[0].n_ops;
        if (!rc) c->n++;
    }
    lg_error err;
    if (!rc && lg_chain_create((const lg_model *const *)c->models, c->n, c->in_names, c->n_in, c->out_names, c->n_out,
                               ro, &c->chain, &err) != LG_OK)
        rc = cli_lib_error(path, &err);
    if (rc) cli_chain_close(c);
    return rc ? CLI_ERROR : 0;
}

int cli_exec_open(const char *path, const lg_run_options *ro, cli_chain *c) {
    if (cli_is_split_file(path)) return cli_chain_open(path, ro, c);
    memset(c, 0, sizeof *c);
    c->models = calloc(1, sizeof *c->models);
    c->files = calloc(1, sizeof *c->files);
    if (!c->models || !c->files) {
        cli_chain_close(c);
        return cli_error("out of memory");
    }
    if (cli_model_load(path, &c->files[0], &c->models[0]) != 0) {
        cli_chain_close(c);
        return CLI_ERROR;
    }
    c->n = 1;
    c->n_ops = c->models[0]->subgraphs[0].n_ops;
    lg_error err;
    if (lg_chain_create((const lg_model *const *)c->models, 1, NULL, 0, NULL, 0, ro, &c->chain, &err) != LG_OK) {
        cli_chain_close(c);
        return cli_lib_error(path, &err);
    }
    return 0;
}
