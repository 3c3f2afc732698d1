/* litegpu prune: dependency groups (--list) and physical structured pruning with the surgery
   proof (pruned vs masked), parameter counts, importance and the ridge refit (lg/prune.h,
   lg/refit.h). */
#include "cli.h"
#include "evidence.h"
#include "json.h"
#include "run_common.h"

#include "lg/graph.h"
#include "lg/info.h"
#include "lg/prune.h"
#include "lg/refit.h"
#include "lg/run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char cli_prune_summary[] =
    "Find the dependency groups of the channel axes and remove channels, heads or conv groups physically.";
const char cli_prune_usage[] =
    "litegpu prune MODEL --list [--json] | litegpu prune MODEL -o OUT.tflite --group G|--ffn|--conv|--heads "
    "--ratio R|--keep N [--importance magnitude|activation|act-weight] [--calib DIR] [--round-to N] "
    "[--refit [--lambda L|auto] [--eval DIR]] [--evidence DIR [--evidence-runs N]] [--force] [--json]";
const char cli_prune_help[] =
    "A group is one prunable channel axis of subgraph 0: the producers whose output channels go\n"
    "(FULLY_CONNECTED weight rows and bias, CONV_2D output filters and bias), the ops that carry\n"
    "the channels unchanged (activations, elementwise chains, broadcast constants, transposes,\n"
    "pooling), per-channel constants sliced with them (norm scales, biases, depthwise filters)\n"
    "and the consumers whose input columns go (FC columns, CONV_2D input depth). A residual ADD\n"
    "couples its operands into one group; a CONCATENATION places channels at an offset; a\n"
    "grouped conv keeps whole conv groups; a RESHAPE into [.., H, d] keeps whole heads. A group\n"
    "that reaches a model output is fixed; one the analysis cannot follow is not prunable (the\n"
    "op and why are named), and asking for it is refused.\n"
    "\n"
    "The written model has smaller dense constants, every shape re-inferred and validated. The\n"
    "surgery proof: the masked model (original shapes; the producers' rows of the removed\n"
    "channels zeroed when the channels then reach the consumers as zeros, else the consumers'\n"
    "input columns zeroed) and the pruned model run in fp32 on the pattern fill and on --calib;\n"
    "max|pruned - masked| / max|masked| must be <= 1e-5. The retained indices (ascending)\n"
    "are stored in the output's metadata \"litegpu.prune\" (JSON).\n"
    "\n"
    "arguments:\n"
    "  MODEL               a .tflite (or ONNX, imported as convert does)\n"
    "options:\n"
    "  --list              print every group: id, kind, channels, members, prunable or why not\n"
    "  -o, --output OUT    the pruned model\n"
    "  --group G           prune group G (repeatable)\n"
    "  --ffn | --conv | --heads  every prunable FFN (FC) group, conv group, attention-head group\n"
    "  --keep N            keep N units (channels, heads or conv groups) in every selected group\n"
    "  --ratio R           remove the fraction R (0 <= R < 1) of each selected group's units\n"
    "  --round-to N        round the kept count up to a multiple of N\n"
    "  --importance I      magnitude (L2 norm of the producer rows, default), activation (mean\n"
    "                      |activation| on --calib), act-weight (mean |activation| x the L2 norm\n"
    "                      of the consumer's input column); ties go to the lower index\n"
    "  --calib DIR         calibration inputs (.npy per set): importance, the proof, the refit\n"
    "  --refit             ridge-refit every pruned FFN's consumer FC on --calib so that its\n"
    "                      output matches the original model's\n"
    "  --lambda L          the refit's ridge strength (scale-free, default 0.01), or auto: the\n"
    "                      candidate 1e-3..1 whose refit on half of --calib reproduces the\n"
    "                      original best on the other half\n"
    "  --eval DIR          evaluation inputs: the output error of pruned vs original before and\n"
    "                      after the refit\n"
    "  --evidence DIR      write an evidence record of the change into DIR (must not exist)\n"
    "  --evidence-runs N   timed runs per model for the record's latency (default 5)\n"
    "  --force             replace OUT if it exists\n"
    "  --json              print the report as JSON\n"
    "  -h, --help          show this help\n"
    "exit: 0 written (the proof holds), 1 the proof or the parameter count from the shapes failed\n"
    "(the model is still written), 2 error.\n";

typedef struct p_args {
    const char *model, *out, *ratio, *keep, *importance, *calib, *round_to, *evidence, *lambda, *eval, *ev_runs;
    const char *groups[64]; int n_groups;
    bool list, json, ffn, conv, heads, force, refit;
    int ev_n;
} p_args;

/* ---------------------------------------------------------------- --list */

static void list_text(const lg_model *m, const lg_prune_groups *gs) {
    const lg_subgraph *sg = &m->subgraphs[0];
    for (uint32_t i = 0; i < gs->n_groups; i++) {
        const lg_prune_group *g = &gs->groups[i];
        printf("group %u  %s  %u %s", g->id, g->kind, g->n_units, g->heads ? "heads" : g->unit > 1 ? "units" : "channels");
        if (g->unit > 1) printf(" of %u", g->unit);
        printf("  %u params/unit  ", (unsigned)g->params_per_unit);
        if (g->prunable) printf("prunable\n");
        else if (g->fixed) printf("fixed (model output)\n");
        else printf("not prunable: %s\n", g->why);
        uint32_t shown = 0;
        for (uint32_t k = 0; k < g->n_members; k++) {
            const lg_prune_member *mb = &g->members[k];
            if (shown == 12) { printf("    ... %u more members (--json lists all)\n", g->n_members - k); break; }
            shown++;
            const char *nm = sg->tensors[mb->tensor].name;
            printf("    op %d %s  \"%s\"  %s", (int)mb->op, lg_op_name(m, &sg->ops[mb->op]), nm ? nm : "",
                   lg_prune_role_name(mb->role));
            if (mb->offset) printf(" (offset %d)", (int)mb->offset);
            printf("\n");
        }
    }
    uint32_t np = 0;
    for (uint32_t i = 0; i < gs->n_groups; i++) np += gs->groups[i].prunable;
    printf("%u groups, %u prunable\n", gs->n_groups, np);
}

