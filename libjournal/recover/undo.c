/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Undo files (xfsj/undo.h): the old contents of every page the commits of
 * a run write, saved before the first of them touches the device, and
 * written back on demand.
 *
 * Layout (little-endian):
 *
 *   header, 64 bytes:
 *      0  magic "XFSJUNDO"
 *      8  u32 version (1)
 *     12  u32 header size (64)
 *     16  u64 pages
 *     24  u64 device size in bytes
 *     32  uuid[16] of the filesystem
 *     48  u32 commits of the run (1 to UNDO_MAX_COMMITS)
 *     52  u32 page size (4096)
 *     56  u32 states (pages an earlier commit of the run leaves otherwise
 *         than the last one that writes them)
 *     60  u32 CRC32c of bytes 0..59
 *   per page, in ascending device offset, 16 + 4096 bytes:
 *      0  u64 device offset (a multiple of 4096, below the device size)
 *      8  u32 CRC32c of the old contents (what follows)
 *     12  u32 CRC32c of the contents the run leaves
 *     16  old contents (past the end of the device: zeroes)
 *   per commit, in order: u32 the tag of its redo file (recover/redo_file.h)
 *   per state, in ascending offset, 16 bytes: u64 device offset, u32
 *      CRC32c of the page as that earlier commit leaves it, u32 zero
 *   complete mark, 16 bytes, written and synced after everything else is:
 *      0  magic "XFSJUCMP"
 *      8  u32 CRC32c over every page's first 16 bytes, the tags and the
 *         states, then the header's CRC (so a mark left over from another
 *         undo file does not fit)
 *     12  u32 zero
 *
 * Page CRCs cover a whole page, the part past the end of the device taken
 * as zeroes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/crc32c.h"
#include "core/layout.h"
#include "core/overlay.h"
#include "ondisk/format.h"
#include "recover/redo_file.h"
#include "xfsj/undo.h"

#define UNDO_MAGIC	"XFSJUNDO"
#define UNDO_MARK	"XFSJUCMP"
#define UNDO_VERSION	1
#define UNDO_HDR	64
#define UNDO_ENT	16
#define UNDO_REC	(UNDO_ENT + XFSJ_OVL_PAGE)
#define UNDO_STATE	16
#define UNDO_TAIL	16

#define PG		XFSJ_OVL_PAGE

/* What an undo file says besides its pages. */
struct undo_meta {
	uint64_t pages;
	uint64_t devsize;
	uint8_t uuid[16];
	uint32_t ncommit, nstate;
	uint32_t crc;			/* the header's */
	uint32_t tags[XFSJ_UNDO_MAX_COMMITS];
	uint8_t *raw;			/* the tags and states as stored */
	size_t rawlen;
};

static uint64_t rec_off(uint64_t i)
{
	return UNDO_HDR + i * UNDO_REC;
}

/* Bytes of the page at @off that lie on a device of @size bytes. */
static size_t page_len(uint64_t size, uint64_t off)
{
	return size - off < PG ? (size_t)(size - off) : PG;
}

/* CRC32c of @len bytes of @page followed by zeroes up to a page. */
static uint32_t padded_crc(uint8_t *scratch, const uint8_t *page, size_t len)
{
	if (len == PG)
		return xfsj_crc32c(page, PG);
	memcpy(scratch, page, len);
	memset(scratch + len, 0, PG - len);
	return xfsj_crc32c(scratch, PG);
}

/* Read the page at @off of @io into @buf, zeroes past the device's end. */
static int read_dev_page(struct xfsj_io *io, uint64_t off, uint8_t *buf)
{
	size_t len = page_len(io->size, off);

	if (len < PG)
		memset(buf + len, 0, PG - len);
	return xfsj_pread(io, buf, len, off);
}

/* ---- the pages of a run ---- */

/* The dirty pages of one commit: offsets, CRCs of what it writes, tag. */
struct commit_pages {
	uint64_t *off;
	uint32_t *crc;
	uint64_t n, cap;
	uint32_t tag;
	uint64_t devsize;
	uint8_t *scratch;
};

