/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The evidence model of who owns a range claimed twice (repair/evidence.c,
 * claim_facts.c):
 * - table-driven cases over the model: each row of evidence decides
 *   alone between two claims that differ only in it; a tie of regular
 *   files is cloned (the sound one keeps, else the lower inode); a tie
 *   of anything else is left; a metadata block's header beats a file the
 *   rmapbt does not name; files sharing a range the refcountbt records
 *   both keep it; evidence against every claim: all give way; the rows
 *   that decided and the scores are the ones the fix record reports;
 * - the table itself: every row named once, keeper-only rows weigh
 *   least;
 * - the header facts on the fixture filesystem: a bmbt block, attribute
 *   leaf and remote value blocks, a directory block, an AG btree block
 *   and an inode chunk name their owner by magic, owner, block number and
 *   UUID; the wrong owner, block number or UUID, or another kind of
 *   claim, do not.
 */
#include <string.h>

#include "suites.h"
#include "fs_fixture.h"
#include "core/layout.h"
#include "ondisk/attr_layout.h"
#include "ondisk/dir_block.h"
#include "ondisk/meta.h"
#include "xfsj/check.h"
#include "xfsj/repair.h"
#include "repair/repair_priv.h"

#define MB	(1ULL << 20)

#define UNW	XFSJ_RMAP_OFF_UNWRITTEN
#define ATTR	XFSJ_RMAP_OFF_ATTR_FORK
#define BMBT	XFSJ_RMAP_OFF_BMBT_BLOCK
#define REG	XFSJ_FT_REG
#define DIR	XFSJ_FT_DIR
#define LNK	XFSJ_FT_SYMLINK
#define B(r)	(1U << (r))

/* The facts of one claim, as a row of a case. */
struct fact {
	uint64_t owner, offset;
	uint8_t ftype;
	bool rmap, other, header, layout, refc, sound;
};

/* One case: up to 3 claims, what each comes to, and why. */
struct evcase {
	const char *name;
	bool reflink;
	size_t n;
	struct fact f[3];
	enum xrp_outcome outcome;
	enum xrp_verdict v[3];
	uint32_t why;		/* the rows that decided */
	size_t keeper;
};

#define KEEP	XRP_V_KEEP
#define GIVE	XRP_V_GIVE_WAY
#define COPY	XRP_V_CLONE_COPY
#define LEFT	XRP_V_LEFT

