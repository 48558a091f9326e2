/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The XMI log item's format (xmi_fmt.h). */
#include <string.h>

#include "ondisk/xmi_fmt.h"

#define XFSJ_CUR xfsj_xmi_fmt
XFSJ_DEFINE_LAYOUT(xfsj_xmi_fmt_layout, XFSJ_XMI_FIELDS, "XMI item",
		   XFSJ_XMI_FMT_SIZE);
#undef XFSJ_CUR

bool xfsj_xmi_fmt_decode(const uint8_t *p, uint32_t len,
			 struct xfsj_xmi_fmt *x)
{
	memset(x, 0, sizeof(*x));
	if (!p || len != XFSJ_XMI_FMT_SIZE)
		return false;
	xfsj_layout_decode_le(&xfsj_xmi_fmt_layout, p, x);
	return true;
}

const char *xfsj_xmi_fmt_verify(const struct xfsj_xmi_fmt *x, uint64_t *val)
{
	if (x->pad) {
		*val = x->pad;
		return "pad";
	}
	if (x->flags & ~XFSJ_XMI_LOGGED_FLAGS) {
		*val = x->flags;
		return "flags";
	}
	if (!xfsj_fileext_ok(x->startoff1, x->blockcount)) {
		*val = x->startoff1;
		return "startoff1";
	}
	if (!xfsj_fileext_ok(x->startoff2, x->blockcount)) {
		*val = x->startoff2;
		return "startoff2";
	}
	return NULL;
}
