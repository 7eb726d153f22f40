/* test_dcn_ws_plan.c — deform_conv2d/nhwc_ws_*'s launch rules
 * (variants/deform_conv2d/dcn_ws_plan.h): the tile shape by channels and
 * pixels, and the split of K: one wave at most, every block a range of at
 * least 8 K tiles, no split where the output tiles fill the SMs or the
 * shape has no split epilogue; the stream split where it shortens the
 * longest run, and its walk, which takes every step once; the grid: a block
 * a tile when split, else at most one an SM; the pixel tiles: rectangles
 * where they take no more tiles than consecutive pixels, and a tile list
 * that covers every output pixel once. */
#include "kbtest.h"
#include "variants/deform_conv2d/dcn_ws_plan.h"

#include <stdlib.h>

KB_TEST(tile_channels_follow_c_out_and_the_pixel_tiles) {
    /* up to 64 and up to 128 channels, whatever the pixels */
    KB_EXPECT(kb_dcn_ws_tile_n(64, 1000000, 1, 132) == 64);
    KB_EXPECT(kb_dcn_ws_tile_n(8, 64, 1, 132) == 64);
    KB_EXPECT(kb_dcn_ws_tile_n(65, 64, 1, 132) == 128);
    KB_EXPECT(kb_dcn_ws_tile_n(128, 1000000, 1, 132) == 128);
    /* past 128: 128 x 256 tiles where they fill the SMs, 128 x 128 below */
    KB_EXPECT(kb_dcn_ws_tile_n(256, 8 * 64 * 64, 1, 132) == 256); /* 256 tiles */
    KB_EXPECT(kb_dcn_ws_tile_n(256, 50 * 84, 1, 132) == 128);     /* 33 tiles */
    KB_EXPECT(kb_dcn_ws_tile_n(512, 25 * 42, 1, 132) == 128);     /* 9 x 2 tiles */
    KB_EXPECT(kb_dcn_ws_tile_n(136, 132 * 128, 1, 132) == 256);   /* exactly one wave */
    KB_EXPECT(kb_dcn_ws_tile_n(136, 132 * 128 - 128, 1, 132) == 128);
    KB_EXPECT(kb_dcn_ws_tile_n(256, 66 * 128, 2, 132) == 256); /* groups count */
    /* a smaller device: the same layer fills its SMs with fewer tiles */
    KB_EXPECT(kb_dcn_ws_tile_n(256, 50 * 84, 1, 28) == 256);
}

KB_TEST(split_fills_one_wave_and_keeps_eight_k_tiles_a_block) {
    /* the default layers on 132 SMs (128 x 128 tiles): (1,256,50,84) 66 tiles,
     * (1,512,25,42) 36, 72 / 144 K tiles in tf32 */
    KB_EXPECT(kb_dcn_ws_split(66, 72, 132, 1) == 2);
    KB_EXPECT(kb_dcn_ws_split(36, 144, 132, 1) == 3);
    KB_EXPECT(kb_dcn_ws_split(36, 72, 132, 1) == 3);
    /* one tile: the K tiles bound it (120 pixels, 72 K tiles: 9 ranges) */
    KB_EXPECT(kb_dcn_ws_split(1, 72, 132, 1) == 9);
    KB_EXPECT(kb_dcn_ws_split(2, 36, 132, 1) == 4);
    /* fewer than 16 K tiles: no split */
    KB_EXPECT(kb_dcn_ws_split(2, 15, 132, 1) == 1);
    KB_EXPECT(kb_dcn_ws_split(2, 9, 132, 1) == 1);
    /* tiles that fill the SMs, no tiles, or a shape without the epilogue */
    KB_EXPECT(kb_dcn_ws_split(132, 1000, 132, 1) == 1);
    KB_EXPECT(kb_dcn_ws_split(256, 1000, 132, 1) == 1);
    KB_EXPECT(kb_dcn_ws_split(0, 1000, 132, 1) == 1);
    KB_EXPECT(kb_dcn_ws_split(10, 1000, 132, 0) == 1);
    /* never a second wave, never a range under 8 K tiles */
    for (int64_t tiles = 1; tiles <= 140; tiles++)
        for (int64_t kt = 1; kt <= 200; kt += 7) {
            int ks = kb_dcn_ws_split(tiles, kt, 132, 1);
            KB_EXPECT(ks >= 1);
            if (ks > 1) KB_EXPECT(tiles * ks <= 132 && kt / ks >= 8);
        }
}

