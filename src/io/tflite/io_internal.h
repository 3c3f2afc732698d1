/* Internal to src/io/tflite: the reader's and writer's entry points lg_model_clone (clone.c)
   uses to copy a model without copying the constant data it can share. */
#ifndef LGI_IO_TFLITE_INTERNAL_H
#define LGI_IO_TFLITE_INTERNAL_H
#include "internal.h"

/* lg_tflite_read_mem without the validation at the end; *out is NULL on failure. */
LG_INTERNAL lg_status lgi_tflite_read_mem_unvalidated(const void *buf, size_t size,
                                                      const lg_read_options *opt, lg_model **out,
                                                      lg_error *err);
/* The validation a read ends with (structure, op table), messages prefixed with where. */
LG_INTERNAL lg_status lgi_tflite_read_validate(lg_model *m, const char *where, lg_error *err);

/* lg_tflite_write_mem, except that the buffers i with omit[i] set get an empty data vector
   (or an empty block after the flatbuffer, when they would be stored there): the layout
   decisions are the ones the whole model gives, only those bytes are left out. omit has
   m->n_buffers entries. */
LG_INTERNAL lg_status lgi_tflite_write_mem_omit(const lg_model *m, const lg_write_options *opt,
                                                const uint8_t *omit, void **out, size_t *size,
                                                lg_error *err);
#endif
