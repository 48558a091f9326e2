/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The root directory's properties on a new filesystem (populate layer). */
#ifndef XFSJ_ROOTPROPS_H
#define XFSJ_ROOTPROPS_H

#include <stdbool.h>
#include <stdint.h>

#include "xfsj/errors.h"
#include "xfsj/io.h"

/*
 * Properties of the root directory of a filesystem just written, as
 * mkfs.xfs sets them: what files made in it inherit, and the filesystem
 * properties kept as its extended attributes.
 */
struct xfsj_root_props {
	const char *autofsck;	/* trusted xfs:autofsck value, or NULL */
	uint32_t extszinherit;	/* extent size hint (blocks), 0: none */
	bool daxinherit;
};

/* True when @p asks for something. */
bool xfsj_root_props_any(const struct xfsj_root_props *p);

/*
 * Set @p on the root directory of the new filesystem on @io (its
 * geometry's versionnum must have the attribute bit when @p->autofsck).
 */
int xfsj_newfs_root_props(struct xfsj_io *io, const struct xfsj_root_props *p,
			  struct xfsj_fault *f);

#endif
