/* Infer functions of the conv rows (src/ops/infer_conv.c): conv.def, misc.def and the
 * custom ops of custom.def. */
#ifndef LGI_INFER_CONV_H
#define LGI_INFER_CONV_H
#include "ops/ops_impl.h"

/* conv.def */
LG_INTERNAL lg_status lgo_infer_conv2d(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_infer_dwconv2d(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_infer_transpose_conv(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_infer_conv3d(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_infer_conv3d_transpose(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_infer_fully_connected(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_infer_batch_matmul(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_infer_pool2d(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_infer_resize_bilinear(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_infer_resize_nearest(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_infer_nms(lg_infer_ctx *c);

/* misc.def */
LG_INTERNAL lg_status lgo_infer_random(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_infer_multinomial(lg_infer_ctx *c);

/* custom.def (MediaPipe's custom ops) */
LG_INTERNAL lg_status lgo_infer_tconv_bias(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_infer_maxpool_argmax(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_infer_max_unpooling(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_infer_resampler(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_infer_like_input0(lg_infer_ctx *c);

#endif
