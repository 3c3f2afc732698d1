/*
 * NumPy .npy files (format 1.0/2.0/3.0, C order), so Python users can read litegpu's
 * outputs with numpy.load and feed inputs saved with numpy.save.
 *
 *     lg_npy a;
 *     if (lg_npy_read_file("x.npy", &a, &err) == LG_OK) { ... a.data ...; lg_npy_free(&a); }
 *     lg_npy_write_file("y.npy", LG_FLOAT32, shape, rank, data, &err);
 */
#ifndef LG_NPY_H
#define LG_NPY_H

#include "lg/lg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lg_npy {
    lg_dtype type;            /* FLOAT32, FLOAT16, FLOAT64, INT8/16/32/64, UINT8/16/32/64, BOOL */
    int32_t shape[8];
    uint32_t rank;
    int64_t numel;
    void *data;               /* malloc'ed, little-endian host order; lg_npy_free releases */
    uint64_t nbytes;
} lg_npy;

/* Parse a .npy image in memory (copies the data). Fortran order, big-endian, object and
   structured dtypes are refused with LG_ERR_UNSUPPORTED; malformed headers LG_ERR_FORMAT. */
lg_status lg_npy_read_mem(const void *buf, size_t size, const char *name, lg_npy *out, lg_error *err);
/* path must be a regular file (lg.h "files"): a directory or device is refused at once. */
lg_status lg_npy_read_file(const char *path, lg_npy *out, lg_error *err);
void lg_npy_free(lg_npy *a);

/* Write a .npy (format 1.0) atomically (temp file + rename, mode 0666 & ~umask). The output
   rules of lg.h "files" apply: an existing regular file is replaced only with force
   (LG_ERR_EXISTS otherwise); a link, device, FIFO or directory is refused even with force. */
lg_status lg_npy_write_file(const char *path, lg_dtype type, const int32_t *shape, uint32_t rank,
                            const void *data, bool force, lg_error *err);

/* Convert an array to float32 (malloc'ed *out, numel floats). */
lg_status lg_npy_to_f32(const lg_npy *a, float **out, lg_error *err);

#ifdef __cplusplus
}
#endif
#endif
