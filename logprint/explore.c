/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -I: an interactive explorer.  One indexing walk records where every
 * record and every committed transaction is (a few dozen bytes each);
 * showing a transaction walks again from its start record to its commit,
 * so memory stays bounded however large the log is.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "logprint.h"

struct xrec {
	uint32_t blk;
	uint64_t lsn;
};

struct xtrans {
	uint64_t lsn, commit_lsn;
	uint32_t tid, start_blk, commit_blk, nitems;
};

struct explorer {
	struct lp *lp;
	struct xrec *recs;
	size_t nrec, caprec;
	struct xtrans *trans;
	size_t ntrans, captrans;
	size_t ri, ti, ii;
	bool whole;		/* clean log: records of the whole log */
	int err;
};

static struct explorer *cur_ex;

static int grow(void **p, size_t *cap, size_t n, size_t elem)
{
	size_t c = *cap ? *cap * 2 : 256;
	void *np;

	if (n < *cap)
		return 0;
	np = realloc(*p, c * elem);
	if (!np)
		return -1;
	*p = np;
	*cap = c;
	return 0;
}

static int idx_rec(void *arg, const struct xfsj_log_rec *r)
{
	struct explorer *x = arg;

	if (grow((void **)&x->recs, &x->caprec, x->nrec, sizeof(*x->recs))) {
		x->err = -XFSJ_E_NOMEM;
		return 1;
	}
	x->recs[x->nrec].blk = r->blk;
	x->recs[x->nrec].lsn = r->lsn;
	x->nrec++;
	return 0;
}

static int idx_trans(void *arg, const struct xfsj_log_trans *t)
{
	struct explorer *x = arg;
	struct xtrans *e;

	if (grow((void **)&x->trans, &x->captrans, x->ntrans,
		 sizeof(*x->trans))) {
		x->err = -XFSJ_E_NOMEM;
		return 1;
	}
	e = &x->trans[x->ntrans++];
	e->lsn = t->rt.lsn;
	e->commit_lsn = t->commit_lsn;
	e->tid = t->rt.tid;
	e->start_blk = t->start_blk;
	e->commit_blk = t->commit_blk;
	e->nitems = t->rt.nitems;
	return 0;
}

static int quiet_fault(void *arg, const struct xfsj_fault *f, uint32_t blk)
{
	(void)arg;
	(void)f;
	(void)blk;
	return 0;
}

static int build_index(struct explorer *x)
{
	struct lp *lp = x->lp;
	struct xfsj_log_visitor v = { 0 };
	struct xfsj_fault f = { 0 };
	uint32_t from = lp->ht.tail_blk, to = lp->ht.head_blk;

	v.arg = x;
	v.record = idx_rec;
	v.trans = idx_trans;
	v.fault = quiet_fault;
	v.flags = XFSJ_LOGW_NOCRC;
	if (from == to) {
		x->whole = true;
		v.flags |= XFSJ_LOGW_RESYNC;
	}
	xfsj_log_walk(lp->log, from, to, &v, &f);
	return x->err;
}

/* ---- showing things ---- */

struct show {
	struct explorer *x;
	uint32_t blk;		/* the record to show ops of */
	const struct xtrans *want;
	long item;		/* -1: all items */
	bool found;
};

static int show_rec(void *arg, const struct xfsj_log_rec *r)
{
	struct show *s = arg;

	if (r->blk != s->blk)
		return 1;
	lp_print_record(s->x->lp, r, true);
	return 0;
}

static int show_op(void *arg, const struct xfsj_log_rec *r,
		   const struct xfsj_log_op *op)
{
	struct show *s = arg;

	(void)r;
	lp_print_op(s->x->lp, op);
	return 0;
}

static void show_record(struct explorer *x)
{
	struct xfsj_log_visitor v = { 0 };
	struct show s = { .x = x };
	struct xrec *r;
	struct xfsj_fault f;
	uint32_t size = xfsj_log_geom(x->lp->log)->size_bb;

	if (!x->nrec) {
		o_printf("no records\n");
		return;
	}
	r = &x->recs[x->ri];
	o_printf("record %zu of %zu\n", x->ri + 1, x->nrec);
	s.blk = r->blk;
	v.arg = &s;
	v.record = show_rec;
	v.op = show_op;
	v.fault = quiet_fault;
	/* Walk one record: stop as soon as the next one starts. */
	xfsj_log_walk(x->lp->log, r->blk, (r->blk + size - 1) % size, &v, &f);
}

