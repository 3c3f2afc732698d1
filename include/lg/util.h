/*
 * litegpu utilities: SHA-256 (FIPS 180-4) and hex encoding.
 *
 * One-shot:
 *
 *     uint8_t d[32]; char hex[65];
 *     lg_sha256(bytes, n, d);
 *     lg_hex(d, sizeof d, hex);          // "ba7816bf..."
 *
 * Incremental (same result for any split of the input):
 *
 *     lg_sha256_ctx c;
 *     lg_sha256_init(&c);
 *     lg_sha256_update(&c, part1, n1);
 *     lg_sha256_update(&c, part2, n2);
 *     lg_sha256_final(&c, d);
 *
 * The implementation is portable C; on x86 CPUs with the SHA extensions it uses them
 * (detected at run time). None of these functions allocate or fail.
 */
#ifndef LG_UTIL_H
#define LG_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Incremental SHA-256 state. Plain data: may live on the stack, be copied, and be
   reused after lg_sha256_init(). */
typedef struct lg_sha256_ctx {
    uint32_t state[8];
    uint64_t nbytes;      /* total bytes fed so far */
    uint8_t block[64];    /* pending partial block */
    uint32_t nblock;      /* bytes pending in block (0..63) */
} lg_sha256_ctx;

void lg_sha256_init(lg_sha256_ctx *c);
/* data may be NULL when n is 0. */
void lg_sha256_update(lg_sha256_ctx *c, const void *data, size_t n);
/* Writes the digest; the context must be re-initialized before further use. */
void lg_sha256_final(lg_sha256_ctx *c, uint8_t out[32]);

/* Digest of n bytes at data (data may be NULL when n is 0). */
void lg_sha256(const void *data, size_t n, uint8_t out[32]);

/* The compression backend in use: "x86-sha" or "portable". */
const char *lg_sha256_backend(void);
/* For tests and benchmarks: true forces the portable backend, false restores automatic
   selection. Process-wide. */
void lg_sha256_force_portable(bool on);

/* Lower-case hex of n bytes into out, which must hold 2n+1 chars (NUL-terminated). */
void lg_hex(const uint8_t *in, size_t n, char *out);

#ifdef __cplusplus
}
#endif
#endif
