/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Phase 02, the AG headers: AGF, AGI and AGFL of one AG, field by field,
 * as the kernel's verifiers (xfs_agf_verify, xfs_agi_verify,
 * xfs_agfl_verify, xfs_agfl_needs_reset) and xfs_repair's phase 2
 * (verify_set_agf, verify_set_agi) judge them.
 *
 * The sectors are read raw from the overlay, not through the buffer cache:
 * the cache verifies a header on its first read and keeps it, so a header
 * that fails here must not be left there looking verified.
 *
 * What the headers' counters say about the trees (agf_freeblks, longest,
 * btreeblks, rmap_blocks, refcount_blocks against the bnobt, cntbt and
 * rmapbt; agi_count, freecount, iblocks, fblocks against the inobt and
 * finobt) is space.c's cross-check; here only their bounds are checked.
 * agi_newino and agi_dirino are allocation hints the kernel and
 * xfs_repair ignore; so do we.
 *
 * Claims: the header blocks (owner "fs", as the rmapbt records them), the
 * live AGFL blocks (owner "ag") and an internal log's blocks in this AG
 * (owner "log").
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_priv.h"
#include "core/crc32c.h"
#include "core/overlay.h"
#include "ondisk/trans_resv.h"

enum {
	AGH_AGF_MAGIC, AGH_AGF_CRC, AGH_AGF_UUID, AGH_AGF_FIELD,
	AGH_AGF_ROOT, AGH_AGF_LEVEL, AGH_AGF_FLIST, AGH_AGF_FLCOUNT,
	AGH_AGF_BOUND,
	AGH_AGI_MAGIC, AGH_AGI_CRC, AGH_AGI_UUID, AGH_AGI_FIELD,
	AGH_AGI_ROOT, AGH_AGI_LEVEL, AGH_AGI_BOUND, AGH_AGI_UNLINKED,
	AGH_AGI_BUCKET,
	AGH_AGFL_MAGIC, AGH_AGFL_CRC, AGH_AGFL_UUID, AGH_AGFL_FIELD,
	AGH_AGFL_SLOT, AGH_AGFL_ENTRY, AGH_AGFL_DUP,
	AGH__N
};

/* A structure's rows in the order of the first group (AGFL has no more). */
enum { K_MAGIC, K_CRC, K_UUID, K_FIELD, K_ROOT, K_LEVEL };

#define ROW(code, num, st, msg, ...) \
	{ code, num, XFSJ_SEV_CORRUPT, st, msg, XFSJ_FIX_AG_HEADER, \
	  __VA_ARGS__ }

