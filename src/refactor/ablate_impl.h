/* Internal to src/refactor/ablate*.c. */
#ifndef LGI_ABLATE_IMPL_H
#define LGI_ABLATE_IMPL_H
#include "internal.h"
#include "lg/ablate.h"
#endif
