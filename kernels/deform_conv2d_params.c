/* deform_conv2d_params.c — kb_dcn_params_from_case (with torchvision's checks and
 * the size bounds) and kb_dcn_sizes_of.
 * The op's parameters as the references, the op's table (kernels/deform_conv2d.c) and
 * the variants read them: below all three, so that the reference reaches its
 * parameters without calling back into the table that calls it.
 */
#include "deform_conv2d.h"

#include <stdio.h>
#include <string.h>

/* torchvision's output size (deform_conv2d.h): C division truncates toward
 * zero, so a span in (-stride, 0) still gives 1. */
static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
    return (in + 2 * p - (d * (k - 1) + 1)) / s + 1;
}

/* One product of the op's sizes, for the whole batch, in bytes of 8 per
 * element (the widest any variant stores): KB_ERR with every factor when it
 * passes INT64_MAX. */
static int check_product(const char *what, const char *const *names, const int64_t *f, int n,
                         kb_error *e) {
    int64_t factors[8], prod;
    for (int i = 0; i < n; i++) factors[i] = f[i];
    factors[n] = 8;
    if (kb_prod_i64(factors, n + 1, &prod) == KB_OK) return KB_OK;
    char text[512];
    size_t used = 0;
    for (int i = 0; i < n && used < sizeof text; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s=%lld x ", names[i],
                                 (long long)f[i]);
    return kb_fail(e, "%s: %s8 bytes passes INT64_MAX: the sizes overflow 64-bit arithmetic", what,
                   text);
}

/* Every element count that describe() and the variants (kb_dcn_sizes_of,
 * times the batch) form from the axes: the axes' own ranges allow products
 * of over 2^80, which would wrap. Bounded at 2^60 elements, so that the bytes
 * and small sums of them stay in int64 as well. */
static int check_sizes(const kb_dcn_params *p, kb_error *e) {
    static const char *const in_names[] = {"n", "c_in", "h", "w"};
    static const char *const off_names[] = {"n", "2*offset_groups", "kh", "kw", "ho", "wo"};
    static const char *const mask_names[] = {"n", "offset_groups", "kh", "kw", "ho", "wo"};
    static const char *const col_names[] = {"n", "c_in", "kh", "kw", "ho", "wo"};
    static const char *const w_names[] = {"c_out", "c_in/groups", "kh", "kw"};
    static const char *const out_names[] = {"n", "c_out", "ho", "wo"};
    const int64_t in[] = {p->n, p->c_in, p->h, p->w};
    const int64_t off[] = {p->n, 2 * p->offset_groups, p->kh, p->kw, p->ho, p->wo};
    const int64_t mask[] = {p->n, p->offset_groups, p->kh, p->kw, p->ho, p->wo};
    const int64_t col[] = {p->n, p->c_in, p->kh, p->kw, p->ho, p->wo};
    const int64_t w[] = {p->c_out, p->c_in / p->groups, p->kh, p->kw};
    const int64_t out[] = {p->n, p->c_out, p->ho, p->wo};
    struct {
        const char *what;
        const char *const *names;
        const int64_t *f;
        int n;
    } prods[] = {{"input", in_names, in, 4},    {"offset", off_names, off, 6},
                 {"mask", mask_names, mask, 6}, {"im2col columns", col_names, col, 6},
                 {"weight", w_names, w, 4},     {"output", out_names, out, 4}};
    for (size_t i = 0; i < sizeof prods / sizeof prods[0]; i++) {
        /* n = 0 makes a batch product 0: the per-image product must fit alone */
        int skip = p->n == 0 && strcmp(prods[i].names[0], "n") == 0;
        if (check_product(prods[i].what, prods[i].names + skip, prods[i].f + skip,
                          prods[i].n - skip, e) != KB_OK)
            return KB_ERR;
    }
    return KB_OK;
}

