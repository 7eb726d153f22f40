/* mutants_deform_conv2d.cu — wrong deformable convolutions: four are
 * deform_conv2d/explicit_gemm_i64 with one bug, one (border_w2) a direct
 * f32 kernel whose bilinear sampling drops the last row and column.
 * `kbench_mutants check deform_conv2d -v mut_offset_xy --sweep smoke` must FAIL. */
#include "mutants_common.cuh"
#include "deform_conv2d.h"

static const kb_variant_impl *explicit_i64(const kb_case *c) {
    return kb_find_variant("deform_conv2d", "explicit_gemm_i64")->impl;
}

static kb_dcn_params params_of(const kb_case *c) {
    kb_dcn_params p;
    kb_dcn_params_from_case(c, &p, NULL);
    return p;
}

/* Offsets read as (dx, dy) where torchvision stores (dy, dx): the real
 * variant on offsets whose two planes of each pair are swapped. */
__global__ void swap_plane_pairs(const uint8_t *src, uint8_t *dst, int64_t plane, int64_t total) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
         i += (int64_t)gridDim.x * blockDim.x)
        dst[i] = src[(i / plane ^ 1) * plane + i % plane];
}
static cudaError_t swap_offsets(const kb_case *c, const kb_tensors *in, kb_tensors *tin,
                                cudaStream_t s) {
    const kb_tensor *off = kb_tensors_get(in, "offset");
    kb_dcn_params p = params_of(c);
    int64_t plane = p.ho * p.wo * (int64_t)kb_dtype_size(p.dtype), total = (int64_t)kb_nbytes(off);
    if (total > 0)
        swap_plane_pairs<<<(unsigned)((total + 255) / 256 < 4096 ? (total + 255) / 256 : 4096), 256,
                           0, s>>>((const uint8_t *)off->data,
                                   (uint8_t *)kb_tensors_find(tin, "offset")->data, plane, total);
    return cudaGetLastError();
}
static const mut_spec offset_xy = {explicit_i64, NULL, 0x2, swap_offsets, NULL};
KB_MUTANT(dcn_offset_xy, offset_xy)

/* The DCNv2 modulation mask never applied (the DCNv1 path taken). */
static void mask_unused_case(kb_case *c) {
    mut_set_int(c, "mask", 0);
    mut_set_str(c, "mask_values", "random");
}
static const mut_spec mask_unused = {explicit_i64, mask_unused_case, 0, NULL, NULL};
KB_MUTANT(dcn_mask_unused, mask_unused)

/* Output tiles of 64 pixels, ho * wo / 64 of them (rounded down): the last
 * partial tile of every output plane never computed. */
static cudaError_t tail_tile(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                             cudaStream_t s) {
    kb_dcn_params p = params_of(c);
    size_t es = kb_dtype_size(p.dtype), P = (size_t)(p.ho * p.wo);
    return mut_unwrite_row_tails(kb_tensors_find(out, "output"), p.n * p.c_out, P * es,
                                 (P - P % 64) * es, s);
}
static const mut_spec tail_tile_spec = {explicit_i64, NULL, 0, NULL, tail_tile};
KB_MUTANT(dcn_tail_tile, tail_tile_spec)

/* The bias add of the last output plane runs one element too far. */
static cudaError_t overrun(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                           cudaStream_t s) {
    kb_tensor *o = kb_tensors_find(out, "output");
    mut_store_past_end(o, kb_dtype_size(o->dtype), s);
    return cudaGetLastError();
}
static const mut_spec overrun_spec = {explicit_i64, NULL, 0, NULL, overrun};
KB_MUTANT(dcn_overrun, overrun_spec)

/* ---- border_w2: a direct f32 kernel, one thread per output element ---- */

KB_DCN_CORNERS(float, int64_t, mut_dcn_corners)

/* torchvision's bilinear_interpolate, except that the far neighbour counts
 * only up to row H-2 and column W-2 (a bound of H-1 where H is meant): the
 * last row and column are read as near neighbours only. */