static const struct xfsj_problem_def rows[AGH__N] = {
	[AGH_AGF_MAGIC] = ROW("agf.magic", 0x020001, "AGF",
		"AGF of AG {ag}: bad magic number {xfound}",
		XFSJ_H_AG_HEADERS, 0),
	[AGH_AGF_CRC] = ROW("agf.crc", 0x020002, "AGF",
		"AGF of AG {ag}: CRC {xfound} does not match the contents ({xexpected})",
		XFSJ_H_AG_HEADERS, 0),
	[AGH_AGF_UUID] = ROW("agf.uuid", 0x020003, "AGF",
		"AGF of AG {ag}: uuid is not the filesystem's",
		XFSJ_H_AG_HEADERS, 0),
	[AGH_AGF_FIELD] = ROW("agf.field", 0x020004, "AGF",
		"AGF of AG {ag}: {field} is {found}, expected {expected}",
		XFSJ_H_AG_HEADERS, 0),
	[AGH_AGF_ROOT] = ROW("agf.root", 0x020005, "AGF",
		"AGF of AG {ag}: {field} {found} is not a block of the AG past its headers (AG size {expected})",
		XFSJ_H_AG_HEADERS, 0),
	[AGH_AGF_LEVEL] = ROW("agf.level", 0x020006, "AGF",
		"AGF of AG {ag}: {field} {found} is not in 1..{expected}",
		XFSJ_H_AG_HEADERS, 0),
	[AGH_AGF_FLIST] = ROW("agf.flist", 0x020007, "AGF",
		"AGF of AG {ag}: {field} {found} is past the AGFL's {expected} slots",
		XFSJ_H_AG_HEADERS, 0),
	[AGH_AGF_FLCOUNT] = ROW("agf.flcount", 0x020008, "AGF",
		"AGF of AG {ag}: flcount {found} does not match flfirst..fllast ({expected} entries)",
		XFSJ_H_AG_HEADERS, 0),
	[AGH_AGF_BOUND] = ROW("agf.bound", 0x020009, "AGF",
		"AGF of AG {ag}: {field} {found} exceeds {expected}",
		XFSJ_H_AG_HEADERS, XFSJ_T_COUNTER_BOUND),
	[AGH_AGI_MAGIC] = ROW("agi.magic", 0x020011, "AGI",
		"AGI of AG {ag}: bad magic number {xfound}",
		XFSJ_H_AG_HEADERS, XFSJ_T_AGI_HEADER),
	[AGH_AGI_CRC] = ROW("agi.crc", 0x020012, "AGI",
		"AGI of AG {ag}: CRC {xfound} does not match the contents ({xexpected})",
		XFSJ_H_AG_HEADERS, XFSJ_T_AGI_HEADER),
	[AGH_AGI_UUID] = ROW("agi.uuid", 0x020013, "AGI",
		"AGI of AG {ag}: uuid is not the filesystem's",
		XFSJ_H_AG_HEADERS, XFSJ_T_AGI_HEADER),
	[AGH_AGI_FIELD] = ROW("agi.field", 0x020014, "AGI",
		"AGI of AG {ag}: {field} is {found}, expected {expected}",
		XFSJ_H_AG_HEADERS, XFSJ_T_AGI_HEADER),
	[AGH_AGI_ROOT] = ROW("agi.root", 0x020015, "AGI",
		"AGI of AG {ag}: {field} {found} is not a block of the AG past its headers (AG size {expected})",
		XFSJ_H_AG_HEADERS, XFSJ_T_AGI_HEADER),
	[AGH_AGI_LEVEL] = ROW("agi.level", 0x020016, "AGI",
		"AGI of AG {ag}: {field} {found} is not in 1..{expected}",
		XFSJ_H_AG_HEADERS, XFSJ_T_AGI_HEADER),
	[AGH_AGI_BOUND] = ROW("agi.bound", 0x020017, "AGI",
		"AGI of AG {ag}: {field} {found} exceeds {expected}",
		XFSJ_H_AG_HEADERS, XFSJ_T_AGI_HEADER),
	[AGH_AGI_UNLINKED] = ROW("agi.unlinked", 0x020018, "AGI",
		"AGI of AG {ag}: unlinked bucket {off} holds {found}, not an inode of the AG",
		XFSJ_H_AG_HEADERS,
		XFSJ_T_UNLINKED_HEAD | XFSJ_T_AGI_HEADER),
	[AGH_AGI_BUCKET] = ROW("agi.unlinked_hash", 0x020019, "AGI",
		"AGI of AG {ag}: unlinked bucket {off} holds inode {found} of bucket {expected}",
		XFSJ_H_AG_HEADERS,
		XFSJ_T_UNLINKED_HEAD | XFSJ_T_AGI_HEADER),
	[AGH_AGFL_MAGIC] = ROW("agfl.magic", 0x020021, "AGFL",
		"AGFL of AG {ag}: bad magic number {xfound}",
		XFSJ_H_AG_HEADERS, 0),
	[AGH_AGFL_CRC] = ROW("agfl.crc", 0x020022, "AGFL",
		"AGFL of AG {ag}: CRC {xfound} does not match the contents ({xexpected})",
		XFSJ_H_AG_HEADERS, 0),
	[AGH_AGFL_UUID] = ROW("agfl.uuid", 0x020023, "AGFL",
		"AGFL of AG {ag}: uuid is not the filesystem's",
		XFSJ_H_AG_HEADERS, 0),
	[AGH_AGFL_FIELD] = ROW("agfl.field", 0x020024, "AGFL",
		"AGFL of AG {ag}: {field} is {found}, expected {expected}",
		XFSJ_H_AG_HEADERS, 0),
	[AGH_AGFL_SLOT] = ROW("agfl.slot", 0x020025, "AGFL",
		"AGFL of AG {ag}: slot {off} holds {found}, past the AG size {expected}",
		XFSJ_H_AG_HEADERS, 0),
	[AGH_AGFL_ENTRY] = ROW("agfl.entry", 0x020026, "AGFL",
		"AGFL of AG {ag}: live slot {off} holds {found}, not a free block of the AG past its headers",
		XFSJ_H_AG_HEADERS, 0),
	[AGH_AGFL_DUP] = ROW("agfl.dup", 0x020027, "AGFL",
		"AGFL of AG {ag}: block {found} is listed twice (slot {off})",
		XFSJ_H_AG_HEADERS, 0),
};
const struct xck_table xck_agh_table = { rows, AGH__N };

