/* test_topk_grid_select.c — the select rule of topk/grid_select and
 * topk/coop_select (variants/topk/grid_select.h) on the CPU: the bin pick,
 * the composite order, who runs each level (the grid, or one block once few
 * are in play), and the six levels run serially against the CPU reference,
 * in both forms: candidates compacted level by level (grid_select), and
 * every composite tested against the prefix of the picked digits, a bin
 * taken whole with a slack of extra winners (coop_select). */
#include "kbtest.h"
#include "topk.h"
#include "variants/topk/grid_select.h"

#include <stdlib.h>

KB_TEST(grid_pick_finds_the_bin_holding_the_rth_largest_from_the_top) {
    uint32_t hist[KB_GRID_BINS] = {0};
    hist[2000] = 3;
    hist[1500] = 5;
    hist[7] = 10;
    kb_grid_pick p;
    KB_EXPECT(kb_grid_pick_bin(hist, 3, &p) && p.bin == 2000 && p.need == 3 && p.take_all);
    KB_EXPECT(kb_grid_pick_bin(hist, 4, &p) && p.bin == 1500 && p.need == 1 && !p.take_all);
    KB_EXPECT(kb_grid_pick_bin(hist, 9, &p) && p.bin == 7 && p.need == 1 && !p.take_all);
    KB_EXPECT(kb_grid_pick_bin(hist, 18, &p) && p.bin == 7 && p.need == 10 && p.take_all);
}

KB_TEST(grid_pick_fails_when_the_histogram_holds_fewer_than_r) {
    uint32_t hist[KB_GRID_BINS] = {0};
    hist[0] = 2;
    kb_grid_pick p;
    KB_EXPECT(!kb_grid_pick_bin(hist, 3, &p));
}

KB_TEST(grid_pick_step_needs_above_below_r_and_r_within_the_bin) {
    kb_grid_pick p;
    KB_EXPECT(!kb_grid_pick_step(5, 4, 0, 5, &p)); /* an empty bin never holds it */
    KB_EXPECT(!kb_grid_pick_step(5, 5, 3, 5, &p)); /* r-th already above */
    KB_EXPECT(kb_grid_pick_step(5, 4, 3, 5, &p) && p.need == 1 && !p.take_all);
}

KB_TEST(grid_composites_order_value_descending_then_lower_index) {
    const uint64_t a = kb_grid_composite(kb_topk_key(2.0f), 9);
    const uint64_t b = kb_grid_composite(kb_topk_key(1.0f), 0);
    const uint64_t z_neg = kb_grid_composite(kb_topk_key(-0.0f), 3);
    const uint64_t z_pos = kb_grid_composite(kb_topk_key(0.0f), 4);
    KB_EXPECT(a > b && b > z_neg);
    KB_EXPECT(z_neg > z_pos); /* -0 == +0: the lower index first */
    KB_EXPECT(kb_grid_index(z_pos) == 4 && kb_grid_index(a) == 9);
}

KB_TEST(grid_extend_builds_the_top_bits_of_the_picked_levels) {
    const uint64_t c = 0xFEDCBA9876543210ull;
    uint64_t prefix = 0;
    for (int level = 0; level < KB_GRID_LEVELS; level++) {
        prefix = kb_grid_extend(prefix, level, kb_grid_digit(c, level));
        KB_EXPECT(prefix == c >> kb_grid_shift(level));
    }
}

KB_TEST(grid_digits_cover_all_64_bits_once) {
    const uint64_t c = 0xFEDCBA9876543210ull;
    uint64_t rebuilt = 0;
    const int widths[KB_GRID_LEVELS] = {11, 11, 10, 11, 11, 10};
    for (int level = 0; level < KB_GRID_LEVELS; level++)
        rebuilt = (rebuilt << widths[level]) | kb_grid_digit(c, level);
    KB_EXPECT(rebuilt == c);
}

KB_TEST(grid_next_step_finishes_at_the_cap_and_ends_after_a_whole_bin) {
    KB_EXPECT(kb_grid_next_step(1, 5, 4096) == KB_GRID_ENDED);
    KB_EXPECT(kb_grid_next_step(1, 100000, 4096) == KB_GRID_ENDED);
    KB_EXPECT(kb_grid_next_step(0, 4096, 4096) == KB_GRID_FINISH);
    KB_EXPECT(kb_grid_next_step(0, 1, 4096) == KB_GRID_FINISH);
    KB_EXPECT(kb_grid_next_step(0, 4097, 4096) == KB_GRID_PASS);
}