static int collect(void *arg, uint64_t off, const uint8_t *page)
{
	struct commit_pages *c = arg;

	if (off >= c->devsize)
		return -XFSJ_E_RANGE;
	if (c->n == c->cap) {
		uint64_t cap = c->cap ? 2 * c->cap : 64;
		uint64_t *o = realloc(c->off, cap * sizeof(*o));
		uint32_t *k;

		if (!o)
			return -XFSJ_E_NOMEM;
		c->off = o;
		k = realloc(c->crc, cap * sizeof(*k));
		if (!k)
			return -XFSJ_E_NOMEM;
		c->crc = k;
		c->cap = cap;
	}
	c->off[c->n] = off;
	c->crc[c->n] = padded_crc(c->scratch, page, page_len(c->devsize, off));
	c->tag = xfsj_redo_tag_add(c->tag, off, xfsj_crc32c(page, PG));
	c->n++;
	return 0;
}

/*
 * The run's pages: the union of its commits' (ascending), the CRC of what
 * the last commit writing each leaves, and the states earlier ones leave.
 */
struct run_pages {
	struct commit_pages c[XFSJ_UNDO_MAX_COMMITS];
	unsigned int n;
	uint64_t *off;
	uint32_t *final;
	uint64_t npages;
	uint8_t *states;	/* as stored */
	uint32_t nstate;
};

static void run_free(struct run_pages *r)
{
	for (unsigned int i = 0; i < r->n; i++) {
		free(r->c[i].off);
		free(r->c[i].crc);
	}
	free(r->off);
	free(r->final);
	free(r->states);
}

static int run_merge(struct run_pages *r)
{
	uint64_t idx[XFSJ_UNDO_MAX_COMMITS] = { 0 }, total = 0;

	for (unsigned int i = 0; i < r->n; i++)
		total += r->c[i].n;
	r->off = malloc((total ? total : 1) * sizeof(*r->off));
	r->final = malloc((total ? total : 1) * sizeof(*r->final));
	r->states = malloc((total ? total : 1) * UNDO_STATE);
	if (!r->off || !r->final || !r->states)
		return -XFSJ_E_NOMEM;
	for (;;) {
		uint64_t p = UINT64_MAX;
		int last = -1;

		for (unsigned int i = 0; i < r->n; i++)
			if (idx[i] < r->c[i].n && r->c[i].off[idx[i]] < p)
				p = r->c[i].off[idx[i]];
		if (p == UINT64_MAX)
			return 0;
		for (unsigned int i = 0; i < r->n; i++) {
			if (idx[i] >= r->c[i].n || r->c[i].off[idx[i]] != p)
				continue;
			if (last >= 0) {
				uint8_t *st = r->states +
					      (size_t)r->nstate++ * UNDO_STATE;

				memset(st, 0, UNDO_STATE);
				xfsj_put_le64(st, p);
				xfsj_put_le32(st + 8, r->c[last].crc[idx[last] - 1]);
			}
			last = (int)i;
			idx[i]++;
		}
		r->off[r->npages] = p;
		r->final[r->npages++] = r->c[last].crc[idx[last] - 1];
	}
}

/* Gather the pages of the commits @ovs[0..@n), all over one device. */
static int run_pages(struct run_pages *r, struct xfsj_overlay *const *ovs,
		     unsigned int n)
{
	struct xfsj_io *dev = xfsj_overlay_device(ovs[0]);
	uint8_t *scratch = malloc(PG);
	int err = 0;

	memset(r, 0, sizeof(*r));
	if (!scratch)
		return -XFSJ_E_NOMEM;
	for (unsigned int i = 0; i < n && !err; i++) {
		struct commit_pages *c = &r->c[r->n++];

		c->tag = XFSJ_REDO_TAG_INIT;
		c->devsize = dev->size;
		c->scratch = scratch;
		if (xfsj_overlay_device(ovs[i]) != dev)
			err = -XFSJ_E_INVAL;
		else
			err = xfsj_overlay_each_dirty(ovs[i], collect, c);
	}
	free(scratch);
	return err ? err : run_merge(r);
}

/* ---- saving ---- */

static void encode_hdr(uint8_t *h, const struct undo_meta *u)
{
	memset(h, 0, UNDO_HDR);
	memcpy(h, UNDO_MAGIC, 8);
	xfsj_put_le32(h + 8, UNDO_VERSION);
	xfsj_put_le32(h + 12, UNDO_HDR);
	xfsj_put_le64(h + 16, u->pages);
	xfsj_put_le64(h + 24, u->devsize);
	memcpy(h + 32, u->uuid, 16);
	xfsj_put_le32(h + 48, u->ncommit);
	xfsj_put_le32(h + 52, PG);
	xfsj_put_le32(h + 56, u->nstate);
	xfsj_put_le32(h + 60, xfsj_crc32c(h, 60));
}

