/* Shared by run, compare and bench: building model inputs from --input/--fill, and output
   folders that are never overwritten without --force. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>

#include "cli.h"
#include "run_common.h"
#include "lg/npy.h"

void cli_inputs_free(cli_inputs *in) {
    for (uint32_t i = 0; i < in->n; i++) free(in->data[i]);
    free(in->data);
    memset(in, 0, sizeof *in);
}

int cli_inputs_make(const lg_interp *it, const char *const *specs, int n_specs, const char *fill,
                    cli_inputs *in) {
    memset(in, 0, sizeof *in);
    uint32_t n = lg_interp_n_inputs(it);
    in->n = n;
    in->data = calloc(n ? n : 1, sizeof *in->data);
    if (!in->data) return cli_error("out of memory");
    uint8_t *given = calloc(n ? n : 1, 1);
    if (!given) return cli_error("out of memory");
    int rc = 0;
    for (int s = 0; s < n_specs && !rc; s++) {
        const char *eq = strchr(specs[s], '=');
        if (!eq || eq == specs[s] || !eq[1]) { rc = cli_error("--input takes NAME=FILE.npy, not '%s'", specs[s]); break; }
        size_t kl = (size_t)(eq - specs[s]);
        int idx = -1;
        for (uint32_t i = 0; i < n; i++) {
            lg_tensor_view v;
            lg_interp_input(it, i, &v);
            if (v.name && strlen(v.name) == kl && strncmp(v.name, specs[s], kl) == 0) idx = (int)i;
        }
        if (idx < 0) {
            char *end;
            long k = strtol(specs[s], &end, 10);
            if (end == eq && k >= 0 && (uint32_t)k < n) idx = (int)k;
        }
        if (idx < 0) { rc = cli_error("--input %.*s: the model has no input of that name or index", (int)kl, specs[s]); break; }
        lg_tensor_view v;
        lg_interp_input(it, (uint32_t)idx, &v);
        lg_npy a;
        lg_error err;
        if (lg_npy_read_file(eq + 1, &a, &err) != LG_OK) { rc = cli_error("%s", err.msg); break; }
        if (a.numel != v.numel) {
            rc = cli_error("%s: %lld elements, input %d \"%s\" needs %lld", eq + 1, (long long)a.numel, idx,
                           v.name ? v.name : "", (long long)v.numel);
            lg_npy_free(&a);
            break;
        }
        if (v.type == LG_FLOAT32) {
            float *f;
            if (lg_npy_to_f32(&a, &f, &err) != LG_OK) { rc = cli_error("%s: %s", eq + 1, err.msg); lg_npy_free(&a); break; }
            in->data[idx] = f;
        } else if (a.type == v.type) {
            in->data[idx] = a.data;
            a.data = NULL;
        } else {
            rc = cli_error("%s holds %s, input %d takes %s", eq + 1, lg_dtype_name(a.type), idx, lg_dtype_name(v.type));
        }
        lg_npy_free(&a);
        given[idx] = 1;
    }
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (given[i]) continue;
        lg_tensor_view v;
        lg_interp_input(it, i, &v);
        if (v.type != LG_FLOAT32) {
            rc = cli_error("input %u \"%s\" is %s: give it with --input NAME=FILE.npy", i, v.name ? v.name : "",
                           lg_dtype_name(v.type));
            break;
        }
        in->data[i] = malloc(v.nbytes ? (size_t)v.nbytes : 4);
        if (!in->data[i]) { rc = cli_error("out of memory"); break; }
        lg_error err;
        if (lg_fill_f32(fill ? fill : "half", in->data[i], v.numel, &err) != LG_OK) rc = cli_error("%s", err.msg);
    }
    free(given);
    if (rc) cli_inputs_free(in);
    return rc;
}

int cli_inputs_set(lg_interp *it, const cli_inputs *in) {
    for (uint32_t i = 0; i < in->n; i++) {
        lg_tensor_view v;
        lg_error err;
        lg_interp_input(it, i, &v);
        if (lg_interp_set_input(it, i, v.type, in->data[i], v.nbytes, &err) != LG_OK) return cli_error("%s", err.msg);
    }
    return 0;
}

int cli_out_dir(const char *dir, bool force) {
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) return cli_error("%s exists and is not a folder", dir);
        DIR *d = opendir(dir);
        if (!d) return cli_error("%s: cannot open: %s", dir, strerror(errno));
        int empty = 1;
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) { empty = 0; break; }
        closedir(d);
        if (!empty && !force) return cli_error("%s exists and is not empty (use --force to write into it)", dir);
        return 0;
    }
    if (mkdir(dir, 0777) != 0) return cli_error("%s: cannot create: %s", dir, strerror(errno));
    return 0;
}
