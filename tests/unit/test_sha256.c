/* SHA-256 against the FIPS 180-4 / NIST example vectors, on every backend, one-shot and
   incremental with awkward splits. */
#include <stdlib.h>
#include "lg/util.h"
#include "tf.h"

static void hex_of(const void *p, size_t n, char out[65]) {
    uint8_t d[32];
    lg_sha256(p, n, d);
    lg_hex(d, 32, out);
}

static const char *const ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
static const char *const EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
static const char *const M448 = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
static const char *const M896 = "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1";
static const char *const MILLION_A = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
static const char *const S448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
static const char *const S896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

static void check_vectors(void) {
    char h[65];
    hex_of("abc", 3, h);
    CHECK_STR(h, ABC);
    hex_of(NULL, 0, h);
    CHECK_STR(h, EMPTY);
    hex_of(S448, strlen(S448), h);
    CHECK_STR(h, M448);
    hex_of(S896, strlen(S896), h);
    CHECK_STR(h, M896);

    /* one million 'a': one shot, and in pieces of 1..127 bytes */
    size_t n = 1000000;
    char *a = malloc(n);
    CHECK(a != NULL);
    if (!a) return;
    memset(a, 'a', n);
    hex_of(a, n, h);
    CHECK_STR(h, MILLION_A);
    lg_sha256_ctx c;
    lg_sha256_init(&c);
    size_t off = 0, step = 1;
    while (off < n) {
        size_t k = step < n - off ? step : n - off;
        lg_sha256_update(&c, a + off, k);
        off += k;
        step = step % 127 + 1;
    }
    uint8_t d[32];
    lg_sha256_final(&c, d);
    lg_hex(d, 32, h);
    CHECK_STR(h, MILLION_A);
    free(a);
}

LG_TEST(sha256_nist_vectors) {
    lg_sha256_force_portable(false);
    check_vectors();
}

LG_TEST(sha256_nist_vectors_portable) {
    lg_sha256_force_portable(true);
    CHECK_STR(lg_sha256_backend(), "portable");
    check_vectors();
    lg_sha256_force_portable(false);
}

/* Both backends agree on every length across the padding boundaries (0..200 bytes) and on
   every split point of a 150-byte message. */
LG_TEST(sha256_backends_agree_lengths_and_splits) {
    uint8_t msg[200];
    for (int i = 0; i < 200; i++) msg[i] = (uint8_t)(i * 131 + 7);
    for (size_t n = 0; n <= sizeof msg; n++) {
        uint8_t d1[32], d2[32];
        lg_sha256_force_portable(true);
        lg_sha256(msg, n, d1);
        lg_sha256_force_portable(false);
        lg_sha256(msg, n, d2);
        if (memcmp(d1, d2, 32) != 0) tf_fail(__FILE__, __LINE__, "backends differ at length %zu", n);
    }
    uint8_t whole[32];
    lg_sha256(msg, 150, whole);
    for (size_t s = 0; s <= 150; s++) {
        lg_sha256_ctx c;
        uint8_t d[32];
        lg_sha256_init(&c);
        lg_sha256_update(&c, msg, s);
        lg_sha256_update(&c, NULL, 0);
        lg_sha256_update(&c, msg + s, 150 - s);
        lg_sha256_final(&c, d);
        if (memcmp(d, whole, 32) != 0) tf_fail(__FILE__, __LINE__, "split at %zu differs", s);
    }
}

LG_TEST(hex_encoding) {
    const uint8_t in[] = {0x00, 0x0f, 0xa5, 0xff};
    char out[9];
    memset(out, 'x', sizeof out);
    lg_hex(in, 4, out);
    CHECK_STR(out, "000fa5ff");
    lg_hex(in, 0, out);
    CHECK_STR(out, "");
}
