/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Progress of a long run, per phase, with an estimate of the time left,
 * worded for the tools (the library only formats: the tool writes the
 * text to its stderr).  Three forms:
 * - TERM, for a terminal: one line per phase, redrawn in place (at most
 *   five times a second) and ended with a newline when the phase ends or
 *   the next begins;
 * - JSON, for scripts (--progress): JSON Lines, one object per update
 *   (a phase's first and last, and at least one a second between),
 *   {"kind":"progress","tool":T,"phase":P,"done":N,"total":N,"eta_s":N},
 *   eta_s null while unknown; never a terminal escape;
 * - OFF: nothing.
 */
#ifndef XFSJ_PROGRESS_H
#define XFSJ_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum xfsj_progress_form {
	XFSJ_PROGRESS_OFF,
	XFSJ_PROGRESS_TERM,
	XFSJ_PROGRESS_JSON,
};

struct xfsj_progress {
	enum xfsj_progress_form form;
	const char *tool;		/* "xfsj-repair: " prefix, JSON "tool" */
	char phase[64];			/* the current phase; "" none */
	uint64_t start_ms, last_ms;
	uint64_t done, total;
	bool shown;			/* TERM: a line is up, not ended */
	bool unsent;			/* the last step not written yet */
};

/*
 * @done of @total (0: not known) of @phase at @now_ms (a monotonic
 * clock).  The text to write goes to @buf (NUL-terminated); returns its
 * length, 0 when nothing is due.  A phase named differently from the
 * last one ends that one first.
 */
size_t xfsj_progress_step(struct xfsj_progress *p, const char *phase,
			  uint64_t done, uint64_t total, uint64_t now_ms,
			  char *buf, size_t len);
/* End the current phase (TERM: its line, as it stands, and a newline). */
size_t xfsj_progress_end(struct xfsj_progress *p, uint64_t now_ms, char *buf,
			 size_t len);
/* TERM: erase the line before other output (redrawn at the next step). */
size_t xfsj_progress_clear(struct xfsj_progress *p, char *buf, size_t len);
/* Seconds left at the rate so far, or -1 when not known yet. */
int64_t xfsj_progress_eta_s(const struct xfsj_progress *p, uint64_t now_ms);

#endif
