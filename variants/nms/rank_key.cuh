/* rank_key.cuh — the nms ranking as one 64-bit key per box: unsigned
 * ascending key order is descending score, equal scores lower index first,
 * -0 ranked as +0 (CUB's float-to-unsigned mapping, the same ranking as its
 * stable descending radix sort). C++/CUDA only; sort.cu's sorts and
 * blockwalk's one-launch small path sort these keys. */
#ifndef KB_NMS_RANK_KEY_CUH
#define KB_NMS_RANK_KEY_CUH

__device__ __forceinline__ unsigned long long kb_nms_rank_key(float score, int index) {
    unsigned u = __float_as_uint(__fadd_rn(score, 0.0f)); /* -0 + 0 = +0 */
    u = (u & 0x80000000u) ? ~u : u | 0x80000000u;         /* ascending score */
    return (unsigned long long)~u << 32 | (unsigned)index;
}

#endif
