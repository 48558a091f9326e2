// SPDX-License-Identifier: GPL-2.0
/*
 * wstate: crash states from a write log of wrec.c.
 *
 * State K is the base image plus every write before mark K.  A torn
 * state K/S is state K plus a subset, chosen by the seed S, of the
 * writes between mark K and mark K+1 (what a crash in that interval may
 * have left: the device wrote some, in any order, and lost the others).
 *
 *   wstate list LOG
 *       every record: "write AT OFF LEN", "mark AT", "note AT TEXT" (AT:
 *       its offset in the log); with a STRING after LOG, only the writes
 *       whose data holds it
 *   wstate live LOG
 *       the distinct states (marks with writes since the one before) of
 *       a log still being written: a record cut short at its end is not
 *       counted
 *   wstate index LOG
 *       one line per mark: "mark K OFF N" (OFF: the log offset where the
 *       writes after mark K-1 end, N: how many there are), one per note:
 *       "note K TEXT" (K: the marks before it), then "end WRITES MARKS"
 *   wstate apply LOG IMG FROM TO
 *       writes the log's writes whose records lie in [FROM, TO) to IMG
 *   wstate torn LOG IMG FROM TO SEED UNDO
 *       a seeded subset of the writes in [FROM, TO) (at least one, never
 *       all when there are two or more) to IMG, their old contents saved
 *       in UNDO first; prints "torn CHOSEN of N"
 *   wstate undo UNDO IMG
 *       puts back what `torn` saved, last write first
 *   wstate build LOG IMG K [SEED]
 *       IMG, a copy of the base image, made state K (or K/SEED)
 *
 * The log is hostile input: a record that runs past its end, or a bad
 * header, stops the reader with an error naming its offset.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wlog.h"

struct wlog {
	const uint8_t *p;
	size_t size;
};

static int wlog_open(const char *path, struct wlog *l)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		perror(path);
		return -1;
	}
	l->size = (size_t)st.st_size;
	l->p = NULL;
	if (l->size) {
		l->p = mmap(NULL, l->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (l->p == MAP_FAILED) {
			perror(path);
			close(fd);
			return -1;
		}
	}
	close(fd);
	return 0;
}

/*
 * The record at *pos: its header in R, its payload in *data; *pos moves
 * past it.  1 at the end of the log, 0 for a record, -1 for damage.
 */
static int wlog_next(const struct wlog *l, size_t *pos, struct wlog_rec *r,
		     const uint8_t **data)
{
	if (*pos == l->size)
		return 1;
	if (l->size - *pos < WLOG_HDR || wlog_decode(l->p + *pos, r) ||
	    l->size - *pos - WLOG_HDR < r->len) {
		fprintf(stderr, "wstate: damaged record at log offset %zu\n", *pos);
		return -1;
	}
	*data = l->p + *pos + WLOG_HDR;
	*pos += WLOG_HDR + r->len;
	return 0;
}