static int show_trans_cb(void *arg, const struct xfsj_log_trans *t)
{
	struct show *s = arg;
	struct lp *lp = s->x->lp;

	if (t->rt.tid != s->want->tid || t->rt.lsn != s->want->lsn)
		return 0;
	s->found = true;
	lp_print_trans_head(lp, t);
	for (uint32_t i = 0; i < t->rt.nitems; i++) {
		if (s->item >= 0 && (uint32_t)s->item != i)
			continue;
		o_printf("item %u of %u:\n", i + 1, t->rt.nitems);
		lp_print_item(lp, &t->rt.items[i], &t->info[i]);
	}
	return 1;
}

static void show_trans(struct explorer *x, long item)
{
	struct xfsj_log_visitor v = { 0 };
	struct show s = { .x = x };
	struct xfsj_fault f;
	const struct xtrans *t;

	if (!x->ntrans) {
		o_printf("no committed transactions in the live log\n");
		return;
	}
	t = &x->trans[x->ti];
	o_printf("transaction %zu of %zu\n", x->ti + 1, x->ntrans);
	s.want = t;
	s.item = item;
	v.arg = &s;
	v.trans = show_trans_cb;
	v.fault = quiet_fault;
	v.flags = XFSJ_LOGW_DECODE | XFSJ_LOGW_NOCRC;
	xfsj_log_walk(x->lp->log, t->start_blk, x->lp->ht.head_blk, &v, &f);
	if (!s.found)
		o_printf("transaction not found again (log changed?)\n");
	o_flush();
}

/* ---- follow an inode or a block through the log ---- */

struct follow {
	struct lp *lp;
	bool ino;
	uint64_t val;
	uint64_t hits;
};

static int follow_cb(void *arg, const struct xfsj_log_trans *t)
{
	struct follow *fo = arg;

	for (uint32_t i = 0; i < t->rt.nitems; i++) {
		const struct xfsj_item_info *in = &t->info[i];
		bool hit = fo->ino ?
			xfsj_item_touches_ino(&t->rt.items[i], in,
					      &fo->lp->fsg, fo->val) :
			xfsj_item_touches_daddr(in, &fo->lp->fsg, fo->val);

		if (!hit)
			continue;
		fo->hits++;
		o_printf("LSN %u,%u  tid 0x%08x  item %u: ", xfsj_lsn_cycle(t->rt.lsn),
		       xfsj_lsn_block(t->rt.lsn), t->rt.tid, i + 1);
		lp_print_item(fo->lp, &t->rt.items[i], in);
	}
	return 0;
}

static void follow(struct explorer *x, bool ino, uint64_t val)
{
	struct xfsj_log_visitor v = { 0 };
	struct follow fo = { x->lp, ino, val, 0 };
	struct xfsj_fault f;

	if (x->lp->ht.tail_blk == x->lp->ht.head_blk) {
		o_printf("the log is clean: nothing to follow\n");
		return;
	}
	v.arg = &fo;
	v.trans = follow_cb;
	v.fault = quiet_fault;
	v.flags = XFSJ_LOGW_DECODE | XFSJ_LOGW_NOCRC;
	xfsj_log_walk(x->lp->log, x->lp->ht.tail_blk, x->lp->ht.head_blk, &v,
		      &f);
	o_printf("%" PRIu64 " items touch %s %" PRIu64 "\n", fo.hits,
	       ino ? "inode" : "disk address", val);
}

static bool parse_lsn_arg(const char *s, uint64_t *lsn)
{
	char *end;
	unsigned long long c, b;

	c = strtoull(s, &end, 0);
	if (end == s)
		return false;
	if (*end == ',' || *end == '/' || *end == ':') {
		const char *p = end + 1;

		b = strtoull(p, &end, 0);
		if (end == p || *end)
			return false;
		*lsn = xfsj_lsn((uint32_t)c, (uint32_t)b);
		return true;
	}
	if (*end)
		return false;
	*lsn = c;
	return true;
}

