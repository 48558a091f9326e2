/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Phase 01, the superblocks: the primary (sector 0 as the replay left it)
 * and the secondary at the start of every other AG.
 *
 * Each superblock is checked on its own by the rules of sb_rules.c (the
 * kernel's superblock verifier and xfs_repair's phase 1), then every
 * secondary is compared with the primary on the fields mkfs sets once and
 * nothing changes afterwards.  A field in which the primary disagrees with
 * most secondaries, and they agree with each other, is blamed on the
 * primary (one report); otherwise each secondary that differs is reported.
 *
 * What this version cannot check is refused with -XFSJ_E_UNSUPP and
 * res->fault naming it, once the secondaries confirm the primary (a bit
 * only the primary has is corruption, not a feature):
 *   - feature bits it does not know (compat, ro_compat, incompat,
 *     log_incompat; the replay already refuses unknown incompat and
 *     log_incompat bits);
 *   - a realtime device (rblocks, rextents: the rt bitmap, summary and
 *     rt extents are not checked);
 *   - the metadata directory tree (metadir).
 * Quota is accepted: the quota inodes the flags enable must be in-use
 * regular files; the dquots inside them are not checked, which an INFO
 * row says on every run that has them.
 *
 * When the primary's geometry is wrong (the sizes, logs and counts every
 * later phase computes addresses with), the check ends after this phase
 * (ck->stop), as xfs_repair -n stops when the primary would change.
 */
#include <stdlib.h>
#include <string.h>

#include "check/sb_rules.h"
#include "core/overlay.h"
#include "fs/iget.h"

