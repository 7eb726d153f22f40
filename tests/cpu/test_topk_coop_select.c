/* test_topk_coop_select.c — how topk/coop_select splits segments over its
 * grid (variants/topk/coop_select.h): every key in exactly one block's part,
 * every segment with winners on at least one block, the largest chunk as
 * small as the greedy split makes it, and refusals; and its look below
 * level 0, modelled block by block: the counts complete where the floor
 * says so, the candidates of an early end holding the k largest. */
#include "kbtest.h"
#include "topk.h"
#include "variants/topk/coop_select.h"

#include <stdlib.h>
#include <string.h>

enum { kBlocks = 132 };

/* Every key of segment s, when it has something to select, lies in exactly
 * one part; its parts are contiguous, starting at 0; returns the blocks it
 * holds. */
static int expect_cover(const int64_t *len, int64_t k, const kb_coop_part *parts, int blocks,
                        int s) {
    int held = 0;
    int64_t next = 0;
    for (int b = 0; b < blocks; b++) {
        if (parts[b].seg != s) continue;
        KB_EXPECT(parts[b].lo == next && parts[b].hi >= parts[b].lo && parts[b].hi <= len[s]);
        next = parts[b].hi;
        held++;
    }
    if (len[s] > 0 && k > 0)
        KB_EXPECT(next == len[s] && held >= 1);
    else
        KB_EXPECT(held == 0);
    return held;
}

KB_TEST(coop_assign_splits_the_rpn_levels_by_length) {
    const int64_t len[] = {201600, 50400, 12600, 3150, 819};
    kb_coop_part parts[kBlocks];
    int per[5], held[5];
    const int64_t chunk = kb_coop_assign(len, 5, 1000, kBlocks, per, parts);
    for (int s = 0; s < 5; s++) held[s] = expect_cover(len, 1000, parts, kBlocks, s);
    /* 268569 keys on 132 blocks: ~2035 a block at best */
    KB_EXPECT(chunk >= 2035 && chunk <= 2100);
    KB_EXPECT(held[0] > held[1] && held[1] > held[2] && held[4] >= 1);
    KB_EXPECT(held[0] + held[1] + held[2] + held[3] + held[4] == kBlocks);
}

KB_TEST(coop_assign_gives_one_segment_every_block) {
    const int64_t len[] = {1048576};
    kb_coop_part parts[kBlocks];
    int per[1];
    KB_EXPECT(kb_coop_assign(len, 1, 100, kBlocks, per, parts) == (1048576 + 131) / 132);
    KB_EXPECT(expect_cover(len, 100, parts, kBlocks, 0) == kBlocks);
}

KB_TEST(coop_assign_leaves_empty_segments_and_spare_blocks_idle) {
    const int64_t len[] = {0, 5, 0, 3};
    kb_coop_part parts[kBlocks];
    int per[4];
    KB_EXPECT(kb_coop_assign(len, 4, 7, kBlocks, per, parts) == 1);
    int idle = 0;
    for (int s = 0; s < 4; s++) expect_cover(len, 7, parts, kBlocks, s);
    for (int b = 0; b < kBlocks; b++) idle += parts[b].seg == -1;
    KB_EXPECT(idle == kBlocks - 8); /* one key a block: no more blocks than keys */
}

KB_TEST(coop_assign_gives_k_zero_no_blocks) {
    const int64_t len[] = {1000, 2000};
    kb_coop_part parts[kBlocks];
    int per[2];
    KB_EXPECT(kb_coop_assign(len, 2, 0, kBlocks, per, parts) == 0);
    for (int b = 0; b < kBlocks; b++) KB_EXPECT(parts[b].seg == -1);
}

KB_TEST(coop_assign_refuses_more_segments_than_blocks) {
    int64_t len[8];
    kb_coop_part parts[4];
    int per[8];
    for (int s = 0; s < 8; s++) len[s] = 100;
    KB_EXPECT(kb_coop_assign(len, 8, 10, 4, per, parts) == -1);
    KB_EXPECT(kb_coop_assign(len, 4, 10, 4, per, parts) == 100);
}

KB_TEST(coop_rank_split_gives_each_segment_whole_blocks_by_its_slots) {
    const int64_t slots[] = {1256, 1256, 0, 1256, 819};
    int base[6];
    KB_EXPECT(kb_coop_rank_split(slots, 5, kBlocks, base) == 0);
    KB_EXPECT(base[0] == 0 && base[5] == kBlocks);
    KB_EXPECT(base[3] == base[2]); /* no slots: no block */
    for (int s = 0; s < 5; s++) {
        const int held = base[s + 1] - base[s];
        if (slots[s]) KB_EXPECT(held >= 1 && kb_coop_chunk(slots[s], held) <= 50);
    }
    KB_EXPECT(base[1] - base[0] > base[5] - base[4]); /* more slots, more blocks */
}