/* Write the undo file of the run @r into @uio and sync it. */
static int save_run(struct xfsj_io *uio, struct xfsj_io *dev,
		    const struct run_pages *r, const uint8_t uuid[16],
		    const struct xfsj_redo_cb *cb)
{
	struct undo_meta u = { .pages = r->npages, .devsize = dev->size,
			       .ncommit = r->n, .nstate = r->nstate };
	uint8_t hdr[UNDO_HDR], tail[UNDO_TAIL], tag[4];
	uint8_t *rec = malloc(UNDO_REC);
	uint32_t mark = XFSJ_REDO_TAG_INIT;
	uint64_t at = rec_off(r->npages);
	int err = rec ? 0 : -XFSJ_E_NOMEM;

	for (uint64_t i = 0; i < r->npages && !err; i++) {
		err = read_dev_page(dev, r->off[i], rec + UNDO_ENT);
		if (err)
			break;
		xfsj_put_le64(rec, r->off[i]);
		xfsj_put_le32(rec + 8, xfsj_crc32c(rec + UNDO_ENT, PG));
		xfsj_put_le32(rec + 12, r->final[i]);
		mark = xfsj_crc32c_update(mark, rec, UNDO_ENT);
		err = xfsj_pwrite(uio, rec, UNDO_REC, rec_off(i));
		if (!err && cb && cb->page)
			cb->page(cb->arg, i + 1, r->npages);
	}
	free(rec);
	for (unsigned int i = 0; i < r->n && !err; i++, at += 4) {
		xfsj_put_le32(tag, r->c[i].tag);
		mark = xfsj_crc32c_update(mark, tag, 4);
		err = xfsj_pwrite(uio, tag, 4, at);
	}
	if (!err && r->nstate) {
		mark = xfsj_crc32c_update(mark, r->states,
					  (size_t)r->nstate * UNDO_STATE);
		err = xfsj_pwrite(uio, r->states,
				  (size_t)r->nstate * UNDO_STATE, at);
		at += (uint64_t)r->nstate * UNDO_STATE;
	}
	if (err)
		return err;
	/* The pages and the header, durable before the complete mark. */
	memcpy(u.uuid, uuid, 16);
	encode_hdr(hdr, &u);
	err = xfsj_pwrite(uio, hdr, sizeof(hdr), 0);
	if (!err)
		err = xfsj_io_sync(uio);
	if (err)
		return err;
	memset(tail, 0, sizeof(tail));
	memcpy(tail, UNDO_MARK, 8);
	xfsj_put_le32(tail + 8, xfsj_crc32c_update(mark, hdr + 60, 4));
	err = xfsj_pwrite(uio, tail, sizeof(tail), at);
	return err ? err : xfsj_io_sync(uio);
}

/* ---- reading and checking ---- */

static const int refusal_err[] = {
	[XFSJ_UNDO_OK] = 0,
	[XFSJ_UNDO_NOT_UNDO] = -XFSJ_E_BADMAGIC,
	[XFSJ_UNDO_VERSION] = -XFSJ_E_UNSUPP,
	[XFSJ_UNDO_INCOMPLETE] = -XFSJ_E_CORRUPT,
	[XFSJ_UNDO_TORN] = -XFSJ_E_BADCRC,
	[XFSJ_UNDO_OTHER_FS] = -XFSJ_E_CONFLICT,
	[XFSJ_UNDO_OTHER_SIZE] = -XFSJ_E_CONFLICT,
	[XFSJ_UNDO_CHANGED] = -XFSJ_E_CONFLICT,
};

static int refuse(struct xfsj_undo_result *res, enum xfsj_undo_refusal why,
		  uint64_t off)
{
	res->refused = why;
	res->offset = off;
	return refusal_err[why];
}

/* The header, tags and states of @uio, checked, with room for its pages. */
static int read_meta(struct xfsj_io *uio, struct undo_meta *u,
		     struct xfsj_undo_result *res)
{
	uint8_t h[UNDO_HDR];
	uint64_t room;
	int err;

