/* litegpu check: the GPU delegates' rules applied to a model, op by op, then the
 * partitioning the delegate would do. Rules and their documentation live in rules.def; the
 * files of the checker and how they call each other are listed in check_impl.h.
 *
 * The model of the delegate:
 *  - DEQUANTIZE of a FLOAT16 constant is folded (FP16GraphPartitionHelper remaps consumers to
 *    the fp16 constant), so its output counts as constant and the op itself is "folded".
 *  - An op is supported when no blocker finding names it. Ops are then split into
 *    alternating GPU/CPU subsets in dependency order, as TFLite's
 *    PartitionGraphIntoIndependentNodeSubsets does; the classic delegate takes the largest
 *    GPU subset (max_delegated_partitions = 1), CompiledModel GPU needs all ops on the GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_impl.h"
#include "check/op_version.h"
#include "internal.h"
#include "lg/check.h"

/* ------------------------------------------------------------------ rules every op gets */

/* Which parser takes the op: custom ops by name, builtins by the target's op list; ML Drift
   also needs a gpu_compatibility.cc case (ARG_MAX, UNPACK and composites have their own). */
static void check_parser(ck *c, const opx *x) {
    lg_target target = c->target;
    if (x->code == LG_OP_CUSTOM) {
        const char *cc = c->m->opcodes[x->op->opcode_index].custom_code;
        if (!lgc_custom_supported(target, cc))
            lgc_add(c, R_CUSTOM_OP_UNSUPPORTED, x, NULL, "Not supported custom op %s", cc ? cc : "(no name)");
    } else if (!lgc_parser_takes(target, x->code)) {
        lgc_add(c, R_OP_UNSUPPORTED, x, lgc_fix_for_unsupported(x->code), "%s: Operation is not supported%s", x->name,
            target == LG_TARGET_CLASSIC && lgc_parser_takes(LG_TARGET_MLDRIFT, x->code) ? " (ML Drift takes it)" :
            target == LG_TARGET_MLDRIFT && lgc_parser_takes(LG_TARGET_CLASSIC, x->code) ? " (the classic delegate takes it)" : "");
    } else if (target == LG_TARGET_MLDRIFT && !lgc_compat_has(x->code) && x->code != LG_OP_ARG_MAX &&
               x->code != LG_OP_UNPACK && x->code != LG_OP_STABLEHLO_COMPOSITE) {
        lgc_add(c, R_OP_NO_COMPAT_CASE, x, NULL, "Not supported op %s", x->name);
    }
    if (x->code == LG_OP_STABLEHLO_COMPOSITE && target == LG_TARGET_MLDRIFT) {
        lg_stablehlo_composite_options d;
        const lg_stablehlo_composite_options *co = lgc_opts(x->op, LG_OPTS_STABLEHLO_COMPOSITE_OPTIONS, &d, sizeof d);
        const char *nm = co->name;
        if (!lgc_composite_supported(nm))
            lgc_add(c, R_CUSTOM_OP_UNSUPPORTED, x, "lower the composite to its decomposition (builtin ops) at export",
                "Not supported composite %s", nm ? nm : "(no name)");
    }
    if (lgc_field_banned(x->code) && lgc_parser_takes(target, x->code))
        lgc_add(c, R_FIELD_BANNED_OP, x, NULL, "%s: the field notes saw it keep models off the phone's GPU", x->name);
}

/* The op's version (the stored one, or the one its properties need if higher) against the
   target's maximum. */
