/* The helpers the checker's rules share: recording findings, reading tensors and constants,
   and the input-count and constness checks several ops make. Nothing here knows an op. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_impl.h"
#include "lg/ops.h"
#include "util/half.h"

/* ------------------------------------------------------------------ findings */

const lg_tensor *lgc_T(const ck *c, int32_t i) { return &c->sg->tensors[i]; }

int32_t lgc_producer(const ck *c, int32_t t) { return lg_graph_producer(c->g, t); }

uint32_t lgc_n_readers(const ck *c, int32_t t) {
    uint32_t n;
    lg_graph_uses(c->g, t, &n);
    if (lg_graph_is_output(c->g, t))
        for (uint32_t k = 0; k < c->sg->n_outputs; k++) n += c->sg->outputs[k] == t;
    return n;
}

int lgc_rule_applies(const ck *c, int rule) {
    const lg_rule_info *ri = &lgc_rule_table[rule];
    return (ri->targets & LG_TARGET_BIT(c->target)) && (ri->gpus & c->gpus);
}

lg_finding *lgc_add(ck *c, int rule, const opx *x, const char *fix, const char *fmt, ...) {
    const lg_rule_info *ri = &lgc_rule_table[rule];
    if (!(ri->targets & LG_TARGET_BIT(c->target))) return NULL;
    if (!(ri->gpus & c->gpus)) {
        c->n_other_gpu++;
        return NULL;
    }
    if (c->n_f == c->cap_f) {
        uint32_t nc = c->cap_f ? 2 * c->cap_f : 32;
        /* malloc, not the model's hook: c->f becomes the report's findings (lg/check.h) */
        lg_finding *nf = realloc(c->f, nc * sizeof *nf);
        if (!nf) { c->oom = LG_ERR_NOMEM; return NULL; }
        c->f = nf;
        c->cap_f = nc;
    }
    lg_finding *f = &c->f[c->n_f++];
    memset(f, 0, sizeof *f);
    f->rule = ri;
    f->subgraph = (int32_t)c->sg_index;
    f->op = x ? x->idx : -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->reason, sizeof f->reason, fmt, ap);
    va_end(ap);
    snprintf(f->fix, sizeof f->fix, "%s", fix ? fix : ri->fix);
    if (x && ri->severity == LG_SEV_BLOCKER) c->blocked[x->idx] = 1;
    return f;
}

void lgc_with_tensor(lg_finding *f, int32_t t) {
    if (f && f->n_tensors < 4 && t >= 0) f->tensors[f->n_tensors++] = t;
}

/* ------------------------------------------------------------------ tensors and constants */

/* Shape as "[1,8,8,3]". */
const char *lgc_shp(const ck *c, int32_t t, char *buf, size_t n) {
    const lg_tensor *x = lgc_T(c, t);
    size_t k = 0;
    k += (size_t)snprintf(buf + k, n - k, "[");
    for (uint32_t i = 0; i < x->rank && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? "," : "", x->shape[i]);
    if (k < n) snprintf(buf + k, n - k, "]");
    return buf;
}

const char *lgc_tname(const ck *c, int32_t t) {
    const char *n = lgc_T(c, t)->name;
    return n ? n : "";
}

/* Read element i of a constant integer tensor (INT32 or INT64). */
int lgc_const_int(const ck *c, int32_t t, uint32_t i, int64_t *v) {
    const lg_tensor *x = lgc_T(c, t);
    const lg_buffer *b = lg_tensor_buffer(c->m, x);
    if (!b) return 0;
    if (x->type == LG_INT32 && (uint64_t)(i + 1) * 4 <= b->size) {
        *v = (int32_t)lgi_rd_u32(b->data + 4 * (size_t)i);
        return 1;
    }
    if (x->type == LG_INT64 && (uint64_t)(i + 1) * 8 <= b->size) {
        *v = (int64_t)lgi_rd_u64(b->data + 8 * (size_t)i);
        return 1;
    }
    return 0;
}

int lgc_const_float(const ck *c, int32_t t, uint32_t i, double *v) {
    const lg_tensor *x = lgc_T(c, t);
    const lg_buffer *b = lg_tensor_buffer(c->m, x);
    if (!b) {
        /* the output of a folded DEQUANTIZE: read its FLOAT16 constant */
        int32_t p = lgc_producer(c, t);
        if (p >= 0 && c->folded[p] && c->sg->ops[p].n_inputs == 1) return lgc_const_float(c, c->sg->ops[p].inputs[0], i, v);
        return 0;
    }
    if (x->type == LG_FLOAT32 && (uint64_t)(i + 1) * 4 <= b->size) {
        uint32_t u = lgi_rd_u32(b->data + 4 * (size_t)i);
        float f;
        memcpy(&f, &u, 4);
        *v = f;
        return 1;
    }
    if (x->type == LG_FLOAT16 && (uint64_t)(i + 1) * 2 <= b->size) {
        *v = lg_half_to_float(lgi_rd_u16(b->data + 2 * (size_t)i));
        return 1;
    }
    return 0;
}

