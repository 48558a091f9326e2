/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The views: summary, records, transactions (-t), checkpoints, intents,
 * and the log copy.  Each is a visitor over libjournal's log walk; what is
 * printed is decided here, what is in the log is decided by the library.
 * The text of -t follows xfs_logprint -t closely (same labels, one label
 * line per item) so that tools counting its lines count the same things.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "logprint.h"

/* ---- small helpers ---- */

const char *lp_item_name(const struct xfsj_item_info *in)
{
	static char buf[16];

	if (in->kind)
		return in->kind->name;
	snprintf(buf, sizeof(buf), "0x%04x", in->type);
	return buf;
}

void lp_hexdump(const uint8_t *p, uint32_t len, const char *indent)
{
	static const char hex[] = "0123456789abcdef";

	for (uint32_t i = 0; i < len; i += 16) {
		o_s(indent);
		o_printf("%04x:", i);
		for (uint32_t j = i; j < i + 16 && j < len; j++) {
			o_c(' ');
			o_c(hex[p[j] >> 4]);
			o_c(hex[p[j] & 15]);
		}
		o_c('\n');
	}
}

static void lsn_text(char *buf, size_t n, uint64_t lsn)
{
	snprintf(buf, n, "%u,%u", xfsj_lsn_cycle(lsn), xfsj_lsn_block(lsn));
}

static bool live_block(const struct lp *lp, uint32_t blk)
{
	uint32_t span = xfsj_log_distance(lp->log, lp->ht.tail_blk,
					  lp->ht.head_blk);

	return xfsj_log_distance(lp->log, lp->ht.tail_blk, blk) < span;
}

static bool filters_on_items(const struct lp *lp)
{
	const struct lp_filter *fl = &lp->flt;

	return fl->ino_set || fl->daddr_set || fl->ag_set || fl->ntypes;
}

bool lp_item_selected(const struct lp *lp, const struct xfsj_ritem *it,
		      const struct xfsj_item_info *in)
{
	const struct lp_filter *fl = &lp->flt;

	if (fl->ntypes) {
		bool hit = false;

		for (unsigned int i = 0; i < fl->ntypes && !hit; i++)
			hit = fl->types[i] == in->type;
		if (!hit)
			return false;
	}
	if (fl->ino_set && !xfsj_item_touches_ino(it, in, &lp->fsg, fl->ino))
		return false;
	if (fl->daddr_set && !xfsj_item_touches_daddr(in, &lp->fsg, fl->daddr))
		return false;
	if (fl->ag_set && !xfsj_item_touches_ag(in, &lp->fsg, fl->ag))
		return false;
	return true;
}

static bool trans_in_range(const struct lp *lp, const struct xfsj_log_trans *t)
{
	return !lp->flt.lsn_set ||
	       (t->rt.lsn >= lp->flt.lsn_from && t->rt.lsn <= lp->flt.lsn_to);
}

/* ---- summary ---- */

