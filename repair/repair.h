/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xfsj-repair's parts: the replay (repair.c) and the check's wording. */
#ifndef XFSJ_REPAIR_H
#define XFSJ_REPAIR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "xfsj/replay.h"

enum check_outcome { CHECK_CLEAN, CHECK_PROBLEMS, CHECK_FAILED };

/*
 * Check the filesystem the replay @keep left in its overlay (@lsn: the
 * replay's head, or 0 after a clean log): one line per problem on stdout
 * (JSON Lines with @json, then a summary object), progress on stderr when
 * @progress, other words on @txt.  @cache_bytes bounds the buffer cache
 * (0: the library's default).
 */
enum check_outcome check_replayed(const char *dev, struct xfsj_replay *keep,
				  uint64_t lsn, bool json, bool progress,
				  uint64_t cache_bytes, FILE *txt);

/* --list-problems: the problem table, one row a line (JSON Lines). */
void list_problems(bool json, FILE *f);

/*
 * -n, when the log cannot be replayed because it or the primary
 * superblock is damaged: report that as a problem (@f the replay's
 * fault), then check the superblocks as they are on disk.  Returns
 * CHECK_PROBLEMS, or CHECK_FAILED when not even that could run.
 */
enum check_outcome check_unreplayable(const char *dev, struct xfsj_io *io,
				      const struct xfsj_fault *f, bool json,
				      FILE *txt);

#endif
