/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Orphans home under their parent pointers (repair/fix_home.c): an inode
 * in use that no directory names, whose parent pointers name a directory
 * the root reaches, goes back there under those names (every name of a
 * file with hard links; a directory cut off with its subtree under one);
 * lost+found takes only what no pointer places (a name taken, two heads
 * asking for one name: the first in inode order wins; no parent
 * pointers at all; a number lost+found already holds as a name gets
 * ".1").  Each case: found by the check, repaired, the check
 * after finds nothing and a second repair does nothing.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fs_fixture.h"
#include "ino_fixture.h"
#include "row_fixture.h"
#include "suites.h"
#include "xfsj/geometry.h"
#include "xfsj/repair.h"
#include "fs/dir_write.h"
#include "repair/repair_priv.h"

#define MB	(1ULL << 20)

static void on_left(void *arg, const struct xfsj_problem *p)
{
	xfsj_problem_format(p, arg, 160);
}

/* Found (@code among what the check reports; NULL: not asked),
 * repaired clean, stable. */
static void repaired(struct fs_fixture *fx, const char *code)
{
	char last[160] = "", list[400];
	struct xfsj_repair_cb cb = { .arg = last, .left = on_left };
	struct xfsj_repair_result res;
	struct seen s;

	check_into(fx, &s);
	ck_assert_msg(!code || has(&s, code), "%s not found: %s", code,
		      seen_list(&s, list, sizeof(list)));
	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_repair(fx->fs, NULL, &cb, &res), 0);
	ck_assert_msg(res.left == 0, "%llu left (%s)",
		      (unsigned long long)res.left, last);
	check_into(fx, &s);
	ck_assert_msg(s.n == 0, "after the repair: %s",
		      seen_list(&s, list, sizeof(list)));
	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_repair(fx->fs, NULL, &cb, &res), 0);
	ck_assert_uint_eq(res.actions, 0);
}

/* Directory @dir (its ".." @parent) written with the @n entries @e. */
static void dir_set(struct fs_fixture *fx, uint64_t dir, uint64_t parent,
		    const struct xfsj_dirent *e, size_t n)
{
	ck_assert_int_eq(xfsj_dir_write(fx->fs, dir, parent, e, n, false,
				       &fx->f), 0);
}

static void nlink_add(struct fs_fixture *fx, uint64_t ino, int d)
{
	struct xfsj_iref ip;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, true, &ip, &fx->f), 0);
	ip.di.nlink = (uint32_t)((int)ip.di.nlink + d);
	xfsj_iput(fx->fs, &ip, true);
}

static uint32_t nlink_of(struct fs_fixture *fx, uint64_t ino)
{
	struct xfsj_dinode di;

	ino_get(fx, ino, &di);
	return di.nlink;
}

/* Does lost+found (in the root) name @ino by its number? */
static bool in_lpf(struct fs_fixture *fx, uint64_t ino)
{
	uint64_t lpf = dir_sf_lookup(fx, fx->sb.rootino, "lost+found");
	char name[24];

	snprintf(name, sizeof(name), "%llu", (unsigned long long)ino);
	return lpf != XFSJ_NULLFSINO && dir_sf_names(fx, lpf, ino, name);
}

static void count_pptr_fixes(void *arg, const struct xfsj_repair_action *a)
{
	*(size_t *)arg += a->fix == XFSJ_FIX_PPTR;
}

/*
 * (a) A file whose only entry is gone, its parent pointer left.  Case 1:
 * the entry is there but names a free inode (its number fuzzed): the
 * entry fix removes it and the name is free for the file again, in the
 * same round; its pointer is kept, not removed and added back.
 */
START_TEST(file_home)
{
	struct fs_fixture fx;
	struct xfsj_repair_result res;
	size_t pfix = 0;
	struct xfsj_repair_cb cb = { .arg = &pfix,
				     .action = count_pptr_fixes };
	uint64_t root, f;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	root = fx.sb.rootino;
	f = ino_make_reg(&fx, 5, 1);
	ino_add_pptr(&fx, f, root, "file");
	if (_i) {
		struct xfsj_dirent e = { "file", 4, XFSJ_FT_REG, root + 9 };

		dir_set(&fx, root, root, &e, 1);
		fs_fixture_reopen(&fx);
		ck_assert_int_eq(xfsj_repair(fx.fs, NULL, &cb, &res), 0);
		ck_assert_uint_eq(res.left, 0);
		ck_assert_uint_eq(pfix, 0);
	}
	repaired(&fx, _i ? NULL : "inode.disconnected");
	ck_assert(dir_sf_names(&fx, root, f, "file"));
	/* No lost+found made. */
	ck_assert_uint_eq(dir_sf_count(&fx, root), 1);
	ck_assert_uint_eq(nlink_of(&fx, f), 1);
	fs_fixture_free(&fx);
}
END_TEST

