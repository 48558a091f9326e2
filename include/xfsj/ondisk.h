/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Codecs and verifiers of the AG headers, btree blocks, inodes and
 * short-form directories.  Verifiers return 0 or a negative error and fill
 * the fault with the structure, the field and its byte offset on the device
 * (@byte_off is where the buffer was read from).
 */
#ifndef XFSJ_ONDISK_H
#define XFSJ_ONDISK_H

#include <stdbool.h>

#include "ondisk/format.h"

/* What a verifier needs to know about the filesystem it checks. */
struct xfsj_vctx {
	uint8_t uuid[16];	/* metadata uuid */
	uint32_t sectsize;
	uint32_t blocksize;
	uint32_t inodesize;
	uint32_t agblocks;	/* of this AG (last may be short) */
	uint32_t agno;
	uint32_t features_ro_compat;
	uint32_t features_incompat;
};

/*
 * ---- bmbt records ----
 * 16 bytes, big-endian: bit 127 the unwritten flag, 54 bits of file
 * offset, 52 bits of start block, 21 bits of length.
 */
struct xfsj_bmbt_irec {
	uint64_t startoff;	/* file offset, blocks */
	uint64_t startblock;	/* fsbno */
	uint64_t blockcount;
	bool unwritten;
};
void xfsj_bmbt_rec_decode(const uint8_t *p, struct xfsj_bmbt_irec *r);
void xfsj_bmbt_rec_encode(const struct xfsj_bmbt_irec *r, uint8_t *p);

/* ---- AG headers ---- */
void xfsj_agf_decode(const void *buf, struct xfsj_agf *agf);
void xfsj_agf_encode(const struct xfsj_agf *agf, void *buf, size_t sectsize);
int xfsj_agf_verify(const void *buf, const struct xfsj_vctx *c,
		    uint64_t byte_off, struct xfsj_fault *f);

void xfsj_agi_decode(const void *buf, struct xfsj_agi *agi);
void xfsj_agi_encode(const struct xfsj_agi *agi, void *buf, size_t sectsize);
int xfsj_agi_verify(const void *buf, const struct xfsj_vctx *c,
		    uint64_t byte_off, struct xfsj_fault *f);

/* @bno holds xfsj_agfl_size(sectsize) slots. */
void xfsj_agfl_decode(const void *buf, size_t sectsize,
		      struct xfsj_agfl_hdr *hdr, uint32_t *bno);
void xfsj_agfl_encode(const struct xfsj_agfl_hdr *hdr, const uint32_t *bno,
		      void *buf, size_t sectsize);
int xfsj_agfl_verify(const void *buf, const struct xfsj_vctx *c,
		     uint64_t byte_off, struct xfsj_fault *f);

/* ---- btree blocks ---- */
enum xfsj_btnum {
	XFSJ_BT_BNO,
	XFSJ_BT_CNT,
	XFSJ_BT_INO,
	XFSJ_BT_FINO,
	XFSJ_BT_RMAP,
	XFSJ_BT_REFC,
	XFSJ_BT_BMAP,
	XFSJ_BT__COUNT
};

/*
 * The one description of a btree type: everything else that knows a tree
 * by its type or magic (the generic engine's ops rows in fs/btree_ag.c,
 * the metadata kinds of ondisk/meta.c, the log's buffer names) looks it
 * up here.
 */
struct xfsj_btree_shape {
	const char *name;
	const char *name_v4;	/* its pre-CRC blocks, or NULL (none) */
	uint32_t magic;		/* v5 (CRC) blocks */
	uint32_t magic_v4;	/* pre-CRC blocks, or 0 */
	uint16_t reclen;	/* leaf record */
	uint16_t keylen;	/* node key (both keys for overlapping trees) */
	uint16_t ptrlen;
	/* 64-bit fsbno pointers, the root in an inode fork (bmbt) rather
	 * than a block named by an AG header. */
	bool long_ptrs;
	bool overlapping;	/* nodes hold a low and a high key (rmapbt) */
	uint32_t need_ro_compat; /* feature bit the tree needs, or 0 */
	/* The v5 block header: its size, and where LSN, UUID, CRC are. */
	uint16_t hdrlen, lsn_off, uuid_off, crc_off;
};

const struct xfsj_btree_shape *xfsj_btree_shape(enum xfsj_btnum bt);
/* The tree whose blocks carry @magic (*v4: its pre-CRC magic), or NULL. */
const struct xfsj_btree_shape *xfsj_btree_by_magic(uint32_t magic, bool *v4);
unsigned int xfsj_btree_maxrecs(enum xfsj_btnum bt, uint32_t blocksize,
				bool leaf);

/* Header encode writes the header only; finish stamps the CRC. */
void xfsj_sblock_decode(const void *buf, struct xfsj_sblock *h);
void xfsj_sblock_encode(const struct xfsj_sblock *h, void *buf);
void xfsj_lblock_decode(const void *buf, struct xfsj_lblock *h);
void xfsj_lblock_encode(const struct xfsj_lblock *h, void *buf);
void xfsj_btree_block_finish(void *buf, uint32_t blocksize, bool long_ptrs);
/* Check a short-format block read from @daddr (512-byte units). */
int xfsj_sblock_verify(const void *buf, enum xfsj_btnum bt,
		       const struct xfsj_vctx *c, uint64_t daddr,
		       struct xfsj_fault *f);

