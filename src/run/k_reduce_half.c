/* SUM and MEAN in LG_PREC_F16: the GPU delegate's reduce kernel, with half accumulators.
 *
 * The structure is the classic delegate's (tflite/delegates/gpu/common/tasks/reduce.cc,
 * Reduce::Reduce and Reduce::GetReduceKernelCode, for a Mali GPU):
 *   - the reduced axes, in the order CHANNELS, HEIGHT, WIDTH, BATCH (channels counted in slices
 *     of 4), size a work group (GetMaximumPossibleWGSize, at most 64 threads on Mali,
 *     GetMaximumWGTotalSize); below 64 / 4 = 16 threads one thread reduces alone;
 *   - each thread folds a strided share of the elements into its own accumulator; a channel
 *     reduction keeps 4 lanes (channel c in lane c % 4) and adds them at the very end,
 *     `reducer.x += reducer.y + reducer.z + reducer.w`;
 *   - MEAN scales each thread's sum by inv_multiplier_1 = 1 / (n / threads) before the
 *     work-group reduction, and by inv_multiplier_2 = 1 / threads after it
 *     (Reduce::BindArguments); one thread alone scales by 1 / n;
 *   - the work-group reduction adds the partial sums in local memory by fours while at least 8
 *     groups remain, then thread 0 adds the rest in order.
 * The accumulator type is not the classic generator's: its GetAccumType gives FLOAT32 for a
 * FLOAT16 tensor, so that kernel sums in fp32 even in F16 precision. The devices do not:
 * ML Drift's SUM "accumulates in fp16 ... a reduction whose running total exceeds 65504
 * overflows to Inf" (google-ai-edge/LiteRT#9249, Metal and iPhone), and on Mali ML Drift the
 * channel LayerNorm of NAFNet, RF-DETR and Parakeet and the spatial means of MODNet and
 * EfficientNet's squeeze-excite overflow exactly where a half sum passes 65504 (the seed's
 * field notes). So every addition and every scaling here is rounded to half.
 * Simplified: threads take the elements of the flattened reduction round-robin (by slice of 4
 * channels when the channels are reduced), not the kernel's per-axis strides; the partition
 * differs only in which elements share a partial sum. */
#include "run/k_reduce.h"

/* reduce.cc GetMaximumPossibleWGSize with max_total_wg_size 64 (Mali other than T6xx-T8xx),
   and the use_wg_reduction_ threshold 64 / 4. Returns the number of threads (1: no work-group
   reduction). sizes[] in the order CHANNELS (slices), HEIGHT, WIDTH, BATCH. */
static int64_t mali_wg_threads(const int64_t *sizes, int n) {
    const int64_t max_total = 64;
    int64_t wg[3] = {1, 1, 1}, total = 1, loop_red = 1;
    for (int i = n - 1; i >= 0; i--) {
        const int wi = n - 1 - i;
        if (wi >= 3) break;
        int64_t dim_red = 1;
        int done = 0;
        while (sizes[i] >= wg[wi] * 2 * dim_red) {
            if (loop_red < 4) { loop_red *= 2; dim_red *= 2; continue; }
            total *= 2;
            if (total > max_total) { done = 1; total /= 2; break; }
            wg[wi] *= 2;
        }
        if (done) break;
    }
    total = wg[0] * wg[1] * wg[2];
    return total < max_total / 4 ? 1 : total;
}

void lgk_red_half_plan(lgk_red_half *p, const int32_t *shape, uint32_t rank, const uint8_t *reduced, int mean) {
    memset(p, 0, sizeof *p);
    p->mean = mean;
    p->rank = rank;
    p->n = 1;
    for (uint32_t d = 0; d < rank; d++) {
        p->shape[d] = shape[d];
        p->reduced[d] = reduced[d];
        if (reduced[d]) p->n *= shape[d];
    }
    /* the delegate's BHWC view of the tensor (model_builder_helper.cc, ExtractTensorShape):
       rank 1 B, rank 2 BC, rank 3 BWC, rank 4 BHWC */
    int ax_c = -1, ax_h = -1, ax_w = -1, ax_b = 0;
    if (rank == 2) ax_c = 1;
    else if (rank == 3) { ax_w = 1; ax_c = 2; }
    else if (rank == 4) { ax_h = 1; ax_w = 2; ax_c = 3; }
    p->wg = 1;
    if (rank < 1 || rank > 4) return; /* no delegate kernel: one thread, in order */
    if (ax_c >= 0 && reduced[ax_c] && shape[ax_c] > 1) p->c = shape[ax_c];
    int64_t sizes[4];
    int k = 0;
    if (ax_c >= 0 && reduced[ax_c]) sizes[k++] = ((int64_t)shape[ax_c] + 3) / 4;
    if (ax_h >= 0 && reduced[ax_h]) sizes[k++] = shape[ax_h];
    if (ax_w >= 0 && reduced[ax_w]) sizes[k++] = shape[ax_w];
    if (reduced[ax_b]) sizes[k++] = shape[ax_b];
    p->wg = mali_wg_threads(sizes, k);
}

