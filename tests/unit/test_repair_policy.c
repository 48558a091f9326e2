/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy of the problem table: every row that names a fix names a
 * handler that carries out that fix kind and has code (the one row whose
 * fix is written elsewhere excepted, and said so), every handler is named
 * by some row, and, row by row on small fixtures, the handler runs: the
 * problem is found, the repair answers it, and the check after it finds
 * neither that row nor any other.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_fixture.h"
#include "suites.h"
#include "xfsj/check.h"
#include "xfsj/repair.h"
#include "core/crc32c.h"
#include "core/layout.h"
#include "fs/bmap.h"
#include "fs/bmbt.h"
#include "fs/dir_write.h"
#include "ondisk/dir_block.h"
#include "ondisk/format.h"
#include "fs/alloc.h"
#include "fs/attr.h"
#include "fs/defer.h"

#define MB	(1ULL << 20)

START_TEST(every_fixable_row_has_a_handler)
{
	size_t i, n = xfsj_problem_count();

	ck_assert_uint_gt(n, 200);
	for (i = 0; i < n; i++) {
		const struct xfsj_problem_def *d = xfsj_problem_nth(i);

		ck_assert_str_ne(xfsj_handler_name(d->handler), "?");
		if (d->fix == XFSJ_FIX_NONE) {
			ck_assert_msg(d->handler == XFSJ_H_NONE,
				      "%s: report only, but names handler %s",
				      d->code, xfsj_handler_name(d->handler));
			continue;
		}
		ck_assert_msg(d->handler != XFSJ_H_NONE,
			      "%s: fix %s but no handler", d->code,
			      xfsj_fix_name(d->fix));
		ck_assert_msg(xfsj_handler_fix(d->handler) == d->fix,
			      "%s: fix %s, its handler %s does %s", d->code,
			      xfsj_fix_name(d->fix),
			      xfsj_handler_name(d->handler),
			      xfsj_fix_name(xfsj_handler_fix(d->handler)));
		ck_assert_msg(xfsj_handler_implemented(d->handler),
			      "%s: handler %s has no code", d->code,
			      xfsj_handler_name(d->handler));
	}
}
END_TEST

START_TEST(every_handler_is_named)
{
	size_t n = xfsj_problem_count();

	for (int h = 1; h < XFSJ_H__COUNT; h++) {
		bool named = false;

		ck_assert_str_ne(xfsj_handler_name((enum xfsj_handler)h), "?");
		for (size_t i = 0; i < n && !named; i++)
			named = xfsj_problem_nth(i)->handler ==
				(enum xfsj_handler)h;
		ck_assert_msg(named, "handler %s: no row names it",
			      xfsj_handler_name((enum xfsj_handler)h));
	}
	ck_assert_str_eq(xfsj_handler_name(XFSJ_H__COUNT), "?");
	ck_assert(!xfsj_handler_implemented(XFSJ_H__COUNT));
}
END_TEST

/*
 * The AG stage reads the traits, not the structure column: every row the
 * stage answers has the trait of its structure, and no other row has it.
 */
START_TEST(ag_rows_carry_their_tree)
{
	static const struct {
		const char *structure;
		unsigned int trait;
	} t[] = {
		{ "AGI", XFSJ_T_AGI_HEADER },
		{ "inobt", XFSJ_T_INOBT },
		{ "finobt", XFSJ_T_FINOBT },
		{ "refcountbt", XFSJ_T_REFC_BTREE },
	};
	size_t i, k, n = xfsj_problem_count(), marked = 0;

	for (i = 0; i < n; i++) {
		const struct xfsj_problem_def *d = xfsj_problem_nth(i);
		bool ag = d->fix == XFSJ_FIX_AG_HEADER ||
			  d->fix == XFSJ_FIX_REBUILD_BTREE ||
			  d->fix == XFSJ_FIX_FREE_SPACE;

		for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
			bool want = ag && !strcmp(d->structure, t[k].structure);

			ck_assert_msg(want == !!(d->traits & t[k].trait),
				      "%s: trait of %s %s", d->code,
				      t[k].structure, want ? "missing" : "extra");
			marked += want;
		}
	}
	ck_assert_uint_ge(marked, 20);
}
END_TEST

