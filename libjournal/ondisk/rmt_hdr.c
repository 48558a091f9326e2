/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The header of a remote block: each block of a remote attribute value
 * and of a remote symlink target starts with it.
 */
#include <string.h>

#include "core/crc32c.h"
#include "ondisk/format.h"

#define XFSJ_CUR xfsj_rmt_hdr
XFSJ_DEFINE_LAYOUT(xfsj_rmt_hdr_layout, XFSJ_RMT_FIELDS, "remote block header",
		   XFSJ_RMT_HDR_SIZE);
#undef XFSJ_CUR

void xfsj_rmt_hdr_decode(const void *buf, struct xfsj_rmt_hdr *h)
{
	xfsj_layout_decode(&xfsj_rmt_hdr_layout, buf, h);
}

void xfsj_rmt_hdr_encode(const struct xfsj_rmt_hdr *h, void *buf)
{
	xfsj_layout_encode(&xfsj_rmt_hdr_layout, h, buf);
}

int xfsj_rmt_hdr_verify(const void *buf, size_t len, uint32_t magic,
			const uint8_t *uuid, uint64_t daddr, uint32_t limit,
			const char *structure, struct xfsj_fault *f)
{
	uint64_t where = daddr << XFSJ_BBSHIFT;
	struct xfsj_rmt_hdr h;

	if (len < XFSJ_RMT_HDR_SIZE)
		return xfsj_fault_set(f, XFSJ_E_RANGE, structure, "length",
				      where, len);
	if (!xfsj_cksum_ok(buf, len, XFSJ_RMT_OFF(crc)))
		return xfsj_fault_set(f, XFSJ_E_BADCRC, structure, "crc",
				      where + XFSJ_RMT_OFF(crc), 0);
	xfsj_rmt_hdr_decode(buf, &h);
	if (h.magic != magic)
		return xfsj_fault_set(f, XFSJ_E_BADMAGIC, structure, "magic",
				      where, h.magic);
	if (memcmp(h.uuid, uuid, 16))
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, structure, "uuid",
				      where + XFSJ_RMT_OFF(uuid), 0);
	if (h.blkno != daddr)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, structure, "blkno",
				      where + XFSJ_RMT_OFF(blkno), h.blkno);
	if ((uint64_t)h.offset + h.bytes >= limit)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, structure,
				      "offset + bytes",
				      where + XFSJ_RMT_OFF(offset), h.offset);
	if (h.bytes > len - XFSJ_RMT_HDR_SIZE)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, structure, "bytes",
				      where + XFSJ_RMT_OFF(bytes), h.bytes);
	return 0;
}
