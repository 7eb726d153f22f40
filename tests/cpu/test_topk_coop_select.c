/* test_topk_coop_select.c — how topk/coop_select splits segments over its
 * grid (variants/topk/coop_select.h): every key in exactly one block's part,
 * every segment with winners on at least one block, the largest chunk as
 * small as the greedy split makes it, and refusals. */
#include "kbtest.h"
#include "variants/topk/coop_select.h"

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
