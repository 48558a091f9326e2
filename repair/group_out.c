/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The problems of one check as a person reads them: each root problem in
 * one line, and under it what follows from it (problems whose cause, set
 * by the check, is that root) as one count line, or with -v one indented
 * line each.  The text is held until the check ends (a consequence is
 * found after its cause); a root keeps its line, a consequence only a
 * count of its code unless -v asks for its line too.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repair.h"

/* How many problems of one code follow from a root. */
struct code_count {
	const char *code;
	uint64_t n;
};

struct group_root {
	uint64_t id;
	char *line;			/* "code: message" */
	struct code_count *cc;		/* in the order first seen */
	size_t ncc, capcc;
	char **sub;			/* -v: the consequences' lines */
	size_t nsub, capsub;
};

int tool_grow(void *arrp, size_t *cap, size_t n, size_t esz)
{
	void **p = arrp;
	size_t c = *cap ? *cap * 2 : 16;
	void *v;

	if (n < *cap)
		return 0;
	if (c < *cap || c > SIZE_MAX / esz)
		return -1;
	v = realloc(*p, c * esz);
	if (!v)
		return -1;
	*p = v;
	*cap = c;
	return 0;
}

static char *problem_line(const struct xfsj_problem *p)
{
	char msg[512], *s;
	size_t n;

	xfsj_problem_format(p, msg, sizeof(msg));
	n = strlen(p->def->code) + 2 + strlen(msg) + 1;
	s = malloc(n);
	if (s)
		snprintf(s, n, "%s: %s", p->def->code, msg);
	return s;
}

/* The root of number @id, or NULL (roots are added in number order). */
static struct group_root *find_root(struct problem_group *g, uint64_t id)
{
	size_t lo = 0, hi = g->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->roots[mid].id == id)
			return &g->roots[mid];
		if (g->roots[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void print_now(const struct problem_group *g, const char *line)
{
	if (g->tag)
		printf("%s: %s\n", g->tag, line);
	else
		printf("%s\n", line);
}

static int add_consequence(struct problem_group *g, struct group_root *r,
			   const struct xfsj_problem *p)
{
	size_t i;

	for (i = 0; i < r->ncc; i++)
		if (r->cc[i].code == p->def->code)
			break;
	if (i == r->ncc) {
		if (tool_grow(&r->cc, &r->capcc, r->ncc, sizeof(*r->cc)))
			return -1;
		r->cc[r->ncc++] = (struct code_count){ p->def->code, 0 };
	}
	r->cc[i].n++;
	if (g->verbose) {
		char *s = problem_line(p);

		if (!s || tool_grow(&r->sub, &r->capsub, r->nsub,
				    sizeof(*r->sub))) {
			free(s);
			return -1;
		}
		r->sub[r->nsub++] = s;
	}
	return 0;
}

void group_add(struct problem_group *g, const struct xfsj_problem *p)
{
	struct group_root *r = NULL;
	char *s;

	if (p->has & XFSJ_PF_CAUSE)
		r = find_root(g, p->cause);
	if (r) {
		if (add_consequence(g, r, p) == 0)
			return;
		s = problem_line(p);	/* out of memory: said at once */
		if (s)
			print_now(g, s);
		free(s);
		return;
	}
	s = problem_line(p);
	if (!s || tool_grow(&g->roots, &g->cap, g->n, sizeof(*g->roots))) {
		if (s)
			print_now(g, s);
		free(s);
		return;
	}
	g->roots[g->n++] = (struct group_root){ .id = p->id, .line = s };
}

static void print_counts(const struct group_root *r)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < r->ncc; i++)
		total += r->cc[i].n;
	printf("  (+%" PRIu64 " consequence%s: ", total, total == 1 ? "" : "s");
	for (i = 0; i < r->ncc; i++)
		printf("%s%s x%" PRIu64, i ? ", " : "", r->cc[i].code,
		       r->cc[i].n);
	printf("; -v shows them)\n");
}

void group_flush(struct problem_group *g)
{
	size_t i, k;

	for (i = 0; i < g->n; i++) {
		struct group_root *r = &g->roots[i];

		print_now(g, r->line);
		if (r->ncc && !g->verbose)
			print_counts(r);
		for (k = 0; k < r->nsub; k++) {
			printf("  %s\n", r->sub[k]);
			free(r->sub[k]);
		}
		free(r->sub);
		free(r->cc);
		free(r->line);
	}
	free(g->roots);
	g->roots = NULL;
	g->n = g->cap = 0;
	fflush(stdout);
}
