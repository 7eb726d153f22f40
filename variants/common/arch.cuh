/* arch.cuh — device code for features that only some targets have.
 *
 * One kbench binary holds code for several architectures
 * (cmake/KbArchitectures.cmake). A kernel that uses a newer feature compiles,
 * for an older target, to a trap; the variant's supports() refuses such a
 * device first (kb_gpu_require with the KB_CC_ constant below), so the trap
 * is never reached and the row says UNSUPPORTED with the feature's name. */
#ifndef KB_ARCH_CUH
#define KB_ARCH_CUH

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <type_traits>

/* Minimum compute capability (10 * major + minor) of each feature used. */
enum {
    KB_CC_CP_ASYNC = 80, /* cp.async global -> shared */
    KB_CC_MMA_SM80 = 80, /* mma.sync with tf32 or bf16, and m16n8k16 f16 */
    KB_CC_CLUSTERS = 90, /* thread block clusters, distributed shared memory */
};

/* KB_SM80 / KB_SM90: the target being compiled has the features of 8.0 / 9.0
 * (always 1 in host code, which only declares). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define KB_SM80 0
#else
#define KB_SM80 1
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define KB_SM90 0
#else
#define KB_SM90 1
#endif

/* 16 bytes global -> shared (shared address dst), bypassing L1; zeros when
 * !valid. Commit and wait as the PTX groups do. */
__device__ __forceinline__ void kb_cp_async16(uint32_t dst, const void *src, bool valid) {
#if KB_SM80
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src),
                 "r"(valid ? 16 : 0));
#else
    __trap();
#endif
}
/* 8 bytes global -> shared through L1 (cp.async has no 8-byte .cg form): L1
 * must hold no stale copy of src (nothing this SM loaded since another block
 * wrote it, or a fence since). Before 8.0 a plain load and store. Wait with
 * kb_cp_async_wait_all. */
__device__ __forceinline__ void kb_cp_async8(void *dst, const void *src) {
#if KB_SM80
    asm volatile(
        "cp.async.ca.shared.global [%0], [%1], 8;" ::"r"((uint32_t)__cvta_generic_to_shared(dst)),
        "l"(src)
        : "memory");
#else
    *(unsigned long long *)dst = *(const unsigned long long *)src;
#endif
}
__device__ __forceinline__ void kb_cp_async_commit() {
#if KB_SM80
    asm volatile("cp.async.commit_group;");
#endif
}
__device__ __forceinline__ void kb_cp_async_wait_group0() {
#if KB_SM80
    asm volatile("cp.async.wait_group 0;");
#endif
}
__device__ __forceinline__ void kb_cp_async_wait_all() {
#if KB_SM80
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

/* 16 bytes at shared address a (the 32-bit address cp.async takes): one
 * LDS.128 with no generic-to-shared conversion per use. Volatile: it stays
 * after the barrier that publishes what it reads. */
__device__ __forceinline__ uint4 kb_lds128(uint32_t a) {
    uint4 r;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "r"(a));
    return r;
}

/* f32 rounded to tf32 (to nearest, ties away), as the tf32 mma reads it. */
__device__ __forceinline__ uint32_t kb_tf32_bits(float v) {
    uint32_t r = 0;
#if KB_SM80
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
#else
    __trap();
#endif
    return r;
}

/* f32 rounded to tf32 to nearest for the fused kernels' samples, their
 * hottest loop: from 9.0 on ties to even by cvt.rn.tf32, which 9.0 added;
 * before it ties away (kb_tf32_bits: the mma.sync kernels run on 8.x too).
 * The two differ only on exact ties. */
__device__ __forceinline__ uint32_t kb_tf32_bits_rn(float v) {
#if KB_SM90
    uint32_t r;
    asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
    return r;
#else
    return kb_tf32_bits(v);
#endif
}

