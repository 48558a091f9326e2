/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checker's attribute phase (check/attr*.c) on an in-memory
 * filesystem: files with a short-form, a leaf, a node and a remote-value
 * attribute fork check clean; then one field at a time is damaged (the
 * CRC kept right, as xfs_db's fuzz -d does) and the problem must name
 * that field; random damage to a leaf must not crash the check.  Only
 * the attribute phase's problems ("attr.*") are counted: the test files
 * are not linked into a directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_fixture.h"
#include "suites.h"
#include "xfsj/check.h"
#include "fs/attr.h"
#include "fs/bmap.h"
#include "fs/defer.h"
#include "core/crc32c.h"
#include "core/layout.h"

#define MB	(1ULL << 20)
#define MAXP	64
/* Remote value block header: where its offset and CRC are. */
#define RMT_OFFSET	4
#define RMT_CRC		12

struct seen {
	int n;
	char code[MAXP][32];
	char field[MAXP][64];
	char name[MAXP][64];
};

static void on_problem(void *arg, const struct xfsj_problem *p)
{
	struct seen *s = arg;

	if (strncmp(p->def->code, "attr.", 5) || s->n == MAXP)
		return;
	snprintf(s->code[s->n], sizeof(s->code[0]), "%s", p->def->code);
	snprintf(s->field[s->n], sizeof(s->field[0]), "%s",
		 p->field ? p->field : "");
	snprintf(s->name[s->n], sizeof(s->name[0]), "%.*s",
		 p->name ? (int)p->namelen : 0, p->name ? p->name : "");
	s->n++;
}

static void run_check(struct fs_fixture *fx, struct seen *s,
		      struct xfsj_check_result *res)
{
	struct xfsj_check_cb cb = { .arg = s, .problem = on_problem };

	memset(s, 0, sizeof(*s));
	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_check(fx->fs, NULL, &cb, res), 0);
}

/* Exactly one attribute problem, @code on @field. */
static void expect_one(struct fs_fixture *fx, const char *code,
		       const char *field)
{
	struct xfsj_check_result res;
	struct seen s;

	run_check(fx, &s, &res);
	for (int i = 0; i < s.n; i++)
		fprintf(stderr, "  %s %s %s\n", s.code[i], s.field[i],
			s.name[i]);
	ck_assert_int_eq(s.n, 1);
	ck_assert_str_eq(s.code[0], code);
	ck_assert_str_eq(s.field[0], field);
}

static uint64_t make_file(struct fs_fixture *fx, unsigned int slot,
			  struct xfsj_iref *ip)
{
	uint64_t flags2 = 0;

	if (xfsj_fs_sb(fx->fs)->features_incompat & XFSJ_INCOMPAT_NREXT64)
		flags2 |= XFSJ_DIFLAG2_NREXT64;
	return fs_fixture_make_file(fx, slot, 5, flags2, 24, ip);
}

static void set(struct fs_fixture *fx, struct xfsj_iref *ip, const char *name,
		uint32_t vlen)
{
	static uint8_t v[9000];
	struct xfsj_attr_arg a = { 0, (const uint8_t *)name,
				   (uint32_t)strlen(name), v, vlen, false };
	uint64_t ino = ip->ino;

	memset(v, 'v', sizeof(v));
	ck_assert_int_eq(xfsj_attr_set(fx->fs, ip, &a, XFSJ_ATTR_UPSERT,
				       &fx->f), 0);
	xfsj_iput(fx->fs, ip, false);
	ck_assert_int_eq(xfsj_defer_finish(fx->fs, &fx->f), 0);
	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, ip, &fx->f), 0);
}

/*
 * A filesystem of @bs-byte blocks with files in slots 9..12: a short-form,
 * a leaf, a node and a remote-value attribute fork.
 */
static void populate(struct fs_fixture *fx, uint32_t bs, uint64_t ino[4])
{
	struct xfsj_iref ip;
	char name[32];

	fs_fixture_make(fx, 64 * MB, bs, 2, true, false);
	ino[0] = make_file(fx, 9, &ip);
	set(fx, &ip, "one", 3);
	set(fx, &ip, "two", 5);
	xfsj_iput(fx->fs, &ip, false);
	ino[1] = make_file(fx, 10, &ip);
	for (int i = 0; i < 30; i++) {
		snprintf(name, sizeof(name), "leafattr_number_%d", i);
		set(fx, &ip, name, 20);
	}
	xfsj_iput(fx->fs, &ip, false);
	ino[2] = make_file(fx, 11, &ip);
	for (int i = 0; i < 400; i++) {
		snprintf(name, sizeof(name), "nodeattr_number_%d", i);
		set(fx, &ip, name, 40);
	}
	xfsj_iput(fx->fs, &ip, false);
	ino[3] = make_file(fx, 12, &ip);
	set(fx, &ip, "remote", 9000);
	xfsj_iput(fx->fs, &ip, false);
	fs_fixture_reopen(fx);
}