/* ---- the handlers run ---- */

struct seen {
	char codes[64][40];
	size_t n;
};

static void on_problem(void *arg, const struct xfsj_problem *p)
{
	struct seen *s = arg;

	if (p->def->sev == XFSJ_SEV_INFO || s->n == 64)
		return;
	strncpy(s->codes[s->n], p->def->code, sizeof(s->codes[0]) - 1);
	s->codes[s->n++][sizeof(s->codes[0]) - 1] = '\0';
}

static void check_into(struct fs_fixture *fx, struct seen *s)
{
	struct xfsj_check_cb cb = { .arg = s, .problem = on_problem };
	struct xfsj_check_result res;

	memset(s, 0, sizeof(*s));
	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_check(fx->fs, NULL, &cb, &res), 0);
}

static bool has(const struct seen *s, const char *code)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->codes[i], code))
			return true;
	return false;
}

/* @ip's core bytes changed by hand: its CRC restamped, its buffer dirty. */
static void core_changed(struct fs_fixture *fx, struct xfsj_iref *ip)
{
	xfsj_dinode_finish(ip->dip, fx->sb.inodesize);
	xfsj_buf_dirty(ip->bp);
}

/* Set @field of the root inode to @v, CRC restamped. */
static void poke_root(struct fs_fixture *fx, const char *field, uint64_t v)
{
	struct xfsj_iref ip;

	ck_assert_int_eq(xfsj_iget(fx->fs, fx->sb.rootino, true, &ip, &fx->f),
			 0);
	ck_assert_int_eq(xfsj_layout_put(&xfsj_dinode_layout, ip.dip, field,
					 v), 0);
	core_changed(fx, &ip);
	fs_fixture_reopen(fx);
}

/*
 * Row @code found after the damage (among what it brings), its handler
 * has code, and after a repair the check finds nothing at all.
 */
static void answered(struct fs_fixture *fx, const char *code)
{
	const struct xfsj_problem_def *d = xfsj_problem_by_code(code);
	struct xfsj_repair_result res;
	struct seen s;

	ck_assert_ptr_nonnull(d);
	ck_assert(xfsj_handler_implemented(d->handler));
	check_into(fx, &s);
	ck_assert_msg(has(&s, code), "%s not found (%zu others, first %s)",
		      code, s.n, s.n ? s.codes[0] : "-");
	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_repair(fx->fs, NULL, NULL, &res), 0);
	ck_assert_uint_ge(res.actions, 1);
	check_into(fx, &s);
	ck_assert_msg(s.n == 0, "%s: after the repair %zu left, first %s",
		      code, s.n, s.n ? s.codes[0] : "-");
}

static const struct {
	const char *code, *field;
	uint64_t v;
} root_rows[] = {
	{ "inode.ino", "ino", 99 },
	{ "inode.onlink", "onlink", 3 },
	{ "inode.flags", "flags", 0x8000 },
	{ "inode.extsize", "extsize", 16 },
	{ "inode.cowextsize", "cowextsize", 16 },
	{ "inode.nlink", "nlink", 7 },
	{ "fork.nextents", "big_nextents", 5 },
	{ "fork.nblocks", "nblocks", 3 },
	{ "inode.magic", "magic", 0x4e4f },
	{ "inode.version", "version", 2 },
	{ "inode.next_orphan", "next_unlinked", 1 },
	{ "inode.next_unlinked", "next_unlinked", 0x0fffffc0 },
	{ "inode.size", "size", 0 },
	{ "inode.flags2", "flags2", 0x0a },
	{ "inode.nlink_zero", "nlink", 0 },
	{ "inode.aformat", "aformat", 7 },
};

