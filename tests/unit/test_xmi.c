/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Exchange-mapping recovery (fs/xmi.c) against a block-by-block model:
 * two files (or two ranges of one file) are given random layouts of
 * written and unwritten extents and holes; a recovered XMI exchanges
 * [startoff1, +count) of file 1 with [startoff2, +count) of file 2, and
 * afterwards every block offset of both files must map what the model
 * says -- the other file's block (with its written state) inside the
 * ranges, the same block outside them; with INO1_WRITTEN, file 1's holes
 * and unwritten blocks stay where they are -- with block counts and
 * (SET_SIZES) sizes crossed over, and the same after a flush and a new
 * handle.  Also: the exchange work refusing a work item of another kind,
 * ranges that wrap or pass the largest file offset, impossible inodes.
 */
#include <stdlib.h>
#include <string.h>

#include "fs_fixture.h"
#include "suites.h"
#include "fs/attri.h"
#include "fs/bmap.h"
#include "fs/defer.h"
#include "core/layout.h"

#define MB	(1ULL << 20)
#define SPAN	40		/* file blocks the layouts cover */
#define GEN	6U

/* What one file block maps: 0 a hole, else a device block. */
struct fblk {
	uint64_t fsb;
	bool unwritten;
};

struct xfile {
	uint64_t ino;
	struct fblk b[SPAN];
};

/* Random runs over [0, SPAN): holes, written, unwritten. */
static void layout(struct fs_fixture *fx, struct xfile *x, unsigned int *seed)
{
	uint32_t off = 0;

	memset(x->b, 0, sizeof(x->b));
	while (off < SPAN) {
		uint32_t len = 1 + (uint32_t)rand_r(seed) % 5;
		int kind = rand_r(seed) % 3;
		uint64_t fsb;

		if (len > SPAN - off)
			len = SPAN - off;
		if (kind) {
			fsb = fs_fixture_alloc(fx, 0, len);
			fs_fixture_map(fx, x->ino, XFSJ_DATA_FORK, off, fsb, len,
				       kind == 2);
			for (uint32_t k = 0; k < len; k++)
				x->b[off + k] = (struct fblk){ fsb + k,
							       kind == 2 };
		}
		off += len;
	}
}

/* The file as the library now has it, block by block. */
static void read_file(struct fs_fixture *fx, uint64_t ino, struct fblk *out,
		      uint64_t *nblocks)
{
	struct xfsj_bmbt_irec *ext;
	struct xfsj_iref ip;
	size_t n;

	memset(out, 0, SPAN * sizeof(*out));
	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	ck_assert_int_eq(xfsj_bmap_read(fx->fs, &ip, XFSJ_DATA_FORK, &ext, &n,
					&fx->f), 0);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_le(ext[i].startoff + ext[i].blockcount, SPAN);
		for (uint64_t k = 0; k < ext[i].blockcount; k++)
			out[ext[i].startoff + k] = (struct fblk){
				ext[i].startblock + k, ext[i].unwritten };
	}
	free(ext);
	*nblocks = ip.di.nblocks;
}

static void expect(struct fs_fixture *fx, const struct xfile *x)
{
	struct fblk got[SPAN];
	uint64_t nblocks, want = 0;

	read_file(fx, x->ino, got, &nblocks);
	for (uint32_t k = 0; k < SPAN; k++) {
		ck_assert_msg(got[k].fsb == x->b[k].fsb &&
			      got[k].unwritten == x->b[k].unwritten,
			      "inode %llu block %u: %llu%s, model %llu%s",
			      (unsigned long long)x->ino, k,
			      (unsigned long long)got[k].fsb,
			      got[k].unwritten ? "u" : "",
			      (unsigned long long)x->b[k].fsb,
			      x->b[k].unwritten ? "u" : "");
		want += x->b[k].fsb != 0;
	}
	ck_assert_uint_eq(nblocks, want);
}

/* The 88-byte XMI format, little-endian, as an x86 kernel logs it. */
struct xmi_item {
	uint8_t fmt[XFSJ_XMI_FMT_SIZE];
	struct xfsj_region reg;
	struct xfsj_pending_intent pi;
};

static void xmi_make(struct xmi_item *it, uint64_t ino1, uint64_t ino2,
		     uint64_t off1, uint64_t off2, uint64_t count,
		     uint64_t flags)
{
	const uint64_t words[] = {
		ino1, ino2, (uint64_t)GEN << 32 | GEN, off1, off2, count,
		flags, 0, 0,
	};

	memset(it, 0, sizeof(*it));
	xfsj_put_le16(it->fmt, XFSJ_LI_XMI);
	xfsj_put_le16(it->fmt + 2, 1);
	xfsj_put_le64(it->fmt + 8, 0x5eed);
	for (unsigned int i = 0; i < 9; i++)
		xfsj_put_le64(it->fmt + 16 + 8 * i, words[i]);
	it->reg = (struct xfsj_region){ it->fmt, sizeof(it->fmt) };
	it->pi = (struct xfsj_pending_intent){
		.type = XFSJ_LI_XMI, .id = 0x5eed, .lsn = (1ULL << 32) | 9,
		.fmt = it->fmt, .len = sizeof(it->fmt), .regs = &it->reg,
		.nreg = 1,
	};
}

static int recover(struct fs_fixture *fx, struct xmi_item *it)
{
	return fs_fixture_xmi(fx, &it->pi);
}

static void set_size(struct fs_fixture *fx, uint64_t ino, uint64_t size)
{
	struct xfsj_iref ip;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	ip.di.size = size;
	xfsj_iput(fx->fs, &ip, false);
}

static uint64_t size_of(struct fs_fixture *fx, uint64_t ino)
{
	struct xfsj_iref ip;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	return ip.di.size;
}

