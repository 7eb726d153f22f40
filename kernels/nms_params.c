/* nms_params.c — kb_nms_params_of and the keep list's capacity.
 * The op's parameters as the references, the op's table (kernels/nms.c) and
 * the variants read them: below all three, so that the reference reaches its
 * parameters without calling back into the table that calls it.
 */
#include "nms.h"

#include <string.h>

int64_t kb_nms_capacity(int64_t n, int64_t max_out) {
    return max_out > 0 && max_out < n ? max_out : n;
}

kb_nms_params kb_nms_params_of(const kb_case *c) {
    kb_nms_params p;
    p.n = kb_int(c, "n");
    p.iou = (float)kb_float(c, "iou");
    p.classes = kb_int(c, "classes");
    p.max_out = kb_int(c, "max_out");
    p.cap = kb_nms_capacity(p.n, p.max_out);
    const char *dist = kb_str(c, "dist");
    p.dist = strcmp(dist, "clustered") == 0    ? KB_NMS_CLUSTERED
             : strcmp(dist, "ties") == 0       ? KB_NMS_TIES
             : strcmp(dist, "degenerate") == 0 ? KB_NMS_DEGENERATE
             : strcmp(dist, "pixels") == 0     ? KB_NMS_PIXELS
                                               : KB_NMS_UNIFORM;
    return p;
}