static void json_group(json_w *j, const lg_model *m, const lg_prune_group *g, bool members) {
    const lg_subgraph *sg = &m->subgraphs[0];
    json_obj_open(j);
    json_key_uint(j, "group", g->id);
    json_key_str(j, "kind", g->kind);
    json_key_uint(j, "n_channels", g->n_base);
    json_key_uint(j, "n_units", g->n_units);
    json_key_uint(j, "unit", g->unit);
    json_key_uint(j, "n_producers", g->n_producers);
    json_key_bool(j, "residual", g->residual);
    json_key_bool(j, "concat", g->concat);
    json_key_bool(j, "grouped", g->grouped);
    json_key_bool(j, "depthwise", g->depthwise);
    json_key_bool(j, "heads", g->heads);
    json_key_bool(j, "prunable", g->prunable);
    json_key_bool(j, "fixed", g->fixed);
    if (g->prunable) { json_key(j, "why"); json_null(j); }
    else json_key_str(j, "why", g->fixed ? "fixed (model output)" : g->why);
    json_key_uint(j, "n_params_per_unit", g->params_per_unit);
    if (members) {
        json_key(j, "members");
        json_arr_open(j);
        for (uint32_t k = 0; k < g->n_members; k++) {
            const lg_prune_member *mb = &g->members[k];
            json_obj_open_flat(j);
            json_key_int(j, "op", mb->op);
            json_key_str(j, "op_name", lg_op_name(m, &sg->ops[mb->op]));
            json_key_str(j, "tensor", sg->tensors[mb->tensor].name ? sg->tensors[mb->tensor].name : "");
            json_key_str(j, "role", lg_prune_role_name(mb->role));
            json_key_int(j, "axis", mb->axis);
            json_key_int(j, "offset", mb->offset);
            json_key_int(j, "width", mb->width);
            json_obj_close(j);
        }
        json_arr_close(j);
    }
    json_obj_close(j);
}

static int do_list(const p_args *a, const lg_model *m, const lg_prune_groups *gs) {
    if (!a->json) { list_text(m, gs); return fflush(stdout) ? cli_error("writing the report failed") : CLI_OK; }
    json_w j;
    json_init(&j, stdout);
    json_obj_open(&j);
    json_key_str(&j, "verb", "prune");
    json_key_str(&j, "model", a->model);
    json_key_bool(&j, "ok", true);
    uint32_t np = 0;
    for (uint32_t i = 0; i < gs->n_groups; i++) np += gs->groups[i].prunable;
    json_key_uint(&j, "n_groups", gs->n_groups);
    json_key_uint(&j, "n_prunable", np);
    json_key(&j, "groups");
    json_arr_open(&j);
    for (uint32_t i = 0; i < gs->n_groups; i++) json_group(&j, m, &gs->groups[i], true);
    json_arr_close(&j);
    json_obj_close(&j);
    return json_finish(&j) ? cli_error("writing the report failed") : CLI_OK;
}

/* ---------------------------------------------------------------- running */

/* The float inputs of every case: the pattern fill first, then the calibration sets. */
typedef struct cases {
    uint32_t n_inputs, n;
    const void *const **ptrs;  /* per case, per input */
    float **fill;              /* pattern fill per input */
} cases;

static void cases_free(cases *c) {
    if (c->fill) for (uint32_t i = 0; i < c->n_inputs; i++) free(c->fill[i]);
    free(c->fill);
    free((void *)c->ptrs);
    memset(c, 0, sizeof *c);
}

static int cases_make(const lg_model *m, const cli_calib *cal, cases *c) {
    memset(c, 0, sizeof *c);
    const lg_subgraph *sg = &m->subgraphs[0];
    c->n_inputs = sg->n_inputs;
    c->n = 1 + (cal ? cal->n : 0);
    c->fill = calloc(c->n_inputs ? c->n_inputs : 1, sizeof *c->fill);
    c->ptrs = calloc(c->n, sizeof *c->ptrs);
    if (!c->fill || !c->ptrs) return cli_error("out of memory");
    lg_error err;
    for (uint32_t i = 0; i < c->n_inputs; i++) {
        const lg_tensor *t = &sg->tensors[sg->inputs[i]];
        int64_t n = lg_tensor_numel(t);
        if (t->type != LG_FLOAT32 || n < 0) return cli_error("prune: input %u is not a static FLOAT32 tensor", i);
        c->fill[i] = malloc((size_t)(n ? n : 1) * sizeof(float));
        if (!c->fill[i]) return cli_error("out of memory");
        if (lg_fill_f32("pattern", c->fill[i], n, &err) != LG_OK) return cli_lib_error(NULL, &err);
    }
    c->ptrs[0] = (const void *const *)c->fill;
    for (uint32_t k = 0; cal && k < cal->n; k++) c->ptrs[1 + k] = (const void *const *)cal->ptrs[k];
    return CLI_OK;
}

/* Runs m on every case; *outs gets the outputs concatenated (case-major), *n their count. */
static int run_all(const lg_model *m, const char *what, const void *const *const *ptrs, uint32_t n_cases,
                   float **outs, int64_t *n) {
    *outs = NULL; *n = 0;
    lg_interp *it = NULL;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_error err;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) return cli_lib_error(what, &err);
    uint32_t ni = lg_interp_n_inputs(it), no = lg_interp_n_outputs(it);
    int64_t per = 0;
    for (uint32_t o = 0; o < no; o++) {
        lg_tensor_view v;
        lg_interp_output(it, o, &v);
        per += v.numel;
    }
    float *buf = malloc((size_t)(per * n_cases + 1) * sizeof(float));
    if (!buf) { lg_interp_free(it); return cli_error("out of memory"); }
    int64_t k = 0;
    for (uint32_t c = 0; c < n_cases; c++) {
        for (uint32_t i = 0; i < ni; i++) {
            lg_tensor_view v;
            lg_interp_input(it, i, &v);
            if (lg_interp_set_input(it, i, LG_FLOAT32, ptrs[c][i], (uint64_t)v.numel * 4, &err) != LG_OK) {
                free(buf); lg_interp_free(it); return cli_lib_error(what, &err);
            }
        }
        if (lg_interp_invoke(it, &err) != LG_OK) { free(buf); lg_interp_free(it); return cli_lib_error(what, &err); }
        for (uint32_t o = 0; o < no; o++) {
            lg_tensor_view v;
            lg_interp_output(it, o, &v);
            if (v.type != LG_FLOAT32) { free(buf); lg_interp_free(it); return cli_error("%s: output %u is not FLOAT32", what, o); }
            memcpy(buf + k, v.data, (size_t)v.numel * sizeof(float));
            k += v.numel;
        }
    }
    lg_interp_free(it);
    *outs = buf; *n = k;
    return CLI_OK;
}

