/* coop_select.h — how topk/coop_select (coop_select.cu) splits the
 * segments over its cooperative grid, in C that a CPU test checks.
 *
 * Every segment with something to select gets at least one block; the other
 * blocks go, one at a time, to the segment whose blocks hold the most keys
 * (the largest chunk sets every block's shared memory). A segment of n keys
 * on b blocks: block i holds keys [i c, min(n, (i + 1) c)), c = ceil(n / b).
 */
#ifndef KB_TOPK_COOP_SELECT_H
#define KB_TOPK_COOP_SELECT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A block's part: keys [lo, hi) of segment seg; seg = -1: no keys (the
 * block still takes part in every grid barrier and in the ranking). */
typedef struct kb_coop_part {
    int32_t seg, lo, hi;
} kb_coop_part;

static inline int64_t kb_coop_chunk(int64_t n, int64_t blocks) {
    return blocks > 0 ? (n + blocks - 1) / blocks : n;
}

/* Fills parts[0..blocks) for segments of lengths len[0..segments) and k;
 * returns the largest chunk (keys one block holds), 0 when no segment has
 * anything to select, -1 when more segments need a block than there are.
 * per_seg: scratch of `segments` ints (the blocks each segment gets). */
static inline int64_t kb_coop_assign(const int64_t *len, int segments, int64_t k, int blocks,
                                     int *per_seg, kb_coop_part *parts) {
    int used = 0;
    for (int s = 0; s < segments; s++) {
        per_seg[s] = len[s] > 0 && k > 0;
        used += per_seg[s];
    }
    if (used > blocks) return -1;
    for (; used < blocks && used > 0; used++) {
        int widest = -1;
        int64_t most = 0;
        for (int s = 0; s < segments; s++) {
            const int64_t c = per_seg[s] ? kb_coop_chunk(len[s], per_seg[s]) : 0;
            if (c > most) {
                most = c;
                widest = s;
            }
        }
        if (most <= 1) break; /* one key a block: more blocks hold nothing */
        per_seg[widest]++;
    }
    int b = 0;
    int64_t largest = 0;
    for (int s = 0; s < segments; s++) {
        const int64_t c = kb_coop_chunk(len[s], per_seg[s]);
        for (int i = 0; i < per_seg[s]; i++, b++) {
            const int64_t lo = i * c, hi = lo + c < len[s] ? lo + c : len[s];
            parts[b].seg = s;
            parts[b].lo = (int32_t)(lo < len[s] ? lo : len[s]);
            parts[b].hi = (int32_t)hi;
        }
        if (per_seg[s] && c > largest) largest = c;
    }
    for (; b < blocks; b++) parts[b].seg = -1, parts[b].lo = parts[b].hi = 0;
    return largest;
}

#ifdef __cplusplus
}
#endif
#endif
