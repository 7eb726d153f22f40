/* plugin.c — the plugin's rows: the one thing kbench asks a plugin for, by
 * the one symbol it exports (KB_PLUGIN defines it). Each row: the op, the
 * variant's name, one line on what it does, its flags, its hooks, its file.
 *
 *   kbench list topk --plugin build/libkb_example_plugin.so
 *   kbench check nms --plugin build/libkb_example_plugin.so -v example_bitmask --sweep smoke
 */
#include "kbench/kbench.h"

extern const kb_variant_impl example_select;  /* example_select.c */
extern const kb_variant_impl example_bitmask; /* example_bitmask.cu */

static const kb_variant rows[] = {
    {"topk", "example_select", "host C: sort each segment's (value, index) pairs, keep k", KB_HOST,
     &example_select, __FILE__},
    {"nms", "example_bitmask", "rank by counting, an n x n suppression bitmask, a one-block walk",
     0, &example_bitmask, __FILE__},
    {0}, /* the end: a row whose op is NULL */
};

KB_PLUGIN(rows)