static int put(int fd, const void *b, size_t len, uint64_t off)
{
	const uint8_t *p = b;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n <= 0) {
			perror("wstate: write");
			return -1;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static void put_text(const uint8_t *d, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		putchar(d[i] < ' ' || d[i] > '~' ? ' ' : d[i]);
	putchar('\n');
}

/*
 * FN on every record from the start of the log, with its log offset:
 * 0 at the end, -1 at damage (with LIVE, a record cut short at the end
 * of a log still being written is the end), else what FN returned when
 * it was not 0.
 */
typedef int (*wlog_fn)(void *ctx, size_t at, const struct wlog_rec *r,
		       const uint8_t *d);

static int wlog_walk(const struct wlog *l, bool live, wlog_fn fn, void *ctx)
{
	size_t pos = 0, at;
	struct wlog_rec r;
	const uint8_t *d;
	int ret;

	for (;;) {
		at = pos;
		if (live && (l->size - pos < WLOG_HDR || wlog_decode(l->p + pos, &r) ||
			     l->size - pos - WLOG_HDR < r.len))
			return 0;
		ret = wlog_next(l, &pos, &r, &d);
		if (ret)
			return ret > 0 ? 0 : -1;
		ret = fn(ctx, at, &r, d);
		if (ret)
			return ret;
	}
}

struct list_ctx {
	const char *str;
	size_t len;
};

static int list_one(void *ctx, size_t at, const struct wlog_rec *r,
		    const uint8_t *d)
{
	const struct list_ctx *c = ctx;

	if (c->str && (r->type != WLOG_WRITE || !c->len ||
		       !memmem(d, r->len, c->str, c->len)))
		return 0;
	if (r->type == WLOG_WRITE) {
		printf("write %zu %llu %u\n", at, (unsigned long long)r->off, r->len);
	} else if (r->type == WLOG_MARK) {
		printf("mark %zu\n", at);
	} else {
		printf("note %zu ", at);
		put_text(d, r->len);
	}
	return 0;
}

static int cmd_list(const struct wlog *l, const char *str)
{
	struct list_ctx c = { .str = str, .len = str ? strlen(str) : 0 };

	return wlog_walk(l, false, list_one, &c) ? 1 : 0;
}

/* What index and live count; K: stop at mark K (find_mark) */
struct count_ctx {
	uint64_t marks, writes, since, states, k;
	size_t start, end;
	bool print;
};

static int count_one(void *ctx, size_t at, const struct wlog_rec *r,
		     const uint8_t *d)
{
	struct count_ctx *c = ctx;

	if (r->type == WLOG_WRITE) {
		c->writes++;
		c->since++;
		return 0;
	}
	if (r->type == WLOG_NOTE) {
		if (c->print) {
			printf("note %llu ", (unsigned long long)c->marks);
			put_text(d, r->len);
		}
		return 0;
	}
	c->marks++;
	c->states += c->since > 0;
	if (c->print)
		printf("mark %llu %zu %llu\n", (unsigned long long)c->marks, at,
		       (unsigned long long)c->since);
	c->since = 0;
	if (c->marks == c->k) {
		c->end = at;
		return 1;
	}
	c->start = at + WLOG_HDR;
	return 0;
}

static int cmd_index(const struct wlog *l)
{
	struct count_ctx c = { .print = true };

	if (wlog_walk(l, false, count_one, &c))
		return 1;
	printf("end %llu %llu\n", (unsigned long long)c.writes,
	       (unsigned long long)c.marks);
	return 0;
}

static int cmd_live(const struct wlog *l)
{
	struct count_ctx c = { 0 };

	wlog_walk(l, true, count_one, &c);
	printf("%llu\n", (unsigned long long)c.states);
	return 0;
}

/* Writes in [from, to) to fd; with PICK, only those it picks. */
struct picker {
	uint64_t state;
	uint64_t n, chosen, total;	/* total: writes in the range */
	int undo;			/* -1: none */
};

static uint64_t next_rand(uint64_t *s)
{
	/* xorshift64*, enough for a seeded choice */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static bool pick(struct picker *p)
{
	bool take;

	if (p->total < 2)
		take = true;
	else if (p->n == p->total - 1 && p->chosen == 0)
		take = true;		/* at least one */
	else if (p->n == p->total - 1 && p->chosen == p->total - 1)
		take = false;		/* never all */
	else
		take = next_rand(&p->state) >> 63;
	p->n++;
	p->chosen += take;
	return take;
}

static int save_old(int img, int undo, uint64_t off, uint32_t len)
{
	uint8_t h[WLOG_HDR];
	struct wlog_rec r = { .type = WLOG_WRITE, .len = len, .off = off };
	uint8_t *old = calloc(1, len ? len : 1);
	ssize_t n;
	int ret = -1;

	if (!old)
		return -1;
	n = pread(img, old, len, (off_t)off);
	if (n < 0)
		goto out;
	/* past the end of a sparse file: zeroes, as calloc left them */
	wlog_encode(h, &r);
	if (write(undo, h, sizeof(h)) == (ssize_t)sizeof(h) &&
	    write(undo, old, len) == (ssize_t)len)
		ret = 0;
out:
	free(old);
	return ret;
}

static int apply_range(const struct wlog *l, int img, size_t from, size_t to,
		       struct picker *pk)
{
	size_t pos = from;
	struct wlog_rec r;
	const uint8_t *d;
	int ret;

	if (from > l->size || to > l->size || from > to) {
		fprintf(stderr, "wstate: range %zu-%zu outside the log (%zu bytes)\n",
			from, to, l->size);
		return -1;
	}
	if (pk) {
		/* count the writes first: the choice knows how many there are */
		while (pos < to && !(ret = wlog_next(l, &pos, &r, &d)))
			pk->total += r.type == WLOG_WRITE;
		if (pos < to)
			return -1;
		pos = from;
	}
	while (pos < to) {
		ret = wlog_next(l, &pos, &r, &d);
		if (ret)
			return -1;
		if (r.type != WLOG_WRITE)
			continue;
		if (pk && !pick(pk))
			continue;
		if (pk && pk->undo >= 0 && save_old(img, pk->undo, r.off, r.len))
			return -1;
		if (put(img, d, r.len, r.off))
			return -1;
	}
	return 0;
}

static int cmd_undo(const char *undo_path, int img)
{
	struct wlog l;
	size_t pos = 0, n = 0, cap = 0;
	size_t *at = NULL;
	struct wlog_rec r;
	const uint8_t *d;
	int ret;

	if (wlog_open(undo_path, &l))
		return 1;
	while (!(ret = wlog_next(&l, &pos, &r, &d))) {
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			at = realloc(at, cap * sizeof(*at));
			if (!at)
				return 1;
		}
		at[n++] = pos - WLOG_HDR - r.len;
	}
	if (ret < 0)
		return 1;
	while (n--) {
		pos = at[n];
		if (wlog_next(&l, &pos, &r, &d) || put(img, d, r.len, r.off))
			return 1;
	}
	free(at);
	return 0;
}

/* The log offsets of mark K-1's end and mark K's record: state K's range. */
static int find_mark(const struct wlog *l, uint64_t k, size_t *start, size_t *end)
{
	struct count_ctx c = { .k = k };

	if (k == 0 || wlog_walk(l, false, count_one, &c) != 1) {
		fprintf(stderr, "wstate: the log has no mark %llu\n", (unsigned long long)k);
		return -1;
	}
	*start = c.start;
	*end = c.end;
	return 0;
}

static int cmd_build(const struct wlog *l, int img, uint64_t k, const char *seed)
{
	size_t s, e, ns, ne;
	struct picker pk = { .undo = -1 };

	if (find_mark(l, k, &s, &e) || apply_range(l, img, 0, e, NULL))
		return 1;
	if (!seed)
		return 0;
	/* torn: part of what came between mark K and mark K+1 */
	if (find_mark(l, k + 1, &ns, &ne))
		return 1;
	pk.state = strtoull(seed, NULL, 0) * 2 + 1;
	if (apply_range(l, img, ns, ne, &pk))
		return 1;
	printf("torn %llu of %llu\n", (unsigned long long)pk.chosen,
	       (unsigned long long)pk.total);
	return 0;
}

static int usage(void)
{
	fputs("usage: wstate list LOG [STRING] | live LOG | index LOG | apply LOG IMG FROM TO |\n"
	      "       torn LOG IMG FROM TO SEED UNDO | undo UNDO IMG |\n"
	      "       build LOG IMG K [SEED]\n", stderr);
	return 2;
}

static int open_img(const char *path)
{
	int fd = open(path, O_RDWR);

	if (fd < 0)
		perror(path);
	return fd;
}

int main(int argc, char **argv)
{
	struct wlog l;
	int img, ret = 1;

	if (argc < 3)
		return usage();
	if (!strcmp(argv[1], "undo")) {
		if (argc != 4 || (img = open_img(argv[3])) < 0)
			return usage();
		ret = cmd_undo(argv[2], img);
		return close(img) ? 1 : ret;
	}
	if (wlog_open(argv[2], &l))
		return 1;
	if (!strcmp(argv[1], "index") && argc == 3)
		return cmd_index(&l);
	if (!strcmp(argv[1], "live") && argc == 3)
		return cmd_live(&l);
	if (!strcmp(argv[1], "list") && (argc == 3 || argc == 4))
		return cmd_list(&l, argc == 4 ? argv[3] : NULL);
	if (argc < 4 || (img = open_img(argv[3])) < 0)
		return usage();
	if (!strcmp(argv[1], "apply") && argc == 6) {
		ret = apply_range(&l, img, strtoull(argv[4], NULL, 0),
				  strtoull(argv[5], NULL, 0), NULL) ? 1 : 0;
	} else if (!strcmp(argv[1], "torn") && argc == 8) {
		struct picker pk = { .state = strtoull(argv[6], NULL, 0) * 2 + 1 };

		pk.undo = open(argv[7], O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (pk.undo < 0) {
			perror(argv[7]);
			return 1;
		}
		ret = apply_range(&l, img, strtoull(argv[4], NULL, 0),
				  strtoull(argv[5], NULL, 0), &pk) ? 1 : 0;
		if (close(pk.undo))
			ret = 1;
		if (!ret)
			printf("torn %llu of %llu\n", (unsigned long long)pk.chosen,
			       (unsigned long long)pk.total);
	} else if (!strcmp(argv[1], "build") && (argc == 5 || argc == 6)) {
		ret = cmd_build(&l, img, strtoull(argv[4], NULL, 0),
				argc == 6 ? argv[5] : NULL);
	} else {
		return usage();
	}
	return close(img) ? 1 : ret;
}