void lp_print_summary(struct lp *lp)
{
	const struct xfsj_log_geom *g = xfsj_log_geom(lp->log);
	const struct xfsj_log_ht *ht = &lp->ht;

	if (lp->json) {
		js_begin("summary");
		js_str("device", lp->device);
		if (lp->logdev)
			js_str("log_device", lp->logdev);
		js_hex("data_dev", lp->ddev);
		js_hex("log_dev", lp->ldev);
		js_u64("log_daddr", g->daddr);
		js_u64("log_length", g->size_bb);
		js_bool("raw", g->raw);
		js_u64("tail", ht->tail_blk);
		js_u64("head", ht->head_blk);
		js_u64("cycle", ht->cycle);
		js_lsn("tail_lsn", ht->tail_lsn);
		js_str("state", ht->tail_blk == ht->head_blk ? "CLEAN" :
							      "DIRTY");
		js_bool("unmounted", ht->clean);
		js_bool("zeroed", ht->zeroed);
		js_bool("torn_head", ht->torn);
		if (ht->torn)
			js_u64("orig_head", ht->orig_head);
		js_bool("verify_failed", ht->verify_failed);
		if (ht->crc_deferred)
			js_bool("verify_deferred", true);
		if (ht->verify_failed)
			js_u64("bad_block", ht->bad_blk);
		js_bool("tail_moved", ht->tail_moved);
		if (ht->tail_moved)
			js_u64("orig_tail", ht->orig_tail);
		if (ht->have_last)
			js_lsn("last_lsn", ht->last_lsn);
		js_end();
		return;
	}
	o_printf("xfsj-logprint:\n");
	o_printf("    data device: 0x%" PRIx64 "\n", lp->ddev);
	if (g->raw)
		o_printf("    log file: \"%s\" ", lp->device);
	else
		o_printf("    log device: 0x%" PRIx64 " ", lp->ldev);
	o_printf("daddr: %" PRIu64 " length: %u\n\n", g->daddr, g->size_bb);
	o_printf("    log tail: %u head: %u state: %s\n", ht->tail_blk,
		ht->head_blk, ht->tail_blk == ht->head_blk ? "<CLEAN>" :
							      "<DIRTY>");
	if (ht->zeroed)
		o_printf("    the log is zeroed\n");
	if (ht->torn)
		o_printf("    torn write: head moved back from block %u\n",
			ht->orig_head);
	if (ht->tail_moved)
		o_printf("    tail overwritten: moved from block %u\n",
			ht->orig_tail);
	if (ht->verify_failed)
		o_printf("    CORRUPT: the record at block %u fails verification; the kernel would refuse to recover this log\n",
			 ht->bad_blk);
	o_c('\n');
}

/* ---- records view ---- */

static const char *crc_text(enum xfsj_crc_state s)
{
	switch (s) {
	case XFSJ_CRC_OK:
		return "ok";
	case XFSJ_CRC_OK324:
		return "ok324";
	case XFSJ_CRC_ZERO:
		return "none";
	case XFSJ_CRC_BAD:
		return "BAD";
	default:
		return "-";
	}
}

void lp_print_record(struct lp *lp, const struct xfsj_log_rec *r, bool live)
{

	if (lp->json) {
		js_begin("record");
		js_u64("block", r->blk);
		js_lsn("lsn", r->lsn);
		js_lsn("tail_lsn", r->tail_lsn);
		js_u64("cycle", r->cycle);
		js_u64("len", r->len);
		js_u64("size", r->size);
		js_u64("hblks", r->hblks);
		js_u64("ops", r->num_logops);
		js_i64("prev_block", (int32_t)r->prev_block);
		js_u64("fmt", r->fmt);
		js_str("crc", crc_text(r->crc_state));
		js_hex("h_crc", r->crc);
		js_bool("wraps", r->wraps);
		js_bool("live", live);
		js_end();
		return;
	}
	o_printf("LSN %u,%u\ttail %u,%u\tblock %u\tlen %u\thdrs %u\tops %u\tcrc %s\t%s%s\n",
		xfsj_lsn_cycle(r->lsn), xfsj_lsn_block(r->lsn),
		xfsj_lsn_cycle(r->tail_lsn), xfsj_lsn_block(r->tail_lsn),
		r->blk, r->len, r->hblks, r->num_logops,
		crc_text(r->crc_state), live ? "live" : "old",
		r->wraps ? " wraps" : "");
}

void lp_print_op(struct lp *lp, const struct xfsj_log_op *op)
{
	char fl[64];
	const char *client = op->clientid == XFSJ_LOG_CLIENT_TRANS ? "TRANS" :
			     op->clientid == XFSJ_LOG_CLIENT_LOG ? "LOG" : "?";

	xfsj_log_op_flags_str(op->flags, fl, sizeof(fl));
	if (lp->json) {
		js_begin("op");
		js_u64("index", op->index);
		js_hex("tid", op->tid);
		js_u64("len", op->len);
		js_str("clientid", client);
		js_str("flags", fl);
		js_u64("offset", op->dev_off);
		js_end();
		return;
	}
	o_printf("  Oper (%u): tid: %x  len: %u  clientid: %s  flags: %s\n",
		op->index, op->tid, op->len, client, fl);
	if (lp->hex && op->len)
		lp_hexdump(op->payload, op->len, "    ");
}

