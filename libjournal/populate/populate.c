/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Filling a new filesystem from a directory: the walk (names in byte
 * order, depth first), the inodes it makes, and the run around it (the
 * needs-repair flag while it lasts, the superblock counters, the
 * metadata and the file data written out in batches as the walk goes:
 * what the fill holds is bounded, whatever the size of the tree).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/grow.h"
#include "core/overlay.h"
#include "fs/attr.h"
#include "fs/defer.h"
#include "fs/dir_write.h"
#include "populate/pop_priv.h"

#define PROGRESS_EVERY	1000
/*
 * The fill writes out what it made (metadata, queued file data) whenever
 * the metadata held (dirty buffers pinned in the cache past its bound,
 * pages in the overlay) reaches this many bytes or this many copies are
 * queued, so that its memory does not grow with the tree.
 */
#define DRAIN_BYTES	(64ULL << 20)
#define DRAIN_COPIES	65536

int xfsj_pop_fail(struct pop *p, const char *what, int sys_errno, int err)
{
	if (!p->e->path[0]) {
		snprintf(p->e->path, sizeof(p->e->path), "%s", p->path);
		p->e->sys_errno = sys_errno;
		p->e->what = what;
	}
	return err;
}

static uint64_t stamp(const struct pop *p, const struct timespec *t)
{
	int64_t sec = t->tv_sec;
	uint32_t nsec = (uint32_t)t->tv_nsec;

	if (p->o->have_epoch && sec >= p->o->epoch) {
		sec = p->o->epoch;
		nsec = 0;
	}
	return xfsj_time_encode(sec, nsec, (p->sb->features_incompat &
					    XFSJ_INCOMPAT_BIGTIME) != 0);
}

/* The core of inode @ip from the source's @st (a fresh or the root one). */
static void set_core(struct pop *p, struct xfsj_iref *ip,
		     const struct stat *st)
{
	struct xfsj_dinode *di = &ip->di;
	bool big = (p->sb->features_incompat & XFSJ_INCOMPAT_BIGTIME) != 0;

	di->mode = (uint16_t)st->st_mode;
	di->uid = st->st_uid;
	di->gid = st->st_gid;
	di->atime = stamp(p, &st->st_atim);
	di->mtime = stamp(p, &st->st_mtim);
	di->ctime = stamp(p, &st->st_ctim);
	di->crtime = xfsj_time_encode(p->o->have_epoch ? p->o->epoch :
				      p->o->now_sec,
				      p->o->have_epoch ? 0 : p->o->now_nsec,
				      big);
	di->flags2 = (big ? XFSJ_DIFLAG2_BIGTIME : 0) |
		     ((p->sb->features_incompat & XFSJ_INCOMPAT_NREXT64) ?
		      XFSJ_DIFLAG2_NREXT64 : 0);
}

/*
 * The hard-link map: (st_dev, st_ino) to the inode made for it, open
 * addressing in a power-of-two table, an empty slot's inode 0.
 */
static size_t link_slot(const struct pop_link *t, size_t cap, dev_t dev,
			ino_t sino)
{
	uint64_t h = ((uint64_t)sino ^ (uint64_t)dev * 0x9e3779b97f4a7c15ULL) *
		     0xff51afd7ed558ccdULL;
	size_t i = (size_t)(h >> 32) & (cap - 1);

	while (t[i].ino && (t[i].dev != dev || t[i].sino != sino))
		i = (i + 1) & (cap - 1);
	return i;
}

static int link_find(const struct pop *p, const struct stat *st,
		     uint64_t *ino)
{
	size_t i;

	if (!p->caplinks)
		return 0;
	i = link_slot(p->links, p->caplinks, st->st_dev, st->st_ino);
	*ino = p->links[i].ino;
	return *ino != 0;
}

