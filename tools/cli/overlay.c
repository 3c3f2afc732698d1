/* Model Explorer node-data overlays: the writer (the format and the node keys: overlay.h). */
#define _GNU_SOURCE
#include "overlay.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"

void cli_overlay_op_key(char key[24], int32_t op) { snprintf(key, 24, "%d", (int)op); }

/* GetSubgraphName in model-explorer's adapters/litert/direct_flatbuffer_to_json_graph_convert.cc:
   the subgraph's name; if empty, the key of the first signature of that subgraph when it is
   not empty; else "main" for subgraph 0 and "subgraph_<i>" for the others. (The older
   adapter skipped the signature key; every development model has a subgraph name.) */
const char *cli_overlay_graph_id(const lg_model *m, uint32_t sg, char *buf, size_t size) {
    const char *name = sg < m->n_subgraphs ? m->subgraphs[sg].name : NULL;
    if (name && name[0]) {
        snprintf(buf, size, "%s", name);
        return buf;
    }
    for (uint32_t i = 0; i < m->n_signatures; i++) {
        if (m->signatures[i].subgraph_index != sg) continue;
        if (m->signatures[i].key && m->signatures[i].key[0]) {
            snprintf(buf, size, "%s", m->signatures[i].key);
            return buf;
        }
        break;
    }
    if (sg == 0) snprintf(buf, size, "main");
    else snprintf(buf, size, "subgraph_%u", sg);
    return buf;
}

/* What the format requires of ov (overlay.h): NULL when fine, else why not. */
static const char *overlay_invalid(const cli_overlay *ov) {
    for (uint32_t i = 0; i < ov->n_entries; i++) {
        const cli_overlay_entry *e = &ov->entries[i];
        if (!e->key[0]) return "an entry has an empty node key";
        if (e->kind == CLI_OVERLAY_STRING && !e->str) return "a string entry has no string";
        for (uint32_t k = 0; k < i; k++)
            if (strcmp(ov->entries[k].key, e->key) == 0) return "two entries have the same node key";
    }
    for (uint32_t i = 0; i < ov->n_thresholds; i++) {
        if (!isfinite(ov->thresholds[i].value) || !ov->thresholds[i].bg_color)
            return "a threshold needs a value and a colour";
        if (i && !(ov->thresholds[i].value > ov->thresholds[i - 1].value)) return "thresholds must increase";
    }
    if (ov->n_gradient) {
        if (ov->n_gradient < 2 || ov->gradient[0].stop != 0 || ov->gradient[ov->n_gradient - 1].stop != 1)
            return "a gradient needs stops 0 and 1";
        for (uint32_t i = 1; i < ov->n_gradient; i++)
            if (!(ov->gradient[i].stop > ov->gradient[i - 1].stop)) return "gradient stops must increase";
    }
    return NULL;
}

static void write_value(json_w *j, const cli_overlay_entry *e) {
    if (e->kind == CLI_OVERLAY_STRING) json_str(j, e->str);
    else if (isnan(e->num)) json_str(j, "nan");
    else if (isinf(e->num)) json_str(j, e->num > 0 ? "inf" : "-inf");
    else json_double(j, e->num);
}

