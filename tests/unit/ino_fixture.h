/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inodes and inode chunks made by hand on the fs_fixture filesystem, as
 * an allocation would leave them: inobt/finobt bits and records, AGI
 * counts, initialised inode cores.  For the inode freeing tests
 * (test_iunlink.c, test_ialloc.c).
 */
#ifndef XFSJ_TEST_INO_FIXTURE_H
#define XFSJ_TEST_INO_FIXTURE_H

#include "fs_fixture.h"
#include "fs/btree.h"

/* The inode @ino in its block (the buffer in *bpp when asked). */
uint8_t *ino_ptr(struct fs_fixture *fx, uint64_t ino, struct xfsj_buf **bpp);
void ino_get(struct fs_fixture *fx, uint64_t ino, struct xfsj_dinode *di);
/* AGI unlinked bucket @bucket of AG @agno. */
void set_bucket(struct fs_fixture *fx, uint32_t agno, unsigned int bucket,
		uint32_t agino);
uint32_t get_bucket(struct fs_fixture *fx, uint32_t agno, unsigned int bucket);
void agi_get(struct fs_fixture *fx, uint32_t agno, struct xfsj_agi *agi);
/* Add @count and @freecount to the AGI's counters. */
void agi_add(struct fs_fixture *fx, uint32_t agno, int count, int freecount);
/* The inobt (or finobt) record holding @agino; false when none. */
bool ibt_rec(struct fs_fixture *fx, enum xfsj_btnum bt, uint32_t agno,
	     uint32_t agino, struct xfsj_inobt_rec *out);
/* Mark @agino in use in the inobt, finobt and AGI, as an allocation would. */
void ino_take(struct fs_fixture *fx, uint32_t agno, uint32_t agino);
/* A v3 core for @ino: magic, UUID, generation 7, no links, extents. */
void dinode_base(struct fs_fixture *fx, uint64_t ino, struct xfsj_dinode *di);
/*
 * A new inode chunk at the first free aligned place from @from in AG
 * @agno (only the parts @holemask does not mark as holes), every inode
 * free, with its inobt/finobt records and AGI counts; its inodes are
 * initialised.  Returns its first agino.
 */
uint32_t make_chunk_sparse(struct fs_fixture *fx, uint32_t agno,
			   uint32_t from, uint16_t holemask);
uint32_t make_chunk(struct fs_fixture *fx, uint32_t agno, uint32_t from);

/* Inode rootino + @slot made an empty directory in use (nlink 2), or a
 * regular file in use with @nlink links; named by no entry. */
uint64_t ino_make_dir(struct fs_fixture *fx, unsigned int slot);
uint64_t ino_make_reg(struct fs_fixture *fx, unsigned int slot,
		      uint32_t nlink);
/* Give @ino a parent pointer (@parent, @name), the parent's generation. */
void ino_add_pptr(struct fs_fixture *fx, uint64_t ino, uint64_t parent,
		  const char *name);
/* Does short-form directory @dir name @ino @name? */
bool dir_sf_names(struct fs_fixture *fx, uint64_t dir, uint64_t ino,
		  const char *name);
/* The inode short-form directory @dir names @name (NULLFSINO: none). */
uint64_t dir_sf_lookup(struct fs_fixture *fx, uint64_t dir, const char *name);
/* How many entries short-form directory @dir holds ("." and ".." not). */
size_t dir_sf_count(struct fs_fixture *fx, uint64_t dir);

#endif
