/* The preprocess reference on cases checked by hand: OpenCV nearest and
 * half-pixel bilinear, edge replication, letterbox padding, channel order. */
#include "kbtest.h"
#include "preprocess.h"

typedef struct {
    kb_case c;
    kb_tensors in, out;
} pp_case;

/* A case from "axis=value ..." pairs, with unit normalisation unless set. */
static void make_case(pp_case *pc, const char *const *kv) {
    memset(pc, 0, sizeof *pc);
    kb_case_defaults(&pc->c, &kb_op_preprocess);
    kbt_set(&pc->c, "norm", "unit");
    for (int i = 0; kv[i]; i += 2) KB_EXPECT(kb_case_set(&pc->c, kv[i], kv[i + 1], NULL) == KB_OK);
    KB_EXPECT(kb_op_preprocess.validate(&pc->c, NULL) == KB_OK);
    kb_op_preprocess.describe(&pc->c, &pc->in, &pc->out, NULL);
    kb_tensors_alloc_host(&pc->in, NULL);
    kb_tensors_alloc_host(&pc->out, NULL);
}

static uint8_t *pixels(pp_case *pc) {
    return pc->in.t[0].data;
}

static double out_at(pp_case *pc, int c, int y, int x) {
    const kb_tensor *o = &pc->out.t[0];
    int64_t i = ((int64_t)c * o->shape[2] + y) * o->shape[3] + x;
    return kb_load_as_double(o->data, o->dtype, i);
}

static void run_reference(pp_case *pc) {
    KB_EXPECT(kb_op_preprocess.reference(&pc->c, &pc->in, &pc->out, NULL) == KB_OK);
}

static void release(pp_case *pc) {
    kb_tensors_free_host(&pc->in);
    kb_tensors_free_host(&pc->out);
}

/* Grey image whose value encodes the position: v(y, x) = 10*y + x + 1. */
static void fill_grey_ramp(pp_case *pc, int h, int w) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 3; c++) pixels(pc)[(y * w + x) * 3 + c] = (uint8_t)(10 * y + x + 1);
}

KB_TEST(nearest_4x4_to_2x2_takes_even_pixels) {
    pp_case pc;
    make_case(&pc, (const char *const[]){"in_h", "4", "in_w", "4", "out_h", "2", "out_w", "2",
                                         "interp", "nearest", NULL});
    fill_grey_ramp(&pc, 4, 4);
    run_reference(&pc);
    KB_EXPECT_NEAR(out_at(&pc, 0, 0, 0) * 255, 1, 1e-4);  /* (0,0) */
    KB_EXPECT_NEAR(out_at(&pc, 0, 0, 1) * 255, 3, 1e-4);  /* (0,2) */
    KB_EXPECT_NEAR(out_at(&pc, 0, 1, 0) * 255, 21, 1e-4); /* (2,0) */
    KB_EXPECT_NEAR(out_at(&pc, 0, 1, 1) * 255, 23, 1e-4); /* (2,2) */
    release(&pc);
}

/* B = source row, G = source column: the output planes show the indices. */
static void fill_index_image(pp_case *pc, int h, int w) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *px = pixels(pc) + ((size_t)y * w + x) * 3;
            px[0] = (uint8_t)y;
            px[1] = (uint8_t)x;
            px[2] = 0;
        }
}

static const char *const upscale_128x226_to_644x304[] = {
    "in_h", "128", "in_w", "226", "out_h", "644", "out_w", "304", "interp", "nearest", NULL};

KB_TEST(nearest_follows_opencv_double_scale_not_the_rational) {
    /* 161 * 128 / 644 = 32 exactly, but OpenCV's ifx = 1 / (644 / 128.) =
     * 1 / 5.03125 rounds to 0.19875776397515527 (below 128/644), and
     * 161 * ifx = 31.999999999999996: row 31. Likewise 322 -> 63 (not 64);
     * columns: 152 * 226 / 304 = 113 exactly, OpenCV 112. */
    pp_case pc;
    make_case(&pc, upscale_128x226_to_644x304);
    fill_index_image(&pc, 128, 226);
    run_reference(&pc);
    const int rows[][2] = {{160, 31}, {161, 31}, {162, 32}, {322, 63}, {323, 64}, {643, 127}};
    for (int i = 0; i < 6; i++)
        KB_EXPECT_NEAR(out_at(&pc, 2, rows[i][0], 0) * 255, rows[i][1], 1e-4);
    const int cols[][2] = {{151, 112}, {152, 112}, {153, 113}, {303, 225}};
    for (int i = 0; i < 4; i++)
        KB_EXPECT_NEAR(out_at(&pc, 1, 0, cols[i][0]) * 255, cols[i][1], 1e-4);
    release(&pc);
}

