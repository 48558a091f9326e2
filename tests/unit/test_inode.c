/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * v3 inodes: timestamp encoding (§7.3), the core codec, the verifier and
 * the extent-count accessors with and without NREXT64.
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "core/crc32c.h"
#include "xfsj/ondisk.h"

#define ISIZE		512
#define ROOTINO		128
#define INO_BYTE	((uint64_t)16 * 4096)	/* where inode 128 lives */

static const uint8_t fs_uuid[16] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6,
				     7, 8, 9, 10, 11, 12 };

/* ---- timestamps ---- */

START_TEST(time_bigtime)
{
	ck_assert_uint_eq(xfsj_time_encode(0, 0, true), 0x1DCD650000000000ULL);
	ck_assert_uint_eq(xfsj_time_encode(1, 5, true),
			  0x1DCD650000000000ULL + 1000000000ULL + 5);
	ck_assert_uint_eq(xfsj_time_encode(-1, 0, true),
			  0x1DCD650000000000ULL - 1000000000ULL);
	/* The bigtime epoch is the smallest 32-bit time. */
	ck_assert_uint_eq(xfsj_time_encode(INT32_MIN, 0, true), 0);
	ck_assert_uint_eq(xfsj_time_encode(INT32_MIN, 999999999, true),
			  999999999);
	ck_assert_uint_eq(XFSJ_BIGTIME_EPOCH_OFFSET, 2147483648LL);
	/* Earlier times clamp to the epoch. */
	ck_assert_uint_eq(xfsj_time_encode((int64_t)INT32_MIN - 1, 7, true), 7);
	ck_assert_uint_eq(xfsj_time_encode(INT64_MIN, 0, true), 0);
	/* Past 2038 is representable. */
	ck_assert_uint_eq(xfsj_time_encode(4294967296LL, 0, true),
			  (4294967296ULL + 2147483648ULL) * 1000000000ULL);
	/* The kernel's largest time: Jul 2 20:20:24 UTC 2486. */
	ck_assert_uint_eq(xfsj_time_encode(16299260424LL, 999999999, true),
			  18446744072999999999ULL);
	ck_assert_uint_eq(xfsj_time_encode(1700000000, 123, true),
			  (1700000000ULL + 2147483648ULL) * 1000000000ULL + 123);
}
END_TEST

/*
 * Was a bug: libjournal/inode.c xfsj_time_encode() clamps bigtime seconds only
 * from below.  Times past the kernel's maximum (XFS_BIGTIME_TIME_MAX:
 * Unix 16299260424, 2486-07-02) are encoded as they are; from Unix
 * 16299260426 on, (sec + 2^31) * 10^9 wraps around 2^64 and yields a
 * wrong, earlier time (2^40 s comes out as Unix 11153727427); for
 * sec > INT64_MAX - 2^31 the addition is signed overflow (undefined
 * behaviour, UBSan aborts).  Expected: clamp to 16299260424 the way the
 * non-bigtime path clamps to INT32_MAX.
 */
START_TEST(time_bigtime_clamp_high)
{
	uint64_t max = xfsj_time_encode(16299260424LL, 0, true);

	ck_assert_uint_eq(xfsj_time_encode(16299260425LL, 0, true), max);
	ck_assert_uint_eq(xfsj_time_encode(1LL << 40, 0, true), max);
	ck_assert_uint_eq(xfsj_time_encode(INT64_MAX, 0, true), max);
}
END_TEST

START_TEST(time_legacy)
{
	ck_assert_uint_eq(xfsj_time_encode(0, 0, false), 0);
	ck_assert_uint_eq(xfsj_time_encode(1700000000, 123, false),
			  (1700000000ULL << 32) | 123);
	ck_assert_uint_eq(xfsj_time_encode(-1, 0, false), 0xFFFFFFFF00000000ULL);
	ck_assert_uint_eq(xfsj_time_encode(INT32_MAX, 999999999, false),
			  0x7FFFFFFF00000000ULL | 999999999);
	ck_assert_uint_eq(xfsj_time_encode(INT32_MIN, 0, false),
			  0x8000000000000000ULL);
	/* Clamped to the signed 32-bit range. */
	ck_assert_uint_eq(xfsj_time_encode((int64_t)INT32_MAX + 1, 1, false),
			  0x7FFFFFFF00000001ULL);
	ck_assert_uint_eq(xfsj_time_encode(INT64_MAX, 2, false),
			  0x7FFFFFFF00000002ULL);
	ck_assert_uint_eq(xfsj_time_encode((int64_t)INT32_MIN - 1, 3, false),
			  0x8000000000000003ULL);
	ck_assert_uint_eq(xfsj_time_encode(INT64_MIN, 0, false),
			  0x8000000000000000ULL);
}
END_TEST