typedef struct diff { double max_abs, max_ref, rel, l2_rel; } diff;

static diff compare(const float *got, const float *ref, int64_t n) {
    diff d = {0, 0, 0, 0};
    double se = 0, sr = 0;
    for (int64_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - ref[i]);
        if (e > d.max_abs || isnan(e)) d.max_abs = isnan(e) ? INFINITY : e;
        if (fabs(ref[i]) > d.max_ref) d.max_ref = fabs(ref[i]);
        se += e * e; sr += (double)ref[i] * ref[i];
    }
    d.rel = d.max_ref > 0 ? d.max_abs / d.max_ref : (d.max_abs > 0 ? INFINITY : 0);
    d.l2_rel = sr > 0 ? sqrt(se / sr) : NAN;
    return d;
}

/* ---------------------------------------------------------------- selection */

typedef struct plan {
    lg_prune_sel *sel; uint32_t n_sel;
    uint32_t **keep;
    double **score;
} plan;

static void plan_free(plan *p) {
    for (uint32_t i = 0; i < p->n_sel; i++) { free(p->keep[i]); free(p->score[i]); }
    free(p->keep); free(p->score); free(p->sel);
    memset(p, 0, sizeof *p);
}

static bool parse_u32(const char *s, uint32_t *v) {
    char *end;
    if (!s || !*s || *s == '-') return false;
    unsigned long x = strtoul(s, &end, 10);
    if (*end || x > 1000000000ul) return false;
    *v = (uint32_t)x;
    return true;
}

static int pick_groups(const cli_verb *v, const p_args *a, const lg_prune_groups *gs, plan *p) {
    p->sel = calloc(gs->n_groups ? gs->n_groups : 1, sizeof *p->sel);
    p->keep = calloc(gs->n_groups ? gs->n_groups : 1, sizeof *p->keep);
    p->score = calloc(gs->n_groups ? gs->n_groups : 1, sizeof *p->score);
    if (!p->sel || !p->keep || !p->score) return cli_error("out of memory");
    for (int i = 0; i < a->n_groups; i++) {
        uint32_t g;
        if (!parse_u32(a->groups[i], &g)) return cli_usage_error(v, "--group %s: not a group number", a->groups[i]);
        if (g >= gs->n_groups) return cli_error("prune: %s has no group %u (%u groups; see --list)", a->model, g, gs->n_groups);
        const lg_prune_group *gr = &gs->groups[g];
        if (!gr->prunable)
            return cli_error("prune: %s: group %u (%s) is %s%s", a->model, g, gr->kind,
                             gr->fixed ? "fixed (model output): the public interface stays" : "not prunable: ",
                             gr->fixed ? "" : gr->why);
        for (uint32_t k = 0; k < p->n_sel; k++)
            if (p->sel[k].group == g) return cli_usage_error(v, "--group %u given twice", g);
        p->sel[p->n_sel++].group = g;
    }
    if (a->ffn || a->conv || a->heads)
        for (uint32_t g = 0; g < gs->n_groups; g++) {
            const lg_prune_group *gr = &gs->groups[g];
            bool want = (a->heads && gr->heads) || (a->ffn && !gr->conv && !gr->heads) || (a->conv && gr->conv && !gr->heads);
            if (want && gr->prunable) p->sel[p->n_sel++].group = g;
        }
    if (p->n_sel == 0) {
        const char *what = a->heads ? "attention-head" : a->ffn ? "FFN" : "conv";
        for (uint32_t g = 0; g < gs->n_groups; g++) {
            const lg_prune_group *gr = &gs->groups[g];
            bool want = (a->heads && gr->heads) || (a->ffn && !gr->conv && !gr->heads) || (a->conv && gr->conv && !gr->heads);
            if (want) return cli_error("prune: %s: no prunable %s group; group %u (%s) is %s%s", a->model, what, g, gr->kind,
                                       gr->fixed ? "fixed (model output)" : "not prunable: ", gr->fixed ? "" : gr->why);
        }
        for (uint32_t g = 0; g < gs->n_groups; g++) {
            const lg_prune_group *gr = &gs->groups[g];
            if (!gr->prunable && !gr->fixed)
                return cli_error("prune: %s: no prunable %s group; group %u (%s) is not prunable: %s", a->model, what, g,
                                 gr->kind, gr->why);
        }
        return cli_error("prune: %s: no %s group (see --list)", a->model, what);
    }
    return CLI_OK;
}

static int keep_count(const cli_verb *v, const p_args *a, const lg_prune_group *g, uint32_t *k) {
    uint32_t n = g->n_units, keep;
    if (a->keep) {
        if (!parse_u32(a->keep, &keep) || keep < 1) return cli_usage_error(v, "--keep %s: a count >= 1", a->keep);
    } else {
        char *end;
        double r = strtod(a->ratio, &end);
        if (*end || !(r >= 0 && r < 1)) return cli_usage_error(v, "--ratio %s: a fraction 0 <= R < 1", a->ratio);
        keep = n - (uint32_t)floor(r * n + 1e-9);
        if (keep < 1) keep = 1;
    }
    if (a->round_to) {
        uint32_t q;
        if (!parse_u32(a->round_to, &q) || q < 1) return cli_usage_error(v, "--round-to %s: a count >= 1", a->round_to);
        keep = (keep + q - 1) / q * q;
        if (keep > n) keep = n;
    }
    if (keep > n)
        return cli_error("prune: group %u (%s) has %u units; cannot keep %u", g->id, g->kind, n, keep);
    *k = keep;
    return CLI_OK;
}