static const struct xfsj_problem_def rows[SBR__N] = {
	[SBR_P_MAGIC] = { "sb.primary.magic", 0x010001, XFSJ_SEV_CORRUPT,
		"superblock", "primary superblock: bad magic number {xfound}",
		XFSJ_FIX_SB_FROM_SECONDARY,
		XFSJ_H_SB_SECONDARY, 0 },
	[SBR_P_CRC] = { "sb.primary.crc", 0x010002, XFSJ_SEV_CORRUPT,
		"superblock",
		"primary superblock: CRC {xfound} does not match the contents ({xexpected})",
		XFSJ_FIX_SB_FROM_SECONDARY,
		XFSJ_H_SB_SECONDARY, 0 },
	[SBR_P_INVALID] = { "sb.primary.invalid", 0x010003, XFSJ_SEV_CORRUPT,
		"superblock", "primary superblock: {field} {found} is invalid",
		XFSJ_FIX_SB_FROM_SECONDARY,
		XFSJ_H_SB_SECONDARY, 0 },
	[SBR_P_MISMATCH] = { "sb.primary.mismatch", 0x010004,
		XFSJ_SEV_CORRUPT, "superblock",
		"primary superblock: {field} is {found}, expected {expected}",
		XFSJ_FIX_SB_FROM_SECONDARY,
		XFSJ_H_SB_SECONDARY, 0 },
	[SBR_P_GARBAGE] = { "sb.primary.garbage", 0x010005, XFSJ_SEV_CORRUPT,
		"superblock",
		"primary superblock: nonzero bytes after the last field, first at byte {off}",
		XFSJ_FIX_SB_FROM_SECONDARY,
		XFSJ_H_SB_SECONDARY, 0 },
	[SBR_P_DBLOCKS] = { "sb.primary.dblocks", 0x010006, XFSJ_SEV_CORRUPT,
		"superblock",
		"primary superblock: dblocks {found} does not fit {count} AGs of {expected} blocks",
		XFSJ_FIX_SB_FROM_SECONDARY,
		XFSJ_H_SB_SECONDARY, 0 },
	[SBR_P_DIFFERS] = { "sb.primary.differs", 0x010007, XFSJ_SEV_CORRUPT,
		"superblock",
		"primary superblock: {field} is {found}, but {count} secondaries agree on {expected}",
		XFSJ_FIX_SB_FROM_SECONDARY,
		XFSJ_H_SB_SECONDARY, 0 },
	[SBR_P_DEVSIZE] = { "sb.primary.devsize", 0x010008, XFSJ_SEV_CORRUPT,
		"superblock",
		"primary superblock: the filesystem ends at byte {found}, past the end of the device ({expected})",
		XFSJ_FIX_SB_FROM_SECONDARY,
		XFSJ_H_SB_SECONDARY, 0 },
	[SBR_P_QUOTINO] = { "sb.primary.quotino", 0x010009, XFSJ_SEV_CORRUPT,
		"superblock",
		"primary superblock: {field} {ino} is not an in-use regular file",
		XFSJ_FIX_FIELD,
		XFSJ_H_SB_QUOTINO, 0 },
	[SBR_P_NEEDSREPAIR] = { "sb.primary.needsrepair", 0x01000a,
		XFSJ_SEV_CORRUPT, "superblock",
		"primary superblock: the needs-repair flag is set (a repair did not finish)",
		XFSJ_FIX_FIELD,
		XFSJ_H_SB_NEEDSREPAIR, 0 },
	[SBR_P_ELSEWHERE] = { "sb.primary.elsewhere", 0x01000b,
		XFSJ_SEV_CORRUPT, "superblock",
		"primary superblock: no secondary holds up where its AG size ({found} blocks) puts them, but the one at byte {off} says {expected}",
		XFSJ_FIX_SB_FROM_SECONDARY,
		XFSJ_H_SB_SECONDARY, 0 },
	[SBR_P_UUID] = { "sb.primary.uuid", 0x01000c, XFSJ_SEV_CORRUPT,
		"superblock",
		"primary superblock: its uuid is not the one {count} secondaries agree on (the log and the metadata are stamped with theirs)",
		XFSJ_FIX_SB_FROM_SECONDARY,
		XFSJ_H_SB_SECONDARY, 0 },
	[SBR_P_MKFS_UNFINISHED] = { "sb.primary.mkfs_unfinished", 0x01000d,
		XFSJ_SEV_CORRUPT, "superblock",
		"primary superblock: the needs-repair flag and sb_inprogress are set: a mkfs -p did not finish (files may be missing or half copied)",
		XFSJ_FIX_SB_FROM_SECONDARY,
		XFSJ_H_SB_SECONDARY, 0 },
	[SBR_S_MAGIC] = { "sb.secondary.magic", 0x010011, XFSJ_SEV_CORRUPT,
		"superblock", "superblock of AG {ag}: bad magic number {xfound}",
		XFSJ_FIX_AG_HEADER,
		XFSJ_H_SB_COPIES, 0 },
	[SBR_S_CRC] = { "sb.secondary.crc", 0x010012, XFSJ_SEV_CORRUPT,
		"superblock",
		"superblock of AG {ag}: CRC {xfound} does not match the contents ({xexpected})",
		XFSJ_FIX_AG_HEADER,
		XFSJ_H_SB_COPIES, 0 },
	[SBR_S_INVALID] = { "sb.secondary.invalid", 0x010013,
		XFSJ_SEV_CORRUPT, "superblock",
		"superblock of AG {ag}: {field} {found} is invalid",
		XFSJ_FIX_AG_HEADER,
		XFSJ_H_SB_COPIES, 0 },
	[SBR_S_MISMATCH] = { "sb.secondary.mismatch", 0x010014,
		XFSJ_SEV_CORRUPT, "superblock",
		"superblock of AG {ag}: {field} is {found}, expected {expected}",
		XFSJ_FIX_AG_HEADER,
		XFSJ_H_SB_COPIES, 0 },
	[SBR_S_GARBAGE] = { "sb.secondary.garbage", 0x010015,
		XFSJ_SEV_CORRUPT, "superblock",
		"superblock of AG {ag}: nonzero bytes after the last field, first at byte {off}",
		XFSJ_FIX_AG_HEADER,
		XFSJ_H_SB_COPIES, 0 },
	[SBR_S_DBLOCKS] = { "sb.secondary.dblocks", 0x010016,
		XFSJ_SEV_CORRUPT, "superblock",
		"superblock of AG {ag}: dblocks {found} does not fit {count} AGs of {expected} blocks",
		XFSJ_FIX_AG_HEADER,
		XFSJ_H_SB_COPIES, 0 },
	[SBR_S_DIFFERS] = { "sb.secondary.differs", 0x010017,
		XFSJ_SEV_CORRUPT, "superblock",
		"superblock of AG {ag}: {field} is {found}, the primary has {expected}",
		XFSJ_FIX_AG_HEADER,
		XFSJ_H_SB_COPIES, 0 },
	[SBR_S_PASTEND] = { "sb.secondary.pastend", 0x010018,
		XFSJ_SEV_CORRUPT, "superblock",
		"superblock of AG {ag} lies past the end of the device (byte {found})",
		XFSJ_FIX_SB_FROM_SECONDARY,
		XFSJ_H_SB_SECONDARY, 0 },
	[SBR_UNCHECKED] = { "sb.unchecked", 0x010020, XFSJ_SEV_INFO,
		"superblock",
		"{field} in use: this version does not check it",
		XFSJ_FIX_NONE,
		XFSJ_H_NONE, 0 },
};
const struct xck_table xck_sb_table = { rows, SBR__N };

