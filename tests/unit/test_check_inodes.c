/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checker's inode phase (check/inodes.c, icore.c, forks.c): a fresh
 * filesystem checks clean; a core damaged one field at a time (with a
 * good CRC, as xfs_db's fuzz -d leaves it) is reported under the rule it
 * breaks; the inobt's free mask against the cores; fork records and the
 * block count against the mappings; the same results on threads.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fs_fixture.h"
#include "suites.h"
#include "xfsj/check.h"
#include "core/crc32c.h"
#include "core/layout.h"
#include "fs/bmbt.h"
#include "ondisk/meta.h"

#define MB	(1ULL << 20)

struct seen {
	char codes[64][40];
	unsigned int n;
};

static void on_problem(void *arg, const struct xfsj_problem *p)
{
	struct seen *s = arg;
	char msg[256];

	xfsj_problem_format(p, msg, sizeof(msg));
	if (s->n < 64) {
		strncpy(s->codes[s->n], p->def->code, sizeof(s->codes[0]) - 1);
		s->n++;
	}
}

static unsigned int run_check(struct fs_fixture *fx, struct seen *s)
{
	struct xfsj_check_cb cb = { .arg = s, .problem = on_problem };
	struct xfsj_check_result res;

	memset(s, 0, sizeof(*s));
	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_check(fx->fs, NULL, &cb, &res), 0);
	return s->n;
}

/* Was @code (or one of "a|b") reported? */
static bool saw(const struct seen *s, const char *code)
{
	const char *bar = strchr(code, '|');
	size_t len = bar ? (size_t)(bar - code) : strlen(code);

	for (unsigned int i = 0; i < s->n; i++)
		if (strlen(s->codes[i]) == len &&
		    !strncmp(s->codes[i], code, len))
			return true;
	return bar && saw(s, bar + 1);
}

static uint64_t ino_offset(const struct xfsj_sb *sb, uint64_t ino)
{
	uint64_t agno = ino >> (sb->agblklog + sb->inopblog);
	uint64_t agino = ino & ((1ULL << (sb->agblklog + sb->inopblog)) - 1);

	return (agno * sb->agblocks + agino / sb->inopblock) * sb->blocksize +
	       (agino % sb->inopblock) * sb->inodesize;
}

/* Edit inode @ino on the device with @edit, then restamp its CRC. */
static void edit_inode(struct fs_fixture *fx, uint64_t ino,
		       void (*edit)(uint8_t *raw, void *arg), void *arg,
		       bool crc)
{
	uint8_t raw[2048];
	uint64_t off = ino_offset(&fx->sb, ino);

	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_overlay_read(fx->ov, raw, fx->sb.inodesize, off),
			 0);
	edit(raw, arg);
	if (crc)
		xfsj_cksum_update(raw, fx->sb.inodesize, XFSJ_DINODE_CRC_OFF);
	ck_assert_int_eq(xfsj_overlay_write(fx->ov, raw, fx->sb.inodesize,
					    off), 0);
}

struct put { size_t off; unsigned int size; uint64_t v; };

static void put_field(uint8_t *raw, void *arg)
{
	const struct put *p = arg;

	switch (p->size) {
	case 1: raw[p->off] = (uint8_t)p->v; break;
	case 2: xfsj_put_be16(raw + p->off, (uint16_t)p->v); break;
	case 4: xfsj_put_be32(raw + p->off, (uint32_t)p->v); break;
	default: xfsj_put_be64(raw + p->off, p->v); break;
	}
}

START_TEST(fresh_fs_is_clean)
{
	struct fs_fixture fx;
	struct seen s;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, true);
	ck_assert_uint_eq(run_check(&fx, &s), 0);
	fs_fixture_free(&fx);
}
END_TEST

