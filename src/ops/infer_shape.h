/* Infer functions of the shape rows (src/ops/infer_shape.c). */
#ifndef LGI_INFER_SHAPE_H
#define LGI_INFER_SHAPE_H
#include "ops/ops_impl.h"

#endif