/* ---- inodes ---- */

static void vctx(struct xfsj_vctx *c)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->uuid, fs_uuid, 16);
	c->sectsize = 512;
	c->blocksize = 4096;
	c->inodesize = ISIZE;
	c->agblocks = 65536;
	c->agno = 0;
	c->features_ro_compat = 0xF;
	c->features_incompat = 0x2B;	/* FTYPE SPINODES BIGTIME NREXT64 */
}

static void root_dir(struct xfsj_dinode *d)
{
	uint64_t now = xfsj_time_encode(1700000000, 0, true);

	memset(d, 0, sizeof(*d));
	d->magic = XFSJ_DINODE_MAGIC;
	d->mode = 040755;
	d->version = 3;
	d->format = XFSJ_DINODE_FMT_LOCAL;
	d->nlink = 2;
	d->atime = xfsj_time_encode(0, 0, true);
	d->mtime = d->ctime = d->crtime = now;
	d->size = 6;
	d->aformat = XFSJ_DINODE_FMT_EXTENTS;
	d->next_unlinked = XFSJ_NULLAGINO;
	d->changecount = 2;
	d->flags2 = XFSJ_DIFLAG2_BIGTIME | XFSJ_DIFLAG2_NREXT64;
	d->ino = ROOTINO;
	memcpy(d->uuid, fs_uuid, 16);
}

static void reg_file(struct xfsj_dinode *d)
{
	root_dir(d);
	d->mode = 0100644;
	d->format = XFSJ_DINODE_FMT_EXTENTS;
	d->nlink = 1;
	d->size = 8192;
	d->nblocks = 2;
	d->flags2 = XFSJ_DIFLAG2_BIGTIME;
	d->nextents = 1;
	d->ino = ROOTINO;
}

/* Encode @d into a fresh inode buffer, with a short-form root fork. */
static void build(uint8_t *buf, const struct xfsj_dinode *d)
{
	static const uint8_t sf[6] = { 0, 0, 0, 0, 0, ROOTINO };

	memset(buf, 0, ISIZE);
	xfsj_dinode_encode(d, buf);
	memcpy(buf + XFSJ_DINODE_CORE_SIZE, sf, sizeof(sf));
	xfsj_dinode_finish(buf, ISIZE);
}

START_TEST(root_directory)
{
	uint8_t buf[ISIZE];
	struct xfsj_dinode d, back;
	struct xfsj_vctx c;
	struct xfsj_fault f;

	vctx(&c);
	root_dir(&d);
	build(buf, &d);
	ck_assert_mem_eq(buf, "IN\x41\xED\x03\x01", 6);	/* magic mode ver fmt */
	ck_assert_mem_eq(buf + 56, "\0\0\0\0\0\0\0\x06", 8);
	ck_assert_mem_eq(buf + 32, "\x1D\xCD\x65\0\0\0\0\0", 8);
	ck_assert_mem_eq(buf + 120, "\0\0\0\0\0\0\0\x18", 8);
	ck_assert_mem_eq(buf + 152, "\0\0\0\0\0\0\0\x80", 8);
	ck_assert(xfsj_cksum_ok(buf, ISIZE, XFSJ_DINODE_CRC_OFF));
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(xfsj_dinode_verify(buf, &c, ROOTINO, INO_BYTE, &f), 0);
	ck_assert_ptr_null(f.field);
	xfsj_dinode_decode(buf, &back);
	ck_assert_uint_eq(back.mode, 040755);
	ck_assert_uint_eq(back.size, 6);
	ck_assert_uint_eq(back.next_unlinked, XFSJ_NULLAGINO);
	ck_assert_uint_eq(back.crc, xfsj_get_le32(buf + 100));
	ck_assert_uint_eq(back.atime, 0x1DCD650000000000ULL);
	/* An attr fork offset still inside the literal area is fine. */
	d.forkoff = (ISIZE - XFSJ_DINODE_CORE_SIZE) / 8 - 1;
	build(buf, &d);
	ck_assert_int_eq(xfsj_dinode_verify(buf, &c, ROOTINO, 0, NULL), 0);
	/* So is a LOCAL directory that fills the whole data fork. */
	root_dir(&d);
	d.size = ISIZE - XFSJ_DINODE_CORE_SIZE;
	build(buf, &d);
	ck_assert_int_eq(xfsj_dinode_verify(buf, &c, ROOTINO, 0, NULL), 0);
}
END_TEST

