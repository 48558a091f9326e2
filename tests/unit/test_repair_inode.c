/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The repair's inode stage (repair/fix_inode.c, fix_unlinked.c,
 * fix_dir.c): a core damaged one field at a time (a good CRC, as xfs_db's
 * fuzz -d leaves it) is repaired, and the filesystem then checks clean;
 * an inode in use behind the inobt's back is kept and marked in use; an
 * entry of a short-form directory naming a free inode is removed; an
 * inode with links is taken off an unlinked list, one without links
 * freed.
 */
#include <string.h>
#include <sys/stat.h>

#include "fs_fixture.h"
#include "ino_fixture.h"
#include "row_fixture.h"
#include "suites.h"
#include "xfsj/check.h"
#include "xfsj/repair.h"
#include "core/layout.h"
#include "fs/attr.h"
#include "fs/dir_write.h"

#define MB	(1ULL << 20)

/* Set @field of inode @ino to @v on the handle, CRC restamped. */
static void poke(struct fs_fixture *fx, uint64_t ino, const char *field,
		 uint64_t v)
{
	struct xfsj_iref ip;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, true, &ip, &fx->f), 0);
	ck_assert_int_eq(xfsj_layout_put(&xfsj_dinode_layout, ip.dip, field,
					 v), 0);
	xfsj_dinode_finish(ip.dip, fx->sb.inodesize);
	xfsj_buf_dirty(ip.bp);
	fs_fixture_reopen(fx);
}

static void on_left(void *arg, const struct xfsj_problem *p)
{
	char *last = arg;

	xfsj_problem_format(p, last, 160);
}

/* Repair; returns the fixes applied, and the repair must leave nothing. */
static uint64_t repair(struct fs_fixture *fx, uint64_t *cleared)
{
	char last[160] = "";
	struct xfsj_repair_cb cb = { .arg = last, .left = on_left };
	struct xfsj_repair_result res;

	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_repair(fx->fs, NULL, &cb, &res), 0);
	ck_assert_msg(res.left == 0, "%llu problems left (%s)",
		      (unsigned long long)res.left, last);
	if (cleared)
		*cleared = res.inodes_cleared;
	ck_assert_uint_eq(fs_fixture_problems(fx), 0);
	return res.actions;
}

static const struct {
	const char *field;
	uint64_t v;
} root_cases[] = {
	{ "ino", 99 },
	{ "onlink", 3 },
	{ "flags", 0x8000 },
	{ "flags2", 0x0a },		/* reflink on a directory */
	{ "extsize", 16 },
	{ "cowextsize", 16 },
	{ "nlink", 0 },
	{ "nlink", 7 },
	{ "next_unlinked", 1 },
	{ "size", 0 },
	{ "nblocks", 3 },
	{ "big_nextents", 5 },
};

START_TEST(root_fields)
{
	struct fs_fixture fx;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	poke(&fx, fx.sb.rootino, root_cases[_i].field, root_cases[_i].v);
	ck_assert_msg(fs_fixture_problems(&fx) > 0, "case %d: %s not detected",
		      _i, root_cases[_i].field);
	ck_assert_uint_ge(repair(&fx, NULL), 1);
	/* A second repair finds nothing to do. */
	ck_assert_uint_eq(repair(&fx, NULL), 0);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(root_uuid)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ck_assert_int_eq(xfsj_iget(fx.fs, fx.sb.rootino, true, &ip, &fx.f), 0);
	ip.di.uuid[3] ^= 0x40;
	xfsj_iput(fx.fs, &ip, false);
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);
	ck_assert_uint_ge(repair(&fx, NULL), 1);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * An inode in use that the inobt calls free: the core is trusted (as
 * xfs_repair corrects its imap), the inobt marks it in use, and the file,
 * named by no directory, goes to lost+found.
 */
START_TEST(free_in_use_kept)
{
	struct fs_fixture fx;
	struct xfsj_inobt_rec ir;
	struct xfsj_iref ip;
	uint64_t ino, cleared = 0;
	uint32_t agino;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ino = fs_fixture_make_file(&fx, 5, 7, 0, 0, &ip);
	agino = xfsj_ino_agino(&fx.sb, ino);
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);
	repair(&fx, &cleared);
	ck_assert_uint_eq(cleared, 0);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, true, &ip, &fx.f), 0);
	ck_assert_uint_eq(ip.di.mode & S_IFMT, S_IFREG);
	ck_assert(ibt_rec(&fx, XFSJ_BT_INO, 0, agino, &ir));
	ck_assert(!(ir.free & 1ULL << (agino - ir.startino)));
	fs_fixture_free(&fx);
}
END_TEST

