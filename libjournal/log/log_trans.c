/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Walking records, parsing their ops and reassembling transactions
 * (shared/reference/xfs-log.md §6).
 *
 * The walk is streaming: one record at a time sits in the log's record
 * buffer, and each open transaction keeps a copy of the payload it has
 * received so far in its own arena (regions are offsets into it, turned
 * into pointers only when the transaction commits, so the arena may grow).
 * A committed transaction's memory goes back to a free list and is reused,
 * so after warm-up a walk does no per-op allocation and its footprint is
 * that of the largest transaction open at one time.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/grow.h"
#include "log/logread_priv.h"

#define TBUCKETS	256

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p)	__builtin_prefetch(p)
#else
#define PREFETCH(p)	((void)(p))
#endif

struct treg {
	uint32_t off, len;
	uint32_t piece0;	/* its first piece */
};

/*
 * Where a region's bytes came from: one piece per op that carried some of
 * them (one, unless the region was split across records).  Kept so that a
 * problem found by a decoder can be named by its device byte offset.
 */
struct tpiece {
	uint32_t roff;		/* its first byte within the region */
	uint32_t blk;		/* header block of its record */
	uint32_t hblks;		/* that record's header sectors */
	uint32_t doff;		/* where it starts in the record's data */
};

struct titem {
	uint32_t reg0, nreg, total;
};

struct topen {
	struct topen *next;
	uint32_t tid;
	uint64_t lsn, last_lsn;
	uint32_t start_blk;
	uint8_t th[XFSJ_LOG_TRANS_HDR_SIZE];
	uint32_t th_len;
	bool have_th;
	uint8_t *data;
	size_t dlen, dcap;
	struct treg *regs;
	uint32_t nregs, capregs;
	struct tpiece *pieces;
	uint32_t npieces, cappieces;
	struct titem *items;
	uint32_t nitems, capitems;
	uint64_t bytes;
	uint32_t nops, nrecords;
	/*
	 * Salvage: it lost ops to a damaged record (partial); what comes
	 * next is skipped until a region that starts an item (gap); its
	 * last region goes on in the next op (in_cont).
	 */
	bool partial, gap, in_cont;
};

struct walk {
	struct xfsj_log *l;
	const struct xfsj_log_visitor *v;
	struct xfsj_log_walk_stats st;
	struct topen *hash[TBUCKETS];
	struct topen *freel;
	uint64_t nopen;
	uint64_t open_bytes, max_txn;
	bool drop;		/* the op being fed broke its transaction */
	/*
	 * The record at hand still carries its cycle stamps (only when no
	 * callback sees records or ops): payload bytes go through
	 * xlog_copy_data(), which undoes them while copying.
	 */
	bool stamped;
	struct xfsj_region *cregs;
	size_t ccap_regs;
	struct xfsj_ritem *citems;
	struct xfsj_item_info *cinfo;
	size_t ccap_items;
	/* Salvage: a damage was met; LSN of the last good record. */
	bool damaged;
	uint64_t last_lsn;
	/* Feeding a partial transaction: its problems are not reported. */
	bool quiet;
	/*
	 * Salvage: the ops of a record whose CRC failed are being read (for
	 * the report only): every transaction they touch is partial.
	 */
	bool tainted;
};

/* ---- memory ---- */

/*
 * A checkpoint's arena is tens of MiB, filled once and reused: ask for huge
 * pages where the system gives them on request, which turns some ten
 * thousand page faults per arena into a few dozen.  Only a hint.
 */
