/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The repair's shared state (repair.c drives the rounds).
 *
 * A round keeps the state of its check (check/check_priv.h: the tables
 * of every AG, the inodes, the entries) and the problems it reported.
 * The fixes of one stage then run in the order of the fix table
 * (fixes.c), each given every problem of its kind; a fix reads the kept
 * state, changes buffers through the fs handle, and says what it did with
 * xrp_action.  A problem whose fix has no code yet is left for the final
 * check to report.
 */
#ifndef XFSJ_REPAIR_PRIV_H
#define XFSJ_REPAIR_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xfsj/check.h"
#include "xfsj/fs.h"
#include "xfsj/repair.h"
#include "check/check_priv.h"
#include "fs/dir_write.h"
#include "repair/evidence.h"

/* A reported problem, kept with a copy of its name. */
struct xrp_prob {
	struct xfsj_problem p;
	bool done;		/* a fix answered it */
};

/* The check's tables of rmap records an AG (claims_over.c). */
enum xrp_rec_table { XRP_TAB_CLAIMS, XRP_TAB_RMAPS, XRP_TAB__N };

struct xrp {
	struct xfsj_fs *fs;
	const struct xfsj_sb *sb;
	const struct xfsj_repair_opts *o;
	const struct xfsj_repair_cb *cb;
	struct xfsj_repair_result *res;
	struct xck *ck;			/* this round's check */
	struct xfsj_check_result ckres;	/* ... and its result */
	struct xrp_prob *probs;		/* ... and its problems */
	size_t nprobs, capprobs;
	unsigned int round;
	enum xfsj_repair_stage stage;	/* ... and its stage */
	/*
	 * Set by a fix that makes the rest of this round's findings stale
	 * (an inode kept instead of cleared: its entries and links, which
	 * the check counted as lost, are back): the round ends after that
	 * fix kind and the next one checks again.
	 */
	bool recheck;
	/*
	 * Set by a stage that left the kinds writing names (directories,
	 * attribute forks, links, lists: xrp_fix_after_space) for after the
	 * AG stage, because it has something to mend that their
	 * allocations would read (repair.c, names_wait); @nowait once the
	 * AG stage has been tried on this state without changing anything.
	 */
	bool waited, nowait;
	/*
	 * What the next check does again in each AG when it is a local one
	 * (enum xck_redo, recheck.c; agcount entries): the AG phase where
	 * the round wrote AG metadata the inode scan does not read, the
	 * inodes too where it wrote the AGI or the inode btrees, or more
	 * inodes than are scanned alone (repair.c).
	 */
	uint8_t *redo;
	/*
	 * The inodes the next local check scans again alone, in the AGs it
	 * keeps (sorted, once each): those whose cores or blocks the round
	 * wrote.
	 */
	uint64_t *reino;
	size_t nreino, capreino;
	/*
	 * The inodes named by the directories written again this round
	 * (fix_dir_salvage.c): the reconnect of the same round leaves
	 * them where they are named now.  Sorted when rp->renamed_sorted.
	 */
	uint64_t *renamed;
	size_t nrenamed, caprenamed;
	bool renamed_sorted;
	/* The inodes a problem (not INFO) named in any round so far. */
	uint64_t *suspects;
	size_t nsuspects, capsuspects;
	/* Each AG's claims and rmapbt records: their running ends
	 * (claims_over.c), XRP_TAB__N an AG; and by owner. */
	struct xrp_claims_ix *claims_ix;
	size_t claims_ix_n;
	struct xrp_by_owner {
		void *v;		/* struct owned_at, by owner */
		size_t n;
		unsigned int scans;
		bool built;
	} by_owner[XRP_TAB__N];
	/* The evidence model's scratch claims (fix_fork.c). */
	struct xrp_claim *ev_f;
	const struct xfsj_rmap_rec **ev_rec;
	/* The check's entries by the inode they name (entries_naming.c). */
	struct {
		struct xck_dirent *de;	/* sorted by child, directory */
		size_t n;
		unsigned int scans;	/* questions answered by a scan */
		bool built;
	} naming;
};

