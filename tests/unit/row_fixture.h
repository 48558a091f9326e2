/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the row-by-row repair tests share (test_repair_policy.c,
 * test_repair_rows.c): the codes a check reports, one field of one
 * on-disk structure set by hand (its CRC restamped unless asked not to),
 * and the proof that a row is answered: found, repaired, and the check
 * after finds nothing.
 */
#ifndef XFSJ_TEST_ROW_FIXTURE_H
#define XFSJ_TEST_ROW_FIXTURE_H

#include "fs_fixture.h"
#include "xfsj/check.h"

/* The codes a check reported (INFO left out), in order. */
struct seen {
	char codes[64][40];
	size_t n;
};

/* Reopen and check: what it finds into @s. */
void check_into(struct fs_fixture *fx, struct seen *s);
bool has(const struct seen *s, const char *code);
/* The codes of @s, space-separated, into @buf (cut at @size). */
const char *seen_list(const struct seen *s, char *buf, size_t size);
/* @ip's core bytes changed by hand: its CRC restamped, its buffer dirty. */
void core_changed(struct fs_fixture *fx, struct xfsj_iref *ip);
/* Set @field of inode @ino to @v, CRC restamped. */
void poke_ino(struct fs_fixture *fx, uint64_t ino, const char *field,
	      uint64_t v);
void poke_root(struct fs_fixture *fx, const char *field, uint64_t v);

/* The structures poke_at reaches. */
#define RMAP_NODE_KEY	40	/* an rmapbt node's key: low and high */
enum poke_where {
	AT_SB0,		/* the primary superblock */
	AT_SB1,		/* AG 1's superblock */
	AT_AGF1,	/* AG 1's AGF, AGI, AGFL */
	AT_AGI1,
	AT_AGFL1,
	AT_BNO1,	/* the root blocks of AG 1's bnobt, cntbt, inobt, */
	AT_CNT1,	/* finobt, rmapbt and refcountbt */
	AT_INO1,
	AT_FINO1,
	AT_RMAP1,
	AT_REFC1,
	AT_INO0,	/* AG 0's inobt and finobt roots (the root's chunk) */
	AT_FINO0,
	AT_ROOTINO,	/* the root directory's inode */
	AT_RMAP1_CHILD0, /* AG 1's rmapbt root's first child (a node root) */
	AT__COUNT
};

/*
 * Set @field (a name of the structure's layout; NULL: the big-endian
 * 32 bits at byte @off instead) of the structure at @where to @v
 * through the overlay, its CRC restamped unless @keep_crc; the handle
 * reopened.
 */
void poke_at(struct fs_fixture *fx, enum poke_where where, const char *field,
	     size_t off, uint64_t v, bool keep_crc);
/* Big-endian @v of @width bytes (0: 4) at @p. */
void row_put_be(uint8_t *p, unsigned int width, uint64_t v);
/* The big-endian 32 bits at byte @off of the structure at @where. */
uint32_t peek_at(struct fs_fixture *fx, enum poke_where where, size_t off);

/*
 * On a fresh fixture, a regular file of two mappings (offsets 0 and 10,
 * two blocks each) and a character device, both named by the root,
 * settled by a repair so that the check finds nothing: the numbers in
 * @ino (file, device).
 */
void two_named_files(struct fs_fixture *fx, uint64_t ino[2]);

/*
 * Changes made through the handle settled: what the check finds (the
 * superblock's counters the handle does not keep) repaired, and the
 * check then finds nothing.
 */
void settled(struct fs_fixture *fx);
/*
 * @n user attributes "attr_NNN" on the root with @vlen-byte values, the
 * filesystem then checking clean (short form up to a few, leaf past).
 */
void root_attrs(struct fs_fixture *fx, unsigned int n, uint32_t vlen);
/* The root's attribute leaf block 0, in *@bp. */
uint8_t *root_attr_leaf(struct fs_fixture *fx, struct xfsj_buf **bp);
/* The root's attribute fork block @dablk (any kind), in *@bp. */
uint8_t *root_attr_block(struct fs_fixture *fx, uint32_t dablk,
			 struct xfsj_buf **bp);

/*
 * The root rewritten as a block directory naming ROOT_DIR_FILES new
 * files (names ROOT_DIR_NAME_FMT of their index), settled by a repair
 * so that the check finds nothing: its block, in the handle's cache.
 */
#define ROOT_DIR_FILES		30
#define ROOT_DIR_NAME_FMT	"a-name-long-enough-for-a-block-%02d"
#define ROOT_DIR_NAME7		"a-name-long-enough-for-a-block-07"
struct xfsj_buf *root_block_dir(struct fs_fixture *fx);
/* In that block, the file type byte of file 7's entry. */
uint8_t *root_dir_ftype7(struct fs_fixture *fx, struct xfsj_buf *bp);

/*
 * Byte @byte of the device XORed with @mask behind the handle's back
 * (its flush restamps every block's LSN and CRC): the handle flushed
 * first, reopened after.
 */
void overlay_xor(struct fs_fixture *fx, uint64_t byte, uint8_t mask);

/*
 * Row @code found after the damage (among what it brings), its handler
 * has code, and after a repair the check finds nothing at all.
 */
void answered(struct fs_fixture *fx, const char *code);

#endif