/* (b) A file of two hard links, both entries gone: both names back. */
START_TEST(hard_links_home)
{
	struct fs_fixture fx;
	struct xfsj_dirent e;
	uint64_t root, d, g;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	root = fx.sb.rootino;
	d = ino_make_dir(&fx, 6);
	dir_set(&fx, d, root, NULL, 0);
	e = (struct xfsj_dirent){ "d", 1, XFSJ_FT_DIR, d };
	dir_set(&fx, root, root, &e, 1);
	nlink_add(&fx, root, 1);
	ino_add_pptr(&fx, d, root, "d");
	g = ino_make_reg(&fx, 7, 2);
	ino_add_pptr(&fx, g, root, "g1");
	ino_add_pptr(&fx, g, d, "g2");
	repaired(&fx, "inode.disconnected");
	ck_assert(dir_sf_names(&fx, root, g, "g1"));
	ck_assert(dir_sf_names(&fx, d, g, "g2"));
	ck_assert_uint_eq(dir_sf_count(&fx, root), 2);
	ck_assert_uint_eq(nlink_of(&fx, g), 2);
	fs_fixture_free(&fx);
}
END_TEST

/* (c) A directory cut off (the root's entry of it gone), with a file and
 * a subdirectory: back under its pointer's name, its children with it. */
