/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The root directory's properties on a filesystem just written, as
 * mkfs.xfs's configuration files ask for them: an extent size hint and
 * DAX that the files made in it inherit, and the autofsck property (a
 * trusted attribute "xfs:autofsck" that xfs_scrub_all reads).  Done through
 * the modification layer on an overlay, then the changed pages written.
 */
#include <string.h>

#include "core/overlay.h"
#include "fs/attr.h"
#include "fs/defer.h"
#include "fs/iget.h"
#include "xfsj/fs.h"
#include "xfsj/ondisk.h"
#include "xfsj/rootprops.h"

static const char autofsck_name[] = "xfs:autofsck";

bool xfsj_root_props_any(const struct xfsj_root_props *p)
{
	return p->autofsck || p->extszinherit || p->daxinherit;
}

static int set_props(struct xfsj_fs *fs, const struct xfsj_root_props *p,
		     struct xfsj_fault *f)
{
	struct xfsj_iref ip;
	int err;

	err = xfsj_iget(fs, xfsj_fs_sb(fs)->rootino, false, &ip, f);
	if (err)
		return err;
	if (p->extszinherit) {
		ip.di.extsize = p->extszinherit;
		ip.di.flags |= XFSJ_DIFLAG_EXTSZINHERIT;
	}
	if (p->daxinherit)
		ip.di.flags2 |= XFSJ_DIFLAG2_DAX;
	if (p->autofsck) {
		err = xfsj_attr_set(fs, &ip, &(struct xfsj_attr_arg){
			.ns = XFSJ_ATTR_NS_ROOT,
			.name = (const uint8_t *)autofsck_name,
			.namelen = sizeof(autofsck_name) - 1,
			.value = (const uint8_t *)p->autofsck,
			.valuelen = (uint32_t)strlen(p->autofsck) },
			XFSJ_ATTR_CREATE, f);
		if (err)
			return err;
	}
	xfsj_iput(fs, &ip, true);
	err = xfsj_defer_finish(fs, f);
	return err ? err : xfsj_fs_flush(fs, f);
}

static int write_page(void *arg, uint64_t off, const uint8_t *page)
{
	return xfsj_pwrite(arg, page, XFSJ_OVL_PAGE, off);
}

int xfsj_newfs_root_props(struct xfsj_io *io, const struct xfsj_root_props *p,
			  struct xfsj_fault *f)
{
	struct xfsj_overlay *ov = NULL;
	struct xfsj_fs *fs = NULL;
	struct xfsj_sb sb;
	uint8_t sect[512];
	int err;

	if (!xfsj_root_props_any(p))
		return 0;
	err = xfsj_pread(io, sect, sizeof(sect), 0);
	if (err)
		return xfsj_fault_set(f, err, "superblock", "read", 0, 0);
	xfsj_sb_decode(sect, &sb);
	err = xfsj_overlay_create(io, &ov);
	if (err)
		return err;
	/* Cycle 1, block 0: no later than any LSN of the new log. */
	err = xfsj_fs_open(ov, &sb, 1ULL << 32, &fs);
	if (!err)
		err = set_props(fs, p, f);
	if (!err)
		err = xfsj_overlay_each_dirty(ov, write_page, io);
	if (!err)
		err = xfsj_io_sync(io);
	xfsj_fs_close(fs);
	xfsj_overlay_free(ov);
	return err;
}
