/* Infer functions of the conv rows (src/ops/infer_conv.c). */
#ifndef LGI_INFER_CONV_H
#define LGI_INFER_CONV_H
#include "ops/ops_impl.h"

#endif
