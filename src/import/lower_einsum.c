/* Einsum with two operands in the batched matmul family (bij,bjk->bik, bhqd,bhkd->bhqk,
 * ij,jk->ik, i,i->, ...): every letter is a batch letter (in both operands and the output),
 * a contracted one (in both, not in the output), or a free one of one operand (and the
 * output). A -> TRANSPOSE to [batch, free A, contracted] -> RESHAPE [Bt, M, K]; B -> [batch,
 * contracted, free B] -> [Bt, K, N]; BATCH_MATMUL -> [Bt, M, N] -> RESHAPE [batch, free A,
 * free B] -> TRANSPOSE to the output's order. The ONNX rules (onnx/docs/Operators.md#Einsum):
 * without "->" the output is the letters appearing once, in alphabetical order. Refused
 * cleanly: one or more than two operands, "...", a letter repeated in an operand (a
 * diagonal) or the output, a letter of one operand summed away, dims that differ (no
 * broadcasting here), dynamic dims. */
#include <stdlib.h>

#include "import/import_impl.h"

#define EI_N 52

static int letter(char ch) {
    if (ch >= 'a' && ch <= 'z') return ch - 'a';
    if (ch >= 'A' && ch <= 'Z') return 26 + ch - 'A';
    return -1;
}

/* one term's letters (spaces skipped): count, or -1 when not letters only or repeated */
static int term(const char *s, size_t n, int *out, bool *repeated) {
    int k = 0;
    bool seen[EI_N] = {0};
    for (size_t i = 0; i < n; i++) {
        if (s[i] == ' ') continue;
        int l = letter(s[i]);
        if (l < 0 || k >= LG_MAX_RANK) return -1;
        if (seen[l]) *repeated = true;
        seen[l] = true;
        out[k++] = l;
    }
    return k;
}

static int find(const int *t, int n, int l) {
    for (int i = 0; i < n; i++)
        if (t[i] == l) return i;
    return -1;
}