static const struct evcase cases[] = {
	/* ---- each row decides alone ---- */
	{ "layout: the log over a file", false, 2,
	  { { .owner = XFSJ_RMAP_OWN_LOG, .offset = 0, .ftype = 0, .layout = true },
	    { .owner = 100, .offset = 0, .ftype = REG, .sound = true } },
	  XRP_D_KEEP, { KEEP, GIVE }, B(XRP_EV_LAYOUT), 0 },
	{ "header: an attr leaf over a file's data", false, 2,
	  { { .owner = 100, .offset = 0, .ftype = REG, .sound = true },
	    { .owner = 101, .offset = ATTR, .ftype = REG, .header = true, .sound = true } },
	  XRP_D_KEEP, { GIVE, KEEP }, B(XRP_EV_HEADER), 1 },
	{ "written: data over another file's unwritten extent", false, 2,
	  { { .owner = 100, .offset = UNW, .ftype = REG }, { .owner = 101, .offset = 0, .ftype = REG } },
	  XRP_D_KEEP, { GIVE, KEEP }, B(XRP_EV_WRITTEN), 1 },
	{ "ftype: a file's data over a directory's", false, 2,
	  { { .owner = 100, .offset = 0, .ftype = DIR }, { .owner = 101, .offset = 0, .ftype = REG } },
	  XRP_D_KEEP, { GIVE, KEEP }, B(XRP_EV_FTYPE), 1 },
	{ "ftype: a file's data over a symlink's", false, 2,
	  { { .owner = 101, .offset = 0, .ftype = REG }, { .owner = 100, .offset = 0, .ftype = LNK } },
	  XRP_D_KEEP, { KEEP, GIVE }, B(XRP_EV_FTYPE), 0 },
	{ "rmapbt: the record agrees with one file", false, 2,
	  { { .owner = 100, .offset = 0, .ftype = REG }, { .owner = 101, .offset = 0, .ftype = REG, .rmap = true } },
	  XRP_D_KEEP, { GIVE, KEEP }, B(XRP_EV_RMAPBT), 1 },
	{ "rmapbt_other: records name others than one file", false, 2,
	  { { .owner = 100, .offset = 0, .ftype = REG, .other = true }, { .owner = 101, .offset = 0, .ftype = REG } },
	  XRP_D_KEEP, { GIVE, KEEP }, B(XRP_EV_RMAPBT_OTHER), 1 },
	{ "refcount: a shared file range over an AGFL block", true, 2,
	  { { .owner = XFSJ_RMAP_OWN_AG, .offset = 0, .ftype = 0 }, { .owner = 101, .offset = 0, .ftype = REG, .refc = true } },
	  XRP_D_KEEP, { GIVE, KEEP }, B(XRP_EV_REFCOUNT), 1 },
	{ "sound: picks the keeper of a clone", false, 2,
	  { { .owner = 100, .offset = 0, .ftype = REG }, { .owner = 101, .offset = 0, .ftype = REG, .sound = true } },
	  XRP_D_CLONE, { COPY, KEEP }, B(XRP_EV_SOUND), 1 },

	/* ---- ties ---- */
	{ "a tie of two files: cloned, the lower inode keeps", false, 2,
	  { { .owner = 101, .offset = 0, .ftype = REG, .sound = true }, { .owner = 100, .offset = 0, .ftype = REG, .sound = true } },
	  XRP_D_CLONE, { COPY, KEEP }, 0, 1 },
	{ "a tie of three files: two copies", false, 3,
	  { { .owner = 102, .offset = 0, .ftype = REG }, { .owner = 100, .offset = 0, .ftype = REG }, { .owner = 101, .offset = 0, .ftype = REG } },
	  XRP_D_CLONE, { COPY, KEEP, COPY }, 0, 1 },
	{ "a tie of two directories: left", false, 2,
	  { { .owner = 100, .offset = 0, .ftype = DIR }, { .owner = 101, .offset = 0, .ftype = DIR } },
	  XRP_D_TIE, { LEFT, LEFT }, 0, 0 },
	{ "a tie of a file and an unknown metadata claim: left", false, 2,
	  { { .owner = 100, .offset = 0, .ftype = REG }, { .owner = XFSJ_RMAP_OWN_AG, .offset = 0, .ftype = 0 } },
	  XRP_D_TIE, { LEFT, LEFT }, 0, 0 },
	{ "zeroes: two unwritten extents the rmapbt names neither: both give way", false, 2,
	  { { .owner = 100, .offset = UNW, .ftype = REG }, { .owner = 101, .offset = UNW, .ftype = REG } },
	  XRP_D_NONE, { GIVE, GIVE }, B(XRP_EV_ZEROES), 0 },
	{ "two unwritten extents, the rmapbt names one: it keeps", false, 2,
	  { { .owner = 100, .offset = UNW, .ftype = REG }, { .owner = 101, .offset = UNW, .ftype = REG, .rmap = true } },
	  XRP_D_KEEP, { GIVE, KEEP }, B(XRP_EV_RMAPBT), 1 },

	/* ---- combinations ---- */
	{ "a btree block's header beats a file the rmapbt lacks", false, 2,
	  { { .owner = 100, .offset = 0, .ftype = REG, .sound = true },
	    { .owner = XFSJ_RMAP_OWN_AG, .offset = 0, .ftype = 0, .header = true } },
	  XRP_D_KEEP, { GIVE, KEEP }, B(XRP_EV_HEADER), 1 },
	{ "a real bmbt block beats data the rmapbt names", false, 2,
	  { { .owner = 100, .offset = 0, .ftype = REG, .rmap = true },
	    { .owner = 101, .offset = BMBT, .ftype = REG, .header = true, .other = true } },
	  XRP_D_KEEP, { GIVE, KEEP }, B(XRP_EV_HEADER), 1 },
	{ "written data beats an unwritten extent the rmapbt names", false,
	  2, { { .owner = 100, .offset = UNW, .ftype = REG, .rmap = true }, { .owner = 101, .offset = 0, .ftype = REG, .other = true } },
	  XRP_D_KEEP, { GIVE, KEEP }, B(XRP_EV_WRITTEN), 1 },
	{ "a directory's header beats a file's data", false, 2,
	  { { .owner = 100, .offset = 0, .ftype = DIR, .header = true }, { .owner = 101, .offset = 0, .ftype = REG } },
	  XRP_D_KEEP, { KEEP, GIVE }, B(XRP_EV_HEADER), 0 },
	{ "shared files under refcount keep it, a directory gives way", true,
	  3, { { .owner = 100, .offset = 0, .ftype = REG, .refc = true }, { .owner = 101, .offset = 0, .ftype = REG, .refc = true },
	       { .owner = 102, .offset = 0, .ftype = DIR, .rmap = true } },
	  XRP_D_KEEP, { KEEP, KEEP, GIVE },
	  B(XRP_EV_FTYPE) | B(XRP_EV_REFCOUNT), 0 },
	{ "shared files on reflink: not a conflict, both keep", true, 2,
	  { { .owner = 100, .offset = 0, .ftype = REG, .refc = true }, { .owner = 101, .offset = 0, .ftype = REG, .refc = true } },
	  XRP_D_KEEP, { KEEP, KEEP }, B(XRP_EV_REFCOUNT), 0 },
	{ "the same file twice: nothing to decide", false, 2,
	  { { .owner = 100, .offset = 0, .ftype = REG }, { .owner = 100, .offset = 0, .ftype = REG } },
	  XRP_D_KEEP, { KEEP, KEEP }, 0, 0 },
	{ "the rmapbt names a third owner: all give way", false, 2,
	  { { .owner = 100, .offset = 0, .ftype = REG, .other = true }, { .owner = 101, .offset = 0, .ftype = REG, .other = true } },
	  XRP_D_NONE, { GIVE, GIVE }, B(XRP_EV_RMAPBT_OTHER), 0 },
	{ "an unknown claim the rmapbt names beats a file", false, 2,
	  { { .owner = XFSJ_RMAP_OWN_AG, .offset = 0, .ftype = 0, .rmap = true },
	    { .owner = 100, .offset = 0, .ftype = REG, .other = true, .sound = true } },
	  XRP_D_KEEP, { KEEP, GIVE },
	  B(XRP_EV_RMAPBT) | B(XRP_EV_RMAPBT_OTHER), 0 },
};

