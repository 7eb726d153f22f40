/* yolo_device.cuh — device pieces shared by the yolo_decode variants.
 * C++/CUDA only. Semantics: kbench/ops/yolo_decode.h.
 *
 * A candidate is one 64-bit key (kb_yolo_key): ascending key order is the
 * op's rank (score descending, lower prediction index first), so sorting keys
 * sorts candidates and any compaction order gives the same sorted result.
 *
 * The per-image block stage (one block of kThreads per image, dynamic shared
 * memory of stage_smem_bytes(max_det)): sorted keys in shared memory ->
 * boxes and classes recomputed from the prediction rows -> class-aware
 * greedy NMS (IoU masks of 64 candidates per word, in global workspace or,
 * for atomic_greedy, in the shared memory of block 0 of a cluster whose
 * blocks split the mask build; the walk 64 candidates a step) or fast NMS ->
 * count and dets written.
 */
#ifndef KB_YOLO_DEVICE_CUH
#define KB_YOLO_DEVICE_CUH

#include "../common/arch.cuh"
#include "../common/block_bitonic.cuh"
#include "../common/block_scan.cuh"
#include "../common/greedy_resolve.cuh"
#include "../common/shared_walk.cuh"
#include "kbench/variant.h"
#include "kbench/ops/nms_iou.h"
#include "kbench/ops/yolo_decode.h"

#include <cstddef>
#include <cstdlib>
#include <cuda_runtime.h>

