/* dcn_ws_plan.h — the launch rules of deform_conv2d/nhwc_ws_* (nhwc.cu), in
 * C that a CPU test checks (tests/cpu/test_dcn_ws_plan.c).
 *
 * Tile shape, by output channels per group: 128 pixels x 64 channels up to
 * 64; 128 x 128 up to 128, and past 128 wherever 128 x 256 tiles would
 * leave SMs idle (there the K dimension is split, and two producer groups
 * at 128 x 128 outrun one at 128 x 256); else 128 x 256.
 * Split K: where the output tiles alone fill under one wave of the SMs,
 * KS blocks share an output tile, each a contiguous range of the K tiles:
 * the most that still fits one wave (tiles x KS <= SMs), and at most one
 * per 8 K tiles (a range shorter than the ring and its fill is not worth a
 * block). KS = 1 on shapes without the split epilogue.
 * Stream: where KS blocks a tile still leave SMs idle (36 tiles of 144 K
 * tiles on 132 SMs: KS 3, 108 blocks of 48; 68 tiles: KS 1, 68 blocks of
 * 144), on shapes with the split epilogue, the K tiles of all the tiles in
 * a row (steps: tiles x K tiles) are cut into one equal run a block, one
 * block an SM (there: runs of 39-40 and 74-75), where that shortens the
 * longest run by 8 K tiles or more: a block's second piece costs a table,
 * a partial tile's round trip and a longer sum, measured at about 8 K
 * tiles' time (H200, (1,512,25,42), runs of 40 against 48: tf32 63.2 ->
 * 61.1 us, 3xTF32 100.9 -> 93.5 us; f16, 20 against 24: 41.6 -> 42.4 us).
 * A run is at least 8 K tiles, and there are more blocks than tiles, so a
 * run is at most a tile long: a block takes one or two (tile, K range)
 * pieces, of neighbouring tiles. Each piece's fp32 partials go to slot
 * block + tile (unique: the pieces in step order raise the block, the tile
 * or both), and the last of a tile's blocks to arrive sums them in block
 * order. The walk's arithmetic is 32-bit (steps x blocks < 2^31), so K
 * beyond that (10^5 K tiles a tile on 132 SMs) is not streamed.
 * Blocks: one an output tile and range where K is split KS ways, one an SM
 * where it is streamed; else at most one an SM, each taking every grid-th
 * tile in turn, so that a block's next tile is sampled while its last one
 * is multiplied and written.
 * Pixel tiles: a tile's 128 rows are 128 consecutive output pixels (across
 * rows and images: lg 7), or, in the 128 x 64 shape with the table builder
 * and the 128 x 256 shape, with one offset group, a rectangle of 2^lg
 * columns x 128 >> lg rows of one image where rectangles take no more tiles
 * than consecutive pixels do, 8 x 16 first: a rectangle's taps sample a
 * compact patch, so the corners of neighbouring pixels and taps hit L1 more
 * often.
 */
#ifndef KB_DCN_WS_PLAN_H
#define KB_DCN_WS_PLAN_H

#include "kbench/util.h" /* KB_HD */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Channels of a block's tile: 64, 128 or 256. pixels = n ho wo. */
static inline int kb_dcn_ws_tile_n(int64_t cout_g, int64_t pixels, int64_t groups, int64_t sms) {
    if (cout_g <= 64) return 64;
    int64_t tiles256 = (pixels + 127) / 128 * groups * ((cout_g + 255) / 256);
    return cout_g <= 128 || tiles256 < sms ? 128 : 256;
}

/* Blocks sharing an output tile (>= 1). */
static inline int kb_dcn_ws_split(int64_t tiles, int64_t ktiles, int64_t sms, int can_split) {
    int64_t ks = can_split && tiles > 0 && tiles < sms ? sms / tiles : 1, most = ktiles / 8;
    if (ks > most) ks = most;
    return ks < 1 ? 1 : (int)ks;
}

/* Blocks along x, for tiles output tiles and KS = ks. */
static inline int64_t kb_dcn_ws_grid(int64_t tiles, int ks, int64_t sms) {
    return ks > 1 || tiles < sms ? tiles : sms;
}

/* Blocks of a stream split (above), or 0: none, for tiles output tiles of
 * ktiles K tiles split KS = ks ways (kb_dcn_ws_split) on sms SMs. */
static inline int64_t kb_dcn_ws_stream(int64_t tiles, int64_t ktiles, int64_t sms, int ks,
                                       int can_split) {
    if (!can_split || tiles <= 0 || tiles >= sms || ks < 1 || tiles * ktiles > INT32_MAX / sms)
        return 0;
    int64_t steps = tiles * ktiles, blocks = steps / 8; /* runs of at least 8 K tiles */
    if (blocks > sms) blocks = sms;
    if (blocks <= tiles) return 0;
    /* the longest run against the longest KS range */
    const int64_t run = (steps + blocks - 1) / blocks, range = (ktiles + ks - 1) / ks;
    return run + 8 <= range ? blocks : 0;
}

