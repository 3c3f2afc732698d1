/* The file rules of lg.h "files" (lg_output_check, lg_input_open, the .npy writer and
   reader under them) and lg_fill_f32's seed and range (run.h). Issue #12, "Files"/"Inputs". */
#define _DEFAULT_SOURCE /* mknod, makedev */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lg/lg.h"
#include "lg/npy.h"
#include "lg/run.h"
#include "tf.h"

static void scratch(char *dir) {
    strcpy(dir, "/tmp/lg_files_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
}

static void rm_scratch(const char *dir) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

static bool contains(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

LG_TEST(files_output_check_kinds) {
    char d[64], p[128];
    scratch(d);
    lg_error err;
    /* absent: fine with or without force */
    snprintf(p, sizeof p, "%s/new", d);
    CHECK_EQ_INT(lg_output_check(p, false, &err), LG_OK);
    /* a regular file: LG_ERR_EXISTS without force, LG_OK with (the near-miss of the rest) */
    snprintf(p, sizeof p, "%s/reg", d);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) fclose(f);
    CHECK_EQ_INT(lg_output_check(p, false, &err), LG_ERR_EXISTS);
    CHECK_EQ_INT(lg_output_check(p, true, &err), LG_OK);
    /* a FIFO, a directory, a symbolic link (even to a regular file): refused with force */
    snprintf(p, sizeof p, "%s/fifo", d);
    CHECK(mkfifo(p, 0644) == 0);
    CHECK_EQ_INT(lg_output_check(p, true, &err), LG_ERR_INVALID_ARG);
    CHECK(contains(err.msg, "is a FIFO, not a regular file"));
    snprintf(p, sizeof p, "%s/dir", d);
    CHECK(mkdir(p, 0755) == 0);
    CHECK_EQ_INT(lg_output_check(p, true, &err), LG_ERR_INVALID_ARG);
    CHECK(contains(err.msg, "is a directory"));
    snprintf(p, sizeof p, "%s/link", d);
    CHECK(symlink("reg", p) == 0);
    CHECK_EQ_INT(lg_output_check(p, true, &err), LG_ERR_INVALID_ARG);
    CHECK(contains(err.msg, "is a symbolic link"));
    /* a character device (the /dev/null case) where we may make one (root) */
    snprintf(p, sizeof p, "%s/null", d);
    if (mknod(p, S_IFCHR | 0666, makedev(1, 3)) == 0) {
        CHECK_EQ_INT(lg_output_check(p, true, &err), LG_ERR_INVALID_ARG);
        CHECK(contains(err.msg, "is a character device"));
    }
    rm_scratch(d);
}

LG_TEST(files_input_open_refuses_non_regular) {
    char d[64], p[128];
    scratch(d);
    lg_error err;
    int fd = 123;
    uint64_t size = 0;
    /* /dev/zero: refused at once, without reading (it never ends) */
    CHECK_EQ_INT(lg_input_open("/dev/zero", &fd, &size, &err), LG_ERR_IO);
    CHECK_EQ_INT(fd, -1);
    CHECK(contains(err.msg, "/dev/zero: is a character device, not a regular file"));
    /* a FIFO without a writer: refused, and open() must not wait for one (it would hang) */
    snprintf(p, sizeof p, "%s/fifo", d);
    CHECK(mkfifo(p, 0644) == 0);
    CHECK_EQ_INT(lg_input_open(p, &fd, &size, &err), LG_ERR_IO);
    CHECK(contains(err.msg, "is a FIFO"));
    CHECK_EQ_INT(lg_input_open(d, &fd, &size, &err), LG_ERR_IO);
    CHECK(contains(err.msg, "is a directory"));
    /* near-miss: a symbolic link to a 5-byte regular file is read */
    snprintf(p, sizeof p, "%s/reg", d);
    FILE *f = fopen(p, "w");
    CHECK(f && fwrite("12345", 1, 5, f) == 5);
    if (f) fclose(f);
    snprintf(p, sizeof p, "%s/link", d);
    CHECK(symlink("reg", p) == 0);
    CHECK_OK(lg_input_open(p, &fd, &size, &err), &err);
    CHECK_EQ_INT(size, 5);
    CHECK(fd >= 0);
    if (fd >= 0) {
        char b[8];
        CHECK_EQ_INT(read(fd, b, sizeof b), 5);
        close(fd);
    }
    rm_scratch(d);
}

LG_TEST(files_npy_read_directory_says_so) {
    char d[64];
    scratch(d);
    lg_npy a;
    lg_error err;
    /* was "out of memory": fopen() takes a directory, ftell() then says LONG_MAX */
    CHECK_EQ_INT(lg_npy_read_file(d, &a, &err), LG_ERR_IO);
    CHECK(contains(err.msg, "is a directory"));
    CHECK(!contains(err.msg, "memory"));
    rm_scratch(d);
}

LG_TEST(files_npy_write_rules_and_mode) {
    char d[64], p[128], q[128];
    scratch(d);
    lg_error err;
    float x[2] = {1, 2};
    int32_t shape[1] = {2};
    /* through a symbolic link: refused even with force; the link and its target unchanged */
    snprintf(p, sizeof p, "%s/target.npy", d);
    FILE *f = fopen(p, "w");
    CHECK(f && fputs("keep", f) >= 0);
    if (f) fclose(f);
    snprintf(q, sizeof q, "%s/link.npy", d);
    CHECK(symlink("target.npy", q) == 0);
    CHECK_EQ_INT(lg_npy_write_file(q, LG_FLOAT32, shape, 1, x, true, &err), LG_ERR_INVALID_ARG);
    struct stat st;
    CHECK(lstat(q, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(stat(p, &st) == 0 && st.st_size == 4);
    /* a FIFO: refused with force, still a FIFO */
    snprintf(q, sizeof q, "%s/fifo.npy", d);
    CHECK(mkfifo(q, 0644) == 0);
    CHECK_EQ_INT(lg_npy_write_file(q, LG_FLOAT32, shape, 1, x, true, &err), LG_ERR_INVALID_ARG);
    CHECK(lstat(q, &st) == 0 && S_ISFIFO(st.st_mode));
    /* a regular file: refused without force, replaced with it (4 bytes -> 128 + 8) */
    CHECK_EQ_INT(lg_npy_write_file(p, LG_FLOAT32, shape, 1, x, false, &err), LG_ERR_EXISTS);
    CHECK_OK(lg_npy_write_file(p, LG_FLOAT32, shape, 1, x, true, &err), &err);
    CHECK(stat(p, &st) == 0 && st.st_size == 128 + 8); /* header: the 57-char dict, 10 + 57 + 1 -> 128 */
    /* mode 0666 & ~umask: 0644 under 022, 0600 under 077 */
    mode_t old = umask(022);
    snprintf(q, sizeof q, "%s/m022.npy", d);
    CHECK_OK(lg_npy_write_file(q, LG_FLOAT32, shape, 1, x, false, &err), &err);
    CHECK(stat(q, &st) == 0);
    CHECK_EQ_INT(st.st_mode & 0777, 0644);
    umask(077);
    snprintf(q, sizeof q, "%s/m077.npy", d);
    CHECK_OK(lg_npy_write_file(q, LG_FLOAT32, shape, 1, x, false, &err), &err);
    CHECK(stat(q, &st) == 0);
    CHECK_EQ_INT(st.st_mode & 0777, 0600);
    umask(old);
    rm_scratch(d);
}

LG_TEST(files_fill_seed_is_validated) {
    float v[2];
    lg_error err;
    /* strtoull took "-1" as 2^64-1 and saturated an overflow to 2^64-1: refused now */
    static const char *const bad[] = {"random:-1", "random:+1", "random:", "random: 1", "random:1x",
                                      "random:0x10", "random:18446744073709551616",
                                      "random:99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ_INT(lg_fill_f32(bad[i], v, 2, &err), LG_ERR_INVALID_ARG);
        CHECK(contains(err.msg, "0..18446744073709551615"));
    }
    /* near-misses: the ends of the range are seeds */
    CHECK_OK(lg_fill_f32("random:0", v, 2, &err), &err);
    CHECK_OK(lg_fill_f32("random:18446744073709551615", v, 2, &err), &err);
}

LG_TEST(files_fill_random_values_and_range) {
    /* By hand (fill.c): s0 = seed * 0x9E3779B97F4A7C15 + 1, then s = s * 6364136223846793005
       + 1442695040888963407 (mod 2^64), k = s >> 40, value = k / 2^23 - 1.
       seed 0: s0 = 1, s1 = 7806831264735756412, k = 7100271 -> -0.153581738471984863;
       then k = 8546438 -> 0.018814802169799805. Both exact in float. */
    float v[2];
    lg_error err;
    CHECK_OK(lg_fill_f32("random:0", v, 2, &err), &err);
    CHECK_EQ_INT(v[0] == (float)(7100271.0 / 8388608.0 - 1.0), 1);
    CHECK_EQ_INT(v[1] == (float)(8546438.0 / 8388608.0 - 1.0), 1);
    /* seed 1: k = 8731874 first; a different seed gives a different input */
    CHECK_OK(lg_fill_f32("random:1", v, 1, &err), &err);
    CHECK_EQ_INT(v[0] == (float)(8731874.0 / 8388608.0 - 1.0), 1);
    /* [-1, 1) on many values, and both halves reached */
    enum { N = 100000 };
    float *b = malloc(N * sizeof *b);
    CHECK(b != NULL);
    if (!b) return;
    CHECK_OK(lg_fill_f32("random:42", b, N, &err), &err);
    float mn = 2, mx = -2;
    for (int i = 0; i < N; i++) {
        if (b[i] < mn) mn = b[i];
        if (b[i] > mx) mx = b[i];
    }
    CHECK(mn >= -1.0f && mn < -0.99f);
    CHECK(mx < 1.0f && mx > 0.99f);
    free(b);
}
