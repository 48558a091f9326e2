/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checker's shared state.  The phases run in order (check.c):
 *
 *   sb.c        superblocks: the primary, every secondary, features
 *   agheaders.c AGF, AGI, AGFL of one AG
 *   agbtree.c   the AG btrees of one AG: structure, records; fills the
 *               AG's tables (free extents, inode chunks, rmaps, refcounts)
 *               and claims the btree blocks
 *   inodes.c    every inode of the AG's chunks: the core, the forks
 *               (forks.c: extent lists and bmbt, claims the blocks),
 *               directories (dir*.c), attributes (attr.c), symlinks
 *   space.c     per AG: the claims against the free space btrees, the
 *               rmapbt and the refcountbt; leaks; AGF/AGI counters
 *   names.c     link counts, reachability, loops, unlinked lists, parent
 *               pointers against directory entries
 *   counters.c  the superblock's summary counters
 *
 * prefetch.c hints ahead of the inode phase what it will read, in disk
 * order; parallel.c runs the AG, inode and space phases of several AGs
 * at once with the results of one thread (xfsj_check_opts.threads).
 *
 * A phase reports what it finds through xck_report() and keeps going; it
 * returns nonzero only when the check cannot go on (out of memory, an I/O
 * error on the device, an unsupported feature).
 *
 * Memory: the tables hold fixed-size records (the claims 24 bytes per
 * extent, 24 bytes per inode in use or free in a chunk, 24 bytes per
 * directory entry and per parent pointer); buffers go through the fs
 * layer's bounded cache with counted references.  The tables (xck_vec,
 * the chunks' inode records) spill to a scratch file past the RAM bound
 * of xfsj_check_opts.spill.
 */
#ifndef XFSJ_CHECK_PRIV_H
#define XFSJ_CHECK_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xfsj/check.h"
#include "xfsj/fs.h"
#include "xfsj/ondisk.h"
#include "ondisk/format.h"
#include "check/ag_trust.h"
#include "core/radix_sort.h"
#include "core/spill.h"

struct xck;

/*
 * ---- a growable array whose bytes are counted in the check's state ----
 * It lives in RAM until the check's spill (xfsj_check_opts.spill) has
 * spent its RAM bound, then in the scratch file (core/spill.h): @v is a
 * plain pointer either way.  A zeroed vector is an empty one in RAM.
 */
struct xck_vec {
	void *v;
	size_t n, cap;
	size_t esz;		/* set by xck_vec_init */
	uint64_t foff;		/* where it lives (XFSJ_SPILL_RAM: RAM) */
	struct xfsj_spill *sp;	/* the spill it was made under */
};

/* The tables' bytes grew (or shrank) by @delta: state and peak. */
void xck_account(struct xck *ck, int64_t delta);
void xck_vec_init(struct xck_vec *v, size_t esz);
/* Append a copy of @e; -XFSJ_E_NOMEM, -XFSJ_E_SCRATCH. */
int xck_vec_push(struct xck *ck, struct xck_vec *v, const void *e);
/* Append every element of @src (of @dst's size) at once. */
int xck_vec_append(struct xck *ck, struct xck_vec *dst,
		   const struct xck_vec *src);
void xck_vec_free(struct xck *ck, struct xck_vec *v);
/* Free @v's storage without counting it (bytes counted elsewhere). */
void xck_vec_release(struct xck_vec *v);
static inline void *xck_vec_at(const struct xck_vec *v, size_t i)
{
	return (char *)v->v + i * v->esz;
}
void xck_vec_sort(struct xck_vec *v, int (*cmp)(const void *, const void *));
/*
 * The large tables: sorted by @keys in turn (core/radix_sort.h), stably,
 * in linear time; @cmp compares the same keys, for qsort when the
 * radix sort's scratch copy cannot be had.
 */
void xck_vec_sort_keys(struct xck_vec *v, const xfsj_sort_key *keys,
		       size_t nkeys, int (*cmp)(const void *, const void *));
/* The same on up to @threads threads, outside the per-AG phases. */
void xck_vec_sort_keys_threads(struct xck_vec *v, const xfsj_sort_key *keys,
			       size_t nkeys,
			       int (*cmp)(const void *, const void *),
			       unsigned int threads);