void xck_sb_report(struct sb_one *s, enum sb_kind kind, unsigned int has,
		   const char *field, uint64_t expected, uint64_t found,
		   uint64_t count)
{
	int row = (s->agno ? SBR_S_MAGIC : SBR_P_MAGIC) + (int)kind;

	s->nbad++;
	xck_report(s->ck, &(struct xfsj_problem){
		.def = &rows[row],
		.has = has | XFSJ_PF_AG | XFSJ_PF_FOUND, .agno = s->agno,
		.field = field, .expected = expected, .found = found,
		.count = count, .off = count });
}

static void report(struct xck *ck, int row, unsigned int has, uint32_t agno,
		   const char *field, uint64_t expected, uint64_t found,
		   uint64_t count)
{
	xck_report(ck, &(struct xfsj_problem){
		.def = &rows[row], .has = has | XFSJ_PF_AG, .agno = agno,
		.field = field, .expected = expected, .found = found,
		.count = count, .ino = found });
}

/* ---- the secondaries against the primary ---- */

/*
 * Fields mkfs writes into every superblock and the kernel never changes
 * afterwards (growfs rewrites the secondaries from the primary): xfs_repair
 * compares the first group; the rest (marked) are ours, for the same
 * reason: a secondary a repair would copy must hold the filesystem's
 * geometry.  The attr and quota bits of versionnum, the counters, the quota fields,
 * imax_pct, unit and width (mount options change them in the primary
 * only), the log_incompat bits (set at run time in the primary only) and
 * the uuid (xfs_repair leaves it) are not compared.
 */
enum {
	CMP_GEOMETRY = 1 << 0,	/* the later phases compute with it */
	CMP_FEATURE = 1 << 1,	/* says what this version may refuse */
};

struct sb_cmp {
	const char *name;
	uint64_t (*get)(const struct xfsj_sb *sb);
	unsigned int flags;	/* CMP_* */
};

#define GET(f) static uint64_t get_##f(const struct xfsj_sb *sb) \
	{ return sb->f; }
GET(blocksize) GET(dblocks) GET(rblocks) GET(rextents) GET(logstart)
GET(rextsize) GET(agblocks) GET(agcount) GET(rbmblocks) GET(logblocks)
GET(sectsize) GET(inodesize) GET(features2) GET(features_compat)
GET(features_ro_compat) GET(dirblklog)
GET(inoalignmt) GET(spino_align) GET(logsectsize)
#undef GET

/* The needs-repair flag is the primary's alone (a repair sets it). */
static uint64_t get_features_incompat(const struct xfsj_sb *sb)
{
	return sb->features_incompat & ~XFSJ_INCOMPAT_NEEDSREPAIR;
}

/* 0 and 1 both say "no log stripe unit". */
static uint64_t get_logsunit(const struct xfsj_sb *sb)
{
	return sb->logsunit > 1 ? sb->logsunit : 1;
}