KB_TEST(stream_where_it_shortens_the_longest_run) {
    /* (1,512,25,42): 36 tiles, KS 3 (108 blocks of 48 K tiles) -> 132 runs of 39-40 */
    KB_EXPECT(kb_dcn_ws_stream(36, 144, 132, 3, 1) == 132);
    /* in f16 (72 K tiles) 24 -> 20: short of the 8 K tiles a second piece costs */
    KB_EXPECT(kb_dcn_ws_stream(36, 72, 132, 3, 1) == 0);
    /* (1,256,50,84): 66 tiles x KS 2 fill the SMs, runs of half a tile either way */
    KB_EXPECT(kb_dcn_ws_stream(66, 72, 132, 2, 1) == 0);
    /* 68 tiles, KS 1 (68 blocks of 144) -> 132 runs of 74-75 */
    KB_EXPECT(kb_dcn_ws_stream(68, 144, 132, 1, 1) == 132);
    /* tiles that fill the SMs, no tiles, a shape without the split epilogue */
    KB_EXPECT(kb_dcn_ws_stream(132, 1000, 132, 1, 1) == 0);
    KB_EXPECT(kb_dcn_ws_stream(0, 1000, 132, 1, 1) == 0);
    KB_EXPECT(kb_dcn_ws_stream(3, 2, 132, 1, 1) == 0); /* under 8 steps: no block */
    KB_EXPECT(kb_dcn_ws_stream(68, 144, 132, 1, 0) == 0);
    /* runs of at least 8 K tiles, more blocks than tiles */
    KB_EXPECT(kb_dcn_ws_stream(2, 36, 132, 4, 1) == 0); /* 9 -> 8 */
    KB_EXPECT(kb_dcn_ws_stream(5, 40, 132, 5, 1) == 0); /* 8 either way */
    /* (1,512,25,42) sits at the line (40 + 8 = 48); KS 4 would leave 36 */
    KB_EXPECT(kb_dcn_ws_stream(36, 144, 132, 4, 1) == 0);
    KB_EXPECT(kb_dcn_ws_stream(36, 120, 132, 3, 1) == 0); /* 40 against 33 + 8 */
    /* the walk's 32-bit arithmetic: steps x SMs < 2^31, else the KS split */
    KB_EXPECT(kb_dcn_ws_stream(50, INT32_MAX / 132 / 50, 132, 2, 1) == 132);
    KB_EXPECT(kb_dcn_ws_stream(50, INT32_MAX / 132 / 50 + 1, 132, 2, 1) == 0);
    for (int64_t tiles = 1; tiles <= 140; tiles++)
        for (int64_t kt = 1; kt <= 200; kt += 7) {
            int ks = kb_dcn_ws_split(tiles, kt, 132, 1);
            int64_t b = kb_dcn_ws_stream(tiles, kt, 132, ks, 1);
            if (b) /* one wave, runs of 8 or more, 8 shorter than the KS ranges */
                KB_EXPECT(b > tiles && b <= 132 && tiles * kt / b >= 8 &&
                          (tiles * kt + b - 1) / b + 8 <= (kt + ks - 1) / ks);
        }
}

/* The kernel's walk of a stream split (ws_walk<true> in nhwc.cu: kb_dcn_ws_first_piece,
 * kb_dcn_ws_next_piece): every (tile, K tile) step taken once, in pieces
 * within a tile; one or two pieces a block, of neighbouring tiles; runs
 * within one K tile of each other; a tile's blocks are kb_dcn_ws_block_of's
 * [b0, b1]; slots block + tile unique and under blocks + tiles. */