/* The element of sorted @v matching @key (bsearch; NULL when empty). */
void *xck_vec_find(const struct xck_vec *v, const void *key,
		   int (*cmp)(const void *, const void *));

/* ---- what is known of one inode ---- */
enum {
	XCK_I_INUSE	= 1 << 0,	/* the core is in use (mode != 0) */
	XCK_I_BAD	= 1 << 1,	/* the core failed its checks */
	XCK_I_REACHED	= 1 << 2,	/* reachable from the root */
	XCK_I_INDIR	= 1 << 3,	/* named by some directory entry */
	XCK_I_META	= 1 << 4,	/* named by the superblock (quota,
					 * realtime, metadir) */
	XCK_I_SCANNED	= 1 << 5,	/* the inode phase saw this slot */
	XCK_I_UNLINKED	= 1 << 6,	/* on an AGI unlinked list */
	XCK_I_WALKED	= 1 << 7,	/* reached by names.c's walk of the
					 * unlinked lists (a second time: a
					 * loop) */
};

struct xck_inode {
	uint64_t parent;	/* directories: their ".." (NULLFSINO) */
	uint32_t nlink;		/* the core's link count */
	uint32_t refs;		/* entries naming it, "." and ".." too */
	uint32_t gen;		/* the core's generation (parent ptrs) */
	uint8_t ftype;		/* XFSJ_FT_* from the mode; 0: free */
	uint8_t flags;		/* XCK_I_* */
	uint16_t named;		/* names.c's scratch: entries naming a
				 * directory, "." and ".." left out */
};

/* An inobt record, with the state of its 64 inodes once scanned. */
struct xck_chunk {
	struct xfsj_inobt_rec rec;
	struct xck_inode *ino;	/* XFSJ_INODES_PER_CHUNK, or NULL */
	bool guessed;		/* from the rmapbt: free mask from the modes */
};

static inline bool xck_chunk_in_hole(const struct xck_chunk *c,
				     unsigned int k)
{
	return c->rec.holemask & (1U << (k / XFSJ_INODES_PER_HOLEMASK_BIT));
}

/* ---- one AG ---- */
struct xck_ag {
	uint32_t agno;
	uint32_t agblocks;	/* of this AG (the last may be short) */
	bool agf_ok, agi_ok, agfl_ok;	/* decoded and usable */
	struct xfsj_agf agf;
	struct xfsj_agi agi;
	uint32_t *agfl;		/* the live AGFL entries, in list order */
	uint32_t agfl_n;

	/*
	 * Every use of a block seen, as rmap records (owner, offset and
	 * flags as the rmapbt would hold them): AG headers, btree blocks,
	 * AGFL blocks, inode chunks, the log, fork extents and bmbt blocks.
	 */
	struct xck_vec claims;		/* struct xfsj_rmap_rec */
	struct xck_vec bno_free;	/* struct xfsj_alloc_rec, bnobt */
	struct xck_vec cnt_free;	/* struct xfsj_alloc_rec, cntbt */
	struct xck_vec rmaps;		/* struct xfsj_rmap_rec, rmapbt */
	struct xck_vec refcs;		/* struct xfsj_refc_rec, refcountbt */
	struct xck_vec chunks;		/* struct xck_chunk, by startino */
	struct xck_vec fino;		/* struct xfsj_inobt_rec, finobt */
	uint64_t btblocks[XFSJ_BT__COUNT];	/* blocks of each tree */
	/*
	 * The tree was walked whole and its records are trustworthy
	 * enough to compare against (a damaged tree is reported once, not
	 * again by every cross-check).
	 */
	bool tree_ok[XFSJ_BT__COUNT];
	/* The inobt was not read whole but the rmapbt named every chunk. */
	bool chunks_recovered;
	/* ag_index.c: lookups of the inode phase, built when first asked */
	unsigned int index_built;
	struct xck_vec ix_cnt;		/* struct xck_span */
	struct xck_vec ix_rmap_owner;	/* struct xck_owned, every rmap */
	struct xck_vec ix_meta_claims;	/* struct xck_owned, metadata */
	struct xck_vec ix_rmap_meta;	/* uint32_t, per rmaps index */
};

