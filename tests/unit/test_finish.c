/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finishing what a crash left (recover/finish.c), end to end from a log:
 * intents are written into a synthetic log (log_synth.c) as Linux on x86
 * logs them, the log is read back with the log reader, both replay
 * passes run on a fresh in-memory filesystem (fs_fixture.c), and then
 * xfsj_finish_all.  Checked: intents with their done item are left
 * alone, the others finished in log order (EFI, with both extent sizes;
 * BUI; CUI), then the unlinked inodes, then the CoW staging extents --
 * a failure at one stage leaves the later ones untouched; intents the
 * version cannot finish are reported; hostile intents (sizes, counts,
 * extents outside an AG, flags, features) are refused naming the field.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ino_fixture.h"
#include "log_synth.h"
#include "suites.h"
#include "fs/alloc.h"
#include "fs/bmap.h"
#include "fs/defer.h"
#include "fs/refcount.h"
#include "core/layout.h"
#include "xfsj/finish.h"
#include "xfsj/logread.h"

#define MB	(1ULL << 20)

/* ---- intents in a synthetic log ---- */

struct intent {
	uint8_t b[16 + 32 * 4];
	uint32_t len;
};

/* Header of an intent or done item: type, 1 region, @n extents, @id. */
static void intent_init(struct intent *it, uint16_t type, uint32_t n,
			uint64_t id)
{
	memset(it, 0, sizeof(*it));
	xfsj_put_le16(it->b, type);
	xfsj_put_le16(it->b + 2, 1);
	xfsj_put_le32(it->b + 4, n);
	xfsj_put_le64(it->b + 8, id);
	it->len = 16;
}

static void put64(struct intent *it, uint64_t v)
{
	ck_assert_uint_le(it->len + 8, sizeof(it->b));
	xfsj_put_le64(it->b + it->len, v);
	it->len += 8;
}

static void put32(struct intent *it, uint32_t v)
{
	ck_assert_uint_le(it->len + 4, sizeof(it->b));
	xfsj_put_le32(it->b + it->len, v);
	it->len += 4;
}

/* An EFI (or EFD) of one extent, 16-byte form (64-bit host). */
static void efi(struct intent *it, uint16_t type, uint64_t id, uint64_t fsb,
		uint32_t len)
{
	intent_init(it, type, 1, id);
	put64(it, fsb);
	put32(it, len);
	put32(it, 0);
}

/* One transaction holding @n items. */
static void log_trans(struct synth *sy, uint32_t tid,
		      const struct intent *items, unsigned int n)
{
	synth_start(sy, tid, n);
	for (unsigned int i = 0; i < n; i++)
		synth_region(sy, tid, items[i].b, items[i].len);
	synth_commit(sy, tid);
}

struct pass {
	struct xfsj_recover *rc;
	int which;
};

static int pass_fn(void *arg, const struct xfsj_log_trans *t)
{
	struct pass *p = arg;
	struct xfsj_fault f = { 0 };

	if (p->which == 1)
		ck_assert_int_eq(xfsj_recover_pass1(p->rc, &t->rt, &f), 0);
	else
		ck_assert_int_eq(xfsj_recover_pass2(p->rc, &t->rt, &f), 0);
	return 0;
}

/* Read the log back, run both passes onto @fx's overlay. */
static struct xfsj_recover *replay(struct synth *sy, struct fs_fixture *fx)
{
	struct xfsj_io *io;
	struct xfsj_log *log;
	struct xfsj_log_ht ht;
	struct xfsj_fault f = { 0 };
	struct pass p = { NULL, 1 };
	struct xfsj_log_visitor v = { 0 };

	synth_flush(sy);
	io = synth_io(sy);
	ck_assert_ptr_nonnull(io);
	ck_assert_int_eq(xfsj_recover_create(fx->ov, &fx->sb, &p.rc), 0);
	v.arg = &p;
	v.trans = pass_fn;
	ck_assert_int_eq(xfsj_log_open(io, NULL, 0, &log, &f), 0);
	ck_assert_int_eq(xfsj_log_find_head_tail(log, &ht, &f), 0);
	for (p.which = 1; p.which <= 2; p.which++)
		ck_assert_int_eq(xfsj_log_walk_live(log, &v, &f), 0);
	xfsj_log_close(log);
	xfsj_io_close(io);
	return p.rc;
}