/*
 * Who names an inode (entries_naming.c): @fn called on each entry of
 * this round's check whose child is @child, in the order of the
 * directories holding them, until it returns nonzero (returned).  The
 * first XRP_NAMING_SCANS questions of a round scan the table; then one
 * sorted copy answers the rest.  xrp_naming_free drops the copy: when
 * the check it was made from is dropped or run again.
 */
#define XRP_NAMING_SCANS	16
/*
 * The first of the @n records of @esz bytes at @base, sorted by @key,
 * whose key is not below @want (@n when none).
 */
size_t xrp_lower_bound(const void *base, size_t n, size_t esz,
		       xfsj_sort_key key, uint64_t want);
struct xrp_naming_cb {
	int (*fn)(void *arg, const struct xck_dirent *e);
	void *arg;
};
int xrp_entries_naming(struct xrp *rp, uint64_t child,
		       const struct xrp_naming_cb *cb);
void xrp_naming_free(struct xrp *rp);

/*
 * The records of an AG's claims or rmapbt over [s, e) of its blocks
 * (claims_over.c): @fn called on each in table order until it returns
 * nonzero (returned).  The first XRP_NAMING_SCANS questions of a round
 * to a table scan it; then its running ends (4 bytes a record) answer
 * by binary search.  xrp_claims_ix_free drops them: when the check they
 * were made from is dropped or run again.
 */
struct xrp_claims_ix {
	uint32_t *maxend;	/* the largest end up to each record */
	size_t n;		/* the records it was built over */
	unsigned int scans;	/* questions answered by a scan */
	bool built;
};
struct xrp_claims_cb {
	int (*fn)(void *arg, const struct xfsj_rmap_rec *r);
	void *arg;
};
int xrp_recs_over(struct xrp *rp, const struct xck_ag *ag,
		  enum xrp_rec_table t, uint64_t s, uint64_t e,
		  const struct xrp_claims_cb *cb);
/*
 * The records of owner @owner in table @t of every AG: @fn called on
 * each, by AG then in table order, until it returns nonzero (returned).
 * The first XRP_NAMING_SCANS questions of a round scan the tables; then
 * one copy sorted by owner (16 bytes a record) answers.  Dropped by
 * xrp_claims_ix_free.
 */
struct xrp_owned_cb {
	int (*fn)(void *arg, uint32_t agno, const struct xfsj_rmap_rec *r);
	void *arg;
};
int xrp_recs_of(struct xrp *rp, enum xrp_rec_table t, uint64_t owner,
		const struct xrp_owned_cb *cb);
void xrp_claims_ix_free(struct xrp *rp);
/*
 * The first record of @ag's refcountbt table that ends past @s; the
 * records over [s, e) follow it while their start is below @e.  Only for
 * a tree the check read whole and in order (tree_ok[XFSJ_BT_REFC]: its
 * records sorted and apart, the CoW staging ones last).
 */
size_t xrp_refc_from(const struct xck_ag *ag, uint64_t s);

/*
 * A row of the handler table (fixes.c): the code a problem row's handler
 * (xfsj_problem_def.handler) names, and the stage of a round that runs
 * it: a problem is fixed in its handler's stage (xrp_stage_of).
 */
struct xrp_handler {
	enum xfsj_repair_stage stage;	/* the stage it runs in */
	enum xfsj_fix fix;	/* the kind it carries out */
	bool todo;		/* named, not written yet: never called */
	/*
	 * It mends what an allocation reads (AG headers, their counters,
	 * the AG btrees): while one of its problems is left, the writes
	 * that need new blocks wait for it (repair.c, names_wait).
	 */
	bool alloc_reads;
	/*
	 * Either: fix every problem of this round's stage whose row has
	 * kind @fix (xrp_for_each), called once per stage however many of
	 * the handlers sharing it were named; or: fix the one problem @pr.
	 * Return 0, or a negative XFSJ_E_* that ends the repair (nothing is
	 * committed).
	 */
	int (*pass)(struct xrp *rp);
	int (*one)(struct xrp *rp, struct xrp_prob *pr);
};

/* The handler @h names, or NULL. */
const struct xrp_handler *xrp_handler_of(enum xfsj_handler h);
/* The fix kinds in the order a stage applies them (@*kinds). */
size_t xrp_fix_order(const enum xfsj_fix **kinds);

