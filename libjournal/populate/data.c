/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * File contents: the blocks of a regular file's data runs (holes found
 * with SEEK_DATA / SEEK_HOLE stay holes), each run allocated in as few
 * extents as the free space allows, right after the file's previous
 * extent; the bytes themselves are copied after the metadata is written.
 * Symlink targets: in the inode when they fit, else in remote blocks
 * with their own header.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/grow.h"
#include "fs/bmap.h"
#include "fs/bmbt.h"
#include "ondisk/meta.h"
#include "populate/pop_priv.h"

#define COPY_CHUNK	(1U << 20)

/* Map file blocks [first, end) of @ip, queueing their copies. */
static int map_run(struct pop *p, struct xfsj_iref *ip, uint32_t file,
		   uint64_t first, uint64_t end)
{
	const struct xfsj_sb *sb = p->sb;
	uint64_t want = XFSJ_BMBT_MAX_EXTLEN;
	int err;

	if (want > sb->agblocks / 2)
		want = sb->agblocks / 2 ? sb->agblocks / 2 : 1;
	while (first < end) {
		uint64_t len = end - first < want ? end - first : want;
		struct xfsj_fault f = { 0 };
		uint64_t fsb;

		err = xfsj_bmap_alloc(p->fs, ip, XFSJ_DATA_FORK, first,
				      (uint32_t)len, &fsb, &f);
		if (err == -XFSJ_E_NOSPC && len > 1) {
			want = len / 2;
			continue;
		}
		if (err) {
			*p->f = f;
			return err;
		}
		err = xfsj_grow(&p->copies, &p->capcopies, p->ncopies, 1,
				sizeof(*p->copies), 64);
		if (err)
			return err;
		p->copies[p->ncopies++] = (struct pop_copy){
			.file = file, .src = first << sb->blocklog,
			.dst = xfsj_fsb_daddr(sb, fsb) << 9,
			.len = len << sb->blocklog };
		first += len;
	}
	return 0;
}

