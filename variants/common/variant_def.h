/* variant_def.h — KB_DEFINE_VARIANT(op, name): how a file of variants/<op>/
 * defines the implementation that its line in variants/<op>/variants.def
 * declares, and records which file it is:
 *
 *   KB_DEFINE_VARIANT(nms, blockwalk) = {supports, workspace_bytes, setup, run, teardown};
 *
 * defines kb_nms_blockwalk (a kb_variant_impl) and, beside it, the string
 * kb_nms_blockwalk_file: the file's path from the repository root, which
 * harness/registry.c puts in the row's source. The build hands every variant
 * file that path as KB_SOURCE_FILE (CMakeLists.txt): __FILE__ is spelled as
 * the compiler was given the file (absolute, or relative to the build folder
 * under ccache's base_dir) and is the fallback for a file compiled elsewhere.
 * Nothing here is in the plugin ABI (include/kbench/variant.h): the row's
 * layout is untouched, a plugin's rows name their own source.
 */
#ifndef KB_VARIANT_DEF_H
#define KB_VARIANT_DEF_H

#include "kbench/variant.h"

#ifndef KB_SOURCE_FILE
#define KB_SOURCE_FILE __FILE__
#endif

#ifdef __cplusplus
#define KB_DEFINE_LINKAGE extern "C"
#else
#define KB_DEFINE_LINKAGE
#endif

#define KB_DEFINE_VARIANT(OP, NAME)                                                                \
    KB_DEFINE_LINKAGE const char kb_##OP##_##NAME##_file[] = KB_SOURCE_FILE;                       \
    KB_DEFINE_LINKAGE const kb_variant_impl kb_##OP##_##NAME

#endif