KB_TEST(grid_finish_cap_holds_every_level_5_bin) {
    /* composites sharing the digits of levels 0-4 differ in 10 bits only */
    const uint64_t c = 0x123456789ABCDEF0ull;
    int distinct = 0;
    for (uint32_t low = 0; low < 4096; low++) {
        const uint64_t d = (c & ~0xFFFull) | low;
        int same = 1;
        for (int level = 0; level < KB_GRID_LEVELS - 1; level++)
            same &= kb_grid_digit(d, level) == kb_grid_digit(c, level);
        distinct += same;
    }
    KB_EXPECT(distinct == 1024 && distinct <= KB_GRID_FINISH_CAP);
}

static int desc_u64(const void *x, const void *y) {
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? 1 : a > b ? -1 : 0;
}

/* The kernels' levels run serially: histogram of the digits in play, the
 * pick, winners out, the picked bin kept (or taken whole). From level 1 on,
 * kb_grid_next_step says who runs the level: a level the grid would run is
 * counted in grid_runs[level], and once one block would finish (at most
 * `cap` in play) no later level is a grid pass. Fills idx[0..want) and
 * returns want, or -1 when the levels end with the wrong number or the grid
 * would run a level after the finish or level 5. */
static int grid_select_serial(const float *v, int n, int k, uint32_t cap, int32_t *idx,
                              int grid_runs[KB_GRID_LEVELS]) {
    const int want = n < k ? n : k;
    uint64_t *play = malloc((size_t)n * 8 + 8), *next = malloc((size_t)n * 8 + 8);
    uint64_t *win = malloc((size_t)n * 8 + 8);
    int m = n, winners = 0, finishing = 0, bad_runner = 0;
    uint32_t r = (uint32_t)want;
    for (int i = 0; i < n; i++) play[i] = kb_grid_composite(kb_topk_key(v[i]), i);
    for (int level = 0; level < KB_GRID_LEVELS && r > 0; level++) {
        if (level > 0 && !finishing) {
            const kb_grid_runner who = kb_grid_next_step(0, (uint32_t)m, cap);
            finishing = who == KB_GRID_FINISH;
            if (who == KB_GRID_PASS) {
                grid_runs[level]++;
                bad_runner |= level == KB_GRID_LEVELS - 1;
            }
        }
        uint32_t hist[KB_GRID_BINS] = {0};
        for (int i = 0; i < m; i++) hist[kb_grid_digit(play[i], level)]++;
        kb_grid_pick p;
        if (!kb_grid_pick_bin(hist, r, &p)) break;
        int kept = 0;
        for (int i = 0; i < m; i++) {
            const uint32_t d = kb_grid_digit(play[i], level);
            if (d > p.bin || (p.take_all && d == p.bin))
                win[winners++] = play[i];
            else if (d == p.bin)
                next[kept++] = play[i];
        }
        r = p.take_all ? 0 : p.need;
        uint64_t *t = play;
        play = next;
        next = t;
        m = kept;
    }
    qsort(win, (size_t)winners, 8, desc_u64);
    for (int j = 0; j < winners && j < want; j++) idx[j] = kb_grid_index(win[j]);
    free(play);
    free(next);
    free(win);
    return r == 0 && winners == want && !bad_runner ? want : -1;
}

/* coop_select's form: no candidate lists; each level counts the composites
 * whose higher digits equal the prefix picked so far (kb_grid_extend), and
 * the level whose pick ends the select (kb_grid_ends: up to `slack` extra)
 * wins every composite at or above the prefix; the first want of them,
 * sorted, are the top k. Fills idx[0..want) and returns want, or -1 when
 * the count is not in [want, want + slack] or no level ends the select. */