/* Records (index i within a leaf). */
struct xfsj_alloc_rec { uint32_t startblock, blockcount; };
struct xfsj_inobt_rec {
	uint32_t startino;
	uint16_t holemask;	/* sparse format only */
	uint8_t count;		/* sparse format only */
	uint32_t freecount;
	uint64_t free;
};
struct xfsj_rmap_rec {
	uint32_t startblock, blockcount;
	uint64_t owner;
	uint64_t offset;	/* with the attr/bmbt/unwritten flag bits */
};
struct xfsj_refc_rec { uint32_t startblock, blockcount, refcount; };

#define XFSJ_RMAP_OFF_ATTR_FORK		(1ULL << 63)
#define XFSJ_RMAP_OFF_BMBT_BLOCK	(1ULL << 62)
#define XFSJ_RMAP_OFF_UNWRITTEN		(1ULL << 61)

void xfsj_alloc_rec_put(void *block, unsigned int i, const struct xfsj_alloc_rec *r);
void xfsj_alloc_rec_get(const void *block, unsigned int i, struct xfsj_alloc_rec *r);
void xfsj_inobt_rec_put(void *block, unsigned int i, const struct xfsj_inobt_rec *r, bool sparse);
void xfsj_inobt_rec_get(const void *block, unsigned int i, struct xfsj_inobt_rec *r, bool sparse);
void xfsj_rmap_rec_put(void *block, unsigned int i, const struct xfsj_rmap_rec *r);
void xfsj_rmap_rec_get(const void *block, unsigned int i, struct xfsj_rmap_rec *r);
void xfsj_refc_rec_put(void *block, unsigned int i, const struct xfsj_refc_rec *r);
void xfsj_refc_rec_get(const void *block, unsigned int i, struct xfsj_refc_rec *r);

/* ---- inodes ---- */
void xfsj_dinode_decode(const void *buf, struct xfsj_dinode *di);
/*
 * The log dinode (the core as the writer's memory held it: little-endian
 * here, legacy timestamps as two 32-bit words) of @len bytes (96 for v1
 * and v2 inodes, 176 for v3), as the on-disk core would decode: the
 * fields past @len are 0.
 */
void xfsj_log_dinode_decode(const void *p, uint32_t len,
			    struct xfsj_dinode *di);
/* An encoded timestamp (xfsj_time_encode) as seconds and nanoseconds. */
void xfsj_time_decode(uint64_t v, bool bigtime, int64_t *sec,
		      uint32_t *nsec);
/* Writes the 176-byte core; the forks after it are left as they are. */
void xfsj_dinode_encode(const struct xfsj_dinode *di, void *buf);
void xfsj_dinode_finish(void *buf, uint32_t inodesize);
int xfsj_dinode_verify(const void *buf, const struct xfsj_vctx *c,
		       uint64_t ino, uint64_t byte_off, struct xfsj_fault *f);
/* Only whether it is an intact v3 inode of number @ino (magic, version,
 * CRC, number, uuid), whatever its fields say: the start of the above. */
int xfsj_dinode_verify_place(const void *buf, const struct xfsj_vctx *c,
			     uint64_t ino, uint64_t byte_off,
			     struct xfsj_fault *f);
/* Data and attribute fork extent counts, honouring NREXT64. */
uint64_t xfsj_dinode_nextents(const struct xfsj_dinode *di);
uint32_t xfsj_dinode_anextents(const struct xfsj_dinode *di);
/*
 * Set the data (@attr false) or attribute fork's extent count in the
 * field the inode's layout keeps it in (NREXT64: data in big_nextents,
 * attr in the u32 nextents; else data in nextents, attr in the u16
 * anextents).  The value is cut to the field's width.
 */
void xfsj_dinode_set_nextents(struct xfsj_dinode *di, bool attr, uint64_t n);

/* ---- short-form directories (data fork, LOCAL format) ---- */
struct xfsj_dirent {
	const char *name;
	uint8_t namelen;
	uint8_t ftype;		/* XFSJ_FT_* */
	uint64_t ino;
};

enum {
	XFSJ_FT_UNKNOWN, XFSJ_FT_REG, XFSJ_FT_DIR, XFSJ_FT_CHRDEV,
	XFSJ_FT_BLKDEV, XFSJ_FT_FIFO, XFSJ_FT_SOCK, XFSJ_FT_SYMLINK,
	XFSJ_FT_WHT, XFSJ_FT__MAX
};

/* The directory entry file type of an inode mode (XFSJ_FT_UNKNOWN: none). */
uint8_t xfsj_mode_ftype(uint16_t mode);

/* Bytes the encoded directory takes. */
size_t xfsj_dir_sf_size(uint64_t parent, const struct xfsj_dirent *ents,
			unsigned int n, bool ftype);
/* Encode into @buf (@len bytes); returns the size or a negative error. */
int xfsj_dir_sf_encode(uint64_t parent, const struct xfsj_dirent *ents,
		       unsigned int n, bool ftype, void *buf, size_t len);
/*
 * Walk an encoded directory: calls @fn per entry (name points into @buf).
 * Checks every length against @len first.
 */
typedef int (*xfsj_dirent_fn)(const struct xfsj_dirent *e, void *arg);
int xfsj_dir_sf_walk(const void *buf, size_t len, bool ftype,
		     uint64_t *parent, xfsj_dirent_fn fn, void *arg,
		     struct xfsj_fault *f);

#endif
