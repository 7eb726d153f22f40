/* grid_barrier_bench.cu — a tool, not a test CTest runs and not part of the
 * build: what one grid-wide barrier costs on this GPU, the unit of
 * topk/coop_select's chain (docs/perf-topk.md). One block of 1024 threads per
 * SM (coop_select's shape; and half the SMs), launched cooperatively, each
 * iteration 64 global atomics a block (a histogram flush's worth) then a
 * barrier: cooperative_groups' grid.sync(), and a counter with acquire /
 * release ordering (thread 0 reads the generation, arrives with
 * atom.acq_rel, the last arrival resets the count and releases the next
 * generation, the others spin on ld.acquire). Prints the time per launch of
 * 1 and of 1000 iterations (20 launches each, CUDA events), then one
 * barrier launched plainly and cooperatively (what the cooperative launch
 * itself costs). On a GPU machine:
 *   nvcc -O2 -arch=native -o /tmp/grid_barrier tests/tools/grid_barrier_bench.cu &&
 * /tmp/grid_barrier
 */
#include <cooperative_groups.h>

#include <cstdio>

namespace cg = cooperative_groups;

__device__ unsigned g_count, g_gen;

__device__ __forceinline__ unsigned ld_acquire(const unsigned *p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void st_release(unsigned *p, unsigned v) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned add_acq_rel(unsigned *p, unsigned v) {
    unsigned old;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;"
                 : "=r"(old)
                 : "l"(p), "r"(v)
                 : "memory");
    return old;
}

__device__ __forceinline__ void acq_rel_sync() {
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned gen = ld_acquire(&g_gen);
        if (add_acq_rel(&g_count, 1) == gridDim.x - 1) {
            g_count = 0;
            st_release(&g_gen, gen + 1);
        } else {
            while (ld_acquire(&g_gen) == gen) {
            }
        }
    }
    __syncthreads();
}

template <bool kCg> __global__ void __launch_bounds__(1024, 1) barriers(int iters, unsigned *hist) {
    cg::grid_group grid = cg::this_grid();
    for (int i = 0; i < iters; i++) {
        if (threadIdx.x < 64) atomicAdd(hist + threadIdx.x, 1u);
        if (kCg)
            grid.sync();
        else
            acq_rel_sync();
    }
}

int main() {
    int sms = 0;
    unsigned *hist = nullptr;
    cudaEvent_t a, b;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess ||
        cudaMalloc(&hist, 64 * sizeof(unsigned)) != cudaSuccess) {
        fprintf(stderr, "grid_barrier_bench: no usable GPU\n");
        return 1;
    }
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int blocks : {sms, sms / 2})
        for (int iters : {1, 1000})
            for (int kind = 0; kind < 2; kind++) {
                void *args[] = {&iters, &hist};
                const void *f = kind ? (const void *)barriers<false> : (const void *)barriers<true>;
                cudaLaunchCooperativeKernel(f, blocks, 1024, args, 0, 0); /* warm-up */
                cudaEventRecord(a);
                for (int r = 0; r < 20; r++)
                    cudaLaunchCooperativeKernel(f, blocks, 1024, args, 0, 0);
                cudaEventRecord(b);
                cudaEventSynchronize(b);
                float ms = 0;
                cudaEventElapsedTime(&ms, a, b);
                const cudaError_t rc = cudaGetLastError();
                printf("%-8s %3d blocks, %4d barriers: %9.3f us a launch, %.3f us a barrier%s%s\n",
                       kind ? "acq_rel" : "cg", blocks, iters, ms * 1000 / 20,
                       ms * 1000 / 20 / iters, rc == cudaSuccess ? "" : ", error: ",
                       rc == cudaSuccess ? "" : cudaGetErrorString(rc));
            }
    /* the launch alone: one barrier, launched plainly (the blocks happen to
     * be resident together here; nothing promises it) and cooperatively */
    for (int coop = 0; coop < 2; coop++) {
        int iters = 1;
        void *args[] = {&iters, &hist};
        cudaEventRecord(a);
        for (int r = 0; r < 20; r++) {
            if (coop)
                cudaLaunchCooperativeKernel((const void *)barriers<false>, sms, 1024, args, 0, 0);
            else
                barriers<false><<<sms, 1024>>>(iters, hist);
        }
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        printf("acq_rel  %3d blocks, 1 barrier, %s launch: %.3f us a launch\n", sms,
               coop ? "cooperative" : "plain", ms * 1000 / 20);
    }
    return 0;
}
