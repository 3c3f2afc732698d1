/* Internal pieces of litegpu tile (lg/tile.h): axis labels, the per-op index maps, the
   demand (interval) propagation shared by the analysis and the tiled verification. */
#ifndef LG_REFACTOR_TILE_IMPL_H
#define LG_REFACTOR_TILE_IMPL_H

#include "internal.h"
#include "lg/ops.h"
#include "lg/tile.h"

/* An axis label is a bit set of model-input axes: bit (input*LG_MAX_RANK + axis). A RESHAPE
   that merges axes gives the merged axis the union; a "pure" axis carries one bit. */
typedef uint32_t tile_mask;
#define TILE_MAX_INPUTS 3
#define TILE_BIT(input, axis) ((tile_mask)1u << ((input) * LG_MAX_RANK + (axis)))
#define TILE_SPLIT ((tile_mask)1u << 31) /* a piece of a split axis: never pure */

typedef struct tile_ctx {
    const lg_model *m;
    const lg_subgraph *sg;
    uint32_t n_tensors;
    tile_mask (*label)[LG_MAX_RANK]; /* per tensor, per axis */
    int32_t *merge_src;              /* tensor before a merging RESHAPE, or -1 */
    tile_mask spatial;               /* the spatial input axes */
    int32_t *producer;               /* op producing each tensor, or -1 */
} tile_ctx;

lg_status tile_ctx_init(tile_ctx *c, const lg_model *m, lg_error *err);
void tile_ctx_free(tile_ctx *c);

bool tile_is_const(const tile_ctx *c, int32_t t);
int32_t tile_dim(const tile_ctx *c, int32_t t, int32_t axis);
/* The axis of tensor t carrying exactly bit b with a size > 1, or -1. */
int32_t tile_axis_of(const tile_ctx *c, int32_t t, tile_mask b);
bool tile_const_ints(const tile_ctx *c, int32_t t, int64_t *v, uint32_t max, uint32_t *n);

/* A kernel along one axis: out o reads in [o*s - pad_before, o*s - pad_before + (k-1)*d]. */
typedef struct tile_kernel {
    int32_t k, s, d, pad_before, pad_after;
    bool same;       /* SAME padding (zeros, or ignored positions for pools) */
} tile_kernel;

/* Conv/depthwise/pool of op `op` along NHWC axis `axis` (1 or 2): false if not such an op. */
bool tile_op_kernel(const tile_ctx *c, uint32_t op, int32_t axis, tile_kernel *kr);

/* SLICE/STRIDED_SLICE op i along `axis` as an index map out o -> in begin + o*stride: false
   when the op is not such a map (masks that change the rank, a negative stride...). */
bool tile_slice_axis(const tile_ctx *c, uint32_t i, int32_t axis, int32_t *begin, int32_t *stride);

/* Demand propagation for the input axis bit b: lo/hi per tensor (inclusive; lo > hi =
   none). The caller sets the output's interval; the walk runs the ops backward. clip: cut
   every interval to the tensor's extent when it is read (a real tiled run); otherwise the
   intervals reach into the padding (receptive fields). full_if_none (with clip): a spatial
   tensor no consumer asks for is computed whole. Returns LG_ERR_UNSUPPORTED naming the first
   op it cannot map. */
lg_status tile_demand(const tile_ctx *c, tile_mask b, int32_t *lo, int32_t *hi, bool clip,
                      bool full_if_none, lg_error *err);

/* Map the demand [olo,ohi] on the output axis of op `op` to input slot `slot`'s axis ia:
   1 mapped, 0 no demand on that input, -1 cannot map. */
int tile_map_input(const tile_ctx *c, uint32_t op, uint32_t slot, tile_mask b, int32_t olo,
                   int32_t ohi, int32_t *ilo, int32_t *ihi);

static inline int32_t tile_floordiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return (int32_t)q;
}
static inline int32_t tile_ceildiv(int64_t a, int64_t b) { return -tile_floordiv(-a, b); }

#endif