/* Replay @sy and finish on @fx; the result of xfsj_finish_all. */
static int finish(struct synth *sy, struct fs_fixture *fx,
		  struct xfsj_finish_stats *st)
{
	struct xfsj_recover *rc = replay(sy, fx);
	int err;

	memset(&fx->f, 0, sizeof(fx->f));
	err = xfsj_finish_all(rc, fx->fs, st, &fx->f);
	xfsj_recover_free(rc);
	return err;
}

static uint64_t alloc(struct fs_fixture *fx, uint32_t agno, uint32_t len)
{
	uint32_t agbno;

	ck_assert_int_eq(xfsj_alloc_extent(fx->fs, agno, 100, len, NULL,
					   &agbno, &fx->f), 0);
	return xfsj_agb_to_fsb(&fx->sb, agno, agbno);
}

static void setup(struct fs_fixture *fx, struct synth *sy, bool reflink)
{
	fs_fixture_make(fx, 64 * MB, 4096, 2, reflink, reflink);
	synth_init(sy, 2048, 32768);
}

static void teardown(struct fs_fixture *fx, struct synth *sy)
{
	synth_free(sy);
	fs_fixture_free(fx);
}

/* ---- tests ---- */

/*
 * Three EFIs, the second with its EFD: the first and third are freed,
 * the third in the 12-byte extent form a 32-bit host logs.
 */
START_TEST(efi_pending_freed)
{
	struct fs_fixture fx;
	struct synth sy;
	struct xfsj_finish_stats st;
	struct intent it[2];
	uint64_t a, b, c;

	setup(&fx, &sy, false);
	a = alloc(&fx, 0, 4);
	b = alloc(&fx, 1, 3);
	c = alloc(&fx, 1, 2);
	fs_fixture_reopen(&fx);
	efi(&it[0], XFSJ_LI_EFI, 0x10, a, 4);
	log_trans(&sy, 1, it, 1);
	efi(&it[0], XFSJ_LI_EFI, 0x20, b, 3);
	efi(&it[1], XFSJ_LI_EFD, 0x20, b, 3);
	log_trans(&sy, 2, it, 2);
	intent_init(&it[0], XFSJ_LI_EFI, 1, 0x30);
	put64(&it[0], c);
	put32(&it[0], 2);
	log_trans(&sy, 3, it, 1);

	ck_assert_int_eq(finish(&sy, &fx, &st), 0);
	ck_assert_uint_eq(st.efi, 2);
	ck_assert_uint_eq(st.extents, 2);
	ck_assert_uint_eq(st.rui + st.cui + st.bui + st.attri + st.xmi, 0);
	ck_assert_uint_ge(st.deferred, 2);
	ck_assert_uint_eq(st.iul.inodes, 0);
	ck_assert_uint_eq(st.cow, 0);
	fs_fixture_reopen(&fx);
	ck_assert(fs_fixture_is_free(&fx, a, 4));
	ck_assert(!fs_fixture_is_free(&fx, b, 1));
	ck_assert(!fs_fixture_is_free(&fx, b + 2, 1));
	ck_assert(fs_fixture_is_free(&fx, c, 2));
	teardown(&fx, &sy);
}
END_TEST

/* The refcount record starting at @fsb, if any. */
static bool refc_rec(struct fs_fixture *fx, uint64_t fsb,
		     struct xfsj_refc_rec *out)
{
	struct xfsj_btree_cur *cur;
	union xfsj_btree_irec r;
	int stat;

	ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, XFSJ_BT_REFC,
					    xfsj_fsb_agno(&fx->sb, fsb), NULL,
					    &fx->f, &cur), 0);
	memset(&r, 0, sizeof(r));
	r.c.startblock = xfsj_fsb_agbno(&fx->sb, fsb);
	ck_assert_int_eq(xfsj_btree_lookup(cur, XFSJ_LOOKUP_EQ, &r, &stat), 0);
	if (stat)
		ck_assert_int_eq(xfsj_btree_get_rec(cur, &r, &stat), 0);
	xfsj_btree_cur_free(cur);
	*out = r.c;
	return stat == 1;
}