static int rec_cb(void *arg, const struct xfsj_log_rec *r)
{
	struct lp *lp = arg;
	bool live = live_block(lp, r->blk);

	if (lp->flt.lsn_set &&
	    (r->lsn < lp->flt.lsn_from || r->lsn > lp->flt.lsn_to))
		return 0;
	lp_print_record(lp, r, live);
	if (live && r->crc_state == XFSJ_CRC_BAD) {
		struct xfsj_fault f;

		xfsj_fault_set(&f, XFSJ_E_BADCRC, "log record header", "h_crc",
			       r->dev_off + 32, r->crc);
		return lp_fault_cb(lp, &f, r->blk);
	}
	return 0;
}

static int rec_op_cb(void *arg, const struct xfsj_log_rec *r,
		     const struct xfsj_log_op *op)
{
	struct lp *lp = arg;

	if (lp->flt.lsn_set &&
	    (r->lsn < lp->flt.lsn_from || r->lsn > lp->flt.lsn_to))
		return 0;
	lp_print_op(lp, op);
	return 0;
}

int lp_view_records(struct lp *lp)
{
	struct xfsj_log_visitor v = { 0 };
	struct xfsj_fault f = { 0 };
	uint32_t from, to;
	int err;

	v.arg = lp;
	v.record = rec_cb;
	v.fault = lp_fault_cb;
	if (lp->ops || lp->hex)
		v.op = rec_op_cb;
	else
		v.flags |= XFSJ_LOGW_CHECKOPS;
	if (lp->hdr_only) {
		v.op = NULL;
		v.flags |= XFSJ_LOGW_HDRONLY;
	}
	to = lp->ht.head_blk;
	if (lp->start_blk >= 0) {
		if ((uint64_t)lp->start_blk >= xfsj_log_geom(lp->log)->size_bb) {
			fprintf(stderr, "xfsj-logprint: -s %" PRId64 " is past the end of the log\n",
				lp->start_blk);
			return -XFSJ_E_RANGE;
		}
		from = (uint32_t)lp->start_blk;
		v.flags |= XFSJ_LOGW_RESYNC;
	} else if (lp->all) {
		/* Oldest first: from the head around to the head. */
		from = to;
		v.flags |= XFSJ_LOGW_RESYNC;
	} else {
		from = lp->ht.tail_blk;
	}
	err = xfsj_log_walk(lp->log, from, to, &v, &f);
	if (err < 0)
		lp_fault_print(lp, &f, from);
	return err < 0 ? err : 0;
}

/* ---- transactions view (-t) ---- */

void lp_print_item(struct lp *lp, const struct xfsj_ritem *it,
		   const struct xfsj_item_info *in)
{

	if (lp->json) {
		js_begin("item");
		js_item_fields(it, in, lp->hex);
		js_end();
		return;
	}
	if (in->kind)
		o_s(in->kind->lp_name);
	else
		o_printf("UNKNOWN(0x%04x)", in->type);
	O_LIT(": cnt:");
	o_u(it->nreg);
	O_LIT(" total:");
	o_u(it->nreg);
	o_c(' ');
	for (uint16_t r = 0; r < it->nreg; r++) {
		O_LIT("len:");
		o_u(it->reg[r].len);
		o_c(' ');
	}
	o_c('\n');
	if (in->kind)
		lp_item_print(in->type)->text(lp, it, in);
	if (in->err)
		o_printf("\t\tbad item: %s %s at region %u byte %" PRIu64
			" (device byte %" PRIu64 ", value %" PRIu64 "): %s\n",
			in->fault.structure ? in->fault.structure : "item",
			in->fault.field ? in->fault.field : "?",
			in->fault_reg, in->fault.offset, in->fault_dev_off,
			in->fault.value, xfsj_strerror(in->err));
	if (lp->hex)
		for (uint16_t r = 0; r < it->nreg; r++) {
			o_printf("\t  region %u (%u bytes):\n", r,
				it->reg[r].len);
			lp_hexdump(it->reg[r].p, it->reg[r].len, "\t  ");
		}
}

