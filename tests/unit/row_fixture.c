/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "row_fixture.h"
#include "xfsj/ondisk.h"
#include "xfsj/repair.h"
#include "core/crc32c.h"
#include "core/layout.h"
#include "ondisk/format.h"
#include "fs/dir_write.h"
#include "fs/bmap.h"
#include "fs/bmbt.h"
#include "fs/attr.h"
#include "fs/defer.h"
#include "ondisk/attr_layout.h"
#include "ondisk/dir_block.h"

static void on_problem(void *arg, const struct xfsj_problem *p)
{
	struct seen *s = arg;

	if (p->def->sev == XFSJ_SEV_INFO || s->n == 64)
		return;
	strncpy(s->codes[s->n], p->def->code, sizeof(s->codes[0]) - 1);
	s->codes[s->n++][sizeof(s->codes[0]) - 1] = '\0';
}

void check_into(struct fs_fixture *fx, struct seen *s)
{
	struct xfsj_check_cb cb = { .arg = s, .problem = on_problem };
	struct xfsj_check_result res;

	memset(s, 0, sizeof(*s));
	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_check(fx->fs, NULL, &cb, &res), 0);
}

bool has(const struct seen *s, const char *code)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->codes[i], code))
			return true;
	return false;
}

const char *seen_list(const struct seen *s, char *buf, size_t size)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->n && at + 1 < size; i++) {
		int n = snprintf(buf + at, size - at, "%s%s", i ? " " : "",
				 s->codes[i]);

		if (n < 0)
			break;
		at += (size_t)n;
	}
	return buf;
}

void core_changed(struct fs_fixture *fx, struct xfsj_iref *ip)
{
	xfsj_dinode_finish(ip->dip, fx->sb.inodesize);
	xfsj_buf_dirty(ip->bp);
}

void poke_ino(struct fs_fixture *fx, uint64_t ino, const char *field,
	      uint64_t v)
{
	struct xfsj_iref ip;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, true, &ip, &fx->f), 0);
	ck_assert_msg(xfsj_layout_put(&xfsj_dinode_layout, ip.dip, field,
				      v) == 0, "inode field %s", field);
	core_changed(fx, &ip);
	fs_fixture_reopen(fx);
}

void poke_root(struct fs_fixture *fx, const char *field, uint64_t v)
{
	poke_ino(fx, fx->sb.rootino, field, v);
}

/* Where a structure is: its layout, its bytes, its CRC's offset. */
struct spot {
	const struct xfsj_layout *l;
	uint64_t byte;
	uint32_t len;
	size_t crc_off;
};

/* An AG header sector: its AG, its sector in the AG, its layout. */
static const struct {
	const struct xfsj_layout *l;
	uint32_t agno, sector;
	size_t crc_off;
} sectors[] = {
	[AT_SB0] = { &xfsj_sb_layout, 0, 0, XFSJ_SB_CRC_OFF },
	[AT_SB1] = { &xfsj_sb_layout, 1, 0, XFSJ_SB_CRC_OFF },
	[AT_AGF1] = { &xfsj_agf_layout, 1, 1, XFSJ_AGF_CRC_OFF },
	[AT_AGI1] = { &xfsj_agi_layout, 1, 2, XFSJ_AGI_CRC_OFF },
	[AT_AGFL1] = { &xfsj_agfl_layout, 1, 3, XFSJ_AGFL_CRC_OFF },
};

/* A btree root named by a field of an AG's AGF or AGI. */
static const struct {
	uint32_t agno;
	bool agi;
	const char *root;
} roots[] = {
	[AT_BNO1] = { 1, false, "bno_root" },
	[AT_CNT1] = { 1, false, "cnt_root" },
	[AT_INO1] = { 1, true, "root" },
	[AT_FINO1] = { 1, true, "free_root" },
	[AT_RMAP1] = { 1, false, "rmap_root" },
	[AT_REFC1] = { 1, false, "refcount_root" },
	[AT_INO0] = { 0, true, "root" },
	[AT_FINO0] = { 0, true, "free_root" },
};