/* The activation tensor of a group: the input of its first consumer, and its member. */
static const lg_prune_member *act_member(const lg_model *m, const lg_prune_group *g, int32_t *cons) {
    int32_t c = lg_prune_first_consumer(g);
    *cons = c;
    if (c < 0) return NULL;
    int32_t t = m->subgraphs[0].ops[g->members[c].op].inputs[0];
    for (uint32_t k = 0; k < g->n_members; k++)
        if (g->members[k].tensor == t && g->members[k].role == LG_PRUNE_TRANSPARENT) return &g->members[k];
    return NULL;
}

static int score_group(const p_args *a, const lg_model *m, const lg_prune_group *g, const cli_calib *cal,
                       double *score) {
    lg_error err;
    const char *imp = a->importance ? a->importance : "magnitude";
    if (!strcmp(imp, "magnitude"))
        return lg_prune_importance_magnitude(m, g, score, &err) == LG_OK ? CLI_OK : cli_lib_error(a->model, &err);
    int32_t cons;
    const lg_prune_member *am = act_member(m, g, &cons);
    if (!am) return cli_error("prune: group %u (%s) has no consumer input to measure activations on", g->id, g->kind);
    const lg_tensor *t = &m->subgraphs[0].tensors[am->tensor];
    double *act = calloc((size_t)t->shape[am->axis], sizeof(double));
    double *col = calloc((size_t)t->shape[am->axis] + 1, sizeof(double));
    if (!act || !col) { free(act); free(col); return cli_error("out of memory"); }
    int rc = CLI_OK;
    if (lg_channel_mean_abs(m, am->tensor, am->axis, (const void *const *const *)cal->ptrs, cal->n, act, &err) != LG_OK)
        rc = cli_lib_error(a->model, &err);
    bool aw = !strcmp(imp, "act-weight");
    const lg_prune_member *cm = &g->members[cons];
    if (!rc && aw) {
        int32_t d = m->subgraphs[0].tensors[cm->tensor].shape[cm->axis];
        double *cn = calloc((size_t)d, sizeof(double));
        if (!cn) rc = cli_error("out of memory");
        else if (lg_prune_column_norms(m, g, (uint32_t)cons, cn, &err) != LG_OK) rc = cli_lib_error(a->model, &err);
        /* the consumer's column index space is its input's channel axis (dense FC/conv) */
        for (int32_t i = 0; !rc && i < d && i < t->shape[am->axis]; i++) col[i] = cn[i];
        free(cn);
    }
    for (uint32_t u = 0; !rc && u < g->n_units; u++) {
        double s = 0;
        for (int32_t w = 0; w < am->width; w++) {
            int32_t i = am->offset + (int32_t)u * am->width + w;
            s += aw ? act[i] * col[i] : act[i];
        }
        score[u] = s;
    }
    free(act); free(col);
    return rc;
}

/* ---------------------------------------------------------------- masking */

/* Whether, in the model masked by producer rows, every removed channel reaches every
   consumer of its group as exact zeros on every case (the carrying ops map 0 to 0). */
static int rows_reach_zero(const lg_model *mk, const lg_prune_groups *gs, const plan *p, const cases *cs, bool *zero) {
    *zero = false;
    lg_interp *it = NULL;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.keep_all = true;
    lg_error err;
    if (lg_interp_create(mk, &ro, &it, &err) != LG_OK) return cli_lib_error("the masked model", &err);
    bool all = true;
    for (uint32_t c = 0; all && c < cs->n; c++) {
        for (uint32_t i = 0; i < cs->n_inputs; i++) {
            lg_tensor_view v;
            lg_interp_input(it, i, &v);
            if (lg_interp_set_input(it, i, LG_FLOAT32, cs->ptrs[c][i], (uint64_t)v.numel * 4, &err) != LG_OK) {
                lg_interp_free(it);
                return cli_lib_error("the masked model", &err);
            }
        }
        if (lg_interp_invoke(it, &err) != LG_OK) { lg_interp_free(it); return cli_lib_error("the masked model", &err); }
        for (uint32_t s = 0; all && s < p->n_sel; s++) {
            const lg_prune_group *g = &gs->groups[p->sel[s].group];
            uint8_t *kept = calloc(g->n_units, 1);
            if (!kept) { lg_interp_free(it); return cli_error("out of memory"); }
            for (uint32_t k = 0; k < p->sel[s].n_keep; k++) kept[p->sel[s].keep[k]] = 1;
            for (uint32_t k = 0; all && k < g->n_members; k++) {
                if (g->members[k].role != LG_PRUNE_CONSUMER || g->members[k].slot != 1) continue;
                int32_t t = mk->subgraphs[0].ops[g->members[k].op].inputs[0];
                const lg_prune_member *am = NULL;
                for (uint32_t j = 0; j < g->n_members && !am; j++)
                    if (g->members[j].tensor == t && g->members[j].role == LG_PRUNE_TRANSPARENT) am = &g->members[j];
                lg_tensor_view v;
                if (!am || lg_interp_tensor(it, t, &v) != LG_OK || v.type != LG_FLOAT32) { all = false; break; }
                int64_t outer = 1, inner = 1;
                for (int32_t d = 0; d < am->axis; d++) outer *= v.shape[d];
                for (uint32_t d = (uint32_t)am->axis + 1; d < v.rank; d++) inner *= v.shape[d];
                int64_t dim = v.shape[am->axis];
                const float *x = v.data;
                for (uint32_t u = 0; all && u < g->n_units; u++) {
                    if (kept[u]) continue;
                    for (int32_t w = 0; all && w < am->width; w++) {
                        int64_t ci = am->offset + (int64_t)u * am->width + w;
                        for (int64_t o = 0; all && o < outer; o++)
                            for (int64_t in = 0; in < inner; in++)
                                if (x[(o * dim + ci) * inner + in] != 0.0f) { all = false; break; }
                    }
                }
            }
            free(kept);
        }
    }
    lg_interp_free(it);
    *zero = all;
    return CLI_OK;
}