static int link_add(struct pop *p, const struct stat *st, uint64_t ino)
{
	if (2 * (p->nlinks + 1) > p->caplinks) {
		size_t cap = p->caplinks ? 2 * p->caplinks : 64;
		struct pop_link *t = calloc(cap, sizeof(*t));

		if (!t)
			return -XFSJ_E_NOMEM;
		for (size_t i = 0; i < p->caplinks; i++)
			if (p->links[i].ino)
				t[link_slot(t, cap, p->links[i].dev,
					    p->links[i].sino)] = p->links[i];
		free(p->links);
		p->links = t;
		p->caplinks = cap;
	}
	p->links[link_slot(p->links, p->caplinks, st->st_dev, st->st_ino)] =
		(struct pop_link){ st->st_dev, st->st_ino, ino };
	p->nlinks++;
	return 0;
}

/* The parent pointer of entry @name in @parent, on inode @ino. */
static int add_pptr(struct pop *p, uint64_t ino, const char *name,
		    uint64_t parent)
{
	uint8_t val[XFSJ_ATTR_PPTR_VALUE_LEN];
	struct xfsj_iref ip;
	int err;

	if (!(p->sb->features_incompat & XFSJ_INCOMPAT_PARENT))
		return 0;
	xfsj_put_be64(val, parent);
	xfsj_put_be32(val + 8, p->gen);
	err = xfsj_iget(p->fs, ino, true, &ip, p->f);
	if (!err)
		err = xfsj_attr_set(p->fs, &ip, &(struct xfsj_attr_arg){
			.ns = XFSJ_ATTR_NS_PARENT,
			.name = (const uint8_t *)name,
			.namelen = (uint32_t)strlen(name), .value = val,
			.valuelen = sizeof(val) }, XFSJ_ATTR_CREATE, p->f);
	if (!err) {
		xfsj_iput(p->fs, &ip, true);
		err = xfsj_defer_finish(p->fs, p->f);
	}
	return err;
}

/*
 * A new inode for @st, entry @name of @parent: the core and an empty data
 * fork first (directories an empty short form), then the parent pointer
 * and the extended attributes, then the data, so that the data fork is
 * laid out for the attribute fork it shares the inode with (as the
 * kernel, which makes room for attributes before the data).
 */
static int make_inode(struct pop *p, const struct pop_ent *ent,
		      uint64_t parent, const char *name, uint64_t *ino)
{
	const struct stat *st = &ent->st;
	struct xfsj_iref ip;
	uint32_t forksize;
	uint8_t *fork;
	int err;

	err = xfsj_pop_ialloc(p, parent, S_ISDIR(st->st_mode), ino, p->f);
	if (!err)
		err = xfsj_iget(p->fs, *ino, true, &ip, p->f);
	if (err)
		return err;
	set_core(p, &ip, st);
	ip.di.nlink = 1;
	ip.di.aformat = XFSJ_DINODE_FMT_EXTENTS;
	ip.di.next_unlinked = XFSJ_NULLAGINO;
	ip.di.format = XFSJ_DINODE_FMT_EXTENTS;
	fork = xfsj_ifork(p->fs, &ip, XFSJ_DATA_FORK, &forksize);
	memset(fork, 0, forksize);
	switch (st->st_mode & S_IFMT) {
	case S_IFREG:
	case S_IFLNK:
		break;
	case S_IFDIR: {
		int n = xfsj_dir_sf_encode(parent, NULL, 0,
					   (p->sb->features_incompat &
					    XFSJ_INCOMPAT_FTYPE) != 0,
					   fork, forksize);

		if (n < 0)
			return n;
		ip.di.format = XFSJ_DINODE_FMT_LOCAL;
		ip.di.nlink = 2;
		ip.di.size = (uint64_t)n;
		break;
	}
	case S_IFCHR:
	case S_IFBLK:
		if (major(st->st_rdev) >= (1U << 14) ||
		    minor(st->st_rdev) >= (1U << 18))
			return xfsj_pop_fail(p, "device number", ERANGE,
					     -XFSJ_E_RANGE);
		xfsj_put_be32(fork, major(st->st_rdev) << 18 |
				    minor(st->st_rdev));
		/* fall through */
	case S_IFIFO:
	case S_IFSOCK:
		ip.di.format = XFSJ_DINODE_FMT_DEV;
		break;
	default:
		return xfsj_pop_fail(p, "file type", EINVAL, -XFSJ_E_UNSUPP);
	}
	xfsj_iput(p->fs, &ip, true);
	err = add_pptr(p, *ino, name, parent);
	if (err)
		return xfsj_pop_fail(p, "parent pointer", 0, err);
	err = ent->xattrs ? xfsj_pop_xattrs(p, *ino) : 0;
	if (err || (!S_ISREG(st->st_mode) && !S_ISLNK(st->st_mode)))
		return err;
	err = xfsj_iget(p->fs, *ino, true, &ip, p->f);
	if (err)
		return err;
	if (S_ISREG(st->st_mode)) {
		ip.di.size = (uint64_t)st->st_size;
		err = xfsj_pop_file(p, &ip, st);
	} else {
		err = xfsj_pop_symlink(p, &ip, ent->target);
	}
	if (err)
		return err;
	xfsj_iput(p->fs, &ip, true);
	return xfsj_defer_finish(p->fs, p->f);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in directory p->path, sorted; *n gets how many. */
static int read_names(struct pop *p, char ***out, size_t *n)
{
	DIR *d = opendir(p->path);
	struct dirent *de;
	char **v = NULL;
	size_t cap = 0;
	int err = 0;

	*n = 0;
	if (!d)
		return xfsj_pop_fail(p, "opendir", errno, -XFSJ_E_IO);
	errno = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		err = xfsj_grow(&v, &cap, *n, 1, sizeof(*v), 32);
		if (err)
			break;
		if (!(v[*n] = strdup(de->d_name))) {
			err = -XFSJ_E_NOMEM;
			break;
		}
		(*n)++;
		errno = 0;
	}
	if (!err && errno)
		err = xfsj_pop_fail(p, "readdir", errno, -XFSJ_E_IO);
	closedir(d);
	if (v)
		qsort(v, *n, sizeof(*v), name_cmp);
	*out = v;
	return err;
}