KB_TEST(coop_rank_split_stops_at_one_slot_a_block_and_refuses_too_many_segments) {
    const int64_t slots[] = {3, 0, 2};
    int base[4];
    KB_EXPECT(kb_coop_rank_split(slots, 3, kBlocks, base) == 0);
    KB_EXPECT(base[1] == 3 && base[2] == 3 && base[3] == 5);
    const int64_t many[] = {1, 1, 1};
    KB_EXPECT(kb_coop_rank_split(many, 3, 2, base) == -1);
}

/* The look below level 0 (coop_select.h) over one segment of keys split into
 * `blocks` contiguous parts, as the kernel does it: each block's window
 * under its highest digit, its floor, the segment's level-0 histogram and
 * fine counts. */
typedef struct fine_model {
    uint32_t hist[KB_GRID_BINS];
    uint32_t *fine; /* [KB_GRID_BINS][KB_COOP_FINE_BINS] */
    uint32_t floor;
} fine_model;

static void fine_count(const float *v, int n, int blocks, uint32_t want, fine_model *m) {
    memset(m->hist, 0, sizeof m->hist);
    m->fine = calloc((size_t)KB_GRID_BINS * KB_COOP_FINE_BINS, sizeof(uint32_t));
    m->floor = 0;
    const int chunk = (int)kb_coop_chunk(n, blocks);
    for (int lo = 0; lo < n; lo += chunk) {
        const int hi = lo + chunk < n ? lo + chunk : n;
        uint32_t top = 0, mine[KB_GRID_BINS] = {0};
        for (int i = lo; i < hi; i++) {
            const uint32_t d = kb_grid_digit(kb_grid_composite(kb_topk_key(v[i]), i), 0);
            top = d > top ? d : top;
            mine[d]++;
            m->hist[d]++;
        }
        const uint32_t low = kb_coop_fine_low(mine, top, want);
        int below = 0;
        for (int i = lo; i < hi; i++) {
            const uint64_t c = kb_grid_composite(kb_topk_key(v[i]), i);
            const uint32_t d = kb_grid_digit(c, 0);
            if (d >= low)
                m->fine[d * KB_COOP_FINE_BINS + kb_coop_fine_digit(c)]++;
            else
                below = 1;
        }
        const uint32_t f = kb_coop_fine_floor(low, below);
        m->floor = f > m->floor ? f : m->floor;
    }
}

/* Every composite of level-0 bin `bin` counted in the fine counts. */
static int fine_complete(const float *v, int n, const fine_model *m, uint32_t bin) {
    uint32_t truth[KB_COOP_FINE_BINS] = {0};
    for (int i = 0; i < n; i++) {
        const uint64_t c = kb_grid_composite(kb_topk_key(v[i]), i);
        if (kb_grid_digit(c, 0) == bin) truth[kb_coop_fine_digit(c)]++;
    }
    return memcmp(truth, m->fine + bin * KB_COOP_FINE_BINS, sizeof truth) == 0;
}

