/* The reference interpreter's driver: create (kernel resolution, shape checking, constant
 * folding, memory planning), invoke (the run loop, with the fp16 storage emulation applied at
 * every tensor boundary), free and the tensor views. The kernels' helpers are in kernel.c, the
 * planner in memplan.c, lg_fill_f32 in fill.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/graph.h"
#include "lg/ops.h"
#include "run/fusion.h"
#include "run/k_quant.h"
#include "run/kernel.h"
#include "run/memplan.h"
#include "run/profile.h"
#include "run/simd.h"

struct lg_interp {
    const lg_model *m;
    const lg_subgraph *sg;
    lgk_ctx ctx;
    lg_run_options opt;
    lg_alloc_fn alloc;        /* the model's hook: everything below comes from it */
    void *alloc_ud;
    lgi_arena arena;          /* tensors' metadata, node arrays, kernel state, converted constants */
    lgk_tensor *t;            /* per tensor */
    lgk_node *nodes;          /* per op */
    uint8_t *act;             /* the activation arena */
    uint64_t act_bytes;
    size_t act_alloc;         /* bytes allocated for act (at least 64) */
    void *scratch;
    uint64_t scratch_bytes;
    lg_mem_plan plan;
    int32_t *peak_list;
    lgk_profile prof;         /* per-op counters (opt.profile; profile.c) */
    lg_graph *g;              /* the subgraph's index, during create only */
    int invoked;
};

const char *lg_precision_name(lg_precision p) {
    return p == LG_PREC_F16 ? "f16" : p == LG_PREC_F32_F16 ? "f32_f16" : "f32";
}

const char *lg_int_arith_name(lg_int_arith a) { return a == LG_INT_XNNPACK ? "xnnpack" : "tflite"; }

int lg_int_arith_from_name(const char *s) {
    if (strcmp(s, "tflite") == 0) return LG_INT_TFLITE;
    if (strcmp(s, "xnnpack") == 0) return LG_INT_XNNPACK;
    return -1;
}

int lg_precision_from_name(const char *s) {
    if (strcmp(s, "f32") == 0 || strcmp(s, "fp32") == 0) return LG_PREC_F32;
    if (strcmp(s, "f16") == 0 || strcmp(s, "fp16") == 0) return LG_PREC_F16;
    if (strcmp(s, "f32_f16") == 0) return LG_PREC_F32_F16;
    return -1;
}

/* ------------------------------------------------------------------ memory planning */

/* Lifetimes and offsets (memplan.c), then the activation arena and the plan's report. */
static lg_status plan_memory(lg_interp *it, lg_error *err) {
    const lg_subgraph *sg = it->sg;
    uint32_t nt = sg->n_tensors;
    size_t cnt = nt ? nt : 1;
    lg_alloc_fn alloc = it->alloc;
    void *ud = it->alloc_ud;
    size_t tmp_bytes = cnt * (2 * sizeof(int32_t) + 2 * sizeof(uint64_t) + 1);
    uint8_t *tmp = alloc(ud, NULL, 0, tmp_bytes);
    if (!tmp) return lgi_fail(err, LG_ERR_NOMEM, "out of memory planning");
    uint64_t *size = (uint64_t *)tmp, *offset = size + cnt;
    int32_t *first = (int32_t *)(offset + cnt), *last = first + cnt;
    uint8_t *skip = (uint8_t *)(last + cnt);
    for (uint32_t i = 0; i < nt; i++) {
        size[i] = it->t[i].nbytes;
        skip[i] = it->t[i].is_const;
    }
    lgk_mp_lifetimes(sg, it->g, skip, it->opt.keep_all, first, last);
    lgk_mp_result r;
    lg_status st = LG_OK;
    it->peak_list = lgi_arena_alloc(&it->arena, cnt * sizeof(int32_t));
    if (!it->peak_list) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory planning"); goto out; }
    st = lgk_mp_plan(nt, sg->n_ops, size, first, last, alloc, ud, offset, it->peak_list, &r, err);
    if (st != LG_OK) goto out;
    uint64_t arena = r.arena_bytes;
    it->act = arena <= SIZE_MAX ? alloc(ud, NULL, 0, arena ? (size_t)arena : 64) : NULL;
    if (!it->act) {
        st = lgi_fail(err, LG_ERR_NOMEM, "out of memory: activations need %llu bytes", (unsigned long long)arena);
        goto out;
    }
    it->act_alloc = arena ? (size_t)arena : 64;
    memset(it->act, 0, it->act_alloc);
    it->act_bytes = arena;
    for (uint32_t i = 0; i < nt; i++)
        if (first[i] != LGK_MP_NONE) it->t[i].data = it->act + offset[i];
    it->plan.arena_bytes = arena;
    it->plan.peak_live_bytes = r.peak_live_bytes;
    it->plan.peak_op = r.peak_op;
    it->plan.peak_tensors = it->peak_list;
    it->plan.n_peak_tensors = r.n_peak;
    if (sg->n_ops) {
        uint64_t *live = lgi_arena_alloc(&it->arena, sg->n_ops * sizeof(uint64_t));
        if (!live) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory planning"); goto out; }
        lgk_mp_live(nt, sg->n_ops, size, first, last, live);
        it->plan.live_bytes = live;
    }
out:
    alloc(ud, tmp, tmp_bytes, 0);
    return st;
}