namespace kb_yolo {

constexpr int kThreads = 1024;
constexpr unsigned long long kNone = ~0ull;

typedef unsigned long long u64;

__host__ __device__ inline int pow2_at_least(int m) {
    int p = 1;
    while (p < m) p <<= 1;
    return p;
}
__host__ __device__ inline int words_of(int m) {
    return (m + 63) / 64;
}

/* Shared memory of the block stage: boxes, keys [pow2 >= max_det], classes,
 * keep list, drop flags. */
inline size_t stage_smem_bytes(int max_det) {
    return (size_t)max_det * 16 + (size_t)pow2_at_least(max_det) * 8 +
           (size_t)max_det * (4 + 4 + 1) + 16;
}
/* Global mask workspace of the greedy stage, all images. */
inline size_t mask_bytes(int b, int max_det) {
    return (size_t)b * (size_t)max_det * (size_t)words_of(max_det) * 8;
}

struct stage_smem {
    u64 *keys;
    float4 *boxes;
    int *cls, *keep;
    unsigned char *drop;
};

__device__ inline stage_smem carve(unsigned char *base, int max_det) {
    stage_smem s;
    s.boxes = (float4 *)base;
    s.keys = (u64 *)(s.boxes + max_det);
    s.cls = (int *)(s.keys + pow2_at_least(max_det));
    s.keep = s.cls + max_det;
    s.drop = (unsigned char *)(s.keep + max_det);
    return s;
}

__device__ inline const float *row_of(const float *pred, const kb_yolo_params &p, int img, int i) {
    return pred + ((size_t)img * (size_t)p.n + (size_t)i) * (size_t)(5 + p.c);
}

/* Prediction i of image img: its key when it qualifies. */
__device__ inline bool decode_key(const float *pred, const kb_yolo_params &p, int img, int i,
                                  u64 *key) {
    float s;
    int k;
    if (!kb_yolo_score(row_of(pred, p, img, i), p.c, p.conf, &s, &k)) return false;
    *key = kb_yolo_key(s, (uint32_t)i);
    return true;
}

/* Warp-cooperative kb_yolo_score of one row (the same row in every lane, obj
 * already read and >= conf): lanes read the classes 32 apart, then a
 * shuffle reduction takes the largest score, the lowest class on ties. The
 * same result as the serial scan for finite scores. */
__device__ inline bool warp_score(const float *row, int c, float conf, float obj, float *score,
                                  int *cls) {
    int lane = threadIdx.x & 31;
    float best = -INFINITY;
    int arg = c;
    for (int k = lane; k < c; k += 32) {
        float v = row[5 + k];
        if (v > best) {
            best = v;
            arg = k;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        float ob = __shfl_xor_sync(0xffffffffu, best, o);
        int oa = __shfl_xor_sync(0xffffffffu, arg, o);
        if (ob > best || (ob == best && oa < arg)) {
            best = ob;
            arg = oa;
        }
    }
    float s = __fmul_rn(obj, best);
    *score = s;
    *cls = arg;
    return s >= conf;
}

/* The warp's predictions warp0 + l (l < 32; this lane's objectness in obj,
 * below conf past n) that pass objectness, scored by the whole warp one
 * after another (warp_score); each that qualifies calls f(i, score, class)
 * in its own lane. Every lane of the warp calls it. */
template <class F>
__device__ inline void score_warp(const float *pred, const kb_yolo_params &p, int img, int warp0,
                                  float obj, F f) {
    const int lane = threadIdx.x & 31;
    unsigned todo = __ballot_sync(0xffffffffu, obj >= p.conf);
    while (todo) {
        const int from = __ffs(todo) - 1, i = warp0 + from;
        todo &= todo - 1;
        float sc;
        int k;
        const bool q = warp_score(row_of(pred, p, img, i), p.c, p.conf,
                                  __shfl_sync(0xffffffffu, obj, from), &sc, &k);
        if (q && lane == from) f(i, sc, k);
    }
}

/* 16 KB of the stage kernels' static shared memory, used in turn: the two
 * key buffers of block_sort's network, then the class buckets of greedy_nms's
 * mask build. */
constexpr int kScratchWords = 2 * kThreads;
__device__ inline u64 *stage_scratch() {
    __shared__ u64 words[kScratchWords];
    return words;
}

/* Ascending sort of keys[0, m) in shared memory, visible to the block on
 * return. With a scratch of kScratchWords (stage_scratch) and up to kThreads
 * keys: the unrolled network (kb_block_bitonic), a key per thread, pads of
 * kNone sorting last. Else a looped bitonic sort over keys[0, pow2 >= m)
 * (pads [m, pow2) with kNone). */
__device__ inline void block_sort(u64 *keys, int m, u64 *scratch) {
    if (scratch && m <= kThreads) {
        const int t = threadIdx.x;
        u64 v = t < m ? keys[t] : kNone;
        v = kb_block_bitonic<kThreads>(v, reinterpret_cast<u64(*)[kThreads]>(scratch));
        if (t < m) keys[t] = v;
        __syncthreads();
        return;
    }
    int len = pow2_at_least(m);
    for (int i = m + threadIdx.x; i < len; i += blockDim.x) keys[i] = kNone;
    __syncthreads();
    for (int k = 2; k <= len; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int i = threadIdx.x; i < len; i += blockDim.x) {
                int l = i ^ j;
                if (l > i) {
                    u64 a = keys[i], b = keys[l];
                    if ((a > b) == ((i & k) == 0)) {
                        keys[i] = b;
                        keys[l] = a;
                    }
                }
            }
            __syncthreads();
        }
}

/* The key of rank k (1-based) among keys[0, cnt) in global memory (keys unique). */
__device__ inline u64 block_select(const u64 *keys, int cnt, int k) {
    __shared__ unsigned hist[256];
    __shared__ int s_digit, s_k;
    u64 prefix = 0, mask = 0;
    for (int shift = 56; shift >= 0; shift -= 8) {
        for (int t = threadIdx.x; t < 256; t += blockDim.x) hist[t] = 0;
        __syncthreads();
        for (int i = threadIdx.x; i < cnt; i += blockDim.x) {
            u64 key = keys[i];
            if ((key & mask) == prefix) atomicAdd(&hist[(key >> shift) & 255], 1u);
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            int cum = 0, d = 0;
            for (; d < 255 && cum + (int)hist[d] < k; d++) cum += (int)hist[d];
            s_digit = d;
            s_k = k - cum;
        }
        __syncthreads();
        prefix |= (u64)s_digit << shift;
        mask |= 0xFFull << shift;
        k = s_k;
        __syncthreads();
    }
    return prefix;
}

/* Boxes and classes of the m sorted candidates, from their prediction rows.
 * cls_of (b x n, or nullptr): the class of every qualifying prediction, kept
 * by the compaction that scored it; without it each thread rescans its
 * row's c class scores, a chain of c loads that dominates the stage. */
__device__ inline void load_candidates(const stage_smem &s, int m, const float *pred,
                                       const float *d2i, const kb_yolo_params &p, int img,
                                       const int *cls_of) {
    const float *t = d2i + 6 * img;
    float aff[6] = {t[0], t[1], t[2], t[3], t[4], t[5]};
    for (int r = threadIdx.x; r < m; r += blockDim.x) {
        const int i = (int)(uint32_t)s.keys[r];
        const float *row = row_of(pred, p, img, i);
        float sc, box[4];
        int k = 0;
        if (cls_of)
            k = cls_of[(size_t)img * (size_t)p.n + (size_t)i];
        else
            kb_yolo_score(row, p.c, p.conf, &sc, &k);
        kb_yolo_box(row, aff, p.src_w, p.src_h, box);
        s.boxes[r] = make_float4(box[0], box[1], box[2], box[3]);
        s.cls[r] = k;
    }
    __syncthreads();
}

__device__ inline bool suppresses(const stage_smem &s, int a, int b, float thr) {
    float4 x = s.boxes[a], y = s.boxes[b];
    return s.cls[a] == s.cls[b] && kb_nms_iou(x.x, x.y, x.z, x.w, y.x, y.y, y.z, y.w) > thr;
}

/* Warp 0's greedy walk over the row-form mask (bit j of word w of row r:
 * r suppresses w*64 + j > r), 64 candidates a step, with no block barrier:
 * lane l holds the removed bits of words l and l + 32 (m <= 4096) and the
 * block's diagonal words of rows l and l + 32 for kb_greedy_resolve64
 * (rounds of warp reductions); the kept rows' later words are ORed into the
 * lanes' removed bits, eight independent loads at a time. Returns the keep
 * count (<= max_out); s.keep holds the ranks. */
__device__ inline int greedy_walk(const stage_smem &s, int m, int max_out, const u64 *mask) {
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31, words = words_of(m);
    u64 rem0 = 0, rem1 = 0;
    /* Diagonal words of block k, loaded a step ahead (they do not depend on
     * the walk), so a step waits on one load: its kept rows' later words. */
    auto diag_of = [&](int k, u64 *d0, u64 *d1) {
        const int r0 = 64 * k, nb = min(64, m - r0);
        *d0 = k < words && lane < nb ? mask[(size_t)(r0 + lane) * words + k] : 0ull;
        *d1 = k < words && lane + 32 < nb ? mask[(size_t)(r0 + lane + 32) * words + k] : 0ull;
    };
    u64 d0, d1;
    diag_of(0, &d0, &d1);
    int nk = 0;
    for (int k = 0; k < words && nk < max_out; k++) {
        const int r0 = 64 * k, nb = min(64, m - r0);
        const u64 valid = nb == 64 ? ~0ull : (1ull << nb) - 1;
        const u64 row_lo = d0, row_hi = d1;
        diag_of(k + 1, &d0, &d1);
        const u64 rem_k = __shfl_sync(full, k < 32 ? rem0 : rem1, k & 31);
        u64 kept = kb_greedy_resolve64(row_lo, row_hi, valid & ~rem_k);
        for (int left = max_out - nk; __popcll(kept) > left;)
            kept &= ~(1ull << (63 - __clzll(kept)));
        if ((kept >> lane) & 1) s.keep[nk + __popcll(kept & ((1ull << lane) - 1))] = r0 + lane;
        if ((kept >> (lane + 32)) & 1)
            s.keep[nk + __popcll(kept & ((1ull << (lane + 32)) - 1))] = r0 + lane + 32;
        nk += __popcll(kept);
        if (nk >= max_out) break;
        const bool own0 = (lane > k) && (lane < words),
                   own1 = (lane + 32 > k) && (lane + 32 < words);
        for (u64 todo = kept; todo;) {
            u64 v0[8], v1[8];
#pragma unroll
            for (int u = 0; u < 8; u++) {
                const int q = todo ? __ffsll((long long)todo) - 1 : -1;
                todo &= todo - 1;
                const size_t row = (size_t)(r0 + (q < 0 ? 0 : q)) * words;
                v0[u] = q >= 0 && own0 ? mask[row + lane] : 0ull;
                v1[u] = q >= 0 && own1 ? mask[row + lane + 32] : 0ull;
            }
#pragma unroll
            for (int u = 0; u < 8; u++) {
                rem0 |= v0[u];
                rem1 |= v1[u];
            }
        }
    }
    return nk;
}

/* The most mask words a row may have for the mask to be walked from shared
 * memory (kb_shared_walk): max_det <= 1024. */
constexpr int kSmemWalkWords = 16;
/* Shared memory of the mask rows walked there: max_det rows of their words. */
inline size_t smem_rows_bytes(int max_det) {
    return (size_t)max_det * (size_t)words_of(max_det) * 8;
}

/* Greedy NMS of the m sorted candidates; returns the keep count (<= max_out),
 * keep list in s.keep. mask: this image's max_det x words_of(max_det) words
 * in global memory, or `rows` (max_det <= 1024): the mask rows in this
 * block's shared memory (smem_rows_bytes), walked there by
 * kb_shared_walk's roles instead of warp 0 alone.
 * The mask build may be split over the `parts` blocks of a thread block
 * cluster (9.0+), each block holding the same candidates: block `part` builds
 * every parts-th run of 32 (row, word) items (into block 0's `rows` when
 * in shared memory: the caller has arrived at the cluster's barrier
 * (kb_cluster_arrive_relaxed) first), the cluster's barrier makes them
 * visible, and part 0 alone walks. parts = 1: the block does it all, no
 * cluster. Returns -1 in the threads that are done: every thread of the
 * other parts, and with `rows` every thread but the walk's roles
 * (kb_shared_walk::kRoleThreads), which return the count and must write the
 * dets by themselves. */
__device__ inline int greedy_nms(const stage_smem &s, int m, float thr, int max_out, u64 *mask,
                                 u64 *rows = nullptr, int part = 0, int parts = 1) {
    __shared__ int s_nk;
    u64 *bucket_bits = stage_scratch();
    int words = words_of(m);
    /* Word w of row r: which columns share r's class bucket (class mod
     * buckets, as many buckets as the scratch's words allow: one per class up
     * to 2048 / words classes) comes from one shared word, built by one
     * atomicOr per candidate; the IoU (screened: no division on most pairs)
     * runs only for those columns whose class equals r's. Boxes of another
     * class never suppress (class-aware NMS), and on detector output few
     * pairs share a class: testing every pair, or comparing every pair's
     * classes, was most of the stage on one SM. */
    const int buckets = kScratchWords / max(words, 1);
    u64 *out = mask;
    if (rows && parts > 1) {
        kb_cluster_wait(); /* block 0 has started (the caller arrived) */
        out = kb_this_cluster().map_shared_rank(rows, 0);
    } else if (rows) {
        out = rows;
    }
    for (int t = threadIdx.x; t < buckets * words; t += blockDim.x) bucket_bits[t] = 0;
    __syncthreads();
    for (int j = threadIdx.x; j < m; j += blockDim.x)
        atomicOr(&bucket_bits[(s.cls[j] % buckets) * words + (j >> 6)], 1ull << (j & 63));
    __syncthreads();
    /* Item t = (row t / words, word t % words), in runs of 32 (a warp's
     * stores side by side), run c to part c mod parts: the rows near the top
     * have the most words on or above the diagonal, so one slice of
     * consecutive items a part would give the first part the most work. */
    const int items = m * words, warps = blockDim.x / 32;
    for (int c = part + parts * (threadIdx.x / 32); 32 * c < items; c += parts * warps) {
        const int t = 32 * c + (threadIdx.x & 31), r = t / words, w = t - r * words;
        if (t >= items || w < (r >> 6)) continue;
        const int cr = s.cls[r];
        /* columns > r of word w */
        const int lo = r + 1 - w * 64;
        const u64 after = lo <= 0 ? ~0ull : lo >= 64 ? 0ull : ~0ull << lo;
        u64 same = bucket_bits[(cr % buckets) * words + w] & after, bits = 0;
        const float4 a = s.boxes[r];
        while (same) {
            const int q = __ffsll((long long)same) - 1;
            same &= same - 1;
            const int j = w * 64 + q;
            const float4 b = s.boxes[j];
            if (s.cls[j] == cr && kb_nms_iou_above(a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, thr))
                bits |= 1ull << q;
        }
        out[(size_t)r * words + w] = bits;
    }
    /* Every part's mask words visible to part 0's warp 0 (the cluster's
     * barrier releases and acquires at cluster scope, global memory too). */
    if (parts > 1)
        kb_this_cluster().sync();
    else
        __syncthreads();
    if (part != 0) return -1;
    if (rows) {
        /* Only the walk's roles go on: they walk, then write the dets. */
        if (threadIdx.x >= kb_shared_walk::kRoleThreads) return -1;
        __shared__ kb_shared_walk::state<kSmemWalkWords> hand;
        const int lane = threadIdx.x & 31;
        /* Block j's diagonal words (rows 64 j + lane, + 32), read before
         * warp 0's removed word. */
        auto fetch = [&](int j) {
            const int r0 = 64 * j + lane, r1 = r0 + 32;
            return make_ulonglong2(r0 < m ? rows[r0 * words + j] : 0ull,
                                   r1 < m ? rows[r1 * words + j] : 0ull);
        };
        auto resolve = [&](int j, ulonglong2 d, u64 removed, int nk) {
            const int nb = min(64, m - 64 * j);
            const u64 valid = nb == 64 ? ~0ull : (1ull << nb) - 1;
            u64 kept = nk < max_out ? kb_greedy_resolve64(d.x, d.y, valid & ~removed) : 0ull;
            for (int left = max_out - nk; __popcll(kept) > left;)
                kept &= ~(1ull << (63 - __clzll(kept)));
            return kept;
        };
        auto keep = [&](int j, u64 kb, int base) {
            for (int b = lane; b < 64; b += 32)
                if ((kb >> b) & 1) s.keep[base + __popcll(kb & ((1ull << b) - 1))] = 64 * j + b;
        };
        const int nk = kb_shared_walk::walk(hand, rows, m, words, fetch, resolve, keep);
        if (threadIdx.x == 0) s_nk = nk;
        kb_shared_walk::step_barrier(); /* the count and the last keeps */
        return s_nk;
    }
    if (threadIdx.x < 32) {
        const int nk = greedy_walk(s, m, max_out, mask);
        if (threadIdx.x == 0) s_nk = nk;
    }
    __syncthreads();
    return s_nk;
}

/* Fast NMS: drop a candidate when any higher-ranked one of its class overlaps it. */
__device__ inline int fast_nms(const stage_smem &s, int m, float thr, int max_out) {
    for (int r = threadIdx.x; r < m; r += blockDim.x) {
        int d = 0;
        for (int j = 0; j < r && !d; j++) d = suppresses(s, j, r, thr);
        s.drop[r] = (unsigned char)d;
    }
    __syncthreads();
    int base = 0;
    for (int r0 = 0; r0 < m; r0 += blockDim.x) {
        int r = r0 + threadIdx.x, keep = r < m && !s.drop[r], total;
        int pos = base + kb_block_exclusive_scan<kThreads>(keep, &total);
        if (keep && pos < max_out) s.keep[pos] = r;
        base += total;
    }
    __syncthreads();
    return min(base, max_out);
}

/* Write count[img] and dets[img] (rows past the count zeroed), by the
 * block's first `threads` threads. */
__device__ inline void write_dets(const stage_smem &s, int nk, const kb_yolo_params &p, int img,
                                  int *count, float *dets, int threads) {
    float *out = dets + (size_t)img * (size_t)p.max_out * 6;
    for (int t = threadIdx.x; t < p.max_out * 6; t += threads) {
        int k = t / 6, j = t - 6 * k;
        float v = 0.0f;
        if (k < nk) {
            int r = s.keep[k];
            float4 b = s.boxes[r];
            v = j == 0   ? b.x
                : j == 1 ? b.y
                : j == 2 ? b.z
                : j == 3 ? b.w
                : j == 4 ? kb_yolo_key_score(s.keys[r])
                         : (float)s.cls[r];
        }
        out[t] = v;
    }
    if (threadIdx.x == 0) count[img] = nk;
}

/* The stage after the keys of image img are sorted in s.keys[0, m). */
template <bool kFast>
__device__ inline void finish_image(const stage_smem &s, int m, const float *pred, const float *d2i,
                                    const kb_yolo_params &p, int img, const int *cls_of,
                                    u64 *mask_ws, int *count, float *dets) {
    load_candidates(s, m, pred, d2i, p, img, cls_of);
    int nk;
    if (kFast)
        nk = fast_nms(s, m, p.iou, p.max_out);
    else
        nk = greedy_nms(s, m, p.iou, p.max_out,
                        mask_ws + (size_t)img * (size_t)p.max_det * words_of(p.max_det));
    write_dets(s, nk, p, img, count, dets, blockDim.x);
}

/* The keys of image img's top max_det candidates into s.keys[0, m), unsorted,
 * from the cnt keys of `cand` (global memory, written before a barrier that
 * this block has passed): all of them when cnt <= max_det, else those at or
 * below the max_det-th key (keys are unique), found by block_select. */
__device__ inline int take_top(const stage_smem &s, const u64 *cand, int cnt, int max_det) {
    __shared__ int gathered;
    if (cnt <= max_det) {
        for (int i = threadIdx.x; i < cnt; i += blockDim.x) s.keys[i] = cand[i];
        __syncthreads();
        return cnt;
    }
    u64 last = block_select(cand, cnt, max_det);
    if (threadIdx.x == 0) gathered = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < cnt; i += blockDim.x) {
        u64 k = cand[i];
        if (k <= last) s.keys[atomicAdd(&gathered, 1)] = k;
    }
    __syncthreads();
    return max_det;
}