static void check_version(ck *c, const opx *x) {
    int maxv = lgc_max_version(c->target, x->code);
    if (maxv <= 0 || x->code == LG_OP_CUSTOM) return;
    const lg_op *op = x->op;
    int stored = op->opcode_index < c->m->n_opcodes ? c->m->opcodes[op->opcode_index].version : 1;
    char why[128];
    int computed = lgi_op_version_reason(c->m, c->sg, op, why, sizeof why);
    /* a DEQUANTIZE of a constant: the delegate reads the stored version, and its constant
       read handles what raises the computed one (check_quant.c, op-version-understated) */
    if (lgc_version_from_stored(c, x) && stored <= maxv) {
        if (computed > maxv) lgc_version_understated(c, x, stored, computed, maxv, why);
        return;
    }
    int v = stored > computed ? stored : computed;
    if (v <= maxv) return;
    const char *fix = NULL;
    if (computed > maxv && x->code == LG_OP_TRANSPOSE_CONV)
        fix = lgc_rule_applies(c, R_MALI_TRANSPOSE_CONV)
                  ? "unfuse the activation: TRANSPOSE_CONV without activation, then a RELU op (version 3); "
                    "on Mali, use the ZeroStuff transposed conv instead"
                  : "unfuse the activation: TRANSPOSE_CONV without activation, then a RELU op (version 3)";
    else if (computed > maxv && strstr(why, "FLOAT16"))
        fix = "keep runtime tensors FLOAT32 (store weights as FLOAT16 + DEQUANTIZE, which the delegate folds)";
    else if (computed <= maxv)
        fix = "the file stores a higher version than the op's properties need: re-export, or set the "
              "opcode version to the computed one";
    lgc_add(c, R_OP_VERSION, x, fix, "%s version %d > max %d (stored %d; computed %d: %s)", x->name, v, maxv,
        stored, computed, why);
}

/* Every input and output tensor: rank, dtype, int64, per-channel quantization. */
static void check_tensors(ck *c, const opx *x) {
    const lg_op *op = x->op;
    char s1[64];
    for (uint32_t k = 0; k < op->n_inputs + op->n_outputs; k++) {
        int is_in = k < op->n_inputs;
        int32_t t = is_in ? op->inputs[k] : op->outputs[k - op->n_inputs];
        if (t < 0) continue;
        const lg_tensor *tt = lgc_T(c, t);
        if (tt->rank >= 5) {
            lg_finding *f = lgc_add(c, R_TENSOR_RANK, x, NULL, "Tensor dimensions must be less than 5. %s %s (tensor %d \"%s\")",
                                is_in ? "input" : "output", lgc_shp(c, t, s1, sizeof s1), t, lgc_tname(c, t));
            lgc_with_tensor(f, t);
        }
        if (c->is_const[t] && is_in) continue;
        if (tt->type == LG_INT64 && lgc_rule_applies(c, R_INT64_TENSOR)) {
            lg_finding *f = lgc_add(c, R_INT64_TENSOR, x, NULL, "Tensor type(INT64) is not supported: %s %d \"%s\"",
                                is_in ? "input" : "output", t, lgc_tname(c, t));
            lgc_with_tensor(f, t);
        } else if (x->code != LG_OP_CUSTOM && lgc_parser_takes(c->target, x->code) &&
                   !lgc_dtype_ok(c, x->code, tt->type, is_in, (int)k)) {
            lg_finding *f = lgc_add(c, R_TENSOR_DTYPE, x, NULL, "Tensor type(%s) is not supported: %s %d \"%s\" of %s",
                                lg_dtype_name(tt->type), is_in ? "input" : "output", t, lgc_tname(c, t), x->name);
            lgc_with_tensor(f, t);
        }
        if (tt->quant && tt->quant->n_scale > 1 && lgc_is_q8(tt->type)) {
            lg_finding *f = lgc_add(c, R_QUANT_PER_CHANNEL_RUNTIME, x, NULL, "Unsupported quantization scale size: runtime tensor %d \"%s\" has %u scales",
                                t, lgc_tname(c, t), tt->quant->n_scale);
            lgc_with_tensor(f, t);
        }
    }
}

/* Field rules that look at the whole op: constant-only inputs, and a 2-D FULLY_CONNECTED
   output meeting a rank >= 3 operand of ADD/MUL (read as {n,1,1,c}). */
static void check_field_rules(ck *c, const opx *x) {
    const lg_op *op = x->op;
    char s1[64], s2[64];
    if (x->n_in > 0 && x->n_rt == 0 && x->code != LG_OP_DENSIFY && x->code != LG_OP_DEQUANTIZE) {
        lgc_add(c, R_CONST_ONLY_INPUTS, x, NULL, "%s: all %d input(s) are constant (\"Expected 1 const input tensor(s), but node has %d const input(s)\")",
            x->name, x->n_in, x->n_const);
    }
    if ((x->code != LG_OP_MUL && x->code != LG_OP_ADD) || op->n_inputs != 2) return;
    for (int k = 0; k < 2; k++) {
        int32_t a = op->inputs[k], b = op->inputs[1 - k];
        if (a < 0 || b < 0) continue;
        int32_t p = lgc_producer(c, a);
        if (p < 0 || lg_op_builtin(c->m, &c->sg->ops[p]) != LG_OP_FULLY_CONNECTED) continue;
        const lg_tensor *fa = lgc_T(c, a), *fb = lgc_T(c, b);
        if (fa->rank == 2 && fa->shape[0] > 1 && fb->rank >= 3) {
            lg_finding *f = lgc_add(c, R_FC_2D_BROADCAST, x, NULL,
                                "FULLY_CONNECTED (op %d) output %s (read as {%d,1,1,%d}) meets %s %s",
                                p, lgc_shp(c, a, s1, sizeof s1), fa->shape[0], fa->shape[1], x->name, lgc_shp(c, b, s2, sizeof s2));
            lgc_with_tensor(f, a);
            lgc_with_tensor(f, b);
        }
    }
}