void lp_print_trans_head(struct lp *lp, const struct xfsj_log_trans *t)
{
	uint32_t c = xfsj_lsn_cycle(t->rt.lsn), b = xfsj_lsn_block(t->rt.lsn);

	if (lp->json) {
		js_begin("trans");
		js_hex("tid", t->rt.tid);
		js_lsn("lsn", t->rt.lsn);
		js_lsn("commit_lsn", t->commit_lsn);
		js_u64("start_block", t->start_blk);
		js_u64("commit_block", t->commit_blk);
		js_u64("type", t->th_type);
		js_u64("num_regions", t->th_num_items);
		js_u64("items", t->rt.nitems);
		js_u64("ops", t->nops);
		js_u64("bytes", t->bytes);
		js_u64("records", t->nrecords);
		js_end();
		return;
	}
	O_LIT("\nLOG REC AT LSN cycle ");
	o_u(c);
	O_LIT(" block ");
	o_u(b);
	O_LIT(" (0x");
	o_x(c);
	O_LIT(", 0x");
	o_x(b);
	O_LIT(")\n============================================================================\nTRANS: tid:0x");
	o_x(t->rt.tid);
	O_LIT("  #items:");
	o_u(t->th_num_items);
	O_LIT("  trans:0x");
	o_x(t->rt.tid);
	O_LIT("  q:0x0\n");
}

/*
 * An item that does not decode: one line on stderr naming the device
 * byte offset of the bad field, and with --json an error object.
 */
void lp_item_fault_print(struct lp *lp, const struct xfsj_log_trans *t,
			 const struct xfsj_item_info *in)
{
	const char *st = in->fault.structure ? in->fault.structure : "log item";
	const char *fld = in->fault.field ? in->fault.field : "?";

	if (lp->json) {
		js_begin("error");
		js_str("structure", st);
		js_str("field", fld);
		js_u64("offset", in->fault_dev_off);
		js_u64("block", in->fault_blk);
		js_u64("value", in->fault.value);
		js_str("error", xfsj_strerror(in->err));
		js_str("item", lp_item_name(in));
		js_lsn("lsn", t->rt.lsn);
		js_u64("region", in->fault_reg);
		js_u64("region_offset", in->fault.offset);
		js_end();
	}
	o_flush();
	fprintf(stderr, "xfsj-logprint: %s: transaction at LSN %u,%u: %s item: %s: %s at byte %" PRIu64
		" (log block %u): %s (value %" PRIu64 ")\n",
		lp->device, xfsj_lsn_cycle(t->rt.lsn),
		xfsj_lsn_block(t->rt.lsn), lp_item_name(in), st, fld,
		in->fault_dev_off, in->fault_blk, xfsj_strerror(in->err),
		in->fault.value);
}

static int trans_cb(void *arg, const struct xfsj_log_trans *t)
{
	struct lp *lp = arg;
	bool filt = filters_on_items(lp), headed = false;

	if (!trans_in_range(lp, t))
		return 0;
	if (!filt)
		lp_print_trans_head(lp, t);
	for (uint32_t i = 0; i < t->rt.nitems; i++) {
		const struct xfsj_ritem *it = &t->rt.items[i];
		const struct xfsj_item_info *in = &t->info[i];

		/* A checkpoint is larger than the caches: read ahead. */
		if (i + 8 < t->rt.nitems) {
			LP_PREFETCH(t->rt.items[i + 8].reg[0].p);
			LP_PREFETCH(&t->info[i + 8]);
		}
		if (filt && !lp_item_selected(lp, it, in))
			continue;
		if (!headed && filt)
			lp_print_trans_head(lp, t);
		headed = true;
		lp_print_item(lp, it, in);
		if (in->err && in->err != -XFSJ_E_UNSUPP) {
			lp->nfaults++;
			lp_item_fault_print(lp, t, in);
			if (!lp->cont) {
				lp->stopped = true;
				return 1;
			}
		} else if (in->err) {
			o_flush();
			fprintf(stderr, "xfsj-logprint: %s: transaction at LSN %u,%u: unknown item type 0x%04x skipped\n",
				lp->device, xfsj_lsn_cycle(t->rt.lsn),
				xfsj_lsn_block(t->rt.lsn), in->type);
		}
	}
	return 0;
}