/* The bits mkfs sets; the kernel adds the attr and quota bits later. */
static uint64_t get_versionnum(const struct xfsj_sb *sb)
{
	return sb->versionnum & (XFSJ_SB_VERSION_NUMBITS |
		XFSJ_SB_VERSION_ALIGNBIT | XFSJ_SB_VERSION_DALIGNBIT |
		XFSJ_SB_VERSION_LOGV2BIT | XFSJ_SB_VERSION_SECTORBIT |
		XFSJ_SB_VERSION_EXTFLGBIT | XFSJ_SB_VERSION_DIRV2BIT |
		XFSJ_SB_VERSION_MOREBITSBIT);
}

static const struct sb_cmp cmp_fields[] = {
	{ "blocksize", get_blocksize, CMP_GEOMETRY },
	{ "dblocks", get_dblocks, CMP_GEOMETRY },
	{ "rblocks", get_rblocks, CMP_FEATURE },
	{ "rextents", get_rextents, CMP_FEATURE },
	{ "logstart", get_logstart, CMP_GEOMETRY },
	{ "rextsize", get_rextsize, 0 },
	{ "agblocks", get_agblocks, CMP_GEOMETRY },
	{ "agcount", get_agcount, CMP_GEOMETRY },
	{ "rbmblocks", get_rbmblocks, 0 },
	{ "logblocks", get_logblocks, CMP_GEOMETRY },
	{ "sectsize", get_sectsize, CMP_GEOMETRY },
	{ "inodesize", get_inodesize, CMP_GEOMETRY },
	{ "versionnum", get_versionnum, CMP_GEOMETRY },
	{ "features2", get_features2, CMP_GEOMETRY },
	{ "features_compat", get_features_compat, CMP_FEATURE },
	{ "features_ro_compat", get_features_ro_compat,
	  CMP_GEOMETRY | CMP_FEATURE },
	{ "features_incompat", get_features_incompat,
	  CMP_GEOMETRY | CMP_FEATURE },
	/* ours */
	{ "dirblklog", get_dirblklog, CMP_GEOMETRY },
	{ "inoalignmt", get_inoalignmt, 0 },
	{ "spino_align", get_spino_align, 0 },
	{ "logsectsize", get_logsectsize, 0 },
	{ "logsunit", get_logsunit, 0 },
};
#define NCMP (sizeof(cmp_fields) / sizeof(cmp_fields[0]))

struct secondaries {
	struct xfsj_sb *sb;	/* decoded, for each AG 1.. (index agno) */
	bool *usable;		/* magic and CRC good */
	uint32_t n;		/* AGs read, the primary's slot included */
};

/*
 * The value a majority of the usable secondaries hold for field @c, if
 * any (Boyer and Moore's vote: one pass for a candidate, one to count
 * it), and how many hold it; *votes is 0 when there is no majority.
 */
static uint64_t consensus(const struct secondaries *sec,
			  const struct sb_cmp *c, uint32_t *votes)
{
	uint64_t cand = 0;
	uint32_t i, n = 0, usable = 0;

	for (i = 1; i < sec->n; i++) {
		if (!sec->usable[i])
			continue;
		usable++;
		if (!n)
			cand = c->get(&sec->sb[i]);
		if (c->get(&sec->sb[i]) == cand)
			n++;
		else
			n--;
	}
	for (i = 1, n = 0; i < sec->n; i++)
		n += sec->usable[i] && c->get(&sec->sb[i]) == cand;
	*votes = n * 2 > usable ? n : 0;
	return cand;
}

/* Returns the CMP_* flags of the fields blamed on the primary. */
/*
 * The uuid: xfs_db and xfs_admin write it into every superblock, so a
 * primary alone with another one (and no secondary with its) is damaged,
 * and everything stamped with the filesystem's uuid would look foreign
 * to it: the geometry is blamed, nothing further is checked.
 */