/* The first step of block b's run, of steps (tiles x K tiles) cut into
 * blocks runs; block b runs [step0(b), step0(b + 1)). */
KB_HD int kb_dcn_ws_step0(int b, int steps, int blocks) {
    return b * steps / blocks;
}

/* The piece of a run that starts at step s and ends before s1: its tile,
 * and its K tiles [*t0, *t1), up to the tile's end. */
KB_HD int kb_dcn_ws_piece(int s, int s1, int ktiles, int *t0, int *t1) {
    const int tile = s / ktiles;
    *t0 = s - tile * ktiles;
    *t1 = s1 - s < ktiles - *t0 ? *t0 + (s1 - s) : ktiles;
    return tile;
}

/* Block b's first piece of a split: its tile, and its K tiles [*t0, *t1). */
KB_HD int kb_dcn_ws_first_piece(int b, int tiles, int ktiles, int blocks, int *t0, int *t1) {
    const int steps = tiles * ktiles;
    return kb_dcn_ws_piece(kb_dcn_ws_step0(b, steps, blocks), kb_dcn_ws_step0(b + 1, steps, blocks),
                           ktiles, t0, t1);
}

/* The piece after block b's piece [*t0, *t1) of tile `tile`: its tile and
 * K tiles, or `tiles` where the run is done. The piece is all the state
 * (the kernel's K loops hold it in registers). */
KB_HD int kb_dcn_ws_next_piece(int b, int tile, int tiles, int ktiles, int blocks, int *t0,
                               int *t1) {
    if (*t1 < ktiles) return tiles;
    const int s = (tile + 1) * ktiles, s1 = kb_dcn_ws_step0(b + 1, tiles * ktiles, blocks);
    return s < s1 ? kb_dcn_ws_piece(s, s1, ktiles, t0, t1) : tiles;
}

/* The block whose run holds step s: the last b with step0(b) <= s. */
KB_HD int kb_dcn_ws_block_of(int s, int steps, int blocks) {
    return ((s + 1) * blocks - 1) / steps;
}

/* Pixel tiles of n images of ho x wo output pixels, 2^lg columns a tile
 * (lg 7: 128 consecutive pixels). */
static inline int64_t kb_dcn_ws_pixel_tiles(int64_t n, int64_t ho, int64_t wo, int lg) {
    if (lg >= 7) return (n * ho * wo + 127) / 128;
    int64_t tw = (int64_t)1 << lg, th = 128 >> lg;
    return n * ((ho + th - 1) / th) * ((wo + tw - 1) / tw);
}

/* The pixel tiles' lg: the narrowest rectangle (16, 32 or 64 columns) that
 * takes no more tiles than consecutive pixels, else 7. */
static inline int kb_dcn_ws_tile_lg(int64_t n, int64_t ho, int64_t wo) {
    int64_t consecutive = kb_dcn_ws_pixel_tiles(n, ho, wo, 7);
    for (int lg = 4; lg < 7; lg++)
        if (kb_dcn_ws_pixel_tiles(n, ho, wo, lg) <= consecutive) return lg;
    return 7;
}

/* Row r of a pixel tile whose first pixel is q0 and whose extent is
 * columns | rows << 16 (kb_dcn_ws_tile_list), of 2^lg columns: column
 * r % 2^lg, row r >> lg of the tile; its pixel, and whether it is one
 * (*live). The kernel's rows and the CPU test's. */
KB_HD int kb_dcn_ws_row_pixel(int q0, int extent, int lg, int wo, int r, int *live) {
    const int c = r & ((1 << lg) - 1), y = r >> lg;
    *live = c < (extent & 0xffff) && y < extent >> 16;
    return q0 + y * wo + c;
}

/* The pixel tiles of n images of ho x wo output pixels, 2^lg columns a
 * tile: per tile, in tile order, its first pixel and its extent (columns
 * | rows << 16 that are output pixels; 128 consecutive pixels: xn | 1 << 16).
 * t holds 2 kb_dcn_ws_pixel_tiles(n, ho, wo, lg) values. */
static inline void kb_dcn_ws_tile_list(int64_t n, int64_t ho, int64_t wo, int lg, int32_t *t) {
    const int64_t P = ho * wo, Q = n * P;
    if (lg >= 7) {
        for (int64_t q0 = 0; q0 < Q; q0 += 128, t += 2)
            t[0] = (int32_t)q0, t[1] = (int32_t)(Q - q0 < 128 ? Q - q0 : 128) | 1 << 16;
        return;
    }
    const int64_t tw = (int64_t)1 << lg, th = 128 >> lg;
    for (int64_t i = 0; i < n; i++)
        for (int64_t y0 = 0; y0 < ho; y0 += th)
            for (int64_t x0 = 0; x0 < wo; x0 += tw, t += 2) {
                const int64_t xn = wo - x0 < tw ? wo - x0 : tw, yn = ho - y0 < th ? ho - y0 : th;
                t[0] = (int32_t)(i * P + y0 * wo + x0), t[1] = (int32_t)(xn | yn << 16);
            }
}

#ifdef __cplusplus
}
#endif

#endif
