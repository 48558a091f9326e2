/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding the secondary superblocks without trusting the primary: one
 * read at a place and kept if it holds up on its own, and a search of
 * the device for one when the primary's geometry points at none (as
 * xfs_repair searches when its primary is bad).
 */
#include <stdlib.h>

#include "check/sb_rules.h"
#include "core/crc32c.h"
#include "core/layout.h"

#define SCAN_CHUNK	(1U << 20)

bool xck_sb_read_at(struct xfsj_overlay *ov, uint64_t off, uint8_t *buf,
		    uint32_t buflen, struct xfsj_sb *out)
{
	uint64_t dev = xfsj_overlay_dev_size(ov);
	uint32_t ss;

	if (buflen < XFSJ_SB_DISK_SIZE || off + XFSJ_SB_DISK_SIZE > dev ||
	    xfsj_overlay_read(ov, buf, XFSJ_SB_DISK_SIZE, off) ||
	    xfsj_get_be32(buf) != XFSJ_SB_MAGIC)
		return false;
	xfsj_sb_decode(buf, out);
	ss = xck_sb_sane_sectsize(out);
	if (ss > buflen || off + ss > dev || xfsj_overlay_read(ov, buf, ss, off))
		return false;
	/* mkfs leaves the secondaries "in progress": not a fault. */
	buf[XFSJ_SB_OFF(inprogress)] = 0;
	xfsj_cksum_update(buf, ss, XFSJ_SB_CRC_OFF);
	if (xfsj_sb_verify(buf, ss, off, NULL))
		return false;
	xfsj_sb_decode(buf, out);
	return true;
}

/* A secondary at @off that the AG size it states puts there. */
static bool secondary_at(struct xfsj_overlay *ov, uint64_t off, uint8_t *buf,
			 struct xfsj_sb *sb)
{
	return xck_sb_read_at(ov, off, buf, XCK_SB_BUFLEN, sb) &&
	       xfsj_sb_can_locate(sb) &&
	       off % ((uint64_t)sb->agblocks << sb->blocklog) == 0;
}

int xck_sb_find_secondary(struct xfsj_overlay *ov, struct xfsj_sb *sb,
			  uint64_t *where)
{
	uint64_t dev = xfsj_overlay_dev_size(ov), off;
	uint8_t *chunk = malloc(SCAN_CHUNK), *buf = malloc(XCK_SB_BUFLEN);
	int found = 0;

	if (!chunk || !buf) {
		free(chunk);
		free(buf);
		return -XFSJ_E_NOMEM;
	}
	for (off = 0; !found && off < dev; off += SCAN_CHUNK) {
		uint64_t len = dev - off < SCAN_CHUNK ? dev - off : SCAN_CHUNK;

		if (xfsj_overlay_read(ov, chunk, len, off))
			break;
		/* Past the primary, at 512-byte steps. */
		for (uint64_t i = off ? 0 : 512; !found && i + 4 <= len;
		     i += 512) {
			if (xfsj_get_be32(chunk + i) == XFSJ_SB_MAGIC &&
			    secondary_at(ov, off + i, buf, sb)) {
				found = 1;
				*where = off + i;
			}
		}
	}
	free(chunk);
	free(buf);
	return found;
}

int xfsj_check_is_xfs(struct xfsj_io *io)
{
	struct xfsj_overlay *ov = NULL;
	uint8_t *buf = malloc(XCK_SB_BUFLEN);
	struct xfsj_sb sb;
	uint64_t where;
	int found;

	if (!buf)
		return -XFSJ_E_NOMEM;
	found = xfsj_overlay_create(io, &ov);
	if (!found)
		found = xck_sb_read_at(ov, 0, buf, XCK_SB_BUFLEN, &sb) ? 1 :
			xck_sb_find_secondary(ov, &sb, &where);
	xfsj_overlay_free(ov);
	free(buf);
	return found;
}