static unsigned int compare_uuid(struct xck *ck, const struct xfsj_sb *p,
				 const struct secondaries *sec)
{
	const uint8_t *other = NULL;
	uint32_t i, agree = 0;

	for (i = 1; i < sec->n; i++) {
		const uint8_t *u = sec->sb[i].uuid;

		if (!sec->usable[i])
			continue;
		if (!memcmp(u, p->uuid, sizeof(p->uuid)))
			return 0;
		if (!other)
			other = u;
		if (!memcmp(u, other, sizeof(p->uuid)))
			agree++;
	}
	if (agree < 2)
		return 0;
	report(ck, SBR_P_UUID, XFSJ_PF_COUNT, 0, "uuid", 0, 0, agree);
	return CMP_GEOMETRY;
}

static unsigned int compare_secondaries(struct xck *ck,
					const struct xfsj_sb *p,
					const struct secondaries *sec)
{
	unsigned int blamed = 0;
	uint32_t i;
	size_t k;

	for (k = 0; k < NCMP; k++) {
		const struct sb_cmp *c = &cmp_fields[k];
		uint64_t pv = c->get(p), cv;
		uint32_t votes;

		cv = consensus(sec, c, &votes);
		/*
		 * Most secondaries agree on another value (with a single
		 * secondary, it alone cannot outvote the primary).
		 */
		if (votes >= 2 && cv != pv) {
			report(ck, SBR_P_DIFFERS, XFSJ_PF_EXPECTED |
			       XFSJ_PF_FOUND | XFSJ_PF_COUNT, 0, c->name, cv,
			       pv, votes);
			blamed |= c->flags;
			continue;
		}
		for (i = 1; i < sec->n; i++)
			if (sec->usable[i] && c->get(&sec->sb[i]) != pv)
				report(ck, SBR_S_DIFFERS, XFSJ_PF_EXPECTED |
				       XFSJ_PF_FOUND, i, c->name, pv,
				       c->get(&sec->sb[i]), 0);
	}
	return blamed | compare_uuid(ck, p, sec);
}

/* Read @len bytes at byte @off as the replay left them. */
static int read_raw(struct xck *ck, void *buf, size_t len, uint64_t off)
{
	return xfsj_overlay_read(xfsj_fs_overlay(ck->fs), buf, len, off);
}

static int check_secondaries(struct xck *ck, const struct xfsj_sb *p,
			     uint8_t *buf, uint32_t sectsize,
			     struct secondaries *sec)
{
	uint64_t devsize = xfsj_overlay_dev_size(xfsj_fs_overlay(ck->fs));
	uint32_t agno;
	int err;

	for (agno = 1; agno < sec->n; agno++) {
		uint64_t off = (uint64_t)agno * p->agblocks << p->blocklog;
		struct sb_one s = { .ck = ck, .agno = agno, .buf = buf,
				    .len = sectsize };

		if (off + sectsize > devsize) {
			report(ck, SBR_S_PASTEND, XFSJ_PF_FOUND, agno, NULL,
			       0, off, 0);
			continue;
		}
		err = read_raw(ck, buf, sectsize, off);
		if (err)
			return xfsj_fault_set(&ck->res->fault, -err,
					      "superblock", "read", off,
					      sectsize);
		ck->res->work[XFSJ_WK_SB]++;
		xfsj_sb_decode(buf, &sec->sb[agno]);
		s.sb = sec->sb[agno];
		sec->usable[agno] = xck_sb_rules(&s, p);
	}
	return 0;
}

/*
 * Does the primary place the secondaries where not one holds up, while a
 * search of the device finds one that lays the filesystem out otherwise?
 * Then the primary's geometry is what is wrong, not every secondary (and
 * nothing is to be written where it puts them).  Returns 1 (reported), 0,
 * or -XFSJ_E_NOMEM.
 */