START_TEST(subtree_home)
{
	struct fs_fixture fx;
	struct xfsj_dirent e[2];
	uint64_t root, d, x, s;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	root = fx.sb.rootino;
	d = ino_make_dir(&fx, 6);
	x = ino_make_reg(&fx, 7, 1);
	s = ino_make_dir(&fx, 8);
	dir_set(&fx, s, d, NULL, 0);
	e[0] = (struct xfsj_dirent){ "x", 1, XFSJ_FT_REG, x };
	e[1] = (struct xfsj_dirent){ "sub", 3, XFSJ_FT_DIR, s };
	dir_set(&fx, d, root, e, 2);
	nlink_add(&fx, d, 1);		/* the ".." of s */
	nlink_add(&fx, root, 1);	/* the ".." of d */
	ino_add_pptr(&fx, d, root, "d");
	ino_add_pptr(&fx, x, d, "x");
	ino_add_pptr(&fx, s, d, "sub");
	repaired(&fx, "inode.disconnected");
	ck_assert(dir_sf_names(&fx, root, d, "d"));
	ck_assert_uint_eq(dir_sf_count(&fx, root), 1);
	ck_assert(dir_sf_names(&fx, d, x, "x"));
	ck_assert(dir_sf_names(&fx, d, s, "sub"));
	ck_assert_uint_eq(nlink_of(&fx, root), 3);
	ck_assert_uint_eq(nlink_of(&fx, d), 3);
	ck_assert_uint_eq(nlink_of(&fx, s), 2);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * (d) Names that cannot be given: the root holds "f" already (another
 * file's), and two orphans ask for "same": the one holding "f" stays,
 * the first orphan in inode order gets "same", the others go to
 * lost+found.  Case 1: pointers that name no home (the file itself, a
 * regular file, a name with '/', "..").
 */
START_TEST(name_taken)
{
	struct fs_fixture fx;
	struct xfsj_dirent e;
	uint64_t root, h, f, f1, f2;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	root = fx.sb.rootino;
	h = ino_make_reg(&fx, 5, 1);
	e = (struct xfsj_dirent){ "f", 1, XFSJ_FT_REG, h };
	dir_set(&fx, root, root, &e, 1);
	ino_add_pptr(&fx, h, root, "f");
	f = ino_make_reg(&fx, 6, 1);
	f1 = ino_make_reg(&fx, 7, 1);
	f2 = ino_make_reg(&fx, 8, 1);
	if (_i) {
		ino_add_pptr(&fx, f, f, "self");
		ino_add_pptr(&fx, f, h, "file");
		ino_add_pptr(&fx, f, root, "a/b");
		ino_add_pptr(&fx, f, root, "..");
	} else {
		ino_add_pptr(&fx, f, root, "f");
	}
	ino_add_pptr(&fx, f2, root, "same");
	ino_add_pptr(&fx, f1, root, "same");
	repaired(&fx, "inode.disconnected");
	ck_assert(dir_sf_names(&fx, root, h, "f"));
	ck_assert(dir_sf_names(&fx, root, f1, "same"));
	ck_assert(!dir_sf_names(&fx, root, f2, "same"));
	ck_assert(in_lpf(&fx, f));
	ck_assert(in_lpf(&fx, f2));
	ck_assert(!in_lpf(&fx, f1));
	ck_assert_uint_eq(dir_sf_count(&fx, root), 3);
	ck_assert_uint_eq(nlink_of(&fx, f), 1);
	ck_assert_uint_eq(nlink_of(&fx, f1), 1);
	ck_assert_uint_eq(nlink_of(&fx, f2), 1);
	fs_fixture_free(&fx);
}
END_TEST

/* (e) Without parent pointers: lost+found, as before. */
START_TEST(no_pptr_lpf)
{
	struct xfsj_features feat;
	struct fs_fixture fx;
	uint64_t root, f;

	xfsj_features_default(&feat);
	feat.parent = false;
	fs_fixture_make_feat(&fx, 64 * MB, 4096, 2, &feat);
	ck_assert(!(fx.sb.features_incompat & XFSJ_INCOMPAT_PARENT));
	root = fx.sb.rootino;
	f = ino_make_reg(&fx, 5, 1);
	repaired(&fx, "inode.disconnected");
	ck_assert(in_lpf(&fx, f));
	ck_assert_uint_eq(dir_sf_count(&fx, root), 1);
	ck_assert_uint_eq(nlink_of(&fx, f), 1);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * (f) lost+found already holds the number of the next orphan as a name
 * (a file an earlier repair put there, renamed): the orphan gets the
 * number with ".1", as xfs_repair's orphanage names it, not a second
 * entry of the same name.
 */
START_TEST(lpf_name_taken)
{
	struct xfsj_features feat;
	struct fs_fixture fx;
	uint64_t root, f, g, lpf;
	char gname[24], gname1[32];
	struct xfsj_dirent e;

	xfsj_features_default(&feat);
	feat.parent = false;
	fs_fixture_make_feat(&fx, 64 * MB, 4096, 2, &feat);
	root = fx.sb.rootino;
	f = ino_make_reg(&fx, 5, 1);
	repaired(&fx, "inode.disconnected");
	lpf = dir_sf_lookup(&fx, root, "lost+found");
	ck_assert_uint_ne(lpf, XFSJ_NULLFSINO);
	snprintf(gname, sizeof(gname), "%llu", (unsigned long long)(root + 6));
	snprintf(gname1, sizeof(gname1), "%s.1", gname);
	e = (struct xfsj_dirent){ gname, (uint8_t)strlen(gname), XFSJ_FT_REG,
				  f };
	dir_set(&fx, lpf, root, &e, 1);
	g = ino_make_reg(&fx, 6, 1);
	ck_assert_uint_eq(g, root + 6);
	repaired(&fx, "inode.disconnected");
	ck_assert(dir_sf_names(&fx, lpf, f, gname));
	ck_assert(dir_sf_names(&fx, lpf, g, gname1));
	ck_assert_uint_eq(dir_sf_count(&fx, lpf), 2);
	ck_assert_uint_eq(nlink_of(&fx, g), 1);
	fs_fixture_free(&fx);
}
END_TEST

static void count_moves(void *arg, const struct xfsj_repair_action *a)
{
	size_t *n = arg;

	if (a->fix == XFSJ_FIX_RECONNECT && strstr(a->what, "moved inode"))
		n[strstr(a->what, "lost+found") ? 1 : 0]++;
}

/*
 * Many orphans at once (a fuzzed directory block can orphan thousands):
 * 16 chunks of files named by nothing, each with a pointer to the root:
 * every one goes home in one pass (each lookup logarithmic: the root,
 * which grows to a leaf directory, is written once).
 */
START_TEST(many_orphans)
{
	enum { CHUNKS = 16 };
	struct fs_fixture fx;
	struct xfsj_repair_result res;
	size_t moved[2] = { 0, 0 };
	struct xfsj_repair_cb cb = { .arg = moved, .action = count_moves };
	char name[16];
	uint64_t root;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	root = fx.sb.rootino;
	for (unsigned int c = 0; c < CHUNKS; c++) {
		uint32_t start = make_chunk(&fx, 0, 64);

		for (unsigned int k = 0; k < 64; k++) {
			uint64_t ino = ino_make_reg(&fx, (unsigned int)
						    (start + k - root), 1);

			snprintf(name, sizeof(name), "o%u", c * 64 + k);
			ino_add_pptr(&fx, ino, root, name);
		}
	}
	fs_fixture_reopen(&fx);
	ck_assert_int_eq(xfsj_repair(fx.fs, NULL, &cb, &res), 0);
	ck_assert_uint_eq(res.left, 0);
	ck_assert_uint_eq(moved[0], CHUNKS * 64);
	ck_assert_uint_eq(moved[1], 0);
	ck_assert_uint_eq(fs_fixture_problems(&fx), 0);
	fs_fixture_free(&fx);
}
END_TEST

/* ---- who names an inode: the scan and the sorted copy agree ---- */

struct heard {
	uint64_t dir[64];
	uint32_t hash[64];
	size_t n, stop_at;	/* stop after this many (0: never) */
};

static int hear(void *arg, const struct xck_dirent *e)
{
	struct heard *h = arg;

	ck_assert_uint_lt(h->n, 64);
	h->dir[h->n] = e->dir;
	h->hash[h->n++] = e->namehash;
	return h->stop_at && h->n == h->stop_at;
}

/*
 * A table in no order, 40 children asked twice: the first 16 questions
 * of a round scan, the rest go to the sorted copy; the two passes ask in
 * opposite orders, so each child is answered once each way.  The answers
 * match a count by hand and come in directory order; a callback's
 * nonzero return stops the walk and is returned.
 */
START_TEST(naming_scan_equals_index)
{
	enum { N = 600, KIDS = 40 };
	static struct xck_dirent de[N];
	static struct heard a[KIDS], b[KIDS];
	struct xck ck;
	struct xrp rp;
	uint32_t r = 12345;

	for (size_t i = 0; i < N; i++) {
		r = r * 1103515245U + 12345U;
		de[i] = (struct xck_dirent){ .dir = 1 + (r >> 8) % 50,
			.child = 100 + (r >> 16) % KIDS, .namehash = r,
			.namelen = 3, .ftype = XFSJ_FT_REG };
	}
	memset(&ck, 0, sizeof(ck));
	ck.dirents.v = de;
	ck.dirents.n = N;
	ck.dirents.esz = sizeof(*de);
	rp = (struct xrp){ .ck = &ck };
	for (size_t k = 0; k < KIDS; k++)
		ck_assert_int_eq(xrp_entries_naming(&rp, 100 + k,
			&(struct xrp_naming_cb){ hear, &a[k] }), 0);
	ck_assert(rp.naming.built);
	xrp_naming_free(&rp);
	ck_assert(!rp.naming.built && !rp.naming.de);
	for (size_t k = KIDS; k-- > 0;)
		ck_assert_int_eq(xrp_entries_naming(&rp, 100 + k,
			&(struct xrp_naming_cb){ hear, &b[k] }), 0);
	for (size_t k = 0; k < KIDS; k++) {
		size_t want = 0;

		for (size_t i = 0; i < N; i++)
			want += de[i].child == 100 + k;
		ck_assert_uint_eq(a[k].n, want);
		ck_assert_uint_eq(b[k].n, want);
		for (size_t i = 0; i < want; i++) {
			ck_assert_uint_eq(a[k].dir[i], b[k].dir[i]);
			ck_assert_uint_eq(a[k].hash[i], b[k].hash[i]);
			if (i)
				ck_assert_uint_le(a[k].dir[i - 1], a[k].dir[i]);
		}
	}
	/* Stopped by the callback: its value comes back. */
	{
		struct heard h = { .stop_at = 1 };

		ck_assert_int_eq(xrp_entries_naming(&rp, 100,
			&(struct xrp_naming_cb){ hear, &h }), 1);
		ck_assert_uint_eq(h.n, 1);
		ck_assert_uint_eq(h.dir[0], a[0].dir[0]);
	}
	xrp_naming_free(&rp);
}
END_TEST

Suite *repair_home_suite(void)
{
	Suite *s = suite_create("repair_home");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, file_home, 0, 2);
	tcase_add_test(tc, hard_links_home);
	tcase_add_test(tc, subtree_home);
	tcase_add_loop_test(tc, name_taken, 0, 2);
	tcase_add_test(tc, no_pptr_lpf);
	tcase_add_test(tc, lpf_name_taken);
	tcase_add_test(tc, many_orphans);
	tcase_add_test(tc, naming_scan_equals_index);
	suite_add_tcase(s, tc);
	return s;
}
