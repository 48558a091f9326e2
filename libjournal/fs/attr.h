/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Extended attributes of an inode, changed the way the kernel's xfs_attr
 * does: short form in the inode (the fork offset moved as the kernel
 * moves it), leaf blocks, node (dabtree) forks, remote values; set,
 * replace and remove; and parent pointers, whose names may repeat with
 * different values (a parent pointer is matched by name and value).
 */
#ifndef XFSJ_ATTR_H
#define XFSJ_ATTR_H

#include "fs/iget.h"
#include "ondisk/attr_layout.h"

struct xfsj_attr_arg {
	uint8_t ns;			/* XFSJ_ATTR_NS_* (0: user) */
	const uint8_t *name;
	uint32_t namelen;
	const uint8_t *value;
	uint32_t valuelen;
	/*
	 * Log recovery's lookups (XFS_DA_OP_RECOVERY): an entry left
	 * INCOMPLETE by the operation the crash interrupted matches too, so
	 * that the recovered operation removes or replaces it.
	 */
	bool recovery;
};

/* The kernel's name hash (xfs_da_hashname), and the parent-pointer hash. */
uint32_t xfsj_da_hashname(const uint8_t *name, uint32_t len);
uint32_t xfsj_parent_hashval(const uint8_t *name, uint32_t namelen,
			     uint64_t parent_ino);

/* Look up: *found, and the value when @val is large enough (*vlen in/out).
 * Parent pointers match @a->value too. */
int xfsj_attr_get(struct xfsj_fs *fs, struct xfsj_iref *ip,
		  const struct xfsj_attr_arg *a, uint8_t *val, uint32_t *vlen,
		  bool *found, struct xfsj_fault *f);

enum xfsj_attr_how {
	XFSJ_ATTR_UPSERT,	/* create or replace */
	XFSJ_ATTR_CREATE,	/* must not exist */
	XFSJ_ATTR_REPLACE,	/* must exist */
};

int xfsj_attr_set(struct xfsj_fs *fs, struct xfsj_iref *ip,
		  const struct xfsj_attr_arg *a, enum xfsj_attr_how how,
		  struct xfsj_fault *f);
/*
 * One logged replace of @old by @new (a parent pointer moved by a rename,
 * XFS_ATTRI_OP_FLAGS_PPTR_REPLACE): @old is removed if there (*found),
 * keeping the fork even if that empties it, then @new is set.
 */
int xfsj_attr_replace(struct xfsj_fs *fs, struct xfsj_iref *ip,
		      const struct xfsj_attr_arg *old,
		      const struct xfsj_attr_arg *new, bool *found,
		      struct xfsj_fault *f);
/* *found: whether there was one to remove. */
int xfsj_attr_remove(struct xfsj_fs *fs, struct xfsj_iref *ip,
		     const struct xfsj_attr_arg *a, bool *found,
		     struct xfsj_fault *f);

/* Every attribute (tests, and checks after recovery). */
typedef int (*xfsj_attr_fn)(void *arg, const struct xfsj_attr_arg *a);
int xfsj_attr_list(struct xfsj_fs *fs, struct xfsj_iref *ip, xfsj_attr_fn fn,
		   void *arg, struct xfsj_fault *f);

/*
 * Like bmap.h, set and remove change @ip->di and the fork bytes in the
 * inode buffer (and queue the block mapping work); the caller writes the
 * core back with xfsj_iput() and finishes the deferred work.  Dabtree
 * forks are read and changed at any depth the kernel allows: leaves and
 * nodes split (a full root gives the tree a new level), merge back and
 * the root collapses level by level, as xfs_da_btree.c does.  What needs
 * more (a tree already at the maximum depth; a leaf that would need a
 * third split for one entry, which the kernel refuses too; a data fork
 * that must change format to make room for the attribute fork) is
 * refused with
 * -XFSJ_E_UNSUPP and a fault, after which the caller must throw its
 * changes away.
 */

/* ---- shared by attr.c and attr_leaf.c, not for other users ---- */

/* One decoded leaf entry (pointers into the block). */
struct xfsj_attr_lent {
	uint32_t hash;
	uint16_t nameidx;
	uint8_t flags;
	uint8_t namelen;
	const uint8_t *name;
	uint32_t valuelen;
	const uint8_t *value;	/* NULL for a remote value */
	uint32_t valueblk;	/* remote: first block of the value */
	uint32_t entsize;	/* bytes of the name structure */
};

/* A leaf block's header, decoded (firstused 0 read as 64 KiB). */
struct xfsj_attr_leaf_hdr {
	uint32_t count, usedbytes, firstused;
	uint8_t holes;
	struct { uint32_t base, size; } map[XFSJ_ALEAF_MAPSIZE];
};