static int prefix_select_serial(const float *v, int n, int k, uint32_t slack, int32_t *idx) {
    const int want = n < k ? n : k;
    uint64_t *c = malloc((size_t)n * 8 + 8), *win = malloc((size_t)n * 8 + 8);
    uint64_t prefix = 0;
    uint32_t r = (uint32_t)want;
    int level = 0, ended = want == 0, winners = 0;
    for (int i = 0; i < n; i++) c[i] = kb_grid_composite(kb_topk_key(v[i]), i);
    for (; level < KB_GRID_LEVELS && !ended; level++) {
        uint32_t hist[KB_GRID_BINS] = {0};
        for (int i = 0; i < n; i++)
            if (level == 0 || c[i] >> kb_grid_shift(level - 1) == prefix)
                hist[kb_grid_digit(c[i], level)]++;
        kb_grid_pick p;
        if (!kb_grid_pick_bin(hist, r, &p)) break;
        prefix = kb_grid_extend(prefix, level, p.bin);
        r = p.need;
        ended = kb_grid_ends(&p, hist[p.bin], slack);
    }
    if (ended && want > 0)
        for (int i = 0; i < n; i++)
            if (c[i] >> kb_grid_shift(level - 1) >= prefix) win[winners++] = c[i];
    qsort(win, (size_t)winners, 8, desc_u64);
    for (int j = 0; j < winners && j < want; j++) idx[j] = kb_grid_index(win[j]);
    free(c);
    free(win);
    return ended && winners >= want && winners <= want + (int)slack ? want : -1;
}

/* The serial levels give the reference's indices on n values from `pick`
 * (a few distinct values: many ties, -0 and +0 among them). */
static void expect_reference_cap(int n, int k, const float *pool, int pool_size, uint32_t seed,
                                 uint32_t cap, int grid_runs[KB_GRID_LEVELS]) {
    kb_case c;
    kb_tensors in = {0}, out = {0};
    kb_error e;
    char segments[32], kk[32];
    snprintf(segments, sizeof segments, "%d", n);
    snprintf(kk, sizeof kk, "%d", k);
    kb_case_defaults(&c, &kb_op_topk);
    KB_EXPECT(kb_case_set(&c, "segments", segments, &e) == KB_OK &&
              kb_case_set(&c, "k", kk, &e) == KB_OK);
    KB_EXPECT(kb_op_topk.describe(&c, &in, &out, &e) == KB_OK &&
              kb_tensors_alloc_host(&in, &e) == KB_OK && kb_tensors_alloc_host(&out, &e) == KB_OK);
    float *v = kb_tensors_get(&in, "values")->data;
    int32_t *offsets = kb_tensors_get(&in, "offsets")->data;
    offsets[0] = 0;
    offsets[1] = n;
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = pool[(seed >> 8) % (uint32_t)pool_size];
    }
    KB_EXPECT(kb_topk_reference(&c, &in, &out, &e) == KB_OK);
    const int32_t *ref = kb_tensors_get(&out, "topk_indices")->data;
    int32_t *got = malloc((size_t)k * 4 + 4);
    const int want = grid_select_serial(v, n, k, cap, got, grid_runs);
    KB_EXPECT(want == (n < k ? n : k));
    int mismatches = 0;
    for (int j = 0; j < want; j++) mismatches += got[j] != ref[j];
    if (mismatches) printf("  n=%d k=%d: %d of %d indices differ\n", n, k, mismatches, want);
    KB_EXPECT(mismatches == 0);
    const uint32_t slacks[] = {0, 1, 256};
    for (int i = 0; i < 3; i++) {
        KB_EXPECT(prefix_select_serial(v, n, k, slacks[i], got) == (n < k ? n : k));
        mismatches = 0;
        for (int j = 0; j < want; j++) mismatches += got[j] != ref[j];
        if (mismatches)
            printf("  prefix form, slack %u, n=%d k=%d: %d indices differ\n", slacks[i], n, k,
                   mismatches);
        KB_EXPECT(mismatches == 0);
    }
    free(got);
    kb_tensors_free_host(&in);
    kb_tensors_free_host(&out);
}

/* At the kernels' cap. */
static void expect_reference(int n, int k, const float *pool, int pool_size, uint32_t seed) {
    int grid_runs[KB_GRID_LEVELS] = {0};
    expect_reference_cap(n, k, pool, pool_size, seed, KB_GRID_FINISH_CAP, grid_runs);
}

static const float ties_pool[] = {-0.0f, 0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 2.0f, 1e-30f, -3.5f};

KB_TEST(grid_select_levels_take_lower_indices_among_ties) {
    expect_reference(5000, 1000, ties_pool, 9, 1);
    expect_reference(5000, 4999, ties_pool, 9, 2);
}

KB_TEST(grid_select_levels_return_whole_segment_when_k_exceeds_it) {
    expect_reference(300, 500, ties_pool, 9, 3);
}

KB_TEST(grid_select_levels_end_on_one_composite_when_every_value_ties) {
    const float one[] = {0.75f};
    expect_reference(3000, 1, one, 1, 4);
    expect_reference(3000, 1234, one, 1, 5);
}

