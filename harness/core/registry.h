/* registry.h — the two tables (harness/registry.c): every op, and every
 * built-in variant of every op, and finding a row by name.
 */
#ifndef KB_REGISTRY_H
#define KB_REGISTRY_H

#include "kbench/variant.h"
#include "op.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const kb_op *const kb_ops[];    /* NULL-terminated */
extern const kb_variant kb_variants[]; /* ends with a row whose op is NULL */

const kb_op *kb_find_op(const char *name);
const kb_variant *kb_find_variant(const char *op, const char *name);

#ifdef __cplusplus
}
#endif
#endif
