/* shared_walk.cuh — greedy NMS's walk, 64 ranked boxes a step, over mask
 * rows held in shared memory, by three roles of one block that hand each step
 * over at named barriers. The nms op's small walk (variants/nms/blockwalk.cu)
 * and rpn_proposals/fused's per-level walk run it. C++/CUDA only.
 *
 * rows[r * words + w], bit c: box r suppresses box 64 w + c; only the words
 * w > r / 64 are read. The roles, each a warp or two of the calling block:
 *
 * - warp 0 resolves block j from its removed word (the caller's resolve
 *   functor) and publishes the kept bits. The removed word is the OR of the
 *   workers' partial words (blocks <= j - 2) and of warp 0's own carry of
 *   block j - 1 (its kept rows at word j, read into registers before the
 *   resolve and ORed in one warp reduction after it). The step is only that:
 *   no loop over the kept rows on warp 0's path.
 * - kOrWarps warps OR block j's kept rows into words >= j + 2, a thread per
 *   (word, group of kGroupRows rows), each into its own partial word, while
 *   warp 0 resolves block j + 1: kGroupRows independent loads a word, masked
 *   by the kept bits.
 * - one warp hands block j's keeps to the caller's keep functor.
 *
 * Barriers kKeptBar + j % 2 (warp 0 arrives, the others wait: block j's kept
 * bits are out) and kOredBar + j % 2 (the others arrive, warp 0 waits at step
 * j + 2: block j's rows are in the partials). Alternating by parity, no
 * barrier is arrived at again before its last phase completed: warp 0's
 * arrival for block j + 2 follows its wait for block j, which follows the
 * workers' wait for block j. Ids 1-4 (0 is __syncthreads').
 */
#ifndef KB_SHARED_WALK_CUH
#define KB_SHARED_WALK_CUH

#include "greedy_resolve.cuh"

namespace kb_shared_walk {

typedef unsigned long long u64;

constexpr int kOrWarps = 2, kRoleThreads = 32 * (kOrWarps + 2), kWordLanes = 16;
constexpr int kGroups = 32 * kOrWarps / kWordLanes, kGroupRows = 64 / kGroups;
constexpr int kKeptBar = 1, kOredBar = 3;
static_assert(kGroupRows * kGroups == 64 && kGroupRows <= 32, "row groups tile a block");

/* Barrier kId + parity (immediate ids: a register id reserves all 16). */
template <int kId> __device__ __forceinline__ void bar_sync(int parity) {
    if (parity)
        asm volatile("bar.sync %0, %1;" ::"n"(kId + 1), "n"(kRoleThreads) : "memory");
    else
        asm volatile("bar.sync %0, %1;" ::"n"(kId), "n"(kRoleThreads) : "memory");
}
template <int kId> __device__ __forceinline__ void bar_arrive(int parity) {
    if (parity)
        asm volatile("bar.arrive %0, %1;" ::"n"(kId + 1), "n"(kRoleThreads) : "memory");
    else
        asm volatile("bar.arrive %0, %1;" ::"n"(kId), "n"(kRoleThreads) : "memory");
}

/* The walk's hand-over state, in the caller's shared memory. After the walk
 * and a block barrier, kept[j] and base[j] (keeps before block j) hold every
 * block's decision. */
template <int kMaxWords> struct state {
    u64 part[kGroups][kMaxWords], kept[kMaxWords];
    int base[kMaxWords];
};

/* Every thread of warps 0 .. kOrWarps + 1 calls it (no other thread may).
 * rows: n rows, words <= kMaxWords of them. fetch(j) -> anything warp 0
 * reads for block j before it waits (loads off the step's path);
 * resolve(j, fetched, removed, kept_so_far) -> block j's kept bits, every
 * lane of warp 0 alike (removed: its boxes suppressed by earlier blocks);
 * keep(j, kb, base) runs on every lane of the keep warp. Returns the kept
 * count in warp 0, 0 elsewhere. */
template <int kMaxWords, class Fetch, class Resolve, class Keep>
__device__ int walk(state<kMaxWords> &s, const u64 *rows, int n, int words, Fetch fetch,
                    Resolve resolve, Keep keep) {
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    int nk = 0;
    if (warp == 0) {
        u64 carry = 0; /* block j - 1's kept rows at word j */
        for (int j = 0; j < words; j++) {
            const int r0 = min(64 * j + lane, n - 1), r1 = min(64 * j + lane + 32, n - 1);
            u64 p0 = 0, p1 = 0;
            if (j + 1 < words) p0 = rows[r0 * words + j + 1], p1 = rows[r1 * words + j + 1];
            const auto fetched = fetch(j);
            u64 removed = carry;
            if (j >= 2) {
                bar_sync<kOredBar>(j & 1);
#pragma unroll
                for (int q = 0; q < kGroups; q++) removed |= s.part[q][j];
            }
            const u64 kb = resolve(j, fetched, removed, nk);
            if (lane == 0) s.kept[j] = kb, s.base[j] = nk;
            bar_arrive<kKeptBar>(j & 1);
            nk += __popcll(kb);
            carry =
                kb_warp_or64((((kb >> lane) & 1) ? p0 : 0) | (((kb >> (lane + 32)) & 1) ? p1 : 0));
        }
        for (int j = max(words - 2, 0); j < words; j++) bar_sync<kOredBar>(j & 1);
    } else if (warp <= kOrWarps) {
        constexpr int kPerThread = (kMaxWords + kWordLanes - 1) / kWordLanes;
        const int u = t - 32, group = u / kWordLanes;
        u64 acc[kPerThread] = {}; /* word u % 16 + 16 i of the group's kept rows */
        for (int j = 0; j < words; j++) {
            bar_sync<kKeptBar>(j & 1);
            const unsigned mine = (unsigned)(s.kept[j] >> (kGroupRows * group));
            const int first = 64 * j + kGroupRows * group;
#pragma unroll
            for (int i = 0; i < kPerThread; i++) {
                const int w = u % kWordLanes + kWordLanes * i;
                if (w < j + 2 || w >= words) continue;
                /* Every row loaded, masked by its kept bit: the loads all in
                 * flight at once (a load under a branch waits out the one
                 * before). Rows past n read row n - 1, whose words past its
                 * own block are there, and drop out with their bit. */
                u64 any = 0;
#pragma unroll
                for (int b = 0; b < kGroupRows; b++)
                    any |= rows[(size_t)min(first + b, n - 1) * words + w] &
                           (0ull - ((mine >> b) & 1));
                s.part[group][w] = acc[i] |= any;
            }
            bar_arrive<kOredBar>(j & 1);
        }
    } else if (warp == kOrWarps + 1) {
        for (int j = 0; j < words; j++) {
            bar_sync<kKeptBar>(j & 1);
            keep(j, s.kept[j], s.base[j]);
            bar_arrive<kOredBar>(j & 1);
        }
    }
    return nk;
}

} // namespace kb_shared_walk

#endif
