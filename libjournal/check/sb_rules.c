/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rules one superblock meets on its own, as the kernel's superblock
 * verifier (xfs_validate_sb_common and the mount-time checks) and
 * xfs_repair's phase 1 (verify_sb, secondary_sb_whack) apply them.  Each
 * rule names the field it blames; a superblock gets every finding, not
 * just the first.
 */
#include <string.h>

#include "check/sb_rules.h"
#include "core/crc32c.h"
#include "ondisk/trans_resv.h"

/* Kernel limits (xfs_format.h, xfs_log_format.h). */
#define MIN_AG_BLOCKS		XFSJ_MIN_AG_BLOCKS
#define MAX_AG_BYTES		(1ULL << 40)
#define MIN_LOG_BLOCKS		512
#define MAX_LOG_BLOCKS		(1024 * 1024)
#define MAX_LOG_BYTES		(2ULL << 30)
#define MAX_LOG_RECORD_BYTES	(256 * 1024)
#define MIN_RTEXT_BYTES		4096
#define MAX_RTEXT_BYTES		(1ULL << 30)
#define INODE_BIG_CLUSTER	8192	/* bytes */
#define DINODE_MIN_SIZE		256

/* Is @v 2^k for some k in [lo, hi]?  Then *lg = k. */
static bool pow2_in(uint64_t v, unsigned int lo, unsigned int hi,
		    unsigned int *lg)
{
	unsigned int k;

	if (!v || (v & (v - 1)))
		return false;
	k = (unsigned int)__builtin_ctzll(v);
	if (lg)
		*lg = k;
	return k >= lo && k <= hi;
}

/* The smallest k with 2^k >= v (the kernel's agblklog). */
static unsigned int ceil_log2(uint64_t v)
{
	return v <= 1 ? 0 : 64 - (unsigned int)__builtin_clzll(v - 1);
}

static void invalid(struct sb_one *s, const char *field, uint64_t found)
{
	xck_sb_report(s, SBK_INVALID, 0, field, 0, found, 0);
}

/* Report @field unless it holds @want; returns whether it did. */
static bool want(struct sb_one *s, const char *field, uint64_t want,
		 uint64_t found)
{
	if (want == found)
		return true;
	xck_sb_report(s, SBK_MISMATCH, XFSJ_PF_EXPECTED, field, want, found,
		      0);
	return false;
}

static bool has_incompat(const struct xfsj_sb *sb, uint32_t bit)
{
	return (sb->features_incompat & bit) != 0;
}

/* Sector, block and inode sizes; returns whether all are usable. */
static bool check_sizes(struct sb_one *s)
{
	const struct xfsj_sb *sb = &s->sb;
	unsigned int lg;
	bool ok = true;

	/* The CRC rule already required a sane sector size. */
	if (!pow2_in(sb->blocksize, 10, 16, &lg)) {
		invalid(s, "blocksize", sb->blocksize);
		ok = false;
	} else {
		ok &= want(s, "blocklog", lg, sb->blocklog);
		if (sb->blocksize < sb->sectsize) {
			invalid(s, "blocksize", sb->blocksize);
			ok = false;
		}
	}
	if (!pow2_in(sb->inodesize, 8, 11, &lg)) {
		invalid(s, "inodesize", sb->inodesize);
		return false;
	}
	ok &= want(s, "inodelog", lg, sb->inodelog);
	if (!ok)
		return false;
	if (sb->inodesize > sb->blocksize) {
		invalid(s, "inodesize", sb->inodesize);
		return false;
	}
	ok &= want(s, "inopblock", sb->blocksize / sb->inodesize,
		   sb->inopblock);
	ok &= want(s, "inopblog", (uint64_t)(sb->blocklog - sb->inodelog),
		   sb->inopblog);
	if (sb->blocklog + sb->dirblklog > 16) {
		invalid(s, "dirblklog", sb->dirblklog);
		ok = false;
	}
	return ok;
}

/* AG size and count against the data device size. */
static bool check_ags(struct sb_one *s)
{
	const struct xfsj_sb *sb = &s->sb;
	bool ok = true;

	if (sb->agblocks < MIN_AG_BLOCKS ||
	    ((uint64_t)sb->agblocks << sb->blocklog) > MAX_AG_BYTES) {
		invalid(s, "agblocks", sb->agblocks);
		return false;
	}
	ok &= want(s, "agblklog", ceil_log2(sb->agblocks), sb->agblklog);
	if (!sb->agcount) {
		invalid(s, "agcount", 0);
		return false;
	}
	if (sb->dblocks > (uint64_t)sb->agcount * sb->agblocks ||
	    sb->dblocks < (uint64_t)(sb->agcount - 1) * sb->agblocks +
			  MIN_AG_BLOCKS) {
		xck_sb_report(s, SBK_DBLOCKS, XFSJ_PF_EXPECTED | XFSJ_PF_COUNT,
			      "dblocks", sb->agblocks, sb->dblocks,
			      sb->agcount);
		ok = false;
	}
	return ok;
}