/* ---------------------------------------------------------------- the report */

typedef struct report {
    uint64_t p_before, p_after, p_expected;
    diff proof;
    uint32_t n_proof_cases;
    bool proof_ok;
    const char *masking;            /* "producer rows" or "consumer columns" */
    bool refit, lambda_auto; uint32_t n_refit;
    double lambda;
    double fit_before, fit_after;   /* worst calibration fit error over the refitted FCs */
    bool has_eval; uint32_t n_eval;
    diff eval_before, eval_after;
    size_t size; char hex[65];
} report;

static char *meta_json(const p_args *a, const lg_prune_groups *gs, const plan *p) {
    size_t cap = 256;
    for (uint32_t i = 0; i < p->n_sel; i++) cap += 160 + 12 * (size_t)p->sel[i].n_keep;
    char *s = malloc(cap);
    if (!s) return NULL;
    size_t n = (size_t)snprintf(s, cap, "{\"version\":1,\"importance\":\"%s\",\"groups\":[",
                                a->importance ? a->importance : "magnitude");
    for (uint32_t i = 0; i < p->n_sel; i++) {
        const lg_prune_group *g = &gs->groups[p->sel[i].group];
        n += (size_t)snprintf(s + n, cap - n, "%s{\"group\":%u,\"kind\":\"%s\",\"unit\":%u,\"n_units\":%u,\"retained\":[",
                              i ? "," : "", g->id, g->kind, g->unit, g->n_units);
        for (uint32_t k = 0; k < p->sel[i].n_keep; k++)
            n += (size_t)snprintf(s + n, cap - n, "%s%u", k ? "," : "", p->sel[i].keep[k]);
        n += (size_t)snprintf(s + n, cap - n, "]}");
    }
    snprintf(s + n, cap - n, "]}");
    return s;
}

static void json_sel(json_w *j, const lg_model *m, const lg_prune_groups *gs, const plan *p) {
    json_key(j, "groups");
    json_arr_open(j);
    for (uint32_t i = 0; i < p->n_sel; i++) {
        const lg_prune_group *g = &gs->groups[p->sel[i].group];
        json_obj_open(j);
        json_key_uint(j, "group", g->id);
        json_key_str(j, "kind", g->kind);
        json_key_uint(j, "n_units", g->n_units);
        json_key_uint(j, "unit", g->unit);
        json_key_uint(j, "n_kept", p->sel[i].n_keep);
        json_key_uint(j, "n_params_per_unit", g->params_per_unit);
        int32_t prod = -1;
        for (uint32_t k = 0; k < g->n_members && prod < 0; k++)
            if (g->members[k].role == LG_PRUNE_PRODUCER) prod = g->members[k].op;
        json_key_int(j, "producer_op", prod);
        if (prod >= 0) json_key_str(j, "producer", lg_op_name(m, &m->subgraphs[0].ops[prod]));
        json_key(j, "retained");
        json_arr_open_flat(j);
        for (uint32_t k = 0; k < p->sel[i].n_keep; k++) json_uint(j, p->sel[i].keep[k]);
        json_arr_close(j);
        json_obj_close(j);
    }
    json_arr_close(j);
}

static int print_report(const p_args *a, const lg_model *m, const lg_prune_groups *gs, const plan *p, const report *r) {
    if (a->json) {
        json_w j;
        json_init(&j, stdout);
        json_obj_open(&j);
        json_key_str(&j, "verb", "prune");
        json_key_str(&j, "model", a->model);
        json_key_str(&j, "output", a->out);
        json_key_bool(&j, "ok", r->proof_ok && r->p_after == r->p_expected);
        json_key_str(&j, "importance", a->importance ? a->importance : "magnitude");
        json_key_uint(&j, "n_groups", p->n_sel);
        json_key_uint(&j, "n_params_before", r->p_before);
        json_key_uint(&j, "n_params_after", r->p_after);
        json_key_uint(&j, "n_params_expected", r->p_expected);
        json_sel(&j, m, gs, p);
        json_key(&j, "masked_equivalence");
        json_obj_open_flat(&j);
        json_key_uint(&j, "n_cases", r->n_proof_cases);
        json_key_str(&j, "masking", r->masking);
        json_key_double(&j, "max_abs", r->proof.max_abs);
        json_key_double(&j, "max_ref", r->proof.max_ref);
        json_key_double(&j, "rel", r->proof.rel);
        json_key_bool(&j, "ok", r->proof_ok);
        json_obj_close(&j);
        if (r->refit) {
            json_key(&j, "refit");
            json_obj_open_flat(&j);
            json_key_uint(&j, "n_ops", r->n_refit);
            json_key_double(&j, "lambda", r->lambda);
            json_key_bool(&j, "lambda_auto", r->lambda_auto);
            json_key_double(&j, "calib_fit_before", r->fit_before);
            json_key_double(&j, "calib_fit_after", r->fit_after);
            json_obj_close(&j);
        }
        if (r->has_eval) {
            json_key(&j, "eval");
            json_obj_open_flat(&j);
            json_key_uint(&j, "n_cases", r->n_eval);
            json_key_double(&j, "rel_l2_before", r->eval_before.l2_rel);
            json_key_double(&j, "max_abs_before", r->eval_before.max_abs);
            if (r->refit) {
                json_key_double(&j, "rel_l2_after", r->eval_after.l2_rel);
                json_key_double(&j, "max_abs_after", r->eval_after.max_abs);
            }
            json_obj_close(&j);
        }
        json_key_uint(&j, "size", r->size);
        json_key_str(&j, "sha256", r->hex);
        json_obj_close(&j);
        return json_finish(&j);
    }
    printf("%s -> %s\n", a->model, a->out);
    for (uint32_t i = 0; i < p->n_sel; i++) {
        const lg_prune_group *g = &gs->groups[p->sel[i].group];
        printf("  group %u %s: kept %u of %u%s, retained [", g->id, g->kind, p->sel[i].n_keep, g->n_units,
               g->heads ? " heads" : g->unit > 1 ? " units" : "");
        for (uint32_t k = 0; k < p->sel[i].n_keep; k++) printf("%s%u", k ? "," : "", p->sel[i].keep[k]);
        printf("]\n");
    }
    printf("params: %llu -> %llu (expected from the shapes %llu)\n", (unsigned long long)r->p_before,
           (unsigned long long)r->p_after, (unsigned long long)r->p_expected);
    printf("masked equivalence (%s zeroed): max|pruned-masked| %.3g, /max|masked| %.3g on %u input set(s): %s\n",
           r->masking, r->proof.max_abs, r->proof.rel, r->n_proof_cases, r->proof_ok ? "ok (<= 1e-5)" : "FAILED (> 1e-5)");
    if (r->refit)
        printf("refit: %u FC(s), lambda %g%s, calibration fit error %.4g -> %.4g\n", r->n_refit, r->lambda,
               r->lambda_auto ? " (auto: chosen on a held-out half of --calib)" : "", r->fit_before, r->fit_after);
    if (r->has_eval) {
        printf("eval (%u input sets): output error vs the original, rel L2 %.4g", r->n_eval, r->eval_before.l2_rel);
        if (r->refit) printf(" -> %.4g after the refit", r->eval_after.l2_rel);
        printf("\n");
    }
    return fflush(stdout) ? -1 : 0;
}

