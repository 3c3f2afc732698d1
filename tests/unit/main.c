/* Unit-test runner: `test_unit [FILTER]` runs every registered test whose name contains
   FILTER. Exit status is non-zero when any check failed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tf.h"

#define TF_MAX 2048
static struct { const char *name; tf_fn fn; } tests[TF_MAX];
static int n_tests, cur_failed;

void tf_register(const char *name, tf_fn fn) {
    if (n_tests < TF_MAX) { tests[n_tests].name = name; tests[n_tests].fn = fn; n_tests++; }
    else { fprintf(stderr, "too many tests\n"); exit(2); }
}

void tf_fail(const char *file, int line, const char *fmt, ...) {
    va_list ap;
    cur_failed++;
    fprintf(stderr, "  %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int cmp_name(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(int argc, char **argv) {
    const char *filter = argc > 1 ? argv[1] : NULL;
    int passed = 0, failed = 0;
    qsort(tests, (size_t)n_tests, sizeof tests[0], cmp_name);
    for (int i = 0; i < n_tests; i++) {
        if (filter && !strstr(tests[i].name, filter)) continue;
        cur_failed = 0;
        tests[i].fn();
        if (cur_failed) { failed++; fprintf(stderr, "FAIL %s\n", tests[i].name); }
        else passed++;
    }
    printf("unit: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