/* ------------------------------------------------------------------ create */

/* Round a float buffer to half in place: the vectorized routine of simd.c (F16C where the CPU
   has it), bit-identical to lg_round_half on all 2^32 floats. */
static void round_half_buf(float *p, int64_t n) { lgk_simd_round_half(p, n, 0); }

static lg_status setup_tensor(lg_interp *it, uint32_t i, lg_error *err) {
    const lg_tensor *ir = &it->sg->tensors[i];
    lgk_tensor *x = &it->t[i];
    x->index = (int32_t)i;
    x->in_registers = false;
    x->ir = ir;
    x->type = lgk_storage_type(ir->type);
    if (ir->rank > LG_MAX_RANK)
        return lgi_fail(err, LG_ERR_UNSUPPORTED, "tensor %u \"%s\" has rank %u (max %d)", i,
                        ir->name ? ir->name : "", ir->rank, LG_MAX_RANK);
    x->rank = ir->rank;
    int64_t numel = 1;
    for (uint32_t d = 0; d < ir->rank; d++) {
        x->shape[d] = ir->shape[d];
        if (ir->shape[d] < 0)
            return lgi_fail(err, LG_ERR_UNSUPPORTED, "tensor %u \"%s\" has an unknown dimension (%d): litegpu runs static shapes",
                            i, ir->name ? ir->name : "", ir->shape[d]);
        if (ir->shape[d] && numel > (INT64_MAX / 16) / ir->shape[d])
            return lgi_fail(err, LG_ERR_LIMIT, "tensor %u \"%s\" is too large", i, ir->name ? ir->name : "");
        numel *= ir->shape[d];
    }
    x->numel = numel;
    uint32_t es = lgk_elem_size(x->type);
    x->nbytes = (uint64_t)numel * es;
    /* a constant is a tensor whose buffer has a data vector, even an empty one */
    const lg_buffer *b = ir->buffer && ir->buffer < it->m->n_buffers && it->m->buffers[ir->buffer].data
                             ? &it->m->buffers[ir->buffer] : NULL;
    if (!b) return LG_OK;
    x->is_const = true;
    if (b->size == 0 && numel == 0) { x->data = (void *)b->data; x->nbytes = 0; return LG_OK; }
    if (ir->sparsity) { x->data = (void *)b->data; x->nbytes = b->size; return LG_OK; }
    int fileT = ir->type;
    uint64_t want = (uint64_t)numel * (uint64_t)lgk_elem_size((lg_dtype)fileT);
    if (!lgk_elem_size((lg_dtype)fileT)) {
        x->data = (void *)b->data; /* an odd type only its own kernel reads */
        x->nbytes = b->size;
        return LG_OK;
    }
    if (b->size != want)
        return lgi_fail(err, LG_ERR_FORMAT, "tensor %u \"%s\": constant data is %llu bytes, its shape needs %llu",
                        i, ir->name ? ir->name : "", (unsigned long long)b->size, (unsigned long long)want);
    int half = it->ctx.prec != LG_PREC_F32;
    if (fileT == LG_FLOAT32 && !half) {
        x->data = (void *)b->data; /* zero copy */
        it->plan.const_bytes += b->size;
    } else if (fileT == LG_FLOAT32 || fileT == LG_FLOAT16 || fileT == LG_FLOAT64 || fileT == LG_BFLOAT16) {
        float *f = lgi_arena_alloc(&it->arena, (size_t)(numel ? numel : 1) * 4);
        if (!f) return lgi_fail(err, LG_ERR_NOMEM, "out of memory converting tensor %u", i);
        if (fileT == LG_FLOAT16) {
            for (int64_t k = 0; k < numel; k++) f[k] = lg_half_to_float(lgi_rd_u16(b->data + 2 * k));
        } else if (fileT == LG_BFLOAT16) {
            for (int64_t k = 0; k < numel; k++) {
                uint32_t u = (uint32_t)lgi_rd_u16(b->data + 2 * k) << 16;
                memcpy(&f[k], &u, 4);
            }
        } else if (fileT == LG_FLOAT64) {
            for (int64_t k = 0; k < numel; k++) {
                uint64_t u = lgi_rd_u64(b->data + 8 * k);
                double d;
                memcpy(&d, &u, 8);
                f[k] = (float)d;
            }
        } else {
            memcpy(f, b->data, (size_t)numel * 4);
        }
        if (half && fileT != LG_FLOAT16) round_half_buf(f, numel);
        x->data = f;
        it->plan.const_bytes += b->size;
        it->plan.converted_bytes += (uint64_t)numel * 4;
    } else {
        x->data = (void *)b->data;
        it->plan.const_bytes += b->size;
    }
    return LG_OK;
}