int xfsj_pop_file(struct pop *p, struct xfsj_iref *ip, const struct stat *st)
{
	uint64_t bs = p->sb->blocksize, size = (uint64_t)st->st_size;
	uint64_t nblocks = (size + bs - 1) / bs;
	off_t off = 0;
	uint32_t file;
	int fd, err;

	if (!size)
		return 0;
	fd = open(p->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return xfsj_pop_fail(p, "open", errno, -XFSJ_E_IO);
	err = xfsj_grow(&p->files, &p->capfiles, p->nfiles, 1,
			sizeof(*p->files), 64);
	if (!err && !(p->files[p->nfiles] = strdup(p->path)))
		err = -XFSJ_E_NOMEM;
	if (err) {
		close(fd);
		return err;
	}
	file = (uint32_t)p->nfiles++;
	while ((uint64_t)off < size) {
		off_t d = lseek(fd, off, SEEK_DATA), h;

		if (d < 0 && errno == ENXIO)
			break;
		if (d < 0) {
			/* No hole support: all of it is data. */
			d = off;
			h = (off_t)size;
		} else {
			h = lseek(fd, d, SEEK_HOLE);
			if (h < 0 || (uint64_t)h > size)
				h = (off_t)size;
		}
		if ((uint64_t)d >= size)
			break;
		err = map_run(p, ip, file, (uint64_t)d / bs,
			      ((uint64_t)h + bs - 1) / bs < nblocks ?
			      ((uint64_t)h + bs - 1) / bs : nblocks);
		if (err)
			break;
		/* The next run starts past the last block mapped. */
		off = (off_t)((((uint64_t)h + bs - 1) / bs) * bs);
	}
	close(fd);
	return err;
}

int xfsj_pop_symlink(struct pop *p, struct xfsj_iref *ip,
		     const char *given)
{
	const struct xfsj_sb *sb = p->sb;
	char target[XFSJ_SYMLINK_MAXLEN + 1];
	uint32_t forksize, per = sb->blocksize - XFSJ_RMT_HDR_SIZE;
	uint8_t *fork;
	ssize_t n;
	int err;

	if (given) {
		n = (ssize_t)strnlen(given, sizeof(target));
		memcpy(target, given, (size_t)n);
	} else {
		n = readlink(p->path, target, sizeof(target));
	}
	if (n < 0)
		return xfsj_pop_fail(p, "readlink", errno, -XFSJ_E_IO);
	if (n == 0 || n > XFSJ_SYMLINK_MAXLEN)
		return xfsj_pop_fail(p, "symlink target length", ENAMETOOLONG,
				     -XFSJ_E_RANGE);
	ip->di.size = (uint64_t)n;
	fork = xfsj_ifork(p->fs, ip, XFSJ_DATA_FORK, &forksize);
	if ((uint32_t)n <= forksize) {
		ip->di.format = XFSJ_DINODE_FMT_LOCAL;
		memcpy(fork, target, (size_t)n);
		return 0;
	}
	ip->di.format = XFSJ_DINODE_FMT_EXTENTS;
	for (uint32_t off = 0, b = 0; off < (uint32_t)n; off += per, b++) {
		uint32_t len = (uint32_t)n - off < per ? (uint32_t)n - off : per;
		struct xfsj_rmt_hdr h = { .magic = XFSJ_SYMLINK_MAGIC };
		struct xfsj_buf *bp;
		uint64_t fsb;

		err = xfsj_bmap_alloc(p->fs, ip, XFSJ_DATA_FORK, b, 1, &fsb,
				      p->f);
		if (err)
			return err;
		err = xfsj_buf_get_zero(p->fs, xfsj_fsb_daddr(sb, fsb),
					sb->blocksize, &bp);
		if (err)
			return err;
		memset(bp->data, 0, sb->blocksize);
		h.offset = off;
		h.bytes = len;
		memcpy(h.uuid, xfsj_meta_fs_uuid(sb), 16);
		h.owner = ip->ino;
		h.blkno = xfsj_fsb_daddr(sb, fsb);
		xfsj_rmt_hdr_encode(&h, bp->data);
		memcpy(bp->data + XFSJ_RMT_HDR_SIZE, target + off, len);
		xfsj_buf_dirty(bp);
	}
	return 0;
}

/* One queued copy: whole blocks, zeroes past the source's end. */
static int copy_one(struct pop *p, struct xfsj_io *io, int fd,
		    const struct pop_copy *c, uint8_t *buf)
{
	for (uint64_t done = 0; done < c->len;) {
		size_t len = c->len - done < COPY_CHUNK ?
			     (size_t)(c->len - done) : COPY_CHUNK;
		size_t got = 0;
		int err;

		while (got < len) {
			ssize_t r = pread(fd, buf + got, len - got,
					  (off_t)(c->src + done + got));

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				return xfsj_pop_fail(p, "read", errno,
						     -XFSJ_E_IO);
			if (r == 0)
				break;
			got += (size_t)r;
		}
		memset(buf + got, 0, len - got);
		err = xfsj_pwrite(io, buf, len, c->dst + done);
		if (err)
			return xfsj_fault_set(p->f, err, "file data", "write",
					      c->dst + done, len);
		done += len;
	}
	return 0;
}

int xfsj_pop_copy_data(struct pop *p, struct xfsj_io *io)
{
	uint8_t *buf = malloc(COPY_CHUNK);
	uint32_t open_file = UINT32_MAX;
	int fd = -1, err = 0;

	if (!buf)
		return -XFSJ_E_NOMEM;
	for (size_t i = 0; i < p->ncopies && !err; i++) {
		const struct pop_copy *c = &p->copies[i];

		if (c->file != open_file) {
			if (fd >= 0)
				close(fd);
			open_file = c->file;
			snprintf(p->path, sizeof(p->path), "%s",
				 p->files[c->file]);
			fd = open(p->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				err = xfsj_pop_fail(p, "open", errno,
						    -XFSJ_E_IO);
				break;
			}
		}
		err = copy_one(p, io, fd, c, buf);
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return err;
}
