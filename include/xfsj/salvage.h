/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Salvage replay of a log damaged in the middle (xfsj_replay_opts.salvage)
 * and what it reports: each transaction after the damage that could not
 * be replayed because its checkpoint lost a record, with what it touched,
 * as far as its items could still be decoded.
 *
 * Nothing here prints: the tool words the report.
 */
#ifndef XFSJ_SALVAGE_H
#define XFSJ_SALVAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "xfsj/errors.h"
#include "xfsj/logread.h"

/* One extent an intent (or done item) of a lost transaction names. */
struct xfsj_salvage_ext {
	uint16_t type;		/* item type (EFI, RUI, ...) */
	uint64_t startblock;	/* fsbno */
	uint64_t owner;		/* RUI/BUI */
	uint32_t len;
};

/* One disk range a lost transaction logged a copy of. */
struct xfsj_salvage_range {
	uint64_t daddr;
	uint32_t bbs;
};

/* A transaction not replayed: its checkpoint lost a record. */
struct xfsj_salvage_trans {
	uint32_t tid;
	uint64_t lsn;		/* LSN of the first record seen of it */
	uint64_t commit_lsn;	/* 0: its commit was lost too */
	uint32_t start_blk;
	uint32_t nitems;	/* items that could still be decoded */
	uint32_t nfailed;	/* items that could not */
	uint64_t *inos;		/* sorted, each once */
	uint32_t ninos;
	struct xfsj_salvage_range *ranges;	/* in log order, each once */
	uint32_t nranges;
	struct xfsj_salvage_ext *exts;
	uint32_t nexts;
};

/*
 * What the log cost: the damaged stretches skipped, the transactions lost,
 * the checkpoints kept (xfs_repair -L keeps none).
 */
struct xfsj_salvage_summary {
	uint32_t ndamage;
	struct xfsj_log_damage first;	/* the first damaged stretch */
	uint64_t kept;		/* transactions replayed */
	uint64_t kept_after;	/* ... of them after the first damage */
	uint64_t lost;		/* transactions not replayed */
	uint64_t lost_lsn_lo;	/* smallest LSN of a lost one (0: none) */
	uint64_t lost_lsn_hi;	/* largest LSN seen of a lost one */
	uint64_t passed;	/* items of kept ones that could not land */
	uint64_t clusters;	/* inode clusters a lost one made, remade */
	uint64_t inodes_kept;	/* inodes newer on disk than the creation of
				 * their chunk, kept as they are */
	/*
	 * The leftover work (intents, unlinked inodes, CoW staging) could
	 * not be finished on the salvaged state and was left undone (as
	 * xfs_repair -L leaves it) for the repair; unfinished_err: why.
	 */
	uint32_t unfinished;
	int unfinished_err;
};

/*
 * Gather what the partial transaction @t (a salvage walk's) touched into
 * @out (arrays allocated; free with xfsj_salvage_trans_free()).  Decodes
 * its items itself when the walk did not.
 */
int xfsj_salvage_collect(const struct xfsj_log_trans *t,
			 struct xfsj_salvage_trans *out);
void xfsj_salvage_trans_free(struct xfsj_salvage_trans *st);

#endif