static void shape_text(const int32_t *d, uint32_t rank, char *buf, size_t size) {
    lg_shape s;
    s.rank = (int32_t)rank;
    for (uint32_t k = 0; k < rank && k < LG_MAX_RANK; k++) s.dim[k] = d[k];
    lg_shape_str(&s, buf, size);
}

/* The shapes a kernel's prepare computed must be the op table's inference (src/ops) from the
   same input shapes (a disagreement is a bug in one of the two: LG_ERR_INTERNAL), and the
   shapes the model declares (checked by validation too; kept here for ops the table cannot
   infer). */
static lg_status check_prepared_shapes(lg_interp *it, lgk_node *n, lg_error *err) {
    lg_shape ins_stack[16], outs_stack[16];
    int8_t types_stack[16];
    lg_shape *ins = ins_stack, *outs = outs_stack;
    int8_t *types = types_stack;
    if (n->n_in > 16 || n->n_out > 16) {
        ins = lgi_arena_alloc(&it->arena, (n->n_in + 1) * sizeof *ins);
        outs = lgi_arena_alloc(&it->arena, (n->n_out + 1) * sizeof *outs);
        types = lgi_arena_alloc(&it->arena, n->n_out + 1);
        if (!ins || !outs || !types) return lgi_fail(err, LG_ERR_NOMEM, "out of memory checking shapes");
    }
    for (uint32_t k = 0; k < n->n_in; k++) {
        const lgk_tensor *x = n->in[k];
        ins[k].rank = x ? (int32_t)x->rank : -1;
        for (uint32_t d = 0; x && d < x->rank; d++) ins[k].dim[d] = x->shape[d];
    }
    lg_error e2;
    if (lg_op_infer(it->m, it->opt.subgraph, (uint32_t)n->index, ins, LG_INFER_STATIC, outs, types,
                    n->n_out, &e2) != LG_OK)
        return lgk_fail(n, LG_ERR_FORMAT, err, "%.400s", e2.msg);
    for (uint32_t o = 0; o < n->n_out; o++) {
        const lgk_tensor *x = n->out[o];
        char a[96], b[96];
        lg_shape got;
        got.rank = (int32_t)x->rank;
        for (uint32_t d = 0; d < x->rank; d++) got.dim[d] = x->shape[d];
        if (!lg_shape_compatible(&outs[o], &got)) {
            shape_text(x->shape, x->rank, a, sizeof a);
            lg_shape_str(&outs[o], b, sizeof b);
            return lgk_fail(n, LG_ERR_INTERNAL, err, "the kernel computes %s for output %u but the op "
                            "table infers %s (a litegpu bug)", a, o, b);
        }
        const lg_tensor *ir = x->ir;
        int declared_static = ir->n_shape_signature == 0;
        for (uint32_t d = 0; d < ir->n_shape_signature; d++) declared_static &= ir->shape_signature[d] >= 0;
        int same = ir->rank == x->rank;
        for (uint32_t d = 0; same && d < ir->rank; d++) same = ir->shape[d] == x->shape[d];
        if (!same && declared_static && ir->rank > 0) {
            shape_text(x->shape, x->rank, a, sizeof a);
            shape_text(ir->shape, ir->rank, b, sizeof b);
            return lgk_fail(n, LG_ERR_FORMAT, err, "computed output shape %s but the model declares %s for tensor %d",
                            a, b, x->index);
        }
    }
    return LG_OK;
}

