/* embed: litegpu used as a library (README "Install"). Reads a .tflite model, runs it with
   the reference interpreter on inputs filled as `litegpu run` fills them by default (every
   element 0.5, "half"), and prints each output's first values.

   Build against an installed litegpu:
       cc -std=c11 embed.c $(pkg-config --cflags --libs litegpu) -o embed
   Run:
       ./embed MODEL.tflite [f32|f16|f32_f16] [N]     (precision, default f32; N values, default 8)
   Output, one line per output:
       output K NAME [D0,D1,...]: v0 v1 ... (N values, %.9g: each float32 exactly)
   Exit code 0, or 2 with one line on stderr (the library's message). */
#include <stdio.h>
#include <stdlib.h>

#include <lg/lg.h>
#include <lg/run.h>

static int fail(const char *what, const lg_error *err) {
    fprintf(stderr, "embed: %s: %s\n", what, err->msg);
    return 2;
}

/* Fills every float input with 0.5 (lg_fill_f32 "half"). Other input types are refused:
   this example only shows the float path. */
static int set_inputs(lg_interp *it, lg_error *err) {
    for (uint32_t i = 0; i < lg_interp_n_inputs(it); i++) {
        lg_tensor_view v;
        if (lg_interp_input(it, i, &v) != LG_OK) {
            fprintf(stderr, "embed: no input %u\n", i);
            return 2;
        }
        if (v.type != LG_FLOAT32 && v.type != LG_FLOAT16) {
            fprintf(stderr, "embed: input %u \"%s\" is %s; this example fills float inputs only\n", i,
                    v.name ? v.name : "", lg_dtype_name(v.type));
            return 2;
        }
        float *data = malloc((size_t)v.numel * sizeof *data + 1);
        if (!data) {
            fprintf(stderr, "embed: out of memory\n");
            return 2;
        }
        lg_status st = lg_fill_f32("half", data, v.numel, err);
        if (st == LG_OK)
            st = lg_interp_set_input(it, i, LG_FLOAT32, data, (uint64_t)v.numel * sizeof *data, err);
        free(data);
        if (st != LG_OK) return fail("set input", err);
    }
    return 0;
}

static void print_output(uint32_t k, const lg_tensor_view *v, long n) {
    printf("output %u %s [", k, v->name ? v->name : "");
    for (uint32_t d = 0; d < v->rank; d++) printf("%s%d", d ? "," : "", (int)v->shape[d]);
    printf("]:");
    if (v->type == LG_FLOAT32) {
        const float *x = v->data;
        for (long i = 0; i < n && i < v->numel; i++) printf(" %.9g", (double)x[i]);
    } else {
        printf(" (%s, not printed)", lg_dtype_name(v->type));
    }
    printf("\n");
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: embed MODEL.tflite [f32|f16|f32_f16] [N]\n");
        return 2;
    }
    lg_run_options ro = {0};
    int prec = argc > 2 ? lg_precision_from_name(argv[2]) : (int)LG_PREC_F32;
    long n = argc > 3 ? strtol(argv[3], NULL, 10) : 8;
    if (prec < 0 || n <= 0) {
        fprintf(stderr, "embed: bad precision or count (usage: embed MODEL.tflite [f32|f16|f32_f16] [N])\n");
        return 2;
    }
    ro.precision = (lg_precision)prec;

    lg_error err;
    lg_model *m = NULL;
    if (lg_tflite_read_file(argv[1], NULL, &m, &err) != LG_OK) return fail("read", &err);
    lg_interp *it = NULL;
    int rc = 0;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) {
        rc = fail("prepare", &err);
    } else if ((rc = set_inputs(it, &err)) == 0) {
        if (lg_interp_invoke(it, &err) != LG_OK) {
            rc = fail("invoke", &err);
        } else {
            printf("litegpu %s, %s\n", lg_version(), lg_precision_name(ro.precision));
            for (uint32_t k = 0; k < lg_interp_n_outputs(it); k++) {
                lg_tensor_view v;
                if (lg_interp_output(it, k, &v) != LG_OK) {
                    fprintf(stderr, "embed: no output %u\n", k);
                    rc = 2;
                    break;
                }
                print_output(k, &v, n);
            }
        }
    }
    lg_interp_free(it);
    lg_model_free(m);
    return rc;
}
