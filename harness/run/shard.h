/* shard.h — --shard I/N: the sweep's (case, variant) pairs split into N parts
 * that N independent processes (or machines) run, each computing the same
 * split without talking to the others (shard.c). */
#ifndef KB_SHARD_H
#define KB_SHARD_H

#include "kbench.h"

/* The nominal device a pair's time is estimated on: the split needs only
 * relative costs, and every process must compute the same ones, so these
 * are fixed numbers (about an H100's), never a measured device's. */
#define KB_SHARD_PEAK_FLOPS 50e12 /* FLOP/s */
#define KB_SHARD_PEAK_BYTES 3e12  /* B/s */
/* What a pair costs whatever its size: inputs, the CPU reference, the check,
 * warm-up and the stop rule's minimum samples. */
#define KB_SHARD_PAIR_S 1e-3
#define KB_MAX_SHARDS   1024

/* 1 unless variant v declines case c as another function of the op
 * (supports() says KB_NOT_APPLICABLE, without a device alike): such a pair
 * makes no row. */
int kb_pair_applicable(const kb_case *c, const kb_variant *v);

/* The estimated time of variant v on case c: max(flops / peak, bytes / peak
 * bandwidth) + KB_SHARD_PAIR_S; 0 for a pair the variant declines as
 * another function of the op (it makes no row). */
double kb_shard_estimate(const kb_case *c, const kb_variant *v);

/* Greedy longest-processing-time: pairs by estimate, longest first (equal
 * estimates by index), each to the shard with the least estimated load so
 * far (equal loads: the lowest shard). shard_of[i] gets pair i's shard.
 * Deterministic: the same estimates give the same split in every process.
 * Any shard's load is at most the mean load plus the longest pair. */
void kb_shard_assign(const double *est, int n, int nshards, int *shard_of);

/* "I/N" with 0 <= I < N <= KB_MAX_SHARDS; KB_ERR naming the text otherwise. */
int kb_shard_parse(const char *text, int *index, int *count, kb_error *e);

#endif
