/* --shard's split (harness/run/shard.c) on the registry's own sweeps: every
 * pair in exactly one shard (the CLI test checks the same through
 * --dry-run), the same split every time, and shards balanced by the cost
 * model: no shard's estimate above the mean plus the longest pair, the
 * bound greedy list scheduling guarantees. A bound in multiples of the mean
 * alone cannot be promised: one pair can hold most of a sweep's estimated
 * cost (one size far beyond the others), and its shard holds at least it. */
#include "run/shard.h"
#include "run/sweep.h"
#include "kbtest.h"

#include <stdio.h>
#include <stdlib.h>

enum { MAXP = 1 << 16 };

static double est[MAXP];
static int shard_of[MAXP], again[MAXP];

/* The pairs of op's sweep (its registry variants, test-only ones out), as
 * a run plans them; 0 when the op has no such sweep. */
static int estimates(const kb_op *op, const char *sweep) {
    if (!kb_find_sweep(op, sweep)) return 0;
    kb_case_list cases = {0};
    kb_error e;
    if (kb_expand_sweep(op, sweep, NULL, 0, &cases, &e) != KB_OK) {
        fprintf(stderr, "  %s/%s: %s\n", op->name, sweep, e.msg);
        return -1;
    }
    int n = 0;
    for (int c = 0; c < cases.count; c++)
        for (int v = 0; kb_variants[v].op && n < MAXP; v++)
            if (strcmp(kb_variants[v].op, op->name) == 0 && !(kb_variants[v].flags & KB_TEST_ONLY))
                est[n++] = kb_shard_estimate(&cases.cases[c], &kb_variants[v]);
    kb_case_list_free(&cases);
    return n;
}

KB_TEST(every_pair_in_one_shard_the_same_split_every_time_and_balanced) {
    static const char *const sweeps[] = {"default", "full"};
    static const int counts[] = {1, 2, 3, 7};
    int checked = 0;
    for (int o = 0; kb_ops[o]; o++)
        for (int s = 0; s < 2; s++) {
            int n = estimates(kb_ops[o], sweeps[s]);
            KB_EXPECT(n >= 0);
            if (n <= 0) continue;
            for (int k = 0; k < 4; k++) {
                int N = counts[k];
                double load[7] = {0}, total = 0, longest = 0;
                kb_shard_assign(est, n, N, shard_of);
                kb_shard_assign(est, n, N, again);
                for (int i = 0; i < n; i++) {
                    KB_EXPECT(shard_of[i] >= 0 && shard_of[i] < N);
                    KB_EXPECT(shard_of[i] == again[i]);
                    load[shard_of[i]] += est[i];
                    total += est[i];
                    if (est[i] > longest) longest = est[i];
                }
                double mean = total / N, worst = 0;
                for (int j = 0; j < N; j++)
                    if (load[j] > worst) worst = load[j];
                if (worst > mean + longest * (1 + 1e-12))
                    fprintf(stderr, "  %s/%s N=%d: worst shard %.4g s > mean %.4g + longest %.4g\n",
                            kb_ops[o]->name, sweeps[s], N, worst, mean, longest);
                KB_EXPECT(worst <= mean + longest * (1 + 1e-12));
                checked++;
            }
        }
    KB_EXPECT(checked >= 6 * 4);
}

KB_TEST(equal_estimates_split_round_robin_by_index) {
    double e[5] = {1, 1, 1, 1, 1};
    int of[5];
    kb_shard_assign(e, 5, 2, of);
    KB_EXPECT(of[0] == 0 && of[1] == 1 && of[2] == 0 && of[3] == 1 && of[4] == 0);
}

KB_TEST(the_longest_pairs_are_spread_first) {
    double e[4] = {1, 10, 1, 10};
    int of[4];
    kb_shard_assign(e, 4, 2, of);
    KB_EXPECT(of[1] != of[3]);
    KB_EXPECT(of[0] != of[2]);
}

KB_TEST(shard_text_is_checked) {
    int i, n;
    kb_error e;
    KB_EXPECT(kb_shard_parse("2/4", &i, &n, &e) == KB_OK && i == 2 && n == 4);
    KB_EXPECT(kb_shard_parse("4/4", &i, &n, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "--shard 4/4");
    KB_EXPECT(kb_shard_parse("1/0", &i, &n, &e) == KB_ERR);
    KB_EXPECT(kb_shard_parse("1/2x", &i, &n, &e) == KB_ERR);
    KB_EXPECT(kb_shard_parse("-1/2", &i, &n, &e) == KB_ERR);
}
