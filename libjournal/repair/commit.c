/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Committing a repair: the needs-repair flag on the device first, then
 * every change with the flag cleared, each through the redo file.
 *
 * Killed before the first commit ends, the device is as it was (or the
 * redo file finishes setting the flag); killed between the two, or
 * during the second, the kernel refuses to mount the filesystem until a
 * repair runs again, and a rerun finishes the second commit from its redo
 * file, or repairs again from the flagged filesystem.
 */
#include <stdlib.h>
#include <string.h>

#include "core/crc32c.h"
#include "core/layout.h"
#include "ondisk/format.h"
#include "xfsj/redo.h"
#include "xfsj/repair.h"

/* Set or clear the flag in the primary superblock held by @ov. */
static int set_flag(struct xfsj_overlay *ov, uint32_t sectsize, bool on)
{
	uint8_t *buf = malloc(sectsize);
	uint32_t v;
	int err;

	if (!buf)
		return -XFSJ_E_NOMEM;
	err = xfsj_overlay_read(ov, buf, sectsize, 0);
	if (!err) {
		v = xfsj_get_be32(buf + XFSJ_SB_OFF(features_incompat));
		v = on ? v | XFSJ_INCOMPAT_NEEDSREPAIR :
			 v & ~XFSJ_INCOMPAT_NEEDSREPAIR;
		xfsj_put_be32(buf + XFSJ_SB_OFF(features_incompat), v);
		xfsj_cksum_update(buf, sectsize, XFSJ_SB_CRC_OFF);
		err = xfsj_overlay_write(ov, buf, sectsize, 0);
	}
	free(buf);
	return err;
}

int xfsj_repair_commit(const char *redo, struct xfsj_overlay *ov,
		       const struct xfsj_sb *sb, uint64_t *pages,
		       const struct xfsj_redo_cb *cb, struct xfsj_fault *f)
{
	struct xfsj_overlay *flag = NULL;
	int err;

	if (pages)
		*pages = 0;
	if (!xfsj_overlay_dirty_pages(ov))
		return 0;
	/* The device's own superblock, the flag set: a commit of its own. */
	err = xfsj_overlay_create(xfsj_overlay_device(ov), &flag);
	if (!err)
		err = set_flag(flag, sb->sectsize, true);
	if (!err)
		err = xfsj_redo_commit(redo, flag, sb->uuid, NULL, cb);
	xfsj_overlay_free(flag);
	if (err)
		return xfsj_fault_set(f, err, "superblock", "needs-repair flag",
				      XFSJ_SB_OFF(features_incompat), 1);
	err = set_flag(ov, sb->sectsize, false);
	if (!err)
		err = xfsj_redo_commit(redo, ov, sb->uuid, pages, cb);
	if (err)
		return xfsj_fault_set(f, err, "redo file", "commit", 0, 0);
	return 0;
}