int kb_dcn_params_from_case(const kb_case *c, kb_dcn_params *p, kb_error *e) {
    memset(p, 0, sizeof *p);
    p->n = kb_int(c, "n");
    p->c_in = kb_int(c, "c_in");
    p->c_out = kb_int(c, "c_out");
    p->h = kb_int(c, "h");
    p->w = kb_int(c, "w");
    p->kh = kb_int(c, "kh");
    p->kw = kb_int(c, "kw");
    p->stride_h = kb_int(c, "stride_h");
    p->stride_w = kb_int(c, "stride_w");
    p->pad_h = kb_int(c, "pad_h");
    p->pad_w = kb_int(c, "pad_w");
    p->dil_h = kb_int(c, "dil_h");
    p->dil_w = kb_int(c, "dil_w");
    p->groups = kb_int(c, "groups");
    p->offset_groups = kb_int(c, "offset_groups");
    p->mask = (int)kb_int(c, "mask");
    p->bias = (int)kb_int(c, "bias");
    if (kb_dtype_parse(kb_str(c, "dtype"), &p->dtype) != KB_OK)
        return kb_fail(e, "dtype=%s: not a dtype", kb_str(c, "dtype"));
    const char *im2col = kb_str(c, "im2col");
    p->im2col = strcmp(im2col, "window") == 0   ? KB_DCN_IM2COL_WINDOW
                : strcmp(im2col, "global") == 0 ? KB_DCN_IM2COL_GLOBAL
                                                : KB_DCN_IM2COL_AUTO;
    p->ho = out_size(p->h, p->kh, p->stride_h, p->pad_h, p->dil_h);
    p->wo = out_size(p->w, p->kw, p->stride_w, p->pad_w, p->dil_w);
    /* torchvision's checks (ops/deform_conv2d.cpp), in its order */
    if (p->c_in % p->groups)
        return kb_fail(e, "c_in=%lld is not divisible by groups=%lld", (long long)p->c_in,
                       (long long)p->groups);
    if (p->c_out % p->groups)
        return kb_fail(e, "c_out=%lld is not divisible by groups=%lld", (long long)p->c_out,
                       (long long)p->groups);
    if (p->c_in % p->offset_groups)
        return kb_fail(e, "c_in=%lld is not divisible by offset_groups=%lld", (long long)p->c_in,
                       (long long)p->offset_groups);
    if (p->ho <= 0 || p->wo <= 0)
        return kb_fail(
            e,
            "output size %lldx%lld is not positive (ho = (h + 2*pad_h - (dil_h*(kh-1) + 1)) / "
            "stride_h + 1 in integer division, wo likewise): h=%lld pad_h=%lld dil_h=%lld "
            "kh=%lld stride_h=%lld, w=%lld pad_w=%lld dil_w=%lld kw=%lld stride_w=%lld",
            (long long)p->ho, (long long)p->wo, (long long)p->h, (long long)p->pad_h,
            (long long)p->dil_h, (long long)p->kh, (long long)p->stride_h, (long long)p->w,
            (long long)p->pad_w, (long long)p->dil_w, (long long)p->kw, (long long)p->stride_w);
    if (!p->mask && strcmp(kb_str(c, "mask_values"), "random") != 0)
        return kb_fail(e, "mask_values=%s needs mask=1", kb_str(c, "mask_values"));
    return check_sizes(p, e);
}

kb_dcn_sizes kb_dcn_sizes_of(const kb_dcn_params *p) {
    kb_dcn_sizes s;
    int64_t K = p->kh * p->kw, P = p->ho * p->wo;
    s.input_img = p->c_in * p->h * p->w;
    s.offset_img = 2 * p->offset_groups * K * P;
    s.mask_img = p->offset_groups * K * P;
    s.output_img = p->c_out * P;
    s.columns_img = p->c_in * K * P;
    s.weight = p->c_out * (p->c_in / p->groups) * K;
    s.pixels = p->n * P;
    return s;
}