	memset(u, 0, sizeof(*u));
	if (uio->size < 8)
		return refuse(res, uio->size ? XFSJ_UNDO_NOT_UNDO :
			      XFSJ_UNDO_INCOMPLETE, 0);
	err = xfsj_pread(uio, h, uio->size < UNDO_HDR ? 8 : UNDO_HDR, 0);
	if (err)
		return err;
	if (memcmp(h, UNDO_MAGIC, 8))
		return refuse(res, XFSJ_UNDO_NOT_UNDO, 0);
	if (uio->size < UNDO_HDR)
		return refuse(res, XFSJ_UNDO_INCOMPLETE, 0);
	if (xfsj_get_le32(h + 8) != UNDO_VERSION ||
	    xfsj_get_le32(h + 12) != UNDO_HDR || xfsj_get_le32(h + 52) != PG)
		return refuse(res, XFSJ_UNDO_VERSION, 0);
	if (xfsj_get_le32(h + 60) != xfsj_crc32c(h, 60))
		return refuse(res, XFSJ_UNDO_TORN, 0);
	u->pages = xfsj_get_le64(h + 16);
	u->devsize = xfsj_get_le64(h + 24);
	memcpy(u->uuid, h + 32, 16);
	u->ncommit = xfsj_get_le32(h + 48);
	u->nstate = xfsj_get_le32(h + 56);
	u->crc = xfsj_get_le32(h + 60);
	memcpy(res->uuid, u->uuid, 16);
	res->devsize = u->devsize;
	if (!u->ncommit || u->ncommit > XFSJ_UNDO_MAX_COMMITS)
		return refuse(res, XFSJ_UNDO_TORN, 0);
	/* The pages, tags, states and mark must fit in the file. */
	room = uio->size - UNDO_HDR;
	if (room < UNDO_TAIL + 4ULL * u->ncommit)
		return refuse(res, XFSJ_UNDO_INCOMPLETE, 0);
	room -= UNDO_TAIL + 4ULL * u->ncommit;
	if (u->pages > room / UNDO_REC ||
	    u->nstate > (room - u->pages * UNDO_REC) / UNDO_STATE)
		return refuse(res, XFSJ_UNDO_INCOMPLETE, 0);
	u->rawlen = 4 * (size_t)u->ncommit + (size_t)u->nstate * UNDO_STATE;
	u->raw = malloc(u->rawlen);
	if (!u->raw)
		return -XFSJ_E_NOMEM;
	err = xfsj_pread(uio, u->raw, u->rawlen, rec_off(u->pages));
	if (err)
		return err;
	for (uint32_t i = 0; i < u->ncommit; i++)
		u->tags[i] = xfsj_get_le32(u->raw + 4 * i);
	return 0;
}

/* Is @crc a state an earlier commit of the run leaves the page at @off in? */
static bool is_state(const struct undo_meta *u, uint64_t off, uint32_t crc)
{
	const uint8_t *st = u->raw + 4 * (size_t)u->ncommit;

	for (uint32_t i = 0; i < u->nstate; i++, st += UNDO_STATE)
		if (xfsj_get_le64(st) == off && xfsj_get_le32(st + 8) == crc)
			return true;
	return false;
}

/* Called for each page of a checked entry: its old contents and CRCs. */
typedef int (*undo_page_fn)(void *arg, uint64_t off, const uint8_t *old,
			    uint32_t old_crc, uint32_t final_crc);

/*
 * Check the complete mark, then every page (order, range, CRC), calling
 * @fn (may be NULL) for each as it goes, then the mark's CRC.
 */
static int walk(struct xfsj_io *uio, const struct undo_meta *u,
		struct xfsj_undo_result *res, undo_page_fn fn, void *arg)
{
	uint8_t tail[UNDO_TAIL];
	uint8_t *rec = malloc(UNDO_REC);
	uint8_t hcrc[4];
	uint32_t mark = XFSJ_REDO_TAG_INIT;
	uint64_t prev = 0;
	int err;