static void locate(struct fs_fixture *fx, enum poke_where w, struct spot *s)
{
	const struct xfsj_sb *sb = &fx->sb;
	uint64_t ag1 = (uint64_t)sb->agblocks * sb->blocksize;
	uint8_t hdr[512];
	int off;

	if (w < sizeof(sectors) / sizeof(sectors[0]) && sectors[w].l) {
		*s = (struct spot){ sectors[w].l,
				    sectors[w].agno * ag1 +
				    sectors[w].sector * sb->sectsize,
				    sb->sectsize, sectors[w].crc_off };
		return;
	}
	if (w == AT_ROOTINO) {
		*s = (struct spot){ &xfsj_dinode_layout,
			(xfsj_agb_to_daddr(sb, 0, (uint32_t)(sb->rootino >>
							     sb->inopblog))
			 << 9) + (sb->rootino & (sb->inopblock - 1)) *
				 sb->inodesize,
			sb->inodesize, XFSJ_DINODE_CRC_OFF };
		return;
	}
	if (w == AT_RMAP1_CHILD0) {
		uint32_t maxr = xfsj_btree_maxrecs(XFSJ_BT_RMAP,
						   sb->blocksize, false);

		locate(fx, AT_RMAP1, s);
		ck_assert_int_eq(xfsj_overlay_read(fx->ov, hdr, sizeof(hdr),
						   s->byte), 0);
		ck_assert_uint_gt(xfsj_get_be16(hdr + 4), 0);	/* level */
		ck_assert_int_eq(xfsj_overlay_read(fx->ov, hdr, 4, s->byte +
				XFSJ_SBLOCK_HDR_SIZE + maxr * RMAP_NODE_KEY),
				 0);
		s->byte = xfsj_agb_to_daddr(sb, 1, xfsj_get_be32(hdr)) << 9;
		return;
	}
	ck_assert_uint_lt(w, sizeof(roots) / sizeof(roots[0]));
	ck_assert_ptr_nonnull(roots[w].root);
	ck_assert_int_eq(xfsj_overlay_read(fx->ov, hdr, sizeof(hdr),
					   roots[w].agno * ag1 +
					   (roots[w].agi ? 2 : 1) *
					   sb->sectsize), 0);
	off = xfsj_layout_offset(roots[w].agi ? &xfsj_agi_layout
					      : &xfsj_agf_layout,
				 roots[w].root);
	ck_assert_int_ge(off, 0);
	*s = (struct spot){ &xfsj_sblock_layout,
			    xfsj_agb_to_daddr(sb, roots[w].agno,
					      xfsj_get_be32(hdr + off)) << 9,
			    sb->blocksize, XFSJ_SBLOCK_CRC_OFF };
}

void poke_at(struct fs_fixture *fx, enum poke_where where, const char *field,
	     size_t off, uint64_t v, bool keep_crc)
{
	uint8_t buf[65536];
	struct spot s;

	fs_fixture_reopen(fx);
	locate(fx, where, &s);
	ck_assert_uint_le(s.len, sizeof(buf));
	ck_assert_int_eq(xfsj_overlay_read(fx->ov, buf, s.len, s.byte), 0);
	if (field) {
		ck_assert_msg(xfsj_layout_put(s.l, buf, field, v) == 0,
			      "field %s", field);
	} else {
		ck_assert_uint_le(off + 4, s.len);
		xfsj_put_be32(buf + off, (uint32_t)v);
	}
	if (!keep_crc)
		xfsj_cksum_update(buf, s.len, s.crc_off);
	ck_assert_int_eq(xfsj_overlay_write(fx->ov, buf, s.len, s.byte), 0);
	fs_fixture_reopen(fx);
}

void row_put_be(uint8_t *p, unsigned int width, uint64_t v)
{
	for (unsigned int i = width ? width : 4; i-- > 0; v >>= 8)
		p[i] = (uint8_t)v;
}

uint32_t peek_at(struct fs_fixture *fx, enum poke_where where, size_t off)
{
	uint8_t b[4];
	struct spot s;

	fs_fixture_reopen(fx);
	locate(fx, where, &s);
	ck_assert_uint_le(off + 4, s.len);
	ck_assert_int_eq(xfsj_overlay_read(fx->ov, b, 4, s.byte + off), 0);
	return xfsj_get_be32(b);
}

/*
 * A regular file of two mappings and a character device, both named by
 * the root, settled by a repair so that the check finds nothing: the
 * numbers in @ino (file, device).
 */
void two_named_files(struct fs_fixture *fx, uint64_t ino[2])
{
	struct xfsj_dirent d[2];
	struct xfsj_repair_result res;
	struct xfsj_iref ip;
	uint64_t fsb;
	struct seen s;

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

void settled(struct fs_fixture *fx)
{
	/* The handle leaves the superblock's free block count behind. */
	if (fs_fixture_problems(fx)) {
		struct xfsj_repair_result res;

		ck_assert_int_eq(xfsj_repair(fx->fs, NULL, NULL, &res), 0);
	}
	ck_assert_uint_eq(fs_fixture_problems(fx), 0);
}

void root_attrs(struct fs_fixture *fx, unsigned int n, uint32_t vlen)
{
	uint8_t value[256];
	char name[16];
	struct xfsj_iref ip;

	memset(value, 'v', sizeof(value));
	ck_assert_int_eq(xfsj_iget(fx->fs, fx->sb.rootino, true, &ip, &fx->f),
			 0);
	for (unsigned int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "attr_%03u", i);
		ck_assert_int_eq(xfsj_attr_set(fx->fs, &ip,
			&(struct xfsj_attr_arg){ .name = (uint8_t *)name,
				.namelen = (uint32_t)strlen(name),
				.value = value, .valuelen = vlen },
			XFSJ_ATTR_CREATE, &fx->f), 0);
	}
	xfsj_iput(fx->fs, &ip, true);
	ck_assert_int_eq(xfsj_defer_finish(fx->fs, &fx->f), 0);
	settled(fx);
}