static int walk_trans(struct lp *lp, struct xfsj_log_visitor *v)
{
	struct xfsj_fault f = { 0 };
	uint32_t from = lp->ht.tail_blk, to = lp->ht.head_blk;
	int err;

	/* A view whose visitor argument is not @lp brings its own. */
	if (!v->fault)
		v->fault = lp_fault_cb;
	v->flags |= XFSJ_LOGW_DECODE;
	if (lp->start_blk >= 0) {
		if ((uint64_t)lp->start_blk >= xfsj_log_geom(lp->log)->size_bb) {
			fprintf(stderr, "xfsj-logprint: -s %" PRId64 " is past the end of the log\n",
				lp->start_blk);
			return -XFSJ_E_RANGE;
		}
		from = (uint32_t)lp->start_blk;
	}
	if (from == to)
		return 0;
	err = xfsj_log_walk(lp->log, from, to, v, &f);
	if (err < 0)
		lp_fault_print(lp, &f, from);
	return err < 0 ? err : 0;
}

int lp_view_trans(struct lp *lp)
{
	struct xfsj_log_visitor v = { 0 };

	v.arg = lp;
	v.trans = trans_cb;
	return walk_trans(lp, &v);
}

/* ---- checkpoints view ---- */

#define TYPE_BASE	0x1236
#define NTYPE_SLOTS	(0x1250 - TYPE_BASE + 1)	/* last: unknown */

static unsigned int type_slot(uint16_t t)
{
	return t >= TYPE_BASE && t < 0x1250 ? t - TYPE_BASE : NTYPE_SLOTS - 1;
}

struct ckwalk {
	struct lp *lp;
	uint64_t limit;
	uint64_t n, over, largest, total_bytes;
	uint64_t largest_lsn;
};

static int ckpt_fault(void *arg, const struct xfsj_fault *f, uint32_t blk)
{
	return lp_fault_cb(((struct ckwalk *)arg)->lp, f, blk);
}

static int ckpt_cb(void *arg, const struct xfsj_log_trans *t)
{
	struct ckwalk *cw = arg;
	struct lp *lp = cw->lp;
	uint32_t counts[NTYPE_SLOTS] = { 0 };
	uint32_t nsel = 0;
	bool filt = filters_on_items(lp), over;
	char a[32], b[32];

	if (!trans_in_range(lp, t))
		return 0;
	for (uint32_t i = 0; i < t->rt.nitems; i++) {
		if (filt && !lp_item_selected(lp, &t->rt.items[i], &t->info[i]))
			continue;
		counts[type_slot(t->rt.items[i].type)]++;
		nsel++;
	}
	if (filt && !nsel)
		return 0;
	over = t->bytes > cw->limit;
	cw->n++;
	cw->over += over;
	cw->total_bytes += t->bytes;
	if (t->bytes > cw->largest) {
		cw->largest = t->bytes;
		cw->largest_lsn = t->rt.lsn;
	}
	if (lp->json) {
		js_begin("checkpoint");
		js_hex("tid", t->rt.tid);
		js_lsn("start_lsn", t->rt.lsn);
		js_lsn("commit_lsn", t->commit_lsn);
		js_u64("records", t->nrecords);
		js_u64("ops", t->nops);
		js_u64("items", t->rt.nitems);
		js_u64("bytes", t->bytes);
		js_bool("over_limit", over);
		js_obj_begin("by_type");
		for (unsigned int s = 0; s < NTYPE_SLOTS; s++) {
			const struct xfsj_item_type *ty;

			if (!counts[s])
				continue;
			ty = xfsj_item_type_lookup((uint16_t)(TYPE_BASE + s));
			js_u64(ty && s < NTYPE_SLOTS - 1 ? ty->name : "unknown",
			       counts[s]);
		}
		js_obj_end();
		js_end();
		return 0;
	}
	lsn_text(a, sizeof(a), t->rt.lsn);
	lsn_text(b, sizeof(b), t->commit_lsn);
	o_printf("checkpoint start %s commit %s tid 0x%08x records %u items %u bytes %"
		PRIu64 " [", a, b, t->rt.tid, t->nrecords, t->rt.nitems,
		t->bytes);
	for (unsigned int s = 0, first = 1; s < NTYPE_SLOTS; s++) {
		const struct xfsj_item_type *ty;

		if (!counts[s])
			continue;
		ty = xfsj_item_type_lookup((uint16_t)(TYPE_BASE + s));
		o_printf("%s%s %u", first ? "" : " ",
			ty && s < NTYPE_SLOTS - 1 ? ty->name : "unknown",
			counts[s]);
		first = 0;
	}
	o_printf("]%s\n", over ? " OVER-LIMIT" : "");
	return 0;
}

