/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a transaction lost to a damaged log touched (xfsj/salvage.h): its
 * inodes, the disk ranges it logged and the extents of its intents, from
 * the items the salvage walk could still reassemble.
 */
#include <stdlib.h>
#include <string.h>

#include "xfsj/salvage.h"

/*
 * Two passes over the items: the first counts (an upper bound of each
 * list), the second fills the arrays sized by it.
 */
struct gather {
	struct xfsj_salvage_trans *st;
	bool fill;
	uint32_t ninos, nranges, nexts;	/* counted by the first pass */
};

static void add_ino(void *arg, uint64_t ino)
{
	struct gather *g = arg;
	struct xfsj_salvage_trans *st = g->st;

	if (!ino)
		return;
	if (!g->fill)
		g->ninos++;
	else if (st->ninos < g->ninos)
		st->inos[st->ninos++] = ino;
}

static void add_range(void *arg, uint64_t daddr, uint32_t bbs)
{
	struct gather *g = arg;
	struct xfsj_salvage_trans *st = g->st;

	if (!g->fill) {
		g->nranges++;
		return;
	}
	for (uint32_t i = 0; i < st->nranges; i++)
		if (st->ranges[i].daddr == daddr && st->ranges[i].bbs == bbs)
			return;
	if (st->nranges < g->nranges) {
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
	for (uint32_t i = 0; i < in->u.ext.nextents; i++) {
		if (xfsj_item_extent(in, i, &e))
			break;
		if (!g->fill) {
			g->nexts++;
			continue;
		}
		if (st->nexts >= g->nexts)
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

/* One pass over the items of @t. */
static void gather_items(const struct xfsj_log_trans *t, struct gather *g)
{
	struct xfsj_salvage_trans *st = g->st;

	for (uint32_t i = 0; i < t->rt.nitems; i++) {
		struct xfsj_item_info own;
		const struct xfsj_item_info *in = t->info ? &t->info[i] : &own;

		if (!t->info)
			xfsj_item_decode(&t->rt.items[i], &own);
		if (!in->kind || (in->err && !in->fmt_ok)) {
			st->nfailed += g->fill;
			continue;
		}
		st->nitems += g->fill;
		xfsj_item_each_ino(in, add_ino, g);
		xfsj_item_each_daddr(in, add_range, g);
		add_exts(g, in);
	}
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
	gather_items(t, &g);
	out->inos = calloc(g.ninos + 1, sizeof(*out->inos));
	out->ranges = calloc(g.nranges + 1, sizeof(*out->ranges));
	out->exts = calloc(g.nexts + 1, sizeof(*out->exts));
	if (!out->inos || !out->ranges || !out->exts) {
		xfsj_salvage_trans_free(out);
		return -XFSJ_E_NOMEM;
	}
	g.fill = true;
	gather_items(t, &g);
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
