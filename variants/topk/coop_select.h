/* coop_select.h — how topk/coop_select (coop_select.cu) splits the
 * segments over its cooperative grid, and its look below level 0, in C that
 * a CPU test checks.
 *
 * Every segment with something to select gets at least one block; the other
 * blocks go, one at a time, to the segment whose blocks hold the most keys
 * (the largest chunk sets every block's shared memory). A segment of n keys
 * on b blocks: block i holds keys [i c, min(n, (i + 1) c)), c = ceil(n / b).
 */
#ifndef KB_TOPK_COOP_SELECT_H
#define KB_TOPK_COOP_SELECT_H

#include "grid_select.h"

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

/* Deals `blocks` blocks to segments of work[0..segments) items: one to each
 * segment with work, the others one at a time to the segment whose blocks
 * hold the most items each, until a block would hold one item or none.
 * per[s]: the blocks of segment s. -1 when more segments have work than
 * there are blocks. */
static inline int kb_coop_deal(const int64_t *work, int segments, int blocks, int *per) {
    int used = 0;
    for (int s = 0; s < segments; s++) {
        per[s] = work[s] > 0;
        used += per[s];
    }
    if (used > blocks) return -1;
    for (; used < blocks && used > 0; used++) {
        int widest = -1;
        int64_t most = 0;
        for (int s = 0; s < segments; s++) {
            const int64_t c = per[s] ? kb_coop_chunk(work[s], per[s]) : 0;
            if (c > most) {
                most = c;
                widest = s;
            }
        }
        if (most <= 1) break; /* one item a block: more blocks hold nothing */
        per[widest]++;
    }
    return 0;
}

/* Fills parts[0..blocks) for segments of lengths len[0..segments) and k;
 * returns the largest chunk (keys one block holds), 0 when no segment has
 * anything to select, -1 when more segments need a block than there are.
 * per_seg: scratch of `segments` ints (the blocks each segment gets). */
static inline int64_t kb_coop_assign(const int64_t *len, int segments, int64_t k, int blocks,
                                     int *per_seg, kb_coop_part *parts) {
    if (k <= 0)
        for (int s = 0; s < segments; s++) per_seg[s] = 0;
    else if (kb_coop_deal(len, segments, blocks, per_seg) != 0)
        return -1;
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

/* Who ranks which candidates: blocks [base[s], base[s + 1]) rank segment
 * s's slots[s] candidate slots, a block one segment only (a block that
 * ranked the ends of two segments would copy and count twice while the
 * others wait at the kernel's end), the blocks dealt by slots as the keys'
 * are by length (kb_coop_deal). Returns 0, or -1 when more segments have
 * slots than there are blocks. */
static inline int kb_coop_rank_split(const int64_t *slots, int segments, int blocks, int *base) {
    base[0] = 0;
    if (kb_coop_deal(slots, segments, blocks, base + 1) != 0) return -1;
    for (int s = 0; s < segments; s++) base[s + 1] += base[s];
    return 0;
}

/* The look below level 0: a select that ends after one grid barrier.
 *
 * Level 0's 11-bit digit is the sign, the exponent and two mantissa bits of
 * a key: the k-th largest of 200K uniform scores shares its bin with ~25K
 * keys, so level 1 and its grid barrier would follow. Each block also counts
 * the KB_COOP_FINE_BITS bits below the level-0 digit (kb_coop_fine_digit)
 * of its composites whose level-0 digit lies in [low, top]: top its
 * highest digit, low (kb_coop_fine_low) the highest bin at which its bins
 * from top down hold want (min(k, n)) keys, or the bottom of a window of
 * KB_COOP_FINE_WINDOW bins. The segment's want-th largest lies at or above
 * every block's first kind of low (the block's keys there are already
 * want), so only a window that ended first can miss it: a block with
 * digits below its low reports low as its floor (kb_coop_fine_floor), and
 * the segment's fine counts of bin b are complete when b is at or above
 * every floor. After level 0's pick of bin b with r still to find, complete
 * counts that end the select (kb_coop_fine_ends: the sub-bin holding the
 * r-th within the slack of kb_grid_ends) make the candidates the composites
 * whose top 18 bits are at or above (b, sub): c >> KB_COOP_FINE_SHIFT >=
 * the prefix. Otherwise the select goes on to level 1 as if nothing had
 * been counted. */
enum {
    KB_COOP_FINE_BITS = 7,
    KB_COOP_FINE_BINS = 1 << KB_COOP_FINE_BITS,
    KB_COOP_FINE_WINDOW = 16, /* level-0 bins: 4 octaves of the key */
    KB_COOP_FINE_SHIFT = 53 - KB_COOP_FINE_BITS
};

KB_HD uint32_t kb_coop_fine_digit(uint64_t c) {
    return (uint32_t)(c >> KB_COOP_FINE_SHIFT) & (KB_COOP_FINE_BINS - 1);
}

/* The lowest level-0 bin a block counts finely, from its level-0 counts
 * hist, its highest digit top and the segment's want (the serial form of
 * the kernel's warp scan). */
KB_HD uint32_t kb_coop_fine_low(const uint32_t *hist, uint32_t top, uint32_t want) {
    uint32_t sum = 0;
    for (uint32_t l = 0; l < KB_COOP_FINE_WINDOW && l <= top; l++) {
        sum += hist[top - l];
        if (sum >= want) return top - l;
    }
    return top >= KB_COOP_FINE_WINDOW - 1 ? top - (KB_COOP_FINE_WINDOW - 1) : 0u;
}

/* The block's floor: its low when some of its digits lie below it, else 0
 * (it counted every bin). */
KB_HD uint32_t kb_coop_fine_floor(uint32_t low, int below_low) {
    return below_low ? low : 0u;
}

/* Over the fine counts of the level-0 bin picked with r (>= 1) still to
 * find: 1 when they end the select, with *p the sub-bin; 0 when the sub-bin
 * holds more than the slack beyond its need, or the counts hold fewer than
 * r (incomplete: level 1 decides). */
KB_HD int kb_coop_fine_ends(const uint32_t *fine, uint32_t r, uint32_t slack, kb_grid_pick *p) {
    uint32_t above = 0;
    for (int b = KB_COOP_FINE_BINS - 1; b >= 0; b--) {
        if (kb_grid_pick_step((uint32_t)b, above, fine[b], r, p))
            return kb_grid_ends(p, fine[b], slack);
        above += fine[b];
    }
    return 0;
}

#ifdef __cplusplus
}
#endif
#endif
