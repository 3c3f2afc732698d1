/*
 * libFuzzer target for the .tflite reader (lg_tflite_read_mem).
 *
 * Run it:
 *
 *     make fuzz FUZZ_SECONDS=600          # seeds: the models in build/corpus and examples
 *
 * or by hand, with the dictionary and a bounded time:
 *
 *     make build/fuzz/fuzz_tflite_read
 *     build/fuzz/fuzz_tflite_read -dict=fuzz/dict/tflite.dict -max_total_time=600 \
 *         -timeout=10 -rss_limit_mb=2048 build/fuzz/corpus
 *
 * A finding is saved as crash-<sha1> (or timeout-/oom-) in the current directory; replay it
 * with `build/fuzz/fuzz_tflite_read crash-<sha1>`; the line before the trap says which
 * property broke. tests/e2e/test_fuzz_smoke.sh runs it for 30 s in `make test`.
 *
 * Properties (tests/tools/lg_harness.h has the details): every input is either rejected
 * with LG_ERR_FORMAT/LIMIT/NOMEM and a one-line message, or accepted as a model that passes
 * lg_model_validate, writes, reads back and re-writes to identical bytes. The reader's
 * allocations go through a metering lg_alloc_fn: holding more than 512 MiB at once (the
 * reader's own cap is 64 MiB + 16 x file size), a wrong old size, or a leak is a finding.
 * Each input is then read again with one of its allocations failing (chosen from a hash of
 * the input), which must give LG_ERR_NOMEM and free everything. Any broken property traps.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lg/check.h"
#include "lg/info.h"
#include "lg/lg.h"
#include "../tests/tools/lg_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Weak: the target still links (without the info check) if info's code is not in src/. */
#pragma weak lg_info_compute
#pragma weak lg_info_free

/* lg_info_compute (the data behind `litegpu info`) runs on every accepted model. */
static int check_info(const lg_model *m, char *why, size_t why_size) {
    lg_info *info = NULL;
    lg_error err;
    lg_status st = lg_info_compute(m, NULL, 0, &info, &err);
    if (st != LG_OK) {
        snprintf(why, why_size, "lg_info_compute failed on an accepted model: %s (%s)",
                 lg_status_str(st), err.msg);
        return 1;
    }
    lg_info_free(info);
    /* the checker reads untrusted models too: it must finish on every model the reader
       accepts, for both targets */
    for (int t = 0; t < LG_TARGET_COUNT; t++) {
        lg_check_options co = {(lg_target)t, 0, LG_GPU_ANY};
        lg_check_report *rep = NULL;
        st = lg_check_model(m, &co, &rep, &err);
        if (st != LG_OK && st != LG_ERR_NOMEM) {
            snprintf(why, why_size, "lg_check_model failed on an accepted model: %s (%s)", lg_status_str(st), err.msg);
            return 1;
        }
        lg_check_report_free(rep);
    }
    return 0;
}

/* FNV-1a over the size and the first and last 4 KiB (enough to vary between inputs, and
   cheap on multi-megabyte seeds). */
static unsigned long hash_input(const uint8_t *data, size_t size) {
    uint64_t h = 1469598103934665603ull ^ (uint64_t)size;
    for (size_t i = 0; i < size && i < 4096; i++) h = (h ^ data[i]) * 1099511628211ull;
    for (size_t i = size > 8192 ? size - 4096 : 4096; i < size; i++) h = (h ^ data[i]) * 1099511628211ull;
    return (unsigned long)(h | 2); /* never 0 (0 disables injection); even: pass an lg_error */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    lgh_options o = {0};
    o.cap = (size_t)512 << 20;
    o.extra = (lg_info_compute && lg_info_free) ? check_info : NULL;
    o.inject = hash_input(data, size);
    /* alternate between passing an lg_error and NULL on the failing-allocation read */
    if (size && (data[size - 1] & 1)) o.inject |= 1;
    lgh_result r;
    if (lgh_check_input(data, size, &o, &r)) {
        fprintf(stderr, "fuzz_tflite_read: property broken on a %zu-byte input: %s\n", size, r.why);
        __builtin_trap();
    }
    return 0;
}