/* The model's exchange of block @k1 of @x1 with block @k2 of @x2. */
static void swap_blocks(struct xfile *x1, uint32_t k1, struct xfile *x2,
			uint32_t k2, bool ino1_written)
{
	struct fblk t = x1->b[k1];

	if (ino1_written && (!t.fsb || t.unwritten))
		return;
	x1->b[k1] = x2->b[k2];
	x2->b[k2] = t;
}

/*
 * _i: the seed.  Odd runs exchange two ranges of one file, even ones
 * two files; every third run sets INO1_WRITTEN, every other SET_SIZES.
 */
START_TEST(random_exchanges)
{
	unsigned int seed = 1000 + (unsigned int)_i;
	bool one_file = _i & 1, written = _i % 3 == 0, sizes = _i % 2 == 0;
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct xfile a, b, *f2;
	struct xmi_item it;
	uint32_t count, o1, o2;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	a.ino = fs_fixture_make_file(&fx, 10, GEN, 0, 0, &ip);
	b.ino = fs_fixture_make_file(&fx, 11, GEN, 0, 0, &ip);
	layout(&fx, &a, &seed);
	f2 = &a;
	if (!one_file) {
		layout(&fx, &b, &seed);
		f2 = &b;
	}
	set_size(&fx, a.ino, SPAN * 4096ULL - 100);
	set_size(&fx, b.ino, 7 * 4096ULL);
	count = 1 + (uint32_t)rand_r(&seed) % (one_file ? SPAN / 2 : SPAN);
	o1 = (uint32_t)rand_r(&seed) % (SPAN - count + 1);
	o2 = (uint32_t)rand_r(&seed) % (SPAN - count + 1);
	if (one_file) {		/* two ranges of one file may not overlap */
		o1 = (uint32_t)rand_r(&seed) % (SPAN / 2 - count + 1);
		o2 = SPAN / 2 + (uint32_t)rand_r(&seed) % (SPAN / 2 - count + 1);
	}
	xmi_make(&it, a.ino, f2->ino, o1, o2, count,
		 (written ? XFSJ_XMI_INO1_WRITTEN : 0) |
		 (sizes && !one_file ? XFSJ_XMI_SET_SIZES : 0));
	ck_assert_msg(recover(&fx, &it) == 0, "%s %s", fx.f.structure,
		      fx.f.field);
	for (uint32_t k = 0; k < count; k++)
		swap_blocks(&a, o1 + k, f2, o2 + k, written);
	expect(&fx, &a);
	expect(&fx, f2);
	if (sizes && !one_file) {
		ck_assert_uint_eq(size_of(&fx, a.ino), 7 * 4096ULL);
		ck_assert_uint_eq(size_of(&fx, b.ino), SPAN * 4096ULL - 100);
	} else {
		ck_assert_uint_eq(size_of(&fx, a.ino), SPAN * 4096ULL - 100);
	}
	fs_fixture_reopen(&fx);
	expect(&fx, &a);
	expect(&fx, f2);
	fs_fixture_free(&fx);
}
END_TEST

/* Exchange work of another kind is refused, naming it. */
START_TEST(finish_wrong_kind)
{
	struct fs_fixture fx;
	struct xfsj_work w;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	memset(&w, 0, sizeof(w));
	w.kind = XFSJ_W_FREE;
	ck_assert_int_eq(xfsj_xmi_finish(fx.fs, &w, &fx.f), -XFSJ_E_INVAL);
	ck_assert_str_eq(fx.f.field, "kind");
	fs_fixture_free(&fx);
}
END_TEST

/* Ranges that wrap or pass the largest offset; impossible inodes. */
START_TEST(hostile_ranges)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct xmi_item it;
	uint64_t a, b;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	a = fs_fixture_make_file(&fx, 10, GEN, 0, 0, &ip);
	b = fs_fixture_make_file(&fx, 11, GEN, 0, 0, &ip);
#define REFUSED(fld) do { \
		ck_assert_int_eq(recover(&fx, &it), -XFSJ_E_CORRUPT); \
		ck_assert_str_eq(fx.f.field, (fld)); \
	} while (0)
	xmi_make(&it, a, b, 5, 0, UINT64_MAX, 0);
	REFUSED("startoff1");
	xmi_make(&it, a, b, XFSJ_MAX_FILEOFF, 0, 1, 0);
	ck_assert_int_eq(recover(&fx, &it), 0);	/* the very last block */
	xmi_make(&it, a, b, XFSJ_MAX_FILEOFF, 0, 2, 0);
	REFUSED("startoff1");
	xmi_make(&it, a, b, 0, XFSJ_MAX_FILEOFF + 1, 1, 0);
	REFUSED("startoff2");
	xmi_make(&it, a, b, 1ULL << 63, 0, 1, 0);
	REFUSED("startoff1");
	xmi_make(&it, 0, b, 0, 0, 1, 0);
	REFUSED("inode1");
	xmi_make(&it, a, xfsj_agino_to_ino(&fx.sb, fx.sb.agcount, 64), 0, 0,
		 1, 0);
	REFUSED("inode2");
	/* A possible number, but no inode there: the read refuses it. */
	xmi_make(&it, a, fx.sb.rootino - 1, 0, 0, 1, 0);
	ck_assert_int_lt(recover(&fx, &it), 0);
	ck_assert_str_eq(fx.f.structure, "inode");
#undef REFUSED
	fs_fixture_free(&fx);
}
END_TEST

Suite *xmi_suite(void)
{
	Suite *s = suite_create("xmi");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, random_exchanges, 0, 24);
	tcase_add_test(tc, finish_wrong_kind);
	tcase_add_test(tc, hostile_ranges);
	suite_add_tcase(s, tc);
	return s;
}