/* ---------------------------------------------------------------- refit */

/* Refits every FC consumer of the selected groups of pr on the given cases, in op order (each
   refit sees the inputs the earlier ones produce). */
static int refit_all(const p_args *a, const lg_model *m, const lg_prune_groups *gs, const plan *p,
                     const void *const *const *sets, uint32_t n, double lambda, lg_model *pr, report *r) {
    for (uint32_t i = 0; i < p->n_sel; i++) {
        const lg_prune_group *g = &gs->groups[p->sel[i].group];
        for (uint32_t k = 0; k < g->n_members; k++) {
            const lg_prune_member *mb = &g->members[k];
            if (mb->role != LG_PRUNE_CONSUMER || mb->slot != 1 ||
                lg_op_builtin(m, &m->subgraphs[0].ops[mb->op]) != LG_OP_FULLY_CONNECTED) continue;
            lg_refit_fc_report rep;
            lg_error err;
            int32_t target = m->subgraphs[0].ops[mb->op].outputs[0];
            if (lg_refit_fc(pr, (uint32_t)mb->op, m, target, sets, n, lambda, &rep, &err) != LG_OK)
                return cli_lib_error(a->out, &err);
            if (r) {
                if (rep.err_before > r->fit_before) r->fit_before = rep.err_before;
                if (rep.err_after > r->fit_after) r->fit_after = rep.err_after;
                r->n_refit++;
            }
        }
    }
    return CLI_OK;
}

/* --lambda auto: the calibration sets split in two (even and odd positions); each candidate
   refits a copy on the first half, and the one whose whole-model output is closest to the
   original's on the second half (relative L2) is used on all of them. The evaluation inputs
   play no part. */
static int choose_lambda(const p_args *a, const lg_model *m, const lg_prune_groups *gs, const plan *p,
                         const cli_calib *cal, const lg_model *pr, double *best) {
    static const double cand[] = {1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1, 1};
    uint32_t na = (cal->n + 1) / 2, nb = cal->n / 2;
    if (nb == 0) return cli_error("prune: --lambda auto needs at least 2 calibration sets");
    const void *const **ha = calloc(na, sizeof *ha), *const **hb = calloc(nb, sizeof *hb);
    int rc = ha && hb ? CLI_OK : cli_error("out of memory");
    for (uint32_t k = 0; !rc && k < cal->n; k++) {
        if (k % 2) hb[k / 2] = (const void *const *)cal->ptrs[k];
        else ha[k / 2] = (const void *const *)cal->ptrs[k];
    }
    float *ref = NULL;
    int64_t n_ref = 0;
    if (!rc) rc = run_all(m, a->model, (const void *const *const *)hb, nb, &ref, &n_ref);
    double best_err = INFINITY;
    *best = cand[2];
    for (size_t c = 0; !rc && c < sizeof cand / sizeof cand[0]; c++) {
        lg_model *cp = NULL;
        lg_error err;
        if (lg_model_clone(pr, &cp, &err) != LG_OK) { rc = cli_lib_error(a->out, &err); break; }
        rc = refit_all(a, m, gs, p, (const void *const *const *)ha, na, cand[c], cp, NULL);
        float *out = NULL;
        int64_t n_out = 0;
        if (!rc) rc = run_all(cp, a->out, (const void *const *const *)hb, nb, &out, &n_out);
        if (!rc && n_out == n_ref) {
            double e = compare(out, ref, n_ref).l2_rel;
            if (e < best_err) { best_err = e; *best = cand[c]; }
        }
        free(out);
        lg_model_free(cp);
    }
    free(ref); free((void *)ha); free((void *)hb);
    return rc;
}

static int do_refit(const p_args *a, const lg_model *m, const lg_prune_groups *gs, const plan *p,
                    const cli_calib *cal, lg_model *pr, report *r) {
    double lambda = 1e-2;
    int rc = CLI_OK;
    if (a->lambda && !strcmp(a->lambda, "auto")) {
        rc = choose_lambda(a, m, gs, p, cal, pr, &lambda);
        r->lambda_auto = true;
    } else if (a->lambda) {
        char *end;
        lambda = strtod(a->lambda, &end);
        if (*end || !(lambda >= 0)) return cli_error("--lambda %s: a number >= 0 or auto", a->lambda);
    }
    r->refit = true;
    r->lambda = lambda;
    if (!rc) rc = refit_all(a, m, gs, p, (const void *const *const *)cal->ptrs, cal->n, lambda, pr, r);
    if (!rc && r->n_refit == 0) return cli_error("prune: --refit: no pruned group has a FULLY_CONNECTED consumer");
    return rc;
}

/* ---------------------------------------------------------------- the verb */