START_TEST(root_row_answered)
{
	struct fs_fixture fx;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	poke_root(&fx, root_rows[_i].field, root_rows[_i].v);
	answered(&fx, root_rows[_i].code);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * One rule per fact: a device node's nblocks is its attribute fork's
 * blocks.  The inode core once had its own rule (a device holds no
 * blocks) and the forks' walk another; the two set the field back and
 * forth.  Now the walk alone decides, the repair keeps the count.
 */
START_TEST(nblocks_one_rule)
{
	static uint8_t v[2000];
	/* a user attribute (namespace 0) too big for the inode */
	struct xfsj_attr_arg a = { 0, (const uint8_t *)"big",
				   3, v, sizeof(v), false };
	struct xfsj_repair_result res;
	struct fs_fixture fx;
	struct xfsj_iref ip;
	uint64_t ino, nblocks;
	struct seen s;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ino = fs_fixture_make_file(&fx, 10, 5,
				   (fx.sb.features_incompat &
				    XFSJ_INCOMPAT_NREXT64) ?
				   XFSJ_DIFLAG2_NREXT64 : 0, 0, &ip);
	ip.di.mode = 020644;		/* a character device */
	ip.di.format = XFSJ_DINODE_FMT_DEV;
	xfsj_iput(fx.fs, &ip, false);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, true, &ip, &fx.f), 0);
	ck_assert_int_eq(xfsj_attr_set(fx.fs, &ip, &a, XFSJ_ATTR_UPSERT,
				       &fx.f), 0);
	xfsj_iput(fx.fs, &ip, false);
	ck_assert_int_eq(xfsj_defer_finish(fx.fs, &fx.f), 0);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, true, &ip, &fx.f), 0);
	nblocks = ip.di.nblocks;
	ck_assert_uint_ge(nblocks, 1);
	check_into(&fx, &s);
	for (size_t i = 0; i < s.n; i++)
		ck_assert_msg(!strstr(s.codes[i], "nblocks"), "%s",
			      s.codes[i]);
	/* (named by no directory: the repair moves it to lost+found) */
	fs_fixture_reopen(&fx);
	ck_assert_int_eq(xfsj_repair(fx.fs, NULL, NULL, &res), 0);
	check_into(&fx, &s);
	ck_assert_msg(s.n == 0, "%zu left, first %s", s.n, s.codes[0]);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, true, &ip, &fx.f), 0);
	ck_assert_uint_eq(ip.di.nblocks, nblocks);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * One rule per fact: an entry's file type is decided by its child's mode
 * alone (dirent.ftype), also when the byte names no type at all (there
 * was a second row, dir.entry.ftype, for that): one row found, the
 * repair sets the child's type, and the check finds nothing more.
 */
