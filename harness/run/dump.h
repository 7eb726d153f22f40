/* dump.h — --dump DIR: a case's tensors as .npy files under DIR/case<k>/
 * (dump.c; README "Dumped tensors"). */
#ifndef KB_DUMP_H
#define KB_DUMP_H

#include "kbench.h"

/* DIR/case<k>/case.txt: the params on its first line (what peers and
 * `kbench verify` read), then each tensor of in and out with its dtype and
 * shape; a bf16 tensor says that its file holds f32 (NumPy has no bf16). */
int kb_dump_case_txt(const char *dir, int k, const char *params, const kb_tensors *in,
                     const kb_tensors *out, kb_error *e);
/* DIR/case<k>/<prefix>.<name>.npy for each tensor of ts (<name>.npy when
 * prefix is NULL: the inputs). */
int kb_dump_tensors(const char *dir, int k, const char *prefix, const kb_tensors *ts, kb_error *e);

/* Both create DIR/case<k> when it is missing, and neither follows a link
 * under DIR: where the case folder or a file would go, a symbolic link is
 * refused (KB_ERR naming it), and a file is written beside its name
 * (exclusively created, never opened through a link) and renamed onto it,
 * so a link planted there, even between the check and the rename, is
 * replaced, not written through. DIR itself is the user's and may be a link. */

#endif