int lp_view_checkpoints(struct lp *lp)
{
	const struct xfsj_log_geom *g = xfsj_log_geom(lp->log);
	struct ckwalk cw = { .lp = lp };
	struct xfsj_log_visitor v = { 0 };
	uint64_t logbytes = (uint64_t)g->size_bb * XFSJ_BBSIZE;
	/* 16 times the window of eight 256 KiB iclogs: 32 MiB. */
	uint64_t window = 16ULL * XFSJ_LOG_TOTAL_REC_BBS * XFSJ_BBSIZE;
	char a[32];
	int err;

	cw.limit = logbytes / 8 < window ? logbytes / 8 : window;
	if (lp->json) {
		js_begin("cil_limit");
		js_u64("log_bytes", logbytes);
		js_u64("push_limit", cw.limit);
		js_u64("hard_limit", 2 * cw.limit);
		js_end();
	} else {
		o_printf("CIL push limit: %" PRIu64 " bytes (min of log/8 = %"
			PRIu64 " and 16 x 2 MiB = %" PRIu64 "); blocking limit %"
			PRIu64 "\n", cw.limit, logbytes / 8, window,
			2 * cw.limit);
	}
	v.arg = &cw;
	v.trans = ckpt_cb;
	v.fault = ckpt_fault;
	err = walk_trans(lp, &v);
	if (lp->json) {
		js_begin("checkpoint_total");
		js_u64("checkpoints", cw.n);
		js_u64("over_limit", cw.over);
		js_u64("largest_bytes", cw.largest);
		js_u64("bytes", cw.total_bytes);
		js_end();
	} else {
		lsn_text(a, sizeof(a), cw.largest_lsn);
		o_printf("%" PRIu64 " checkpoints, %" PRIu64
			" over the push limit, largest %" PRIu64 " bytes (start %s), total %"
			PRIu64 " bytes\n", cw.n, cw.over, cw.largest,
			cw.n ? a : "-", cw.total_bytes);
	}
	return err;
}

/* ---- intents view ---- */

struct intent {
	uint16_t type, done_type;
	uint64_t id;
	uint64_t lsn, commit_lsn, done_lsn;
	uint32_t next;		/* hash chain, index + 1 */
	bool done, same;
	char what[72];
};

struct inwalk {
	struct lp *lp;
	struct intent *v;
	size_t n, cap;
	uint32_t *hash;		/* index + 1 */
	size_t hsize;
	uint64_t ndone, nsame, orphan_done;
	uint64_t same_by_type[NTYPE_SLOTS];
	int err;
};

static size_t ihash(uint16_t type, uint64_t id, size_t hsize)
{
	uint64_t h = (id ^ ((uint64_t)type << 48)) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 20) & (hsize - 1);
}

static int intent_rehash(struct inwalk *iw)
{
	size_t ns = iw->hsize ? iw->hsize * 2 : 1024;
	uint32_t *nh = calloc(ns, sizeof(*nh));

	if (!nh)
		return -XFSJ_E_NOMEM;
	free(iw->hash);
	iw->hash = nh;
	iw->hsize = ns;
	for (size_t i = 0; i < iw->n; i++) {
		size_t h = ihash(iw->v[i].type, iw->v[i].id, ns);

		iw->v[i].next = nh[h];
		nh[h] = (uint32_t)(i + 1);
	}
	return 0;
}

