/* SHA-256 as specified in FIPS 180-4 (section 6.2), plus hex encoding.
 *
 * Two compression backends process whole 64-byte blocks:
 *  - portable C: the 64 rounds fully unrolled, the message schedule kept in a 16-word
 *    ring that is expanded in place (FIPS 180-4 6.2.2 step 1 computed on the fly);
 *  - x86 SHA extensions (SHA256RNDS2 / SHA256MSG1 / SHA256MSG2), compiled with a target
 *    attribute and chosen at run time via CPUID, so the library still runs on any x86-64.
 * Buffering of partial blocks and padding (5.1.1) are shared.
 */
#include <stdatomic.h>
#include <string.h>
#include "lg/util.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define LGI_SHA_X86 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define LGI_SHA_X86 0
#endif

/* 4.2.2: first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static _Alignas(16) const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* 5.3.3: initial hash value. */
static const uint32_t H0[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

/* ---------------------------------------------------------------- portable backend */

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define BSIG0(x) (ROTR(x, 2) ^ ROTR(x, 13) ^ ROTR(x, 22))  /* 4.4 Sigma0 */
#define BSIG1(x) (ROTR(x, 6) ^ ROTR(x, 11) ^ ROTR(x, 25))  /* 4.5 Sigma1 */
#define SSIG0(x) (ROTR(x, 7) ^ ROTR(x, 18) ^ ((x) >> 3))   /* 4.6 sigma0 */
#define SSIG1(x) (ROTR(x, 17) ^ ROTR(x, 19) ^ ((x) >> 10)) /* 4.7 sigma1 */
/* Ch and Maj (4.2, 4.3) in forms with one operation fewer. */
#define CH(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define MAJ(x, y, z) (((x) & (y)) | ((z) & ((x) | (y))))

static inline uint32_t load_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline void store_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

/* One round. Instead of shifting the eight working variables each round, the callers
   rotate the argument names, so only d and h are written. */
#define RND(a, b, c, d, e, f, g, h, kw)                                   \
    do {                                                                  \
        uint32_t t1_ = (h) + BSIG1(e) + CH(e, f, g) + (kw);               \
        uint32_t t2_ = BSIG0(a) + MAJ(a, b, c);                           \
        (d) += t1_;                                                       \
        (h) = t1_ + t2_;                                                  \
    } while (0)

/* Schedule word for round t >= 16, written over W[t-16] in the ring. */
#define WX(i) (w[(i) & 15] += SSIG1(w[((i) + 14) & 15]) + w[((i) + 9) & 15] + SSIG0(w[((i) + 1) & 15]))
#define WL(i) (w[i])

/* Rounds base..base+15; W(i) yields the schedule word held in ring slot i. */
#define R16(base, W)                                                        \
    RND(a, b, c, d, e, f, g, h, K256[(base) + 0] + W(0));                   \
    RND(h, a, b, c, d, e, f, g, K256[(base) + 1] + W(1));                   \
    RND(g, h, a, b, c, d, e, f, K256[(base) + 2] + W(2));                   \
    RND(f, g, h, a, b, c, d, e, K256[(base) + 3] + W(3));                   \
    RND(e, f, g, h, a, b, c, d, K256[(base) + 4] + W(4));                   \
    RND(d, e, f, g, h, a, b, c, K256[(base) + 5] + W(5));                   \
    RND(c, d, e, f, g, h, a, b, K256[(base) + 6] + W(6));                   \
    RND(b, c, d, e, f, g, h, a, K256[(base) + 7] + W(7));                   \
    RND(a, b, c, d, e, f, g, h, K256[(base) + 8] + W(8));                   \
    RND(h, a, b, c, d, e, f, g, K256[(base) + 9] + W(9));                   \
    RND(g, h, a, b, c, d, e, f, K256[(base) + 10] + W(10));                 \
    RND(f, g, h, a, b, c, d, e, K256[(base) + 11] + W(11));                 \
    RND(e, f, g, h, a, b, c, d, K256[(base) + 12] + W(12));                 \
    RND(d, e, f, g, h, a, b, c, K256[(base) + 13] + W(13));                 \
    RND(c, d, e, f, g, h, a, b, K256[(base) + 14] + W(14));                 \
    RND(b, c, d, e, f, g, h, a, K256[(base) + 15] + W(15))

static void compress_portable(uint32_t st[8], const uint8_t *p, size_t nblocks) {
    uint32_t w[16];
    for (; nblocks; nblocks--, p += 64) {
        uint32_t a = st[0], b = st[1], c = st[2], d = st[3];
        uint32_t e = st[4], f = st[5], g = st[6], h = st[7];
        for (int i = 0; i < 16; i++) w[i] = load_be32(p + 4 * i);
        R16(0, WL);
        /* (16 + i) & 15 == i, so WX(i) with constant i names the right ring slots. */
        for (int base = 16; base < 64; base += 16) {
            R16(base, WX);
        }
        st[0] += a; st[1] += b; st[2] += c; st[3] += d;
        st[4] += e; st[5] += f; st[6] += g; st[7] += h;
    }
}

#undef R16
#undef WX
#undef WL
#undef RND

/* ---------------------------------------------------------------- x86 SHA backend */

#if LGI_SHA_X86
/* SHA256RNDS2 keeps the state as two vectors: ABEF (A in the top lane) and CDGH. It runs two
   rounds with W+K taken from the low two lanes of its third operand; the old ABEF becomes
   the new CDGH, so the two state vectors swap roles every two rounds. */
#define SHAX_TARGET __attribute__((target("sha,sse4.1,ssse3")))

/* Four rounds with schedule words m (lanes W[t..t+3]) starting at round t. */
#define QR(m, t)                                                                        \
    do {                                                                                \
        __m128i wk_ = _mm_add_epi32((m), _mm_load_si128((const __m128i *)&K256[t]));    \
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk_);                                  \
        wk_ = _mm_shuffle_epi32(wk_, 0x0E);                                             \
        abef = _mm_sha256rnds2_epu32(abef, cdgh, wk_);                                  \
    } while (0)