static void go_lsn(struct explorer *x, uint64_t lsn)
{
	size_t i;

	for (i = 0; i < x->nrec && x->recs[i].lsn < lsn; i++)
		;
	if (i == x->nrec) {
		o_printf("no record at or after LSN %u,%u\n", xfsj_lsn_cycle(lsn),
		       xfsj_lsn_block(lsn));
		return;
	}
	x->ri = i;
	for (size_t k = 0; k < x->ntrans; k++) {
		if (x->trans[k].lsn >= lsn) {
			x->ti = k;
			x->ii = 0;
			break;
		}
	}
	show_record(x);
}

static const char *const commands[] = {
	"next", "prev", "record", "trans", "tnext", "tprev", "item", "inext",
	"iprev", "goto", "follow", "summary", "help", "quit", NULL,
};

static void help(void)
{
	o_printf("commands:\n"
	       "  next | n, prev | p      next / previous record (with its ops)\n"
	       "  record [N]              show record N (1-based) or the current one\n"
	       "  trans [N]               show transaction N or the current one\n"
	       "  tnext | tn, tprev | tp  next / previous committed transaction\n"
	       "  item [N]                show item N of the current transaction\n"
	       "  inext | in, iprev | ip  next / previous item\n"
	       "  goto LSN                first record at or after LSN (CYCLE,BLOCK)\n"
	       "  follow ino N            every item that touches inode N\n"
	       "  follow block D          every item that touches disk address D\n"
	       "  summary                 head, tail, counts\n"
	       "  help, quit\n");
}

static char *cmd_gen(const char *text, int state)
{
	static int i;
	static size_t len;

	if (!state) {
		i = 0;
		len = strlen(text);
	}
	while (commands[i]) {
		const char *c = commands[i++];

		if (!strncmp(c, text, len))
			return strdup(c);
	}
	return NULL;
}

static char *follow_gen(const char *text, int state)
{
	static const char *const w[] = { "ino", "block", NULL };
	static int i;

	if (!state)
		i = 0;
	while (w[i]) {
		const char *c = w[i++];

		if (!strncmp(c, text, strlen(text)))
			return strdup(c);
	}
	return NULL;
}

static char **complete(const char *text, int start, int end)
{
	(void)end;
	rl_attempted_completion_over = 1;
	if (start == 0)
		return rl_completion_matches(text, cmd_gen);
	if (!strncmp(rl_line_buffer, "follow ", 7))
		return rl_completion_matches(text, follow_gen);
	return NULL;
}

static bool step(size_t *pos, size_t n, int dir)
{
	if (!n)
		return false;
	if (dir > 0 && *pos + 1 < n) {
		(*pos)++;
		return true;
	}
	if (dir < 0 && *pos > 0) {
		(*pos)--;
		return true;
	}
	o_printf("%s\n", dir > 0 ? "at the end" : "at the start");
	return false;
}

static bool number(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s)
		return false;
	*v = strtoull(s, &end, 0);
	return !*end;
}

