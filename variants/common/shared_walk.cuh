/* shared_walk.cuh — greedy NMS's walk, 64 ranked boxes a step, over mask
 * rows held in shared memory, by three roles of one block that hand each step
 * over at a named barrier. The nms op's small walk (variants/nms/blockwalk.cu)
 * and rpn_proposals/fused's per-level walk run it. C++/CUDA only.
 *
 * rows[r * words + w], bit c: box r suppresses box 64 w + c; only the words
 * w > r / 64 are read. The roles, each a warp or two of the calling block,
 * in step j:
 *
 * - warp 0 resolves block j from its removed word (the caller's resolve
 *   functor) and publishes the kept bits. The removed word is the OR of the
 *   workers' partial words (blocks <= j - 2) and of warp 0's own carry of
 *   block j - 1 (its kept rows at word j, read into registers before the
 *   resolve and ORed in one warp reduction after it). The step is only that:
 *   no loop over the kept rows on warp 0's path.
 * - kOrWarps warps OR block j - 1's kept rows into words >= j + 1, a thread
 *   per (word, group of kGroupRows rows), each into its own partial word:
 *   kGroupRows independent loads a word, masked by the kept bits.
 * - one warp hands block j - 1's keeps to the caller's keep functor.
 *
 * Then all four warps meet at one barrier (id kStepBar, their 128 threads,
 * one instruction for all: a step's writes are read only after it). The
 * workers finish block j - 1 in the time warp 0 resolves block j, so the
 * step is warp 0's chain. A producer/consumer pair of barriers (bar.arrive
 * on one side) gave warp 0 no more slack and the sanitizer's race checker no
 * way to see the hand-over.
 */
#ifndef KB_SHARED_WALK_CUH
#define KB_SHARED_WALK_CUH

#include "greedy_resolve.cuh"

namespace kb_shared_walk {

typedef unsigned long long u64;

constexpr int kOrWarps = 2, kRoleThreads = 32 * (kOrWarps + 2), kWordLanes = 16;
constexpr int kGroups = 32 * kOrWarps / kWordLanes, kGroupRows = 64 / kGroups;
constexpr int kStepBar = 1; /* 0 is __syncthreads' */
static_assert(kGroupRows * kGroups == 64 && kGroupRows <= 32, "row groups tile a block");

/* The step's barrier among the roles' threads. bar.sync is the .aligned
 * form: the warp reaches it converged (__syncwarp after per-lane branches). */
__device__ __forceinline__ void step_barrier() {
    __syncwarp();
    asm volatile("bar.sync %0, %1;" ::"n"(kStepBar), "n"(kRoleThreads) : "memory");
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
 * reads for block j before its removed word (loads off the step's chain);
 * resolve(j, fetched, removed, kept_so_far) -> block j's kept bits, every
 * lane of warp 0 alike (removed: its boxes suppressed by earlier blocks);
 * keep(j, kb, base) runs on every lane of the keep warp. Returns the kept
 * count in warp 0, 0 elsewhere. */
template <int kMaxWords, class Fetch, class Resolve, class Keep>
__device__ int walk(state<kMaxWords> &s, const u64 *rows, int n, int words, Fetch fetch,
                    Resolve resolve, Keep keep) {
    constexpr int kPerThread = (kMaxWords + kWordLanes - 1) / kWordLanes;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const int u = t - 32, group = u / kWordLanes; /* the OR warps' (word, group) */
    int nk = 0;
    u64 carry = 0;                     /* warp 0: block j - 1's kept rows at word j */
    u64 acc[kPerThread] = {};          /* OR warps: word u % 16 + 16 i of the group's kept rows */
    for (int j = 0; j <= words; j++) { /* step words: the workers' last block */
        if (warp == 0) {
            if (j < words) {
                const int r0 = min(64 * j + lane, n - 1), r1 = min(64 * j + lane + 32, n - 1);
                u64 p0 = 0, p1 = 0;
                if (j + 1 < words) p0 = rows[r0 * words + j + 1], p1 = rows[r1 * words + j + 1];
                const auto fetched = fetch(j);
                u64 removed = carry;
                if (j >= 2) {
#pragma unroll
                    for (int q = 0; q < kGroups; q++) removed |= s.part[q][j];
                }
                const u64 kb = resolve(j, fetched, removed, nk);
                if (lane == 0) s.kept[j] = kb, s.base[j] = nk;
                nk += __popcll(kb);
                carry = kb_warp_or64((((kb >> lane) & 1) ? p0 : 0) |
                                     (((kb >> (lane + 32)) & 1) ? p1 : 0));
            }
        } else if (j >= 1 && warp <= kOrWarps) {
            const int b = j - 1; /* block b's kept rows into words >= b + 2 */
            const unsigned mine = (unsigned)(s.kept[b] >> (kGroupRows * group));
            const int first = 64 * b + kGroupRows * group;
#pragma unroll
            for (int i = 0; i < kPerThread; i++) {
                const int w = u % kWordLanes + kWordLanes * i;
                if (w < b + 2 || w >= words) continue;
                /* Every row loaded, masked by its kept bit: the loads all in
                 * flight at once (a load under a branch waits out the one
                 * before). Rows past n read row n - 1, whose words past its
                 * own block are there, and drop out with their bit. */
                u64 any = 0;
#pragma unroll
                for (int r = 0; r < kGroupRows; r++)
                    any |= rows[(size_t)min(first + r, n - 1) * words + w] &
                           (0ull - ((mine >> r) & 1));
                s.part[group][w] = acc[i] |= any;
            }
        } else if (j >= 1 && warp == kOrWarps + 1) {
            keep(j - 1, s.kept[j - 1], s.base[j - 1]);
        }
        step_barrier();
    }
    return nk;
}

} // namespace kb_shared_walk

#endif