/* One field of the root directory's core at a time, CRC restamped. */
static const struct {
	struct put p;
	const char *code;
} root_cases[] = {
	{ { XFSJ_DI_OFF(mode), 2, 0170755 }, "inode.mode" },
	{ { XFSJ_DI_OFF(mode), 2, 0 }, "inode.used_free" },
	{ { XFSJ_DI_OFF(version), 1, 2 }, "inode.version" },
	{ { XFSJ_DI_OFF(ino), 8, 99 }, "inode.ino" },
	{ { XFSJ_DI_OFF(format), 1, XFSJ_DINODE_FMT_BTREE }, "inode.format" },
	{ { XFSJ_DI_OFF(forkoff), 1, 200 }, "inode.forkoff" },
	{ { XFSJ_DI_OFF(aformat), 1, 7 }, "inode.aformat" },
	{ { XFSJ_DI_OFF(onlink), 2, 3 }, "inode.onlink" },
	/* the attr fork's count with large extent counters */
	{ { XFSJ_DI_OFF(nextents), 4, 5 }, "fork.nextents" },
	{ { XFSJ_DI_OFF(size), 8, 0 }, "inode.size" },
	{ { XFSJ_DI_OFF(flags), 2, 0x8000 }, "inode.flags" },
	{ { XFSJ_DI_OFF(flags2), 8, 0x0a }, "inode.flags2" },
	{ { XFSJ_DI_OFF(extsize), 4, 16 }, "inode.extsize" },
	{ { XFSJ_DI_OFF(cowextsize), 4, 16 }, "inode.cowextsize" },
	{ { XFSJ_DI_OFF(nlink), 4, 0 }, "inode.nlink_zero" },
	{ { XFSJ_DI_OFF(next_unlinked), 4, 1 }, "inode.next_unlinked" },
};

START_TEST(root_core_fields)
{
	struct fs_fixture fx;
	struct put p = root_cases[_i].p;
	struct seen s;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, true);
	edit_inode(&fx, fx.sb.rootino, put_field, &p, true);
	run_check(&fx, &s);
	ck_assert_msg(saw(&s, root_cases[_i].code), "case %d: %s not seen",
		      _i, root_cases[_i].code);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(bad_crc_and_magic)
{
	struct fs_fixture fx;
	struct put p = { XFSJ_DI_OFF(gen), 4, 12345 };
	struct seen s;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	edit_inode(&fx, fx.sb.rootino, put_field, &p, false);
	run_check(&fx, &s);
	ck_assert(saw(&s, "inode.crc"));
	/* A free slot of the chunk is checked too. */
	p = (struct put){ XFSJ_DI_OFF(magic), 2, 0x1234 };
	edit_inode(&fx, fx.sb.rootino + 9, put_field, &p, true);
	run_check(&fx, &s);
	ck_assert(saw(&s, "inode.magic"));
	fs_fixture_free(&fx);
}
END_TEST

/*
 * A core made in use behind the inobt's back: the free mask disagrees;
 * its forks are still walked (mappings checked, block count compared).
 */
START_TEST(file_forks)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct seen s;
	uint64_t ino, fsb;
	struct put p;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ino = fs_fixture_make_file(&fx, 5, 7, 0, 0, &ip);
	fsb = fs_fixture_alloc(&fx, 1, 4);
	fs_fixture_map(&fx, ino, 0, 10, fsb, 4, false);
	run_check(&fx, &s);
	ck_assert(saw(&s, "inode.free_in_use"));
	ck_assert(!saw(&s, "fork.nblocks"));
	ck_assert(!saw(&s, "fork.ext_block"));

	/* The block count one off. */
	p = (struct put){ XFSJ_DI_OFF(nblocks), 8, 5 };
	edit_inode(&fx, ino, put_field, &p, true);
	run_check(&fx, &s);
	ck_assert(saw(&s, "fork.nblocks"));

	/* The record's start block past the AG: low bits of the record. */
	p = (struct put){ XFSJ_DINODE_CORE_SIZE + 8, 8,
			  ((uint64_t)fx.sb.agblocks * 4) << 21 | 4 };
	edit_inode(&fx, ino, put_field, &p, true);
	run_check(&fx, &s);
	ck_assert(saw(&s, "fork.ext_block"));
	fs_fixture_free(&fx);
}
END_TEST

/* Turn the file @ino into a symlink of @size bytes in @format. */
struct to_link { uint64_t size; uint8_t format; const char *target; };

static void make_link(uint8_t *raw, void *arg)
{
	const struct to_link *t = arg;

	xfsj_put_be16(raw + XFSJ_DI_OFF(mode), S_IFLNK | 0777);
	xfsj_put_be64(raw + XFSJ_DI_OFF(size), t->size);
	raw[XFSJ_DI_OFF(format)] = t->format;
	if (t->target)
		memcpy(raw + XFSJ_DINODE_CORE_SIZE, t->target, t->size);
}

