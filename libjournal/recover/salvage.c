/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a transaction lost to a damaged log touched (xfsj/salvage.h): its
 * inodes, the disk ranges it logged and the extents of its intents, from
 * the items the salvage walk could still reassemble.
 */
#include <stdlib.h>
#include <string.h>

#include "xfsj/salvage.h"

struct gather {
	struct xfsj_salvage_trans *st;
	uint32_t cap_ino, cap_rng, cap_ext;
	int err;
};

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t n = *cap ? *cap * 2 : 16;
	void *np;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	np = realloc(*p, (size_t)n * elem);
	if (!np)
		return -XFSJ_E_NOMEM;
	*p = np;
	*cap = n;
	return 0;
}

static void add_ino(void *arg, uint64_t ino)
{
	struct gather *g = arg;
	struct xfsj_salvage_trans *st = g->st;

	if (!ino || g->err)
		return;
	g->err = grow((void **)&st->inos, &g->cap_ino, st->ninos + 1,
		      sizeof(*st->inos));
	if (!g->err)
		st->inos[st->ninos++] = ino;
}

static void add_range(void *arg, uint64_t daddr, uint32_t bbs)
{
	struct gather *g = arg;
	struct xfsj_salvage_trans *st = g->st;

	if (g->err)
		return;
	for (uint32_t i = 0; i < st->nranges; i++)
		if (st->ranges[i].daddr == daddr && st->ranges[i].bbs == bbs)
			return;
	g->err = grow((void **)&st->ranges, &g->cap_rng, st->nranges + 1,
		      sizeof(*st->ranges));
	if (!g->err) {
		st->ranges[st->nranges].daddr = daddr;
		st->ranges[st->nranges++].bbs = bbs;
	}
}

static void add_exts(struct gather *g, const struct xfsj_item_info *in)
{
	struct xfsj_salvage_trans *st = g->st;
	struct xfsj_item_ext e;

	if (!in->kind || !in->kind->ops->extent)
		return;
	for (uint32_t i = 0; i < in->u.ext.nextents && !g->err; i++) {
		if (xfsj_item_extent(in, i, &e))
			break;
		g->err = grow((void **)&st->exts, &g->cap_ext, st->nexts + 1,
			      sizeof(*st->exts));
		if (g->err)
			break;
		st->exts[st->nexts].type = in->type;
		st->exts[st->nexts].startblock = e.startblock;
		st->exts[st->nexts].owner = e.owner;
		st->exts[st->nexts++].len = e.len;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int xfsj_salvage_collect(const struct xfsj_log_trans *t,
			 struct xfsj_salvage_trans *out)
{
	struct gather g = { .st = out };

	memset(out, 0, sizeof(*out));
	out->tid = t->rt.tid;
	out->lsn = t->rt.lsn;
	out->commit_lsn = t->commit_lsn;
	out->start_blk = t->start_blk;
	for (uint32_t i = 0; i < t->rt.nitems && !g.err; i++) {
		struct xfsj_item_info own;
		const struct xfsj_item_info *in = t->info ? &t->info[i] : &own;

		if (!t->info)
			xfsj_item_decode(&t->rt.items[i], &own);
		if (!in->kind || (in->err && !in->fmt_ok)) {
			out->nfailed++;
			continue;
		}
		out->nitems++;
		xfsj_item_each_ino(in, add_ino, &g);
		xfsj_item_each_daddr(in, add_range, &g);
		add_exts(&g, in);
	}
	if (g.err) {
		xfsj_salvage_trans_free(out);
		return g.err;
	}
	if (out->ninos) {
		uint32_t n = 1;

		qsort(out->inos, out->ninos, sizeof(*out->inos), cmp_u64);
		for (uint32_t i = 1; i < out->ninos; i++)
			if (out->inos[i] != out->inos[n - 1])
				out->inos[n++] = out->inos[i];
		out->ninos = n;
	}
	return 0;
}

void xfsj_salvage_trans_free(struct xfsj_salvage_trans *st)
{
	free(st->inos);
	free(st->ranges);
	free(st->exts);
	st->inos = NULL;
	st->ranges = NULL;
	st->exts = NULL;
	st->ninos = st->nranges = st->nexts = 0;
}