	if (!rec)
		return -XFSJ_E_NOMEM;
	err = xfsj_pread(uio, tail, sizeof(tail),
			 rec_off(u->pages) + u->rawlen);
	if (!err && memcmp(tail, UNDO_MARK, 8))
		err = refuse(res, XFSJ_UNDO_INCOMPLETE, 0);
	for (uint64_t i = 0; !err && i < u->pages; i++) {
		uint64_t off;

		err = xfsj_pread(uio, rec, UNDO_REC, rec_off(i));
		if (err)
			break;
		off = xfsj_get_le64(rec);
		if (off % PG || off >= u->devsize || (i && off <= prev) ||
		    xfsj_crc32c(rec + UNDO_ENT, PG) != xfsj_get_le32(rec + 8)) {
			err = refuse(res, XFSJ_UNDO_TORN, off);
			break;
		}
		prev = off;
		mark = xfsj_crc32c_update(mark, rec, UNDO_ENT);
		if (fn)
			err = fn(arg, off, rec + UNDO_ENT,
				 xfsj_get_le32(rec + 8),
				 xfsj_get_le32(rec + 12));
	}
	free(rec);
	if (err)
		return err;
	mark = xfsj_crc32c_update(mark, u->raw, u->rawlen);
	xfsj_put_le32(hcrc, u->crc);
	if (xfsj_get_le32(tail + 8) != xfsj_crc32c_update(mark, hcrc, 4))
		return refuse(res, XFSJ_UNDO_TORN, 0);
	return 0;
}

/* Read and check all of @uio but the device: 0, refused, or an error. */
static int read_all(struct xfsj_io *uio, struct undo_meta *u,
		    struct xfsj_undo_result *res)
{
	int err = read_meta(uio, u, res);

	return err ? err : walk(uio, u, res, NULL, NULL);
}

int xfsj_undo_matches_io(struct xfsj_io *uio, const uint8_t uuid[16],
			 uint64_t devsize, uint32_t tag, bool *match)
{
	struct xfsj_undo_result res = { 0 };
	struct undo_meta u;
	int err = read_all(uio, &u, &res);

	*match = false;
	if (!err) {
		for (uint32_t i = 0; i < u.ncommit; i++)
			*match |= u.tags[i] == tag;
		*match &= !memcmp(u.uuid, uuid, 16) && u.devsize == devsize;
	}
	free(u.raw);
	return res.refused ? 0 : err;
}

/* Open an existing undo file read-only; *@uio NULL when there is none. */
static int open_undo(const char *path, struct xfsj_io **uio)
{
	struct stat st;
	int err;

	*uio = NULL;
	if (stat(path, &st) < 0 && errno == ENOENT)
		return 0;
	err = xfsj_io_open(path, XFSJ_IO_RDONLY, uio);
	if (err)
		return err == -XFSJ_E_NOMEM ? err : -XFSJ_E_OPEN;
	return 0;
}

int xfsj_undo_matches(const char *path, const uint8_t uuid[16],
		      uint64_t devsize, uint32_t tag, bool *match)
{
	struct xfsj_io *uio;
	int err = open_undo(path, &uio);

	*match = false;
	if (err || !uio)
		return err;
	err = xfsj_undo_matches_io(uio, uuid, devsize, tag, match);
	xfsj_io_close(uio);
	return err;
}

/*
 * The redo file at @redo, or behind @rio: none waits, or the undo file at
 * @undo, or behind @uio, is that of the run whose commit waits?
 */
static int undo_check(const char *redo, struct xfsj_io *rio,
		      const char *undo, struct xfsj_io *uio,
		      struct xfsj_io *io, const uint8_t uuid[16], bool *ok)
{
	uint64_t pages;
	uint32_t tag;
	int ret = rio ? xfsj_redo_pending_io(rio, io, uuid, &pages, &tag) :
			xfsj_redo_pending(redo, io, uuid, &pages, &tag);

	*ok = ret == 0;
	if (ret <= 0)
		return ret;
	if (uio)
		return xfsj_undo_matches_io(uio, uuid, io->size, tag, ok);
	return xfsj_undo_matches(undo, uuid, io->size, tag, ok);
}

int xfsj_redo_undo_check_io(struct xfsj_io *rio, struct xfsj_io *uio,
			    struct xfsj_io *io, const uint8_t uuid[16],
			    bool *ok)
{
	return undo_check(NULL, rio, NULL, uio, io, uuid, ok);
}

int xfsj_redo_undo_check(const char *redo, const char *undo,
			 struct xfsj_io *io, const uint8_t uuid[16], bool *ok)
{
	return undo_check(redo, NULL, undo, NULL, io, uuid, ok);
}