static int intent_fault(void *arg, const struct xfsj_fault *f, uint32_t blk)
{
	return lp_fault_cb(((struct inwalk *)arg)->lp, f, blk);
}

static int intent_cb(void *arg, const struct xfsj_log_trans *t)
{
	struct inwalk *iw = arg;
	struct lp *lp = iw->lp;

	if (!trans_in_range(lp, t))
		return 0;
	for (uint32_t i = 0; i < t->rt.nitems; i++) {
		const struct xfsj_item_info *in = &t->info[i];
		struct intent *x;
		size_t h;

		if (!in->kind || in->kind->role == XFSJ_ROLE_OTHER ||
		    (in->err && in->kind->role == XFSJ_ROLE_DONE))
			continue;
		if (in->kind->role == XFSJ_ROLE_DONE) {
			bool found = false;

			/* Every pending intent of that type and id ends. */
			if (iw->hsize)
				h = ihash(in->kind->pair, in->id, iw->hsize);
			for (uint32_t k = iw->hsize ? iw->hash[h] : 0; k;
			     k = iw->v[k - 1].next) {
				x = &iw->v[k - 1];
				if (x->type != in->kind->pair || x->id != in->id ||
				    x->done)
					continue;
				x->done = true;
				x->done_lsn = t->rt.lsn;
				x->done_type = in->type;
				x->same = x->commit_lsn == t->commit_lsn &&
					  x->lsn == t->rt.lsn;
				iw->ndone++;
				if (x->same) {
					iw->nsame++;
					iw->same_by_type[type_slot(x->type)]++;
				}
				found = true;
			}
			if (!found)
				iw->orphan_done++;
			continue;
		}
		if (filters_on_items(lp) &&
		    !lp_item_selected(lp, &t->rt.items[i], in))
			continue;
		if (iw->n == iw->cap) {
			size_t nc = iw->cap ? iw->cap * 2 : 1024;
			struct intent *nv = realloc(iw->v, nc * sizeof(*nv));

			if (!nv) {
				iw->err = -XFSJ_E_NOMEM;
				return 1;
			}
			iw->v = nv;
			iw->cap = nc;
		}
		if (iw->n >= UINT32_MAX - 1)
			continue;
		if (iw->n * 2 >= iw->hsize && intent_rehash(iw)) {
			iw->err = -XFSJ_E_NOMEM;
			return 1;
		}
		x = &iw->v[iw->n];
		memset(x, 0, sizeof(*x));
		x->type = in->type;
		x->id = in->id;
		x->lsn = t->rt.lsn;
		x->commit_lsn = t->commit_lsn;
		x->what[0] = 0;
		lp_item_print(in->type)->what(in, x->what, sizeof(x->what));
		h = ihash(x->type, x->id, iw->hsize);
		x->next = iw->hash[h];
		iw->hash[h] = (uint32_t)(iw->n + 1);
		iw->n++;
	}
	return 0;
}