/*
 * Does kind @fix write names (directories, attribute forks, the links and
 * lists that follow them), so that it waits for the AG stage while that
 * has something to mend that an allocation reads?  The pipeline's order:
 * inode decisions, then AG space, then the writes that need new blocks.
 */
bool xrp_fix_after_space(enum xfsj_fix fix);
/* Of those, does kind @fix allocate beside the inode its problem names? */
bool xrp_fix_allocs_here(enum xfsj_fix fix);

/* Does problem @pr's row have trait @t (XFSJ_T_*)? */
static inline bool xrp_has(const struct xrp_prob *pr, unsigned int t)
{
	return (pr->p.def->traits & t) != 0;
}

/* Does problem @pr's row name handler @h? */
static inline bool xrp_names(const struct xrp_prob *pr,
			     enum xfsj_handler h)
{
	return pr->p.def->handler == h;
}

/* The stage that fixes the problems of row @d. */
enum xfsj_repair_stage xrp_stage_of(const struct xfsj_problem_def *d);

/*
 * Set (@on) or clear the needs-repair flag of the primary superblock held
 * by @ov (CRC updated), written only when that changes it unless
 * @always; @was_on, if not NULL, gets what it was.
 */
int xrp_sb_needsrepair(struct xfsj_overlay *ov, uint32_t sectsize, bool on,
		       bool always, bool *was_on);

/*
 * Write inode @ino as a free inode (core zeroed but magic, version, uuid,
 * number, a new generation; forks cleared), as xfs_repair clears a free
 * inode whose fields are not those of one.  Returns 0 or a negative
 * XFSJ_E_*.
 */
int xrp_inode_make_free(struct xrp *rp, uint64_t ino);

/* Report an action and count it. */
void xrp_action(struct xrp *rp, const struct xfsj_repair_action *a);

/* This round's problems of its stage with fix @fixkind, one at a time. */
#define xrp_for_each(rp, pr, fixkind)					\
	for ((pr) = (rp)->probs; (pr) < (rp)->probs + (rp)->nprobs; (pr)++) \
		if ((pr)->p.def->fix == (fixkind) &&			\
		    xrp_stage_of((pr)->p.def) == (rp)->stage)

/* The buffer of AG @agno's header sector @sect (1 AGF, 2 AGI, 3 AGFL),
 * read as it is (not verified). */
int xrp_ag_header_buf(struct xrp *rp, uint32_t agno, unsigned int sect,
		      struct xfsj_buf **bp);

/* "inode", "inode fork": fix_inode.c */
int xrp_field_inode(struct xrp *rp, struct xrp_prob *pr);

/* ---- the inode stage (fix_inode.c, fix_unlinked.c, fix_dir.c) ---- */
struct xfsj_iref;
/*
 * Inode @ino as it is, whether its verifier passes or not (decoded into
 * @ip; xfsj_iput writes it back with a fresh CRC).  Returns 0, 1 when
 * there is no such inode to read (a number outside the AGs), or a
 * negative XFSJ_E_* (I/O, memory).
 */