/* Tensor t exists before op i runs: a graph input, a variable, or an earlier op's output. */
static int available_before(const lg_interp *it, int32_t t, uint32_t i) {
    int32_t p = lg_graph_producer(it->g, t);
    return lg_graph_is_input(it->g, t) || it->sg->tensors[t].is_variable || (p >= 0 && p < (int32_t)i);
}

lg_status lg_interp_create(const lg_model *m, const lg_run_options *opt, lg_interp **out, lg_error *err) {
    lgi_error_clear(err);
    if (!m || !out) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_interp_create: NULL argument");
    *out = NULL;
    LG_TRY(lg_model_validate(m, err));
    /* a model the op table refuses (options kind, arity, a stored shape inference
       contradicts) is malformed, as the readers say of such a file */
    if (lg_model_validate_ops(m, err) != LG_OK) {
        if (err) err->status = LG_ERR_FORMAT;
        return LG_ERR_FORMAT;
    }
    lg_run_options o;
    memset(&o, 0, sizeof o);
    if (opt) o = *opt;
    if (o.subgraph >= m->n_subgraphs) return lgi_fail(err, LG_ERR_INVALID_ARG, "no subgraph %u", o.subgraph);
    if ((unsigned)o.precision > LG_PREC_F32_F16) return lgi_fail(err, LG_ERR_INVALID_ARG, "bad precision");
    if ((unsigned)o.int_arith > LG_INT_XNNPACK)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "bad integer arithmetic %d", (int)o.int_arith);
    void *ud;
    lg_alloc_fn alloc = lgi_model_allocator(m, &ud);
    lg_interp *it = alloc(ud, NULL, 0, sizeof *it);
    if (!it) return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    memset(it, 0, sizeof *it);
    it->alloc = alloc;
    it->alloc_ud = ud;
    it->m = m;
    it->sg = &m->subgraphs[o.subgraph];
    it->opt = o;
    it->ctx.prec = o.precision;
    it->ctx.int_arith = o.int_arith;
    it->ctx.threads = o.threads > 0 ? o.threads : 1;
    it->ctx.pool = lgk_pool_new(it->ctx.threads);
    lgi_arena_init(&it->arena, alloc, ud, 0);
    const lg_subgraph *sg = it->sg;
    lg_status st = LG_OK;
    it->t = lgi_arena_alloc(&it->arena, (sg->n_tensors ? sg->n_tensors : 1) * sizeof(lgk_tensor));
    it->nodes = lgi_arena_alloc(&it->arena, (sg->n_ops ? sg->n_ops : 1) * sizeof(lgk_node));
    if (!it->t || !it->nodes) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory"); goto fail; }
    for (uint32_t i = 0; i < sg->n_tensors; i++)
        if ((st = setup_tensor(it, i, err)) != LG_OK) goto fail;
    if ((st = lg_graph_build(m, o.subgraph, &it->g, err)) != LG_OK) goto fail;
    if (o.profile && (st = lgk_profile_init(&it->prof, &it->arena, sg->n_ops, err)) != LG_OK) goto fail;

    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        lgk_node *n = &it->nodes[i];
        n->m = m;
        n->op = op;
        n->index = (int32_t)i;
        n->code = lg_op_builtin(m, op);
        n->name = lg_op_name(m, op);
        n->opts = op->opts;
        n->ctx = &it->ctx;
        n->arena = &it->arena;
        n->n_in = op->n_inputs;
        n->n_out = op->n_outputs;
        n->in = lgi_arena_alloc(&it->arena, (n->n_in ? n->n_in : 1) * sizeof(lgk_tensor *));
        n->out = lgi_arena_alloc(&it->arena, (n->n_out ? n->n_out : 1) * sizeof(lgk_tensor *));
        if (!n->in || !n->out) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory"); goto fail; }
        for (uint32_t k = 0; k < n->n_in; k++) n->in[k] = op->inputs[k] >= 0 ? &it->t[op->inputs[k]] : NULL;
        for (uint32_t k = 0; k < n->n_in; k++) {
            if (!n->in[k] || n->in[k]->is_const || available_before(it, op->inputs[k], i)) continue;
            st = lgi_fail_at(err, LG_ERR_FORMAT, LGI_KEEP, (int32_t)i, LGI_KEEP,
                             "op %u (%s): input %u reads tensor %d \"%s\", which no op produces and "
                             "which is neither a graph input nor a constant", i, lg_op_name(m, op), k,
                             op->inputs[k], sg->tensors[op->inputs[k]].name ? sg->tensors[op->inputs[k]].name : "");
            goto fail;
        }
        for (uint32_t k = 0; k < n->n_out; k++) n->out[k] = &it->t[op->outputs[k]];
        const char *custom = n->code == LG_OP_CUSTOM ? m->opcodes[op->opcode_index].custom_code : NULL;
        /* an op on quantized tensors runs the integer kernels (k_quant.h) */
        const lgk_kernel *k = lgk_quant_find(n);
        if (!k) k = lgk_find(n->code, custom);
        if (!k) {
            st = lgk_fail(n, LG_ERR_UNSUPPORTED, err, "litegpu has no reference kernel for %s%s", n->name,
                          n->code == LG_OP_CUSTOM ? " (custom op)" : "");
            goto fail;
        }
        n->kernel = k;
        if (k->prepare && (st = k->prepare(n, err)) != LG_OK) goto fail;
        if ((st = check_prepared_shapes(it, n, err)) != LG_OK) goto fail;