/* One header being checked. */
struct hdr {
	struct xck *ck;
	struct xck_ag *ag;
	int base;		/* its K_MAGIC row */
	uint8_t *buf;
	uint32_t first_ok;	/* the first block past the headers */
	bool ok;		/* nothing reported yet */
};

static void put(struct hdr *h, int row, unsigned int has, const char *field,
		uint64_t expected, uint64_t found, uint64_t off)
{
	h->ok = false;
	xck_report(h->ck, &(struct xfsj_problem){
		.def = &rows[row], .has = has | XFSJ_PF_AG | XFSJ_PF_FOUND,
		.agno = h->ag->agno, .field = field, .expected = expected,
		.found = found, .off = off });
}

/* Report @field unless it holds @want. */
static void want(struct hdr *h, const char *field, uint64_t want,
		 uint64_t found)
{
	if (want != found)
		put(h, h->base + K_FIELD, XFSJ_PF_EXPECTED, field, want, found,
		    0);
}

/* Magic, CRC and uuid: what every v5 header carries. */
static bool check_common(struct hdr *h, uint32_t magic, size_t uuid_off,
			 size_t crc_off)
{
	const struct xfsj_sb *sb = h->ck->sb;
	const uint8_t *uuid = (sb->features_incompat & XFSJ_INCOMPAT_META_UUID)
			      ? sb->meta_uuid : sb->uuid;
	uint32_t found = xfsj_get_be32(h->buf);
	uint32_t crc = xfsj_cksum(h->buf, sb->sectsize, crc_off);
	uint32_t stored = xfsj_get_le32(h->buf + crc_off);

	if (found != magic) {
		put(h, h->base + K_MAGIC, 0, "magicnum", 0, found, 0);
		return false;
	}
	if (crc != stored)
		put(h, h->base + K_CRC, XFSJ_PF_EXPECTED, "crc", crc, stored, 0);
	if (memcmp(h->buf + uuid_off, uuid, 16))
		put(h, h->base + K_UUID, 0, "uuid", 0, 0, 0);
	return true;
}

/* Version, AG number and size; returns whether nothing is wrong so far. */
static bool check_ids(struct hdr *h, uint32_t version, uint32_t seqno,
		      uint32_t length)
{
	want(h, "versionnum", 1, version);
	want(h, "seqno", h->ag->agno, seqno);
	want(h, "length", h->ag->agblocks, length);
	return h->ok;
}

/* A btree root: past the headers, inside the AG. */
static bool root_ok(struct hdr *h, const char *field, uint32_t agbno)
{
	if (agbno >= h->first_ok && agbno < h->ag->agblocks)
		return true;
	put(h, h->base + K_ROOT, XFSJ_PF_EXPECTED, field, h->ag->agblocks,
	    agbno, 0);
	return false;
}

static bool level_ok(struct hdr *h, const char *field, uint32_t level,
		     unsigned int max)
{
	if (level >= 1 && level <= max)
		return true;
	put(h, h->base + K_LEVEL, XFSJ_PF_EXPECTED, field, max, level, 0);
	return false;
}

static void bound(struct hdr *h, int row, const char *field, uint64_t v,
		  uint64_t max)
{
	if (v > max)
		put(h, row, XFSJ_PF_EXPECTED, field, max, v, 0);
}

/* A tree's block count: at least its root, at most the AG. */
static void tree_blocks(struct hdr *h, int row, const char *field,
			uint32_t n)
{
	if (!n)
		want(h, field, 1, 0);
	bound(h, row, field, n, h->ag->agblocks);
}

/* Read sector @sect of the AG's first block, as the replay left it. */
static int read_sector(struct xck *ck, uint32_t agno, unsigned int sect,
		       uint8_t *buf)
{
	const struct xfsj_sb *sb = ck->sb;
	uint64_t off = (xfsj_agb_to_daddr(sb, agno, 0) << 9) +
		       (uint64_t)sect * sb->sectsize;
	int err = xfsj_overlay_read(xfsj_fs_overlay(ck->fs), buf, sb->sectsize,
				    off);

	if (err)
		return xfsj_fault_set(&ck->res->fault, -err, "AG header",
				      "read", off, sb->sectsize);
	ck->res->work[XFSJ_WK_AGH]++;
	return 0;
}

/* ---- AGF ---- */

