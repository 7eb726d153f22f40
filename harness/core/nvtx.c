/* nvtx.c — NVTX ranges through nvtx3 (header-only: no library to link, and
 * free when no Nsight tool is attached). */
#include "kbench.h"

#include <nvtx3/nvToolsExt.h>

void kb_nvtx_push(const char *name) {
    nvtxRangePushA(name);
}
void kb_nvtx_pop(void) {
    nvtxRangePop();
}
