/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Superblock: codec and verifier.  The verifier applies the checks the
 * kernel makes before it will mount, so that a superblock we write and one
 * we are handed are judged by the same rules.
 */
#include <string.h>

#include "core/crc32c.h"
#include "ondisk/format.h"

#define XFSJ_CUR xfsj_sb
XFSJ_DEFINE_LAYOUT(xfsj_sb_layout, XFSJ_SB_FIELDS, "superblock",
		   XFSJ_SB_DISK_SIZE);
#undef XFSJ_CUR

void xfsj_sb_decode(const void *buf, struct xfsj_sb *sb)
{
	xfsj_layout_decode(&xfsj_sb_layout, buf, sb);
}

void xfsj_sb_encode(const struct xfsj_sb *sb, void *buf, size_t sectsize)
{
	memset(buf, 0, sectsize);
	xfsj_layout_encode(&xfsj_sb_layout, sb, buf);
	xfsj_cksum_update(buf, sectsize, XFSJ_SB_CRC_OFF);
}

bool xfsj_sb_can_locate(const struct xfsj_sb *sb)
{
	uint32_t bs = sb->blocksize;

	return bs >= 512 && bs <= 65536 && !(bs & (bs - 1)) &&
	       sb->blocklog < 32 && bs == 1U << sb->blocklog &&
	       sb->agblocks >= XFSJ_MIN_AG_BLOCKS && sb->agcount;
}

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static unsigned int log2_u64(uint64_t v)
{
	unsigned int l = 0;

	while (v > 1) {
		v >>= 1;
		l++;
	}
	return l;
}

/* Smallest l with 2^l >= v: the kernel's agblklog rule. */
static unsigned int log2_roundup(uint64_t v)
{
	unsigned int l = 0;

	while (((uint64_t)1 << l) < v)
		l++;
	return l;
}

#define SB_BAD(field, val)						\
	xfsj_fault_set(f, XFSJ_E_CORRUPT, "superblock", #field,		\
		       byte_off + (uint64_t)xfsj_layout_offset(&xfsj_sb_layout, #field), \
		       (uint64_t)(val))

int xfsj_sb_verify(const void *buf, size_t len, uint64_t byte_off,
		   struct xfsj_fault *f)
{
	const uint32_t v2_required = XFSJ_SB_VERSION2_LAZYSBCOUNT |
				     XFSJ_SB_VERSION2_ATTR2 |
				     XFSJ_SB_VERSION2_PROJID32 |
				     XFSJ_SB_VERSION2_CRC;
	struct xfsj_sb sb;
	uint64_t agbytes;

	if (len < XFSJ_SB_DISK_SIZE)
		return xfsj_fault_set(f, XFSJ_E_SHORTIO, "superblock", "sector",
				      byte_off, len);
	xfsj_sb_decode(buf, &sb);
	if (sb.magicnum != XFSJ_SB_MAGIC)
		return xfsj_fault_set(f, XFSJ_E_BADMAGIC, "superblock",
				      "magicnum", byte_off, sb.magicnum);
	if ((sb.versionnum & XFSJ_SB_VERSION_NUMBITS) != XFSJ_SB_VERSION_5)
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, "superblock",
				      "versionnum", byte_off + 100,
				      sb.versionnum);
	if (!is_pow2(sb.sectsize) || sb.sectsize < 512 || sb.sectsize > 32768 ||
	    sb.sectlog != log2_u64(sb.sectsize))
		return SB_BAD(sectsize, sb.sectsize);
	if (sb.sectsize > len)
		return xfsj_fault_set(f, XFSJ_E_SHORTIO, "superblock", "sectsize",
				      byte_off + 102, sb.sectsize);
	if (!xfsj_cksum_ok(buf, sb.sectsize, XFSJ_SB_CRC_OFF))
		return xfsj_fault_set(f, XFSJ_E_BADCRC, "superblock", "crc",
				      byte_off + XFSJ_SB_CRC_OFF, sb.crc);
	if ((sb.features2 & v2_required) != v2_required ||
	    !(sb.versionnum & XFSJ_SB_VERSION_MOREBITSBIT))
		return SB_BAD(features2, sb.features2);
	if (sb.features_incompat & ~XFSJ_INCOMPAT_ALL)
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, "superblock",
				      "features_incompat", byte_off + 216,
				      sb.features_incompat);
	if (sb.features_incompat & XFSJ_INCOMPAT_NEEDSREPAIR)
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, "superblock",
				      "features_incompat", byte_off + 216,
				      sb.features_incompat);
	if (!is_pow2(sb.blocksize) || sb.blocksize < 1024 ||
	    sb.blocksize > 65536 || sb.blocklog != log2_u64(sb.blocksize))
		return SB_BAD(blocksize, sb.blocksize);
	if (!is_pow2(sb.inodesize) || sb.inodesize < 256 ||
	    sb.inodesize > 2048 || sb.inodelog != log2_u64(sb.inodesize))
		return SB_BAD(inodesize, sb.inodesize);
	if (sb.inopblock != sb.blocksize / sb.inodesize ||
	    sb.inopblog != sb.blocklog - sb.inodelog)
		return SB_BAD(inopblock, sb.inopblock);
	if (sb.dirblklog + sb.blocklog > 16)
		return SB_BAD(dirblklog, sb.dirblklog);
	agbytes = (uint64_t)sb.agblocks * sb.blocksize;
	if (sb.agblocks == 0 || agbytes < (16ULL << 20) ||
	    agbytes > (1ULL << 40))
		return SB_BAD(agblocks, sb.agblocks);
	if (sb.agblklog != log2_roundup(sb.agblocks))
		return SB_BAD(agblklog, sb.agblklog);
	if (sb.agcount == 0 ||
	    sb.dblocks > (uint64_t)sb.agcount * sb.agblocks ||
	    sb.dblocks < (uint64_t)(sb.agcount - 1) * sb.agblocks + 64)
		return SB_BAD(dblocks, sb.dblocks);
	if (sb.imax_pct > 100)
		return SB_BAD(imax_pct, sb.imax_pct);
	if (sb.inprogress)
		return SB_BAD(inprogress, sb.inprogress);
	if (sb.logblocks == 0 || sb.logblocks > (1U << 20))
		return SB_BAD(logblocks, sb.logblocks);
	if (sb.logstart && (sb.logstart >> sb.agblklog) >= sb.agcount)
		return SB_BAD(logstart, sb.logstart);
	if (!!sb.unit != !!(sb.versionnum & XFSJ_SB_VERSION_DALIGNBIT))
		return SB_BAD(unit, sb.unit);
	if (sb.unit && sb.width % sb.unit)
		return SB_BAD(width, sb.width);
	if (sb.ifree > sb.icount)
		return SB_BAD(ifree, sb.ifree);
	if (sb.fdblocks > sb.dblocks)
		return SB_BAD(fdblocks, sb.fdblocks);
	if (sb.shared_vn)
		return SB_BAD(shared_vn, sb.shared_vn);
	if (sb.rblocks == 0 &&
	    (sb.rextents || sb.rbmblocks || sb.rextslog || sb.frextents))
		return SB_BAD(rextents, sb.rextents);
	return 0;
}