static int load_sets(const lg_model *m, const char *dir, cli_calib *c) {
    lg_interp *it = NULL;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_error err;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) return cli_lib_error(NULL, &err);
    uint32_t n = lg_interp_n_inputs(it);
    lg_tensor_view *views = calloc(n ? n : 1, sizeof *views);
    int rc = views ? CLI_OK : cli_error("out of memory");
    for (uint32_t i = 0; !rc && i < n; i++) lg_interp_input(it, i, &views[i]);
    if (!rc) rc = cli_calib_load(views, n, dir, 4096, c);
    free(views);
    lg_interp_free(it);
    return rc;
}

static int check_args(const cli_verb *v, p_args *a) {
    if (a->list) return a->out ? cli_usage_error(v, "--list takes no -o") : CLI_OK;
    if (!a->out) return cli_usage_error(v, "missing -o OUT (or --list)");
    int n_sel = (a->n_groups > 0) + a->ffn + a->conv + a->heads;
    if (n_sel != 1) return cli_usage_error(v, "give exactly one of --group, --ffn, --conv, --heads");
    if (!!a->ratio + !!a->keep != 1) return cli_usage_error(v, "give one of --ratio R or --keep N");
    const char *imp = a->importance ? a->importance : "magnitude";
    if (strcmp(imp, "magnitude") && strcmp(imp, "activation") && strcmp(imp, "act-weight"))
        return cli_usage_error(v, "--importance %s: magnitude, activation or act-weight", imp);
    if (strcmp(imp, "magnitude") && !a->calib) return cli_usage_error(v, "--importance %s needs --calib DIR", imp);
    if (a->refit && !a->calib) return cli_usage_error(v, "--refit needs --calib DIR");
    if (a->lambda && !a->refit) return cli_usage_error(v, "--lambda needs --refit");
    if (cli_same_file(a->model, a->out)) return cli_error("%s: refusing to write over the input file", a->out);
    if (cli_output_check(a->out, a->force)) return CLI_ERROR;
    if (cli_evidence_begin(a->evidence, a->ev_runs, &a->ev_n)) return CLI_ERROR;
    return CLI_OK;
}

static int prune_run(int argc, char **argv, const cli_verb *v, const p_args *a, const lg_model *m,
                     const lg_prune_groups *gs) {
    plan p = {0};
    cli_calib cal, ev;
    memset(&cal, 0, sizeof cal);
    memset(&ev, 0, sizeof ev);
    cases cs = {0};
    lg_model *pr = NULL, *mk = NULL;
    float *o_pr = NULL, *o_mk = NULL, *o_or = NULL;
    char *meta = NULL;
    report r;
    memset(&r, 0, sizeof r);
    lg_error err;
    int rc = pick_groups(v, a, gs, &p);
    if (!rc && a->calib) rc = load_sets(m, a->calib, &cal);
    if (!rc && a->eval) rc = load_sets(m, a->eval, &ev);
    for (uint32_t i = 0; !rc && i < p.n_sel; i++) {
        const lg_prune_group *g = &gs->groups[p.sel[i].group];
        uint32_t k = 0;
        rc = keep_count(v, a, g, &k);
        if (rc) break;
        p.score[i] = calloc(g->n_units, sizeof(double));
        p.keep[i] = calloc(k, sizeof(uint32_t));
        if (!p.score[i] || !p.keep[i]) { rc = cli_error("out of memory"); break; }
        rc = score_group(a, m, g, &cal, p.score[i]);
        if (rc) break;
        if (lg_prune_top_k(p.score[i], g->n_units, k, p.keep[i], &err) != LG_OK) { rc = cli_lib_error(a->model, &err); break; }
        p.sel[i].keep = p.keep[i];
        p.sel[i].n_keep = k;
    }
    if (!rc && lg_prune_apply(m, gs, p.sel, p.n_sel, LG_PRUNE_PHYSICAL, &pr, &err) != LG_OK) rc = cli_lib_error(a->model, &err);
    /* the surgery proof: the handbook's masking (producer rows zeroed) when the removed
       channels then reach every consumer as exact zeros, else the consumers' columns zeroed */
    if (!rc) rc = cases_make(m, a->calib ? &cal : NULL, &cs);
    if (!rc && lg_prune_apply(m, gs, p.sel, p.n_sel, LG_PRUNE_MASKED_ROWS, &mk, &err) != LG_OK) rc = cli_lib_error(a->model, &err);
    bool rows = false;
    if (!rc) rc = rows_reach_zero(mk, gs, &p, &cs, &rows);
    if (!rc && !rows) {
        lg_model_free(mk);
        mk = NULL;
        if (lg_prune_apply(m, gs, p.sel, p.n_sel, LG_PRUNE_MASKED, &mk, &err) != LG_OK) rc = cli_lib_error(a->model, &err);
    }
    r.masking = rows ? "producer rows" : "consumer columns";
    int64_t n1 = 0, n2 = 0, n3 = 0;
    if (!rc) rc = run_all(pr, a->out, cs.ptrs, cs.n, &o_pr, &n1);
    if (!rc) rc = run_all(mk, "the masked model", cs.ptrs, cs.n, &o_mk, &n2);
    if (!rc && n1 != n2) rc = cli_error("prune: the pruned model's outputs differ in size from the original's");
    if (!rc) {
        r.proof = compare(o_pr, o_mk, n1);
        r.n_proof_cases = cs.n;
        r.proof_ok = r.proof.rel <= 1e-5;
    }
    /* parameters */
    if (!rc && (lg_model_learned_params(m, &r.p_before, &err) != LG_OK || lg_model_learned_params(pr, &r.p_after, &err) != LG_OK))
        rc = cli_lib_error(a->model, &err);
    uint64_t gone = 0;
    if (!rc && lg_prune_expected_params(m, gs, p.sel, p.n_sel, &gone, &err) != LG_OK) rc = cli_lib_error(a->model, &err);
    if (!rc) r.p_expected = r.p_before - gone;
    /* eval before the refit, the refit, eval after */
    if (!rc && a->eval) {
        free(o_pr); o_pr = NULL;
        rc = run_all(m, a->model, (const void *const *const *)ev.ptrs, ev.n, &o_or, &n3);
        if (!rc) rc = run_all(pr, a->out, (const void *const *const *)ev.ptrs, ev.n, &o_pr, &n1);
        if (!rc) { r.eval_before = compare(o_pr, o_or, n3); r.has_eval = true; r.n_eval = ev.n; }
    }
    if (!rc && a->refit) rc = do_refit(a, m, gs, &p, &cal, pr, &r);
    /* the refit writes new weight buffers: drop the ones it replaced */
    if (!rc && a->refit && lg_model_compact(pr, NULL, NULL, &err) != LG_OK) rc = cli_lib_error(a->out, &err);
    if (!rc && a->refit && a->eval) {
        free(o_pr); o_pr = NULL;
        rc = run_all(pr, a->out, (const void *const *const *)ev.ptrs, ev.n, &o_pr, &n1);
        if (!rc) r.eval_after = compare(o_pr, o_or, n3);
    }
    if (!rc) {
        meta = meta_json(a, gs, &p);
        if (!meta) rc = cli_error("out of memory");
        else if (lg_model_add_metadata(pr, "litegpu.prune", meta, strlen(meta), &err) != LG_OK) rc = cli_lib_error(a->out, &err);
    }
    if (!rc) rc = cli_write_model(pr, a->out, a->force, false, &r.size, r.hex);
    if (!rc && a->evidence) {
        char change[256], checks[512];
        snprintf(change, sizeof change, "{\"kind\":\"prune\",\"importance\":\"%s\",\"n_params_before\":%llu,\"n_params_after\":%llu}",
                 a->importance ? a->importance : "magnitude", (unsigned long long)r.p_before, (unsigned long long)r.p_after);
        snprintf(checks, sizeof checks,
                 "[{\"check\":\"masked_equivalence\",\"masking\":\"%s\",\"max_abs\":%.9g,\"rel\":%.9g,\"ok\":%s},"
                 "{\"check\":\"n_params_match_shapes\",\"n_params\":%llu,\"expected\":%llu,\"ok\":%s}]",
                 r.masking, r.proof.max_abs, r.proof.rel, r.proof_ok ? "true" : "false", (unsigned long long)r.p_after,
                 (unsigned long long)r.p_expected, r.p_after == r.p_expected ? "true" : "false");
        /* the metadata JSON carries the retained indices: the primary change */
        size_t cl = strlen(meta) + strlen(change) + 32;
        char *ch = malloc(cl);
        if (!ch) rc = cli_error("out of memory");
        else {
            snprintf(ch, cl, "%.*s,\"prune\":%s}", (int)strlen(change) - 1, change, meta);
            cli_evidence e = {0};
            e.dir = a->evidence; e.verb = "prune"; e.argc = argc; e.argv = argv;
            e.baseline = a->model; e.candidate = a->out;
            e.hypothesis = "Removing the least important channels of the selected groups keeps the model's outputs close.";
            e.change_json = ch; e.checks_json = checks; e.calib = a->eval ? a->eval : a->calib;
            e.runs = a->ev_n;
            e.calib_is_fit = !a->eval && a->calib;
            char rec[1200];
            if (a->refit) {
                snprintf(rec, sizeof rec, "least-squares (ridge) refit of the consumer FCs on %s, lambda %g", a->calib, r.lambda);
                e.recovery = rec;
            }
            rc = cli_evidence_write(&e);
            free(ch);
        }
    }
    if (!rc && print_report(a, m, gs, &p, &r)) rc = cli_error("writing the report failed");
    if (!rc && (!r.proof_ok || r.p_after != r.p_expected)) rc = CLI_FINDINGS;
    free(meta); free(o_pr); free(o_mk); free(o_or);
    lg_model_free(pr); lg_model_free(mk);
    cases_free(&cs);
    cli_calib_free(&cal); cli_calib_free(&ev);
    plan_free(&p);
    return rc;
}