KB_TEST(grid_select_levels_match_reference_on_distinct_values) {
    float pool[4096];
    uint32_t s = 7;
    for (int i = 0; i < 4096; i++) {
        s = s * 1664525u + 1013904223u;
        pool[i] = (float)(s >> 8) / 16777216.0f - 0.5f;
    }
    expect_reference(20000, 100, pool, 4096, 6);
}

KB_TEST(grid_select_finish_at_any_cap_matches_reference) {
    /* 1024: the grid runs every level but 5, whose bins hold <= 1024;
     * 5000 / 10000 cut in the middle of the ties' levels or right after 0 */
    const uint32_t caps[] = {1024, 5000, 10000, KB_GRID_FINISH_CAP};
    for (int i = 0; i < 4; i++) {
        int grid_runs[KB_GRID_LEVELS] = {0};
        expect_reference_cap(40000, 1000, ties_pool, 9, 10 + (uint32_t)i, caps[i], grid_runs);
        KB_EXPECT(grid_runs[KB_GRID_LEVELS - 1] == 0);
    }
}

KB_TEST(grid_select_ties_reach_the_grid_above_the_cap_and_finish_below) {
    /* 40000 keys from the pool: ~8900 copies of 2.0 (two of its 9 entries)
     * stay in play through levels 1-4 (the key's bits and index bits 31-21,
     * all equal below 2^16), above a cap of 4096, below one of 10000; level
     * 5 (~230 left) is the finish's */
    int above[KB_GRID_LEVELS] = {0}, below[KB_GRID_LEVELS] = {0};
    expect_reference_cap(40000, 1000, ties_pool, 9, 20, KB_GRID_FINISH_CAP, above);
    expect_reference_cap(40000, 1000, ties_pool, 9, 20, 10000, below);
    KB_EXPECT(above[1] == 1 && above[2] == 1 && above[3] == 1 && above[4] == 1);
    KB_EXPECT(below[1] == 0 && below[2] == 0 && below[3] == 0);
}

static int desc_u32(const void *x, const void *y) {
    const uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? 1 : a > b ? -1 : 0;
}

/* The sampled fast path run serially: the strided sample's r-th largest key
 * T, every key >= T a candidate, the offset bins' pick of the want-th
 * largest candidate, the cut ranked. Fills idx[0..want) and returns want,
 * or -1 where the kernels would fall back to the levels; *m gets the
 * candidates' count. */
static int sampled_select_serial(const float *v, int n, int k, int32_t *idx, uint32_t *m) {
    const uint32_t want = (uint32_t)(n < k ? n : k), s = KB_GRID_SAMPLE;
    uint32_t *sample = malloc((size_t)s * 4);
    for (uint32_t j = 0; j < s; j++) sample[j] = kb_topk_key(v[kb_grid_sample_index(j, n, s)]);
    qsort(sample, s, 4, desc_u32);
    const uint32_t r = kb_grid_sample_rank(want, n, s);
    const uint32_t t = sample[r - 1], shift = kb_grid_offset_shift(t, sample[0]);
    free(sample);
    uint64_t *cand = malloc((size_t)n * 8);
    uint32_t hist[KB_GRID_BINS] = {0};
    *m = 0;
    for (int i = 0; i < n; i++) {
        const uint32_t key = kb_topk_key(v[i]);
        if (key < t) continue;
        cand[(*m)++] = kb_grid_composite(key, i);
        hist[kb_grid_offset_bin(key, t, shift)]++;
    }
    kb_grid_pick p = {0, 0, 0};
    const int found = *m >= want && kb_grid_pick_bin(hist, want, &p);
    if (!found || !kb_grid_sampled_ok(want, *m, KB_GRID_SAMPLED_CAP, want - p.need, hist[p.bin])) {
        free(cand);
        return -1;
    }
    uint32_t cut = 0;
    for (uint32_t i = 0; i < *m; i++)
        if (kb_grid_offset_bin((uint32_t)(cand[i] >> 32), t, shift) >= p.bin) cand[cut++] = cand[i];
    qsort(cand, cut, 8, desc_u64);
    for (uint32_t j = 0; j < want; j++) idx[j] = kb_grid_index(cand[j]);
    free(cand);
    return (int)want;
}

/* n values: uniform [0, 1) (24-bit steps, so ties are rare), or `pool`'s. */
static float *values_of(int n, uint32_t seed, const float *pool, int pool_size) {
    float *v = malloc((size_t)n * 4);
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = pool ? pool[(seed >> 8) % (uint32_t)pool_size] : (float)(seed >> 8) / 16777216.0f;
    }
    return v;
}