static void load(const struct evcase *k, struct xrp_claim *c)
{
	for (size_t i = 0; i < k->n; i++) {
		const struct fact *f = &k->f[i];

		c[i] = (struct xrp_claim){
			.owner = f->owner, .offset = f->offset,
			.ftype = f->ftype, .rmap_backs = f->rmap,
			.rmap_other = f->other, .header = f->header,
			.layout = f->layout, .refcount = f->refc,
			.sound = f->sound, .verdict = 99 };
	}
}

START_TEST(model_cases)
{
	const struct evcase *k = &cases[_i];
	struct xrp_claim c[3];
	struct xrp_decision d;

	load(k, c);
	xrp_ev_decide(c, k->n, k->reflink, &d);
	ck_assert_msg(d.outcome == k->outcome, "%s: outcome %s", k->name,
		      xrp_ev_outcome_name(d.outcome));
	for (size_t i = 0; i < k->n; i++)
		ck_assert_msg(c[i].verdict == k->v[i], "%s: claim %zu: %d",
			      k->name, i, c[i].verdict);
	ck_assert_msg(d.why == k->why, "%s: why %#x", k->name, d.why);
	if (k->outcome == XRP_D_KEEP || k->outcome == XRP_D_CLONE)
		ck_assert_msg(d.keeper == k->keeper, "%s: keeper %zu",
			      k->name, d.keeper);
}
END_TEST

/* Each row alone: the claim with it keeps, the one without gives way
 * (or, for a keeper-only row, keeps the original of a clone). */
START_TEST(each_row_decides_alone)
{
	const struct xrp_ev_row_def *rows = xrp_ev_rows();
	bool seen[XRP_EV__N] = { false };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (int r = 0; r < XRP_EV__N; r++)
			if (cases[i].why == B(r) && cases[i].n == 2)
				seen[r] = true;
	for (int r = 0; r < XRP_EV__N; r++) {
		ck_assert_msg(seen[r], "no case where %s decides alone",
			      rows[r].name);
		ck_assert_ptr_nonnull(rows[r].holds);
		for (int q = 0; q < r; q++)
			ck_assert_str_ne(rows[r].name, rows[q].name);
		/* a keeper-only row weighs less than any other row */
		for (int q = 0; q < XRP_EV__N; q++)
			if (rows[r].keeper_only && !rows[q].keeper_only)
				ck_assert_int_lt(rows[r].weight,
						 rows[q].weight < 0 ?
						 -rows[q].weight :
						 rows[q].weight);
	}
}
END_TEST