static int split_walk_is_exact(int tiles, int ktiles, int blocks) {
    const int steps = tiles * ktiles;
    int *seen = calloc((size_t)steps, sizeof(int));
    int *slot = calloc((size_t)(blocks + tiles), sizeof(int));
    int *lo = malloc((size_t)tiles * sizeof(int)), *hi = malloc((size_t)tiles * sizeof(int));
    int ok = seen && slot && lo && hi, shortest = ktiles, longest = 0;
    for (int x = 0; ok && x < tiles; x++) lo[x] = blocks, hi[x] = -1;
    for (int b = 0; ok && b < blocks; b++) {
        const int run = kb_dcn_ws_step0(b + 1, steps, blocks) - kb_dcn_ws_step0(b, steps, blocks);
        shortest = run < shortest ? run : shortest, longest = run > longest ? run : longest;
        int pieces = 0, t0, t1, taken = 0;
        for (int x = kb_dcn_ws_first_piece(b, tiles, ktiles, blocks, &t0, &t1); ok && x < tiles;
             x = kb_dcn_ws_next_piece(b, x, tiles, ktiles, blocks, &t0, &t1)) {
            if (x < 0 || t0 < 0 || t1 <= t0 || t1 > ktiles || slot[b + x]++ || ++pieces > 2) ok = 0;
            for (int t = t0; ok && t < t1; t++)
                if (seen[x * ktiles + t]++) ok = 0;
            if (ok) lo[x] = b < lo[x] ? b : lo[x], hi[x] = b > hi[x] ? b : hi[x];
            if (pieces == 2 && (x < 1 || hi[x - 1] != b)) ok = 0; /* the second: the next tile */
            taken += t1 - t0;
        }
        if (pieces < 1 || taken != run) ok = 0;
    }
    for (int i = 0; ok && i < steps; i++)
        if (seen[i] != 1) ok = 0;
    for (int x = 0; ok && x < tiles; x++)
        if (kb_dcn_ws_block_of(x * ktiles, steps, blocks) != lo[x] ||
            kb_dcn_ws_block_of((x + 1) * ktiles - 1, steps, blocks) != hi[x])
            ok = 0;
    if (longest - shortest > 1) ok = 0;
    free(seen), free(slot), free(lo), free(hi);
    return ok;
}

KB_TEST(split_walk_takes_every_step_once) {
    /* (1,512,25,42) at 128 x 128, 3xTF32: runs of 39-40 */
    KB_EXPECT(kb_dcn_ws_step0(1, 36 * 144, 132) == 39 && kb_dcn_ws_step0(2, 36 * 144, 132) == 78);
    KB_EXPECT(kb_dcn_ws_block_of(144, 36 * 144, 132) == 3); /* tile 1 starts in block 3's run */
    KB_EXPECT(split_walk_is_exact(36, 144, 132));
    KB_EXPECT(split_walk_is_exact(66, 72, 132)); /* runs of half a tile */
    for (int tiles = 1; tiles <= 131; tiles += 5)
        for (int kt = 1; kt <= 160; kt += 9) {
            int b = (int)kb_dcn_ws_stream(tiles, kt, 132, kb_dcn_ws_split(tiles, kt, 132, 1), 1);
            if (b) KB_EXPECT(split_walk_is_exact(tiles, kt, b));
        }
}

KB_TEST(grid_is_a_block_a_tile_when_split_else_one_an_sm_at_most) {
    /* (2,64,200,336): 1050 tiles of 128 x 64, no split: 132 blocks, 7-8 tiles each */
    KB_EXPECT(kb_dcn_ws_grid(1050, 1, 132) == 132);
    KB_EXPECT(kb_dcn_ws_grid(256, 1, 132) == 132); /* (8,256,64,64) at 128 x 256 */
    KB_EXPECT(kb_dcn_ws_grid(132, 1, 132) == 132);
    KB_EXPECT(kb_dcn_ws_grid(100, 1, 132) == 100); /* under one wave: a block a tile */
    KB_EXPECT(kb_dcn_ws_grid(66, 2, 132) == 66);   /* split: a block a tile and range */
    KB_EXPECT(kb_dcn_ws_grid(0, 1, 132) == 0);
    for (int64_t tiles = 1; tiles <= 600; tiles += 13) {
        int ks = kb_dcn_ws_split(tiles, 72, 132, 1);
        int64_t grid = kb_dcn_ws_grid(tiles, ks, 132);
        KB_EXPECT(grid >= 1 && grid <= tiles && grid * ks <= (tiles > 132 ? tiles : 132));
        if (ks > 1) KB_EXPECT(grid == tiles);
    }
}

