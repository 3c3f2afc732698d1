/* Infer functions of the elementwise rows (src/ops/infer_elementwise.c). */
#ifndef LGI_INFER_ELEMENTWISE_H
#define LGI_INFER_ELEMENTWISE_H
#include "ops/ops_impl.h"

#endif