START_TEST(ftype_one_rule)
{
	enum { N = 30 };
	static char names[N][40];
	struct xfsj_dirent d[N];
	struct xfsj_repair_result res;
	struct xfsj_bmbt_irec *map;
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct xfsj_buf *bp;
	uint32_t bsize;
	uint8_t *at;
	size_t n;
	struct seen s;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]),
			 "a-name-long-enough-for-a-block-%02d", i);
		d[i] = (struct xfsj_dirent){ names[i],
			(uint8_t)strlen(names[i]), XFSJ_FT_REG,
			fs_fixture_make_file(&fx, 10 + (unsigned int)i, 1,
					     0, 0, &ip) };
	}
	ck_assert_int_eq(xfsj_dir_write(fx.fs, fx.sb.rootino, fx.sb.rootino,
					d, N, false, &fx.f), 0);
	/* (the files made behind the inobt's back: settled first) */
	fs_fixture_reopen(&fx);
	ck_assert_int_eq(xfsj_repair(fx.fs, NULL, NULL, &res), 0);
	check_into(&fx, &s);
	ck_assert_uint_eq(s.n, 0);
	/* Entry 7's file type byte (after its name) made 9: no type. */
	ck_assert_int_eq(xfsj_iget(fx.fs, fx.sb.rootino, true, &ip, &fx.f),
			 0);
	ck_assert_int_eq(ip.di.format, XFSJ_DINODE_FMT_EXTENTS);
	ck_assert_int_eq(xfsj_bmap_read(fx.fs, &ip, XFSJ_DATA_FORK, &map, &n,
					&fx.f), 0);
	ck_assert_uint_ge(n, 1);
	bsize = fx.sb.blocksize;
	ck_assert_int_eq(xfsj_buf_read(fx.fs, xfsj_fsb_daddr(&fx.sb,
						map[0].startblock),
				       bsize, &bp), 0);
	free(map);
	at = memmem(bp->data, bsize, names[7], d[7].namelen);
	ck_assert_ptr_nonnull(at);
	ck_assert_uint_eq(at[d[7].namelen], XFSJ_FT_REG);
	at[d[7].namelen] = 9;
	xfsj_cksum_update(bp->data, bsize, XFSJ_DIR3_OFF_CRC);
	xfsj_buf_dirty(bp);
	check_into(&fx, &s);
	ck_assert_msg(s.n == 1 && has(&s, "dirent.ftype"), "%zu rows, %s",
		      s.n, s.n ? s.codes[0] : "-");
	fs_fixture_reopen(&fx);
	ck_assert_int_eq(xfsj_repair(fx.fs, NULL, NULL, &res), 0);
	check_into(&fx, &s);
	ck_assert_msg(s.n == 0, "%zu left, first %s", s.n, s.codes[0]);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * A regular file of two mappings and a character device, both named by
 * the root, settled by a repair so that the check finds nothing: the
 * numbers in @ino (file, device).
 */
static void two_named_files(struct fs_fixture *fx, uint64_t ino[2])
{
	struct xfsj_dirent d[2];
	struct xfsj_repair_result res;
	struct xfsj_iref ip;
	uint64_t fsb;
	struct seen s;

	fs_fixture_make(fx, 64 * MB, 4096, 2, true, false);
	ino[0] = fs_fixture_make_file(fx, 10, 1, 0, 0, &ip);
	ino[1] = fs_fixture_make_file(fx, 11, 1, 0, 0, &ip);
	ip.di.mode = 020644;
	ip.di.format = XFSJ_DINODE_FMT_DEV;
	xfsj_iput(fx->fs, &ip, false);
	fsb = fs_fixture_alloc(fx, 0, 4);
	fs_fixture_map(fx, ino[0], XFSJ_DATA_FORK, 0, fsb, 2, false);
	fs_fixture_map(fx, ino[0], XFSJ_DATA_FORK, 10, fsb + 2, 2, false);
	ck_assert_int_eq(xfsj_iget(fx->fs, ino[0], true, &ip, &fx->f), 0);
	ip.di.size = 12ULL * fx->sb.blocksize;
	xfsj_iput(fx->fs, &ip, false);
	d[0] = (struct xfsj_dirent){ "file", 4, XFSJ_FT_REG, ino[0] };
	d[1] = (struct xfsj_dirent){ "dev", 3, XFSJ_FT_CHRDEV, ino[1] };
	ck_assert_int_eq(xfsj_dir_write(fx->fs, fx->sb.rootino,
					fx->sb.rootino, d, 2, false, &fx->f),
			 0);
	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_repair(fx->fs, NULL, NULL, &res), 0);
	check_into(fx, &s);
	ck_assert_msg(s.n == 0, "%zu rows, first %s", s.n, s.codes[0]);
}

/*
 * One rule per fact: an extent count is the number of mappings its fork
 * holds (fork.nextents), also when the core's count is one the fork's
 * format cannot hold (there was a second row, inode.nextents, with its
 * own rule for that).  Each wrong count: one row, one fix setting what
 * the fork holds, and the check finds nothing more.
 */