/* A core with no file type, in use in the inobt: freed in both. */
START_TEST(clear_inode_in_btrees)
{
	struct fs_fixture fx;
	struct xfsj_inobt_rec ir;
	struct xfsj_dinode di;
	struct xfsj_buf *bp;
	uint64_t ino, cleared = 0;
	uint32_t agino;
	uint8_t *p;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	agino = xfsj_ino_agino(&fx.sb, fx.sb.rootino) + 11;
	ino = xfsj_agino_to_ino(&fx.sb, 0, agino);
	ino_take(&fx, 0, agino);
	p = ino_ptr(&fx, ino, &bp);
	dinode_base(&fx, ino, &di);
	di.mode = 0170644;
	di.nlink = 1;
	xfsj_dinode_encode(&di, p);
	xfsj_dinode_finish(p, fx.sb.inodesize);
	xfsj_buf_dirty(bp);
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);
	repair(&fx, &cleared);
	ck_assert_uint_eq(cleared, 1);
	ck_assert(ibt_rec(&fx, XFSJ_BT_INO, 0, agino, &ir));
	ck_assert(ir.free & 1ULL << (agino - ir.startino));
	fs_fixture_free(&fx);
}
END_TEST

/* An entry of the root (short form) naming a free inode is removed. */
START_TEST(sf_entry_to_free_inode)
{
	struct fs_fixture fx;
	struct xfsj_dirent e[2] = {
		{ .name = "gone", .namelen = 4, .ftype = XFSJ_FT_REG },
		{ .name = "also", .namelen = 4, .ftype = XFSJ_FT_REG },
	};
	struct xfsj_iref ip;
	uint32_t size;
	uint8_t *f;
	int n;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	e[0].ino = fx.sb.rootino + 6;
	e[1].ino = fx.sb.rootino + 7;
	ck_assert_int_eq(xfsj_iget(fx.fs, fx.sb.rootino, true, &ip, &fx.f), 0);
	f = xfsj_ifork(fx.fs, &ip, XFSJ_DATA_FORK, &size);
	n = xfsj_dir_sf_encode(fx.sb.rootino, e, 2, true, f, size);
	ck_assert_int_gt(n, 0);
	ip.di.size = (uint64_t)n;
	xfsj_iput(fx.fs, &ip, false);
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);
	ck_assert_uint_ge(repair(&fx, NULL), 2);
	ck_assert_int_eq(xfsj_iget(fx.fs, fx.sb.rootino, true, &ip, &fx.f), 0);
	f = xfsj_ifork(fx.fs, &ip, XFSJ_DATA_FORK, &size);
	ck_assert_uint_eq(f[0], 0);
	ck_assert_uint_eq(ip.di.size, 6);
	fs_fixture_free(&fx);
}
END_TEST

/* The root on an unlinked list (it has links): taken off. */
START_TEST(linked_inode_on_list)
{
	struct fs_fixture fx;
	uint32_t agino;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	agino = (uint32_t)(fx.sb.rootino & ((1ULL << (fx.sb.agblklog +
						      fx.sb.inopblog)) - 1));
	set_bucket(&fx, 0, agino % 64, agino);
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);
	ck_assert_uint_ge(repair(&fx, NULL), 1);
	ck_assert_uint_eq(get_bucket(&fx, 0, agino % 64), XFSJ_NULLAGINO);
	fs_fixture_free(&fx);
}
END_TEST

/* An inode in use with no links on a list: freed, as a mount would. */
START_TEST(pending_list_freed)
{
	struct fs_fixture fx;
	struct xfsj_inobt_rec ir;
	struct xfsj_dinode di;
	struct xfsj_buf *bp;
	uint32_t agino;
	uint64_t ino;
	uint8_t *p;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	agino = xfsj_ino_agino(&fx.sb, fx.sb.rootino) + 9;
	ino = xfsj_agino_to_ino(&fx.sb, 0, agino);
	ino_take(&fx, 0, agino);
	p = ino_ptr(&fx, ino, &bp);
	dinode_base(&fx, ino, &di);
	di.mode = S_IFREG | 0644;
	xfsj_dinode_encode(&di, p);
	xfsj_dinode_finish(p, fx.sb.inodesize);
	xfsj_buf_dirty(bp);
	set_bucket(&fx, 0, agino % 64, agino);
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);
	ck_assert_uint_ge(repair(&fx, NULL), 1);
	ck_assert_uint_eq(get_bucket(&fx, 0, agino % 64), XFSJ_NULLAGINO);
	ck_assert(ibt_rec(&fx, XFSJ_BT_INO, 0, agino, &ir));
	ck_assert(ir.free & 1ULL << (agino - ir.startino));
	fs_fixture_free(&fx);
}
END_TEST