/* Returns whether the free list's ends and count can be walked. */
static bool check_agf(struct hdr *h, unsigned int flsize)
{
	const struct xfsj_sb *sb = h->ck->sb;
	struct xck_ag *ag = h->ag;
	struct xfsj_agf *agf = &ag->agf;
	bool rmap = sb->features_ro_compat & XFSJ_RO_COMPAT_RMAPBT;
	bool refl = sb->features_ro_compat & XFSJ_RO_COMPAT_REFLINK;
	unsigned int amax = xfsj_alloc_maxlevels(sb->blocksize, sb->agblocks);
	bool usable = true;
	uint32_t active;

	if (!check_common(h, XFSJ_AGF_MAGIC, XFSJ_AGF_OFF(uuid),
			  XFSJ_AGF_CRC_OFF))
		return false;
	xfsj_agf_decode(h->buf, agf);
	usable = check_ids(h, agf->versionnum, agf->seqno, agf->length);
	usable &= root_ok(h, "bno_root", agf->bno_root);
	usable &= root_ok(h, "cnt_root", agf->cnt_root);
	usable &= level_ok(h, "bno_level", agf->bno_level, amax);
	usable &= level_ok(h, "cnt_level", agf->cnt_level, amax);
	if (rmap) {
		usable &= root_ok(h, "rmap_root", agf->rmap_root);
		usable &= level_ok(h, "rmap_level", agf->rmap_level,
				   xfsj_rmap_maxlevels(sb->blocksize,
						       sb->agblocks, refl));
		tree_blocks(h, AGH_AGF_BOUND, "rmap_blocks",
			    agf->rmap_blocks);
	}
	if (refl) {
		usable &= root_ok(h, "refcount_root", agf->refcount_root);
		usable &= level_ok(h, "refcount_level", agf->refcount_level,
				   xfsj_refcount_maxlevels(sb->blocksize,
							   sb->agblocks));
		tree_blocks(h, AGH_AGF_BOUND, "refcount_blocks",
			    agf->refcount_blocks);
	}
	ag->agf_ok = usable;

	bound(h, AGH_AGF_BOUND, "freeblks", agf->freeblks, ag->agblocks);
	bound(h, AGH_AGF_BOUND, "longest", agf->longest, agf->freeblks);
	/* Free blocks make at least one free extent. */
	if (agf->freeblks && !agf->longest)
		want(h, "longest", 1, 0);
	bound(h, AGH_AGF_BOUND, "btreeblks", agf->btreeblks, ag->agblocks);
	if (agf->flfirst >= flsize || agf->fllast >= flsize ||
	    agf->flcount > flsize) {
		bound(h, AGH_AGF_FLIST, "flfirst", agf->flfirst, flsize - 1);
		bound(h, AGH_AGF_FLIST, "fllast", agf->fllast, flsize - 1);
		bound(h, AGH_AGF_FLIST, "flcount", agf->flcount, flsize);
		return false;
	}
	/* The kernel resets a list whose ends and count disagree. */
	if (!agf->flcount)
		active = 0;
	else if (agf->fllast >= agf->flfirst)
		active = agf->fllast - agf->flfirst + 1;
	else
		active = flsize - agf->flfirst + agf->fllast + 1;
	if (active != agf->flcount) {
		put(h, AGH_AGF_FLCOUNT, XFSJ_PF_EXPECTED, "flcount", active,
		    agf->flcount, 0);
		return false;
	}
	return true;
}

/* ---- AGI ---- */

/* The inode numbers an AG can hold (the kernel's xfs_agino_range). */
static void agino_range(const struct xck *ck, const struct xck_ag *ag,
			uint32_t first_ok, uint32_t *first, uint32_t *last)
{
	const struct xfsj_sb *sb = ck->sb;
	uint32_t per_cluster = (8192 * (sb->inodesize / 256)) >> sb->blocklog;
	uint32_t align = 1, lo, hi;

	if ((sb->versionnum & XFSJ_SB_VERSION_ALIGNBIT) &&
	    sb->inoalignmt >= (per_cluster ? per_cluster : 1))
		align = sb->inoalignmt;
	lo = (first_ok + align - 1) / align * align;
	hi = ag->agblocks / align * align;
	*first = lo << sb->inopblog;
	*last = hi > lo ? (hi << sb->inopblog) - 1 : 0;
}

