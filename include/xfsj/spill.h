/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The memory bound of the large tables (the check's ownership claims, AG
 * btree records, inode records, directory entries and parent pointers):
 * past @ram_bytes of tables in RAM, a table moves to a scratch file made
 * (and unlinked at once) in a directory, mapped shared, and the pages of
 * the scratch file the process holds are dropped whenever its resident
 * size passes @rss_bytes, so that the peak RSS stays near that.
 *
 * The caller (a tool) makes one, hands it to the check and the repair
 * (xfsj_check_opts.spill), and when a check fails with -XFSJ_E_SCRATCH
 * asks it what did not fit, to say so.
 */
#ifndef XFSJ_SPILL_H
#define XFSJ_SPILL_H

#include <stdint.h>

struct xfsj_spill;

/*
 * A bound of @ram_bytes of tables in RAM (0: no bound, nothing spills),
 * the scratch file made in @dir when first needed, its mapped pages
 * dropped whenever the process's RSS passes @rss_bytes (0: never by a
 * watch; only windows the tables' own walks let go).  0 or
 * -XFSJ_E_NOMEM / -XFSJ_E_INVAL (no @dir).
 */
int xfsj_spill_new(const char *dir, uint64_t ram_bytes, uint64_t rss_bytes,
		   struct xfsj_spill **out);
void xfsj_spill_free(struct xfsj_spill *sp);

/* What the scratch file came to. */
struct xfsj_spill_stats {
	uint64_t ram_peak;	/* the tables' bytes in RAM at most */
	uint64_t file_peak;	/* the tables' bytes in the file at most */
	uint64_t spills;	/* tables moved to (or made in) the file */
	uint64_t drops;		/* times the mapped pages were dropped */
	/*
	 * After -XFSJ_E_SCRATCH: the bytes that did not fit and the errno
	 * of the refusal (ENOSPC, EFBIG, EACCES when the file could not be
	 * made); 0 otherwise.
	 */
	uint64_t failed_bytes;
	int failed_errno;
};
void xfsj_spill_stats(const struct xfsj_spill *sp, struct xfsj_spill_stats *st);
/*
 * The scratch file's name (it is unlinked as soon as it is made): the
 * pattern in the directory before it is made.
 */
const char *xfsj_spill_path(const struct xfsj_spill *sp);

#endif