static int write_page(void *arg, uint64_t off, const uint8_t *page)
{
	return xfsj_pwrite(arg, page, XFSJ_OVL_PAGE, off);
}

/*
 * Write out the metadata made so far (through the blank device, which
 * then reads it back from the device), let the cache drop its buffers,
 * write the file data queued; the
 * needs-repair flag is on the device all the while.  The walk's path is
 * kept (the copy names its files there), unless a copy fails.
 */
static int pop_drain(struct pop *p)
{
	char *keep = strdup(p->path);
	int err = keep ? xfsj_fs_flush(p->fs, p->f) : -XFSJ_E_NOMEM;

	/* Between two entries nothing holds a buffer: all may go. */
	if (!err)
		xfsj_fs_release_kept(p->fs);
	if (!err)
		err = xfsj_overlay_drain(p->ov, write_page, p->bio);
	/*
	 * The data through the blank device too: a later batch's page that
	 * shares a file's block (blocks below 4 KiB) reads it back.
	 */
	if (!err)
		err = xfsj_pop_copy_data(p, p->bio);
	if (!err) {
		for (size_t i = 0; i < p->nfiles; i++)
			free(p->files[i]);
		p->nfiles = p->ncopies = 0;
		snprintf(p->path, sizeof(p->path), "%s", keep);
	}
	free(keep);
	return err;
}

static bool held_too_much(const struct pop *p)
{
	struct xfsj_cache_stats cs;

	xfsj_fs_cache_stats(p->fs, &cs);
	return cs.bytes + xfsj_overlay_dirty_pages(p->ov) * XFSJ_OVL_PAGE >=
	       cs.bound + DRAIN_BYTES || p->ncopies >= DRAIN_COPIES;
}

