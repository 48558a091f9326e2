/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The offline checker: one read-only pass over every metadata structure of
 * a filesystem opened through xfsj/fs.h (after xfsj_replay() has replayed
 * a dirty log into its overlay, so a dirty filesystem is checked as the
 * kernel's mount would leave it).
 *
 * What it finds is reported through a callback, one struct xfsj_problem
 * per finding, each naming a row of the problem table: a stable code, a
 * severity, the structure, a message template and the fix the repair will
 * apply.  The library formats a problem into a string on request
 * (xfsj_problem_format) but never prints.
 */
#ifndef XFSJ_CHECK_H
#define XFSJ_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xfsj/errors.h"
#include "xfsj/fs.h"

enum xfsj_sev {
	XFSJ_SEV_CORRUPT,	/* the structure is wrong: the kernel may
				 * refuse it or misbehave */
	XFSJ_SEV_XCORRUPT,	/* two structures disagree (a cross-check) */
	XFSJ_SEV_WARN,		/* legal but suspicious (a preen would tidy
				 * it; xfs_repair -n stays quiet) */
	XFSJ_SEV_INFO,		/* not a problem: what was seen */
};

/* The fix the repair will apply for a problem (issue 13 applies them). */
enum xfsj_fix {
	XFSJ_FIX_NONE,		/* report only */
	XFSJ_FIX_FIELD,		/* set the field to the expected value */
	XFSJ_FIX_SB_FROM_SECONDARY, /* rewrite from the agreeing secondaries */
	XFSJ_FIX_AG_HEADER,	/* rebuild the AG header */
	XFSJ_FIX_REBUILD_BTREE,	/* rebuild the AG btree from the scan */
	XFSJ_FIX_REBUILD_BMBT,	/* rebuild the fork's mapping */
	XFSJ_FIX_CLEAR_INODE,	/* free the inode */
	XFSJ_FIX_CLEAR_FORK,	/* drop the damaged mappings of the fork */
	XFSJ_FIX_SALVAGE_DIR,	/* rebuild the directory from the entries
				 * that survive */
	XFSJ_FIX_CLEAR_ENTRY,	/* remove one directory entry */
	XFSJ_FIX_SALVAGE_ATTR,	/* rebuild the attribute fork from the
				 * attributes that survive */
	XFSJ_FIX_NLINK,		/* set the link count to the entries */
	XFSJ_FIX_RECONNECT,	/* link the inode into lost+found */
	XFSJ_FIX_PPTR,		/* add or remove the parent pointer */
	XFSJ_FIX_FREE_SPACE,	/* give leaked blocks back to free space */
	XFSJ_FIX_COUNTERS,	/* recompute the summary counters */
	XFSJ_FIX_UNLINKED,	/* clear the unlinked list */
	XFSJ_FIX__COUNT
};

/*
 * The repair's handler of a row: what exactly its fix does.  The check
 * only names it; the repair maps each to its code through one table
 * (repair/fixes.c), as the kernel's online fsck gives each metadata type
 * its repair function, and says which have no code yet
 * (xfsj_handler_implemented).  Several rows may share a handler; every
 * handler carries out exactly one fix kind (xfsj_handler_fix).
 */
enum xfsj_handler {
	XFSJ_H_NONE,		/* report only */
	/* superblocks */
	XFSJ_H_SB_SECONDARY,	/* primary rewritten from the secondaries */
	XFSJ_H_SB_COPIES,	/* secondaries rewritten from the primary */
	XFSJ_H_SB_QUOTINO,	/* a quota inode pointer cleared */
	XFSJ_H_SB_NEEDSREPAIR,	/* the needs-repair flag cleared */
	/* AG headers and btrees */
	XFSJ_H_AG_HEADERS,	/* AGF, AGI, AGFL rebuilt from the scan */
	XFSJ_H_AGF_COUNTER,	/* an AGF count set to the scan's */
	XFSJ_H_AGI_COUNTER,	/* an AGI count set to the scan's */
	XFSJ_H_AG_BTREES,	/* the AG's btrees rebuilt from the scan */
	XFSJ_H_FREE_LEAKED,	/* leaked blocks given back (same rebuild) */
	/* inode cores */
	XFSJ_H_CLEAR_INODE,	/* the inode freed */
	XFSJ_H_INODE_HEADER,	/* magic/version/CRC mended, else freed */
	XFSJ_H_INODE_FORMAT,	/* size set to fit the format, else freed */
	XFSJ_H_INODE_META,	/* a metadata inode no entry names freed */
	XFSJ_H_SYMLINK_CRC,	/* remote target CRC mended, else freed */
	XFSJ_H_INODE_INO,
	XFSJ_H_INODE_UUID,
	XFSJ_H_FORK_NEXTENTS,	/* to the mappings the fork holds */
	XFSJ_H_INODE_BIG_NEXTENTS,
	XFSJ_H_INODE_NBLOCKS,
	XFSJ_H_INODE_FLAGS,
	XFSJ_H_INODE_FLAGS2,
	XFSJ_H_INODE_SIZE,
	XFSJ_H_INODE_EXTSIZE,
	XFSJ_H_INODE_COWEXTSIZE,
	XFSJ_H_INODE_ONLINK,
	XFSJ_H_INODE_NSEC,
	XFSJ_H_INODE_TIME,
	XFSJ_H_INODE_REFLINK,
	XFSJ_H_NLINK,		/* link count set to the check's count */
	XFSJ_H_NLINK_ZERO,	/* link count set to the entries naming it */
	/* forks */
	XFSJ_H_FORK_MAP,	/* a fork's mapping rebuilt */
	XFSJ_H_FORK_TRIM,	/* a fork's bad mappings dropped */
	XFSJ_H_ATTR_FORK_CLEAR,	/* an attribute fork of a bad format cut */
	XFSJ_H_CROSSLINK,	/* blocks claimed twice: trimmed or cloned */
	/* directories */
	XFSJ_H_SALVAGE_DIR,	/* rebuilt from the entries that survive */
	XFSJ_H_DIR_HEADER,	/* a block header's blkno/owner set */
	XFSJ_H_DIR_UUID,	/* a block header's uuid set */
	XFSJ_H_DIR_CRC,		/* a block's CRC recomputed */
	XFSJ_H_DIR_SIZE,	/* the directory's size set */
	XFSJ_H_DIR_INDEX,	/* leaf/free index rebuilt (dir rewritten) */
	XFSJ_H_DIRENT_FTYPE,	/* an entry's file type set to its child's
				 * mode's */
	XFSJ_H_CLEAR_ENTRY,	/* one entry removed */
	XFSJ_H_DIR_PARENTS,	/* the extra entries naming a directory
				 * removed */
	XFSJ_H_DOTDOT,		/* a child's ".." set to its parent */
	XFSJ_H_DIR_ROOT,	/* the root directory made again */
	XFSJ_H_RECONNECT,	/* an orphan linked into lost+found */
	/* attributes and parent pointers */
	XFSJ_H_SALVAGE_ATTR,	/* rebuilt from the attributes that survive */
	XFSJ_H_ATTR_FIELD,	/* a header field: the same rebuild */
	XFSJ_H_PPTR_ADD,	/* the missing parent pointer added */
	XFSJ_H_PPTR_REMOVE,	/* a pointer no entry matches removed */
	XFSJ_H_PPTR_GEN,	/* a pointer given the parent's generation */
	XFSJ_H_PPTR_BAD_PARENT,	/* a pointer to no inode removed (the
				 * entry's own is added back from it) */
	/* unlinked lists */
	XFSJ_H_UNLINKED_NEXT,	/* an inode's next_unlinked cleared */
	XFSJ_H_UNLINKED_TAKE_OFF, /* a linked inode taken off its list */
	XFSJ_H_UNLINKED_CUT,	/* a list cut before a bad inode */
	XFSJ_H_UNLINKED_FREE,	/* the lists' inodes freed, as a mount */
	/* summary counters */
	XFSJ_H_COUNTERS,
	XFSJ_H__COUNT
};

/*
 * Properties of a row's problem that the repair's decisions read (a
 * mask of these in xfsj_problem_def.traits).
 */
enum {
	/* An AGI unlinked bucket: the inode btrees are not in doubt. */
	XFSJ_T_UNLINKED_HEAD	= 1 << 0,
	/* An inobt finding that still leaves every record read. */
	XFSJ_T_INOBT_READ	= 1 << 1,
	/* A block claimed twice: both claims are known. */
	XFSJ_T_CROSSLINK	= 1 << 2,
	/* The inode btrees disagree with an inode's core: rebuilt. */
	XFSJ_T_INO_TREES	= 1 << 3,
	/* ... and the inode is written as a free one after that. */
	XFSJ_T_WRITE_FREE	= 1 << 4,
	/* The AG's free space btrees are in doubt. */
	XFSJ_T_DOUBTS_FREE	= 1 << 5,
	/* A directory salvage leaves the entry out. */
	XFSJ_T_DROPS_ENTRY	= 1 << 6,
	/* The entry is named by its child and its name's hash. */
	XFSJ_T_BY_CHILD		= 1 << 7,
	/* Only a directory's index (bests, free blocks, bestfree). */
	XFSJ_T_DIR_INDEX	= 1 << 8,
	/* A fork's mappings are in doubt (its block count aside). */
	XFSJ_T_FORK_MAP		= 1 << 9,
	/* A mapping names blocks that are not the inode's. */
	XFSJ_T_FOREIGN_BLOCKS	= 1 << 10,
	/* A count the scan made: safe for preen. */
	XFSJ_T_COUNTER		= 1 << 11,
	/* A bound broken when its AG's counter is: the counter's fix
	 * answers it. */
	XFSJ_T_COUNTER_BOUND	= 1 << 12,
	/* The rows of a structure the AG stage rebuilds (the structure
	 * column is for people: the repair reads these): the AGI's own
	 * header, the inobt's, finobt's and refcount btree's records. */
	XFSJ_T_AGI_HEADER	= 1 << 13,
	XFSJ_T_INOBT		= 1 << 14,
	XFSJ_T_FINOBT		= 1 << 15,
	XFSJ_T_REFC_BTREE	= 1 << 16,
};

/*
 * A row of the problem table.  @msg is a template: {ag} {agbno} {ino}
 * {fsbno} {off} {field} {expected} {found} {name} {count} are replaced by
 * the problem's typed fields (absent ones print as "?").
 */
struct xfsj_problem_def {
	const char *code;	/* stable dotted name: "agf.freeblks" */
	uint32_t num;		/* 0xPPnnnn: PP the phase, nnnn the row */
	enum xfsj_sev sev;
	const char *structure;	/* "superblock", "AGF", "inode", ... */
	const char *msg;
	enum xfsj_fix fix;
	enum xfsj_handler handler; /* what the fix does (the repair's) */
	unsigned int traits;	/* XFSJ_T_* */
};

/* Which typed fields of a problem are set. */
enum {
	XFSJ_PF_AG	= 1 << 0,
	XFSJ_PF_AGBNO	= 1 << 1,
	XFSJ_PF_INO	= 1 << 2,
	XFSJ_PF_FSBNO	= 1 << 3,
	XFSJ_PF_OFF	= 1 << 4,
	XFSJ_PF_EXPECTED = 1 << 5,
	XFSJ_PF_FOUND	= 1 << 6,
	XFSJ_PF_COUNT	= 1 << 7,
	XFSJ_PF_CAUSE	= 1 << 8,
};

struct xfsj_problem {
	const struct xfsj_problem_def *def;
	unsigned int has;	/* XFSJ_PF_* */
	uint32_t agno;
	uint32_t agbno;
	uint64_t ino;
	uint64_t fsbno;
	uint64_t off;		/* byte offset in a block, file or
				 * directory offset, record index: the
				 * template says which */
	uint64_t expected, found, count;
	const char *field;	/* on-disk field name, or NULL */
	const char *name;	/* a directory entry or attribute name */
	size_t namelen;		/* (may hold any byte but '/' and NUL) */
	/*
	 * The problem's number in its check: 0 for the first reported, one
	 * more for each after (set by the check, whatever the reporter
	 * put there).  With XFSJ_PF_CAUSE, @cause is the number of the
	 * problem this one follows from, reported earlier in the same
	 * check (a child's link count short because its directory's block
	 * was dropped): a consequence, which a tool may group under it.
	 */
	uint64_t id;
	uint64_t cause;
	/*
	 * Where the check was when it found it (set by the check): its
	 * phase (enum xfsj_check_phase) and, in the per-AG phases, the AG
	 * it was checking.  A repair that checks some AGs again replaces
	 * what was found there and keeps the rest.
	 */
	unsigned int phase;
	uint32_t scan_ag;
};

/* Progress phases, in the order they run. */
enum xfsj_check_phase {
	XFSJ_CK_SB,		/* superblocks */
	XFSJ_CK_AG,		/* AG headers and AG btrees, per AG */
	XFSJ_CK_INODES,		/* inode chunks, cores and forks, per AG */
	XFSJ_CK_SPACE,		/* the ownership map against the btrees */
	XFSJ_CK_NAMES,		/* links, reachability, parent pointers */
	XFSJ_CK_COUNTERS,	/* summary counters */
	XFSJ_CK__PHASES
};

#define XFSJ_CK_AG_STEPS	1000

struct xfsj_check_cb {
	void *arg;
	void (*problem)(void *arg, const struct xfsj_problem *p);
	/*
	 * @done of @total units of @phase: for the AG phases thousandths
	 * of an AG (XFSJ_CK_AG_STEPS each, the inode scan reporting within
	 * its AG as it goes), 1 of 1 for the others.
	 */
	void (*progress)(void *arg, enum xfsj_check_phase phase,
			 uint64_t done, uint64_t total);
};

struct xfsj_spill;

struct xfsj_check_opts {
	/* 0: the cache's default bound (xfsj/fs.h). */
	uint64_t cache_bytes;
	/*
	 * Stop after the superblocks: for a caller that must restore the
	 * primary before anything else can be read (the log, the AGs).
	 */
	bool sb_only;
	/*
	 * Threads of the per-AG phases (headers and btrees, inodes, space),
	 * one AG at a time each (0 or 1: the caller's thread only).  The
	 * results are the same for any number but the peak of the tables' bytes.  Only for a handle whose
	 * buffers hold no change the overlay has not (each thread reads
	 * the overlay through its own handle).
	 */
	unsigned int threads;
	/*
	 * xfs_repair's -o ag_stride=N: one thread for every @ag_stride AGs
	 * (the AG count divided by it, rounded up), at most @threads when
	 * that is set; 0: @threads alone.
	 */
	unsigned int ag_stride;
	/*
	 * The bound of the check's tables in RAM and their scratch file
	 * (xfsj/spill.h; NULL: RAM only, no bound).  A check the scratch
	 * file could not hold fails with -XFSJ_E_SCRATCH (or -XFSJ_E_NOMEM
	 * where a phase says so; the spill's stats tell).
	 */
	struct xfsj_spill *spill;
};

/*
 * The work of a check, counted in records looked at (xfsj_check_result's
 * work[]): each grows with what the filesystem holds, never with the
 * square of it, so that a check of twice the filesystem does about twice
 * the work.
 */
enum xfsj_check_work {
	XFSJ_WK_SB,		/* superblocks: the primary, secondaries */
	XFSJ_WK_AGH,		/* AG header sectors: AGF, AGI, AGFL */
	XFSJ_WK_AGBT,		/* AG btree records */
	XFSJ_WK_INODES,		/* inode slots of the chunks */
	XFSJ_WK_MAPS,		/* fork mapping records */
	XFSJ_WK_DIRENTS,	/* directory entries */
	XFSJ_WK_ATTRS,		/* attributes (parent pointers too) */
	XFSJ_WK_LOOKUPS,	/* lookups of a mapping's blocks in the AG's
				 * tables, and the records they looked at */
	XFSJ_WK_SPACE,		/* records of the ownership cross-check's
				 * tables: claims, free extents, rmaps,
				 * refcounts */
	XFSJ_WK_NAMES,		/* entries, parent pointers, inode slots of
				 * the link and reachability checks */
	XFSJ_WK_COUNTERS,	/* AGs summed for the summary counters */
	XFSJ_WK__N
};

struct xfsj_check_result {
	uint64_t problems;		/* reported, all severities but INFO */
	uint64_t by_sev[XFSJ_SEV_INFO + 1];
	uint64_t inodes;		/* in use, checked */
	uint64_t dirs, attr_forks, extents, btree_blocks;
	uint64_t peak_state_bytes;	/* the checker's own tables */
	uint64_t work[XFSJ_WK__N];	/* enum xfsj_check_work */
	/*
	 * Why it stopped, when it could not check (a nonzero return):
	 * an I/O error, or a feature it cannot check (-XFSJ_E_UNSUPP,
	 * @fault names it).
	 */
	struct xfsj_fault fault;
};

/*
 * Check the filesystem behind @fs.  Returns 0 when the check ran to the
 * end (whatever it found: see @res->problems), or a negative XFSJ_E_* when
 * it could not (an I/O error, an unsupported feature).
 */
int xfsj_check(struct xfsj_fs *fs, const struct xfsj_check_opts *o,
	       const struct xfsj_check_cb *cb, struct xfsj_check_result *res);

/*
 * Check only the superblocks of the device behind @io, as they are on
 * disk, without a replay: for a caller whose replay could not start
 * because the primary superblock is damaged (xfs_repair -n reports such a
 * primary, exit 1, rather than giving up).  Same returns as xfsj_check;
 * nothing after the superblocks is checked.
 */
struct xfsj_io;
int xfsj_check_superblocks(struct xfsj_io *io, const struct xfsj_check_cb *cb,
			   struct xfsj_check_result *res);

/*
 * Whether the device behind @io holds an XFS filesystem at all: a primary
 * superblock that holds up on its own, or else a secondary found by
 * searching the device (as xfs_repair searches).  1 yes, 0 no, or a
 * negative XFSJ_E_* (an I/O error).
 */
int xfsj_check_is_xfs(struct xfsj_io *io);

/* The problem table, all rows: for --list-problems and the man page. */
size_t xfsj_problem_count(void);
const struct xfsj_problem_def *xfsj_problem_nth(size_t i);
const struct xfsj_problem_def *xfsj_problem_by_code(const char *code);
const char *xfsj_sev_name(enum xfsj_sev s);
const char *xfsj_fix_name(enum xfsj_fix f);
const char *xfsj_handler_name(enum xfsj_handler h);
const char *xfsj_check_phase_name(enum xfsj_check_phase p);

/*
 * Fill @buf with the problem's message (its template expanded; a name is
 * escaped to printable ASCII).  Returns the length it needed, as
 * snprintf does.
 */
size_t xfsj_problem_format(const struct xfsj_problem *p, char *buf,
			   size_t len);

#endif