/* Model-level: graph inputs with a dynamic dimension. */
static void check_inputs(ck *c) {
    const lg_subgraph *sg = c->sg;
    for (uint32_t k = 0; k < sg->n_inputs; k++) {
        int32_t t = sg->inputs[k];
        const lg_tensor *x = &sg->tensors[t];
        for (uint32_t d = 0; d < x->n_shape_signature; d++)
            if (x->shape_signature[d] < 0) {
                char s1[64];
                lg_finding *f = lgc_add(c, R_DYNAMIC_INPUT, NULL, NULL, "input %d \"%s\" %s has a dynamic dimension %u (shape_signature -1)",
                                    t, lgc_tname(c, t), lgc_shp(c, t, s1, sizeof s1), d);
                lgc_with_tensor(f, t);
                break;
            }
    }
}

/* The op as the rules see it: code, name, its non-optional inputs split runtime/constant. */
static opx op_context(const ck *c, uint32_t i) {
    const lg_op *op = &c->sg->ops[i];
    opx x;
    memset(&x, 0, sizeof x);
    x.op = op;
    x.idx = (int32_t)i;
    x.code = lg_op_builtin(c->m, op);
    x.name = lg_op_name(c->m, op);
    for (uint32_t k = 0; k < op->n_inputs; k++) {
        int32_t t = op->inputs[k];
        if (t < 0) continue;
        if (x.n_in < 16) x.in[x.n_in] = t;
        x.n_in++;
        if (c->is_const[t]) x.n_const++;
        else x.n_rt++;
    }
    return x;
}

/* ------------------------------------------------------------------ partitioning */

/* Zeroed scratch from the model's allocator hook (free with lgi_model_mfree, same n). */
static void *ck_zalloc(const lg_model *m, size_t n) {
    void *p = lgi_model_malloc(m, n);
    if (p) memset(p, 0, n ? n : 1);
    return p;
}

/* TFLite's PartitionGraphIntoIndependentNodeSubsets: repeatedly sweep the ops in order,
   taking every op whose inputs are ready and whose kind matches the current subset's.
   The scratch comes from the model's hook; rep->partitions from malloc (lg/check.h). */