/* A free extent's start and the largest end of those up to it. */
struct xck_span {
	uint32_t start;
	uint32_t pad;
	uint64_t maxend;
};

/* An rmap record's owner and start, and its owner's largest end so far. */
struct xck_owned {
	uint64_t owner;
	uint64_t maxend;
	uint32_t start;
	uint32_t pad;
};

/*
 * ag_index.c: the lookups a check makes once per mapping, in logarithmic
 * time; each returns 1 or 0, or -XFSJ_E_NOMEM.  Asked only between the
 * AG phase and the space phase (the tables do not change meanwhile).
 */
/* Does one cntbt record hold all of [s, e)? */
int xck_ix_cnt_holds(struct xck *ck, struct xck_ag *ag, uint32_t s,
		     uint32_t e);
/* Has the rmapbt a record of @owner over some of [s, e)? */
int xck_ix_rmap_owner_over(struct xck *ck, struct xck_ag *ag, uint64_t owner,
			   uint32_t s, uint32_t e);
/* Has the scan claimed some of [s, e) for metadata owner @owner? */
int xck_ix_meta_claim_over(struct xck *ck, struct xck_ag *ag, uint64_t owner,
			   uint32_t s, uint32_t e);
/*
 * *@next: for each index i of ag->rmaps (and its count), the first index
 * at or after i whose owner is metadata (the count: none).
 */
int xck_ix_rmap_next_meta(struct xck *ck, struct xck_ag *ag,
			  const uint32_t **next);
void xck_ag_index_free(struct xck *ck, struct xck_ag *ag);

/* ---- parent pointers and directory entries, for names.c ---- */
struct xck_dirent {
	uint64_t dir;		/* the directory holding the entry */
	uint64_t child;
	uint32_t namehash;	/* xfsj_da_hashname of the name */
	uint8_t namelen;
	uint8_t ftype;
	uint16_t pad;
};

struct xck_pptr {
	uint64_t child;		/* the inode whose attribute it is */
	uint64_t parent;
	uint32_t namehash;
	uint32_t parent_gen;
	uint8_t namelen;
	uint8_t pad[7];
};

/*
 * A directory that lost entries to damage (a block unreadable or not
 * walked whole, a short form cut short), and the problem that said so:
 * the root cause of what names.c then finds of its children (causes.c).
 */
struct xck_lossy {
	uint64_t dir;
	uint64_t id;		/* the problem's xfsj_problem.id */
};

/* A directory holding the entry of a lossy one (causes.c's index). */
struct xck_lossy_holder {
	uint64_t holder;
	uint64_t dir;		/* the lossy directory */
	uint64_t id;		/* its xck_lossy.id */
};

/* ---- the check ---- */
struct xck {
	struct xfsj_fs *fs;
	const struct xfsj_sb *sb;	/* the geometry the handle uses */
	struct xfsj_sb primary;		/* the primary as it is now (sb.c) */
	const struct xfsj_check_cb *cb;
	struct xfsj_check_result *res;
	struct xck_ag *ags;
	uint32_t agcount;
	enum xfsj_check_phase phase;	/* the phase running (reports) */
	enum xfsj_check_phase ag_ph;	/* the AG phase running, */
	uint32_t ag_at;			/* on this AG */
	struct xck_vec dirents;		/* struct xck_dirent */
	struct xck_vec pptrs;		/* struct xck_pptr */
	struct xck_vec lossy;		/* struct xck_lossy */
	struct xck_vec holders;		/* struct xck_lossy_holder, made
					 * by causes.c when first asked */
	bool holders_made;
	uint64_t next_id;		/* the next problem's number */
	uint64_t state_bytes;		/* the tables' bytes now */
	/* Totals the per-AG phases add up for counters.c. */
	uint64_t icount, ifree, fdblocks;
	/* XCK_TOTAL_*: a total some AG could not count (space_counters.c) */
	unsigned int totals_unknown;
	/* space.c: are bmbt blocks claimed?  0 not known yet, 1 no, 2 yes */
	uint8_t bmbt_claims;
	/* sb.c: the primary's geometry is wrong; no later phase runs. */
	bool stop;
	/* parallel.c: threads of the per-AG phases (0, 1: none) */
	unsigned int threads;
	/*
	 * parallel.c: in a worker's copy of the check, the job that keeps
	 * its reports and claims for the hand-over (NULL otherwise)...
	 */
	struct xck_job *job;
	/* ... and, while workers run, the lock of the index builds. */
	pthread_mutex_t *ix_lock;
	/* The bound of the tables and their scratch file (NULL: none). */
	struct xfsj_spill *spill;
	/* The chunks' inode records (xck_chunk.ino), shared by workers. */
	struct xfsj_spill_arena *ino_arena;
	/*
	 * dir.c: one directory's tables, emptied and kept for the next
	 * directory this thread checks (kept false: none).  A worker's
	 * copy has its own.
	 */
	struct xck_dir_scratch {
		struct xck_vec dents, lents, bests;
		uint8_t *names;
		size_t names_cap;
		bool kept;
	} dir_scratch;
};