static int misplaced(struct xck *ck, const struct xfsj_sb *p,
		     uint64_t devsize)
{
	struct xfsj_overlay *ov = xfsj_fs_overlay(ck->fs);
	uint32_t n = xck_sb_ags_to_read(p, devsize);
	uint8_t *sect = malloc(XCK_SB_BUFLEN);
	struct xfsj_sb sb;
	uint64_t where;
	int found;

	if (!sect)
		return -XFSJ_E_NOMEM;
	for (uint32_t agno = 1; agno < n; agno++) {
		if (xck_sb_read_at(ov, (uint64_t)agno * p->agblocks <<
				   p->blocklog, sect, XCK_SB_BUFLEN, &sb)) {
			free(sect);
			return 0;
		}
	}
	free(sect);
	if (n < 2)
		return 0;
	found = xck_sb_find_secondary(ov, &sb, &where);
	if (found <= 0)
		return found;
	if (sb.agblocks == p->agblocks && sb.blocklog == p->blocklog)
		return 0;
	xck_report(ck, &(struct xfsj_problem){
		.def = &rows[SBR_P_ELSEWHERE],
		.has = XFSJ_PF_FOUND | XFSJ_PF_EXPECTED | XFSJ_PF_OFF,
		.found = p->agblocks, .expected = sb.agblocks, .off = where });
	return 1;
}

/* ---- what this version refuses ---- */

static int refuse(struct xck *ck, const char *field, uint64_t value)
{
	return xfsj_fault_set(&ck->res->fault, XFSJ_E_UNSUPP, "superblock",
			      field, (uint64_t)xfsj_layout_offset(
				      &xfsj_sb_layout, field) , value);
}

/*
 * A feature the primary has and this version cannot check, confirmed by
 * the secondaries (or the only superblock there is).
 */
static int refuse_unsupported(struct xck *ck, const struct xfsj_sb *p)
{
	if (p->features_compat)
		return refuse(ck, "features_compat", p->features_compat);
	if (p->features_ro_compat & ~XFSJ_RO_COMPAT_ALL)
		return refuse(ck, "features_ro_compat",
			      p->features_ro_compat);
	if (p->features_incompat & ~XFSJ_INCOMPAT_ALL)
		return refuse(ck, "features_incompat", p->features_incompat);
	if (p->features_log_incompat & ~XFSJ_LOG_INCOMPAT_XATTRS)
		return refuse(ck, "features_log_incompat",
			      p->features_log_incompat);
	if (p->features_incompat & XFSJ_INCOMPAT_METADIR)
		return refuse(ck, "features_incompat", XFSJ_INCOMPAT_METADIR);
	if (p->rblocks || p->rextents)
		return refuse(ck, "rblocks", p->rblocks);
	return 0;
}

/* ---- quota inodes ---- */

/* Returns whether the quota inode in @field is enabled and in use. */
static bool check_quotino(struct xck *ck, const char *field, uint64_t ino,
			  bool enabled)
{
	struct xfsj_fault f = { 0 };
	struct xfsj_iref ip;

	if (!enabled || ino == 0 || ino == XFSJ_NULLFSINO)
		return false;
	if (xck_sb_ino_valid(ck->sb, ino) &&
	    xfsj_iget_used(ck->fs, ino, &ip, &f) == 0 &&
	    (ip.di.mode & 0170000) == 0100000)
		return true;
	report(ck, SBR_P_QUOTINO, XFSJ_PF_INO, 0, field, 0, ino, 0);
	return false;
}

static void check_quota(struct xck *ck, const struct xfsj_sb *p)
{
	bool used = false;

	used |= check_quotino(ck, "uquotino", p->uquotino,
			      p->qflags & XFSJ_QFLAG_UQUOTA_ACCT);
	used |= check_quotino(ck, "gquotino", p->gquotino,
			      p->qflags & XFSJ_QFLAG_GQUOTA_ACCT);
	used |= check_quotino(ck, "pquotino", p->pquotino,
			      p->qflags & XFSJ_QFLAG_PQUOTA_ACCT);
	if (used)
		report(ck, SBR_UNCHECKED, 0, 0, "quota (the dquots)", 0, 0, 0);
}