/* The reason as the fix record gives it: names, outcome and scores. */
START_TEST(reason_reported)
{
	struct xrp_claim c[2] = {
		{ .owner = 100, .ftype = REG, .rmap_backs = true },
		{ .owner = XFSJ_RMAP_OWN_INOBT, .header = true,
		  .rmap_backs = true },
	};
	struct xrp_decision d;
	const char *names[XFSJ_WHY_MAX];

	xrp_ev_decide(c, 2, false, &d);
	ck_assert_int_eq(d.outcome, XRP_D_KEEP);
	ck_assert_uint_eq(d.keeper, 1);
	ck_assert_int_eq(d.kept, 40);
	ck_assert_int_eq(d.gave_way, 8);
	ck_assert_uint_eq(xrp_ev_names(d.why, names, XFSJ_WHY_MAX), 1);
	ck_assert_str_eq(names[0], "header");
	ck_assert_str_eq(xrp_ev_outcome_name(d.outcome), "keep");
	/* the rows in table order, cut at the room given */
	ck_assert_uint_eq(xrp_ev_names(B(XRP_EV_RMAPBT) | B(XRP_EV_HEADER),
				       names, XFSJ_WHY_MAX), 2);
	ck_assert_str_eq(names[0], "header");
	ck_assert_str_eq(names[1], "rmapbt");
	ck_assert_uint_eq(xrp_ev_names(B(XRP_EV_RMAPBT) | B(XRP_EV_HEADER),
				       names, 1), 1);
	ck_assert_str_eq(names[0], "header");
}
END_TEST

/* ---- the header facts ---- */

/* A zeroed block at @agbno of AG 0, @fill writes its header. */
static void put_block(struct fs_fixture *fx, uint32_t agbno,
		      void (*fill)(uint8_t *b, uint64_t daddr,
				   const uint8_t *uuid, uint64_t owner),
		      uint64_t owner, bool bad_uuid, uint64_t daddr_delta)
{
	struct xfsj_buf *bp;
	uint64_t daddr = xfsj_agb_to_daddr(&fx->sb, 0, agbno);
	uint8_t uuid[16];

	memcpy(uuid, xfsj_meta_fs_uuid(&fx->sb), 16);
	if (bad_uuid)
		uuid[3] ^= 1;
	ck_assert_int_eq(xfsj_buf_get_zero(fx->fs, daddr, fx->sb.blocksize,
					   &bp), 0);
	fill(bp->data, daddr + daddr_delta, uuid, owner);
	xfsj_buf_dirty(bp);
	xfsj_buf_rele(fx->fs, bp);
}

static void fill_attr_leaf(uint8_t *b, uint64_t daddr, const uint8_t *uuid,
			   uint64_t owner)
{
	struct xfsj_dir3_hdr h = { .magic = XFSJ_ATTR3_LEAF_MAGIC,
				   .blkno = daddr, .owner = owner,
				   .crc_off = 12 };

	memcpy(h.uuid, uuid, 16);
	xfsj_dir3_hdr_encode(b, &h);
}

static void fill_dir_data(uint8_t *b, uint64_t daddr, const uint8_t *uuid,
			  uint64_t owner)
{
	struct xfsj_dir3_hdr h = { .magic = XFSJ_DIR3_DATA_MAGIC,
				   .blkno = daddr, .owner = owner,
				   .crc_off = 4 };

	memcpy(h.uuid, uuid, 16);
	xfsj_dir3_hdr_encode(b, &h);
}

static void fill_rmt(uint8_t *b, uint64_t daddr, const uint8_t *uuid,
		     uint64_t owner)
{
	struct xfsj_rmt_hdr h = { .magic = XFSJ_ATTR_RMT_MAGIC,
				  .owner = owner, .blkno = daddr };

	memcpy(h.uuid, uuid, 16);
	xfsj_rmt_hdr_encode(&h, b);
}

static void fill_bmbt(uint8_t *b, uint64_t daddr, const uint8_t *uuid,
		      uint64_t owner)
{
	xfsj_put_be32(b, XFSJ_BMAP_MAGIC);
	xfsj_put_be64(b + 24, daddr);
	memcpy(b + 40, uuid, 16);
	xfsj_put_be64(b + 56, owner);
}