#ifdef LG_CHECK_HALF_CLAIMS
        /* tests/e2e/test_f16_claims.sh: pretend every op claims halves, so the check fires */
        if (getenv("LG_TEST_CLAIM_ALL")) n->out_half = it->ctx.prec == LG_PREC_F16;
#endif
        if (n->scratch_bytes > it->scratch_bytes) it->scratch_bytes = n->scratch_bytes;
        /* An op whose inputs are all constant (DEQUANTIZE of fp16 weights, DENSIFY, shape
           arithmetic) is computed once here and its outputs become constants, as TFLite's
           delegates fold them; later ops then see constant weights at prepare time. */
        int all_const = n->n_in > 0;
        for (uint32_t q = 0; q < n->n_in; q++)
            if (n->in[q] && !n->in[q]->is_const) all_const = 0;
        for (uint32_t q = 0; q < n->n_out; q++)
            if (n->out[q]->ir->is_variable) all_const = 0;
        if (all_const) {
            if (n->scratch_bytes) {
                n->scratch = lgi_arena_alloc(&it->arena, (size_t)n->scratch_bytes);
                if (!n->scratch) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory"); goto fail; }
            }
            for (uint32_t q = 0; q < n->n_out; q++) {
                lgk_tensor *fo = n->out[q];
                fo->data = lgi_arena_alloc(&it->arena, (size_t)(fo->nbytes ? fo->nbytes : 1));
                if (!fo->data) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory folding op %u", i); goto fail; }
            }
            if ((st = k->eval(n, err)) != LG_OK) goto fail;
            for (uint32_t q = 0; q < n->n_out; q++) {
                lgk_tensor *fo = n->out[q];
                if (fo->type == LG_FLOAT32 && (it->ctx.prec != LG_PREC_F32 || fo->ir->type == LG_FLOAT16))
                    round_half_buf(fo->data, fo->numel);
                fo->is_const = true;
                it->plan.converted_bytes += fo->nbytes;
            }
            n->folded = 1;
        }
    }
    /* every graph output must be computed: produced by an op, or an input, a constant or a
       variable (a malformed file can name any tensor; its view would have no data) */
    for (uint32_t k = 0; k < sg->n_outputs; k++) {
        int32_t t = sg->outputs[k];
        if (it->t[t].is_const || available_before(it, t, sg->n_ops)) continue;
        st = lgi_fail(err, LG_ERR_FORMAT, "output %u is tensor %d \"%s\", which no op produces and which is "
                      "neither a graph input nor a constant", k, t, lgi_printable(sg->tensors[t].name).s);
        goto fail;
    }
    if (it->ctx.prec == LG_PREC_F32_F16) {
        int32_t *head = lgi_arena_alloc(&it->arena, (sg->n_ops ? sg->n_ops : 1) * sizeof(int32_t));
        if (!head) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory"); goto fail; }
        lgk_fusion_plan(it->g, it->nodes, sg->n_ops, head);
    }
    if ((st = plan_memory(it, err)) != LG_OK) goto fail;
    if (it->scratch_bytes) {
        it->scratch = it->scratch_bytes <= SIZE_MAX ? alloc(ud, NULL, 0, (size_t)it->scratch_bytes) : NULL;
        if (!it->scratch) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory for scratch"); goto fail; }
    }
    for (uint32_t i = 0; i < sg->n_ops; i++)
        if (!it->nodes[i].folded) it->nodes[i].scratch = it->scratch;
    lg_graph_free(it->g);
    it->g = NULL;
    *out = it;
    return LG_OK;