/* The remote target block at @fsb: @len bytes of 'a' (a NUL at @nul_at). */
static void put_link_block(struct fs_fixture *fx, uint64_t fsb, uint32_t len,
			   uint64_t owner, size_t nul_at)
{
	uint8_t blk[4096];
	uint64_t daddr = xfsj_fsb_daddr(&fx->sb, fsb);

	ck_assert_uint_eq(fx->sb.blocksize, sizeof(blk));
	memset(blk, 0, sizeof(blk));
	xfsj_put_be32(blk, XFSJ_SYMLINK_MAGIC);
	xfsj_put_be32(blk + 8, len);
	memcpy(blk + 16, xfsj_meta_fs_uuid(&fx->sb), 16);
	xfsj_put_be64(blk + 32, owner);
	xfsj_put_be64(blk + 40, daddr);
	memset(blk + XFSJ_RMT_HDR_SIZE, 'a', len);
	if (nul_at)
		blk[XFSJ_RMT_HDR_SIZE + nul_at] = 0;
	xfsj_cksum_update(blk, sizeof(blk), XFSJ_RMT_OFF(crc));
	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_overlay_write(fx->ov, blk, sizeof(blk),
					    daddr << 9), 0);
}

START_TEST(symlinks)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct to_link lk = { 20, XFSJ_DINODE_FMT_EXTENTS, NULL };
	struct to_link lo = { 5, XFSJ_DINODE_FMT_LOCAL, "ab\0de" };
	struct seen s;
	uint64_t remote, local, fsb;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	remote = fs_fixture_make_file(&fx, 6, 3, 0, 0, &ip);
	fsb = fs_fixture_alloc(&fx, 1, 1);
	fs_fixture_map(&fx, remote, 0, 0, fsb, 1, false);
	edit_inode(&fx, remote, make_link, &lk, true);
	put_link_block(&fx, fsb, 20, remote, 0);
	run_check(&fx, &s);
	ck_assert(!saw(&s, "symlink.header|symlink.crc|symlink.nul"));

	put_link_block(&fx, fsb, 20, remote + 1, 0);
	run_check(&fx, &s);
	ck_assert(saw(&s, "symlink.header"));
	put_link_block(&fx, fsb, 19, remote, 0);
	run_check(&fx, &s);
	ck_assert(saw(&s, "symlink.header"));
	put_link_block(&fx, fsb, 20, remote, 7);
	run_check(&fx, &s);
	ck_assert(saw(&s, "symlink.nul"));

	local = fs_fixture_make_file(&fx, 7, 3, 0, 0, &ip);
	edit_inode(&fx, local, make_link, &lo, true);
	run_check(&fx, &s);
	ck_assert(saw(&s, "symlink.nul"));
	fs_fixture_free(&fx);
}
END_TEST

/* Every problem of a run as its formatted message, in order. */
struct msgs {
	char line[32][160];
	unsigned int n;
};

static void on_msg(void *arg, const struct xfsj_problem *p)
{
	struct msgs *m = arg;
	char msg[128];

	xfsj_problem_format(p, msg, sizeof(msg));
	if (m->n < 32)
		snprintf(m->line[m->n++], sizeof(m->line[0]), "%s: %s",
			 p->def->code, msg);
}

static void run_stride(struct fs_fixture *fx, unsigned int threads,
		       unsigned int ag_stride, struct msgs *m,
		       struct xfsj_check_result *res)
{
	const struct xfsj_check_opts o = {
		.threads = threads, .ag_stride = ag_stride,
	};
	struct xfsj_check_cb cb = { .arg = m, .problem = on_msg };

	memset(m, 0, sizeof(*m));
	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_check(fx->fs, &o, &cb, res), 0);
}

static void run_threads(struct fs_fixture *fx, unsigned int threads,
			struct msgs *m, struct xfsj_check_result *res)
{
	run_stride(fx, threads, 0, m, res);
}