START_TEST(regular_and_free_inodes)
{
	uint8_t buf[ISIZE];
	struct xfsj_dinode d;
	struct xfsj_vctx c;

	vctx(&c);
	reg_file(&d);
	build(buf, &d);
	ck_assert_int_eq(xfsj_dinode_verify(buf, &c, ROOTINO, 0, NULL), 0);
	d.format = XFSJ_DINODE_FMT_BTREE;
	d.nblocks = 10;
	d.nextents = 9;
	build(buf, &d);
	ck_assert_int_eq(xfsj_dinode_verify(buf, &c, ROOTINO, 0, NULL), 0);
	/* rt bitmap style: regular, no permission bits, empty. */
	reg_file(&d);
	d.mode = 0100000;
	d.size = d.nblocks = 0;
	d.nextents = 0;
	d.flags = XFSJ_DIFLAG_NEWRTBM;
	build(buf, &d);
	ck_assert_int_eq(xfsj_dinode_verify(buf, &c, ROOTINO, 0, NULL), 0);
	/* A device node. */
	reg_file(&d);
	d.mode = 020644;
	d.format = XFSJ_DINODE_FMT_DEV;
	d.size = d.nblocks = 0;
	d.nextents = 0;
	build(buf, &d);
	ck_assert_int_eq(xfsj_dinode_verify(buf, &c, ROOTINO, 0, NULL), 0);
	/* A free inode of a fresh chunk: only the header matters. */
	memset(&d, 0, sizeof(d));
	d.magic = XFSJ_DINODE_MAGIC;
	d.version = 3;
	d.next_unlinked = XFSJ_NULLAGINO;
	d.ino = ROOTINO + 5;
	memcpy(d.uuid, fs_uuid, 16);
	build(buf, &d);
	ck_assert_int_eq(xfsj_dinode_verify(buf, &c, ROOTINO + 5, 0, NULL), 0);
	/* Symlink with remote target (EXTENTS). */
	reg_file(&d);
	d.mode = 0120777;
	d.size = 300;
	build(buf, &d);
	ck_assert_int_eq(xfsj_dinode_verify(buf, &c, ROOTINO, 0, NULL), 0);
}
END_TEST

/* Encode writes exactly the core: the forks are kept, pad2 is zeroed. */
START_TEST(encode_core_only)
{
	uint8_t buf[ISIZE];
	struct xfsj_dinode d;

	root_dir(&d);
	memset(buf, 0xAB, sizeof(buf));
	xfsj_dinode_encode(&d, buf);
	for (int i = 132; i < 144; i++)
		ck_assert_uint_eq(buf[i], 0);
	for (int i = XFSJ_DINODE_CORE_SIZE; i < ISIZE; i++)
		ck_assert_uint_eq(buf[i], 0xAB);
	xfsj_dinode_finish(buf, ISIZE);
	ck_assert(xfsj_cksum_ok(buf, ISIZE, XFSJ_DINODE_CRC_OFF));
	/* The CRC covers the forks: a change there breaks it. */
	buf[ISIZE - 1] ^= 1;
	ck_assert(!xfsj_cksum_ok(buf, ISIZE, XFSJ_DINODE_CRC_OFF));
}
END_TEST

struct di_bad {
	const char *what;
	void (*mutate)(struct xfsj_dinode *d);
	uint32_t incompat;	/* vctx incompat (0 = default 0x2B) */
	int err;
	const char *field;
	int off;
};

#define DI_MUT(name, body) \
	static void name(struct xfsj_dinode *d) { body; }

DI_MUT(d_magic, d->magic = 0x4E49)
DI_MUT(d_version, d->version = 2)
DI_MUT(d_wrong_ino, d->ino = ROOTINO + 1)
DI_MUT(d_uuid, d->uuid[0] ^= 0xFF)
DI_MUT(d_nrext64, (void)d)			/* flag kept, feature off */
DI_MUT(d_bigtime, (void)d)
DI_MUT(d_reflink, d->flags2 |= XFSJ_DIFLAG2_REFLINK)
DI_MUT(d_big_nextents, { d->flags2 = XFSJ_DIFLAG2_BIGTIME;
			 d->big_nextents = 1; })