/* W[t..t+3] from ma = W[t-16..], mb = W[t-12..], mc = W[t-8..], md = W[t-4..], written
   over ma: MSG1 adds sigma0, the alignr supplies W[t-7..t-4], MSG2 adds sigma1. */
#define SCHED(ma, mb, mc, md) \
    (ma) = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32((ma), (mb)), \
                                              _mm_alignr_epi8((md), (mc), 4)), (md))

SHAX_TARGET
static void compress_x86(uint32_t st[8], const uint8_t *p, size_t nblocks) {
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i lo = _mm_loadu_si128((const __m128i *)&st[0]); /* lanes a b c d */
    __m128i hi = _mm_loadu_si128((const __m128i *)&st[4]); /* lanes e f g h */
    lo = _mm_shuffle_epi32(lo, 0xB1);                      /* b a d c */
    hi = _mm_shuffle_epi32(hi, 0x1B);                      /* h g f e */
    __m128i abef = _mm_alignr_epi8(lo, hi, 8);             /* f e b a */
    __m128i cdgh = _mm_blend_epi16(hi, lo, 0xF0);          /* h g d c */

    for (; nblocks; nblocks--, p += 64) {
        const __m128i abef0 = abef, cdgh0 = cdgh;
        __m128i m0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 0)), bswap);
        __m128i m1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16)), bswap);
        __m128i m2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 32)), bswap);
        __m128i m3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 48)), bswap);
        QR(m0, 0);  QR(m1, 4);  QR(m2, 8);  QR(m3, 12);
        SCHED(m0, m1, m2, m3); QR(m0, 16);
        SCHED(m1, m2, m3, m0); QR(m1, 20);
        SCHED(m2, m3, m0, m1); QR(m2, 24);
        SCHED(m3, m0, m1, m2); QR(m3, 28);
        SCHED(m0, m1, m2, m3); QR(m0, 32);
        SCHED(m1, m2, m3, m0); QR(m1, 36);
        SCHED(m2, m3, m0, m1); QR(m2, 40);
        SCHED(m3, m0, m1, m2); QR(m3, 44);
        SCHED(m0, m1, m2, m3); QR(m0, 48);
        SCHED(m1, m2, m3, m0); QR(m1, 52);
        SCHED(m2, m3, m0, m1); QR(m2, 56);
        SCHED(m3, m0, m1, m2); QR(m3, 60);
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
    }

    lo = _mm_shuffle_epi32(abef, 0x1B);                    /* a b e f */
    hi = _mm_shuffle_epi32(cdgh, 0xB1);                    /* g h c d */
    _mm_storeu_si128((__m128i *)&st[0], _mm_blend_epi16(lo, hi, 0xF0)); /* a b c d */
    _mm_storeu_si128((__m128i *)&st[4], _mm_alignr_epi8(hi, lo, 8));    /* e f g h */
}
#undef QR
#undef SCHED

