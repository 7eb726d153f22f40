/* l2_flush.h — how cold mode empties L2 before each sample: the kinds, their
 * names, and the flush itself (l2_flush.cu, which holds the kernels). C and
 * CUDA include it alike. */
#ifndef KB_L2_FLUSH_H
#define KB_L2_FLUSH_H

#include "kbench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kinds (README "Timing"):
 *   write       memset of the buffer: L2 is left full of the buffer's dirty
 *               lines, which the timed kernel's misses must write back first;
 *   read        a kernel reads the whole buffer: L2 is left full of clean lines;
 *   write-read  the memset, then the read: the dirty lines are written back
 *               during the read, outside the timed region;
 *   discard     the memset, then discard.global.L2 over the buffer: its dirty
 *               lines are dropped without a write-back (compute capability 8.0);
 *   reset       cudaCtxResetPersistingL2Cache (lines a variant's access policy
 *               window made persisting become evictable), then the read
 *               (compute capability 8.0).
 * KB_FLUSH_DEFAULT is write-read: against Nsight Compute's --cache-control
 * all it reads 2.7% high on a bandwidth-bound kernel where write reads 14.3%
 * high, and it needs nothing of the device (results/baselines/h100/
 * flush-study.md; README "Timing"). */
typedef enum kb_flush {
    KB_FLUSH_WRITE,
    KB_FLUSH_READ,
    KB_FLUSH_WRITE_READ,
    KB_FLUSH_DISCARD,
    KB_FLUSH_RESET
} kb_flush;
#define KB_FLUSH_DEFAULT      KB_FLUSH_WRITE_READ
#define KB_FLUSH_DEFAULT_NAME "write-read" /* --help says it; test_cli_opts checks it */
#define KB_FLUSH_KINDS        "write, read, write-read, discard or reset"
const char *kb_flush_name(kb_flush f);
int kb_flush_parse(const char *s, kb_flush *f);
/* KB_OK, or KB_UNSUPPORTED naming what the current device lacks for f. */
int kb_flush_supported(kb_flush f, kb_error *why);
/* Enqueue flush f of the device buffer buf (bytes, a multiple of
 * KB_FLUSH_ALIGN) on s; pass varies the bytes a memset writes. */
int kb_l2_flush(kb_flush f, void *buf, size_t bytes, int pass, cudaStream_t s, kb_error *e);
#define KB_FLUSH_ALIGN 128 /* discard.global.L2 drops whole 128-byte lines */

#ifdef __cplusplus
}
#endif

#endif
