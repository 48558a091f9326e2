/* SPDX-License-Identifier: GPL-2.0-or-later */
/* v3 inodes: the 176-byte core, timestamps and the verifier. */
#include <string.h>
#include <sys/stat.h>

#include "core/crc32c.h"
#include "xfsj/ondisk.h"

#define XFSJ_CUR xfsj_dinode
XFSJ_DEFINE_LAYOUT(xfsj_dinode_layout, XFSJ_DINODE_FIELDS, "inode",
		   XFSJ_DINODE_CORE_SIZE);
#undef XFSJ_CUR

uint64_t xfsj_time_encode(int64_t sec, uint32_t nsec, bool bigtime)
{
	if (bigtime) {
		/* Unsigned nanoseconds from the smallest 32-bit time. */
		if (sec < INT32_MIN)
			sec = INT32_MIN;
		/* The largest time that fits: 2486-07-02 20:20:24 UTC. */
		if (sec > XFSJ_BIGTIME_MAX)
			sec = XFSJ_BIGTIME_MAX;
		return (uint64_t)(sec + XFSJ_BIGTIME_EPOCH_OFFSET) * 1000000000ULL +
		       nsec;
	}
	if (sec < INT32_MIN)
		sec = INT32_MIN;
	if (sec > INT32_MAX)
		sec = INT32_MAX;
	return (uint64_t)(uint32_t)(int32_t)sec << 32 | nsec;
}

void xfsj_time_decode(uint64_t v, bool bigtime, int64_t *sec,
		      uint32_t *nsec)
{
	if (bigtime) {
		*sec = (int64_t)(v / 1000000000ULL) - XFSJ_BIGTIME_EPOCH_OFFSET;
		*nsec = (uint32_t)(v % 1000000000ULL);
	} else {
		*sec = (int32_t)(uint32_t)(v >> 32);
		*nsec = (uint32_t)v;
	}
}

XFSJ_DEFINE_DECODER(xfsj_dinode_decode, xfsj_dinode, XFSJ_DINODE_FIELDS)

void xfsj_log_dinode_decode(const void *p, uint32_t len,
			    struct xfsj_dinode *di)
{
	static const unsigned int ts_off[] = {
		XFSJ_DI_OFF(atime), XFSJ_DI_OFF(mtime), XFSJ_DI_OFF(ctime),
		XFSJ_DI_OFF(crtime),
	};
	uint64_t *ts[] = { &di->atime, &di->mtime, &di->ctime, &di->crtime };
	uint8_t core[XFSJ_DINODE_CORE_SIZE] = { 0 };

	memcpy(core, p, len < sizeof(core) ? len : sizeof(core));
	xfsj_layout_decode_le(&xfsj_dinode_layout, core, di);
	if (di->flags2 & XFSJ_DIFLAG2_BIGTIME)
		return;
	/* Legacy: seconds, then nanoseconds, each a 32-bit word. */
	for (unsigned int i = 0; i < 4; i++)
		*ts[i] = (uint64_t)xfsj_get_le32(core + ts_off[i]) << 32 |
			 xfsj_get_le32(core + ts_off[i] + 4);
}

void xfsj_dinode_encode(const struct xfsj_dinode *di, void *buf)
{
	xfsj_layout_encode(&xfsj_dinode_layout, di, buf);
	memset((uint8_t *)buf + 132, 0, 12);
}

void xfsj_dinode_finish(void *buf, uint32_t inodesize)
{
	xfsj_cksum_update(buf, inodesize, XFSJ_DINODE_CRC_OFF);
}

uint64_t xfsj_dinode_nextents(const struct xfsj_dinode *di)
{
	if (di->flags2 & XFSJ_DIFLAG2_NREXT64)
		return di->big_nextents;
	return di->nextents;
}

uint32_t xfsj_dinode_anextents(const struct xfsj_dinode *di)
{
	if (di->flags2 & XFSJ_DIFLAG2_NREXT64)
		return di->nextents;
	return di->anextents;
}

void xfsj_dinode_set_nextents(struct xfsj_dinode *di, bool attr, uint64_t n)
{
	bool big = di->flags2 & XFSJ_DIFLAG2_NREXT64;

	if (attr && big)
		di->nextents = (uint32_t)n;
	else if (attr)
		di->anextents = (uint16_t)n;
	else if (big)
		di->big_nextents = n;
	else
		di->nextents = (uint32_t)n;
}

#define DI_BAD(err, field, val)						\
	xfsj_fault_set(f, err, "inode", field,				\
		       byte_off + (uint64_t)xfsj_layout_offset(		\
			       &xfsj_dinode_layout, field), (uint64_t)(val))