static const struct {
	int which;		/* 0 the file, 1 the device */
	bool attr;
	uint64_t count, holds;
} counts[] = {
	{ 0, false, 100, 2 },	/* over an extents fork's room */
	{ 0, false, 3, 2 },	/* within it, more than it maps */
	{ 1, false, 3, 0 },	/* a device fork */
	{ 0, true, 2, 0 },	/* no attribute fork */
};

START_TEST(nextents_one_rule)
{
	struct xfsj_repair_result res;
	struct fs_fixture fx;
	struct xfsj_iref ip;
	uint64_t ino[2];
	struct seen s;

	two_named_files(&fx, ino);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino[counts[_i].which], true, &ip,
				   &fx.f), 0);
	xfsj_dinode_set_nextents(&ip.di, counts[_i].attr, counts[_i].count);
	xfsj_iput(fx.fs, &ip, false);
	check_into(&fx, &s);
	ck_assert_msg(s.n == 1 && has(&s, "fork.nextents"), "%zu rows, %s",
		      s.n, s.n ? s.codes[0] : "-");
	fs_fixture_reopen(&fx);
	ck_assert_int_eq(xfsj_repair(fx.fs, NULL, NULL, &res), 0);
	ck_assert_uint_eq(res.actions, 1);
	check_into(&fx, &s);
	ck_assert_msg(s.n == 0, "%zu left, first %s", s.n, s.codes[0]);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino[counts[_i].which], true, &ip,
				   &fx.f), 0);
	ck_assert_uint_eq(counts[_i].attr ? xfsj_dinode_anextents(&ip.di)
					  : xfsj_dinode_nextents(&ip.di),
			  counts[_i].holds);
	fs_fixture_free(&fx);
}
END_TEST

/* The inode numbers the target rows name, and how many of each. */
struct targets {
	uint64_t bad[8], freed[8];
	size_t nbad, nfreed, other;
};

static void on_target(void *arg, const struct xfsj_problem *p)
{
	struct targets *t = arg;

	if (!strcmp(p->def->code, "dir.entry.ino") && t->nbad < 8)
		t->bad[t->nbad++] = p->found;
	else if (!strcmp(p->def->code, "dirent.target") && t->nfreed < 8)
		t->freed[t->nfreed++] = p->expected;
	else if (p->def->sev != XFSJ_SEV_INFO)
		t->other++;
}

/*
 * dir.entry.ino (a number no inode can have) and dirent.target (a valid
 * number whose inode is not in use) are two facts, decided apart by one
 * predicate: a directory naming one of each reports each once, and no
 * entry both.
 */
START_TEST(entry_target_disjoint)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct xfsj_dirent d[3];
	struct targets t = { 0 };
	struct xfsj_check_cb cb = { .arg = &t, .problem = on_target };
	struct xfsj_check_result res;
	uint64_t file, invalid, unused;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	file = fs_fixture_make_file(&fx, 10, 1, 0, 0, &ip);
	/* AG 5 of a 2-AG filesystem; a slot of the root's chunk never used */
	invalid = xfsj_agino_to_ino(&fx.sb, 5, 200);
	unused = fx.sb.rootino + 20;
	d[0] = (struct xfsj_dirent){ "file", 4, XFSJ_FT_REG, file };
	d[1] = (struct xfsj_dirent){ "invalid", 7, XFSJ_FT_REG, invalid };
	d[2] = (struct xfsj_dirent){ "unused", 6, XFSJ_FT_REG, unused };
	ck_assert_int_eq(xfsj_dir_write(fx.fs, fx.sb.rootino, fx.sb.rootino,
					d, 3, false, &fx.f), 0);
	fs_fixture_reopen(&fx);
	ck_assert_int_eq(xfsj_check(fx.fs, NULL, &cb, &res), 0);
	ck_assert_uint_eq(t.nbad, 1);
	ck_assert_uint_eq(t.bad[0], invalid);
	ck_assert_uint_eq(t.nfreed, 1);
	ck_assert_uint_eq(t.freed[0], unused);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * One mapping record of the named file's data fork (of two: offsets 0
 * and 10, two blocks each) made wrong: the row found, the fork trimmed
 * of it, and the check finds nothing after.
 */