int lp_view_intents(struct lp *lp)
{
	struct inwalk iw = { .lp = lp };
	struct xfsj_log_visitor v = { 0 };
	char a[32], b[32];
	int err;

	v.arg = &iw;
	v.trans = intent_cb;
	v.fault = intent_fault;
	err = walk_trans(lp, &v);
	if (!err && iw.err)
		err = iw.err;
	for (size_t i = 0; i < iw.n; i++) {
		const struct intent *x = &iw.v[i];
		const struct xfsj_item_type *ty = xfsj_item_type_lookup(x->type);
		const struct xfsj_item_type *dt = xfsj_item_type_lookup(x->done_type);

		if (lp->json) {
			js_begin("intent");
			js_str("type", ty ? ty->name : "?");
			js_hex("id", x->id);
			js_lsn("lsn", x->lsn);
			js_lsn("commit_lsn", x->commit_lsn);
			if (x->done) {
				js_lsn("done_lsn", x->done_lsn);
				js_str("done_type", dt ? dt->name : "?");
				js_bool("same_checkpoint", x->same);
			} else {
				js_raw("done_lsn", "null");
			}
			js_str("state", x->done ? "DONE" : "PENDING");
			js_str("what", x->what);
			js_end();
			continue;
		}
		lsn_text(a, sizeof(a), x->lsn);
		lsn_text(b, sizeof(b), x->done_lsn);
		o_printf("%-7s id 0x%016" PRIx64 " lsn %-12s %s%s%s  %s\n",
			ty ? ty->name : "?", x->id, a,
			x->done ? "done " : "PENDING", x->done ? b : "",
			x->same ? " (same checkpoint)" : "", x->what);
	}
	if (lp->json) {
		js_begin("audit");
		js_u64("intents", iw.n);
		js_u64("done", iw.ndone);
		js_u64("pending", iw.n - iw.ndone);
		js_u64("same_checkpoint_pairs", iw.nsame);
		js_u64("done_without_intent", iw.orphan_done);
		js_obj_begin("same_checkpoint_by_type");
		for (unsigned int s = 0; s < NTYPE_SLOTS - 1; s++) {
			const struct xfsj_item_type *ty;

			if (!iw.same_by_type[s])
				continue;
			ty = xfsj_item_type_lookup((uint16_t)(TYPE_BASE + s));
			js_u64(ty ? ty->name : "?", iw.same_by_type[s]);
		}
		js_obj_end();
		js_end();
	} else {
		o_printf("audit: %zu intents, %" PRIu64 " done, %" PRIu64
			" pending (recovery must finish them), %" PRIu64
			" done items whose intent is before the tail\n",
			iw.n, iw.ndone, (uint64_t)iw.n - iw.ndone,
			iw.orphan_done);
		o_printf("audit: %" PRIu64 " intent/done pairs in the same checkpoint (intent whiteouts write none)",
			iw.nsame);
		for (unsigned int s = 0; s < NTYPE_SLOTS - 1; s++) {
			const struct xfsj_item_type *ty;

			if (!iw.same_by_type[s])
				continue;
			ty = xfsj_item_type_lookup((uint16_t)(TYPE_BASE + s));
			o_printf(" %s %" PRIu64, ty ? ty->name : "?",
				iw.same_by_type[s]);
		}
		o_c('\n');
	}
	free(iw.v);
	free(iw.hash);
	return err;
}

/* ---- -C: copy the log out ---- */

int lp_copy_log(struct lp *lp)
{
	const struct xfsj_log_geom *g = xfsj_log_geom(lp->log);
	const size_t chunk = 4U << 20;
	struct xfsj_io *dst;
	struct xfsj_io *src = lp->logio ? lp->logio : lp->io;
	uint64_t total = (uint64_t)g->size_bb * XFSJ_BBSIZE, done = 0;
	uint8_t *buf;
	int err;

	err = xfsj_io_open(lp->copy_file, XFSJ_IO_CREATE, &dst);
	if (err) {
		fprintf(stderr, "xfsj-logprint: cannot create %s: %s\n",
			lp->copy_file, xfsj_strerror(err));
		return err;
	}
	buf = malloc(chunk);
	if (!buf) {
		xfsj_io_close(dst);
		return -XFSJ_E_NOMEM;
	}
	while (!err && done < total) {
		size_t n = total - done < chunk ? (size_t)(total - done) : chunk;

		err = xfsj_pread(src, buf, n, g->dev_off + done);
		if (!err)
			err = xfsj_pwrite(dst, buf, n, done);
		done += n;
	}
	if (!err)
		err = xfsj_io_sync(dst);
	free(buf);
	xfsj_io_close(dst);
	if (err)
		fprintf(stderr, "xfsj-logprint: copying the log to %s: %s\n",
			lp->copy_file, xfsj_strerror(err));
	else if (!lp->json)
		o_printf("xfsj-logprint: %" PRIu64 " bytes of log copied to %s\n",
			total, lp->copy_file);
	return err;
}