KB_TEST(nearest_float_scale_rule_differs_where_the_float_product_rounds) {
    /* 500 -> 480: 500/480f = 1.04166663; 120 * it = 124.999995, rounded
     * to the float 124.99999237: 124, where OpenCV (double) gives 125. */
    KB_EXPECT(kb_pp_nearest_src(120, 500, 480) == 125);
    KB_EXPECT(kb_pp_nearest_src_f32(120, kb_pp_nearest_scale_f32(500, 480), 500) == 124);
    /* 128 -> 644: the float product rounds up to 32 where OpenCV's is 31 */
    KB_EXPECT(kb_pp_nearest_src_f32(161, kb_pp_nearest_scale_f32(128, 644), 128) == 32);
    /* the clamp: the last pixel at most */
    KB_EXPECT(kb_pp_nearest_src_f32(8191, kb_pp_nearest_scale_f32(8192, 8192), 8192) == 8191);
}

KB_TEST(inexact_nearest_is_held_to_the_float_scale_rule_and_counts_pixels) {
    pp_case pc, own;
    make_case(&pc, upscale_128x226_to_644x304);
    make_case(&own, upscale_128x226_to_644x304);
    fill_index_image(&pc, 128, 226);
    run_reference(&pc);
    kb_pp_params p = kb_pp_params_of(&pc.c);
    p.nn_rule = KB_PP_NN_FLOAT_SCALE;
    kb_pp_reference_params(&p, pixels(&pc), &own.out.t[0]);
    kb_accuracy acc = {.pass = 1};
    const kb_check_ctx inexact = {KB_PREC_F32, KB_INEXACT}, plain = {KB_PREC_F32, 0};
    kb_op_preprocess.compare(&pc.c, &inexact, &pc.in, &pc.out, &own.out, &acc);
    KB_EXPECT(acc.pass);
    /* rows 161 and 322 and column 152 differ: 2 * 304 + 644 - 2 pixels */
    KB_EXPECT_STR_CONTAINS(acc.note, "1250 of 195776 output pixels");
    kb_accuracy exact = {.pass = 1};
    /* the float rule's output is not OpenCV's */
    kb_op_preprocess.compare(&pc.c, &plain, &pc.in, &pc.out, &own.out, &exact);
    KB_EXPECT(!exact.pass);
    release(&pc);
    release(&own);
}

KB_TEST(bilinear_4x4_to_2x2_averages_2x2_blocks) {
    pp_case pc;
    make_case(&pc, (const char *const[]){"in_h", "4", "in_w", "4", "out_h", "2", "out_w", "2",
                                         "interp", "bilinear", NULL});
    fill_grey_ramp(&pc, 4, 4);
    run_reference(&pc);
    /* src = (d + 0.5) * 2 - 0.5 = 0.5, 2.5: midway between two pixels each way */
    KB_EXPECT_NEAR(out_at(&pc, 1, 0, 0) * 255, (1 + 2 + 11 + 12) / 4.0, 1e-4);
    KB_EXPECT_NEAR(out_at(&pc, 1, 1, 1) * 255, (23 + 24 + 33 + 34) / 4.0, 1e-4);
    release(&pc);
}

