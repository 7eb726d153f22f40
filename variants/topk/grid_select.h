/* grid_select.h — the select rule of topk/grid_select (grid_select.cu), in
 * functions the kernels and a CPU test share (C and CUDA).
 *
 * Every element of a segment is one 64-bit composite, (key << 32) | ~index
 * (key: kb_topk_key). The composites are distinct (indices are), and the
 * contract's order (value descending, equal values by lower index first) is
 * exactly the composites' order descending. So the top k are the k largest
 * composites, found by a radix select over 64 bits: six levels of 11, 11,
 * 10, 11, 11 and 10-bit digits, high to low. At each level the histogram of
 * the digits of the elements still in play picks the bin that holds the r-th
 * largest (kb_topk_pick_step): bins above it win outright, the bin itself
 * either wins whole (when all of it is needed) or stays in play with
 * r - above to find. After the sixth level a bin holds one composite, so the
 * select always ends by taking a bin whole: no tie rule beyond the order.
 *
 * Who runs a level changes nothing of the rule: once at most
 * KB_GRID_FINISH_CAP composites are in play (kb_grid_next_step), one block
 * runs the remaining levels over them instead of the whole GPU. A level-5 bin
 * shares 54 bits, so at most 2^10 composites are ever in play there: level 5
 * never needs the grid.
 */
#ifndef KB_TOPK_GRID_SELECT_H
#define KB_TOPK_GRID_SELECT_H

#include "kbench/variant.h"
#include "kbench/ops/topk.h"

#include <math.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { KB_GRID_LEVELS = 6, KB_GRID_BINS = 2048, KB_GRID_FINISH_CAP = 4096 };

/* The composite of the element at index idx (>= 0) with key `key`. */
KB_HD uint64_t kb_grid_composite(uint32_t key, int32_t idx) {
    return ((uint64_t)key << 32) | (uint32_t) ~(uint32_t)idx;
}

/* The index a composite was made from. */
KB_HD int32_t kb_grid_index(uint64_t c) {
    return (int32_t) ~(uint32_t)c;
}

/* The lowest bit of level 0..5's digit: 53, 42, 32, 21, 10, 0. The top
 * 64 - kb_grid_shift(L) bits of a composite are its digits of levels 0..L. */
KB_HD int kb_grid_shift(int level) {
    return level == 0   ? 53
           : level == 1 ? 42
           : level == 2 ? 32
           : level == 3 ? 21
           : level == 4 ? 10
                        : 0;
}

/* The digit of level 0..5: bits 63..53, 52..42, 41..32, 31..21, 20..10, 9..0. */
KB_HD uint32_t kb_grid_digit(uint64_t c, int level) {
    const uint32_t mask = (level == 2 || level == 5) ? 0x3FFu : 0x7FFu;
    return (uint32_t)(c >> kb_grid_shift(level)) & mask;
}

/* The digits of levels 0..level (the top 64 - kb_grid_shift(level) bits of
 * the composites still in play after it) from those of levels 0..level-1
 * (0 before level 0) and level's pick. A select that ends at level L with
 * prefix P wins exactly the composites c with c >> kb_grid_shift(L) >= P. */
KB_HD uint64_t kb_grid_extend(uint64_t prefix, int level, uint32_t bin) {
    const int width = (level == 0 ? 64 : kb_grid_shift(level - 1)) - kb_grid_shift(level);
    return (prefix << width) | bin;
}

/* What a level decided: the bin holding the r-th largest, how many of it are
 * still needed, and whether that is all of it (the select ends). */
typedef struct kb_grid_pick {
    uint32_t bin, need, take_all;
} kb_grid_pick;

/* Bin `bin` holds `count` elements with `above` elements in higher bins.
 * 1 (and *p filled) when it holds the r-th largest (1 <= r): above < r <=
 * above + count. Exactly one bin of a histogram with >= r elements does. */
KB_HD int kb_grid_pick_step(uint32_t bin, uint32_t above, uint32_t count, uint32_t r,
                            kb_grid_pick *p) {
    if (!(above < r && r <= above + count)) return 0;
    p->bin = bin;
    p->need = r - above;
    p->take_all = p->need == count;
    return 1;
}

/* Whether a pick ends the select when up to `slack` composites beyond the
 * k may win and be ranked out later (topk/coop_select): the picked bin,
 * `count` composites, is taken whole when all of it is needed or when the
 * part not needed is at most slack. With slack 0: p->take_all. */