static int cpu_has_sha(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    if (!(c & (1u << 9)) || !(c & (1u << 19))) return 0; /* SSSE3, SSE4.1 */
    if (__get_cpuid_max(0, NULL) < 7) return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b >> 29) & 1; /* SHA */
}
#endif

/* ---------------------------------------------------------------- dispatch */

enum { BACKEND_UNKNOWN = 0, BACKEND_PORTABLE = 1, BACKEND_X86 = 2 };
static _Atomic int backend_sel = BACKEND_UNKNOWN;
static _Atomic int backend_forced = 0;

static int backend(void) {
    int b = atomic_load_explicit(&backend_sel, memory_order_relaxed);
    if (b == BACKEND_UNKNOWN) {
        b = BACKEND_PORTABLE;
#if LGI_SHA_X86
        if (!atomic_load_explicit(&backend_forced, memory_order_relaxed) && cpu_has_sha())
            b = BACKEND_X86;
#endif
        atomic_store_explicit(&backend_sel, b, memory_order_relaxed);
    }
    return b;
}

static void compress(uint32_t st[8], const uint8_t *p, size_t nblocks) {
#if LGI_SHA_X86
    if (backend() == BACKEND_X86) {
        compress_x86(st, p, nblocks);
        return;
    }
#endif
    compress_portable(st, p, nblocks);
}

const char *lg_sha256_backend(void) {
    return backend() == BACKEND_X86 ? "x86-sha" : "portable";
}

void lg_sha256_force_portable(bool on) {
    atomic_store_explicit(&backend_forced, on ? 1 : 0, memory_order_relaxed);
    atomic_store_explicit(&backend_sel, BACKEND_UNKNOWN, memory_order_relaxed);
}

/* ---------------------------------------------------------------- buffering and padding */

void lg_sha256_init(lg_sha256_ctx *c) {
    memcpy(c->state, H0, sizeof H0);
    c->nbytes = 0;
    c->nblock = 0;
}

void lg_sha256_update(lg_sha256_ctx *c, const void *data, size_t n) {
    const uint8_t *p = data;
    if (n == 0) return;
    c->nbytes += n;
    if (c->nblock) {
        size_t take = 64 - c->nblock;
        if (take > n) take = n;
        memcpy(c->block + c->nblock, p, take);
        c->nblock += (uint32_t)take;
        p += take;
        n -= take;
        if (c->nblock < 64) return;
        compress(c->state, c->block, 1);
        c->nblock = 0;
    }
    if (n >= 64) {
        compress(c->state, p, n / 64);
        p += n & ~(size_t)63;
        n &= 63;
    }
    if (n) {
        memcpy(c->block, p, n);
        c->nblock = (uint32_t)n;
    }
}

void lg_sha256_final(lg_sha256_ctx *c, uint8_t out[32]) {
    /* 5.1.1: a 1 bit, zeros up to 56 mod 64 bytes, then the 64-bit big-endian bit length. */
    uint64_t bits = c->nbytes * 8;
    uint32_t k = c->nblock;
    c->block[k++] = 0x80;
    if (k > 56) {
        memset(c->block + k, 0, 64 - k);
        compress(c->state, c->block, 1);
        k = 0;
    }
    memset(c->block + k, 0, 56 - k);
    store_be32(c->block + 56, (uint32_t)(bits >> 32));
    store_be32(c->block + 60, (uint32_t)bits);
    compress(c->state, c->block, 1);
    for (int i = 0; i < 8; i++) store_be32(out + 4 * i, c->state[i]);
    memset(c, 0, sizeof *c);
}

void lg_sha256(const void *data, size_t n, uint8_t out[32]) {
    lg_sha256_ctx c;
    lg_sha256_init(&c);
    lg_sha256_update(&c, data, n);
    lg_sha256_final(&c, out);
}

void lg_hex(const uint8_t *in, size_t n, char *out) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = 0;
}