/* v as two tf32 values, *hi + *lo: hi is v rounded to tf32, lo the rest
 * (exact in fp32: v and hi share all but hi's last bits) rounded to tf32.
 * |v - hi - lo| <= 2^-22 |v|, against fp32's own rounding of 2^-24: the
 * three products hi hi' + hi lo' + lo hi' on tf32 tensor cores (exact in
 * their fp32 accumulators) miss v v' by under 2^-20 |v v'|, where a single
 * tf32 product misses by up to 2^-10 (the 3xTF32 of the GEMM literature). */
__device__ __forceinline__ void kb_tf32_split(float v, uint32_t *hi, uint32_t *lo) {
    *hi = kb_tf32_bits_rn(v);
    *lo = kb_tf32_bits_rn(v - __uint_as_float(*hi));
}

/* c += a b on the tensor cores, one warp-wide mma.sync with fp32
 * accumulators: m16n8k8 with tf32 operands for T = float, m16n8k16 for
 * __half and __nv_bfloat16; a, b0, b1 and c[0..3] in PTX's fragment layout. */
template <typename T>
__device__ __forceinline__ void kb_mma_sync(float *c, const uint32_t (&a)[4], uint32_t b0,
                                            uint32_t b1) {
#if !KB_SM80
    __trap();
#else
    if constexpr (std::is_same<T, float>::value)
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else if constexpr (std::is_same<T, __half>::value)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else {
        static_assert(std::is_same<T, __nv_bfloat16>::value, "tf32, f16 or bf16 operands");
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
#endif
}

/* The calling block's thread block cluster (9.0+). Older targets get a
 * stand-in with the calls the cluster kernels make, each a trap, so that
 * those kernels compile for every target. */
#if KB_SM90
__device__ __forceinline__ cooperative_groups::cluster_group kb_this_cluster() {
    return cooperative_groups::this_cluster();
}
#else
struct kb_no_cluster {
    __device__ unsigned num_blocks() const {
        __trap();
        return 1;
    }
    __device__ unsigned block_rank() const {
        __trap();
        return 0;
    }
    __device__ void sync() const { __trap(); }
    template <typename T> __device__ T *map_shared_rank(T *p, unsigned) const {
        __trap();
        return p;
    }
};
__device__ __forceinline__ kb_no_cluster kb_this_cluster() {
    return {};
}
#endif

/* A launch (or occupancy probe) configuration of grid x threads blocks with
 * `smem` bytes of dynamic shared memory, in clusters of `cluster` blocks
 * along x; 0: no cluster attribute (a plain launch, as before 9.0). A
 * cluster of 1 is still a cluster launch, for kernels that ask theirs. The
 * configuration points into the struct: keep it where it was filled. Host
 * code. */
struct kb_cluster_config {
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr[1];
};
inline void kb_cluster_config_fill(kb_cluster_config *c, dim3 grid, int threads, size_t smem,
                                   int cluster, cudaStream_t stream) {
    c->cfg = cudaLaunchConfig_t{};
    c->cfg.gridDim = grid;
    c->cfg.blockDim = dim3((unsigned)threads);
    c->cfg.dynamicSmemBytes = smem;
    c->cfg.stream = stream;
    c->attr[0].id = cudaLaunchAttributeClusterDimension;
    c->attr[0].val.clusterDim.x = (unsigned)cluster;
    c->attr[0].val.clusterDim.y = 1;
    c->attr[0].val.clusterDim.z = 1;
    c->cfg.attrs = c->attr;
    c->cfg.numAttrs = cluster > 0 ? 1 : 0;
}

/* The cluster barrier's two halves, for a block that must know every block
 * of its cluster has started before it writes to their shared memory: arrive
 * (relaxed: no memory ordering) early, wait just before the first remote
 * access. Every thread of the block calls both, converged. */
__device__ __forceinline__ void kb_cluster_arrive_relaxed() {
#if KB_SM90
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
#else
    __trap();
#endif
}
__device__ __forceinline__ void kb_cluster_wait() {
#if KB_SM90
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
#else
    __trap();
#endif
}

#endif