void xfsj_attr_leaf_hdr_get(const uint8_t *blk, uint32_t blksize,
			    struct xfsj_attr_leaf_hdr *h);

uint32_t xfsj_attr_hash(const struct xfsj_attr_arg *a);
/* Name, namespace and (parent pointers) value equal; INCOMPLETE only in recovery. */
bool xfsj_attr_match(const struct xfsj_attr_arg *a, uint8_t flags,
		     const uint8_t *name, uint32_t namelen,
		     const uint8_t *value, uint32_t valuelen);
uint32_t xfsj_attr_rmt_blocks(uint32_t blocksize, uint32_t valuelen);

/* Leaf blocks (attr_leaf.c); @blk is one filesystem block. */
int xfsj_attr_leaf_verify(struct xfsj_fs *fs, uint64_t ino,
			  const uint8_t *blk, uint64_t daddr,
			  struct xfsj_fault *f);
void xfsj_attr_leaf_init(struct xfsj_fs *fs, uint64_t ino, uint8_t *blk,
			 uint64_t daddr);
uint32_t xfsj_attr_leaf_count(const uint8_t *blk);
void xfsj_attr_leaf_get_ent(const uint8_t *blk, uint32_t blksize, uint32_t i,
			    struct xfsj_attr_lent *e);

/* What xfsj_attr_leaf_ent_place found wrong with an entry's place. */
enum xfsj_alent_place {
	XFSJ_ALENT_OK,
	XFSJ_ALENT_SLOT,	/* the entry itself is past the block */
	XFSJ_ALENT_NAMEIDX,	/* its name structure below @low or past */
	XFSJ_ALENT_FIXED,	/* the fixed part of it runs past the end */
	XFSJ_ALENT_PAST,	/* the whole of it (rounded) runs past */
};

/*
 * Entry @i of the leaf @blk of @bs bytes, its name structure not below
 * @low (attr_leaf_ent.c).  Returns an enum xfsj_alent_place.  @e gets
 * hash, nameidx and flags unless SLOT, the name structure's fields with
 * OK or PAST; *end where the name structure ends (0 for SLOT and
 * NAMEIDX; the fixed part's end for FIXED).
 */
int xfsj_attr_leaf_ent_place(const uint8_t *blk, uint32_t bs, uint32_t i,
			     uint32_t low, struct xfsj_attr_lent *e,
			     uint32_t *end);
/* *index: the match, or where the name would be inserted. */
void xfsj_attr_leaf_lookup(const uint8_t *blk, uint32_t blksize,
			   const struct xfsj_attr_arg *a, uint32_t hash,
			   uint32_t *index, bool *found);
/*
 * Insert at @index (the kernel's leaf add: first fit in the free map,
 * compaction when needed).  *nospc when the block cannot take it; a
 * remote entry is left INCOMPLETE with no value block (*remote set).
 */
int xfsj_attr_leaf_add(uint8_t *blk, uint32_t blksize,
		       const struct xfsj_attr_arg *a, uint32_t hash,
		       uint32_t index, bool *nospc, bool *remote);
/* Finish a remote entry: value block and length, INCOMPLETE cleared. */
void xfsj_attr_leaf_set_rmt(uint8_t *blk, uint32_t blksize, uint32_t index,
			    uint32_t valueblk, uint32_t valuelen);
/* True when the leaf is left below 37% full (a dabtree join candidate). */
bool xfsj_attr_leaf_remove(uint8_t *blk, uint32_t blksize, uint32_t index);
uint32_t xfsj_attr_leaf_lasthash(const uint8_t *blk);
/* Header, entries and names: the bytes the kernel counts as used. */
uint32_t xfsj_attr_leaf_used(const uint8_t *blk);
/*
 * Split @l1 onto the empty leaf @l2 as the kernel balances them for an
 * insertion at @index of @l1; *inleaf and *newindex say where it goes.
 */
int xfsj_attr_leaf_rebalance(uint8_t *l1, uint8_t *l2, uint32_t blksize,
			     const struct xfsj_attr_arg *a, uint32_t index,
			     bool *inleaf, uint32_t *newindex);
bool xfsj_attr_leaf_order(const uint8_t *l1, const uint8_t *l2);
/* Move every entry of @drop into @save (the kernel's leaf unbalance). */
int xfsj_attr_leaf_unbalance(uint8_t *drop, uint8_t *save, uint32_t blksize);
/* Short-form bytes all complete entries need, or -1 when they cannot. */
int xfsj_attr_leaf_sf_bytes(const uint8_t *blk, uint32_t blksize);