static lg_status partition(ck *c, const uint8_t *supported, lg_check_report *rep) {
    const lg_subgraph *sg = c->sg;
    uint32_t n = sg->n_ops;
    size_t scratch_bytes = (size_t)sg->n_tensors + n + (size_t)n * sizeof(int32_t);
    uint8_t *scratch = ck_zalloc(c->m, scratch_bytes);
    lg_partition *parts = NULL;
    uint32_t n_parts = 0;
    if (!scratch) goto oom;
    int32_t *subset = (int32_t *)(void *)scratch;  /* first, so that it is aligned */
    uint8_t *ready = scratch + (size_t)n * sizeof(int32_t), *done = ready + sg->n_tensors;
    for (uint32_t t = 0; t < sg->n_tensors; t++) ready[t] = lgc_producer(c, (int32_t)t) < 0;
    uint32_t remaining = n;
    while (remaining) {
        int kind = -1;
        uint32_t count = 0, first = UINT32_MAX, last = 0;
        for (;;) {
            int progress = 0;
            for (uint32_t i = 0; i < n; i++) {
                if (done[i]) continue;
                const lg_op *op = &sg->ops[i];
                int ok = 1;
                for (uint32_t k = 0; k < op->n_inputs && ok; k++)
                    if (op->inputs[k] >= 0 && op->inputs[k] < (int32_t)sg->n_tensors) ok = ready[op->inputs[k]];
                if (!ok) continue;
                if (kind < 0) kind = supported[i];
                if (supported[i] != kind) continue;
                done[i] = 1;
                remaining--;
                subset[i] = (int32_t)n_parts;
                for (uint32_t k = 0; k < op->n_outputs; k++)
                    if (op->outputs[k] >= 0 && op->outputs[k] < (int32_t)sg->n_tensors) ready[op->outputs[k]] = 1;
                if (!c->folded[i]) count++;
                if (i < first) first = i;
                if (i > last) last = i;
                progress = 1;
            }
            if (!progress) break;
        }
        if (kind < 0) {
            /* ops whose inputs are never produced (a cycle or bad graph): one CPU subset */
            kind = 0;
            for (uint32_t i = 0; i < n; i++)
                if (!done[i]) {
                    done[i] = 1;
                    remaining--;
                    subset[i] = (int32_t)n_parts;
                    if (!c->folded[i]) count++;
                    if (i < first) first = i;
                    if (i > last) last = i;
                }
        }
        lg_partition *np = realloc(parts, (n_parts + 1) * sizeof *np);
        if (!np) goto oom;
        parts = np;
        parts[n_parts].first_op = first;
        parts[n_parts].last_op = last;
        parts[n_parts].n_ops = count;
        parts[n_parts].ops = NULL;
        parts[n_parts].gpu = kind == 1;
        parts[n_parts].delegated = false;
        n_parts++;
    }
    /* each subset's own ops (folded ones apart, as n_ops counts them) */
    for (uint32_t p = 0; p < n_parts; p++) {
        parts[p].ops = malloc((parts[p].n_ops ? parts[p].n_ops : 1) * sizeof(uint32_t));
        if (!parts[p].ops) goto oom;
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++)
            if ((uint32_t)subset[i] == p && !c->folded[i]) parts[p].ops[k++] = i;
    }
    /* which GPU subsets the delegate takes */
    int best = -1;
    for (uint32_t p = 0; p < n_parts; p++) {
        if (!parts[p].gpu || parts[p].n_ops == 0) continue;
        rep->n_gpu_partitions++;
        if (best < 0 || parts[p].n_ops > parts[(uint32_t)best].n_ops) best = (int)p;
    }
    for (uint32_t p = 0; p < n_parts; p++) {
        if (!parts[p].gpu) continue;
        /* classic: only the largest (max_delegated_partitions = 1); ML Drift: all of them,
           though CompiledModel refuses anything short of full residency */
        parts[p].delegated = c->target == LG_TARGET_MLDRIFT ? true : (int)p == best;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = (uint32_t)subset[i];
        if (c->folded[i]) rep->op_place[i] = LG_PLACE_FOLDED;
        else rep->op_place[i] = parts[p].gpu && parts[p].delegated ? LG_PLACE_GPU : LG_PLACE_CPU;
    }
    rep->partitions = parts;
    rep->n_partitions = n_parts;
    lgi_model_mfree(c->m, scratch, scratch_bytes);
    return LG_OK;
oom:
    lgi_model_mfree(c->m, scratch, scratch_bytes);
    for (uint32_t p = 0; p < n_parts; p++) free(parts[p].ops);
    free(parts);
    return LG_ERR_NOMEM;
}

/* The last op reading t, n_ops for a graph output, -1 when nothing reads it. */
static int32_t last_use(const ck *c, int32_t t) {
    if (lg_graph_is_output(c->g, t)) return (int32_t)c->sg->n_ops;
    uint32_t n;
    const lg_use *u = lg_graph_uses(c->g, t, &n);
    return n ? u[n - 1].op : -1;  /* the uses are sorted by op */
}

/* The split point for a too-large graph: the op boundary near the middle where the fewest
   tensors cross (produced before, consumed at or after). Folded DEQUANTIZE ops are no ops of
   the GPU graph: the cut is placed among the other ops (the middle of those, never before
   the first of them), and a folded op's output is a constant, so it never crosses. */