/* Returns false on quit. */
static bool run(struct explorer *x, char *line)
{
	char *cmd = strtok(line, " \t");
	char *a1 = strtok(NULL, " \t");
	char *a2 = strtok(NULL, " \t");
	uint64_t v;

	if (!cmd)
		return true;
	if (!strcmp(cmd, "quit") || !strcmp(cmd, "q") || !strcmp(cmd, "exit"))
		return false;
	if (!strcmp(cmd, "help") || !strcmp(cmd, "?")) {
		help();
	} else if (!strcmp(cmd, "next") || !strcmp(cmd, "n")) {
		if (step(&x->ri, x->nrec, 1))
			show_record(x);
	} else if (!strcmp(cmd, "prev") || !strcmp(cmd, "p")) {
		if (step(&x->ri, x->nrec, -1))
			show_record(x);
	} else if (!strcmp(cmd, "record") || !strcmp(cmd, "r")) {
		if (a1 && (!number(a1, &v) || !v || v > x->nrec))
			o_printf("no record %s (1..%zu)\n", a1, x->nrec);
		else {
			if (a1)
				x->ri = (size_t)v - 1;
			show_record(x);
		}
	} else if (!strcmp(cmd, "trans") || !strcmp(cmd, "t")) {
		if (a1 && (!number(a1, &v) || !v || v > x->ntrans))
			o_printf("no transaction %s (1..%zu)\n", a1, x->ntrans);
		else {
			if (a1) {
				x->ti = (size_t)v - 1;
				x->ii = 0;
			}
			show_trans(x, -1);
		}
	} else if (!strcmp(cmd, "tnext") || !strcmp(cmd, "tn")) {
		if (step(&x->ti, x->ntrans, 1)) {
			x->ii = 0;
			show_trans(x, -1);
		}
	} else if (!strcmp(cmd, "tprev") || !strcmp(cmd, "tp")) {
		if (step(&x->ti, x->ntrans, -1)) {
			x->ii = 0;
			show_trans(x, -1);
		}
	} else if (!strcmp(cmd, "item") || !strcmp(cmd, "i") ||
		   !strcmp(cmd, "inext") || !strcmp(cmd, "in") ||
		   !strcmp(cmd, "iprev") || !strcmp(cmd, "ip")) {
		size_t n = x->ntrans ? x->trans[x->ti].nitems : 0;

		if (cmd[1] == 'n' || !strcmp(cmd, "inext")) {
			if (!step(&x->ii, n, 1))
				return true;
		} else if (cmd[1] == 'p' || !strcmp(cmd, "iprev")) {
			if (!step(&x->ii, n, -1))
				return true;
		} else if (a1) {
			if (!number(a1, &v) || !v || v > n) {
				o_printf("no item %s (1..%zu)\n", a1, n);
				return true;
			}
			x->ii = (size_t)v - 1;
		}
		show_trans(x, (long)x->ii);
	} else if (!strcmp(cmd, "goto") || !strcmp(cmd, "g")) {
		uint64_t lsn;

		if (!a1 || !parse_lsn_arg(a1, &lsn))
			o_printf("usage: goto CYCLE,BLOCK\n");
		else
			go_lsn(x, lsn);
	} else if (!strcmp(cmd, "follow") || !strcmp(cmd, "f")) {
		if (!a1 || !number(a2, &v) ||
		    (strcmp(a1, "ino") && strcmp(a1, "block")))
			o_printf("usage: follow ino N | follow block DADDR\n");
		else
			follow(x, !strcmp(a1, "ino"), v);
	} else if (!strcmp(cmd, "summary") || !strcmp(cmd, "s")) {
		o_printf("tail %u head %u state %s; %zu records%s, %zu committed transactions\n",
		       x->lp->ht.tail_blk, x->lp->ht.head_blk,
		       x->lp->ht.tail_blk == x->lp->ht.head_blk ? "CLEAN" : "DIRTY",
		       x->nrec, x->whole ? " (whole log)" : " (live log)",
		       x->ntrans);
	} else {
		o_printf("unknown command '%s' (try help)\n", cmd);
	}
	return true;
}

int lp_explore(struct lp *lp)
{
	struct explorer x = { .lp = lp };
	char *line;
	int err;

	/* The explorer prints as it goes: no JSON, no big buffer. */
	lp->json = false;
	o_flush();
	err = build_index(&x);
	if (err) {
		fprintf(stderr, "xfsj-logprint: indexing the log: %s\n",
			xfsj_strerror(err));
		goto out;
	}
	o_printf("%zu records, %zu committed transactions; type help for commands\n",
	       x.nrec, x.ntrans);
	cur_ex = &x;
	rl_readline_name = "xfsj-logprint";
	rl_attempted_completion_function = complete;
	using_history();
	o_flush();
	while ((line = readline("logprint> ")) != NULL) {
		bool go_on;

		if (*line)
			add_history(line);
		go_on = run(&x, line);
		free(line);
		o_flush();
		if (!go_on)
			break;
	}
	cur_ex = NULL;
out:
	free(x.recs);
	free(x.trans);
	return err;
}