DI_MUT(d_dir_size0, d->size = 0)
DI_MUT(d_dir_size_big, d->size = ISIZE - XFSJ_DINODE_CORE_SIZE + 1)
DI_MUT(d_dir_size_forkoff, { d->forkoff = 1; d->size = 9; })
DI_MUT(d_forkoff, d->forkoff = (ISIZE - XFSJ_DINODE_CORE_SIZE) / 8)
DI_MUT(d_forkoff_max, d->forkoff = 255)
DI_MUT(d_mode, d->mode = 0170755)
DI_MUT(d_dir_devfmt, d->format = XFSJ_DINODE_FMT_DEV)
DI_MUT(d_reg_local, { d->mode = 0100644; d->format = XFSJ_DINODE_FMT_LOCAL; })
DI_MUT(d_chr_extents, { d->mode = 020644;
			d->format = XFSJ_DINODE_FMT_EXTENTS; })
DI_MUT(d_nextents, { d->mode = 0100644; d->format = XFSJ_DINODE_FMT_EXTENTS;
		     d->flags2 = XFSJ_DIFLAG2_BIGTIME; d->nextents = 2;
		     d->nblocks = 1; })
DI_MUT(d_big_nextents_nblocks, { d->mode = 0100644;
				 d->format = XFSJ_DINODE_FMT_EXTENTS;
				 d->big_nextents = 5; d->nblocks = 4; })
DI_MUT(d_anextents, { d->flags2 = XFSJ_DIFLAG2_BIGTIME; d->anextents = 1;
		      d->nblocks = 1; })
DI_MUT(d_aformat, d->aformat = XFSJ_DINODE_FMT_BTREE)

static const struct di_bad di_bads[] = {
	{ "magic", d_magic, 0, XFSJ_E_BADMAGIC, "magic", 0 },
	{ "version", d_version, 0, XFSJ_E_CORRUPT, "version", 4 },
	{ "wrong ino", d_wrong_ino, 0, XFSJ_E_CORRUPT, "ino", 152 },
	{ "uuid", d_uuid, 0, XFSJ_E_CORRUPT, "uuid", 160 },
	{ "NREXT64 flag without feature", d_nrext64, 0x0B, XFSJ_E_CORRUPT,
	  "flags2", 120 },
	{ "BIGTIME flag without feature", d_bigtime, 0x23, XFSJ_E_CORRUPT,
	  "flags2", 120 },
	{ "REFLINK flag without feature", d_reflink, 0x2B | 0x80000000U,
	  XFSJ_E_CORRUPT, "flags2", 120 },
	{ "big_nextents without NREXT64", d_big_nextents, 0, XFSJ_E_CORRUPT,
	  "big_nextents", 24 },
	{ "dir size 0", d_dir_size0, 0, XFSJ_E_CORRUPT, "size", 56 },
	{ "local dir larger than fork", d_dir_size_big, 0, XFSJ_E_CORRUPT,
	  "size", 56 },
	{ "local dir larger than forkoff", d_dir_size_forkoff, 0,
	  XFSJ_E_CORRUPT, "size", 56 },
	{ "forkoff at end of literal area", d_forkoff, 0, XFSJ_E_CORRUPT,
	  "forkoff", 82 },
	{ "forkoff 255", d_forkoff_max, 0, XFSJ_E_CORRUPT, "forkoff", 82 },
	{ "bad file type", d_mode, 0, XFSJ_E_CORRUPT, "mode", 2 },
	{ "dir in DEV format", d_dir_devfmt, 0, XFSJ_E_CORRUPT, "format", 5 },
	{ "regular file LOCAL", d_reg_local, 0, XFSJ_E_CORRUPT, "format", 5 },
	{ "chrdev EXTENTS", d_chr_extents, 0, XFSJ_E_CORRUPT, "format", 5 },
	{ "nextents > nblocks", d_nextents, 0, XFSJ_E_CORRUPT, "nblocks", 64 },
	{ "big_nextents > nblocks", d_big_nextents_nblocks, 0, XFSJ_E_CORRUPT,
	  "nblocks", 64 },
	{ "attr extents without fork", d_anextents, 0, XFSJ_E_CORRUPT,
	  "anextents", 80 },
	{ "aformat without fork", d_aformat, 0, XFSJ_E_CORRUPT, "aformat", 83 },
};
#define NDI_BADS (sizeof(di_bads) / sizeof(di_bads[0]))