/* Directory @dir (its ".." @parent) holds only @name naming directory
 * @child: the entry, its parent pointer (with the feature), and @dir's
 * link for the ".." of @child (whose own ".." is @dir). */
static void loop_link(struct fs_fixture *fx, uint64_t dir, uint64_t parent,
		      const char *name, uint64_t child)
{
	struct xfsj_dirent e = { name, (uint8_t)strlen(name), XFSJ_FT_DIR,
				 child };
	struct xfsj_iref ip;
	uint8_t val[XFSJ_ATTR_PPTR_VALUE_LEN];

	ck_assert_int_eq(xfsj_dir_write(fx->fs, dir, parent, &e, 1, false,
				       &fx->f), 0);
	ck_assert_int_eq(xfsj_iget(fx->fs, dir, true, &ip, &fx->f), 0);
	ip.di.nlink++;
	xfsj_iput(fx->fs, &ip, true);
	if (!(fx->sb.features_incompat & XFSJ_INCOMPAT_PARENT))
		return;
	ck_assert_int_eq(xfsj_iget(fx->fs, child, true, &ip, &fx->f), 0);
	xfsj_put_be64(val, dir);
	xfsj_put_be32(val + 8, 1);
	ck_assert_int_eq(xfsj_attr_set(fx->fs, &ip, &(struct xfsj_attr_arg){
		.ns = XFSJ_ATTR_NS_PARENT, .name = (const uint8_t *)name,
		.namelen = (uint32_t)strlen(name), .value = val,
		.valuelen = sizeof(val) }, XFSJ_ATTR_UPSERT, &fx->f), 0);
	xfsj_iput(fx->fs, &ip, true);
}

/*
 * dir.loop: two directories naming each other (A names B, B names A,
 * each ".." the other) and one naming itself, none reachable from the
 * root: each loop is broken at one member and the filesystem checks
 * clean; a second repair finds nothing.  Case 0: the members' parent
 * pointers name only the loop: A (the first) and C go to lost+found.
 * Case 1: B also has a parent pointer naming the root as "home": B goes
 * back there, A keeps naming B, and A is reached through it.
 */
START_TEST(dir_loops)
{
	struct fs_fixture fx;
	struct xfsj_dinode di;
	struct seen s;
	char buf[400];
	uint64_t a, b, c;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	a = ino_make_dir(&fx, 5);
	b = ino_make_dir(&fx, 6);
	c = ino_make_dir(&fx, 7);
	loop_link(&fx, a, b, "b", b);
	loop_link(&fx, b, a, "a", a);
	loop_link(&fx, c, c, "self", c);
	if (_i) {
		ck_assert(fx.sb.features_incompat & XFSJ_INCOMPAT_PARENT);
		ino_add_pptr(&fx, b, fx.sb.rootino, "home");
	}
	/* One report a loop (the superblock's inode counts are off too;
	 * the root does not hold B's name). */
	check_into(&fx, &s);
	ck_assert_msg(s.n == 3u + _i && !strcmp(s.codes[_i], "dir.loop") &&
		      !strcmp(s.codes[_i + 1], "dir.loop") &&
		      (!_i || !strcmp(s.codes[0], "pptr.extra")), "found %s",
		      seen_list(&s, buf, sizeof(buf)));
	ck_assert_uint_ge(repair(&fx, NULL), 2);
	ck_assert_uint_eq(repair(&fx, NULL), 0);
	/* Clean: all reached again; the member moved keeps the other. */
	ck_assert(dir_sf_names(&fx, fx.sb.rootino, b, "home") == (_i == 1));
	ino_get(&fx, a, &di);
	ck_assert_uint_eq(di.mode & S_IFMT, S_IFDIR);
	ck_assert_uint_eq(di.nlink, _i ? 2 : 3);
	ino_get(&fx, b, &di);
	ck_assert_uint_eq(di.nlink, _i ? 3 : 2);
	ino_get(&fx, c, &di);
	ck_assert_uint_eq(di.mode & S_IFMT, S_IFDIR);
	ck_assert_uint_eq(di.nlink, 2);
	fs_fixture_free(&fx);
}
END_TEST

Suite *repair_inode_suite(void)
{
	Suite *s = suite_create("repair_inode");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, root_fields, 0,
			    sizeof(root_cases) / sizeof(root_cases[0]));
	tcase_add_test(tc, root_uuid);
	tcase_add_test(tc, free_in_use_kept);
	tcase_add_test(tc, clear_inode_in_btrees);
	tcase_add_test(tc, sf_entry_to_free_inode);
	tcase_add_test(tc, linked_inode_on_list);
	tcase_add_test(tc, pending_list_freed);
	tcase_add_loop_test(tc, dir_loops, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