/* ---- the device against an undo file ---- */

/* Where the device's pages stand against an undo file. */
struct dev_state {
	struct xfsj_io *io;
	const struct undo_meta *u;
	struct xfsj_undo_result *res;
	uint8_t *page;
	bool uuid_ok, first;
	uint64_t old, final, between, other;
	uint64_t *listed;	/* the pages listed (keep_earlier) */
};

static int classify(void *arg, uint64_t off, const uint8_t *old,
		    uint32_t old_crc, uint32_t final_crc)
{
	struct dev_state *d = arg;
	uint32_t crc;
	int err;

	(void)old;
	err = read_dev_page(d->io, off, d->page);
	if (err)
		return err;
	crc = xfsj_crc32c(d->page, PG);
	/*
	 * A superblock whose UUID the undo file puts back (it was
	 * damaged, and is again after an earlier apply) is still ours.
	 */
	if (!d->uuid_ok && !(d->first && off == 0 && crc == old_crc))
		return refuse(d->res, XFSJ_UNDO_OTHER_FS, 0);
	d->uuid_ok = true;
	if (d->listed)
		d->listed[d->old + d->final + d->between + d->other] = off;
	d->first = false;
	if (crc == old_crc)
		d->old++;
	else if (crc == final_crc)
		d->final++;
	else if (is_state(d->u, off, crc))
		d->between++;
	else if (d->listed)
		d->other++;
	else
		return refuse(d->res, XFSJ_UNDO_CHANGED, off);
	return 0;
}

/*
 * Before writing the undo file of the run @r over an existing complete
 * one @uio of this filesystem: was the run of @uio cut between two of its
 * commits (its pages on the device old, final or between, and not all
 * old, not all final)?  Then it must stay (1), if it covers this run: its
 * pages and its tags; else -XFSJ_E_CONFLICT.  0: write a new one.
 */
static int keep_earlier(struct xfsj_io *uio, struct xfsj_io *dev,
			const struct run_pages *r, const uint8_t uuid[16])
{
	struct xfsj_undo_result res = { 0 };
	struct dev_state d = { .io = dev, .res = &res, .uuid_ok = true };
	struct undo_meta u;
	int err = read_all(uio, &u, &res);
	uint64_t j = 0;

	d.u = &u;
	if (err || memcmp(u.uuid, uuid, 16) || u.devsize != dev->size) {
		free(u.raw);
		return res.refused ? 0 : err;
	}
	d.page = malloc(PG);
	d.listed = malloc((u.pages ? u.pages : 1) * sizeof(*d.listed));
	err = d.page && d.listed ? walk(uio, &u, &res, classify, &d) :
				   -XFSJ_E_NOMEM;
	if (!err && (d.other || (!d.between && (!d.old || !d.final))))
		err = 1;	/* not cut between commits: replace it */
	for (uint64_t i = 0; !err && i < r->npages; i++) {
		while (j < u.pages && d.listed[j] < r->off[i])
			j++;
		if (j == u.pages || d.listed[j] != r->off[i])
			err = -XFSJ_E_CONFLICT;
	}
	for (unsigned int i = 0; !err && i < r->n; i++) {
		bool found = false;

		for (uint32_t k = 0; k < u.ncommit; k++)
			found |= u.tags[k] == r->c[i].tag;
		if (!found)
			err = -XFSJ_E_CONFLICT;
	}
	free(d.page);
	free(d.listed);
	free(u.raw);
	if (res.refused)
		return 0;
	return err == 1 ? 0 : err ? err : 1;
}

/* ---- saving a run ---- */

int xfsj_undo_save_io(struct xfsj_io *uio, struct xfsj_overlay *const *ovs,
		      unsigned int n, const uint8_t uuid[16],
		      const struct xfsj_redo_cb *cb)
{
	struct run_pages r;
	int err;

	if (!n || n > XFSJ_UNDO_MAX_COMMITS)
		return -XFSJ_E_INVAL;
	err = run_pages(&r, ovs, n);
	if (!err)
		err = keep_earlier(uio, xfsj_overlay_device(ovs[0]), &r, uuid);
	if (!err)
		err = save_run(uio, xfsj_overlay_device(ovs[0]), &r, uuid, cb);
	run_free(&r);
	return err < 0 ? err : 0;
}