enum { XCK_TOTAL_INODES = 1 << 0, XCK_TOTAL_FDBLOCKS = 1 << 1 };

/*
 * The check as xfsj_check runs it; with @keep non-NULL a check that ran to
 * the end hands over its state (the tables of every AG, the inodes, the
 * entries) for the repair layer, which frees it with xck_free.  The kept
 * state reports nothing more through @cb; its tables still count their
 * bytes into @res, which must outlive it.
 */
int xck_run(struct xfsj_fs *fs, const struct xfsj_check_opts *o,
	    const struct xfsj_check_cb *cb, struct xfsj_check_result *res,
	    struct xck **keep);
void xck_free(struct xck *ck);
/*
 * Check again, in the state @ck a check kept, what a change of the
 * filesystem may have changed: in each AG what @redo (agcount entries)
 * says, the inodes of @set (may be NULL) in the AGs whose inodes are kept
 * alone, and the superblocks, the space of every AG, the names and the
 * counters (recheck.c).  An AG asked XCK_REDO_AG whose inodes' states
 * cannot be kept is raised to XCK_REDO_ALL in @redo.  The problems of the
 * phases not run again in an AG, but those of @set's inodes, are not
 * reported again (the caller keeps them: xfsj_problem.phase, scan_ag and
 * ino).
 * Returns 0, 1 when the superblocks stop the check or an inode of @set
 * cannot be scanned alone (only a whole check may tell more), or a
 * negative XFSJ_E_*; but for 0, @ck is unusable (still freed by
 * xck_free).
 */
struct xck_inoset {
	const uint64_t *inos;	/* sorted, none twice */
	size_t n;
};
bool xck_inoset_has(const struct xck_inoset *s, uint64_t ino);
/* What a local check does again in one AG. */
enum xck_redo {
	XCK_REDO_NONE = 0,	/* nothing: what the check found stays */
	/*
	 * Headers and btrees: only metadata the inode scan does not read
	 * changed (the AGF, the AGFL, free space, rmap and refcount
	 * btrees); the inodes' states stay, their chunks unchanged.
	 */
	XCK_REDO_AG,
	XCK_REDO_ALL,		/* headers, btrees and every inode */
};
int xck_rerun(struct xck *ck, uint8_t *redo, const struct xck_inoset *set,
	      const struct xfsj_check_cb *cb, struct xfsj_check_result *res);
/*
 * inodes.c: inodes @inos (@n, sorted, of AG @ag, their states reset)
 * scanned again, with the unlinked-list rules of each.
 */
int xck_inodes_again(struct xck *ck, struct xck_ag *ag,
		     const uint64_t *inos, size_t n);
/* check.c: an AG's tables set up empty, and freed */
void xck_ag_init(struct xck *ck, struct xck_ag *ag, uint32_t agno);
void xck_ag_free(struct xck *ck, struct xck_ag *ag);
/* check.c: the AG phase of one AG (headers, then btrees) */
int xck_ag_phase(struct xck *ck, struct xck_ag *ag);
/* Names, then counters: the phases after the per-AG ones (check.c). */
int xck_whole_fs_phases(struct xck *ck);