static const struct {
	const char *code;
	unsigned int rec;
	struct xfsj_bmbt_irec m;	/* startblock ~0: keep the record's */
} fork_recs[] = {
	{ "fork.ext_len", 0, { 0, ~0ULL, 0, false } },
	{ "fork.ext_offset", 1, { XFSJ_MAX_FILEOFF, ~0ULL, 2, false } },
	{ "fork.ext_order", 1, { 1, ~0ULL, 2, false } },
	{ "fork.ext_block", 1, { 10, 7ULL << 40, 2, false } },
};

START_TEST(fork_row_answered)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct xfsj_bmbt_irec m = fork_recs[_i].m, old;
	uint64_t ino[2];
	uint8_t *rec;

	two_named_files(&fx, ino);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino[0], true, &ip, &fx.f), 0);
	ck_assert_uint_eq(xfsj_dinode_nextents(&ip.di), 2);
	rec = ip.dip + XFSJ_DINODE_CORE_SIZE +
	      fork_recs[_i].rec * XFSJ_BMBT_REC_SIZE;
	xfsj_bmbt_rec_decode(rec, &old);
	if (m.startblock == ~0ULL)
		m.startblock = old.startblock;
	xfsj_bmbt_rec_encode(&m, rec);
	core_changed(&fx, &ip);
	fs_fixture_reopen(&fx);
	answered(&fx, fork_recs[_i].code);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * A file made behind the inode btree's back, named by no directory: the
 * inobt is rebuilt, the file goes to lost+found; with a field of its
 * core set (@field not NULL), that row's handler too.
 */
static const struct {
	const char *code, *field;
	uint64_t v;
} file_rows[] = {
	{ "inode.free_in_use", NULL, 0 },
	{ "inode.disconnected", NULL, 0 },
	{ "inode.mode", "mode", 0170644 },
	{ "inode.format", "format", 0 },
	{ "inode.forkoff", "forkoff", 250 },
	{ "inode.onlink", "onlink", 9 },
};

START_TEST(file_row_answered)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	fs_fixture_make_file(&fx, 10, 5,
			     (fx.sb.features_incompat &
			      XFSJ_INCOMPAT_NREXT64) ?
			     XFSJ_DIFLAG2_NREXT64 : 0, 0, &ip);
	if (file_rows[_i].field) {
		ck_assert_int_eq(xfsj_layout_put(&xfsj_dinode_layout, ip.dip,
						 file_rows[_i].field,
						 file_rows[_i].v), 0);
		core_changed(&fx, &ip);
	}
	fs_fixture_reopen(&fx);
	answered(&fx, file_rows[_i].code);
	fs_fixture_free(&fx);
}
END_TEST

/* ---- AG headers: one field of AG 1's AGF or AGI ---- */

static void agf_put(struct fs_fixture *fx, size_t off, uint32_t v)
{
	struct xfsj_buf *bp;

	ck_assert_int_eq(xfsj_agf_read(fx->fs, 1, &bp, &fx->f), 0);
	xfsj_put_be32(bp->data + off, v);
	xfsj_buf_dirty(bp);
}

static void agi_put(struct fs_fixture *fx, size_t off, uint32_t v)
{
	struct xfsj_buf *bp;

	ck_assert_int_eq(xfsj_agi_read(fx->fs, 1, &bp, &fx->f), 0);
	xfsj_put_be32(bp->data + off, v);
	xfsj_buf_dirty(bp);
}