int xfsj_pop_add(struct pop *p, uint64_t dino, const char *name,
		 const struct pop_ent *ent, struct xfsj_dirent *de)
{
	const struct stat *st = &ent->st;
	struct xfsj_iref ip;
	uint64_t ino;
	int err;

	if (!*name || strlen(name) > 255 || strchr(name, '/') ||
	    !strcmp(name, ".") || !strcmp(name, ".."))
		return xfsj_pop_fail(p, "name", ENAMETOOLONG, -XFSJ_E_RANGE);
	de->name = name;
	de->namelen = (uint8_t)strlen(name);
	de->ftype = xfsj_mode_ftype((uint16_t)st->st_mode);
	if (!S_ISDIR(st->st_mode) && st->st_nlink > 1 &&
	    link_find(p, st, &ino)) {
		err = xfsj_iget(p->fs, ino, true, &ip, p->f);
		if (err)
			return err;
		ip.di.nlink++;
		xfsj_iput(p->fs, &ip, true);
		err = add_pptr(p, ino, name, dino);
		if (err)
			return xfsj_pop_fail(p, "parent pointer", 0, err);
	} else {
		err = make_inode(p, ent, dino, name, &ino);
		if (!err && !S_ISDIR(st->st_mode) && st->st_nlink > 1)
			err = link_add(p, st, ino);
		if (err)
			return err;
	}
	de->ino = ino;
	if (++p->done % PROGRESS_EVERY == 0 && p->o->progress)
		p->o->progress(p->o->progress_arg, p->done,
			       p->total > p->done ? p->total : p->done);
	return held_too_much(p) ? pop_drain(p) : 0;
}

int xfsj_pop_dir_done(struct pop *p, uint64_t dino, uint64_t parent,
		      const struct xfsj_dirent *ents, size_t n, uint32_t nsub)
{
	struct xfsj_iref ip;
	int err = 0;

	if (!xfsj_dir_fits(p->sb, ents, n))
		err = xfsj_pop_fail(p, "directory size", EFBIG,
				    -XFSJ_E_NOSPC);
	if (!err)
		err = xfsj_dir_write(p->fs, dino, parent, ents, n, false, p->f);
	if (err)
		return xfsj_pop_fail(p, "directory", 0, err);
	err = xfsj_iget(p->fs, dino, true, &ip, p->f);
	if (err)
		return err;
	ip.di.nlink = 2 + nsub;
	xfsj_iput(p->fs, &ip, true);
	return 0;
}

static int add_dir(struct pop *p, uint64_t dino, uint64_t parent);

/* Entry @name of directory @dino (p->path is the entry's path). */
static int add_entry(struct pop *p, uint64_t dino, const char *name,
		     struct xfsj_dirent *de, uint32_t *nsub)
{
	struct pop_ent ent = { .xattrs = true };
	int err;

	if (lstat(p->path, &ent.st))
		return xfsj_pop_fail(p, "lstat", errno, -XFSJ_E_IO);
	err = xfsj_pop_add(p, dino, name, &ent, de);
	if (!err && S_ISDIR(ent.st.st_mode)) {
		(*nsub)++;
		err = add_dir(p, de->ino, dino);
	}
	return err;
}

/* Copy the directory at p->path into directory inode @dino. */
static int add_dir(struct pop *p, uint64_t dino, uint64_t parent)
{
	size_t plen = strlen(p->path), n = 0;
	struct xfsj_dirent *ents = NULL;
	uint32_t nsub = 0;
	char **names = NULL;
	int err;

	err = read_names(p, &names, &n);
	if (!err && n && !(ents = calloc(n, sizeof(*ents))))
		err = -XFSJ_E_NOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		if (plen + 1 + strlen(names[i]) >= sizeof(p->path)) {
			err = xfsj_pop_fail(p, "path length", ENAMETOOLONG,
					    -XFSJ_E_RANGE);
			break;
		}
		snprintf(p->path + plen, sizeof(p->path) - plen, "/%s",
			 names[i]);
		err = add_entry(p, dino, names[i], &ents[i], &nsub);
		if (!err)
			p->path[plen] = 0;
	}
	if (!err)
		err = xfsj_pop_dir_done(p, dino, parent, ents, n, nsub);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(ents);
	return err;
}