/* ---- reporting ---- */
/* Report @p (its number set: the one returned). */
uint64_t xck_report(struct xck *ck, const struct xfsj_problem *p);
void xck_progress(struct xck *ck, enum xfsj_check_phase ph, uint64_t done,
		  uint64_t total);
/* Within an AG phase: @done of @total of the current AG's work. */
void xck_progress_in_ag(struct xck *ck, uint64_t done, uint64_t total);

/* A phase's rows of the problem table (problem.c lists them all). */
struct xck_table {
	const struct xfsj_problem_def *rows;
	size_t n;
};
extern const struct xck_table xck_sb_table, xck_agh_table, xck_agbt_table,
	xck_inode_table, xck_fork_table, xck_dir_table, xck_attr_table,
	xck_space_table, xck_names_table, xck_counters_table;

/* ---- inode lookup ---- */
/*
 * The state of inode @ino, or NULL when no inobt record covers it (or its
 * chunk has not been scanned yet).  @chunk, if not NULL, gets its chunk.
 */
struct xck_inode *xck_inode_find(struct xck *ck, uint64_t ino,
				 struct xck_chunk **chunk);
/* Is @ino a possible inode number (inside an AG, not in a header)? */
bool xck_ino_valid(const struct xck *ck, uint64_t ino);

/* ---- an inode being checked, as the content checkers see it ---- */
struct xck_icheck {
	uint64_t ino;
	const uint8_t *dip;		/* the raw inode, inodesize bytes */
	struct xfsj_dinode di;
	struct xck_inode *st;
	/* Each fork's checked mappings, by file offset (extents and bmbt
	 * forks alike); mappings that failed their checks are left out. */
	struct xfsj_bmbt_irec *map[2];
	size_t nmap[2];
	/* Each fork's literal area in the inode. */
	const uint8_t *fork[2];
	uint32_t forksize[2];
	/* Each fork's blocks before this file offset were hinted (0: none
	 * yet, UINT64_MAX: all there are; prefetch.c). */
	uint64_t pf_next[2];
};

/*
 * Read @nblocks filesystem blocks of fork @whichfork from file offset
 * @fileoff (pieces may be discontiguous on disk) into a fresh buffer the
 * caller frees.  Returns 0, 1 when part of the range is a hole or unmapped
 * (*out NULL), or a negative XFSJ_E_* on an I/O error.
 */
int xck_fork_read(struct xck *ck, struct xck_icheck *ic, int whichfork,
		  uint64_t fileoff, uint32_t nblocks, uint8_t **out);
/* The mapping of @fileoff in the fork, or NULL (a hole). */
const struct xfsj_bmbt_irec *xck_fork_lookup(const struct xck_icheck *ic,
					     int whichfork, uint64_t fileoff);

/* ---- the inode phase's look-ahead (prefetch.c) ---- */
struct xck_pf {
	size_t chunks;			/* chunks [0, chunks) hinted */
	size_t forks;			/* chunks whose fork blocks were */
	struct xfsj_buf_ra *ra;		/* one chunk's fork blocks */
	size_t n, cap;
};

/* Before chunk @at of @ag is scanned: hint what the next ones need. */
void xck_pf_advance(struct xck *ck, struct xck_ag *ag, struct xck_pf *pf,
		    size_t at);
/* Hint the mapped blocks of a fork the check is about to read. */
void xck_pf_fork(struct xck *ck, struct xck_icheck *ic, int whichfork);
/* The check reads @fileoff of a fork: keep the hints ahead of it. */
void xck_pf_fork_more(struct xck *ck, struct xck_icheck *ic, int whichfork,
		      uint64_t fileoff);
void xck_pf_free(struct xck_pf *pf);

/* inodes.c: does chunk @c lie inside @ag, past its headers? */
bool xck_chunk_inside(const struct xck *ck, const struct xck_ag *ag,
		      const struct xck_chunk *c);
/*
 * The filesystem blocks of chunk @c not wholly in its holes, as buffers
 * (@ra: room for XFSJ_INODES_PER_CHUNK); 0 for a chunk outside @ag.
 */