/* A BUI mapping an extent into a file; a CUI sharing it. */
START_TEST(bui_and_cui)
{
	struct fs_fixture fx;
	struct synth sy;
	struct xfsj_finish_stats st;
	struct xfsj_iref ip;
	struct xfsj_bmbt_irec *ext;
	struct intent it[2];
	struct xfsj_refc_rec rc;
	uint64_t ino, e;
	size_t n;

	setup(&fx, &sy, true);
	ino = fs_fixture_make_file(&fx, 9, 4, 0, 0, &ip);
	e = alloc(&fx, 1, 5);
	fs_fixture_reopen(&fx);
	intent_init(&it[0], XFSJ_LI_BUI, 1, 0x40);
	put64(&it[0], ino);
	put64(&it[0], e);
	put64(&it[0], 7);			/* file offset */
	put32(&it[0], 5);
	put32(&it[0], XFSJ_BMAP_MAP);
	intent_init(&it[1], XFSJ_LI_CUI, 1, 0x41);
	put64(&it[1], e);
	put32(&it[1], 5);
	put32(&it[1], XFSJ_REFC_INCREASE);
	log_trans(&sy, 1, it, 2);

	ck_assert_int_eq(finish(&sy, &fx, &st), 0);
	ck_assert_uint_eq(st.bui, 1);
	ck_assert_uint_eq(st.cui, 1);
	ck_assert_uint_eq(st.extents, 2);
	fs_fixture_reopen(&fx);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
	ck_assert_int_eq(xfsj_bmap_read(fx.fs, &ip, XFSJ_DATA_FORK, &ext, &n,
					&fx.f), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(ext[0].startoff, 7);
	ck_assert_uint_eq(ext[0].startblock, e);
	ck_assert_uint_eq(ext[0].blockcount, 5);
	free(ext);
	ck_assert_uint_eq(ip.di.nblocks, 5);
	/* The CUI's increase: one record of the extent, count 2. */
	ck_assert(refc_rec(&fx, e, &rc));
	ck_assert_uint_eq(rc.blockcount, 5);
	ck_assert_uint_eq(rc.refcount, 2);
	teardown(&fx, &sy);
}
END_TEST

/* An inode with no links on an AGI bucket, for the second stage. */
static uint64_t unlinked_inode(struct fs_fixture *fx, unsigned int slot)
{
	struct xfsj_iref ip;
	uint64_t ino = fs_fixture_make_file(fx, slot, 5, 0, 0, &ip);
	uint32_t agino = xfsj_ino_agino(&fx->sb, ino);

	ip.di.nlink = 0;
	xfsj_iput(fx->fs, &ip, false);
	ino_take(fx, 0, agino);
	set_bucket(fx, 0, agino % 64, agino);
	return ino;
}

/*
 * The order: intents (in log order), unlinked inodes, CoW staging
 * extents.  Round 0: a bad second intent stops the walk there (the
 * first has had its step, the third not) and nothing later runs.
 * Round 1: a broken AGI in AG 1 stops the unlinked stage (after AG 0's
 * inode) and the CoW stage never runs.  Round 2: all three stages run.
 */
START_TEST(stage_order)
{
	struct fs_fixture fx;
	struct synth sy;
	struct xfsj_finish_stats st;
	struct intent it[1];
	struct xfsj_dinode di;
	uint64_t a, b, cow, ino, agi1;
	uint32_t agino;
	uint8_t sect[512];

	setup(&fx, &sy, true);
	a = alloc(&fx, 0, 2);
	b = alloc(&fx, 0, 2);
	cow = alloc(&fx, 1, 4);
	ck_assert_int_eq(xfsj_refcount_alloc_cow_extent(fx.fs, cow, 4), 0);
	ck_assert_int_eq(xfsj_defer_finish(fx.fs, &fx.f), 0);
	ino = unlinked_inode(&fx, 12);
	agino = xfsj_ino_agino(&fx.sb, ino);
	fs_fixture_reopen(&fx);
	efi(&it[0], XFSJ_LI_EFI, 1, a, 2);
	log_trans(&sy, 1, it, 1);
	if (_i == 0) {
		/* Its extent runs past the end of AG 0. */
		efi(&it[0], XFSJ_LI_EFI, 2, xfsj_agb_to_fsb(&fx.sb, 0,
		    xfsj_fs_ag_blocks(fx.fs, 0) - 1), 2);
		log_trans(&sy, 2, it, 1);
	}
	efi(&it[0], XFSJ_LI_EFI, 3, b, 2);
	log_trans(&sy, 3, it, 1);
	if (_i == 1) {
		agi1 = (xfsj_agb_to_daddr(&fx.sb, 1, 0) + 2) << 9;
		ck_assert_int_eq(xfsj_overlay_read(fx.ov, sect, 512, agi1), 0);
		ck_assert_uint_eq(xfsj_get_be32(sect), XFSJ_AGI_MAGIC);
		sect[100] ^= 1;
		ck_assert_int_eq(xfsj_overlay_write(fx.ov, sect, 512, agi1), 0);
		fs_fixture_reopen(&fx);
	}
	/* The handle is not flushed on failure: look through it. */
	switch (_i) {
	case 0:
		ck_assert_int_eq(finish(&sy, &fx, &st), -XFSJ_E_CORRUPT);
		ck_assert_str_eq(fx.f.structure, "EFI log item");
		ck_assert_str_eq(fx.f.field, "extent");
		ck_assert(fs_fixture_is_free(&fx, a, 2));
		ck_assert(!fs_fixture_is_free(&fx, b, 1));
		ck_assert_uint_eq(get_bucket(&fx, 0, agino % 64), agino);
		break;
	case 1:
		ck_assert_int_eq(finish(&sy, &fx, &st), -XFSJ_E_BADCRC);
		ck_assert_str_eq(fx.f.structure, "AGI");
		ck_assert_uint_eq(st.efi, 2);
		ck_assert(fs_fixture_is_free(&fx, b, 2));
		ck_assert_uint_eq(get_bucket(&fx, 0, agino % 64),
				  XFSJ_NULLAGINO);
		break;
	default:
		ck_assert_int_eq(finish(&sy, &fx, &st), 0);
		ck_assert_uint_eq(st.efi, 2);
		ck_assert_uint_eq(st.iul.inodes, 1);
		ck_assert_uint_eq(st.iul.freed, 1);
		ck_assert_uint_eq(st.cow, 1);
		fs_fixture_reopen(&fx);
		ck_assert(fs_fixture_is_free(&fx, a, 2));
		ck_assert(fs_fixture_is_free(&fx, b, 2));
		ck_assert(fs_fixture_is_free(&fx, cow, 4));
		ck_assert_uint_eq(get_bucket(&fx, 0, agino % 64),
				  XFSJ_NULLAGINO);
		ino_get(&fx, ino, &di);
		ck_assert_uint_eq(di.mode, 0);
		break;
	}
	if (_i < 2) {
		ck_assert_uint_eq(st.cow, 0);
		ck_assert(!fs_fixture_is_free(&fx, cow, 1));
	}
	teardown(&fx, &sy);
}
END_TEST

/* The realtime intents are not finished here: reported, not refused. */
START_TEST(unsupported_reported)
{
	struct fs_fixture fx;
	struct synth sy;
	struct xfsj_recover *rc;
	struct intent it[2];
	uint16_t type = 0;

	setup(&fx, &sy, false);
	efi(&it[0], XFSJ_LI_EFI, 1, 100, 1);
	log_trans(&sy, 1, it, 1);
	rc = replay(&sy, &fx);
	ck_assert_int_eq(xfsj_finish_supported(rc, &type), 0);
	xfsj_recover_free(rc);
	efi(&it[0], XFSJ_LI_EFI_RT, 2, 100, 1);
	efi(&it[1], XFSJ_LI_RUI_RT, 3, 100, 1);
	log_trans(&sy, 2, it, 2);
	rc = replay(&sy, &fx);
	ck_assert_int_eq(xfsj_finish_supported(rc, &type), 1);
	ck_assert_uint_eq(type, XFSJ_LI_EFI_RT);
	xfsj_recover_free(rc);
	teardown(&fx, &sy);
}
END_TEST

/* One hostile intent, refused with @field; nothing else in the log. */
static void refused(bool reflink, const struct intent *it, int err,
		    const char *field)
{
	struct fs_fixture fx;
	struct synth sy;
	struct xfsj_finish_stats st;

	setup(&fx, &sy, reflink);
	log_trans(&sy, 1, it, 1);
	ck_assert_int_eq(finish(&sy, &fx, &st), err);
	ck_assert_msg(strcmp(fx.f.field, field) == 0, "%s: %s",
		      field, fx.f.field);
	teardown(&fx, &sy);
}

START_TEST(hostile_refused)
{
	struct intent it;
	uint64_t ag1 = 1ULL << 16;	/* past any agblklog of 64 MB / 2 */

	/* EFI: a size neither form has; no extents; more than fit. */
	efi(&it, XFSJ_LI_EFI, 1, 100, 1);
	it.len -= 2;
	refused(false, &it, -XFSJ_E_CORRUPT, "size");
	intent_init(&it, XFSJ_LI_EFI, 0, 1);
	refused(false, &it, -XFSJ_E_CORRUPT, "nextents");
	efi(&it, XFSJ_LI_EFI, 1, 100, 1);
	xfsj_put_le32(it.b + 4, 1000);
	refused(false, &it, -XFSJ_E_CORRUPT, "nextents");
	/* Extents: empty, no AG, crossing an AG's end. */
	efi(&it, XFSJ_LI_EFI, 1, 100, 0);
	refused(false, &it, -XFSJ_E_CORRUPT, "extent");
	efi(&it, XFSJ_LI_EFI, 1, 9 * ag1, 1);
	refused(false, &it, -XFSJ_E_CORRUPT, "extent");
	efi(&it, XFSJ_LI_EFI, 1, 100, UINT32_MAX);
	refused(false, &it, -XFSJ_E_CORRUPT, "extent");

	/* RUI without rmapbt; with it, unknown flags, op 0. */
	intent_init(&it, XFSJ_LI_RUI, 1, 1);
	put64(&it, 1000);
	put64(&it, 100);
	put64(&it, 0);
	put32(&it, 1);
	put32(&it, 1);
	refused(false, &it, -XFSJ_E_CORRUPT, "rmapbt feature");
	xfsj_put_le32(it.b + 16 + 28, 1U << 20 | 1);
	refused(true, &it, -XFSJ_E_CORRUPT, "flags");
	xfsj_put_le32(it.b + 16 + 28, 0);
	refused(true, &it, -XFSJ_E_CORRUPT, "flags");
	xfsj_put_le32(it.b + 16 + 28, 1);
	/* An owner no inode can have; a file range past the largest offset. */
	xfsj_put_le64(it.b + 16, 1ULL << 60);
	refused(true, &it, -XFSJ_E_CORRUPT, "owner");
	xfsj_put_le64(it.b + 16, 128);
	xfsj_put_le64(it.b + 16 + 16, XFSJ_MAX_FILEOFF);
	xfsj_put_le32(it.b + 16 + 24, 2);
	refused(true, &it, -XFSJ_E_CORRUPT, "startoff");
	it.len -= 4;
	refused(true, &it, -XFSJ_E_CORRUPT, "size");

	/* CUI without reflink; an op past FREE_COW. */
	intent_init(&it, XFSJ_LI_CUI, 1, 1);
	put64(&it, 100);
	put32(&it, 1);
	put32(&it, XFSJ_REFC_INCREASE);
	refused(false, &it, -XFSJ_E_CORRUPT, "reflink feature");
	xfsj_put_le32(it.b + 16 + 12, XFSJ_REFC_FREE_COW + 1);
	refused(true, &it, -XFSJ_E_CORRUPT, "flags");

	/* BUI: two mappings (the kernel logs one), a bad op. */
	intent_init(&it, XFSJ_LI_BUI, 2, 1);
	for (int i = 0; i < 2; i++) {
		put64(&it, 128);
		put64(&it, 100);
		put64(&it, 0);
		put32(&it, 1);
		put32(&it, XFSJ_BMAP_MAP);
	}
	refused(false, &it, -XFSJ_E_CORRUPT, "size");
	xfsj_put_le32(it.b + 4, 1);
	it.len = 16 + 32;
	xfsj_put_le32(it.b + 16 + 28, 3);
	refused(false, &it, -XFSJ_E_CORRUPT, "flags");
	/* An impossible inode; a mapping past the largest file offset. */
	xfsj_put_le32(it.b + 16 + 28, XFSJ_BMAP_MAP);
	xfsj_put_le64(it.b + 16, 1ULL << 60);
	refused(false, &it, -XFSJ_E_CORRUPT, "owner");
	xfsj_put_le64(it.b + 16, 128);
	xfsj_put_le64(it.b + 16 + 16, 1ULL << 54);
	refused(false, &it, -XFSJ_E_CORRUPT, "startoff");
}
END_TEST

Suite *finish_suite(void)
{
	Suite *s = suite_create("finish");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, efi_pending_freed);
	tcase_add_test(tc, bui_and_cui);
	tcase_add_loop_test(tc, stage_order, 0, 3);
	tcase_add_test(tc, unsupported_reported);
	tcase_add_test(tc, hostile_refused);
	suite_add_tcase(s, tc);
	return s;
}
