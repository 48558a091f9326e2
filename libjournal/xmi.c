/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Placeholder (stub) until the XMI recovery lands: replace freely. */
#include "xfsj/attri.h"

int xfsj_xmi_recover(struct xfsj_fs *fs, const struct xfsj_pending_intent *pi,
		     struct xfsj_fault *f)
{
	(void)fs;
	return xfsj_fault_set(f, XFSJ_E_UNSUPP, "XMI log item", "op", pi->lsn, 0);
}