/* Attribute fork block @lblk of @ino, in the cache (marked dirty). */
static uint8_t *ablock(struct fs_fixture *fx, uint64_t ino, uint64_t lblk,
		       struct xfsj_buf **bp)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fx->fs);
	struct xfsj_iref ip;
	uint64_t fsb;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	ck_assert_int_eq(xfsj_attr_bmap(fx->fs, &ip, lblk, &fsb, &fx->f), 0);
	xfsj_iput(fx->fs, &ip, false);
	ck_assert_int_eq(xfsj_buf_read(fx->fs,
				       xfsj_agb_to_daddr(sb,
						xfsj_fsb_agno(sb, fsb),
						xfsj_fsb_agbno(sb, fsb)),
				       sb->blocksize, bp), 0);
	xfsj_buf_dirty(*bp);
	return (*bp)->data;
}

static void recrc(struct fs_fixture *fx, uint8_t *blk, size_t crc_off)
{
	xfsj_cksum_update(blk, xfsj_fs_sb(fx->fs)->blocksize, crc_off);
}

START_TEST(test_clean)
{
	struct fs_fixture fx;
	struct xfsj_check_result res;
	struct seen s;
	uint64_t ino[4];

	populate(&fx, _i ? 1024 : 4096, ino);
	run_check(&fx, &s, &res);
	ck_assert_int_eq(s.n, 0);
	ck_assert_uint_eq(res.attr_forks, 4);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * One field of one block damaged at a time (and put back): the file
 * (0..3 as populate() makes them), its attribute fork block, the byte
 * offset and width of the field, what is added to it (@set: written
 * instead), where the block's CRC is, and the one problem expected.
 */
static const struct poke {
	int file;
	uint32_t lblk, off, width;
	uint64_t delta;
	bool set;
	uint32_t crc;
	const char *code, *field;
} pokes[] = {
	{ 1, 0, 80 + 3 * 8, 4, 1, false, XFSJ_DA3_OFF_CRC,
	  "attr.leaf.hashval", "entries[3].hashval" },
	{ 1, 0, 80 + 5 * 8 + 6, 1, XFSJ_ATTR_FLAG_INCOMPLETE, false,
	  XFSJ_DA3_OFF_CRC, "attr.incomplete", "entries[5]" },
	{ 1, 0, XFSJ_ALEAF_OFF_USED, 2, 4, false, XFSJ_DA3_OFF_CRC,
	  "attr.leaf.usedbytes", "hdr.usedbytes" },
	{ 1, 0, XFSJ_DA3_OFF_OWNER, 8, 1, false, XFSJ_DA3_OFF_CRC,
	  "attr.blk.owner", "hdr.info.owner" },
	/* freemap[1] = [80, 8): over the entry table. */
	{ 1, 0, XFSJ_ALEAF_OFF_FREEMAP + 4, 4, 80 << 16 | 8, true,
	  XFSJ_DA3_OFF_CRC, "attr.leaf.freemap_used", "hdr.freemap[1].size" },
	{ 2, 0, 64 + 8, 4, 1, false, XFSJ_DA3_OFF_CRC,
	  "attr.node.hashval", "btree[1].hashval" },
	{ 2, 0, 64 + 12, 4, 0, true, XFSJ_DA3_OFF_CRC,
	  "attr.node.before", "btree[1].before" },
	{ 3, 2, RMT_OFFSET, 4, 7, true, RMT_CRC,
	  "attr.rmt.header", "header (owner/blkno/offset)" },
};

static uint64_t get_n(const uint8_t *p, uint32_t width)
{
	switch (width) {
	case 1: return p[0];
	case 2: return xfsj_get_be16(p);
	case 4: return xfsj_get_be32(p);
	default: return xfsj_get_be64(p);
	}
}

static void put_n(uint8_t *p, uint32_t width, uint64_t v)
{
	switch (width) {
	case 1: p[0] = (uint8_t)v; break;
	case 2: xfsj_put_be16(p, (uint16_t)v); break;
	case 4: xfsj_put_be32(p, (uint32_t)v); break;
	default: xfsj_put_be64(p, v); break;
	}
}

START_TEST(test_fields)
{
	const struct poke *k = &pokes[_i];
	struct fs_fixture fx;
	struct xfsj_buf *bp;
	uint64_t ino[4], old;
	uint8_t *b;

	populate(&fx, 4096, ino);
	b = ablock(&fx, ino[k->file], k->lblk, &bp);
	old = get_n(b + k->off, k->width);
	put_n(b + k->off, k->width, k->set ? k->delta : old + k->delta);
	recrc(&fx, b, k->crc);
	expect_one(&fx, k->code, k->field);
	/* Put back, the check is clean again. */
	b = ablock(&fx, ino[k->file], k->lblk, &bp);
	put_n(b + k->off, k->width, old);
	recrc(&fx, b, k->crc);
	{
		struct xfsj_check_result res;
		struct seen s;

		run_check(&fx, &s, &res);
		ck_assert_int_eq(s.n, 0);
	}
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_short_form)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	uint64_t ino[4];
	uint32_t size;
	uint8_t *p;

	populate(&fx, 4096, ino);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino[0], false, &ip, &fx.f), 0);
	ck_assert_uint_eq(ip.di.aformat, XFSJ_DINODE_FMT_LOCAL);
	p = xfsj_ifork(fx.fs, &ip, XFSJ_ATTR_FORK, &size);
	/* The second entry gets the first one's name. */
	ck_assert_uint_eq(p[4 + 3 + 3 + 3], 3);
	memcpy(p + 4 + 3 + 3 + 3 + 3, "one", 3);
	xfsj_iput(fx.fs, &ip, false);
	expect_one(&fx, "attr.duplicate", "sfattr.list[1]");
	ck_assert_int_eq(xfsj_iget(fx.fs, ino[0], false, &ip, &fx.f), 0);
	p = xfsj_ifork(fx.fs, &ip, XFSJ_ATTR_FORK, &size);
	p[2] = 3;	/* count */
	xfsj_iput(fx.fs, &ip, false);
	fs_fixture_reopen(&fx);
	{
		struct xfsj_check_result res;
		struct seen s;

		run_check(&fx, &s, &res);
		ck_assert_int_ge(s.n, 1);
		ck_assert_str_eq(s.code[0], "attr.sf.count");
	}
	fs_fixture_free(&fx);
}
END_TEST