int xfsj_pop_root(struct pop *p, const struct pop_ent *ent)
{
	struct xfsj_iref ip;
	int err;

	err = xfsj_iget(p->fs, p->sb->rootino, true, &ip, p->f);
	if (err)
		return err;
	p->gen = ip.di.gen;
	set_core(p, &ip, &ent->st);
	xfsj_iput(p->fs, &ip, true);
	return ent->xattrs ? xfsj_pop_xattrs(p, p->sb->rootino) : 0;
}

/*
 * The entries under the directory at p->path, for the progress (names
 * only: the file type from readdir, lstat where it does not say).  An
 * error leaves the count short: the walk itself reports it.
 */
static uint64_t count_tree(struct pop *p)
{
	size_t plen = strlen(p->path);
	DIR *d = opendir(p->path);
	struct dirent *de;
	uint64_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct stat st;
		bool dir = de->d_type == DT_DIR;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		if (de->d_type != DT_UNKNOWN && !dir)
			continue;
		if (plen + 1 + strlen(de->d_name) >= sizeof(p->path))
			continue;
		snprintf(p->path + plen, sizeof(p->path) - plen, "/%s",
			 de->d_name);
		if (dir || (!lstat(p->path, &st) && S_ISDIR(st.st_mode)))
			n += count_tree(p);
		p->path[plen] = 0;
	}
	closedir(d);
	return n;
}

/* A source directory: the root takes its owner, mode, times, xattrs. */
static int do_tree(struct pop *p)
{
	struct pop_ent ent = { .xattrs = true };
	int err;

	if (lstat(p->path, &ent.st))
		return xfsj_pop_fail(p, "lstat", errno, -XFSJ_E_IO);
	if (!S_ISDIR(ent.st.st_mode))
		return xfsj_pop_proto(p);
	if (p->o->progress) {
		p->total = count_tree(p);
		p->o->progress(p->o->progress_arg, 0, p->total);
	}
	err = xfsj_pop_root(p, &ent);
	if (!err)
		err = add_dir(p, p->sb->rootino, p->sb->rootino);
	return err;
}

/* Sums over the AGs: free blocks as the superblock counts them, inodes. */
static int sums(struct pop *p, int64_t *blocks, int64_t *icount,
		int64_t *ifree)
{
	*blocks = *icount = *ifree = 0;
	for (uint32_t a = 0; a < p->sb->agcount; a++) {
		struct xfsj_buf *agf, *agi;
		int err = xfsj_agf_read(p->fs, a, &agf, p->f);

		if (!err)
			err = xfsj_agi_read(p->fs, a, &agi, p->f);
		if (err)
			return err;
		*blocks += xfsj_get_be32(agf->data + XFSJ_AGF_OFF(freeblks)) +
			   xfsj_get_be32(agf->data + XFSJ_AGF_OFF(flcount)) +
			   xfsj_get_be32(agf->data + XFSJ_AGF_OFF(btreeblks));
		*icount += xfsj_get_be32(agi->data + XFSJ_AGI_OFF(count));
		*ifree += xfsj_get_be32(agi->data + XFSJ_AGI_OFF(freecount));
	}
	return 0;
}

static void sb_add(uint8_t *b, size_t off, int64_t delta)
{
	xfsj_put_be64(b + off, (uint64_t)((int64_t)xfsj_get_be64(b + off) +
					  delta));
}

static int fill(struct pop *p)
{
	int64_t b0, i0, f0, b1, i1, f1;
	struct xfsj_buf *bp;
	int err;

	p->chunk_near = calloc(p->sb->agcount, sizeof(*p->chunk_near));
	p->free_from = calloc(p->sb->agcount, sizeof(*p->free_from));
	if (!p->chunk_near || !p->free_from)
		return -XFSJ_E_NOMEM;
	err = sums(p, &b0, &i0, &f0);
	if (!err) {
		snprintf(p->path, sizeof(p->path), "%s", p->o->source);
		err = do_tree(p);
	}
	if (!err && p->o->progress)
		p->o->progress(p->o->progress_arg, p->done, p->done);
	if (!err)
		err = xfsj_defer_finish(p->fs, p->f);
	p->path[0] = 0;
	if (!err)
		err = sums(p, &b1, &i1, &f1);
	if (!err)
		err = xfsj_buf_read(p->fs, 0, p->sb->sectsize, &bp);
	if (err)
		return err;
	sb_add(bp->data, XFSJ_SB_OFF(icount), i1 - i0);
	sb_add(bp->data, XFSJ_SB_OFF(ifree), f1 - f0);
	sb_add(bp->data, XFSJ_SB_OFF(fdblocks), b1 - b0);
	xfsj_buf_dirty(bp);
	return xfsj_fs_flush(p->fs, p->f);
}

