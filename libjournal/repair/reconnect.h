/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FIX_RECONNECT's parts (fix_reconnect.c: the heads, lost+found, loops;
 * fix_home.c: heads sent home under their parent pointers;
 * dirent_index.c: the lookups both make in the check's entries).
 */
#ifndef XFSJ_REPAIR_RECONNECT_H
#define XFSJ_REPAIR_RECONNECT_H

#include "core/u64set.h"
#include "repair/repair_priv.h"

/*
 * The check's directory entries (ck->dirents, sorted by directory when
 * built) looked up in logarithmic time, built once per reconnect pass:
 * a directory's run of entries, whether it holds a name (the names of
 * the directories asked, sorted once each), and the entries of the
 * directories the root does not reach, by the inode they name.
 */
struct xrp_dix_run;
struct xrp_dix_named;
struct xrp_dix {
	struct xrp *rp;
	const struct xck_dirent *de;
	size_t n;
	uint32_t hash_dot, hash_dotdot;
	struct xrp_dix_run *runs;	/* the directories asked, by number */
	size_t nruns, capruns;
	uint64_t *keys;			/* their names: hash << 8 | length */
	size_t nkeys, capkeys;
	struct xrp_dix_named *by_child;	/* unreached directories' entries */
	size_t nby;
	struct xfsj_u64set cut;		/* what the reported inodes hold */
};

int xrp_dix_build(struct xrp *rp, struct xrp_dix *ix);
void xrp_dix_free(struct xrp_dix *ix);
/* Does the root reach @ino (not through an inode reported cut off)? */
bool xrp_dix_rooted(const struct xrp_dix *ix, uint64_t ino);
/* Is @e a "." or ".." entry? */
bool xrp_dix_dotish(const struct xrp_dix *ix, const struct xck_dirent *e);
/* The entries of directory @dir: [*@first, *@end) of ix->de. */
void xrp_dix_run(const struct xrp_dix *ix, uint64_t dir, size_t *first,
		 size_t *end);
/*
 * Does directory @dir hold a name of @namelen bytes hashing to @hash?
 * 1, 0, or -XFSJ_E_NOMEM.
 */
int xrp_dix_holds(struct xrp_dix *ix, uint64_t dir, uint32_t hash,
		  uint32_t namelen);
/*
 * The directories the root does not reach whose entries (not "." or
 * "..") name @ino: [*@first, *@end), each read with xrp_dix_namer_at.
 */
void xrp_dix_namers(const struct xrp_dix *ix, uint64_t ino, size_t *first,
		    size_t *end);
uint64_t xrp_dix_namer_at(const struct xrp_dix *ix, size_t i);
/* The first of them (NULLFSINO: none). */
uint64_t xrp_dix_namer(const struct xrp_dix *ix, uint64_t ino);

/* Is @ino a directory in use (the check's view)? */
bool xrp_rc_dir_inuse(struct xrp *rp, uint64_t ino);
/*
 * Add entries @add (@nadd) to directory @dir, the entries its blocks
 * hold kept (none given back from parent pointers: what those name is
 * placed by fix_home.c).  With @ok, an entry whose name @dir holds already is left out
 * (@ok[i] false; the others true); 0, 1 when the directory cannot be
 * read or written (nothing added), or a negative XFSJ_E_*.
 */
int xrp_rc_dir_add(struct xrp *rp, uint64_t dir,
		   const struct xfsj_dirent *add, size_t nadd, bool *ok);
/*
 * Break a loop at @ino, now named in @home: the entries naming it in the
 * directories the root does not reach (but @home) are removed.  Their
 * number, or a negative XFSJ_E_*.
 */
int xrp_rc_cut_loop(struct xrp *rp, struct xrp_dix *ix, uint64_t ino,
		    uint64_t home);
/* A name a moved inode now has: its entry in @parent. */
struct xrp_rc_name {
	uint64_t parent;
	const char *name;
	uint8_t namelen;
	bool had;		/* its parent pointer was there already, */
	uint32_t gen;		/* ... with this generation */
};
/*
 * Inode @ino moved to its names @nm (@n; a directory has one): its ".."
 * (directories), its link count (@cut entries naming it were removed)
 * and, with parent pointers, one pointer per name (one there already
 * with the parent's generation kept).  0 or a negative XFSJ_E_*.
 */
int xrp_rc_settle(struct xrp *rp, uint64_t ino, const struct xrp_rc_name *nm,
		  size_t n, int cut);
/*
 * The old parents of directories @h (@n) moved away (each ".." but one
 * naming @keep) lose the link that ".." gave them.
 */
int xrp_rc_unlink_old_parents(struct xrp *rp, const uint64_t *h, size_t n,
			      uint64_t keep);
/* Every problem of inode @h[i] (@n, sorted) with FIX_RECONNECT: done. */
void xrp_rc_mark_done(struct xrp *rp, const uint64_t *h, size_t n);

/*
 * fix_home.c: the heads @h (@n, sorted) whose parent pointers name a
 * directory the root reaches go back there under those names (a loop
 * member's loop is broken at its first member that has one); those are
 * taken off the list, the rest left for lost+found.  *@lpf: lost+found
 * (NULLFSINO: none yet; a directory going back as the root's
 * "lost+found" becomes it).  0 or a negative XFSJ_E_*.
 */
int xrp_homes(struct xrp *rp, struct xrp_dix *ix, uint64_t *h, size_t *n,
	      uint64_t *lpf);

#endif