/* Attribute fork blocks and remote values (attr_leaf.c). */
int xfsj_attr_bmap(struct xfsj_fs *fs, struct xfsj_iref *ip, uint64_t lblk,
		   uint64_t *fsbno, struct xfsj_fault *f);
int xfsj_attr_rmt_set(struct xfsj_fs *fs, struct xfsj_iref *ip,
		      const uint8_t *value, uint32_t len, uint32_t *lblk,
		      struct xfsj_fault *f);
int xfsj_attr_rmt_get(struct xfsj_fs *fs, struct xfsj_iref *ip,
		      uint32_t lblk, uint8_t *value, uint32_t len,
		      struct xfsj_fault *f);
int xfsj_attr_rmt_remove(struct xfsj_fs *fs, struct xfsj_iref *ip,
			 uint32_t lblk, uint32_t len, struct xfsj_fault *f);

/* ---- dabtree forks: attr.c calls attr_leaf.c through these ---- */

struct xfsj_attr_sf;	/* attr.c's copy of a short form */

enum xfsj_attr_fstate {
	XFSJ_AF_NONE,	/* no attribute fork */
	XFSJ_AF_EMPTY,	/* a fork with nothing in it yet */
	XFSJ_AF_SF,
	XFSJ_AF_LEAF,	/* one leaf at block 0 */
	XFSJ_AF_NODE,	/* a dabtree */
};

struct xfsj_attr_ctx {
	struct xfsj_fs *fs;
	struct xfsj_iref *ip;
	uint32_t bs;
	enum xfsj_attr_fstate st;
	struct xfsj_attr_sf *sf;	/* XFSJ_AF_SF */
	struct xfsj_buf *leaf;		/* LEAF: block 0; NODE: a leaf */
};

#define XFSJ_ATTR_DA_MAXDEPTH	XFSJ_DA_NODE_MAXDEPTH

/* One block of a path from the root: its fork block and entry index. */
struct xfsj_attr_pblk {
	struct xfsj_buf *bp;
	uint32_t blkno;
	uint32_t index;		/* node: the child's entry */
};

/*
 * Where a name is (or would go) in a dabtree: blk[0] is the root,
 * blk[active - 1] the leaf (the kernel's xfs_da_state path).
 */
struct xfsj_attr_npath {
	struct xfsj_attr_pblk blk[XFSJ_ATTR_DA_MAXDEPTH + 1];
	int active;
	struct xfsj_buf *root;	/* block 0 */
	struct xfsj_buf *leaf;	/* blk[active - 1].bp */
	uint32_t index;		/* leaf: the match or insertion point */
	bool found;
};

int xfsj_attr_node_verify(struct xfsj_attr_ctx *c, const uint8_t *b,
			  uint64_t daddr, struct xfsj_fault *f);
int xfsj_attr_leaf_read(struct xfsj_attr_ctx *c, uint64_t lblk,
			struct xfsj_buf **bp, struct xfsj_fault *f);
/* A sibling chain longer than the fork has blocks must loop. */
int xfsj_attr_chain_max(struct xfsj_attr_ctx *c, uint64_t *max,
			struct xfsj_fault *f);
/* Down to the leaf for @hash, or the leftmost one; sets c->leaf. */
int xfsj_attr_node_descend(struct xfsj_attr_ctx *c, uint32_t hash,
			   bool leftmost, struct xfsj_fault *f);
int xfsj_attr_npath_lookup(struct xfsj_attr_ctx *c,
			   const struct xfsj_attr_arg *a, uint32_t hash,
			   struct xfsj_attr_npath *np, struct xfsj_fault *f);
/* c->leaf (block 0) becomes a leaf under a new root node. */
int xfsj_attr_leaf_to_node(struct xfsj_attr_ctx *c, struct xfsj_fault *f);
int xfsj_attr_node_addname(struct xfsj_attr_ctx *c,
			   const struct xfsj_attr_arg *a, uint32_t hash,
			   struct xfsj_fault *f);
int xfsj_attr_node_removename(struct xfsj_attr_ctx *c,
			      struct xfsj_attr_npath *np, bool keep_fork,
			      struct xfsj_fault *f);
/*
 * (attr.c) Open @c on @ip's attribute fork: the short form copied, or
 * block 0 read and verified (c->st says which); xfsj_attr_ctx_close frees it.
 */
int xfsj_attr_ctx_open(struct xfsj_attr_ctx *c, struct xfsj_fs *fs,
	     struct xfsj_iref *ip, struct xfsj_fault *f);
void xfsj_attr_ctx_close(struct xfsj_attr_ctx *c);
/* (attr.c) A tree collapsed to its root leaf may go back inline. */
int xfsj_attr_leaf_shrink(struct xfsj_attr_ctx *c, bool keep_fork,
			  struct xfsj_fault *f);

#endif