/* One GraphNodeData object (node_data_builder.py; types.ts NodeDataProviderGraphData). */
static void write_graph_data(json_w *j, const cli_overlay *ov) {
    json_obj_open(j);
    if (ov->name) json_key_str(j, "name", ov->name);
    json_key(j, "results");
    json_obj_open(j);
    for (uint32_t i = 0; i < ov->n_entries; i++) {
        const cli_overlay_entry *e = &ov->entries[i];
        json_key(j, e->key);
        json_obj_open_flat(j);
        json_key(j, "value");
        write_value(j, e);
        if (e->bg_color) json_key_str(j, "bgColor", e->bg_color);
        json_obj_close(j);
    }
    json_obj_close(j);
    if (ov->n_thresholds) {
        json_key(j, "thresholds");
        json_arr_open(j);
        for (uint32_t i = 0; i < ov->n_thresholds; i++) {
            json_obj_open_flat(j);
            json_key_double(j, "value", ov->thresholds[i].value);
            json_key_str(j, "bgColor", ov->thresholds[i].bg_color);
            if (ov->thresholds[i].text_color) json_key_str(j, "textColor", ov->thresholds[i].text_color);
            json_obj_close(j);
        }
        json_arr_close(j);
    }
    if (ov->n_gradient) {
        json_key(j, "gradient");
        json_arr_open(j);
        for (uint32_t i = 0; i < ov->n_gradient; i++) {
            json_obj_open_flat(j);
            json_key_double(j, "stop", ov->gradient[i].stop);
            if (ov->gradient[i].bg_color) json_key_str(j, "bgColor", ov->gradient[i].bg_color);
            if (ov->gradient[i].text_color) json_key_str(j, "textColor", ov->gradient[i].text_color);
            json_obj_close(j);
        }
        json_arr_close(j);
    }
    if (ov->expanded_summary) json_key_bool(j, "showExpandedSummaryOnGroupNode", true);
    json_obj_close(j);
}

/* The document: {graph id: graph data}, or one graph's data when there is no graph id (or
   the id is "results", which the UI would take for one graph's results). */
static int write_doc(FILE *f, const cli_overlay *ov) {
    json_w j;
    json_init(&j, f);
    bool by_graph = ov->graph_id && strcmp(ov->graph_id, "results") != 0;
    if (by_graph) {
        json_obj_open(&j);
        json_key(&j, ov->graph_id);
    }
    write_graph_data(&j, ov);
    if (by_graph) json_obj_close(&j);
    return json_finish(&j);
}

/* A temporary file ".NAME.XXXXXX" in path's directory (so the move stays on one file system). */
static int tmp_open(const char *path, char *tmp, size_t size) {
    const char *slash = strrchr(path, '/');
    int n = slash ? snprintf(tmp, size, "%.*s/.%s.XXXXXX", (int)(slash - path), path, slash + 1)
                  : snprintf(tmp, size, ".%s.XXXXXX", path);
    if (n < 0 || (size_t)n >= size) return -1;
    int fd = mkstemp(tmp);
    if (fd < 0) return -1;
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) { close(fd); unlink(tmp); return -1; }
    return fd;
}

/* Move tmp to path under the output rules: without force link() (refuses an existing path
   atomically; rename() where links are not supported), with force rename(). */
static int tmp_commit(const char *tmp, const char *path, bool force) {
    if (cli_output_check(path, force)) return CLI_ERROR;
    if (!force) {
        if (link(tmp, path) == 0) { unlink(tmp); return CLI_OK; }
        if (errno == EEXIST) return cli_error("%s: output exists (use --force to replace it)", path);
        if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP && errno != EXDEV && errno != EMLINK)
            return cli_error("%s: cannot write: %s", path, strerror(errno));
    }
    if (rename(tmp, path) != 0) return cli_error("%s: cannot write: %s", path, strerror(errno));
    return CLI_OK;
}

int cli_overlay_write(const char *path, const cli_overlay *ov, bool force) {
    const char *why = overlay_invalid(ov);
    if (why) return cli_error("%s: not written: %s", path, why);
    if (cli_output_check(path, force)) return CLI_ERROR;
    char tmp[4096 + 32];
    int fd = tmp_open(path, tmp, sizeof tmp);
    if (fd < 0) return cli_error("%s: cannot create a temporary file next to it: %s", path, strerror(errno));
    FILE *f = fdopen(fd, "w");
    if (!f) { close(fd); unlink(tmp); return cli_error("%s: cannot write: %s", path, strerror(errno)); }
    int bad = write_doc(f, ov) != 0;
    bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    int rc = bad ? cli_error("%s: cannot write: %s", path, strerror(errno)) : tmp_commit(tmp, path, force);
    unlink(tmp); /* gone already when moved; a failed write leaves no partial file */
    return rc;
}