static void fill_cntbt(uint8_t *b, uint64_t daddr, const uint8_t *uuid,
		       uint64_t owner)
{
	xfsj_put_be32(b, XFSJ_CNT_MAGIC);
	xfsj_put_be64(b + 16, daddr);
	memcpy(b + 32, uuid, 16);
	xfsj_put_be32(b + 48, (uint32_t)owner);
}

START_TEST(header_facts)
{
	const uint64_t a = 200, b = 201;
	struct fs_fixture fx;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	struct xrp rp = { .fs = fx.fs, .sb = xfsj_fs_sb(fx.fs) };

	/* an attribute leaf of b: b's attr fork claim, no one else's */
	put_block(&fx, 300, fill_attr_leaf, b, false, 0);
	ck_assert(xrp_claim_header(&rp, 0, 300, b, ATTR, REG));
	ck_assert(!xrp_claim_header(&rp, 0, 300, a, ATTR, REG));
	ck_assert(!xrp_claim_header(&rp, 0, 300, b, 0, REG));
	ck_assert(!xrp_claim_header(&rp, 0, 300, b, BMBT, REG));
	/* ... with a wrong block number or UUID: no */
	put_block(&fx, 301, fill_attr_leaf, b, false, 8);
	ck_assert(!xrp_claim_header(&rp, 0, 301, b, ATTR, REG));
	put_block(&fx, 302, fill_attr_leaf, b, true, 0);
	ck_assert(!xrp_claim_header(&rp, 0, 302, b, ATTR, REG));
	/* a remote value block of b */
	put_block(&fx, 303, fill_rmt, b, false, 0);
	ck_assert(xrp_claim_header(&rp, 0, 303, b, ATTR, REG));
	ck_assert(!xrp_claim_header(&rp, 0, 303, a, ATTR, REG));
	/* a directory data block of a: a's data claim as a directory */
	put_block(&fx, 304, fill_dir_data, a, false, 0);
	ck_assert(xrp_claim_header(&rp, 0, 304, a, 0, DIR));
	ck_assert(!xrp_claim_header(&rp, 0, 304, a, 0, REG));
	ck_assert(!xrp_claim_header(&rp, 0, 304, b, 0, DIR));
	/* a bmbt block of a */
	put_block(&fx, 305, fill_bmbt, a, false, 0);
	ck_assert(xrp_claim_header(&rp, 0, 305, a, BMBT, REG));
	ck_assert(!xrp_claim_header(&rp, 0, 305, b, BMBT, REG));
	ck_assert(!xrp_claim_header(&rp, 0, 305, a, 0, REG));
	/* a cntbt block of AG 0: the AG's own claim, not the inobt's */
	put_block(&fx, 306, fill_cntbt, 0, false, 0);
	ck_assert(xrp_claim_header(&rp, 0, 306, XFSJ_RMAP_OWN_AG, 0, 0));
	ck_assert(!xrp_claim_header(&rp, 0, 306, XFSJ_RMAP_OWN_INOBT, 0, 0));
	put_block(&fx, 307, fill_cntbt, 1, false, 0);
	ck_assert(!xrp_claim_header(&rp, 0, 307, XFSJ_RMAP_OWN_AG, 0, 0));
	/* the root inode's chunk: its first block holds the inodes */
	{
		uint32_t agbno = xfsj_ino_agino(&fx.sb, fx.sb.rootino) >>
				 fx.sb.inopblog;

		ck_assert(xrp_claim_header(&rp, 0, agbno,
					   XFSJ_RMAP_OWN_INODES, 0, 0));
		ck_assert(!xrp_claim_header(&rp, 0, 306,
					    XFSJ_RMAP_OWN_INODES, 0, 0));
	}
	/* file data has no header */
	ck_assert(!xrp_claim_header(&rp, 0, 300, b, 0, REG));
	fs_fixture_free(&fx);
}
END_TEST

Suite *repair_evidence_suite(void)
{
	Suite *s = suite_create("repair_evidence");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, model_cases, 0,
			    sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, each_row_decides_alone);
	tcase_add_test(tc, reason_reported);
	tcase_add_test(tc, header_facts);
	suite_add_tcase(s, tc);
	return s;
}