int64_t lgc_numel_of(const ck *c, int32_t t) { return lg_tensor_numel(lgc_T(c, t)); }

int lgc_is_compare(int32_t op) {
    return op == LG_OP_EQUAL || op == LG_OP_NOT_EQUAL || op == LG_OP_GREATER ||
           op == LG_OP_GREATER_EQUAL || op == LG_OP_LESS || op == LG_OP_LESS_EQUAL;
}

int lgc_is_float(int t) { return t == LG_FLOAT32 || t == LG_FLOAT16; }
int lgc_is_q8(int t) { return t == LG_INT8 || t == LG_UINT8; }

/* ------------------------------------------------------------------ shared op checks */

int lgc_need_io(ck *c, const opx *x, int rt, int cst, int outs) {
    int bad = (rt >= 0 && x->n_rt != rt) || (cst >= 0 && x->n_const != cst) ||
              (outs >= 0 && (int)x->op->n_outputs != outs);
    if (bad) {
        char want[96] = "";
        size_t k = 0;
        if (rt >= 0) k += (size_t)snprintf(want + k, sizeof want - k, "%d runtime", rt);
        if (cst >= 0) k += (size_t)snprintf(want + k, sizeof want - k, "%s%d constant", k ? ", " : "", cst);
        if (outs >= 0) snprintf(want + k, sizeof want - k, "%s%d output(s)", k ? ", " : "", outs);
        lgc_add(c, R_INPUT_COUNT, x, NULL, "%s has %d runtime and %d constant input(s), %u output(s); the GPU takes %s",
            x->name, x->n_rt, x->n_const, x->op->n_outputs, want);
        return 0;
    }
    return 1;
}

int lgc_need_const_i32(ck *c, const opx *x, uint32_t k, const char *what) {
    if (k >= x->op->n_inputs || x->op->inputs[k] < 0) {
        lgc_add(c, R_CONST_AXES, x, NULL, "%s has no %s input", x->name, what);
        return 0;
    }
    int32_t t = x->op->inputs[k];
    if (!c->is_const[t]) {
        lg_finding *f = lgc_add(c, R_CONST_AXES, x, NULL, "%s is only supported with constant %s (tensor %d \"%s\" is computed at run time)",
                            x->name, what, t, lgc_tname(c, t));
        lgc_with_tensor(f, t);
        return 0;
    }
    if (lgc_T(c, t)->type != LG_INT32) {
        lg_finding *f = lgc_add(c, R_CONST_AXES, x, NULL, "%s supports int32 tensor for %s (tensor %d is %s)", x->name, what,
                            t, lg_dtype_name(lgc_T(c, t)->type));
        lgc_with_tensor(f, t);
        return 0;
    }
    return 1;
}

void lgc_need_static(ck *c, const opx *x, uint32_t k, const char *what) {
    if (k < x->op->n_inputs && x->op->inputs[k] >= 0 && !c->is_const[x->op->inputs[k]]) {
        int32_t t = x->op->inputs[k];
        lg_finding *f = lgc_add(c, R_DYNAMIC_TENSOR, x, NULL,
                            "%s's %s (tensor %d \"%s\") is computed at run time, so its output "
                            "shape is dynamic", x->name, what, t, lgc_tname(c, t));
        lgc_with_tensor(f, t);
    }
}

/* ------------------------------------------------------------------ options */

/* TFLite's parsers read options with builtin_options_as_<Kind>(), NULL for an absent table
   or one of another union type, and then keep a zeroed params struct
   (flatbuffer_conversions.h AllocatePOD: new T()). We use the schema's defaults instead,
   which differ from zero only where the schema names a default (conv dilation 1); no rule's
   verdict depends on that difference (dilation 1 passes, stride 0 fails either way). */
const void *lgc_opts(const lg_op *op, lg_opts_kind kind, void *buf, size_t size) {
    if (op->opts && op->opts_kind == kind) return op->opts;
    if (lg_opts_init(kind, buf, size) != LG_OK) memset(buf, 0, size);
    return buf;
}

const char *lgc_opts_note(const lg_op *op, lg_opts_kind kind, char *buf, size_t n) {
    const char *want = lg_opts_name(kind), *have = lg_opts_name(op->opts_kind);
    if (op->opts && op->opts_kind == kind) { if (n) buf[0] = 0; }
    else if (op->opts && have)
        snprintf(buf, n, " (the op carries %s, not %s: the schema's defaults)", have, want ? want : "?");
    else snprintf(buf, n, " (no %s stored: the schema's defaults)", want ? want : "options");
    return buf;
}

/* Do the stored shapes of a and b broadcast? The tree's one broadcast rule (lg_broadcast,
   numpy/TFLite; src/ops/infer.c); a tensor of unknown rank broadcasts with anything. */
int lgc_broadcastable(const lg_tensor *a, const lg_tensor *b) {
    lg_shape sa = lg_shape_of_tensor(a, false), sb = lg_shape_of_tensor(b, false), out;
    return lg_broadcast(&sa, &sb, &out, NULL) == LG_OK;
}