static lg_status lower_einsum(li_ctx *c) {
    const lg_onnx_attr *ea = li_attr(c->node, "equation");
    if (!ea) return li_bad(c, LG_ERR_FORMAT, "no equation attribute");
    const char *eq = ea->s.s ? ea->s.s : "";
    size_t len = ea->s.n;
    if (c->node->n_inputs != 2) return li_unsupported(c, "Einsum of %u operands (2 only)", c->node->n_inputs);
    const li_val *a = li_need(c, 0), *b = li_need(c, 1);
    LI_TRY(c);
    if (li_type(c, a->t) != LG_FLOAT32 || li_type(c, b->t) != LG_FLOAT32) return li_unsupported(c, "non-float operands");
    size_t comma = len, arrow = len;
    for (size_t i = 0; i < len; i++) {
        if (eq[i] == ',' && comma == len) comma = i;
        else if (eq[i] == '-' && i + 1 < len && eq[i + 1] == '>') arrow = i;
        else if (eq[i] == '.') return li_unsupported(c, "equation \"%.*s\": ellipsis", (int)len, eq);
    }
    if (comma == len || comma > arrow) return li_bad(c, LG_ERR_FORMAT, "equation \"%.*s\" for 2 operands", (int)len, eq);
    int ta[LG_MAX_RANK], tb[LG_MAX_RANK], to[LG_MAX_RANK];
    bool rep = false;
    int na = term(eq, comma, ta, &rep), nb = term(eq + comma + 1, arrow - comma - 1, tb, &rep), no = 0;
    if (na < 0 || nb < 0) return li_unsupported(c, "equation \"%.*s\"", (int)len, eq);
    if (arrow < len) {
        no = term(eq + arrow + 2, len - arrow - 2, to, &rep);
        if (no < 0) return li_unsupported(c, "equation \"%.*s\"", (int)len, eq);
    } else {
        for (int l = 0; l < EI_N; l++)
            if ((find(ta, na, l) >= 0) + (find(tb, nb, l) >= 0) == 1) {
                if (no >= LG_MAX_RANK) return li_unsupported(c, "output rank");
                to[no++] = l;
            }
    }
    if (rep) return li_unsupported(c, "equation \"%.*s\": a letter repeated in a term", (int)len, eq);
    if (na != li_rank(c, a->t) || nb != li_rank(c, b->t))
        return li_bad(c, LG_ERR_FORMAT, "equation \"%.*s\" for operands of rank %d, %d", (int)len, eq, li_rank(c, a->t), li_rank(c, b->t));
    /* classify; dims */
    int bat[LG_MAX_RANK], fa[LG_MAX_RANK], fb[LG_MAX_RANK], con[LG_MAX_RANK], nbat = 0, nfa = 0, nfb = 0, ncon = 0;
    int64_t dim[EI_N];
    for (int i = 0; i < na; i++) dim[ta[i]] = li_dim(c, a->t, i);
    for (int i = 0; i < nb; i++) {
        int64_t d = li_dim(c, b->t, i);
        if (find(ta, na, tb[i]) >= 0 && dim[tb[i]] != d)
            return li_unsupported(c, "letter %c: dims %lld and %lld (no broadcasting)", eq[comma + 1 + (size_t)i], (long long)dim[tb[i]], (long long)d);
        dim[tb[i]] = d;
    }
    for (int i = 0; i < no; i++)
        if (find(ta, na, to[i]) < 0 && find(tb, nb, to[i]) < 0) return li_bad(c, LG_ERR_FORMAT, "an output letter in no operand");
    for (int i = 0; i < na; i++) {
        int l = ta[i];
        bool inb = find(tb, nb, l) >= 0, ino = find(to, no, l) >= 0;
        if (dim[l] < 0) return li_unsupported(c, "dynamic dims");
        if (inb && ino) bat[nbat++] = l;
        else if (inb) con[ncon++] = l;
        else if (ino) fa[nfa++] = l;
        else return li_unsupported(c, "equation \"%.*s\": a letter summed away in one operand", (int)len, eq);
    }
    for (int i = 0; i < nb; i++) {
        int l = tb[i];
        if (dim[l] < 0) return li_unsupported(c, "dynamic dims");
        if (find(ta, na, l) >= 0) continue;
        if (find(to, no, l) < 0) return li_unsupported(c, "equation \"%.*s\": a letter summed away in one operand", (int)len, eq);
        fb[nfb++] = l;
    }
    int64_t bt = 1, m = 1, k = 1, n = 1;
    for (int i = 0; i < nbat; i++) bt *= dim[bat[i]];
    for (int i = 0; i < nfa; i++) m *= dim[fa[i]];
    for (int i = 0; i < nfb; i++) n *= dim[fb[i]];
    for (int i = 0; i < ncon; i++) k *= dim[con[i]];
    /* A -> [batch, free A, contracted] */
    int pa[LG_MAX_RANK], pb[LG_MAX_RANK], po[LG_MAX_RANK], q = 0;
    for (int i = 0; i < nbat; i++) pa[q++] = find(ta, na, bat[i]);
    for (int i = 0; i < nfa; i++) pa[q++] = find(ta, na, fa[i]);
    for (int i = 0; i < ncon; i++) pa[q++] = find(ta, na, con[i]);
    q = 0;
    for (int i = 0; i < nbat; i++) pb[q++] = find(tb, nb, bat[i]);
    for (int i = 0; i < ncon; i++) pb[q++] = find(tb, nb, con[i]);
    for (int i = 0; i < nfb; i++) pb[q++] = find(tb, nb, fb[i]);
    int32_t xa = li_reshape(c, li_transpose(c, a->t, pa, na), (const int64_t[]){bt, m, k}, 3);
    int32_t xb = li_reshape(c, li_transpose(c, b->t, pb, nb), (const int64_t[]){bt, k, n}, 3);
    lg_batch_mat_mul_options o = {0};
    int32_t y = LI_OP(c, LG_OP_BATCH_MATMUL, &o, -1, xa, xb);
    /* [Bt, M, N] -> [batch, free A, free B] -> the output order */
    int mid[LG_MAX_RANK];
    int64_t md[LG_MAX_RANK];
    q = 0;
    for (int i = 0; i < nbat; i++) mid[q++] = bat[i];
    for (int i = 0; i < nfa; i++) mid[q++] = fa[i];
    for (int i = 0; i < nfb; i++) mid[q++] = fb[i];
    if (q != no) return li_bad(c, LG_ERR_FORMAT, "equation \"%.*s\": output letters", (int)len, eq);
    for (int i = 0; i < q; i++) md[i] = dim[mid[i]];
    y = li_reshape(c, y, md, (uint32_t)q);
    for (int i = 0; i < no; i++) po[i] = find(mid, q, to[i]);
    y = li_transpose(c, y, po, no);
    return li_out(c, 0, y, a->onnx_type);
}

const li_op_entry li_ops_einsum[] = {
    {"Einsum", 12, 99, lower_einsum},
    {NULL, 0, 0, NULL},
};