KB_HD int kb_grid_ends(const kb_grid_pick *p, uint32_t count, uint32_t slack) {
    return p->take_all || count - p->need <= slack;
}

/* The pick over a whole histogram, bins scanned from the top (the serial
 * form of the kernel's scan); 0 when it holds fewer than r elements. */
KB_HD int kb_grid_pick_bin(const uint32_t *hist, uint32_t r, kb_grid_pick *p) {
    uint32_t above = 0;
    for (int b = KB_GRID_BINS - 1; b >= 0; b--) {
        if (kb_grid_pick_step((uint32_t)b, above, hist[b], r, p)) return 1;
        above += hist[b];
    }
    return 0;
}

/* Who runs a level (>= 1), from the previous level's pick: nobody (that bin
 * was taken whole: the select ended), one block (at most `cap` composites
 * in play) or the grid. */
typedef enum { KB_GRID_ENDED, KB_GRID_FINISH, KB_GRID_PASS } kb_grid_runner;

KB_HD kb_grid_runner kb_grid_next_step(uint32_t prev_take_all, uint32_t in_play, uint32_t cap) {
    return prev_take_all ? KB_GRID_ENDED : in_play <= cap ? KB_GRID_FINISH : KB_GRID_PASS;
}

/* ---- The sampled threshold (a fast path in front of the levels) --------
 *
 * The levels read every key twice (a histogram, then level 0's compaction)
 * and, on uniform scores, write and re-read a quarter of them. A strided
 * sample of KB_GRID_SAMPLE keys says nearly where the want-th largest key
 * lies: with T the r-th largest sample key, every key >= T is a candidate,
 * found in the same pass as level 0's histogram. When the candidates number
 * want..KB_GRID_SAMPLED_CAP, they hold the whole top want (they are every
 * key >= T), and the select finishes on them alone; otherwise (a sample that
 * missed, or ties past the cap) the levels run as if there had been none.
 * The sample decides only the speed, never the answer.
 *
 * The candidates' keys are binned by their offset from T (2048 bins, the
 * shift putting the sample's largest key in bins < 1024); the bin holding
 * the want-th largest candidate cuts them to those in it or above, at most
 * KB_GRID_RANK_CAP, which are ranked and written. */
enum { KB_GRID_SAMPLE = 16384, KB_GRID_SAMPLED_CAP = 65536, KB_GRID_RANK_CAP = 4096 };

/* The index of sample j (< s) of n keys (s <= n): evenly strided. */
KB_HD int64_t kb_grid_sample_index(uint32_t j, int64_t n, uint32_t s) {
    return (int64_t)j * n / (int64_t)s;
}

/* The sample rank r whose key T is at or below the want-th largest key of n
 * with high probability: the samples at or above that key number about
 * Poisson(lambda), lambda = want s / n; r is 4 standard deviations and 4
 * past lambda (a miss: ~1e-5 at lambda ~1, rarer above), at most s. The
 * candidates then number about r n / s. */
KB_HD uint32_t kb_grid_sample_rank(uint32_t want, int64_t n, uint32_t s) {
    const double lambda = (double)want * (double)s / (double)n;
    const double r = lambda + 4.0 * sqrt(lambda) + 4.0;
    return r >= (double)s ? s : (uint32_t)r + 1u;
}

/* The shift of the candidates' offset bins: the smallest putting hi - lo
 * (the sample's largest key over T) in bins < 1024. */
KB_HD uint32_t kb_grid_offset_shift(uint32_t lo, uint32_t hi) {
    uint32_t span = hi - lo, shift = 0;
    while ((span >> shift) >= 1024u) shift++;
    return shift;
}

/* The offset bin of a candidate key (>= lo): non-decreasing in the key, so
 * the bins order the candidates as their keys do; keys far above the
 * sample's largest share the top bin. */
KB_HD uint32_t kb_grid_offset_bin(uint32_t key, uint32_t lo, uint32_t shift) {
    const uint32_t b = (key - lo) >> shift;
    return b < KB_GRID_BINS - 1 ? b : KB_GRID_BINS - 1;
}

/* Whether the sampled candidates finish the select: m (every key >= T)
 * holds the want, fits the list, and the cut (`above` candidates in bins
 * above the pick, `count` in it) fits the rank. */
KB_HD int kb_grid_sampled_ok(uint32_t want, uint32_t m, uint32_t cap, uint32_t above,
                             uint32_t count) {
    return m >= want && m <= cap && above + count <= KB_GRID_RANK_CAP;
}

#ifdef __cplusplus
}
#endif
#endif
