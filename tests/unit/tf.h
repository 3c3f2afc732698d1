/* A tiny unit-test framework: LG_TEST(name) { ... } registers a test; CHECK* record
   failures with file:line and keep going within the test. The runner (main.c) prints one
   line per failing check and a closing "unit: N passed, N failed" line, and exits non-zero
   if anything failed. */
#ifndef LG_TF_H
#define LG_TF_H
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef void (*tf_fn)(void);
void tf_register(const char *name, tf_fn fn);
void tf_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define LG_TEST(name)                                                         \
    static void test_##name(void);                                            \
    __attribute__((constructor)) static void reg_##name(void) {               \
        tf_register(#name, test_##name);                                      \
    }                                                                         \
    static void test_##name(void)

#define CHECK(c) do { if (!(c)) tf_fail(__FILE__, __LINE__, "CHECK(%s)", #c); } while (0)
#define CHECK_EQ_INT(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
    if (a_ != b_) tf_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", #a, a_, #b, b_); } while (0)
#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
    if (!a_ || !b_ || strcmp(a_, b_) != 0) tf_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } while (0)
#define CHECK_NEAR(a, b, tol) do { double a_ = (double)(a), b_ = (double)(b); \
    if (!(fabs(a_ - b_) <= (tol))) tf_fail(__FILE__, __LINE__, "%s == %.9g, expected %.9g +- %g", #a, a_, b_, (double)(tol)); } while (0)
#define CHECK_OK(expr, errp) do { lg_status s_ = (expr); \
    if (s_ != LG_OK) tf_fail(__FILE__, __LINE__, "%s failed: %s", #expr, (errp)->msg); } while (0)
#endif