size_t xck_chunk_blocks(const struct xck *ck, const struct xck_ag *ag,
			const struct xck_chunk *c, struct xfsj_buf_ra *ra);
/*
 * Each inode of chunk @c not in its holes, in order, each block read once
 * for the slots it holds: @fn(@arg, k, the slot's bytes).  Stops at the
 * first error (a read's or @fn's) and returns it.
 */
typedef int (*xck_slot_fn)(void *arg, unsigned int k, const uint8_t *dip);
int xck_chunk_each(struct xck *ck, const struct xck_ag *ag,
		   const struct xck_chunk *c, xck_slot_fn fn, void *arg);

/* ---- parallel.c: a per-AG phase @fn over every AG on @threads ---- */
/* 0, a negative XFSJ_E_*, or 1 when no thread could be started. */
int xck_ag_phase_parallel(struct xck *ck,
			  int (*fn)(struct xck *ck, struct xck_ag *ag),
			  unsigned int threads);
/* In a worker: keep a problem, a claim (on AG @agno) for the hand-over. */
void xck_job_report(struct xck *ck, const struct xfsj_problem *p);
int xck_job_claim(struct xck *ck, uint32_t agno,
		  const struct xfsj_rmap_rec *r);

/* ---- the phases ---- */
int xck_sb(struct xck *ck);
int xck_ag_headers(struct xck *ck, struct xck_ag *ag);
int xck_ag_btrees(struct xck *ck, struct xck_ag *ag);
int xck_inodes(struct xck *ck, struct xck_ag *ag);
/* forks.c: check both forks of @ic, fill its maps, claim the blocks. */
int xck_forks(struct xck *ck, struct xck_icheck *ic);
void xck_forks_free(struct xck_icheck *ic);
/* Content of one in-use inode, after xck_forks. */
int xck_dir(struct xck *ck, struct xck_icheck *ic);
/* Free the tables xck_dir kept on @ck for the next directory. */
void xck_dir_scratch_free(struct xck *ck);
int xck_attr(struct xck *ck, struct xck_icheck *ic);
/*
 * space.c: once before the AGs' runs, which then look at their own AG's
 * tables only (the inodes of any AG read, not changed) and may go on at
 * once; the totals they add up are handed over (parallel.c).
 */
int xck_space_prepare(struct xck *ck);
int xck_space(struct xck *ck, struct xck_ag *ag);
int xck_names(struct xck *ck);
/*
 * causes.c: what a consequence follows from.  Directory @dir lost entries,
 * as problem @id said (the first such problem of the directory counts).
 */
int xck_note_lossy(struct xck *ck, uint64_t dir, uint64_t id);
/*
 * Set @p's cause (XFSJ_PF_CAUSE) when a directory that lost entries
 * explains it: @p's inode (p->ino) is in use and @row_kind says what was
 * found of it; the tables of names.c are sorted by child.  Returns @p.
 */
enum xck_conseq {
	XCK_CQ_NLINK,		/* fewer entries than its link count */
	XCK_CQ_UNNAMED,		/* no entry names it (disconnected) */
	XCK_CQ_PPTR,		/* a parent pointer to p->off without entry */
};
struct xfsj_problem *xck_cause(struct xck *ck, enum xck_conseq kind,
			       struct xfsj_problem *p);
int xck_counters(struct xck *ck);

/*
 * Between two units of a scan (an inode chunk): the buffers the lookups
 * without a reference kept (xfsj_iget, the btree cursors) become
 * evictable when the cache is well over its bound, so that the scan's
 * memory stays inside the bound (xfsj_check_opts.cache_bytes) however
 * big the AG.  Nothing read before the call may be used after it.
 */
void xck_release_buffers(struct xck *ck);

/*
 * Were every AG's inode chunks found (AGI and inobt read whole)?  If not,
 * the inodes' claims and entries are not all known (space.c).
 */
bool xck_inodes_complete(const struct xck *ck);

/* Add a claim to the AG of @agno (an rmap record as seen). */
int xck_claim(struct xck *ck, uint32_t agno, uint32_t agbno, uint32_t len,
	      uint64_t owner, uint64_t offset);

#endif