constexpr int kItems = 8;

/* fused_batch's whole work for image img (one block of kThreads; smem:
 * stage_smem_bytes(max_det) of dynamic shared memory). cls_ws (b x n) gets
 * the class of every qualifying prediction, for load_candidates. */
__device__ inline void fused_image(unsigned char *smem, const float *pred, const float *d2i,
                                   const kb_yolo_params &p, int img, u64 *cand_ws, int *cls_ws,
                                   u64 *mask_ws, int *count, float *dets) {
    stage_smem s = carve(smem, p.max_det);
    u64 *cand = cand_ws + (size_t)img * p.n;
    int *cls_of = cls_ws + (size_t)img * p.n;
    int cnt = 0;
    for (int base = 0; base < p.n; base += kThreads * kItems) {
        float obj[kItems];
#pragma unroll
        for (int u = 0; u < kItems; u++) {
            int i = base + u * kThreads + threadIdx.x;
            obj[u] = i < p.n ? row_of(pred, p, img, i)[4] : -1.0f;
        }
        u64 keys[kItems];
        int mine = 0;
#pragma unroll
        for (int u = 0; u < kItems; u++)
            score_warp(pred, p, img, base + u * kThreads + (threadIdx.x & ~31), obj[u],
                       [&](int i, float sc, int k) {
                           keys[mine++] = kb_yolo_key(sc, (uint32_t)i);
                           cls_of[i] = k;
                       });
        int total, pos = cnt + kb_block_exclusive_scan<kThreads>(mine, &total);
        for (int u = 0; u < mine; u++) {
            if (pos + u < p.max_det) s.keys[pos + u] = keys[u];
            cand[pos + u] = keys[u];
        }
        cnt += total;
    }
    __syncthreads(); /* the global keys and classes visible to the block */
    int m = cnt > p.max_det ? take_top(s, cand, cnt, p.max_det) : cnt;
    block_sort(s.keys, m, stage_scratch());
    finish_image<false>(s, m, pred, d2i, p, img, cls_ws, mask_ws, count, dets);
}

