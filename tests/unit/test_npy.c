/* .npy reader/writer: bytes derived from the NumPy format spec, round trips, refusals. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lg/npy.h"
#include "tf.h"

LG_TEST(npy_write_matches_numpy_layout) {
    char dir[] = "/tmp/lg_npy_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/a.npy", dir);
    float data[6] = {1, 2, 3, 4, 5, 6};
    int32_t shape[2] = {2, 3};
    lg_error err;
    CHECK_OK(lg_npy_write_file(path, LG_FLOAT32, shape, 2, data, false, &err), &err);
    FILE *f = fopen(path, "rb");
    unsigned char buf[256];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    /* numpy.save writes: magic, v1.0, header len, the 59-char dict padded with spaces so
       that 10 + len + 1 reaches a multiple of 64 (128), a newline, then the data */
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    CHECK_EQ_INT(strlen(dict), 59);
    CHECK_EQ_INT(n, 128 + 24);
    CHECK(memcmp(buf, "\x93NUMPY\x01\x00", 8) == 0);
    CHECK_EQ_INT(buf[8] | (buf[9] << 8), 118);
    CHECK(memcmp(buf + 10, dict, strlen(dict)) == 0);
    CHECK_EQ_INT(buf[69], ' ');
    CHECK_EQ_INT(buf[127], '\n');
    CHECK(memcmp(buf + 128, data, 24) == 0);
    /* refuses to overwrite, unless forced */
    CHECK_EQ_INT(lg_npy_write_file(path, LG_FLOAT32, shape, 2, data, false, &err), LG_ERR_EXISTS);
    CHECK_OK(lg_npy_write_file(path, LG_FLOAT32, shape, 2, data, true, &err), &err);
    lg_npy a;
    CHECK_OK(lg_npy_read_file(path, &a, &err), &err);
    CHECK_EQ_INT(a.type, LG_FLOAT32);
    CHECK_EQ_INT(a.rank, 2);
    CHECK_EQ_INT(a.shape[1], 3);
    CHECK(a.data && memcmp(a.data, data, 24) == 0);
    lg_npy_free(&a);
    /* a 1-D shape is written "(4,)" and a scalar "()" */
    int32_t s1[1] = {4};
    int32_t v4[4] = {1, -2, 3, -4};
    CHECK_OK(lg_npy_write_file(path, LG_INT32, s1, 1, v4, true, &err), &err);
    CHECK_OK(lg_npy_read_file(path, &a, &err), &err);
    CHECK_EQ_INT(a.type, LG_INT32);
    CHECK_EQ_INT(a.rank, 1);
    CHECK_EQ_INT(((int32_t *)a.data)[1], -2);
    lg_npy_free(&a);
    unlink(path);
    rmdir(dir);
}

LG_TEST(npy_reads_other_versions_and_types) {
    /* version 2.0 header (4-byte length), float16 data, shape (2,) */
    const char hdr[] = "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }";
    unsigned char buf[160];
    memcpy(buf, "\x93NUMPY\x02\x00", 8);
    size_t hl = 128 - 12;
    buf[8] = (unsigned char)hl; buf[9] = 0; buf[10] = 0; buf[11] = 0;
    memset(buf + 12, ' ', hl);
    memcpy(buf + 12, hdr, strlen(hdr));
    buf[127] = '\n';
    buf[128] = 0x00; buf[129] = 0x3c; /* 1.0 */
    buf[130] = 0x00; buf[131] = 0xc0; /* -2.0 */
    lg_npy a;
    lg_error err;
    CHECK_OK(lg_npy_read_mem(buf, 132, "x", &a, &err), &err);
    float *f = NULL;
    CHECK_OK(lg_npy_to_f32(&a, &f, &err), &err);
    CHECK_NEAR(f[0], 1.0, 0);
    CHECK_NEAR(f[1], -2.0, 0);
    free(f);
    lg_npy_free(&a);
}

LG_TEST(npy_refusals) {
    lg_npy a;
    lg_error err;
    CHECK_EQ_INT(lg_npy_read_mem("hello", 5, "x", &a, &err), LG_ERR_FORMAT);
    const char *fort = "\x93NUMPY\x01\x00\x36\x00{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }     \n";
    CHECK_EQ_INT(lg_npy_read_mem(fort, 64, "x", &a, &err), LG_ERR_UNSUPPORTED);
    const char *big = "\x93NUMPY\x01\x00\x36\x00{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }    \n";
    CHECK_EQ_INT(lg_npy_read_mem(big, 64, "x", &a, &err), LG_ERR_UNSUPPORTED);
    /* data shorter than the shape needs */
    const char *shortd = "\x93NUMPY\x01\x00\x36\x00{'descr': '<f4', 'fortran_order': False, 'shape': (9, 9), }   \n";
    CHECK_EQ_INT(lg_npy_read_mem(shortd, 64, "x", &a, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "x:") != NULL);
}
