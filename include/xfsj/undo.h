/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Undo files, as e2fsprogs' undo files: before a commit (redo.h) changes
 * the first byte of the device, the device's current contents of every
 * page the commit will write are saved, with CRCs, to an undo file and
 * synced; applying the undo file writes them back.
 *
 * A run may commit more than once (a repair: the needs-repair flag alone,
 * then everything with the flag cleared); its undo file is written once,
 * before the first commit, and covers every page any of them writes.  A
 * run with an undo file goes: undo file (written, synced, then its
 * complete mark written and synced); then per commit: redo file (written,
 * synced), copy onto the device, sync, redo file removed.  A run killed
 * while writing the undo file or the first redo file never touched the
 * device: running again writes both again.  A run killed during a copy
 * leaves a complete redo file, and a complete undo file carrying the tag
 * of every redo file of the run: the run after it must finish the redo
 * file and keep that undo file, never write a new one from the
 * half-written device (xfsj_redo_undo_check()).  A run killed between two
 * commits leaves the device partly written and no redo file: the undo
 * file records the states each commit leaves, so the run after it, seeing
 * the device in such a state, keeps it too (xfsj_undo_save()).
 *
 * Applying checks everything before writing anything: the header and its
 * CRC, the complete mark, the CRC of every page, the device size, the
 * filesystem's UUID (in the device's primary superblock), and that every
 * page on the device holds either the contents the commit wrote or the
 * old ones (anything else: the filesystem changed since, refused).
 * Pages already old are written again all the same: applying twice, or
 * again after being killed while applying, is harmless.
 */
#ifndef XFSJ_UNDO_H
#define XFSJ_UNDO_H

#include <stdbool.h>
#include <stdint.h>

#include "xfsj/errors.h"
#include "xfsj/io.h"
#include "xfsj/redo.h"

/* The most commits one undo file covers. */
#define XFSJ_UNDO_MAX_COMMITS	16

/* Why an undo file was refused; nothing was written. */
enum xfsj_undo_refusal {
	XFSJ_UNDO_OK = 0,
	XFSJ_UNDO_NOT_UNDO,	/* no undo file header (-XFSJ_E_BADMAGIC) */
	XFSJ_UNDO_VERSION,	/* a format this version does not know
				 * (-XFSJ_E_UNSUPP) */
	XFSJ_UNDO_INCOMPLETE,	/* cut short or without its complete mark:
				 * its run stopped before touching the
				 * device (-XFSJ_E_CORRUPT) */
	XFSJ_UNDO_TORN,		/* a CRC does not match, or an entry is out of
				 * order or past the device (-XFSJ_E_BADCRC) */
	XFSJ_UNDO_OTHER_FS,	/* another filesystem's (-XFSJ_E_CONFLICT) */
	XFSJ_UNDO_OTHER_SIZE,	/* another device size (-XFSJ_E_CONFLICT) */
	XFSJ_UNDO_CHANGED,	/* a page on the device holds neither its old
				 * contents nor those the run wrote: the
				 * filesystem changed since (-XFSJ_E_CONFLICT) */
};

struct xfsj_undo_result {
	enum xfsj_undo_refusal refused;
	uint64_t offset;	/* TORN, CHANGED: the page's device offset */
	uint8_t uuid[16];	/* the undo file's filesystem, once read */
	uint64_t devsize;	/* ... and device size */
	uint64_t pages;		/* pages written back */
	uint64_t bytes;		/* bytes written back (the device's last page
				 * may be short) */
	uint64_t already;	/* pages that held their old contents already */
};

/*
 * Save the device's current contents (read below the overlays) of every
 * dirty page of the commits @ovs[0..@n) (overlays over one device, to be
 * committed in that order) to the undo file @path (created 0600,
 * replacing what was there) and sync it.  @uuid names the filesystem.
 * @cb is called after each page.  An undo file of this filesystem whose
 * run was cut between two commits (no redo file left, the device partly
 * written) is kept instead, when it covers this run's pages and commits
 * (-XFSJ_E_CONFLICT when it does not: the device's old contents are gone).
 */