/* lane-wise fold of the work-group's partial sums, reduce.cc's local-memory loop */
static float wg_fold(float *a, int64_t wg) {
    int64_t offset = 1, remainder = wg / 4;
    for (; remainder >= 8; remainder /= 4, offset *= 4)
        for (int64_t t = 0; t < remainder; t++) {
            const int64_t i = t * offset * 4;
            float r = lg_round_half(a[i + offset] + a[i + offset * 2]);
            r = lg_round_half(r + a[i + offset * 3]);
            a[i] = lg_round_half(a[i] + r);
        }
    remainder *= 4;
    float r = a[0];
    for (int64_t i = 1; i < remainder; i++) r = lg_round_half(r + a[offset * i]);
    return r;
}

/* one output: x points at its first element, rel[] the offsets of its n elements */
static float red_half_one(const lgk_red_half *p, const float *x, const int64_t *rel) {
    float acc[4][LGK_RED_HALF_MAX_WG];
    const int64_t wg = p->wg, c = p->c, slices = (c + 3) / 4;
    const int lanes = c ? 4 : 1;
    for (int l = 0; l < lanes; l++)
        for (int64_t t = 0; t < wg; t++) acc[l][t] = 0.0f;
    for (int64_t i = 0; i < p->n; i++) {
        int64_t t = i % wg, l = 0;
        if (c) {
            const int64_t ch = i % c;
            t = ((i / c) * slices + ch / 4) % wg;
            l = ch % 4;
        }
        acc[l][t] = lg_round_half(acc[l][t] + x[rel[i]]);
    }
    float r[4];
    for (int l = 0; l < lanes; l++) {
        if (wg > 1) {
            if (p->mean) {
                const float inv1 = (float)(1.0 / ((double)p->n / (double)wg));
                for (int64_t t = 0; t < wg; t++) acc[l][t] = lg_round_half(acc[l][t] * inv1);
            }
            r[l] = wg_fold(acc[l], wg);
            if (p->mean) r[l] = lg_round_half(r[l] * (float)(1.0 / (double)wg));
        } else {
            r[l] = acc[l][0];
            if (p->mean) r[l] = lg_round_half(r[l] * (float)(1.0 / (double)p->n));
        }
    }
    if (lanes == 1) return r[0];
    return lg_round_half(r[0] + lg_round_half(lg_round_half(r[1] + r[2]) + r[3]));
}

void lgk_red_half_eval(const lgk_red_half *p, const float *x, float *y, int64_t *rel) {
    int64_t istr[LG_MAX_RANK], st = 1;
    for (int d = (int)p->rank - 1; d >= 0; d--) { istr[d] = st; st *= p->shape[d]; }
    if (st == 0) return; /* empty input: the caller handles it */
    /* offsets of the reduced elements, row-major over the reduced dims */
    int64_t idx[LG_MAX_RANK] = {0};
    for (int64_t i = 0; i < p->n; i++) {
        int64_t off = 0;
        for (uint32_t d = 0; d < p->rank; d++)
            if (p->reduced[d]) off += idx[d] * istr[d];
        rel[i] = off;
        for (int d = (int)p->rank - 1; d >= 0; d--) {
            if (!p->reduced[d]) continue;
            if (++idx[d] < p->shape[d]) break;
            idx[d] = 0;
        }
    }
    /* the outputs, row-major over the kept dims */
    int64_t outs = 1;
    for (uint32_t d = 0; d < p->rank; d++)
        if (!p->reduced[d]) outs *= p->shape[d];
    memset(idx, 0, sizeof idx);
    for (int64_t o = 0; o < outs; o++) {
        int64_t base = 0;
        for (uint32_t d = 0; d < p->rank; d++)
            if (!p->reduced[d]) base += idx[d] * istr[d];
        y[o] = red_half_one(p, x + base, rel);
        for (int d = (int)p->rank - 1; d >= 0; d--) {
            if (p->reduced[d]) continue;
            if (++idx[d] < p->shape[d]) break;
            idx[d] = 0;
        }
    }
}