static void check_unlinked(struct hdr *h)
{
	const struct xfsj_agi *agi = &h->ag->agi;
	uint32_t first, last;
	unsigned int i;

	agino_range(h->ck, h->ag, h->first_ok, &first, &last);
	for (i = 0; i < XFSJ_AGI_UNLINKED_BUCKETS; i++) {
		uint32_t v = agi->unlinked[i];

		if (v == XFSJ_NULLAGINO)
			continue;
		if (v < first || v > last)
			put(h, AGH_AGI_UNLINKED, XFSJ_PF_OFF, NULL, 0, v, i);
		/* Removal finds an inode's list by its number alone. */
		else if (v % XFSJ_AGI_UNLINKED_BUCKETS != i)
			put(h, AGH_AGI_BUCKET, XFSJ_PF_OFF | XFSJ_PF_EXPECTED,
			    NULL, v % XFSJ_AGI_UNLINKED_BUCKETS, v, i);
	}
}

/*
 * agi_count: no more inodes than the AG's blocks hold, and whole
 * allocation units (a chunk of 64, or with sparse inodes the sparse
 * alignment's worth, the least the kernel allocates or frees at once).
 */
static void check_icount(struct hdr *h)
{
	const struct xfsj_sb *sb = h->ck->sb;
	const struct xfsj_agi *agi = &h->ag->agi;
	uint64_t max = (uint64_t)h->ag->agblocks << sb->inopblog;
	uint32_t unit = XFSJ_INODES_PER_CHUNK;

	if ((sb->features_incompat & XFSJ_INCOMPAT_SPINODES) &&
	    sb->spino_align &&
	    ((uint64_t)sb->spino_align << sb->inopblog) < unit)
		unit = sb->spino_align << sb->inopblog;
	bound(h, AGH_AGI_BOUND, "count", agi->count, max);
	if (agi->count % unit)
		want(h, "count", agi->count / unit * unit, agi->count);
}

static void check_agi(struct hdr *h)
{
	const struct xfsj_sb *sb = h->ck->sb;
	struct xck_ag *ag = h->ag;
	struct xfsj_agi *agi = &ag->agi;
	unsigned int imax = xfsj_inobt_maxlevels(sb->blocksize, sb->inodesize,
						 sb->agblocks);
	bool usable;

	if (!check_common(h, XFSJ_AGI_MAGIC, XFSJ_AGI_OFF(uuid),
			  XFSJ_AGI_CRC_OFF))
		return;
	xfsj_agi_decode(h->buf, agi);
	usable = check_ids(h, agi->versionnum, agi->seqno, agi->length);
	usable &= root_ok(h, "root", agi->root);
	usable &= level_ok(h, "level", agi->level, imax);
	if (sb->features_ro_compat & XFSJ_RO_COMPAT_FINOBT) {
		usable &= root_ok(h, "free_root", agi->free_root);
		usable &= level_ok(h, "free_level", agi->free_level, imax);
	}
	ag->agi_ok = usable;
	bound(h, AGH_AGI_BOUND, "freecount", agi->freecount, agi->count);
	check_icount(h);
	if (sb->features_ro_compat & XFSJ_RO_COMPAT_INOBTCNT) {
		tree_blocks(h, AGH_AGI_BOUND, "iblocks", agi->iblocks);
		if (sb->features_ro_compat & XFSJ_RO_COMPAT_FINOBT)
			tree_blocks(h, AGH_AGI_BOUND, "fblocks",
				    agi->fblocks);
	}
	check_unlinked(h);
}

/* ---- AGFL ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Keep the live entries that are good blocks of the AG, in list order; a
 * block listed again is reported once, with the slot of its second
 * listing (the keys sorted are block << 32 | slot).
 */
static int collect_agfl(struct hdr *h, const uint32_t *bno,
			unsigned int flsize)
{
	struct xck_ag *ag = h->ag;
	uint64_t *sorted;
	uint32_t i, k, n = 0;

	ag->agfl = malloc(flsize * sizeof(*ag->agfl));
	sorted = malloc(flsize * sizeof(*sorted));
	if (!ag->agfl || !sorted) {
		free(sorted);
		return -XFSJ_E_NOMEM;
	}
	for (i = 0, k = ag->agf.flfirst; i < ag->agf.flcount;
	     i++, k = (k + 1) % flsize) {
		if (bno[k] < h->first_ok || bno[k] >= ag->agblocks) {
			put(h, AGH_AGFL_ENTRY, XFSJ_PF_OFF, NULL, 0, bno[k], k);
			continue;
		}
		ag->agfl[ag->agfl_n++] = bno[k];
		sorted[n++] = (uint64_t)bno[k] << 32 | k;
	}
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	for (i = 1; i < n; i++)
		if (sorted[i] >> 32 == sorted[i - 1] >> 32 &&
		    (i < 2 || sorted[i - 2] >> 32 != sorted[i] >> 32))
			put(h, AGH_AGFL_DUP, XFSJ_PF_OFF, NULL, 0,
			    sorted[i] >> 32, (uint32_t)sorted[i]);
	free(sorted);
	return 0;
}

