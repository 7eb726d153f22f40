/* yolo_decode_params.c — kb_yolo_params_of: sizes, caps, thresholds and the
 * source image.
 * The op's parameters as the references, the op's table (kernels/yolo_decode.c) and
 * the variants read them: below all three, so that the reference reaches its
 * parameters without calling back into the table that calls it.
 */
#include "yolo_decode.h"

kb_yolo_params kb_yolo_params_of(const kb_case *c) {
    kb_yolo_params p;
    p.b = (int)kb_int(c, "b");
    p.n = (int)kb_int(c, "n");
    p.c = (int)kb_int(c, "c");
    p.max_det = (int)kb_int(c, "max_det");
    p.max_out = (int)kb_int(c, "max_out");
    p.conf = (float)kb_float(c, "conf");
    p.iou = (float)kb_float(c, "iou");
    p.src_w = (float)kb_int(c, "src_w");
    p.src_h = (float)kb_int(c, "src_h");
    return p;
}