int xfsj_undo_save(const char *path, struct xfsj_overlay *const *ovs,
		   unsigned int n, const uint8_t uuid[16],
		   const struct xfsj_redo_cb *cb)
{
	struct run_pages r;
	struct xfsj_io *uio;
	int err;

	if (!n || n > XFSJ_UNDO_MAX_COMMITS)
		return -XFSJ_E_INVAL;
	err = run_pages(&r, ovs, n);
	if (!err)
		err = open_undo(path, &uio);
	if (!err && uio) {
		err = keep_earlier(uio, xfsj_overlay_device(ovs[0]), &r, uuid);
		xfsj_io_close(uio);
	}
	if (err) {
		run_free(&r);
		return err < 0 ? err : 0;	/* kept */
	}
	err = xfsj_redo_file_create(path, &uio);
	if (!err) {
		err = save_run(uio, xfsj_overlay_device(ovs[0]), &r, uuid, cb);
		xfsj_io_close(uio);
		if (!err)
			err = xfsj_sync_dir_of(path);
		if (err)
			unlink(path);	/* the device was not touched */
	}
	run_free(&r);
	return err;
}

/* ---- applying ---- */

struct apply_ctx {
	struct xfsj_io *io;
	struct xfsj_undo_result *res;
	const struct xfsj_redo_cb *cb;
	uint64_t total;
};

static int write_page(void *arg, uint64_t off, const uint8_t *old,
		      uint32_t old_crc, uint32_t final_crc)
{
	struct apply_ctx *a = arg;
	size_t len = page_len(a->io->size, off);
	int err;

	(void)old_crc;
	(void)final_crc;
	err = xfsj_pwrite(a->io, old, len, off);
	if (err)
		return err;
	a->res->pages++;
	a->res->bytes += len;
	if (a->cb && a->cb->page)
		a->cb->page(a->cb->arg, a->res->pages, a->total);
	return 0;
}

int xfsj_undo_apply_io(struct xfsj_io *uio, struct xfsj_io *io,
		       struct xfsj_undo_result *res,
		       const struct xfsj_redo_cb *cb)
{
	struct apply_ctx a = { .io = io, .res = res, .cb = cb };
	struct dev_state d = { .io = io, .res = res, .first = true };
	uint8_t devuuid[16];
	struct undo_meta u;
	int err;

	memset(res, 0, sizeof(*res));
	memset(devuuid, 0, sizeof(devuuid));
	d.u = &u;
	/* The whole file first, then the device against it. */
	err = read_all(uio, &u, res);
	if (!err && io->size >= XFSJ_SB_OFF(uuid) + 16)
		err = xfsj_pread(io, devuuid, 16, XFSJ_SB_OFF(uuid));
	d.uuid_ok = !memcmp(devuuid, u.uuid, 16);
	if (!err && u.devsize != io->size)
		err = refuse(res, d.uuid_ok ? XFSJ_UNDO_OTHER_SIZE :
			     XFSJ_UNDO_OTHER_FS, 0);
	if (!err) {
		d.page = malloc(PG);
		err = d.page ? walk(uio, &u, res, classify, &d) :
			       -XFSJ_E_NOMEM;
		free(d.page);
	}
	if (!err && !d.uuid_ok)
		err = refuse(res, XFSJ_UNDO_OTHER_FS, 0);
	if (err) {
		free(u.raw);
		return err;
	}
	res->already = d.old;
	/* All checked: write the old pages back (checked again as read). */
	a.total = u.pages;
	err = walk(uio, &u, res, write_page, &a);
	if (!err)
		err = xfsj_io_sync(io);
	if (err && res->refused)
		err = -XFSJ_E_IO;	/* the undo file changed under us */
	free(u.raw);
	return err;
}

int xfsj_undo_apply(const char *path, struct xfsj_io *io,
		    struct xfsj_undo_result *res,
		    const struct xfsj_redo_cb *cb)
{
	struct xfsj_io *uio;
	int err = open_undo(path, &uio);

	memset(res, 0, sizeof(*res));
	if (!err && !uio)
		err = -XFSJ_E_OPEN;
	if (err)
		return err;
	err = xfsj_undo_apply_io(uio, io, res, cb);
	xfsj_io_close(uio);
	return err;
}
