/*
 * libFuzzer target for the ONNX reader (lg_onnx_read_mem and lg_onnx_read_tensor_mem).
 *
 * Run it:
 *
 *     make fuzz FUZZ_SECONDS=600          # runs the .tflite target, then this one
 *
 * or by hand:
 *
 *     make build/fuzz/fuzz_onnx_read
 *     mkdir -p build/fuzz/onnx_corpus
 *     cp /usr/share/libonnx-testdata/data/node/test_if/model.onnx build/fuzz/onnx_corpus/
 *     build/fuzz/fuzz_onnx_read -max_total_time=600 -timeout=10 -rss_limit_mb=2048 build/fuzz/onnx_corpus
 *
 * A finding is saved as crash-<sha1> (or timeout-/oom-); replay it with
 * `build/fuzz/fuzz_onnx_read crash-<sha1>`; the line before the trap says which property
 * broke. tests/e2e/test_fuzz_smoke.sh runs it for a bounded time in CI's fuzz step.
 *
 * Properties (tests/tools/onnx_harness.h): every input is rejected with FORMAT, LIMIT, NOMEM
 * or UNSUPPORTED and a one-line message, or accepted as a model (and, read as a TensorProto,
 * as a tensor) whose every pointer is readable and that validates; the reader never holds
 * more than 512 MiB through the metering hook, frees with the right sizes and leaks nothing;
 * a read with one allocation failing (chosen from a hash of the input) gives LG_ERR_NOMEM.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../tests/tools/onnx_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint64_t h = 1469598103934665603ull ^ (uint64_t)size;
    for (size_t i = 0; i < size && i < 4096; i++) h = (h ^ data[i]) * 1099511628211ull;
    oxh_result r;
    if (oxh_check(data, size, (size_t)512 << 20, (unsigned long)(h | 1), &r)) {
        fprintf(stderr, "fuzz_onnx_read: property broken on a %zu-byte input: %s\n", size, r.why);
        __builtin_trap();
    }
    return 0;
}