/* Random bytes over a leaf and a node block (CRC made right): no crash. */
START_TEST(test_hostile)
{
	struct fs_fixture fx;
	struct xfsj_check_result res;
	struct xfsj_buf *bp;
	unsigned int seed = 11 + (unsigned int)_i;
	uint64_t ino[4];
	struct seen s;
	uint8_t *b, *save;

	populate(&fx, 4096, ino);
	save = malloc(4096);
	ck_assert_ptr_nonnull(save);
	for (int round = 0; round < 40; round++) {
		uint64_t which = ino[1 + round % 3];

		b = ablock(&fx, which, round % 3 == 2 ? 1 : 0, &bp);
		memcpy(save, b, 4096);
		for (int k = 0; k < 1 + rand_r(&seed) % 24; k++) {
			uint32_t at = 8 + rand_r(&seed) % (_i ? 200 : 4088);

			b[at] = (uint8_t)rand_r(&seed);
		}
		recrc(&fx, b, round % 3 == 2 ? RMT_CRC :
			      XFSJ_DA3_OFF_CRC);
		run_check(&fx, &s, &res);
		b = ablock(&fx, which, round % 3 == 2 ? 1 : 0, &bp);
		memcpy(b, save, 4096);
	}
	free(save);
	fs_fixture_free(&fx);
}
END_TEST

Suite *check_attr_suite(void)
{
	Suite *s = suite_create("check_attr");
	TCase *tc = tcase_create("check_attr");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_clean, 0, 2);
	tcase_add_loop_test(tc, test_fields, 0,
			    (int)(sizeof(pokes) / sizeof(pokes[0])));
	tcase_add_test(tc, test_short_form);
	tcase_add_loop_test(tc, test_hostile, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
