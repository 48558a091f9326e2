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
#include "repair/repair_priv.h"
#include "xfsj/repair.h"
#include "xfsj/undo.h"

int xrp_sb_needsrepair(struct xfsj_overlay *ov, uint32_t sectsize, bool on,
		       bool always, bool *was_on)
{
	uint8_t *buf = malloc(sectsize);
	uint32_t v;
	int err;

	if (!buf)
		return -XFSJ_E_NOMEM;
	err = xfsj_overlay_read(ov, buf, sectsize, 0);
	if (!err) {
		v = xfsj_get_be32(buf + XFSJ_SB_OFF(features_incompat));
		bool was = v & XFSJ_INCOMPAT_NEEDSREPAIR;

		if (was_on)
			*was_on = was;
		v = on ? v | XFSJ_INCOMPAT_NEEDSREPAIR :
			 v & ~XFSJ_INCOMPAT_NEEDSREPAIR;
		xfsj_put_be32(buf + XFSJ_SB_OFF(features_incompat), v);
		xfsj_cksum_update(buf, sectsize, XFSJ_SB_CRC_OFF);
		if (always || was != on)
			err = xfsj_overlay_write(ov, buf, sectsize, 0);
	}
	free(buf);
	return err;
}

int xfsj_repair_commit(const char *redo, const char *undo,
		       struct xfsj_overlay *ov, const struct xfsj_sb *sb,
		       uint64_t *pages, const struct xfsj_redo_cb *cb,
		       struct xfsj_fault *f)
{
	enum xfsj_commit_step step = 0;
	struct xfsj_overlay *flag = NULL, *ovs[2];
	int err;

	if (pages)
		*pages = 0;
	if (!xfsj_overlay_dirty_pages(ov))
		return 0;
	/*
	 * The device's own superblock with the flag set, a commit of its
	 * own; then everything, the flag cleared.  One undo file covers
	 * both (undoing gives back the device as it was, flag unset).
	 */
	err = xfsj_overlay_create(xfsj_overlay_device(ov), &flag);
	if (!err)
		err = xrp_sb_needsrepair(flag, sb->sectsize, true, true, NULL);
	if (!err)
		err = xrp_sb_needsrepair(ov, sb->sectsize, false, true, NULL);
	if (err) {
		xfsj_overlay_free(flag);
		return xfsj_fault_set(f, err, "superblock",
				      "needs-repair flag", 0, 0);
	}
	ovs[0] = flag;
	ovs[1] = ov;
	err = xfsj_redo_commit_run(redo, undo, ovs, 2, sb->uuid, pages, &step,
				   cb);
	xfsj_overlay_free(flag);
	if (err)
		return xfsj_fault_set(f, err, step == XFSJ_COMMIT_UNDO ?
				      "undo file" : "redo file",
				      step == XFSJ_COMMIT_COPY ? "copy" :
				      "save", 0, 0);
	return 0;
}