int xfsj_undo_save(const char *path, struct xfsj_overlay *const *ovs,
		   unsigned int n, const uint8_t uuid[16],
		   const struct xfsj_redo_cb *cb);
/* The same into the undo file behind @uio (any backend), from byte 0. */
int xfsj_undo_save_io(struct xfsj_io *uio, struct xfsj_overlay *const *ovs,
		      unsigned int n, const uint8_t uuid[16],
		      const struct xfsj_redo_cb *cb);

/*
 * Is @path (or @uio) a complete, intact undo file of the run one of whose
 * commits has a redo file with @tag (xfsj_redo_pending()), on a device of
 * @devsize bytes of the filesystem @uuid?  A missing, incomplete or other
 * file is *@match false, not an error; read errors are errors.
 */
int xfsj_undo_matches(const char *path, const uint8_t uuid[16],
		      uint64_t devsize, uint32_t tag, bool *match);
int xfsj_undo_matches_io(struct xfsj_io *uio, const uint8_t uuid[16],
			 uint64_t devsize, uint32_t tag, bool *match);

/*
 * Before finishing an interrupted commit whose redo file may wait at
 * @redo (or behind @rio), with @undo (or @uio) as this run's undo file:
 * *@ok is true when no complete redo file waits, or when the undo file is
 * the complete one of that commit (keep it, finish the redo file).  False:
 * the device is partly written and its old contents are gone, so no undo
 * file can be made for it any more; nothing is written either way.
 */
int xfsj_redo_undo_check(const char *redo, const char *undo,
			 struct xfsj_io *io, const uint8_t uuid[16], bool *ok);
int xfsj_redo_undo_check_io(struct xfsj_io *rio, struct xfsj_io *uio,
			    struct xfsj_io *io, const uint8_t uuid[16],
			    bool *ok);

/*
 * Write the old pages of the undo file @path (or behind @uio) back onto
 * @io and sync, after checking all of it (see the top; a page may also
 * hold what an earlier commit of the run left).  @res says what
 * was written or why it was refused (then nothing was written).
 */
int xfsj_undo_apply(const char *path, struct xfsj_io *io,
		    struct xfsj_undo_result *res,
		    const struct xfsj_redo_cb *cb);
int xfsj_undo_apply_io(struct xfsj_io *uio, struct xfsj_io *io,
		       struct xfsj_undo_result *res,
		       const struct xfsj_redo_cb *cb);

/* The step of a commit that failed. */
enum xfsj_commit_step {
	XFSJ_COMMIT_UNDO = 1,	/* writing the undo file: device untouched */
	XFSJ_COMMIT_SAVE,	/* writing the redo file: device untouched */
	XFSJ_COMMIT_COPY,	/* copying onto the device: run again */
};

/*
 * Commit the overlays @ovs[0..@n), over one device, one after the other
 * as xfsj_redo_commit() does (each through the redo file @redo); with
 * @undo (non-NULL), first the run's undo file.  On an error, *@failed
 * (may be NULL) says at which step; *@pages (may be NULL) counts the
 * pages written by all commits.  The one commit path for a replay and a
 * repair.
 */
int xfsj_redo_commit_run(const char *redo, const char *undo,
			 struct xfsj_overlay *const *ovs, unsigned int n,
			 const uint8_t uuid[16], uint64_t *pages,
			 enum xfsj_commit_step *failed,
			 const struct xfsj_redo_cb *cb);
/* The same through a redo file behind @rio and an undo file behind @uio. */
int xfsj_redo_commit_run_io(struct xfsj_io *rio, struct xfsj_io *uio,
			    struct xfsj_overlay *const *ovs, unsigned int n,
			    const uint8_t uuid[16], uint64_t *pages,
			    enum xfsj_commit_step *failed,
			    const struct xfsj_redo_cb *cb);
/* A run of one commit. */
int xfsj_redo_commit_undo(const char *redo, const char *undo,
			  struct xfsj_overlay *ov, const uint8_t uuid[16],
			  uint64_t *pages, enum xfsj_commit_step *failed,
			  const struct xfsj_redo_cb *cb);

#endif
