/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Undo files, as e2fsprogs' undo files: before a commit (redo.h) changes
 * the first byte of the device, the device's current contents of every
 * page the commit will write are saved, with CRCs, to an undo file and
 * synced; applying the undo file writes them back.
 *
 * A commit with an undo file runs: undo file (written, synced, then its
 * complete mark written and synced), redo file (written, synced), copy
 * onto the device, sync, redo file removed.  A run killed while writing
 * the undo or the redo file never touched the device: running again
 * writes both again.  A run killed during the copy leaves a complete redo
 * file and a complete undo file carrying the redo file's tag: the run
 * after it must finish the redo file and keep that undo file, never write
 * a new one from the half-written device (xfsj_redo_undo_check()).
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
				 * contents nor those the commit wrote: the
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
 * Save the device's current contents (xfsj_overlay_device(@ov), read
 * below the overlay) of every dirty page of @ov to the undo file @path
 * (created 0600, replacing what was there) and sync it.  @uuid names the
 * filesystem.  @cb is called after each page.
 */
int xfsj_undo_save(const char *path, struct xfsj_overlay *ov,
		   const uint8_t uuid[16], const struct xfsj_redo_cb *cb);
/* The same into the undo file behind @uio (any backend), from byte 0. */
int xfsj_undo_save_io(struct xfsj_io *uio, struct xfsj_overlay *ov,
		      const uint8_t uuid[16], const struct xfsj_redo_cb *cb);

/*
 * Is @path (or @uio) a complete, intact undo file of the commit whose redo
 * file has @pages pages and @tag (xfsj_redo_pending()) on a device of
 * @devsize bytes of the filesystem @uuid?  A missing, incomplete or other
 * file is *@match false, not an error; read errors are errors.
 */
int xfsj_undo_matches(const char *path, const uint8_t uuid[16],
		      uint64_t devsize, uint64_t pages, uint32_t tag,
		      bool *match);
int xfsj_undo_matches_io(struct xfsj_io *uio, const uint8_t uuid[16],
			 uint64_t devsize, uint64_t pages, uint32_t tag,
			 bool *match);

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
 * @io and sync, after checking all of it (see the top).  @res says what
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
 * xfsj_redo_commit() with, when @undo (or @uio) is given, the undo file
 * of the commit written first; with neither it is xfsj_redo_commit().
 * On an error, *@failed (may be NULL) says at which step.  The one commit
 * path for a replay and a repair.
 */
int xfsj_redo_commit_undo(const char *redo, const char *undo,
			  struct xfsj_overlay *ov, const uint8_t uuid[16],
			  uint64_t *pages, enum xfsj_commit_step *failed,
			  const struct xfsj_redo_cb *cb);
int xfsj_redo_commit_undo_io(struct xfsj_io *rio, struct xfsj_io *uio,
			     struct xfsj_overlay *ov, const uint8_t uuid[16],
			     uint64_t *pages, enum xfsj_commit_step *failed,
			     const struct xfsj_redo_cb *cb);

#endif