uint8_t *root_attr_block(struct fs_fixture *fx, uint32_t dablk,
			 struct xfsj_buf **bp)
{
	struct xfsj_iref ip;
	uint64_t fsb;

	ck_assert_int_eq(xfsj_iget(fx->fs, fx->sb.rootino, true, &ip, &fx->f),
			 0);
	ck_assert_uint_eq(ip.di.aformat, XFSJ_DINODE_FMT_EXTENTS);
	ck_assert_int_eq(xfsj_attr_bmap(fx->fs, &ip, dablk, &fsb, &fx->f), 0);
	ck_assert_int_eq(xfsj_buf_read(fx->fs, xfsj_fsb_daddr(&fx->sb, fsb),
				       fx->sb.blocksize, bp), 0);
	return (*bp)->data;
}

uint8_t *root_attr_leaf(struct fs_fixture *fx, struct xfsj_buf **bp)
{
	uint8_t *b = root_attr_block(fx, 0, bp);

	ck_assert_uint_eq(xfsj_get_be16(b + XFSJ_DA3_OFF_MAGIC),
			  XFSJ_ATTR3_LEAF_MAGIC);
	return b;
}

struct xfsj_buf *root_block_dir(struct fs_fixture *fx)
{
	enum { N = ROOT_DIR_FILES };
	static char names[N][40];
	struct xfsj_dirent d[N];
	struct xfsj_bmbt_irec *map;
	struct xfsj_iref ip;
	struct xfsj_buf *bp;
	size_t n;

	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), ROOT_DIR_NAME_FMT, i);
		d[i] = (struct xfsj_dirent){ names[i],
			(uint8_t)strlen(names[i]), XFSJ_FT_REG,
			fs_fixture_make_file(fx, 10 + (unsigned int)i, 1,
					     0, 0, &ip) };
	}
	ck_assert_int_eq(xfsj_dir_write(fx->fs, fx->sb.rootino, fx->sb.rootino,
					d, N, false, &fx->f), 0);
	/* (the files made behind the inobt's back: settled first) */
	settled(fx);
	ck_assert_int_eq(xfsj_iget(fx->fs, fx->sb.rootino, true, &ip, &fx->f),
			 0);
	ck_assert_int_eq(ip.di.format, XFSJ_DINODE_FMT_EXTENTS);
	ck_assert_int_eq(xfsj_bmap_read(fx->fs, &ip, XFSJ_DATA_FORK, &map, &n,
					&fx->f), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(xfsj_buf_read(fx->fs, xfsj_fsb_daddr(&fx->sb,
						map[0].startblock),
				       fx->sb.blocksize, &bp), 0);
	free(map);
	ck_assert_uint_eq(xfsj_get_be32(bp->data), XFSJ_DIR3_BLOCK_MAGIC);
	return bp;
}

uint8_t *root_dir_ftype7(struct fs_fixture *fx, struct xfsj_buf *bp)
{
	size_t len = strlen(ROOT_DIR_NAME7);
	uint8_t *at = memmem(bp->data, fx->sb.blocksize, ROOT_DIR_NAME7, len);

	ck_assert_ptr_nonnull(at);
	ck_assert_uint_eq(at[len], XFSJ_FT_REG);
	return at + len;
}

void overlay_xor(struct fs_fixture *fx, uint64_t byte, uint8_t mask)
{
	uint8_t sect[512];
	uint64_t at = byte & ~511ULL;

	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_overlay_read(fx->ov, sect, sizeof(sect), at), 0);
	sect[byte - at] ^= mask;
	ck_assert_int_eq(xfsj_overlay_write(fx->ov, sect, sizeof(sect), at),
			 0);
	fs_fixture_reopen(fx);
}

void answered(struct fs_fixture *fx, const char *code)
{
	const struct xfsj_problem_def *d = xfsj_problem_by_code(code);
	struct xfsj_repair_result res;
	char list[200];
	struct seen s;

	ck_assert_ptr_nonnull(d);
	ck_assert(xfsj_handler_implemented(d->handler));
	check_into(fx, &s);
	ck_assert_msg(has(&s, code), "%s not found (%zu others: %s)",
		      code, s.n, seen_list(&s, list, sizeof(list)));
	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_repair(fx->fs, NULL, NULL, &res), 0);
	ck_assert_uint_ge(res.actions, 1);
	check_into(fx, &s);
	ck_assert_msg(s.n == 0, "%s: after the repair %zu left: %s",
		      code, s.n, seen_list(&s, list, sizeof(list)));
}