KB_TEST(bilinear_2x2_to_5x3_replicates_edges) {
    pp_case pc;
    make_case(&pc, (const char *const[]){"in_h", "2", "in_w", "2", "out_h", "3", "out_w", "5",
                                         "interp", "bilinear", NULL});
    uint8_t v[4] = {0, 100, 200, 40}; /* (0,0) (0,1) (1,0) (1,1) */
    for (int i = 0; i < 4; i++) memset(pixels(&pc) + 3 * i, v[i], 3);
    run_reference(&pc);
    /* x: src = (d+0.5)*0.4-0.5 = -0.3 (edge), 0.1, 0.5, 0.9, 1.3 (edge);
     * y: (d+0.5)*2/3-0.5 = -1/6 (edge), 0.5, 7/6 (edge) */
    const double fx[5] = {0, 0.1, 0.5, 0.9, 1};
    for (int dx = 0; dx < 5; dx++) {
        double top = v[0] + fx[dx] * (v[1] - v[0]), bot = v[2] + fx[dx] * (v[3] - v[2]);
        KB_EXPECT_NEAR(out_at(&pc, 0, 0, dx) * 255, top, 1e-3);
        KB_EXPECT_NEAR(out_at(&pc, 0, 1, dx) * 255, (top + bot) / 2, 1e-3);
        KB_EXPECT_NEAR(out_at(&pc, 0, 2, dx) * 255, bot, 1e-3);
    }
    release(&pc);
}

KB_TEST(letterbox_pads_rows_with_114) {
    /* 2x4 image into 4x4: s = 1, ty = 1: rows 0 and 3 are padding */
    pp_case pc;
    make_case(&pc, (const char *const[]){"in_h", "2", "in_w", "4", "out_h", "4", "out_w", "4",
                                         "interp", "letterbox", NULL});
    fill_grey_ramp(&pc, 2, 4);
    run_reference(&pc);
    for (int x = 0; x < 4; x++) {
        KB_EXPECT_NEAR(out_at(&pc, 0, 0, x) * 255, 114, 1e-4);
        KB_EXPECT_NEAR(out_at(&pc, 2, 3, x) * 255, 114, 1e-4);
        KB_EXPECT_NEAR(out_at(&pc, 1, 1, x) * 255, 1 + x, 1e-4);
        KB_EXPECT_NEAR(out_at(&pc, 1, 2, x) * 255, 11 + x, 1e-4);
    }
    release(&pc);
}

KB_TEST(letterbox_blend_is_rounded_before_normalising) {
    /* 1x2 image [0, 255] into 1x3: s = 1.5 (width), sampled at x = 1/3 etc. */
    pp_case pc;
    make_case(&pc, (const char *const[]){"in_h", "2", "in_w", "2", "out_h", "3", "out_w", "3",
                                         "interp", "letterbox", NULL});
    uint8_t v[4] = {0, 255, 0, 255};
    for (int i = 0; i < 4; i++) memset(pixels(&pc) + 3 * i, v[i], 3);
    run_reference(&pc);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++) {
            double r = out_at(&pc, 0, y, x) * 255;
            KB_EXPECT_NEAR(r, floor(r + 0.5), 1e-3); /* an integer level */
        }
    release(&pc);
}

KB_TEST(mean_std_apply_after_channel_swap) {
    pp_case pc;
    make_case(&pc, (const char *const[]){"in_h", "1", "in_w", "1", "out_h", "1", "out_w", "1",
                                         "interp", "nearest", "norm", "imagenet", NULL});
    pixels(&pc)[0] = 255; /* B */
    pixels(&pc)[1] = 0;   /* G */
    pixels(&pc)[2] = 51;  /* R */
    run_reference(&pc);
    KB_EXPECT_NEAR(out_at(&pc, 0, 0, 0), (51 / 255.0 - 0.485) / 0.229, 1e-5); /* R plane */
    KB_EXPECT_NEAR(out_at(&pc, 1, 0, 0), (0 - 0.456) / 0.224, 1e-5);
    KB_EXPECT_NEAR(out_at(&pc, 2, 0, 0), (1 - 0.406) / 0.225, 1e-5); /* B plane */
    release(&pc);
}

/* An independent bilinear in double (OpenCV's rule written afresh) for the
 * odd sizes, where the float rule may differ only by rounding. */
static double cv_linear(const uint8_t *img, int h, int w, int oh, int ow, int dy, int dx) {
    double sy = (dy + 0.5) * h / oh - 0.5, sx = (dx + 0.5) * w / ow - 0.5;
    int y0 = (int)floor(sy), x0 = (int)floor(sx);
    double fy = sy - y0, fx = sx - x0;
    if (y0 < 0) y0 = 0, fy = 0;
    if (y0 >= h - 1) y0 = h - 1, fy = 0;
    if (x0 < 0) x0 = 0, fx = 0;
    if (x0 >= w - 1) x0 = w - 1, fx = 0;
    int y1 = y0 + 1 < h ? y0 + 1 : h - 1, x1 = x0 + 1 < w ? x0 + 1 : w - 1;
    double a = img[(y0 * w + x0) * 3], b = img[(y0 * w + x1) * 3];
    double c = img[(y1 * w + x0) * 3], d = img[(y1 * w + x1) * 3];
    return (1 - fy) * ((1 - fx) * a + fx * b) + fy * ((1 - fx) * c + fx * d);
}