__device__ float sample_border_w2(const float *plane, int64_t H, int64_t W, float y, float x) {
    int64_t base;
    float wt[4];
    if (!mut_dcn_corners(y, x, H, W, &base, wt)) return 0.0f;
    if ((int64_t)floorf(y) + 1 == H - 1) wt[2] = wt[3] = 0.0f;
    if ((int64_t)floorf(x) + 1 == W - 1) wt[1] = wt[3] = 0.0f;
    const int64_t at[4] = {0, 1, W, W + 1};
    float v = 0.0f;
    for (int k = 0; k < 4; k++)
        if (wt[k] != 0.0f) v += wt[k] * plane[base + at[k]]; /* zero weight: maybe outside */
    return v;
}

__global__ void dcn_border_w2(const float *in, const float *off, const float *mask,
                              const float *weight, const float *bias, float *out, kb_dcn_params p) {
    const int64_t P = p.ho * p.wo, K = p.kh * p.kw, total = p.n * p.c_out * P;
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= total) return;
    const int64_t pix = i % P, co = i / P % p.c_out, n = i / P / p.c_out;
    const int64_t ho = pix / p.wo, wo = pix % p.wo;
    const int64_t cpg = p.c_in / p.groups, g = co / (p.c_out / p.groups);
    const int64_t per_og = p.c_in / p.offset_groups;
    float acc = p.bias ? bias[co] : 0.0f;
    for (int64_t cl = 0; cl < cpg; cl++) {
        const int64_t ci = g * cpg + cl, og = ci / per_og;
        const float *plane = in + (n * p.c_in + ci) * p.h * p.w;
        for (int64_t k = 0; k < K; k++) {
            const int64_t dy_plane = (n * p.offset_groups + og) * 2 * K + 2 * k;
            const float y =
                (float)(ho * p.stride_h - p.pad_h + k / p.kw * p.dil_h) + off[dy_plane * P + pix];
            const float x = (float)(wo * p.stride_w - p.pad_w + k % p.kw * p.dil_w) +
                            off[(dy_plane + 1) * P + pix];
            const float m = p.mask ? mask[((n * p.offset_groups + og) * K + k) * P + pix] : 1.0f;
            acc += weight[(co * cpg + cl) * K + k] * m * sample_border_w2(plane, p.h, p.w, y, x);
        }
    }
    out[i] = acc;
}

static int border_supports(const kb_case *c, kb_error *why) {
    kb_dcn_params p;
    if (kb_dcn_params_from_case(c, &p, why) != KB_OK) return KB_ERR;
    return p.dtype == KB_F32 ? KB_OK : KB_NOT_APPLICABLE;
}

static size_t no_workspace(const kb_case *c) {
    return 0;
}

static int border_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    kb_dcn_params *p = (kb_dcn_params *)malloc(sizeof *p);
    if (!p) return kb_fail(e, "out of host memory");
    if (kb_dcn_params_from_case(c, p, e) != KB_OK) {
        free(p);
        return KB_ERR;
    }
    *state = p;
    return KB_OK;
}

static const float *input(const kb_tensors *in, const char *name) {
    return (const float *)kb_tensors_get(in, name)->data;
}

static int border_run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s,
                      kb_error *e) {
    const kb_dcn_params *p = (const kb_dcn_params *)state;
    int64_t total = p->n * p->c_out * p->ho * p->wo;
    if (total == 0) return KB_OK;
    dcn_border_w2<<<(unsigned)((total + 255) / 256), 256, 0, s>>>(
        input(in, "input"), input(in, "offset"), input(in, "mask"), input(in, "weight"),
        input(in, "bias"), (float *)kb_tensors_find(out, "output")->data, *p);
    return kb_cuda_check(cudaGetLastError(), "dcn_border_w2 launch", e);
}

static void border_teardown(void *state) {
    free(state);
}

extern "C" const kb_variant_impl kb_mut_dcn_border_w2 = {border_supports, no_workspace,
                                                         border_setup, border_run, border_teardown};
