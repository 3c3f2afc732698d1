/* litegpu convert IN -o OUT [--force] [--external-buffers] [--json]: read a model (format
   detected from its content), validate it and write it as .tflite, atomically. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "json.h"
#include "lg/util.h"

/* The canonical path path would have: realpath() of the file if it exists, otherwise of
   its directory joined with its last component. Returns false if that cannot be known. */
static bool canonical_path(const char *path, char *out, size_t n) {
    char buf[PATH_MAX];
    if (realpath(path, buf)) {
        snprintf(out, n, "%s", buf);
        return true;
    }
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    const char *base = path;
    if (!slash) {
        snprintf(dir, sizeof dir, ".");
    } else {
        size_t len = (size_t)(slash - path);
        if (len == 0) len = 1; /* "/name" */
        if (len >= sizeof dir) return false;
        memcpy(dir, path, len);
        dir[len] = 0;
        base = slash + 1;
    }
    if (!realpath(dir, buf)) return false;
    snprintf(out, n, "%s/%s", strcmp(buf, "/") == 0 ? "" : buf, base);
    return true;
}

/* True when writing out would replace in: the same canonical path, or (when out exists)
   the same file under another name (a hard link). */
static bool same_file(const char *in, const char *out) {
    struct stat si, so;
    if (stat(in, &si) == 0 && stat(out, &so) == 0 && si.st_dev == so.st_dev &&
        si.st_ino == so.st_ino)
        return true;
    char ci[PATH_MAX + 1], co[PATH_MAX + 1];
    if (canonical_path(in, ci, sizeof ci) && canonical_path(out, co, sizeof co))
        return strcmp(ci, co) == 0;
    return false;
}

static int print_result(bool as_json, const char *in, const char *out, size_t size,
                        const char *hex) {
    if (as_json) {
        json_w j;
        json_init(&j, stdout);
        json_obj_open(&j);
        json_key_str(&j, "input", in);
        json_key_str(&j, "output", out);
        json_key_uint(&j, "size", size);
        json_key_str(&j, "sha256", hex);
        json_obj_close(&j);
        return json_finish(&j);
    }
    fputs("wrote ", stdout);
    cli_write_path(stdout, out);
    printf(" (%zu bytes, sha256 %s)\n", size, hex);
    return fflush(stdout) != 0 || ferror(stdout) ? -1 : 0;
}

int cmd_convert(const cli_verb *v, int argc, char **argv) {
    bool as_json = false, force = false, external = false;
    const char *out = NULL;
    const cli_flag flags[] = {
        {"--output", "-o", NULL, &out, NULL, NULL, 0},
        {"--force", NULL, &force, NULL, NULL, NULL, 0},
        {"--external-buffers", NULL, &external, NULL, NULL, NULL, 0},
        {"--json", NULL, &as_json, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, 0},
    };
    const char *pos[1];
    int n_pos = 0;
    int rc = cli_parse(v, argc, argv, flags, pos, 1, &n_pos);
    if (rc >= 0) return rc;
    if (n_pos != 1) return cli_usage_error(v, "missing IN");
    if (!out) return cli_usage_error(v, "missing -o OUT");
    const char *in = pos[0];

    /* Input format from the content; ONNX and unknown formats are refused here. */
    if (cli_model_check_format(in) != 0) return CLI_ERROR;
    if (same_file(in, out)) return cli_error("%s: refusing to write over the input file", out);
    struct stat so;
    if (stat(out, &so) == 0) {
        if (S_ISDIR(so.st_mode)) return cli_error("%s: is a directory", out);
        if (!force) return cli_error("%s: output exists (use --force to replace it)", out);
    }

    lg_model *m = NULL;
    lg_error err;
    if (lg_tflite_read_file(in, NULL, &m, &err) != LG_OK) return cli_lib_error(in, &err);
    if (lg_model_validate(m, &err) != LG_OK) {
        lg_model_free(m);
        return cli_lib_error(in, &err);
    }
    lg_write_options wo = {.external_buffers = external, .force = force};
    lg_status st = lg_tflite_write_file(m, out, &wo, &err);
    lg_model_free(m);
    if (st == LG_ERR_EXISTS) return cli_error("%s: output exists (use --force to replace it)", out);
    if (st != LG_OK) return cli_lib_error(out, &err);

    /* Report what is on disk now. */
    cli_file f;
    if (cli_file_open(out, &f) != 0) return CLI_ERROR;
    uint8_t digest[32];
    char hex[65];
    lg_sha256(f.data, f.size, digest);
    lg_hex(digest, sizeof digest, hex);
    size_t size = f.size;
    cli_file_close(&f);
    if (print_result(as_json, in, out, size, hex) != 0)
        return cli_error("writing the output failed");
    return CLI_OK;
}
