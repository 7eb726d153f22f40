/* rpn_proposals_params.c — kb_rpn_params_of: the image, the levels' anchor
 * counts, the caps and thresholds.
 * The op's parameters as the references, the op's table (kernels/rpn_proposals.c) and
 * the variants read them: below all three, so that the reference reaches its
 * parameters without calling back into the table that calls it.
 */
#include "rpn_proposals.h"

#include <string.h>

kb_rpn_params kb_rpn_params_of(const kb_case *c) {
    kb_rpn_params p;
    memset(&p, 0, sizeof p);
    p.img_h = kb_int(c, "img_h");
    p.img_w = kb_int(c, "img_w");
    p.levels = (int)kb_int(c, "levels");
    for (int l = 0; l < p.levels; l++)
        p.level_size[l] = kb_rpn_grid(p.img_h, l) * kb_rpn_grid(p.img_w, l) * KB_RPN_ANCHORS;
    p.nms_pre = kb_int(c, "nms_pre");
    p.max_per_img = kb_int(c, "max_per_img");
    p.iou = (float)kb_float(c, "iou");
    p.min_bbox_size = (float)kb_float(c, "min_bbox_size");
    p.objects = (int)kb_int(c, "objects");
    return p;
}