static void check_odd_size(const char *in, const char *out) {
    pp_case pc;
    make_case(&pc, (const char *const[]){"in_h", in, "in_w", in, "out_h", out, "out_w", out,
                                         "interp", "bilinear", NULL});
    int h = atoi(in), o = atoi(out);
    uint64_t rng = 42;
    for (int i = 0; i < h * h * 3; i++) pixels(&pc)[i] = (uint8_t)kb_rng_int(&rng, 0, 255);
    run_reference(&pc);
    double worst = 0;
    for (int y = 0; y < o; y++)
        for (int x = 0; x < o; x++) {
            double want = cv_linear(pixels(&pc), h, h, o, o, y, x);
            double got = out_at(&pc, 2, y, x) * 255; /* plane 2 = B = byte 0 */
            if (fabs(got - want) > worst) worst = fabs(got - want);
        }
    KB_EXPECT(worst < 0.02);
    release(&pc);
}

KB_TEST(odd_size_500_to_480_matches_opencv_rule) {
    check_odd_size("500", "480");
}
KB_TEST(odd_size_128_to_160_matches_opencv_rule) {
    check_odd_size("128", "160");
}

KB_TEST(f16_output_rounds_the_f32_value) {
    pp_case pc;
    make_case(&pc, (const char *const[]){"in_h", "3", "in_w", "3", "out_h", "2", "out_w", "2",
                                         "dtype", "f16", "norm", "imagenet", NULL});
    fill_grey_ramp(&pc, 3, 3);
    run_reference(&pc);
    KB_EXPECT(pc.out.t[0].dtype == KB_F16);
    /* Bilinear 3x3 -> 2x2 samples at src = (d + 0.5) * 1.5 - 0.5 = 0.25, 1.75,
     * and the ramp is linear: v(0.25, 0.25) = 10 * 0.25 + 0.25 + 1 = 3.75,
     * v(1.75, 0.25) = 18.75. Normalised, in steps of the f16 spacing there:
     *   R (3.75/255 - 0.485)/0.229 = -2.05369 = -1051.487 * 2^-9  -> -1051 * 2^-9
     *   B (3.75/255 - 0.406)/0.225 = -1.73908 = -1780.823 * 2^-10 -> -1781 * 2^-10
     *   R (18.75/255 - 0.485)/0.229 = -1.79681 = -1839.938 * 2^-10 -> -1840 * 2^-10
     * rounded to the nearest (truncation would give -1780 and -1839). */
    KB_EXPECT(out_at(&pc, 0, 0, 0) == -2.052734375);
    KB_EXPECT(out_at(&pc, 2, 0, 0) == -1.7392578125);
    KB_EXPECT(out_at(&pc, 0, 1, 0) == -1.796875);
    release(&pc);
}

KB_TEST(validate_rejects_missing_image_file) {
    kb_case c;
    kb_error e;
    kb_case_defaults(&c, &kb_op_preprocess);
    kbt_set(&c, "image", "/no/such/file.png");
    KB_EXPECT(kb_op_preprocess.validate(&c, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "image=/no/such/file.png");
}

KB_TEST(synthetic_inputs_are_not_flat) {
    pp_case pc;
    make_case(&pc, (const char *const[]){"n", "2", "in_h", "64", "in_w", "80", NULL});
    KB_EXPECT(kb_op_preprocess.make_inputs(&pc.c, 7, &pc.in, NULL) == KB_OK);
    int distinct[256] = {0}, count = 0;
    for (int i = 0; i < 2 * 64 * 80 * 3; i++) distinct[pixels(&pc)[i]] = 1;
    for (int i = 0; i < 256; i++) count += distinct[i];
    KB_EXPECT(count > 64);
    KB_EXPECT(memcmp(pixels(&pc), pixels(&pc) + 64 * 80 * 3, 64 * 80 * 3) != 0);
    release(&pc);
}
