/* fuzz_npy.c — libFuzzer target: kb_npy_read_buffer on arbitrary bytes.
 * Malformed input must be an error value; an accepted file must describe
 * itself consistently (dtype known, ndim bounded, data allocated). */
#include <stdint.h>
#include <stdlib.h>

#include "kbench.h"
#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kb_tensor t = {.name = "fuzz"};
    kb_error e;
    if (kb_npy_read_buffer(data, size, "fuzz.npy", &t, &e) == KB_OK) {
        if (t.ndim < 0 || t.ndim > KB_MAX_NDIM || !t.data) abort();
        for (int d = 0; d < t.ndim; d++)
            if (t.shape[d] < 0) abort();
        /* Touch every byte the tensor claims: ASan catches a short buffer. */
        volatile uint8_t sink = 0;
        size_t n = kb_nbytes(&t);
        for (size_t i = 0; i < n; i++) sink ^= ((const uint8_t *)t.data)[i];
        (void)sink;
        free(t.data);
    }
    return 0;
}
