/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Remote symlink block headers (symlink.h). */
#include "ondisk/symlink.h"

#define XFSJ_CUR xfsj_dsymlink
XFSJ_DEFINE_LAYOUT(xfsj_dsymlink_layout, XFSJ_DSYMLINK_FIELDS, "symlink",
		   XFSJ_DSYMLINK_HDR_SIZE);
#undef XFSJ_CUR

void xfsj_dsymlink_decode(const void *buf, struct xfsj_dsymlink *h)
{
	xfsj_layout_decode(&xfsj_dsymlink_layout, buf, h);
}
