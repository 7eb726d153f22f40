/* topk_params.c — kb_topk_params_of: the segment layout, k, the batch
 * and the distribution.
 * The op's parameters as the references, the op's table (kernels/topk.c) and
 * the variants read them: below all three, so that the reference reaches its
 * parameters without calling back into the table that calls it.
 */
#include "topk.h"

#include <string.h>

kb_topk_params kb_topk_params_of(const kb_case *c) {
    kb_topk_params p;
    p.segments = kb_str(c, "segments");
    p.k = kb_int(c, "k");
    p.batch = kb_int(c, "batch");
    const char *dist = kb_str(c, "dist");
    p.dist = strcmp(dist, "ties") == 0     ? KB_TOPK_TIES
             : strcmp(dist, "normal") == 0 ? KB_TOPK_NORMAL
                                           : KB_TOPK_UNIFORM;
    return p;
}