/* The log: inside one AG of the data device when internal. */
static void check_log(struct sb_one *s)
{
	const struct xfsj_sb *sb = &s->sb;
	unsigned int lg;

	if (sb->logblocks < MIN_LOG_BLOCKS || sb->logblocks > MAX_LOG_BLOCKS ||
	    ((uint64_t)sb->logblocks << sb->blocklog) > MAX_LOG_BYTES)
		invalid(s, "logblocks", sb->logblocks);
	if (sb->logstart) {
		uint64_t agno = sb->logstart >> sb->agblklog;
		uint64_t agbno = sb->logstart & ((1ULL << sb->agblklog) - 1);
		uint64_t agsize = agno + 1 < sb->agcount ? sb->agblocks :
			sb->dblocks - (uint64_t)(sb->agcount - 1) * sb->agblocks;

		if (agno >= sb->agcount || agbno == 0 || agbno >= agsize)
			invalid(s, "logstart", sb->logstart);
		else if (agbno + sb->logblocks > agsize)
			invalid(s, "logblocks", sb->logblocks);
	}
	if (sb->versionnum & XFSJ_SB_VERSION_SECTORBIT) {
		if (!pow2_in(sb->logsectsize, 9, 15, &lg))
			invalid(s, "logsectsize", sb->logsectsize);
		else
			want(s, "logsectlog", lg, sb->logsectlog);
	} else {
		/* xfs_repair: no sector bit, no sector sizes but 512. */
		want(s, "sectsize", 512, sb->sectsize);
		want(s, "logsectsize", 0, sb->logsectsize);
		want(s, "logsectlog", 0, sb->logsectlog);
	}
	/* A log stripe unit is whole blocks, at most one log record. */
	if (sb->logsunit > 1 && (sb->logsunit % sb->blocksize ||
				 sb->logsunit > MAX_LOG_RECORD_BYTES))
		invalid(s, "logsunit", sb->logsunit);
}

static void check_rt(struct sb_one *s)
{
	const struct xfsj_sb *sb = &s->sb;
	uint64_t ext = (uint64_t)sb->rextsize << sb->blocklog;

	if (ext < MIN_RTEXT_BYTES || ext > MAX_RTEXT_BYTES)
		invalid(s, "rextsize", sb->rextsize);
	if (!sb->rblocks) {
		if (sb->rextents)
			invalid(s, "rextents", sb->rextents);
		if (sb->rbmblocks)
			invalid(s, "rbmblocks", sb->rbmblocks);
		if (sb->rextslog)
			invalid(s, "rextslog", sb->rextslog);
		if (sb->frextents)
			invalid(s, "frextents", sb->frextents);
		return;
	}
	if (!sb->rextsize)
		return;
	want(s, "rextents", sb->rblocks / sb->rextsize, sb->rextents);
	want(s, "rextslog", sb->rextents ? 63 -
	     (unsigned int)__builtin_clzll(sb->rextents) : 0, sb->rextslog);
	want(s, "rbmblocks", (sb->rextents + 8ULL * sb->blocksize - 1) /
	     (8ULL * sb->blocksize), sb->rbmblocks);
}

/* Stripe unit and width, inode alignment (xfs_repair's rules). */
static void check_align(struct sb_one *s)
{
	const struct xfsj_sb *sb = &s->sb;
	uint32_t cluster = INODE_BIG_CLUSTER >> sb->blocklog;
	uint32_t scaled = (INODE_BIG_CLUSTER * (sb->inodesize /
			   DINODE_MIN_SIZE)) >> sb->blocklog;

	if (sb->versionnum & XFSJ_SB_VERSION_DALIGNBIT) {
		if (!sb->unit != !sb->width)
			invalid(s, sb->unit ? "width" : "unit",
				sb->unit ? sb->width : sb->unit);
		else if (sb->unit && sb->agblocks % sb->unit)
			invalid(s, "unit", sb->unit);
		else if (sb->unit && sb->width % sb->unit)
			invalid(s, "width", sb->width);
	} else {
		want(s, "unit", 0, sb->unit);
		want(s, "width", 0, sb->width);
	}

	if (!(sb->versionnum & XFSJ_SB_VERSION_ALIGNBIT)) {
		want(s, "inoalignmt", 0, sb->inoalignmt);
		return;
	}
	if (has_incompat(sb, XFSJ_INCOMPAT_SPINODES)) {
		/* The kernel: chunk-aligned, sparse alignment dividing it. */
		uint32_t chunk = (XFSJ_INODES_PER_CHUNK * sb->inodesize) >>
				 sb->blocklog;

		want(s, "inoalignmt", chunk, sb->inoalignmt);
		/*
		 * Blocks larger than an inode cluster (64 KiB blocks): mkfs
		 * writes 0 and the kernel mounts it.
		 */
		if (scaled || (!chunk && !sb->spino_align))
			want(s, "spino_align", scaled, sb->spino_align);
		else if (!sb->spino_align || sb->spino_align > chunk ||
			 chunk % sb->spino_align)
			invalid(s, "spino_align", sb->spino_align);
		return;
	}
	if (sb->inoalignmt != cluster && sb->inoalignmt != scaled)
		invalid(s, "inoalignmt", sb->inoalignmt);
}