/* Is decoded inode @di (of @buf) a v3 inode of number @ino, intact? */
static int verify_place(const void *buf, const struct xfsj_dinode *di,
			const struct xfsj_vctx *c, uint64_t ino,
			uint64_t byte_off, struct xfsj_fault *f)
{
	if (di->magic != XFSJ_DINODE_MAGIC)
		return DI_BAD(XFSJ_E_BADMAGIC, "magic", di->magic);
	if (di->version != 3)
		return DI_BAD(XFSJ_E_CORRUPT, "version", di->version);
	if (!xfsj_cksum_ok(buf, c->inodesize, XFSJ_DINODE_CRC_OFF))
		return DI_BAD(XFSJ_E_BADCRC, "crc", di->crc);
	if (di->ino != ino)
		return DI_BAD(XFSJ_E_CORRUPT, "ino", di->ino);
	if (memcmp(di->uuid, c->uuid, 16))
		return DI_BAD(XFSJ_E_CORRUPT, "uuid", 0);
	return 0;
}

int xfsj_dinode_verify_place(const void *buf, const struct xfsj_vctx *c,
			     uint64_t ino, uint64_t byte_off,
			     struct xfsj_fault *f)
{
	struct xfsj_dinode di;

	xfsj_dinode_decode(buf, &di);
	return verify_place(buf, &di, c, ino, byte_off, f);
}

int xfsj_dinode_verify(const void *buf, const struct xfsj_vctx *c,
		       uint64_t ino, uint64_t byte_off, struct xfsj_fault *f)
{
	uint32_t lit = c->inodesize - XFSJ_DINODE_CORE_SIZE;
	struct xfsj_dinode di;
	uint32_t dsize;
	int err;

	xfsj_dinode_decode(buf, &di);
	err = verify_place(buf, &di, c, ino, byte_off, f);
	if (err)
		return err;
	if ((di.flags2 & XFSJ_DIFLAG2_BIGTIME) &&
	    !(c->features_incompat & XFSJ_INCOMPAT_BIGTIME))
		return DI_BAD(XFSJ_E_CORRUPT, "flags2", di.flags2);
	if ((di.flags2 & XFSJ_DIFLAG2_NREXT64) &&
	    !(c->features_incompat & XFSJ_INCOMPAT_NREXT64))
		return DI_BAD(XFSJ_E_CORRUPT, "flags2", di.flags2);
	if ((di.flags2 & (XFSJ_DIFLAG2_REFLINK | XFSJ_DIFLAG2_COWEXTSIZE)) &&
	    !(c->features_ro_compat & XFSJ_RO_COMPAT_REFLINK))
		return DI_BAD(XFSJ_E_CORRUPT, "flags2", di.flags2);
	if (!(di.flags2 & XFSJ_DIFLAG2_NREXT64) && di.big_nextents)
		return DI_BAD(XFSJ_E_CORRUPT, "big_nextents", di.big_nextents);
	if (di.mode == 0)
		return 0;	/* a free inode: forks are not looked at */
	if (di.forkoff * 8U >= lit)
		return DI_BAD(XFSJ_E_CORRUPT, "forkoff", di.forkoff);
	dsize = di.forkoff ? di.forkoff * 8U : lit;
	switch (di.mode & S_IFMT) {
	case S_IFDIR:
	case S_IFLNK:
		if (di.size == 0)
			return DI_BAD(XFSJ_E_CORRUPT, "size", di.size);
		if (di.format == XFSJ_DINODE_FMT_LOCAL) {
			if (di.size > dsize)
				return DI_BAD(XFSJ_E_CORRUPT, "size", di.size);
			break;
		}
		/* fall through */
	case S_IFREG:
		if (di.format != XFSJ_DINODE_FMT_EXTENTS &&
		    di.format != XFSJ_DINODE_FMT_BTREE)
			return DI_BAD(XFSJ_E_CORRUPT, "format", di.format);
		break;
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		if (di.format != XFSJ_DINODE_FMT_DEV)
			return DI_BAD(XFSJ_E_CORRUPT, "format", di.format);
		break;
	default:
		return DI_BAD(XFSJ_E_CORRUPT, "mode", di.mode);
	}
	if (xfsj_dinode_nextents(&di) + xfsj_dinode_anextents(&di) > di.nblocks)
		return DI_BAD(XFSJ_E_CORRUPT, "nblocks", di.nblocks);
	if (!di.forkoff && xfsj_dinode_anextents(&di)) {
		/* With NREXT64 the attr count is the 32-bit field at 76. */
		if (di.flags2 & XFSJ_DIFLAG2_NREXT64)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode",
					      "big_anextents", byte_off + 76,
					      xfsj_dinode_anextents(&di));
		return DI_BAD(XFSJ_E_CORRUPT, "anextents",
			      xfsj_dinode_anextents(&di));
	}
	if (!di.forkoff && di.aformat != 0 &&
	    di.aformat != XFSJ_DINODE_FMT_EXTENTS)
		return DI_BAD(XFSJ_E_CORRUPT, "aformat", di.aformat);
	return 0;
}

uint8_t xfsj_mode_ftype(uint16_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return XFSJ_FT_REG;
	case S_IFDIR: return XFSJ_FT_DIR;
	case S_IFCHR: return XFSJ_FT_CHRDEV;
	case S_IFBLK: return XFSJ_FT_BLKDEV;
	case S_IFIFO: return XFSJ_FT_FIFO;
	case S_IFSOCK: return XFSJ_FT_SOCK;
	case S_IFLNK: return XFSJ_FT_SYMLINK;
	default: return XFSJ_FT_UNKNOWN;
	}
}
