/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The populate layer's shared state. */
#ifndef XFSJ_POP_PRIV_H
#define XFSJ_POP_PRIV_H

#include <limits.h>
#include <sys/stat.h>

#include "fs/iget.h"
#include "xfsj/fs.h"
#include "xfsj/populate.h"

/* A source inode already copied (hard links). */
struct pop_link {
	dev_t dev;
	ino_t sino;
	uint64_t ino;
};

/* File data to copy once the metadata is written. */
struct pop_copy {
	uint32_t file;		/* index into pop.files */
	uint64_t src;		/* byte offset in the source file */
	uint64_t dst;		/* byte offset on the device */
	uint64_t len;		/* whole blocks */
};

struct pop {
	struct xfsj_fs *fs;
	struct xfsj_overlay *ov;	/* the metadata not yet written out */
	struct xfsj_io *bio;		/* the blank device all goes to */
	const struct xfsj_sb *sb;
	const struct xfsj_populate_opts *o;
	struct xfsj_populate_err *e;
	struct xfsj_fault *f;
	uint32_t gen;
	uint32_t dir_rotor;	/* the AG of the next directory */
	uint32_t *chunk_near;	/* per AG: where the last chunk ended */
	/*
	 * Per AG: no inode chunk below this AG inode number has a free
	 * inode (populate never frees one), so the search starts there.
	 */
	uint32_t *free_from;
	struct pop_link *links;	/* a hash table (populate.c) */
	size_t nlinks, caplinks;
	struct pop_copy *copies;
	size_t ncopies, capcopies;
	char **files;
	size_t nfiles, capfiles;
	uint64_t done;
	uint64_t total;		/* entries to copy (progress) */
	char path[PATH_MAX];
};

/* One entry to add, from a directory or a protofile. */
struct pop_ent {
	struct stat st;		/* type, mode, owner, times, size, rdev */
	const char *target;	/* a symlink's target (NULL: readlink) */
	bool xattrs;		/* copy the extended attributes of p->path */
};

/*
 * populate.c: entry @name of directory @dino, a new inode (p->path names
 * its source: a regular file's data is read from there) or one more link
 * to one made before (st_nlink > 1, the same st_dev and st_ino); *de is
 * set.  Then, when all of a directory's entries are in, its blocks.
 */
int xfsj_pop_add(struct pop *p, uint64_t dino, const char *name,
		 const struct pop_ent *ent, struct xfsj_dirent *de);
int xfsj_pop_dir_done(struct pop *p, uint64_t dino, uint64_t parent,
		      const struct xfsj_dirent *ents, size_t n, uint32_t nsub);
/* The root inode's core (and xattrs) from @ent. */
int xfsj_pop_root(struct pop *p, const struct pop_ent *ent);

/* proto.c: the tree described by the protofile at p->path. */
int xfsj_pop_proto(struct pop *p);

/*
 * ino_alloc.c: the lowest free inode (a new chunk when none is left) of
 * the AG of @parent for a file, of the next AG in turn for a directory.
 */
int xfsj_pop_ialloc(struct pop *p, uint64_t parent, bool dir, uint64_t *ino,
		    struct xfsj_fault *f);

/* data.c: the regular file's blocks and the copies queued; symlinks.
 * Both change @ip (the caller writes it back, then finishes the
 * deferred work). */
int xfsj_pop_file(struct pop *p, struct xfsj_iref *ip, const struct stat *st);
int xfsj_pop_symlink(struct pop *p, struct xfsj_iref *ip,
		     const char *target);
/*
 * blank_io.c: a device over @below whose reads of space free when the
 * fill began give zeroes (the ranges learnt from the bnobt by _learn).
 */
int xfsj_pop_blank_open(struct xfsj_io *below, struct xfsj_io **out);
int xfsj_pop_blank_learn(struct pop *p, struct xfsj_io *io);

/* Copy the queued data to @io. */
int xfsj_pop_copy_data(struct pop *p, struct xfsj_io *io);

/* xattr.c: the source's extended attributes onto inode @ino. */
int xfsj_pop_xattrs(struct pop *p, uint64_t ino);
/* A Linux POSIX ACL xattr value in XFS's form; returns its length or a
 * negative error (@out holds 4 + 12 * 25 bytes at least... see acl). */
int xfsj_pop_acl_to_disk(const uint8_t *v, size_t len, uint8_t *out,
			 size_t outlen);

/* Record a failure on the current path. */
int xfsj_pop_fail(struct pop *p, const char *what, int sys_errno, int err);

#endif