/* One bump allocation: 256-byte aligned pieces. */
struct carver {
    unsigned char *base;
    size_t used;
    void *take(size_t bytes) {
        void *ptr = base ? base + used : nullptr;
        used += (bytes + 255) / 256 * 256;
        return ptr;
    }
};

/* Host side, shared by every variant: the state each one starts with, its
 * workspace allocation, and the tensors every run reads and writes. */
struct host_state {
    kb_yolo_params p;
    void *base;
};

/* Every variant's block stage holds max_det candidates in shared memory:
 * max_det = 4096 takes 135 KB, more than a 99 KB-class GPU (L4, RTX 4090)
 * gives a block. The stage kernels' static arrays take the stage scratch
 * (stage_scratch) and under 2 KB besides. */
inline int stage_fits(const kb_case *c, kb_error *why) {
    const kb_gpu *g = kb_gpu_current();
    const int max_det = kb_yolo_params_of(c).max_det;
    const size_t need = stage_smem_bytes(max_det) + sizeof(u64) * kScratchWords + 2048;
    if (!g || need <= g->smem_optin) return KB_OK;
    kb_fail(why, "max_det=%d: the block stage needs %zu bytes of shared memory, this %s offers %zu",
            max_det, need, g->name, g->smem_optin);
    return KB_UNSUPPORTED;
}