static int desc_u64(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The shortcut on v: 1 when it ends the select at level 0 (then the
 * candidates c >> KB_COOP_FINE_SHIFT >= prefix hold the want largest and at
 * most kSlack more), 0 when level 1 must decide. Where the floor says the
 * picked bin's counts are complete, they are. */
static int fine_shortcut(const float *v, int n, int blocks, uint32_t want, uint32_t slack) {
    fine_model m;
    fine_count(v, n, blocks, want, &m);
    kb_grid_pick p = {0, 0, 0}, q = {0, 0, 0};
    int ends = 0;
    KB_EXPECT(kb_grid_pick_bin(m.hist, want, &p));
    if (!kb_grid_ends(&p, m.hist[p.bin], slack) && p.bin >= m.floor) {
        KB_EXPECT(fine_complete(v, n, &m, p.bin));
        ends = kb_coop_fine_ends(m.fine + p.bin * KB_COOP_FINE_BINS, p.need, slack, &q);
    }
    if (ends) {
        const uint64_t prefix = ((uint64_t)p.bin << KB_COOP_FINE_BITS) | q.bin;
        uint64_t *c = malloc(sizeof(uint64_t) * (size_t)n);
        uint32_t cands = 0;
        for (int i = 0; i < n; i++) {
            c[i] = kb_grid_composite(kb_topk_key(v[i]), i);
            cands += c[i] >> KB_COOP_FINE_SHIFT >= prefix;
        }
        qsort(c, (size_t)n, sizeof *c, desc_u64);
        KB_EXPECT(c[want - 1] >> KB_COOP_FINE_SHIFT >= prefix); /* the want largest */
        KB_EXPECT(cands >= want && cands <= want + slack);
        free(c);
    }
    free(m.fine);
    return ends;
}

static float *uniform_keys(int n, uint64_t seed) {
    float *v = malloc(sizeof(float) * (size_t)n);
    for (int i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = (float)(seed >> 40) / (float)(1 << 24);
    }
    return v;
}

KB_TEST(coop_fine_counts_end_uniform_rpn_levels_at_level_0) {
    /* the largest RPN level on 99 blocks, k = 1000: level 0's bin [0.875,
     * 1) holds ~25K, its sub-bin at the 1000th largest ~200 */
    float *v = uniform_keys(201600, 1);
    KB_EXPECT(fine_shortcut(v, 201600, 99, 1000, 256));
    KB_EXPECT(fine_shortcut(v, 50400, 25, 1000, 256));
    free(v);
}

KB_TEST(coop_fine_counts_skip_a_bin_below_a_blocks_window) {
    /* one block's key far above the rest moves its window away from the
     * k-th largest's bin: the counts of that bin miss the block's keys, and
     * the floor says so */
    float *v = uniform_keys(20000, 2);
    v[5] = 1.0e6f;
    fine_model m;
    fine_count(v, 20000, 10, 1000, &m);
    kb_grid_pick p = {0, 0, 0};
    KB_EXPECT(kb_grid_pick_bin(m.hist, 1000, &p));
    KB_EXPECT(p.bin < m.floor);
    KB_EXPECT(!fine_complete(v, 20000, &m, p.bin));
    free(m.fine);
    KB_EXPECT(!fine_shortcut(v, 20000, 10, 1000, 256));
    free(v);
}

KB_TEST(coop_fine_counts_leave_a_heavy_sub_bin_to_level_1) {
    /* 3000 copies of 0.96, the 1000th largest (~680 of the rest lie above
     * it): its sub-bin holds more than the slack beyond the need */
    float *v = uniform_keys(20000, 3);
    for (int i = 0; i < 3000; i++) v[i * 6] = 0.96f;
    KB_EXPECT(!fine_shortcut(v, 20000, 10, 1000, 256));
    KB_EXPECT(fine_shortcut(v, 20000, 10, 1000, 3000)); /* the bin, ~4100 spare, does not */
    free(v);
}

KB_TEST(coop_fine_ends_within_the_slack_and_not_past_it) {
    uint32_t fine[KB_COOP_FINE_BINS] = {0};
    fine[127] = 10;
    fine[100] = 300; /* r = 20: the 10th of 300 is needed, 290 spare */
    kb_grid_pick p = {0, 0, 0};
    KB_EXPECT(kb_coop_fine_ends(fine, 20, 290, &p) && p.bin == 100 && p.need == 10);
    KB_EXPECT(!kb_coop_fine_ends(fine, 20, 289, &p));
    KB_EXPECT(kb_coop_fine_ends(fine, 10, 0, &p) && p.bin == 127 && p.take_all);
    KB_EXPECT(!kb_coop_fine_ends(fine, 311, 1000, &p)); /* fewer than r: incomplete */
}

KB_TEST(coop_fine_low_stops_where_the_block_holds_want_or_the_window_ends) {
    uint32_t hist[KB_GRID_BINS] = {0};
    hist[100] = 5;
    hist[98] = 10;
    hist[90] = 100;
    KB_EXPECT(kb_coop_fine_low(hist, 100, 5) == 100);
    KB_EXPECT(kb_coop_fine_low(hist, 100, 6) == 98);
    KB_EXPECT(kb_coop_fine_low(hist, 100, 15) == 98);
    KB_EXPECT(kb_coop_fine_low(hist, 100, 16) == 90);
    KB_EXPECT(kb_coop_fine_low(hist, 100, 1000) == 100 - KB_COOP_FINE_WINDOW + 1);
    KB_EXPECT(kb_coop_fine_low(hist, 3, 1000) == 0); /* the window stops at bin 0 */
    KB_EXPECT(kb_coop_fine_floor(90, 1) == 90 && kb_coop_fine_floor(90, 0) == 0);
}