static void *big_realloc(void *p, size_t n)
{
	void *np = realloc(p, n);

#ifdef MADV_HUGEPAGE
	if (np && n >= (4U << 20)) {
		const uintptr_t hp = 2U << 20;
		uintptr_t a = ((uintptr_t)np + hp - 1) & ~(hp - 1);
		uintptr_t e = ((uintptr_t)np + n) & ~(hp - 1);

		if (e > a)
			(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
	}
#endif
	return np;
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t n = *cap ? *cap : 16;
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

static int arena_add(struct walk *w, struct topen *t,
		     const struct xfsj_log_rec *r, uint32_t off, uint32_t len)
{
	if (t->dlen + len > t->dcap) {
		size_t n = t->dcap ? t->dcap : 4096;
		uint8_t *np;

		if (t->dlen + len > w->max_txn)
			return -XFSJ_E_RANGE;
		while (n < t->dlen + len)
			n *= 2;
		np = big_realloc(t->data, n);
		if (!np)
			return -XFSJ_E_NOMEM;
		t->data = np;
		t->dcap = n;
	}
	xlog_copy_data(t->data + t->dlen, r, w->stamped, off, len);
	t->dlen += len;
	w->open_bytes += len;
	if (w->open_bytes > w->st.max_open_bytes)
		w->st.max_open_bytes = w->open_bytes;
	return 0;
}

static struct topen *t_find(struct walk *w, uint32_t tid)
{
	for (struct topen *t = w->hash[tid % TBUCKETS]; t; t = t->next)
		if (t->tid == tid)
			return t;
	return NULL;
}

static struct topen *t_new(struct walk *w, uint32_t tid)
{
	struct topen *t = w->freel;

	if (t) {
		w->freel = t->next;
	} else {
		t = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
	}
	t->tid = tid;
	t->th_len = 0;
	t->have_th = false;
	t->dlen = 0;
	t->nregs = t->nitems = t->npieces = 0;
	t->bytes = 0;
	t->nops = t->nrecords = 0;
	t->partial = t->gap = t->in_cont = false;
	t->next = w->hash[tid % TBUCKETS];
	w->hash[tid % TBUCKETS] = t;
	w->nopen++;
	return t;
}

static void t_free(struct walk *w, struct topen *t)
{
	struct topen **pp = &w->hash[t->tid % TBUCKETS];

	while (*pp && *pp != t)
		pp = &(*pp)->next;
	if (*pp)
		*pp = t->next;
	w->nopen--;
	w->open_bytes -= t->dlen;
	/* Keep the arrays for the next transaction, but not a huge arena. */
	if (t->dcap > (64U << 20)) {
		free(t->data);
		t->data = NULL;
		t->dcap = 0;
	}
	t->next = w->freel;
	w->freel = t;
}

static void t_destroy(struct topen *t)
{
	free(t->data);
	free(t->regs);
	free(t->pieces);
	free(t->items);
	free(t);
}

/*
 * Salvage: the transaction lost ops (to a damaged record, or as it was
 * being fed).  Its last item, if it may be incomplete, is cut short
 * where it stops (a partial transaction is never replayed: what its
 * first regions say, its inode or its buffer, still goes to the loss
 * report), or goes when it has no region or no count; what comes next
 * is skipped until a region that starts an item.
 */
static void t_trim(struct topen *t)
{
	if (t->nitems) {
		struct titem *it = &t->items[t->nitems - 1];
		bool whole = it->reg0 + it->nreg <= t->nregs;

		if (it->total && it->nreg && whole &&
		    (t->in_cont || it->nreg < it->total))
			it->total = it->nreg;
		else if (t->in_cont || !it->total || it->nreg < it->total ||
			 !whole) {
			if (it->reg0 < t->nregs)
				t->npieces = t->regs[it->reg0].piece0;
			if (it->reg0 <= t->nregs)
				t->nregs = it->reg0;
			t->nitems--;
		}
	}
	t->partial = t->gap = true;
	t->in_cont = false;
}

/* ---- faults ---- */

static int report(struct walk *w, struct xfsj_fault *lf, uint32_t blk,
		  struct xfsj_fault *f)
{
	int r;

	w->st.faults++;
	if (f)
		*f = *lf;
	if (!w->v->fault)
		return lf->err ? -lf->err : -XFSJ_E_CORRUPT;
	r = w->v->fault(w->v->arg, lf, blk);
	return r;
}

static int op_fault(struct walk *w, const struct xfsj_log_rec *r,
		    const char *structure, const char *field, uint32_t off,
		    uint64_t val, struct xfsj_fault *f)
{
	struct xfsj_fault lf;

	xfsj_fault_set(&lf, XFSJ_E_CORRUPT, structure, field,
		       xfsj_log_data_offset(w->l, r, off), val);
	/* Whatever the caller decides, the transaction at hand is broken. */
	w->drop = true;
	if (w->quiet)
		return 0;
	return report(w, &lf, r->blk, f);
}

/* ---- reassembly ---- */

static int new_item(struct topen *t)
{
	int err = grow((void **)&t->items, &t->capitems, t->nitems + 1,
		       sizeof(*t->items));

	if (err)
		return err;
	t->items[t->nitems].reg0 = t->nregs;
	t->items[t->nitems].nreg = 0;
	t->items[t->nitems].total = 0;
	t->nitems++;
	return 0;
}

static int add_piece(struct topen *t, const struct xfsj_log_rec *r,
		     uint32_t roff, uint32_t doff)
{
	struct tpiece *p;
	int err = grow((void **)&t->pieces, &t->cappieces, t->npieces + 1,
		       sizeof(*t->pieces));

	if (err)
		return err;
	p = &t->pieces[t->npieces++];
	p->roff = roff;
	p->blk = r->blk;
	p->hblks = r->hblks;
	p->doff = doff;
	return 0;
}

/* A new region (op flags 0 or CONTINUE). */
static int add_region(struct walk *w, struct topen *t,
		      const struct xfsj_log_rec *r, const struct xfsj_log_op *op,
		      struct xfsj_fault *f)
{
	uint8_t dp[XFSJ_LOG_TRANS_HDR_SIZE];
	uint32_t len = op->len, off = op->off + XFSJ_LOG_OPHDR_SIZE;
	struct titem *it;
	int err;

	if (!len)
		return 0;
	/* The first bytes, for the checks below (stamps undone). */
	xlog_copy_data(dp, r, w->stamped, off, len < sizeof(dp) ? len :
		       (uint32_t)sizeof(dp));
	if (t->gap) {
		/* Salvage: picked up again at the next item's first region. */
		if (!xlog_item_head_plausible(dp, len))
			return 0;
		t->gap = false;
		if (!t->nitems && (err = new_item(t)))
			return err;
	}
	if (!t->nitems) {
		/* The transaction header, possibly the first piece of it. */
		if (len < 4 || xlog_le32(dp) != XFSJ_LOG_TRANS_MAGIC)
			return op_fault(w, r, "transaction header", "th_magic",
					off, len < 4 ? 0 : xlog_le32(dp), f);
		if (len > XFSJ_LOG_TRANS_HDR_SIZE)
			return op_fault(w, r, "transaction header", "oh_len",
					op->off + 4, len, f);
		memcpy(t->th, dp, len);
		t->th_len = len;
		if (len == XFSJ_LOG_TRANS_HDR_SIZE) {
			t->have_th = true;
			return new_item(t);
		}
		return 0;
	}
	it = &t->items[t->nitems - 1];
	if (it->total && it->total == it->nreg) {
		err = new_item(t);
		if (err)
			return err;
		it = &t->items[t->nitems - 1];
	}
	if (!it->total) {
		uint16_t n;

		if (len < 4)
			return op_fault(w, r, "log item", "size", off, len, f);
		n = xlog_le16(dp + 2);
		if (!n || n > XFSJ_LOG_MAX_REGIONS)
			return op_fault(w, r, "log item", "size", off + 2, n, f);
		it->total = n;
	}
	err = grow((void **)&t->regs, &t->capregs, t->nregs + 1,
		   sizeof(*t->regs));
	if (err)
		return err;
	t->regs[t->nregs].off = (uint32_t)t->dlen;
	t->regs[t->nregs].len = len;
	t->regs[t->nregs].piece0 = t->npieces;
	err = arena_add(w, t, r, off, len);
	if (err == -XFSJ_E_RANGE)
		return op_fault(w, r, "transaction", "size", off, t->dlen, f);
	if (!err)
		err = add_piece(t, r, 0, off);
	if (err)
		return err;
	t->nregs++;
	it->nreg++;
	return 0;
}

/* A continuation (WAS_CONT) of the last region of this transaction. */
static int add_cont(struct walk *w, struct topen *t,
		    const struct xfsj_log_rec *r, const struct xfsj_log_op *op,
		    struct xfsj_fault *f)
{
	uint32_t len = op->len, off = op->off + XFSJ_LOG_OPHDR_SIZE;
	struct titem *it;
	int err;

	if (t->gap)
		return 0;	/* the rest of a region lost to a damage */
	if (!t->nitems) {
		/* The rest of a split transaction header. */
		if (t->th_len + len != XFSJ_LOG_TRANS_HDR_SIZE)
			return op_fault(w, r, "transaction header", "oh_len",
					op->off + 4, len, f);
		xlog_copy_data(t->th + t->th_len, r, w->stamped, off, len);
		t->th_len += len;
		t->have_th = true;
		return new_item(t);
	}
	it = &t->items[t->nitems - 1];
	if (!it->nreg || !t->nregs)
		return op_fault(w, r, "op header", "oh_flags", op->off + 9,
				op->flags, f);
	err = arena_add(w, t, r, off, len);
	if (err == -XFSJ_E_RANGE)
		return op_fault(w, r, "transaction", "size", off, t->dlen, f);
	if (!err && len)
		err = add_piece(t, r, t->regs[t->nregs - 1].len, off);
	if (err)
		return err;
	t->regs[t->nregs - 1].len += len;
	/* A first region that arrived too short to hold its count. */
	return 0;
}

/* Device byte offset and record of the byte a decoder complained about. */
static void fault_where(const struct walk *w, const struct topen *t,
			const struct titem *ti, struct xfsj_item_info *in)
{
	const struct xfsj_log *l = w->l;
	uint32_t reg = ti->reg0 +
		       (in->fault_reg < ti->nreg ? in->fault_reg : 0);
	uint32_t p0 = t->regs[reg].piece0;
	uint32_t p1 = reg + 1 < t->nregs ? t->regs[reg + 1].piece0 : t->npieces;
	uint64_t o = in->fault.offset, d, b;
	const struct tpiece *pc;

	if (p0 >= p1 || p1 > t->npieces)
		return;
	/* Past the region (a count naming bytes not there): its last byte. */
	if (o >= t->regs[reg].len)
		o = t->regs[reg].len ? t->regs[reg].len - 1 : 0;
	while (p1 - 1 > p0 && t->pieces[p1 - 1].roff > o)
		p1--;
	pc = &t->pieces[p1 - 1];
	d = pc->doff + (o - pc->roff);
	b = ((uint64_t)pc->blk + pc->hblks + d / XFSJ_BBSIZE) % l->g.size_bb;
	in->fault_dev_off = l->g.dev_off + b * XFSJ_BBSIZE + d % XFSJ_BBSIZE;
	in->fault_blk = pc->blk;
}

static int commit(struct walk *w, struct topen *t, const struct xfsj_log_rec *r,
		  struct xfsj_fault *f)
{
	const struct xfsj_log_visitor *v = w->v;
	struct xfsj_log_trans tr;
	uint32_t n = 0;
	int ret = 0;

	if (xfsj_grow(&w->cregs, &w->ccap_regs, 0, t->nregs,
		      sizeof(*w->cregs), 64))
		return -XFSJ_E_NOMEM;
	if (t->nitems > w->ccap_items) {
		size_t c = w->ccap_items ? w->ccap_items : 64;
		void *a, *b;

		while (c < t->nitems)
			c *= 2;
		a = realloc(w->citems, c * sizeof(*w->citems));
		if (a)
			w->citems = a;
		b = big_realloc(w->cinfo, c * sizeof(*w->cinfo));
		if (b)
			w->cinfo = b;
		if (!a || !b)
			return -XFSJ_E_NOMEM;
		w->ccap_items = c;
	}
	for (uint32_t i = 0; i < t->nregs; i++) {
		w->cregs[i].p = t->data + t->regs[i].off;
		w->cregs[i].len = t->regs[i].len;
	}
	for (uint32_t i = 0; i < t->nitems; i++) {
		const struct titem *ti = &t->items[i];
		struct xfsj_ritem *ri = &w->citems[n];

		/*
		 * The arena is far larger than the caches: fetch the item
		 * headers a little ahead of their use here.
		 */
		if (i + 8 < t->nitems && t->items[i + 8].nreg) {
			const struct titem *pi = &t->items[i + 8];

			PREFETCH(t->data + t->regs[pi->reg0].off);
			if (pi->nreg > 1)
				PREFETCH(t->data + t->regs[pi->reg0 + 1].off);
		}
		/* The placeholder after the header never got a region. */
		if (!ti->nreg)
			continue;
		ri->reg = &w->cregs[ti->reg0];
		ri->nreg = (uint16_t)ti->nreg;
		ri->type = ri->reg[0].len >= 2 ? xlog_le16(ri->reg[0].p) : 0;
		/* A partial transaction keeps only its whole items. */
		if (t->partial && ti->nreg < ti->total)
			continue;
		if (ti->nreg < ti->total) {
			ret = op_fault(w, r, "log item", "regions",
				       0, ti->nreg, f);
			if (ret)
				return ret;
		}
		/* Decoded now, while its bytes are in the cache. */
		if ((v->flags & XFSJ_LOGW_DECODE) &&
		    xfsj_item_decode(ri, &w->cinfo[n]))
			fault_where(w, t, ti, &w->cinfo[n]);
		n++;
	}

	memset(&tr, 0, sizeof(tr));
	tr.rt.lsn = t->lsn;
	tr.rt.tid = t->tid;
	tr.rt.nitems = n;
	tr.rt.items = w->citems;
	tr.commit_lsn = r->lsn;
	tr.start_blk = t->start_blk;
	tr.commit_blk = r->blk;
	tr.have_th = t->have_th;
	if (t->th_len == XFSJ_LOG_TRANS_HDR_SIZE) {
		tr.th_type = xlog_le32(t->th + 4);
		tr.th_num_items = xlog_le32(t->th + 12);
	}
	tr.bytes = t->bytes;
	tr.nops = t->nops;
	tr.nrecords = t->nrecords;
	tr.partial = t->partial;
	if (v->flags & XFSJ_LOGW_DECODE)
		tr.info = w->cinfo;
	w->st.trans++;
	w->st.items += n;
	return v->trans(v->arg, &tr);
}

static int feed(struct walk *w, const struct xfsj_log_rec *r,
		const struct xfsj_log_op *op, struct xfsj_fault *f)
{
	struct topen *t = t_find(w, op->tid);
	uint8_t flags;
	int err;

	if (!t) {
		/*
		 * Only a START opens a transaction; anything else is slack,
		 * but for a salvage walk past a damage, where it is a
		 * transaction whose START was lost.
		 */
		bool lost = w->damaged && !(op->flags & (XFSJ_OP_START |
							  XFSJ_OP_UNMOUNT));

		if (!(op->flags & XFSJ_OP_START) && !lost)
			return 0;
		t = t_new(w, op->tid);
		if (!t)
			return -XFSJ_E_NOMEM;
		t->lsn = r->lsn;
		t->last_lsn = r->lsn;
		t->start_blk = r->blk;
		if (lost) {
			t->partial = t->gap = true;
			t->nrecords = 1;
			return feed(w, r, op, f);
		}
		t->nops = 1;
		t->nrecords = 1;
		t->bytes = XFSJ_LOG_OPHDR_SIZE + op->len;
		return 0;
	}
	if (w->tainted)
		t->partial = true;
	w->drop = false;
	t->nops++;
	t->bytes += XFSJ_LOG_OPHDR_SIZE + op->len;
	if (r->lsn != t->last_lsn) {
		t->nrecords++;
		t->last_lsn = r->lsn;
	}
	flags = op->flags & ~XFSJ_OP_END;
	if (flags & XFSJ_OP_WAS_CONT)
		flags &= ~XFSJ_OP_CONTINUE;
	w->quiet = t->partial;
	switch (flags) {
	case 0:
	case XFSJ_OP_CONTINUE:
		err = add_region(w, t, r, op, f);
		break;
	case XFSJ_OP_WAS_CONT:
		err = add_cont(w, t, r, op, f);
		break;
	case XFSJ_OP_COMMIT:
		err = commit(w, t, r, f);
		t_free(w, t);
		return err;
	case XFSJ_OP_UNMOUNT:
		t_free(w, t);
		return 0;
	default:
		err = op_fault(w, r, "op header", "oh_flags", op->off + 9,
			       op->flags, f);
		t_free(w, t);
		return err;
	}
	t->in_cont = (op->flags & XFSJ_OP_CONTINUE) != 0;
	if (!err && w->drop && t->partial) {
		/* What a partial transaction cannot take is skipped. */
		t_trim(t);
		w->drop = false;
		return 0;
	}
	/* A transaction that went wrong is dropped, as recovery would. */
	if (err || w->drop)
		t_free(w, t);
	return err;
}

static int parse_ops(struct walk *w, const struct xfsj_log_rec *r,
		     struct xfsj_fault *f)
{
	const struct xfsj_log_visitor *v = w->v;
	uint32_t p = 0, left = r->num_logops, idx = 0;
	int ret;

	while (p < r->len && left) {
		struct xfsj_log_op op;
		uint8_t hb[XFSJ_LOG_OPHDR_SIZE];
		const uint8_t *h = r->data + p;
		uint32_t in;

		if (r->len - p < XFSJ_LOG_OPHDR_SIZE)
			return op_fault(w, r, "op header", "h_num_logops", p,
					r->num_logops, f);
		in = p & (XFSJ_BBSIZE - 1);
		if (w->stamped &&
		    (in < 4 || in > XFSJ_BBSIZE - XFSJ_LOG_OPHDR_SIZE)) {
			/* It covers a stamped word. */
			xlog_copy_data(hb, r, true, p, XFSJ_LOG_OPHDR_SIZE);
			h = hb;
		}
		op.index = idx++;
		op.tid = xfsj_get_be32(h);
		op.len = xfsj_get_be32(h + 4);
		op.clientid = h[8];
		op.flags = h[9];
		op.off = p;
		op.dev_off = r->wraps ? xfsj_log_data_offset(w->l, r, p) :
			     r->dev_off + (uint64_t)r->hblks * XFSJ_BBSIZE + p;
		op.payload = r->data + p + XFSJ_LOG_OPHDR_SIZE;
		if (op.len > r->len - p - XFSJ_LOG_OPHDR_SIZE)
			return op_fault(w, r, "op header", "oh_len", p + 4,
					op.len, f);
		w->st.ops++;
		if (v->op) {
			ret = v->op(v->arg, r, &op);
			if (ret)
				return ret;
		}
		if (op.clientid != XFSJ_LOG_CLIENT_TRANS &&
		    op.clientid != XFSJ_LOG_CLIENT_LOG) {
			ret = op_fault(w, r, "op header", "oh_clientid", p + 8,
				       op.clientid, f);
			if (ret)
				return ret;
		} else if (v->trans) {
			ret = feed(w, r, &op, f);
			w->quiet = w->tainted;
			if (ret)
				return ret;
		}
		p += XFSJ_LOG_OPHDR_SIZE + op.len;
		left--;
	}
	return 0;
}

/*
 * Salvage: does block @pos hold an older cycle than the log after the last
 * good record would have there (a lost write, not a damaged one)?
 */
static bool stale_block(struct walk *w, uint32_t pos)
{
	uint32_t c;

	if (!w->last_lsn || xfsj_log_block_cycle(w->l, pos, &c, NULL))
		return false;
	return c < xfsj_lsn_cycle_at(w->last_lsn, pos);
}

/*
 * Salvage: the record at *@pos is damaged (@lf says how).  Report it,
 * mark every open transaction partial, and go on at the next record
 * that can be trusted (or at the end of the range).
 */
static int salvage_skip(struct walk *w, uint32_t *pos, uint32_t *left,
			const struct xfsj_log_rec *bad, struct xfsj_fault *lf,
			struct xfsj_fault *f)
{
	struct xfsj_log *l = w->l;
	struct xfsj_log_damage d = { 0 };
	uint32_t next = 0;
	uint64_t next_lsn = 0;
	int ret;

	ret = report(w, lf, *pos, f);
	if (ret)
		return ret;
	d.bad_blk = *pos;
	d.prev_lsn = w->last_lsn;
	d.stale = stale_block(w, *pos);
	if (bad) {
		d.bad_crc = true;
		d.bad_lsn = bad->lsn;
	}
	w->damaged = true;
	ret = *left > 1 ? xfsj_log_resync(l, (*pos + 1) % l->g.size_bb,
					  *left - 1, w->last_lsn, &next,
					  &next_lsn, f) : 1;
	if (ret < 0)
		return ret;
	/*
	 * A record whose ops were all read (its CRC failed), followed right
	 * away by the next good one: the op stream goes on unbroken, so a
	 * region split across the two is still whole (for the report).
	 */
	for (int b = 0; b < TBUCKETS; b++)
		for (struct topen *t = w->hash[b]; t; t = t->next) {
			if (bad && !ret && next == (uint32_t)(((uint64_t)*pos +
					bad->hblks + bad->data_bbs) % l->g.size_bb))
				t->partial = true;
			else
				t_trim(t);
			d.open_trans++;
		}
	if (ret == 0) {
		d.resumed = true;
		d.next_blk = next;
		d.next_lsn = next_lsn;
		d.skipped_bbs = xfsj_log_distance(l, *pos, next);
	} else {
		d.next_blk = (uint32_t)(((uint64_t)*pos + *left) %
					l->g.size_bb);
		d.skipped_bbs = *left;
	}
	w->st.skipped_bbs += d.skipped_bbs;
	*left -= d.skipped_bbs;
	*pos = d.next_blk;
	if (w->v->damage)
		return w->v->damage(w->v->arg, &d);
	return 0;
}

/*
 * Salvage: does the record at @pos go on from the last good one?  Its
 * h_lsn names this block with the header's cycle, and is newer.
 */
static bool follows(const struct walk *w, const struct xfsj_log_rec *r,
		      uint32_t pos)
{
	return xfsj_lsn_block(r->lsn) == pos && xfsj_lsn_cycle(r->lsn) == r->cycle &&
	       (!w->last_lsn || r->lsn > w->last_lsn);
}

static int lsn_cmp(const void *a, const void *b)
{
	const struct topen *x = *(struct topen *const *)a;
	const struct topen *y = *(struct topen *const *)b;

	return x->lsn < y->lsn ? -1 : x->lsn > y->lsn;
}

/*
 * Salvage, at the end of the range: the partial transactions whose
 * commit was not seen (it may have been in the damage), in log order.
 */
static int salvage_flush(struct walk *w, struct xfsj_fault *f)
{
	struct xfsj_log_rec none;
	struct topen **list;
	size_t n = 0;
	int ret = 0;

	if (!w->damaged || !w->v->trans)
		return 0;
	list = malloc((w->nopen ? w->nopen : 1) * sizeof(*list));
	if (!list)
		return -XFSJ_E_NOMEM;
	for (int b = 0; b < TBUCKETS; b++)
		for (struct topen *t = w->hash[b]; t; t = t->next)
			if (t->partial && n < w->nopen)
				list[n++] = t;
	qsort(list, n, sizeof(*list), lsn_cmp);
	memset(&none, 0, sizeof(none));
	for (size_t i = 0; i < n && !ret; i++) {
		w->quiet = true;
		ret = commit(w, list[i], &none, f);
		w->quiet = false;
		t_free(w, list[i]);
	}
	free(list);
	return ret;
}

int xfsj_log_walk(struct xfsj_log *log, uint32_t from, uint32_t to,
		  const struct xfsj_log_visitor *v, struct xfsj_fault *f)
{
	struct walk *w;
	bool resync = v->flags & XFSJ_LOGW_RESYNC;
	bool salvage = v->flags & XFSJ_LOGW_SALVAGE;
	bool lost = false, check, trusted, raw;
	uint32_t pos = from, left;
	int ret = 0;

	if (from >= log->g.size_bb || to >= log->g.size_bb)
		return xfsj_fault_set(f, XFSJ_E_RANGE, "log", "block", 0, from);
	w = calloc(1, sizeof(*w));
	if (!w)
		return -XFSJ_E_NOMEM;
	w->l = log;
	w->v = v;
	/* A checkpoint is smaller than half the log. */
	w->max_txn = (uint64_t)log->g.size_bb * XFSJ_BBSIZE / 2;
	if (w->max_txn < (64ULL << 20))
		w->max_txn = 64ULL << 20;
	/* The tail verification already checked every live record. */
	check = !(v->flags & XFSJ_LOGW_NOCRC);
	trusted = log->have_ht && log->live_crc_ok &&
		  from == log->ht.tail_blk && to == log->ht.head_blk;
	/* Nobody sees records or ops: their data may stay as on disk. */
	raw = !v->record && !v->op;
	left = xfsj_log_distance(log, from, to);
	if (!left && resync)
		left = log->g.size_bb;
	xlog_stream_begin(log, pos, left);

	while (left) {
		struct xfsj_log_rec r;
		struct xfsj_fault lf = { 0 };
		uint32_t n;
		int err;

		err = xlog_read_rec(log, pos, check && !trusted, raw, &r,
				    &w->stamped, &lf);
		if (!err && check && trusted)
			r.crc_state = r.crc ? XFSJ_CRC_OK : XFSJ_CRC_ZERO;
		if (err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO ||
		    err == -XFSJ_E_SHORTIO || err == -XFSJ_E_RANGE) {
			if (f)
				*f = lf;
			ret = err;
			break;
		}
		if (err && salvage) {
			ret = salvage_skip(w, &pos, &left, NULL, &lf, f);
			if (ret)
				break;
			continue;
		}
		if (err) {
			/*
			 * Not a record.  In the live log that is corruption,
			 * reported once; then, as in the whole-log view, we
			 * look for the next header block by block.
			 */
			bool magic = lf.field && strcmp(lf.field, "h_magicno");
			/* Header-only blocks left by stale-block clearing. */
			bool cleared = magic && !strcmp(lf.field, "h_len") &&
				       lf.value == 0;

			if (!lost && (!resync || (magic && !cleared))) {
				ret = report(w, &lf, pos, f);
				if (ret)
					break;
			}
			lost = !resync || lost;
			w->st.skipped_bbs++;
			pos = (pos + 1) % log->g.size_bb;
			left--;
			continue;
		}
		lost = false;
		if (salvage && !follows(w, &r, pos)) {
			/*
			 * A record that does not follow the last good one
			 * (an older cycle: a lost stretch of the log), as
			 * xfsj_log_resync() would not take it.
			 */
			xfsj_fault_set(&lf, XFSJ_E_CORRUPT, "log record header",
				       "h_lsn", r.dev_off + XLOG_HDR_LSN_OFF,
				       r.lsn);
			ret = salvage_skip(w, &pos, &left, NULL, &lf, f);
			if (ret)
				break;
			continue;
		}
		w->st.records++;
		if (r.crc_state == XFSJ_CRC_BAD && salvage) {
			w->st.crc_bad++;
			xfsj_fault_set(&lf, XFSJ_E_BADCRC, "log record header",
				       "h_crc", r.dev_off + 32, r.crc);
			/*
			 * Its ops still go to the transactions they belong
			 * to, which are all lost: what they say is only
			 * reported (it may be wrong), never replayed.
			 */
			if (v->trans && !(v->flags & XFSJ_LOGW_HDRONLY)) {
				w->damaged = w->tainted = w->quiet = true;
				ret = parse_ops(w, &r, f);
				w->tainted = w->quiet = false;
				if (ret)
					break;
			}
			ret = salvage_skip(w, &pos, &left, &r, &lf, f);
			if (ret)
				break;
			continue;
		}
		w->last_lsn = r.lsn;
		if (r.crc_state == XFSJ_CRC_BAD) {
			w->st.crc_bad++;
			if (!resync) {
				xfsj_fault_set(&lf, XFSJ_E_BADCRC,
					       "log record header", "h_crc",
					       r.dev_off + 32, r.crc);
				ret = report(w, &lf, pos, f);
				if (ret)
					break;
			}
		}
		if (v->record) {
			ret = v->record(v->arg, &r);
			if (ret)
				break;
		}
		if (!(v->flags & XFSJ_LOGW_HDRONLY) &&
		    (v->op || v->trans ||
		     ((v->flags & XFSJ_LOGW_CHECKOPS) &&
		      r.crc_state != XFSJ_CRC_BAD))) {
			ret = parse_ops(w, &r, f);
			if (ret)
				break;
		}
		n = r.hblks + r.data_bbs;
		w->st.bytes += (uint64_t)n * XFSJ_BBSIZE;
		if (n >= left)
			break;
		left -= n;
		pos = (pos + n) % log->g.size_bb;
	}

	if (!ret && salvage)
		ret = salvage_flush(w, f);
	xlog_stream_end(log);
	w->st.open_trans = w->nopen;
	if (v->stats)
		*v->stats = w->st;
	for (int b = 0; b < TBUCKETS; b++) {
		while (w->hash[b]) {
			struct topen *t = w->hash[b];

			w->hash[b] = t->next;
			t_destroy(t);
		}
	}
	while (w->freel) {
		struct topen *t = w->freel;

		w->freel = t->next;
		t_destroy(t);
	}
	free(w->cregs);
	free(w->citems);
	free(w->cinfo);
	free(w);
	return ret;
}

int xfsj_log_walk_live(struct xfsj_log *log, const struct xfsj_log_visitor *v,
		       struct xfsj_fault *f)
{
	if (!log->have_ht)
		return xfsj_fault_set(f, XFSJ_E_INVAL, "log", "head", 0, 0);
	if (log->ht.tail_blk == log->ht.head_blk)
		return 0;
	return xfsj_log_walk(log, log->ht.tail_blk, log->ht.head_blk, v, f);
}

const char *xfsj_log_op_flags_str(uint8_t flags, char *buf, size_t len)
{
	static const char *const names[] = {
		"START", "COMMIT", "CONTINUE", "WAS_CONT", "END", "UNMOUNT",
	};
	size_t o = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	for (int i = 0; i < 6; i++) {
		size_t n = strlen(names[i]);

		if (!(flags & (1 << i)) || o + n + 2 > len)
			continue;
		if (o)
			buf[o++] = ' ';
		memcpy(buf + o, names[i], n + 1);
		o += n;
	}
	if (flags & 0xc0 && o + 6 < len) {
		if (o)
			buf[o++] = ' ';
		memcpy(buf + o, "0xc0?", 6);
		o += 5;
	}
	if (!o && len > 4)
		memcpy(buf, "none", 5);
	return buf;
}