/*
 * Set or clear the needs-repair flag in the primary superblock and write
 * that sector to the device at once (the flush stamps its CRC).  The
 * in-progress byte goes with it, as mkfs.xfs uses it while formatting:
 * a flag with sb_inprogress set says an unfinished mkfs -p left it (the
 * repair names it so, and preen leaves it to a person).
 */
static int needsrepair(struct pop *p, struct xfsj_io *io, bool on)
{
	struct xfsj_buf *bp;
	uint32_t v;
	int err = xfsj_buf_read(p->fs, 0, p->sb->sectsize, &bp);

	if (err)
		return xfsj_fault_set(p->f, err, "superblock", "read", 0, 0);
	v = xfsj_get_be32(bp->data + XFSJ_SB_OFF(features_incompat));
	v = on ? v | XFSJ_INCOMPAT_NEEDSREPAIR : v & ~XFSJ_INCOMPAT_NEEDSREPAIR;
	xfsj_put_be32(bp->data + XFSJ_SB_OFF(features_incompat), v);
	bp->data[XFSJ_SB_OFF(inprogress)] = on ? 1 : 0;
	xfsj_buf_dirty(bp);
	err = xfsj_fs_flush(p->fs, p->f);
	if (!err)
		err = xfsj_pwrite(io, bp->data, bp->len, 0);
	if (!err)
		err = xfsj_io_sync(io);
	return err;
}

static void pop_free(struct pop *p)
{
	for (size_t i = 0; i < p->nfiles; i++)
		free(p->files[i]);
	free(p->files);
	free(p->copies);
	free(p->links);
	free(p->chunk_near);
	free(p->free_from);
}

int xfsj_populate(struct xfsj_io *io, const struct xfsj_populate_opts *o,
		  struct xfsj_populate_err *e, struct xfsj_fault *f)
{
	struct xfsj_overlay *ov = NULL;
	struct xfsj_io *bio = NULL;
	struct pop p = { .o = o, .e = e, .f = f };
	struct xfsj_sb sb;
	uint8_t sect[512];
	int err;

	memset(e, 0, sizeof(*e));
	err = xfsj_pread(io, sect, sizeof(sect), 0);
	if (err)
		return xfsj_fault_set(f, err, "superblock", "read", 0, 0);
	xfsj_sb_decode(sect, &sb);
	err = xfsj_pop_blank_open(io, &bio);
	if (err)
		return err;
	err = xfsj_overlay_create(bio, &ov);
	if (err) {
		xfsj_io_close(bio);
		return err;
	}
	/* Cycle 1, block 0: no later than any LSN of the new log. */
	err = xfsj_fs_open(ov, &sb, 1ULL << 32, &p.fs);
	if (err) {
		xfsj_overlay_free(ov);
		xfsj_io_close(bio);
		return err;
	}
	p.sb = xfsj_fs_sb(p.fs);
	p.ov = ov;
	p.bio = bio;
	err = xfsj_pop_blank_learn(&p, bio);
	if (!err)
		err = needsrepair(&p, io, true);
	if (!err)
		err = fill(&p);
	if (!err)
		err = pop_drain(&p);
	if (!err)
		err = xfsj_io_sync(io);
	if (!err)
		err = needsrepair(&p, io, false);
	xfsj_fs_close(p.fs);
	xfsj_overlay_free(ov);
	xfsj_io_close(bio);
	pop_free(&p);
	return err;
}