static void suggest_split(ck *c, lg_check_report *rep, uint32_t max_ops) {
    const lg_subgraph *sg = c->sg;
    uint32_t n = sg->n_ops;
    if (rep->n_gpu_ops <= max_ops || n < 4) return;
    uint32_t *real = lgi_model_malloc(c->m, n * sizeof(uint32_t));
    if (!real) { c->oom = LG_ERR_NOMEM; return; }
    uint32_t r = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!c->folded[i]) real[r++] = i;
    /* candidate cuts: before real[k], k in [max(1, r/4), 3r/4], ties to the nearest to r/2 */
    uint32_t best = 0, best_k = 0, best_cross = UINT32_MAX;
    bool found = false;
    for (uint32_t k = r / 4 ? r / 4 : 1; k < r && k <= 3 * r / 4; k++) {
        uint32_t cut = real[k], cross = 0;
        for (uint32_t t = 0; t < sg->n_tensors; t++) {
            int32_t p = lgc_producer(c, (int32_t)t);
            if (c->is_const[t] && p < 0) continue;
            if (p >= 0 && c->folded[p]) continue;
            if (p < (int32_t)cut && last_use(c, (int32_t)t) >= (int32_t)cut) cross++;
        }
        uint32_t dist = k > r / 2 ? k - r / 2 : r / 2 - k;
        uint32_t bdist = best_k > r / 2 ? best_k - r / 2 : r / 2 - best_k;
        if (!found || cross < best_cross || (cross == best_cross && dist < bdist)) {
            best_cross = cross;
            best = cut;
            best_k = k;
            found = true;
        }
    }
    lgi_model_mfree(c->m, real, n * sizeof(uint32_t));
    char fix[200];
    if (found)
        snprintf(fix, sizeof fix, "split the graph before op %u (%s): %u tensor(s) cross there; run the two "
                 "parts as two models", best, lg_op_name(c->m, &sg->ops[best]), best_cross);
    else
        snprintf(fix, sizeof fix, "split the graph in two and run the parts as two models");
    lg_finding *f = lgc_add(c, R_GRAPH_SIZE, NULL, fix, "%u ops would be delegated (more than %u); "
                            "whole-graph shader compilation may fail on Mali", rep->n_gpu_ops, max_ops);
    if (f && found) f->op = (int32_t)best;
}

/* ------------------------------------------------------------------ driver */

static int cmp_finding(const void *a, const void *b) {
    const lg_finding *x = a, *y = b;
    if (x->op != y->op) return x->op < y->op ? -1 : 1;
    if (x->rule != y->rule) return x->rule < y->rule ? -1 : 1;
    return 0;
}

void lg_check_report_free(lg_check_report *r) {
    if (!r) return;
    free(r->findings);
    for (uint32_t p = 0; r->partitions && p < r->n_partitions; p++) free(r->partitions[p].ops);
    free(r->partitions);
    free(r->op_place);
    free(r);
}

/* Constness of every tensor; DEQUANTIZE of a FLOAT16 constant (fp16 weights) is folded by
   the delegate. */
static void scan_graph(ck *c) {
    const lg_subgraph *sg = c->sg;
    for (uint32_t t = 0; t < sg->n_tensors; t++)
        c->is_const[t] = lg_tensor_buffer(c->m, &sg->tensors[t]) != NULL;
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        if (lg_op_builtin(c->m, op) != LG_OP_DEQUANTIZE || op->n_inputs != 1 || op->n_outputs != 1) continue;
        int32_t in = op->inputs[0];
        if (in >= 0 && c->is_const[in] && sg->tensors[in].type == LG_FLOAT16) {
            c->folded[i] = 1;
            if (op->outputs[0] >= 0) c->is_const[op->outputs[0]] = 1;
        }
    }
}

/* Every rule on every op (folded ops excepted), in a fixed order. */
static void check_ops(ck *c) {
    for (uint32_t i = 0; i < c->sg->n_ops; i++) {
        if (c->folded[i]) continue;
        opx x = op_context(c, i);
        check_parser(c, &x);
        check_version(c, &x);
        check_tensors(c, &x);
        check_field_rules(c, &x);
        if (x.code != LG_OP_CUSTOM) lgc_check_op(c, &x);
        if (c->oom) break;
    }
}