START_TEST(rejections)
{
	const struct di_bad *b = &di_bads[_i];
	uint8_t buf[ISIZE];
	struct xfsj_dinode d;
	struct xfsj_vctx c;
	struct xfsj_fault f;
	int err;

	vctx(&c);
	if (b->incompat) {
		c.features_incompat = b->incompat & 0x7FFFFFFF;
		if (b->incompat & 0x80000000U)
			c.features_ro_compat &= ~XFSJ_RO_COMPAT_REFLINK;
	}
	root_dir(&d);
	b->mutate(&d);
	build(buf, &d);
	memset(&f, 0, sizeof(f));
	err = xfsj_dinode_verify(buf, &c, ROOTINO, INO_BYTE, &f);
	ck_assert_msg(err == -b->err, "%s: got %d (%s)", b->what, err,
		      xfsj_errname(err));
	ck_assert_int_eq(f.err, b->err);
	ck_assert_str_eq(f.structure, "inode");
	ck_assert_msg(f.field && !strcmp(f.field, b->field),
		      "%s: field %s, want %s", b->what,
		      f.field ? f.field : "(null)", b->field);
	ck_assert_msg(f.offset == INO_BYTE + (uint64_t)b->off,
		      "%s: offset %llu", b->what,
		      (unsigned long long)(f.offset - INO_BYTE));
}
END_TEST

START_TEST(crc_rejection)
{
	uint8_t buf[ISIZE];
	struct xfsj_dinode d;
	struct xfsj_vctx c;
	struct xfsj_fault f;

	vctx(&c);
	root_dir(&d);
	build(buf, &d);
	buf[ISIZE - 1] ^= 0x80;		/* in the literal area */
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(xfsj_dinode_verify(buf, &c, ROOTINO, INO_BYTE, &f),
			 -XFSJ_E_BADCRC);
	ck_assert_str_eq(f.field, "crc");
	ck_assert_uint_eq(f.offset, INO_BYTE + 100);
	buf[ISIZE - 1] ^= 0x80;
	buf[60] ^= 0x01;		/* size */
	ck_assert_int_eq(xfsj_dinode_verify(buf, &c, ROOTINO, 0, NULL),
			 -XFSJ_E_BADCRC);
	buf[60] ^= 0x01;
	ck_assert_int_eq(xfsj_dinode_verify(buf, &c, ROOTINO, 0, NULL), 0);
	/* A CRC over 256 bytes is not the CRC of a 512-byte inode. */
	xfsj_dinode_finish(buf, 256);
	ck_assert_int_eq(xfsj_dinode_verify(buf, &c, ROOTINO, 0, NULL),
			 -XFSJ_E_BADCRC);
}
END_TEST

/*
 * Was a bug: libjournal/inode.c xfsj_dinode_verify() reports an attribute
 * extent count on an inode without an attr fork as field "anextents" at
 * byte 80 even when the inode has NREXT64, where the attr extent count is
 * the 32-bit field at byte 76 (di_big_anextents, host member `nextents`)
 * and byte 80 is padding.  The fault points at the wrong bytes.
 */
START_TEST(anextents_fault_with_nrext64)
{
	uint8_t buf[ISIZE];
	struct xfsj_dinode d;
	struct xfsj_vctx c;
	struct xfsj_fault f;

	vctx(&c);
	root_dir(&d);		/* has NREXT64 */
	d.nextents = 1;		/* = attr extents under NREXT64 */
	d.nblocks = 1;
	build(buf, &d);
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(xfsj_dinode_verify(buf, &c, ROOTINO, INO_BYTE, &f),
			 -XFSJ_E_CORRUPT);
	ck_assert_uint_eq(f.offset, INO_BYTE + 76);
}
END_TEST

START_TEST(extent_counts)
{
	struct xfsj_dinode d;

	memset(&d, 0, sizeof(d));
	d.big_nextents = 0x0000000123456789ULL;
	d.nextents = 0x00ABCDEF;
	d.anextents = 0x1234;
	/* Without NREXT64: nextents u32 and anextents u16. */
	ck_assert_uint_eq(xfsj_dinode_nextents(&d), 0x00ABCDEF);
	ck_assert_uint_eq(xfsj_dinode_anextents(&d), 0x1234);
	/* With NREXT64: big_nextents u64, attr count in the u32 at 76. */
	d.flags2 = XFSJ_DIFLAG2_NREXT64;
	ck_assert_uint_eq(xfsj_dinode_nextents(&d), 0x0000000123456789ULL);
	ck_assert_uint_eq(xfsj_dinode_anextents(&d), 0x00ABCDEF);
	d.flags2 |= XFSJ_DIFLAG2_BIGTIME;
	ck_assert_uint_eq(xfsj_dinode_nextents(&d), 0x0000000123456789ULL);
	d.flags2 = XFSJ_DIFLAG2_BIGTIME;
	ck_assert_uint_eq(xfsj_dinode_nextents(&d), 0x00ABCDEF);
}
END_TEST