int cmd_prune(const cli_verb *v, int argc, char **argv) {
    p_args a;
    memset(&a, 0, sizeof a);
    const cli_flag flags[] = {
        {"--list", NULL, &a.list, NULL, NULL, NULL, 0},
        {"--output", "-o", NULL, &a.out, NULL, NULL, 0},
        {"--group", NULL, NULL, NULL, a.groups, &a.n_groups, 64},
        {"--ffn", NULL, &a.ffn, NULL, NULL, NULL, 0},
        {"--conv", NULL, &a.conv, NULL, NULL, NULL, 0},
        {"--heads", NULL, &a.heads, NULL, NULL, NULL, 0},
        {"--ratio", NULL, NULL, &a.ratio, NULL, NULL, 0},
        {"--keep", NULL, NULL, &a.keep, NULL, NULL, 0},
        {"--importance", NULL, NULL, &a.importance, NULL, NULL, 0},
        {"--calib", NULL, NULL, &a.calib, NULL, NULL, 0},
        {"--round-to", NULL, NULL, &a.round_to, NULL, NULL, 0},
        {"--refit", NULL, &a.refit, NULL, NULL, NULL, 0},
        {"--lambda", NULL, NULL, &a.lambda, NULL, NULL, 0},
        {"--eval", NULL, NULL, &a.eval, NULL, NULL, 0},
        {"--evidence", NULL, NULL, &a.evidence, NULL, NULL, 0},
        {"--evidence-runs", NULL, NULL, &a.ev_runs, NULL, NULL, 0},
        {"--force", NULL, &a.force, NULL, NULL, NULL, 0},
        {"--json", NULL, &a.json, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, 0},
    };
    const char *pos[1];
    int n_pos = 0;
    int rc = cli_parse(v, argc, argv, flags, pos, 1, &n_pos);
    if (rc >= 0) return rc;
    if (n_pos != 1) return cli_usage_error(v, "missing MODEL");
    a.model = pos[0];
    if ((rc = check_args(v, &a)) != CLI_OK) return rc;
    lg_model *m = NULL;
    if ((rc = cli_load_model(a.model, &m)) != CLI_OK) return rc;
    lg_prune_groups *gs = NULL;
    lg_error err;
    if (lg_prune_groups_find(m, &gs, &err) != LG_OK) rc = cli_lib_error(a.model, &err);
    else rc = a.list ? do_list(&a, m, gs) : prune_run(argc, argv, v, &a, m, gs);
    lg_prune_groups_free(gs);
    lg_model_free(m);
    return rc;
}
