/* The guard bytes after each device output (harness/run/guard.c): the runner's
 * check that a variant wrote nothing past the end of its outputs. */
#include "run/guard.h"
#include "kbtest.h"

#include <string.h>

KB_TEST(a_filled_guard_is_intact) {
    unsigned char g[KB_GUARD_BYTES];
    kb_guard_fill(g, sizeof g);
    KB_EXPECT(kb_guard_changed(g, sizeof g) == 0);
}

KB_TEST(one_float_of_zero_past_the_end_breaks_the_guard) {
    unsigned char g[KB_GUARD_BYTES];
    kb_guard_fill(g, sizeof g);
    float zero = 0.0f;
    memcpy(g, &zero, sizeof zero);
    KB_EXPECT(kb_guard_changed(g, sizeof g) >= 3);
}

KB_TEST(the_poison_pattern_past_the_end_breaks_the_guard) {
    unsigned char g[KB_GUARD_BYTES];
    kb_guard_fill(g, sizeof g);
    for (size_t at = 0; at + 2 <= sizeof g; at += 2) { /* any aligned 2-byte 0xFFFF store */
        unsigned char h[KB_GUARD_BYTES];
        memcpy(h, g, sizeof h);
        memset(h + at, 0xFF, 2);
        KB_EXPECT(kb_guard_changed(h, sizeof h) >= 1);
    }
}

KB_TEST(a_single_flipped_byte_at_the_far_end_counts_once) {
    unsigned char g[KB_GUARD_BYTES];
    kb_guard_fill(g, sizeof g);
    g[KB_GUARD_BYTES - 1] ^= 0x01;
    KB_EXPECT(kb_guard_changed(g, sizeof g) == 1);
}