static const struct {
	const char *code;
	bool agi;
	size_t off;
	uint32_t v;
} ag_rows[] = {
	{ "agf.counter", false, XFSJ_AGF_OFF(freeblks), 3 },
	{ "agf.root", false, XFSJ_AGF_OFF(cnt_root), 0 },
	{ "agi.counter", true, XFSJ_AGI_OFF(freecount), 40 },
	{ "agi.field", true, XFSJ_AGI_OFF(seqno), 7 },
	{ "agi.unlinked", true, XFSJ_AGI_OFF(unlinked) + 12, 5 },
	{ "agf.magic", false, XFSJ_AGF_OFF(magicnum), 0x12345678 },
	{ "agf.field", false, XFSJ_AGF_OFF(seqno), 7 },
	{ "agf.level", false, XFSJ_AGF_OFF(bno_level), 0 },
	{ "agf.flist", false, XFSJ_AGF_OFF(flcount), 200 },
	{ "agf.bound", false, XFSJ_AGF_OFF(longest), 0x7fffffff },
	{ "agf.uuid", false, XFSJ_AGF_OFF(uuid), 0xdeadbeef },
	{ "agi.magic", true, XFSJ_AGI_OFF(magicnum), 0x12345678 },
	{ "agi.level", true, XFSJ_AGI_OFF(level), 0 },
	{ "agi.root", true, XFSJ_AGI_OFF(root), 0 },
	{ "agi.uuid", true, XFSJ_AGI_OFF(uuid), 0xdeadbeef },
	{ "agi.bound", true, XFSJ_AGI_OFF(count), 0x7fffffc0 },
};

START_TEST(ag_row_answered)
{
	struct fs_fixture fx;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, true);
	if (ag_rows[_i].agi)
		agi_put(&fx, ag_rows[_i].off, ag_rows[_i].v);
	else
		agf_put(&fx, ag_rows[_i].off, ag_rows[_i].v);
	fs_fixture_reopen(&fx);
	answered(&fx, ag_rows[_i].code);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * dir.root: the root turned into an empty regular file (the only
 * directory gone) is made an empty root directory again.
 */
START_TEST(dir_root_made)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ck_assert_int_eq(xfsj_iget(fx.fs, fx.sb.rootino, true, &ip, &fx.f), 0);
	ip.di.mode = 0100644;
	ip.di.format = XFSJ_DINODE_FMT_EXTENTS;
	ip.di.size = 0;
	xfsj_iput(fx.fs, &ip, false);
	fs_fixture_reopen(&fx);
	answered(&fx, "dir.root");
	ck_assert_int_eq(xfsj_iget(fx.fs, fx.sb.rootino, true, &ip, &fx.f), 0);
	ck_assert_uint_eq(ip.di.mode & 0170000, 0040000);
	fs_fixture_free(&fx);
}
END_TEST

Suite *repair_policy_suite(void)
{
	Suite *s = suite_create("repair_policy");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_fixable_row_has_a_handler);
	tcase_add_test(tc, every_handler_is_named);
	tcase_add_test(tc, ag_rows_carry_their_tree);
	tcase_add_loop_test(tc, root_row_answered, 0,
			    sizeof(root_rows) / sizeof(root_rows[0]));
	tcase_add_loop_test(tc, ag_row_answered, 0,
			    sizeof(ag_rows) / sizeof(ag_rows[0]));
	tcase_add_loop_test(tc, file_row_answered, 0,
			    sizeof(file_rows) / sizeof(file_rows[0]));
	tcase_add_test(tc, dir_root_made);
	tcase_add_test(tc, nblocks_one_rule);
	tcase_add_test(tc, entry_target_disjoint);
	tcase_add_loop_test(tc, fork_row_answered, 0,
			    sizeof(fork_recs) / sizeof(fork_recs[0]));
	tcase_add_loop_test(tc, nextents_one_rule, 0,
			    sizeof(counts) / sizeof(counts[0]));
	tcase_add_test(tc, ftype_one_rule);
	suite_add_tcase(s, tc);
	return s;
}