int xrp_iget(struct xrp *rp, uint64_t ino, struct xfsj_iref *ip);
/* Report a fix of inode @ino (@pr answered, when not NULL). */
void xrp_ino_action(struct xrp *rp, struct xrp_prob *pr, enum xfsj_fix fix,
		    uint64_t ino, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* ... an ownership decision's, with the evidence that decided (@why). */
void xrp_ino_action_why(struct xrp *rp, struct xrp_prob *pr,
			enum xfsj_fix fix, uint64_t ino,
			const struct xfsj_repair_why *why, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
int xrp_fix_nlink(struct xrp *rp);		/* fix_inode.c */
int xrp_fix_clear_inode(struct xrp *rp);	/* fix_inode.c */
int xrp_fix_unlinked(struct xrp *rp);		/* fix_unlinked.c */
int xrp_fix_clear_entry(struct xrp *rp);	/* fix_dir.c */
/* fix_dir_block.c: the entry @pr names removed from a block or leaf
 * directory (@ip). */
int xrp_clear_block_entry(struct xrp *rp, struct xrp_prob *pr,
			  struct xfsj_iref *ip);

/* ---- the fixes (one file each) ---- */
int xrp_fix_counters(struct xrp *rp);		/* fix_counters.c */
int xrp_fix_sb_secondary(struct xrp *rp);	/* fix_sb.c */
int xrp_fix_sb_copies(struct xrp *rp);		/* fix_sb.c: secondaries */
/* Before the first check: the flag an unfinished repair left, cleared. */
int xrp_clear_needsrepair(struct xrp *rp);	/* fix_sb.c */
/*
 * FIX_AG_HEADER in the AG stage: AGF, AGI and AGFL rebuilt from the scan
 * (ag_rebuild.c).
 */
int xrp_fix_ag_headers(struct xrp *rp);
/* FIX_REBUILD_BTREE and FIX_FREE_SPACE: the same rebuild (ag_rebuild.c). */
int xrp_fix_rebuild_btrees(struct xrp *rp);
int xrp_fix_free_space(struct xrp *rp);

/*
 * FIX_FIELD of one problem: set the field @pr names (its row's handler
 * says which).  Returns 0 (fixed, or left alone when the right value is
 * not known), or a negative XFSJ_E_*.
 */
/* Field fixers of the structures (one file each). */
int xrp_field_sb(struct xrp *rp, struct xrp_prob *pr);	/* fix_sb.c */
int xrp_field_ag(struct xrp *rp, struct xrp_prob *pr);	/* fix_field.c */
int xrp_field_dir(struct xrp *rp, struct xrp_prob *pr);	/* fix_dirhdr.c */

/* fix_dirhdr.c: the buffer of the directory block holding byte @off of
 * directory @ino (*@bp NULL when it cannot be reached whole), and done
 * with it (@dirty: written).  0 or a negative XFSJ_E_*. */
int xrp_dir_block(struct xrp *rp, uint64_t ino, uint64_t off,
		  struct xfsj_buf **bp);
int xrp_dir_block_put(struct xrp *rp, struct xfsj_buf *bp, bool dirty);
/* fix_dotdot.c: names.dotdot, the directory's ".." set to the directory
 * holding its entry (@pr's expected). */
int xrp_fix_dotdot(struct xrp *rp, struct xrp_prob *pr);
/*
 * Directory @dir's ".." set to @parent in place (fix_dotdot.c): 0, 1 when
 * it is not found in place whole (the directory is to be written again),
 * 2 when @dir is not a directory of a known format, or a negative
 * XFSJ_E_*.
 */
int xrp_set_dotdot(struct xrp *rp, uint64_t dir, uint64_t parent);

/* fix_dir_block.c: dirent.ftype in a directory's blocks (@ip): the
 * entries naming the child with the type found get the type expected;
 * 1 when one changed, 0 when none, or a negative XFSJ_E_*. */
int xrp_block_dirent_ftype(struct xrp *rp, struct xrp_prob *pr,
			   struct xfsj_iref *ip);
/* fix_dir.c: dirent.ftype in the short-form directory @ip: 1 when an
 * entry changed, else 0. */
int xrp_sf_dirent_ftype(struct xrp *rp, struct xrp_prob *pr,
			struct xfsj_iref *ip);
/* fix_dir.c: does entry problem @pr name its entry by the child and the
 * name's hash (p.expected, p.found)? */
bool xrp_by_child(const struct xrp_prob *pr);
/* fix_dir_salvage.c: rebuild directory @dir from its salvaged entries:
 * 1 when it was rewritten, 0 when left, or a negative XFSJ_E_*. */
int xrp_dir_rebuild(struct xrp *rp, uint64_t dir);

/* fix_dir_salvage.c: FIX_SALVAGE_DIR, directories rewritten from what
 * survives. */
int xrp_fix_salvage_dir(struct xrp *rp);
/*
 * The entries of directory @dir that survive (fix_dir_salvage.c: every
 * data block walked past damage, names legal and once, inodes in use in
 * the check's state, their file types from it), "." and ".." left out;
 * @parent: the directory naming it, else its "..", else the root.
 * Returns 0, 1 (not a directory), or a negative XFSJ_E_*.
 */
struct xrp_dirlist {
	struct xfsj_dirent *de;
	size_t n;
	size_t seen;		/* entries found, kept or not */
	uint64_t parent;
	void *priv;		/* the names */
};
int xrp_dir_collect(struct xrp *rp, uint64_t dir, struct xrp_dirlist *l);
/* ... only those its blocks hold (none given back from parent pointers). */
int xrp_dir_collect_entries(struct xrp *rp, uint64_t dir,
			    struct xrp_dirlist *l);
/* Is @ino named by a directory written again this round? */
bool xrp_renamed(struct xrp *rp, uint64_t ino);
void xrp_dirlist_free(struct xrp_dirlist *l);
/*
 * claims_over.c: does a claim of another owner (or of the inode's other
 * fork) lie over a block fork @whichfork of @ino maps, in the check's
 * claims?  Then a fork written again must not free its old blocks: the
 * other claim keeps them, and the AG stage takes back what nothing
 * claims.
 */
bool xrp_fork_crosslinked(struct xrp *rp, uint64_t ino, int whichfork);
/* A fork's old blocks only unmapped, not freed: some AG's free space
 * btrees cannot be trusted, or the fork shares a block with another
 * claim. */
bool xrp_keep_old_blocks(struct xrp *rp, uint64_t ino, int whichfork);
/* fix_attr.c: FIX_SALVAGE_ATTR, attribute forks rewritten from what
 * survives. */
int xrp_fix_salvage_attr(struct xrp *rp);
/* ... and the FIELD rows of attribute structures: the same rewrite. */
int xrp_field_attr(struct xrp *rp, struct xrp_prob *pr);
/*
 * fix_attr_collect.c: the attributes of @ip's fork that survive (copies),
 * the first of repeated ones; @unreadable when nothing of the fork could
 * be read.  Returns 0 or a negative XFSJ_E_* (I/O, memory).
 */
struct xrp_attrent {
	uint8_t ns;			/* XFSJ_ATTR_NS_* */
	uint32_t namelen, valuelen;
	const uint8_t *name, *value;	/* into @buf */
	uint8_t *buf;
};
struct xrp_attrlist {
	struct xrp_attrent *v;
	size_t n, cap;
	size_t ndropped;
	size_t badblocks;		/* blocks neither leaf, node nor value */
	char dropped[160];		/* names of dropped ones, "?" unreadable */
	bool unreadable;
};
int xrp_attr_collect(struct xrp *rp, struct xfsj_iref *ip,
		     struct xrp_attrlist *l);
void xrp_attrlist_free(struct xrp_attrlist *l);
/* fix_reconnect.c: FIX_RECONNECT, home under parent pointers
 * (fix_home.c) or to lost+found. */
int xrp_fix_reconnect(struct xrp *rp);
/* fix_root.c: dir.root, the root directory made again. */
int xrp_fix_dir_root(struct xrp *rp);
/* fix_pptr.c: FIX_PPTR, parent pointers matched to the entries. */
int xrp_fix_pptr(struct xrp *rp);

/* fix_fork.c: FIX_REBUILD_BMBT and FIX_CLEAR_FORK, forks rebuilt from the
 * rmapbt or from their own sound records. */
int xrp_fix_rebuild_bmbt(struct xrp *rp);
int xrp_fix_clear_fork(struct xrp *rp);
/* [fsb, fsb + len) lies inside one AG, past its header sectors: where a
 * fork's blocks may be (a mapping elsewhere is not read). */
bool xrp_blocks_ok(const struct xrp *rp, uint64_t fsb, uint64_t len);
/*
 * fix_bmbt.c: fork @whichfork of @ip written from the @n mappings @m (in
 * offset order): extents format when they fit, else a bmbt of as many
 * levels as it needs in the first of the @nblocks blocks @blocks (*@used
 * of them), by xfsj_bmap_fork_build (fs/bmap.h).
 * The extent count and format are set; the caller sets nblocks and puts
 * the inode.  Returns 0, 1 when they do not fit (nothing changed), or a
 * negative XFSJ_E_*.
 */
int xrp_fork_write(struct xrp *rp, struct xfsj_iref *ip, int whichfork,
		   const struct xfsj_bmbt_irec *m, size_t n,
		   const uint64_t *blocks, size_t nblocks, size_t *used);

/* The fork bits of an rmap record's offset. */
#define XRP_RMAP_FORK_FLAGS \
	(XFSJ_RMAP_OFF_ATTR_FORK | XFSJ_RMAP_OFF_BMBT_BLOCK)

/* Is rmap owner @owner an inode (not a special owner)? */
static inline bool xrp_owner_inode(uint64_t owner)
{
	return !(owner >> 63);
}

/* Is @c, a claim of an AG, over [s, e) of its blocks? */
static inline bool xrp_claim_over(const struct xfsj_rmap_rec *c, uint64_t s,
				  uint64_t e)
{
	return c->startblock < e &&
	       s < (uint64_t)c->startblock + c->blockcount;
}

/*
 * claim_facts.c: the facts of the evidence model (repair/evidence.h).
 * The claims of @ag over [s, e) into @f (their records into @rec), at
 * most @max: 0, or 1 when there are more (*@n is then @max).
 */
int xrp_claims_gather(struct xrp *rp, const struct xck_ag *ag, uint64_t s,
		      uint64_t e, struct xrp_claim *f,
		      const struct xfsj_rmap_rec **rec, size_t max,
		      size_t *n);
/* The facts of claim @c of @ag over [s, e) into @x. */
void xrp_claim_fill(struct xrp *rp, const struct xck_ag *ag,
		    const struct xfsj_rmap_rec *c, uint64_t s, uint64_t e,
		    struct xrp_claim *x);
/* Does the header of block @agbno of AG @agno name the claim of @owner
 * (rmap @offset flags; @ftype of an inode owner): a block of that kind,
 * that owner, its own block number and the filesystem's UUID? */
bool xrp_claim_header(const struct xrp *rp, uint32_t agno, uint32_t agbno,
		      uint64_t owner, uint64_t offset, uint8_t ftype);
/* Was every AG's rmapbt read whole and trusted? */
bool xrp_rmapbt_whole(const struct xrp *rp);
/* Inode @ino's file type as the check saw it (0: unknown or free). */
uint8_t xrp_ino_ftype(const struct xrp *rp, uint64_t ino);
/* May fresh blocks be taken from AG @agno's free space btrees (its
 * headers and free space and rmap btrees sound)? */
bool xrp_ag_alloc_ok(const struct xrp *rp, uint32_t agno);
/*
 * Fresh blocks for inode @ino holding a copy of the blocks @piece maps:
 * the new mappings (same offsets) pushed onto @out, the extents taken
 * onto @taken (xfsj_bmbt_irec).  Returns 0, 1 when the free space is
 * short (what was taken stays in @taken: give it back with
 * xrp_clone_undo), or a negative XFSJ_E_*.
 */
int xrp_clone_extent(struct xrp *rp, uint64_t ino,
		     const struct xfsj_bmbt_irec *piece, struct xck_vec *out,
		     struct xck_vec *taken);
/* Has a problem (not INFO) of some round named inode @ino? */
bool xrp_ino_suspect(const struct xrp *rp, uint64_t ino);
/* A range of blocks a fork maps that another file keeps. */
struct xrp_clone {
	uint64_t fsb, len;
	uint64_t keeper;
	struct xrp_prob *pr;	/* the space.multiply_claimed problem */
};
/*
 * Mapping @r of inode @ino onto @out, its pieces over the ranges of
 * @clones (struct xrp_clone) mapped to fresh copies (xrp_clone_extent;
 * *@ncloned counts their blocks).  Returns as xrp_clone_extent.
 */
int xrp_clone_rec(struct xrp *rp, uint64_t ino, const struct xck_vec *clones,
		  const struct xfsj_bmbt_irec *r, struct xck_vec *out,
		  struct xck_vec *taken, uint64_t *ncloned);
/* Give the extents in @taken back to the free space (@taken emptied). */
void xrp_clone_undo(struct xrp *rp, uint64_t ino, struct xck_vec *taken);

#endif