/* Bytes past the last field this feature set defines must be zero. */
static void check_unused(struct sb_one *s)
{
	uint32_t end = XFSJ_SB_OFF(meta_uuid);
	uint32_t i;

	if (has_incompat(&s->sb, XFSJ_INCOMPAT_METADIR))
		end = XFSJ_SB_DISK_SIZE;
	else if (has_incompat(&s->sb, XFSJ_INCOMPAT_META_UUID))
		end = XFSJ_SB_OFF(metadirino);
	for (i = end; i < s->len && i < s->sb.sectsize; i++)
		if (s->buf[i]) {
			xck_sb_report(s, SBK_GARBAGE, XFSJ_PF_OFF, NULL, 0,
				      s->buf[i], i);
			return;
		}
}

/*
 * A secondary's quota inode: none, or the primary's (mkfs leaves them
 * unset; quota inodes are made at mount in the primary; growfs copies the
 * primary).
 */
static void secondary_quotino(struct sb_one *s, const char *field,
			      uint64_t ino, uint64_t primary)
{
	if (ino && ino != XFSJ_NULLFSINO && ino != primary)
		invalid(s, field, ino);
}

/* The quota fields of a secondary (xfs_repair's secondary rules). */
static void check_secondary_quota(struct sb_one *s,
				  const struct xfsj_sb *p)
{
	const struct xfsj_sb *sb = &s->sb;

	/*
	 * mkfs copies its quota flags everywhere: known bits only.  Without
	 * the quota feature, a secondary mkfs wrote (inprogress still set;
	 * growfs clears it) holds none (xfs_repair's rule; a metadir
	 * filesystem keeps its quota state elsewhere).
	 */
	if (sb->qflags & ~XFSJ_QFLAG_ALL)
		invalid(s, "qflags", sb->qflags);
	else if (sb->qflags && sb->inprogress == 1 &&
		 !(p->versionnum & XFSJ_SB_VERSION_QUOTABIT) &&
		 !has_incompat(p, XFSJ_INCOMPAT_METADIR))
		invalid(s, "qflags", sb->qflags);
	secondary_quotino(s, "uquotino", sb->uquotino, p->uquotino);
	secondary_quotino(s, "gquotino", sb->gquotino, p->gquotino);
	secondary_quotino(s, "pquotino", sb->pquotino, p->pquotino);
}

bool xck_sb_rules(struct sb_one *s, const struct xfsj_sb *primary)
{
	const struct xfsj_sb *sb = &s->sb;
	unsigned int lg;

	if (sb->magicnum != XFSJ_SB_MAGIC) {
		xck_sb_report(s, SBK_MAGIC, 0, "magicnum", 0, sb->magicnum, 0);
		s->geom_bad = true;
		return false;
	}
	if ((sb->versionnum & XFSJ_SB_VERSION_NUMBITS) != XFSJ_SB_VERSION_5) {
		invalid(s, "versionnum", sb->versionnum);
		s->geom_bad = true;
		return false;
	}
	if (!pow2_in(sb->sectsize, 9, 15, &lg)) {
		invalid(s, "sectsize", sb->sectsize);
		s->geom_bad = true;
		return false;
	}
	if (!want(s, "sectlog", lg, sb->sectlog))
		s->geom_bad = true;
	if (sb->sectsize <= s->len) {
		uint32_t crc = xfsj_cksum(s->buf, sb->sectsize,
					  XFSJ_SB_CRC_OFF);

		if (crc != sb->crc) {
			xck_sb_report(s, SBK_CRC, XFSJ_PF_EXPECTED, "crc", crc,
				      sb->crc, 0);
			/* A secondary's other fields are not worth more. */
			if (primary)
				return false;
		}
	}
	if (!check_sizes(s) || !check_ags(s)) {
		s->geom_bad = true;
	} else {
		check_log(s);
		check_rt(s);
		check_align(s);
	}
	if (sb->imax_pct > 100)
		invalid(s, "imax_pct", sb->imax_pct);
	if (sb->flags)
		invalid(s, "flags", sb->flags);
	check_unused(s);
	if (primary)
		check_secondary_quota(s, primary);
	return true;
}