/* AG @agno's AGF: a 32-bit field @off set to @v, the CRC restamped or not. */
static void poke_agf(struct fs_fixture *fx, uint32_t agno, size_t off,
		     uint32_t v, bool crc)
{
	uint8_t sect[4096];
	uint64_t at = (uint64_t)agno * fx->sb.agblocks * fx->sb.blocksize +
		      fx->sb.sectsize;

	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_overlay_read(fx->ov, sect, fx->sb.sectsize, at),
			 0);
	xfsj_put_be32(sect + off, v);
	if (crc)
		xfsj_cksum_update(sect, fx->sb.sectsize, XFSJ_AGF_CRC_OFF);
	ck_assert_int_eq(xfsj_overlay_write(fx->ov, sect, fx->sb.sectsize,
					    at), 0);
}

/*
 * The AG, inode and space phases on threads (parallel.c) report what one
 * thread does, in the same order, and count the same: AG headers of two
 * AGs, problems of inodes, a fork mapped into another AG (a claim handed
 * over), the AGF counters of AGs 1 and 2 (space phase problems of two
 * AGs, the space phase on threads too), the names phase after; the same
 * with -o ag_stride (1: four threads, 3: two, capped by @threads).
 */
START_TEST(threads_same_result)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct xfsj_check_result r1, rn;
	struct msgs m1, mn;
	uint64_t ino, fsb;
	struct put p;

	fs_fixture_make(&fx, 64 * MB, 4096, 4, true, false);
	ino = fs_fixture_make_file(&fx, 5, 7, 0, 0, &ip);
	fsb = fs_fixture_alloc(&fx, 2, 4);
	fs_fixture_map(&fx, ino, 0, 10, fsb, 4, false);
	p = (struct put){ XFSJ_DI_OFF(nblocks), 8, 5 };
	edit_inode(&fx, ino, put_field, &p, true);
	p = (struct put){ XFSJ_DI_OFF(gen), 4, 12345 };
	edit_inode(&fx, fx.sb.rootino + 9, put_field, &p, false);
	poke_agf(&fx, 1, XFSJ_AGF_OFF(freeblks), 3, true);
	poke_agf(&fx, 3, XFSJ_AGF_OFF(longest), 5, false);
	poke_agf(&fx, 2, XFSJ_AGF_OFF(longest), 1, true);
	run_threads(&fx, 1, &m1, &r1);
	ck_assert_uint_ge(m1.n, 5);
	{
		unsigned int agf = 0;

		for (unsigned int i = 0; i < m1.n; i++)
			agf += !strncmp(m1.line[i], "agf.counter", 11);
		ck_assert_uint_ge(agf, 2);
	}
	for (unsigned int t = 2; t <= 5; t++) {
		run_threads(&fx, t, &mn, &rn);
		ck_assert_uint_eq(mn.n, m1.n);
		for (unsigned int i = 0; i < m1.n; i++)
			ck_assert_str_eq(mn.line[i], m1.line[i]);
		ck_assert_uint_eq(rn.problems, r1.problems);
		ck_assert_uint_eq(rn.inodes, r1.inodes);
		ck_assert_uint_eq(rn.extents, r1.extents);
		ck_assert_uint_eq(rn.dirs, r1.dirs);
		ck_assert_mem_eq(rn.by_sev, r1.by_sev, sizeof(r1.by_sev));
		ck_assert_mem_eq(rn.work, r1.work, sizeof(r1.work));
	}
	for (unsigned int k = 0; k < 3; k++) {
		static const unsigned int cfg[3][2] = { { 0, 1 }, { 0, 3 },
							{ 2, 1 } };

		run_stride(&fx, cfg[k][0], cfg[k][1], &mn, &rn);
		ck_assert_uint_eq(mn.n, m1.n);
		for (unsigned int i = 0; i < m1.n; i++)
			ck_assert_str_eq(mn.line[i], m1.line[i]);
		ck_assert_mem_eq(rn.work, r1.work, sizeof(r1.work));
	}
	fs_fixture_free(&fx);
}
END_TEST

Suite *check_inodes_suite(void)
{
	Suite *s = suite_create("check_inodes");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, fresh_fs_is_clean);
	tcase_add_loop_test(tc, root_core_fields, 0,
			    sizeof(root_cases) / sizeof(root_cases[0]));
	tcase_add_test(tc, bad_crc_and_magic);
	tcase_add_test(tc, file_forks);
	tcase_add_test(tc, symlinks);
	tcase_add_test(tc, threads_same_result);
	suite_add_tcase(s, tc);
	return s;
}