KB_TEST(pixel_rectangles_where_they_take_no_more_tiles) {
    /* (2,64,200,336): 8 x 16 rectangles tile it exactly, as many as 128 pixels do */
    KB_EXPECT(kb_dcn_ws_pixel_tiles(2, 200, 336, 7) == 1050);
    KB_EXPECT(kb_dcn_ws_pixel_tiles(2, 200, 336, 4) == 2 * 25 * 21);
    KB_EXPECT(kb_dcn_ws_tile_lg(2, 200, 336) == 4);
    KB_EXPECT(kb_dcn_ws_tile_lg(8, 64, 64) == 4);
    /* a last rectangle short of rows or of columns, as many tiles as consecutive pixels */
    KB_EXPECT(kb_dcn_ws_tile_lg(1, 9, 16) == 4 && kb_dcn_ws_pixel_tiles(1, 9, 16, 4) == 2);
    KB_EXPECT(kb_dcn_ws_tile_lg(1, 8, 24) == 4 && kb_dcn_ws_pixel_tiles(1, 8, 24, 4) == 2);
    /* wider rectangles where 8 x 16 would take more tiles */
    KB_EXPECT(kb_dcn_ws_tile_lg(1, 4, 64) == 5); /* 8 x 16: 4 tiles, 4 x 32: 2 */
    KB_EXPECT(kb_dcn_ws_tile_lg(1, 2, 128) == 6);
    /* consecutive pixels where every rectangle takes more: 9 x 24 (3 vs 2),
     * (4,64,100,168) (572 vs 525); one tile either way: 8 x 16 */
    KB_EXPECT(kb_dcn_ws_tile_lg(1, 9, 24) == 7);
    KB_EXPECT(kb_dcn_ws_tile_lg(4, 100, 168) == 7);
    KB_EXPECT(kb_dcn_ws_tile_lg(1, 1, 7) == 4 && kb_dcn_ws_pixel_tiles(1, 1, 7, 4) == 1);
    /* never more tiles than consecutive pixels */
    for (int64_t n = 1; n <= 3; n++)
        for (int64_t ho = 1; ho <= 40; ho += 3)
            for (int64_t wo = 1; wo <= 300; wo += 7) {
                int lg = kb_dcn_ws_tile_lg(n, ho, wo);
                KB_EXPECT(lg >= 4 && lg <= 7);
                KB_EXPECT(kb_dcn_ws_pixel_tiles(n, ho, wo, lg) <=
                          kb_dcn_ws_pixel_tiles(n, ho, wo, 7));
            }
}

/* The tile list and the kernel's row rule (kb_dcn_ws_row_pixel) cover every
 * output pixel exactly once, each live row inside its tile's image, strips
 * and rectangles alike. */
static int tiles_cover_each_pixel_once(int64_t n, int64_t ho, int64_t wo, int lg) {
    int64_t tiles = kb_dcn_ws_pixel_tiles(n, ho, wo, lg), Q = n * ho * wo;
    int32_t *t = malloc((size_t)tiles * 2 * sizeof(int32_t));
    unsigned char *seen = calloc((size_t)Q, 1);
    int ok = t && seen;
    if (ok) kb_dcn_ws_tile_list(n, ho, wo, lg, t);
    for (int64_t i = 0; ok && i < tiles; i++) {
        int64_t img = t[2 * i] / (ho * wo);
        for (int r = 0; r < 128; r++) {
            int live, q = kb_dcn_ws_row_pixel(t[2 * i], t[2 * i + 1], lg, (int)wo, r, &live);
            if (!live) continue;
            if (q < 0 || q >= Q || seen[q]++ || (lg < 7 && q / (ho * wo) != img)) ok = 0;
        }
    }
    for (int64_t q = 0; ok && q < Q; q++)
        if (!seen[q]) ok = 0;
    free(t);
    free(seen);
    return ok;
}

KB_TEST(tile_list_covers_every_pixel_once) {
    for (int lg = 4; lg <= 7; lg++) {
        KB_EXPECT(tiles_cover_each_pixel_once(2, 200, 336, lg));
        KB_EXPECT(tiles_cover_each_pixel_once(1, 9, 24, lg));
        KB_EXPECT(tiles_cover_each_pixel_once(3, 7, 5, lg));
        KB_EXPECT(tiles_cover_each_pixel_once(2, 13, 70, lg));
        KB_EXPECT(tiles_cover_each_pixel_once(1, 1, 1, lg));
    }
    /* a rectangle short of columns and of rows: its extent */
    int32_t t[8];
    kb_dcn_ws_tile_list(1, 9, 24, 4, t); /* 2 x 2 rectangles of 8 x 16 */
    KB_EXPECT(t[0] == 0 && t[1] == (16 | 8 << 16));
    KB_EXPECT(t[2] == 16 && t[3] == (8 | 8 << 16));
    KB_EXPECT(t[4] == 8 * 24 && t[5] == (16 | 1 << 16));
    KB_EXPECT(t[6] == 8 * 24 + 16 && t[7] == (8 | 1 << 16));
}