fail:
    lg_interp_free(it);
    return st;
}

void lg_interp_free(lg_interp *it) {
    if (!it) return;
    lg_graph_free(it->g);
    lgk_pool_free(it->ctx.pool);
    lgi_arena_free(&it->arena);
    if (it->act) it->alloc(it->alloc_ud, it->act, it->act_alloc, 0);
    if (it->scratch) it->alloc(it->alloc_ud, it->scratch, (size_t)it->scratch_bytes, 0);
    it->alloc(it->alloc_ud, it, sizeof *it, 0);
}

uint32_t lg_interp_n_inputs(const lg_interp *it) { return it->sg->n_inputs; }
uint32_t lg_interp_n_outputs(const lg_interp *it) { return it->sg->n_outputs; }

static void view_of(const lg_interp *it, const lgk_tensor *x, lg_tensor_view *v) {
    memset(v, 0, sizeof *v);
    v->index = x->index;
    v->name = x->ir->name;
    v->type = x->type;
    v->rank = x->rank;
    memcpy(v->shape, x->shape, sizeof v->shape);
    v->numel = x->numel;
    v->data = it->invoked || x->is_const ? x->data : NULL;
    v->nbytes = x->nbytes;
}

lg_status lg_interp_input(const lg_interp *it, uint32_t i, lg_tensor_view *v) {
    if (i >= it->sg->n_inputs) return LG_ERR_INVALID_ARG;
    view_of(it, &it->t[it->sg->inputs[i]], v);
    return LG_OK;
}

lg_status lg_interp_output(const lg_interp *it, uint32_t i, lg_tensor_view *v) {
    if (i >= it->sg->n_outputs) return LG_ERR_INVALID_ARG;
    view_of(it, &it->t[it->sg->outputs[i]], v);
    return LG_OK;
}