/* The setter writes the field the getter reads, and no other. */
START_TEST(extent_count_setter)
{
	struct xfsj_dinode d, want;

	for (int big = 0; big < 2; big++) {
		memset(&d, 0, sizeof(d));
		d.flags2 = big ? XFSJ_DIFLAG2_NREXT64 : 0;
		want = d;
		xfsj_dinode_set_nextents(&d, false, big ? 0x123456789ULL :
							  0x89ABCDEF);
		xfsj_dinode_set_nextents(&d, true, big ? 0x87654321 : 0x4321);
		if (big) {
			want.big_nextents = 0x123456789ULL;
			want.nextents = 0x87654321;
		} else {
			want.nextents = 0x89ABCDEF;
			want.anextents = 0x4321;
		}
		ck_assert_uint_eq(d.big_nextents, want.big_nextents);
		ck_assert_uint_eq(d.nextents, want.nextents);
		ck_assert_uint_eq(d.anextents, want.anextents);
		ck_assert_uint_eq(xfsj_dinode_nextents(&d),
				  big ? 0x123456789ULL : 0x89ABCDEF);
		ck_assert_uint_eq(xfsj_dinode_anextents(&d),
				  big ? 0x87654321 : 0x4321);
		/* Each fork's setter leaves the other fork's count. */
		xfsj_dinode_set_nextents(&d, false, 7);
		ck_assert_uint_eq(xfsj_dinode_anextents(&d),
				  big ? 0x87654321 : 0x4321);
		xfsj_dinode_set_nextents(&d, true, 9);
		ck_assert_uint_eq(xfsj_dinode_nextents(&d), 7);
		ck_assert_uint_eq(xfsj_dinode_anextents(&d), 9);
	}
}
END_TEST

/* With NREXT64 a data fork with more than 2^32 extents verifies. */
START_TEST(nrext64_large_counts)
{
	uint8_t buf[ISIZE];
	struct xfsj_dinode d;
	struct xfsj_vctx c;

	vctx(&c);
	reg_file(&d);
	d.flags2 = XFSJ_DIFLAG2_BIGTIME | XFSJ_DIFLAG2_NREXT64;
	d.format = XFSJ_DINODE_FMT_BTREE;
	d.nextents = 0;
	d.big_nextents = 0x100000000ULL;
	d.nblocks = 0x200000000ULL;
	build(buf, &d);
	ck_assert_int_eq(xfsj_dinode_verify(buf, &c, ROOTINO, 0, NULL), 0);
	ck_assert_mem_eq(buf + 24, "\0\0\0\x01\0\0\0\0", 8);
	/* nextents + anextents is compared, not each alone. */
	d.forkoff = 20;
	d.aformat = XFSJ_DINODE_FMT_EXTENTS;
	d.big_nextents = 3;
	d.nextents = 2;		/* attr extents */
	d.nblocks = 4;
	build(buf, &d);
	ck_assert_int_eq(xfsj_dinode_verify(buf, &c, ROOTINO, 0, NULL),
			 -XFSJ_E_CORRUPT);
	d.nblocks = 5;
	build(buf, &d);
	ck_assert_int_eq(xfsj_dinode_verify(buf, &c, ROOTINO, 0, NULL), 0);
}
END_TEST

Suite *inode_suite(void)
{
	Suite *s = suite_create("inode");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, time_bigtime);
	tcase_add_test(tc, time_legacy);
	tcase_add_test(tc, time_bigtime_clamp_high);
	tcase_add_test(tc, root_directory);
	tcase_add_test(tc, regular_and_free_inodes);
	tcase_add_test(tc, encode_core_only);
	tcase_add_loop_test(tc, rejections, 0, NDI_BADS);
	tcase_add_test(tc, crc_rejection);
	tcase_add_test(tc, anextents_fault_with_nrext64);
	tcase_add_test(tc, extent_counts);
	tcase_add_test(tc, extent_count_setter);
	tcase_add_test(tc, nrext64_large_counts);
	suite_add_tcase(s, tc);
	return s;
}