/* The serial fast path against a full sort of the composites: -1 (fell
 * back) or exactly the top k. */
static int expect_sampled(int n, int k, const float *v, uint32_t *m) {
    const int want = n < k ? n : k;
    int32_t *got = malloc((size_t)want * 4 + 4);
    uint64_t *all = malloc((size_t)n * 8);
    for (int i = 0; i < n; i++) all[i] = kb_grid_composite(kb_topk_key(v[i]), i);
    qsort(all, (size_t)n, 8, desc_u64);
    const int rc = sampled_select_serial(v, n, k, got, m);
    int mismatches = 0;
    for (int j = 0; rc >= 0 && j < want; j++) mismatches += got[j] != kb_grid_index(all[j]);
    if (mismatches)
        printf("  sampled n=%d k=%d: %d of %d indices differ\n", n, k, mismatches, want);
    KB_EXPECT(mismatches == 0);
    free(all);
    free(got);
    return rc;
}

KB_TEST(grid_sample_rank_covers_the_want_with_margin_and_stays_in_the_sample) {
    /* 16M keys, 16384 samples: lambda ~1 for k = 1000, ~0.1 for k = 100 */
    KB_EXPECT(kb_grid_sample_rank(1000, 16777216, KB_GRID_SAMPLE) == 9);
    KB_EXPECT(kb_grid_sample_rank(100, 16777216, KB_GRID_SAMPLE) == 6);
    /* lambda = s: every sample */
    KB_EXPECT(kb_grid_sample_rank(65536, 65536, KB_GRID_SAMPLE) == KB_GRID_SAMPLE);
    for (uint32_t want = 1; want <= 4096; want *= 2) {
        const uint32_t r = kb_grid_sample_rank(want, 1 << 20, KB_GRID_SAMPLE);
        const double lambda = want * (double)KB_GRID_SAMPLE / (1 << 20);
        KB_EXPECT(r >= lambda + 4.0 * sqrt(lambda) + 4.0 && r <= KB_GRID_SAMPLE);
    }
}

KB_TEST(grid_offset_bins_order_the_candidates_and_put_the_sample_below_1024) {
    const uint32_t lo = 0xBF000000u, hi = 0xBF7FFFFFu;
    const uint32_t shift = kb_grid_offset_shift(lo, hi);
    KB_EXPECT(kb_grid_offset_bin(hi, lo, shift) < 1024);
    KB_EXPECT(shift == 0 || kb_grid_offset_bin(hi, lo, shift - 1) >= 1024);
    KB_EXPECT(kb_grid_offset_shift(lo, lo) == 0 && kb_grid_offset_bin(lo, lo, 0) == 0);
    KB_EXPECT(kb_grid_offset_bin(0xFFFFFFFFu, lo, shift) == KB_GRID_BINS - 1);
    uint32_t prev = 0;
    for (uint32_t key = lo; key < 0xC0000000u; key += 4099) {
        const uint32_t b = kb_grid_offset_bin(key, lo, shift);
        KB_EXPECT(b >= prev);
        prev = b;
    }
}

KB_TEST(grid_sampled_path_is_exact_on_uniform_scores_and_falls_back_on_ties) {
    const int sizes[] = {65536, 300000, 2097152};
    const int ks[] = {1, 100, 1000, 2048};
    for (int i = 0; i < 3; i++) {
        float *v = values_of(sizes[i], 50 + (uint32_t)i, NULL, 0);
        for (int j = 0; j < 4; j++) {
            uint32_t m = 0;
            const int rc = expect_sampled(sizes[i], ks[j], v, &m);
            /* uniform scores: the fast path holds, with about r n / s candidates */
            KB_EXPECT(rc == ks[j]);
            KB_EXPECT(m >= (uint32_t)ks[j] && m <= KB_GRID_SAMPLED_CAP);
        }
        free(v);
    }
    /* 9 values: the sample's T ties a ninth of the keys, past the cap */
    float *t = values_of(1 << 20, 60, ties_pool, 9);
    uint32_t m = 0;
    KB_EXPECT(expect_sampled(1 << 20, 1000, t, &m) == -1 && m > KB_GRID_SAMPLED_CAP);
    free(t);
    /* every key equal: every key a candidate */
    const float one[] = {0.75f};
    t = values_of(100000, 61, one, 1);
    KB_EXPECT(expect_sampled(100000, 10, t, &m) == -1 && m == 100000);
    free(t);
}