/* Partition, count the ops by place, suggest a split, sort the findings into rep. */
static lg_status finish_report(ck *c, uint8_t *supported, uint32_t max_ops, lg_check_report *rep, lg_error *err) {
    const lg_subgraph *sg = c->sg;
    for (uint32_t i = 0; i < sg->n_ops; i++) supported[i] = c->folded[i] || !c->blocked[i];
    lg_status st = partition(c, supported, rep);
    if (st != LG_OK) return lgi_fail(err, st, "out of memory partitioning the model");
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        if (rep->op_place[i] == LG_PLACE_GPU) rep->n_gpu_ops++;
        else if (rep->op_place[i] == LG_PLACE_FOLDED) rep->n_folded_ops++;
        else rep->n_cpu_ops++;
        if (!c->folded[i] && supported[i]) rep->n_supported_ops++;
    }
    suggest_split(c, rep, max_ops);
    if (c->oom) return lgi_fail(err, LG_ERR_NOMEM, "out of memory checking the model");
    if (c->n_f) qsort(c->f, c->n_f, sizeof *c->f, cmp_finding);
    for (uint32_t i = 0; i < c->n_f; i++) {
        if (c->f[i].rule->severity == LG_SEV_BLOCKER) rep->n_blockers++;
        else rep->n_warnings++;
    }
    rep->n_other_gpu_findings = c->n_other_gpu;
    rep->findings = c->f;
    rep->n_findings = c->n_f;
    c->f = NULL;
    rep->ready = rep->n_blockers == 0;
    return LG_OK;
}

lg_status lg_check_model(const lg_model *m, const lg_check_options *opt, lg_check_report **out,
                         lg_error *err) {
    lgi_error_clear(err);
    if (!m || !out) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_check_model: NULL argument");
    *out = NULL;
    LG_TRY(lg_model_validate(m, err));
    if (m->n_subgraphs == 0) return lgi_fail(err, LG_ERR_INVALID_ARG, "the model has no subgraph");
    lg_target target = opt ? opt->target : LG_TARGET_MLDRIFT;
    if ((unsigned)target >= LG_TARGET_COUNT) return lgi_fail(err, LG_ERR_INVALID_ARG, "unknown target %d", (int)target);
    lg_gpu gpu = opt ? opt->gpu : LG_GPU_ANY;
    if ((unsigned)gpu >= LG_GPU_COUNT) return lgi_fail(err, LG_ERR_INVALID_ARG, "unknown GPU family %d", (int)gpu);
    /* the classic delegate's backends are OpenCL and OpenGL ES; WebGPU is ML Drift's (LiteRT.js) */
    if (gpu == LG_GPU_WEBGPU && target == LG_TARGET_CLASSIC)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "the classic GPU delegate has no WebGPU backend "
                        "(WebGPU runs ML Drift: target mldrift)");
    uint32_t max_ops = opt && opt->max_gpu_ops ? opt->max_gpu_ops : LG_CHECK_DEFAULT_MAX_GPU_OPS;

    ck c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.sg = &m->subgraphs[0];
    c.target = target;
    c.gpus = lg_gpu_mask(gpu);
    const lg_subgraph *sg = c.sg;
    lg_graph *g = NULL;
    LG_TRY(lg_graph_build(m, 0, &g, err));
    c.g = g;
    /* the checker's scratch (per tensor is_const; per op folded, blocked, supported) comes
       from the model's hook, the report from malloc (lg/check.h) */
    uint32_t nt = sg->n_tensors, no = sg->n_ops;
    size_t scratch_bytes = (size_t)nt + 3 * (size_t)no;
    uint8_t *scratch = ck_zalloc(m, scratch_bytes);
    lg_check_report *rep = calloc(1, sizeof *rep);
    if (rep) rep->op_place = calloc(no ? no : 1, 1);
    lg_status st = LG_OK;
    if (!scratch || !rep || !rep->op_place) {
        st = lgi_fail(err, LG_ERR_NOMEM, "out of memory checking the model");
        goto done;
    }
    c.is_const = scratch;
    c.folded = scratch + nt;
    c.blocked = c.folded + no;
    uint8_t *supported = c.blocked + no;
    rep->target = target;
    rep->gpu = gpu;
    rep->n_ops = sg->n_ops;

    scan_graph(&c);
    check_inputs(&c);
    lgc_check_quant_outputs(&c);
    check_ops(&c);
    if (c.oom) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory checking the model"); goto done; }
    st = finish_report(&c, supported, max_ops, rep, err);
    if (st != LG_OK) goto done;
    *out = rep;
    rep = NULL;
done:
    lgi_model_mfree(m, scratch, scratch_bytes);
    lg_graph_free(g);
    free(c.f);
    lg_check_report_free(rep);
    return st;
}