/*
 * Where mkfs puts the root directory: the first inode chunk after the AG
 * headers, the first btree roots, the blocks mkfs puts on the AGFL and an
 * internal log in AG 0, rounded up to the inode alignment (the kernel's
 * xfs_ialloc_calc_rootino).  Both roundings are accepted, to the stripe
 * unit and to the inode alignment, as a mount may set a stripe unit
 * after mkfs.
 */
static bool rootino_ok(const struct xfsj_sb *sb, uint64_t *expected)
{
	bool rmap = sb->features_ro_compat & XFSJ_RO_COMPAT_RMAPBT;
	bool refl = sb->features_ro_compat & XFSJ_RO_COMPAT_REFLINK;
	unsigned int alloc = xfsj_alloc_maxlevels(sb->blocksize, sb->agblocks);
	uint64_t first, a, b;
	uint32_t flist;

	flist = 2 * ((alloc < 2 ? alloc : 2) * 2 - 2);
	if (rmap) {
		unsigned int r = xfsj_rmap_maxlevels(sb->blocksize,
						     sb->agblocks, refl);

		flist += (r < 2 ? r : 2) * 2 - 2;
	}
	first = (4ULL * sb->sectsize + sb->blocksize - 1) / sb->blocksize +
		3 + !!(sb->features_ro_compat & XFSJ_RO_COMPAT_FINOBT) +
		rmap + refl + flist;
	if (sb->logstart && (sb->logstart >> sb->agblklog) == 0)
		first += sb->logblocks;
	a = b = first;
	if ((sb->versionnum & XFSJ_SB_VERSION_ALIGNBIT) && sb->inoalignmt > 1)
		a = (first + sb->inoalignmt - 1) / sb->inoalignmt *
		    sb->inoalignmt;
	if ((sb->versionnum & XFSJ_SB_VERSION_DALIGNBIT) && sb->unit)
		b = (first + sb->unit - 1) / sb->unit * sb->unit;
	*expected = a << sb->inopblog;
	return sb->rootino == *expected || sb->rootino == b << sb->inopblog;
}

void xck_sb_primary_rules(struct sb_one *s)
{
	const struct xfsj_sb *sb = &s->sb;
	uint64_t root;

	if (sb->inprogress)
		invalid(s, "inprogress", sb->inprogress);
	/*
	 * The kernel reads features2 and bad_features2 of the primary only,
	 * and ORs them when they differ (a mismatch changes the features).
	 */
	if (sb->bad_features2 && sb->bad_features2 != sb->features2)
		want(s, "bad_features2", sb->features2, sb->bad_features2);
	if (sb->shared_vn)
		invalid(s, "shared_vn", sb->shared_vn);
	/* The kernel refuses the old quota bits on a v5 superblock. */
	if (sb->qflags & (XFSJ_QFLAG_OQUOTA_ENFD | XFSJ_QFLAG_OQUOTA_CHKD))
		invalid(s, "qflags", sb->qflags);
	if (s->geom_bad)
		return;
	if (has_incompat(sb, XFSJ_INCOMPAT_METADIR))
		return;
	if (!rootino_ok(sb, &root))
		want(s, "rootino", root, sb->rootino);
	else
		root = sb->rootino;
	want(s, "rbmino", root + 1, sb->rbmino);
	want(s, "rsumino", root + 2, sb->rsumino);
}

uint32_t xck_sb_sane_sectsize(const struct xfsj_sb *sb)
{
	return pow2_in(sb->sectsize, 9, 15, NULL) ? sb->sectsize : 512;
}

uint32_t xck_sb_ags_to_read(const struct xfsj_sb *sb, uint64_t devsize)
{
	uint64_t agbytes = (uint64_t)sb->agblocks << sb->blocklog;
	uint64_t fit = devsize / agbytes + 2;

	return sb->agcount < fit ? sb->agcount : (uint32_t)fit;
}

bool xck_sb_ino_valid(const struct xfsj_sb *sb, uint64_t ino)
{
	uint32_t agno = xfsj_ino_agno(sb, ino);
	uint32_t agbno = xfsj_ino_agino(sb, ino) >> sb->inopblog;

	return ino && ino != XFSJ_NULLFSINO && agno < sb->agcount &&
	       xfsj_agino_to_ino(sb, agno, xfsj_ino_agino(sb, ino)) == ino &&
	       agbno > 0 && agbno < sb->agblocks;
}