lg_status lg_interp_tensor(const lg_interp *it, int32_t t, lg_tensor_view *v) {
    if (t < 0 || (uint32_t)t >= it->sg->n_tensors) return LG_ERR_INVALID_ARG;
    view_of(it, &it->t[t], v);
    return LG_OK;
}

const lg_mem_plan *lg_interp_mem_plan(const lg_interp *it) { return &it->plan; }
const lg_profile *lg_interp_profile(const lg_interp *it) { return it->prof.on ? &it->prof.pub : NULL; }
void lg_interp_profile_reset(lg_interp *it) { lgk_profile_reset(&it->prof); }

lg_status lg_interp_set_input(lg_interp *it, uint32_t i, lg_dtype type, const void *data, uint64_t nbytes,
                              lg_error *err) {
    lgi_error_clear(err);
    if (i >= it->sg->n_inputs) return lgi_fail(err, LG_ERR_INVALID_ARG, "input %u of %u", i, it->sg->n_inputs);
    lgk_tensor *x = &it->t[it->sg->inputs[i]];
    if (type != x->type)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "input %u \"%s\" takes %s data, not %s", i, x->ir->name ? x->ir->name : "",
                        lg_dtype_name(x->type), lg_dtype_name(type));
    if (nbytes != x->nbytes)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "input %u \"%s\" takes %llu bytes, not %llu", i,
                        x->ir->name ? x->ir->name : "", (unsigned long long)x->nbytes, (unsigned long long)nbytes);
    if (x->is_const) return lgi_fail(err, LG_ERR_INVALID_ARG, "input %u is a constant", i);
    memcpy(x->data, data, (size_t)nbytes);
    if (x->type == LG_FLOAT32 && (it->ctx.prec != LG_PREC_F32 || x->ir->type == LG_FLOAT16)) round_half_buf(x->data, x->numel);
    return LG_OK;
}

lg_status lg_interp_invoke(lg_interp *it, lg_error *err) {
    lgi_error_clear(err);
    const lg_subgraph *sg = it->sg;
    lg_tensor_view views[16];
    lgk_profile *prof = it->prof.on ? &it->prof : NULL; /* profile.c: one clock per op boundary */
    uint64_t t_prev = prof ? lgk_profile_now() : 0;
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        lgk_node *n = &it->nodes[i];
        if (!n->folded) {
            lg_status st = n->kernel->eval(n, err);
            if (st != LG_OK) return st;
        }
        if (!n->folded)
            for (uint32_t o = 0; o < n->n_out; o++)
                if (n->out[o]->type == LG_FLOAT32 && !n->out[o]->in_registers &&
                    (it->ctx.prec != LG_PREC_F32 || n->out[o]->ir->type == LG_FLOAT16)) {
                    if (n->out_half) {
#ifdef LG_CHECK_HALF_CLAIMS
                        const float *d = n->out[o]->data;
                        for (int64_t q = 0; q < n->out[o]->numel; q++)
                            if (memcmp(&d[q], &(float){lg_round_half(d[q])}, 4) != 0)
                                return lgk_fail(n, LG_ERR_INTERNAL, err, "output %u value %lld (%g) is not a half",
                                                o, (long long)q, (double)d[q]);
#endif
                        continue; /* the kernel stored halves (lgk_claim_half) */
                    }
                    round_half_buf(n->out[o]->data, n->out[o]->numel);
                }
        if (prof && !n->folded) lgk_profile_op(prof, i, &t_prev);
        if (it->opt.tap) {
            it->invoked = 1;
            uint32_t nv = n->n_out < 16 ? n->n_out : 16;
            for (uint32_t o = 0; o < nv; o++) view_of(it, n->out[o], &views[o]);
            if (it->opt.tap(it->opt.tap_ud, (int32_t)i, views, nv))
                return lgk_fail(n, LG_ERR_INVALID_ARG, err, "stopped by the tap");
            if (prof) t_prev = lgk_profile_now(); /* the tap is not the op's time */
        }
    }
    if (prof) lgk_profile_done(prof);
    it->invoked = 1;
    return LG_OK;
}