/* Every variant's setup: a zeroed host state S, its parameters, one device
 * allocation sized by layout(p, nullptr, nullptr) and carved by
 * layout(p, st, base), and the stage's shared memory for `kernel`. */
template <class S, class Kernel, class Layout>
int setup_state(const kb_case *c, Kernel kernel, Layout layout, void **out, kb_error *e) {
    S *st = (S *)calloc(1, sizeof *st);
    if (!st) return kb_fail(e, "yolo_decode: out of host memory");
    st->p = kb_yolo_params_of(c);
    if (cudaMalloc(&st->base, layout(st->p, (S *)nullptr, nullptr)) != cudaSuccess) {
        cudaGetLastError();
        free(st);
        return KB_OUT_OF_MEMORY;
    }
    if (kb_cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)stage_smem_bytes(st->p.max_det)),
                      "cudaFuncSetAttribute(stage shared memory)", e) != KB_OK) {
        cudaFree(st->base);
        free(st);
        return KB_ERR;
    }
    layout(st->p, st, st->base);
    *out = st;
    return KB_OK;
}

inline void free_state(void *state_ptr) {
    host_state *st = (host_state *)state_ptr;
    if (!st) return;
    cudaFree(st->base);
    free(st);
}

struct io {
    const float *pred, *d2i;
    int *count;
    float *dets;
};

inline io io_of(const kb_tensors *dev_in, kb_tensors *dev_out) {
    io t;
    t.pred = (const float *)kb_tensors_get(dev_in, "pred")->data;
    t.d2i = (const float *)kb_tensors_get(dev_in, "d2i")->data;
    t.count = (int *)kb_tensors_find(dev_out, "count")->data;
    t.dets = (float *)kb_tensors_find(dev_out, "dets")->data;
    return t;
}

} // namespace kb_yolo

#endif