static int check_agfl(struct hdr *h, unsigned int flsize, bool list_ok)
{
	const struct xfsj_sb *sb = h->ck->sb;
	struct xck_ag *ag = h->ag;
	uint32_t *bno;
	struct xfsj_agfl_hdr hdr;
	unsigned int i;
	int err;

	if (!check_common(h, XFSJ_AGFL_MAGIC, offsetof(struct xfsj_agfl_hdr_raw, uuid),
			  XFSJ_AGFL_CRC_OFF))
		return 0;
	bno = malloc(flsize * sizeof(*bno));
	if (!bno)
		return -XFSJ_E_NOMEM;
	xfsj_agfl_decode(h->buf, sb->sectsize, &hdr, bno);
	want(h, "seqno", ag->agno, hdr.seqno);
	/* The kernel's verifier: every slot, live or not. */
	for (i = 0; i < flsize; i++)
		if (bno[i] != XFSJ_NULLAGBLOCK && bno[i] >= sb->agblocks)
			put(h, AGH_AGFL_SLOT, XFSJ_PF_OFF | XFSJ_PF_EXPECTED,
			    NULL, sb->agblocks, bno[i], i);
	ag->agfl_ok = h->ok && list_ok;
	err = list_ok ? collect_agfl(h, bno, flsize) : 0;
	free(bno);
	return err;
}

/* ---- claims ---- */

static int claim_fixed(struct xck *ck, struct xck_ag *ag, uint32_t hdrblocks)
{
	const struct xfsj_sb *sb = ck->sb;
	uint32_t i;
	int err;

	err = xck_claim(ck, ag->agno, 0, hdrblocks, XFSJ_RMAP_OWN_FS, 0);
	for (i = 0; !err && ag->agfl_ok && i < ag->agfl_n; i++)
		err = xck_claim(ck, ag->agno, ag->agfl[i], 1,
				XFSJ_RMAP_OWN_AG, 0);
	if (!err && sb->logstart && xfsj_fsb_agno(sb, sb->logstart) ==
	    ag->agno) {
		uint32_t start = xfsj_fsb_agbno(sb, sb->logstart);

		/* (a log over the headers is the superblock's problem) */
		if (start >= hdrblocks && start < ag->agblocks)
			err = xck_claim(ck, ag->agno, start,
					sb->logblocks < ag->agblocks - start ?
					sb->logblocks : ag->agblocks - start,
					XFSJ_RMAP_OWN_LOG, 0);
	}
	return err;
}

int xck_ag_headers(struct xck *ck, struct xck_ag *ag)
{
	const struct xfsj_sb *sb = ck->sb;
	unsigned int flsize = xfsj_agfl_size(sb->sectsize);
	uint32_t hdrblocks = xfsj_ag_hdr_blocks(sb->sectsize, sb->blocklog);
	struct hdr h = { .ck = ck, .ag = ag, .ok = true,
			 /* the kernel's xfs_verify_agbno: past the AGFL */
			 .first_ok = hdrblocks };
	bool list_ok;
	int err;

	h.buf = malloc(sb->sectsize);
	if (!h.buf)
		return -XFSJ_E_NOMEM;

	err = read_sector(ck, ag->agno, 1, h.buf);
	if (err)
		goto out;
	h.base = AGH_AGF_MAGIC;
	list_ok = check_agf(&h, flsize);

	err = read_sector(ck, ag->agno, 2, h.buf);
	if (err)
		goto out;
	h.base = AGH_AGI_MAGIC;
	h.ok = true;
	check_agi(&h);

	err = read_sector(ck, ag->agno, 3, h.buf);
	if (err)
		goto out;
	h.base = AGH_AGFL_MAGIC;
	h.ok = true;
	err = check_agfl(&h, flsize, list_ok && ag->agf_ok);
	if (!err)
		err = claim_fixed(ck, ag, hdrblocks);
out:
	free(h.buf);
	return err;
}
