/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Placeholder: being written. */
#include "xfsj/bmap.h"

int xfsj_bmap_finish(struct xfsj_fs *fs, const struct xfsj_work *w,
		     struct xfsj_fault *f)
{
	(void)fs; (void)w;
	return xfsj_fault_set(f, XFSJ_E_UNSUPP, "deferred work", "bmap", 0, 0);
}