int xck_sb(struct xck *ck)
{
	const struct xfsj_sb *p = ck->sb;
	uint64_t devsize = xfsj_overlay_dev_size(xfsj_fs_overlay(ck->fs));
	uint32_t sectsize = xck_sb_sane_sectsize(p);
	struct secondaries sec = { 0 };
	struct sb_one s = { .ck = ck, .agno = 0, .sb = *p };
	unsigned int blamed = 0;
	uint8_t *buf;
	int err;

	buf = malloc(sectsize);
	if (!buf)
		return -XFSJ_E_NOMEM;
	err = read_raw(ck, buf, sectsize, 0);
	if (err) {
		free(buf);
		return xfsj_fault_set(&ck->res->fault, -err, "superblock",
				      "read", 0, sectsize);
	}
	ck->res->work[XFSJ_WK_SB]++;
	s.buf = buf;
	s.len = sectsize;
	/* As on disk: the replay's copy may hold the CRC it replaced. */
	xfsj_sb_decode(buf, &s.sb);
	ck->primary = s.sb;
	p = &s.sb;
	/*
	 * Where the flag came from: with sb_inprogress, an unfinished mkfs
	 * (xfsj-mkfs -p sets both while it copies); else a repair.  First,
	 * so that it is what a preen that stops names.
	 */
	if (p->magicnum == XFSJ_SB_MAGIC &&
	    (p->features_incompat & XFSJ_INCOMPAT_NEEDSREPAIR))
		report(ck, p->inprogress ? SBR_P_MKFS_UNFINISHED :
		       SBR_P_NEEDSREPAIR, 0, 0, NULL, 0, 0, 0);
	xck_sb_rules(&s, NULL);
	xck_sb_primary_rules(&s);
	if (!s.geom_bad && p->dblocks > devsize >> p->blocklog) {
		report(ck, SBR_P_DEVSIZE, XFSJ_PF_EXPECTED | XFSJ_PF_FOUND, 0,
		       NULL, devsize, p->dblocks << p->blocklog, 0);
		s.nbad++;
		s.geom_bad = true;
	}

	/* The secondaries, when the primary can say where they are. */
	if (xfsj_sb_can_locate(p)) {
		err = misplaced(ck, p, devsize);
		if (err < 0)
			goto out;
		if (err) {
			err = 0;
			s.geom_bad = true;
			ck->stop = true;
			goto out;
		}
		sec.n = xck_sb_ags_to_read(p, devsize);
		sec.sb = calloc(sec.n, sizeof(*sec.sb));
		sec.usable = calloc(sec.n, sizeof(*sec.usable));
		if (!sec.sb || !sec.usable) {
			err = -XFSJ_E_NOMEM;
			goto out;
		}
		err = check_secondaries(ck, p, buf, sectsize, &sec);
		if (err)
			goto out;
		blamed = compare_secondaries(ck, p, &sec);
		if (blamed & CMP_GEOMETRY)
			s.geom_bad = true;
	} else {
		s.geom_bad = true;
	}
	if (s.geom_bad) {
		ck->stop = true;
		goto out;
	}
	/*
	 * The secondaries confirm the primary's features: refuse what this
	 * version cannot check.
	 */
	if (!(blamed & CMP_FEATURE)) {
		err = refuse_unsupported(ck, p);
		if (err)
			goto out;
	}
	check_quota(ck, p);
out:
	free(sec.sb);
	free(sec.usable);
	free(buf);
	return err;
}

int xfsj_check_superblocks(struct xfsj_io *io, const struct xfsj_check_cb *cb,
			   struct xfsj_check_result *res)
{
	struct xfsj_overlay *ov = NULL;
	struct xfsj_fs *fs = NULL;
	uint8_t sect[XFSJ_SB_DISK_SIZE];
	struct xfsj_sb sb;
	struct xck ck = { .cb = cb, .res = res };
	int err;

	memset(res, 0, sizeof(*res));
	err = xfsj_overlay_create(io, &ov);
	if (!err)
		err = xfsj_overlay_read(ov, sect, sizeof(sect), 0);
	if (!err) {
		xfsj_sb_decode(sect, &sb);
		err = xfsj_fs_open(ov, &sb, 0, &fs);
	}
	if (!err) {
		ck.fs = fs;
		ck.sb = xfsj_fs_sb(fs);
		err = xck_sb(&ck);
	}
	xfsj_fs_close(fs);
	xfsj_overlay_free(ov);
	if (err && !res->fault.err)
		res->fault.err = err;
	return err;
}
