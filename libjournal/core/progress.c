/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Progress lines and objects (see xfsj/progress.h): the phase's rate so
 * far gives the time left; the form decides the wording and how often.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "xfsj/progress.h"

#define TERM_EVERY_MS	200
#define JSON_EVERY_MS	1000
/* An estimate needs this much of the phase behind it. */
#define ETA_AFTER_MS	1000

int64_t xfsj_progress_eta_s(const struct xfsj_progress *p, uint64_t now_ms)
{
	uint64_t el = now_ms - p->start_ms;

	if (!p->total || p->done >= p->total)
		return p->total ? 0 : -1;
	if (!p->done || el < ETA_AFTER_MS)
		return -1;
	return (int64_t)((double)el * (double)(p->total - p->done) /
			 (double)p->done / 1000.0 + 0.5);
}

/* Append to @buf at *@at, never past @len (the result stays a string). */
static void add(char *buf, size_t len, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*at >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at = *at + (size_t)n < len ? *at + (size_t)n : len - 1;
}

/* A phase name as a JSON string's contents: quotes and controls out. */
static void add_json_name(char *buf, size_t len, size_t *at, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f)
			add(buf, len, at, "\\u%04x", c);
		else
			add(buf, len, at, "%c", c);
	}
}

static void line(const struct xfsj_progress *p, uint64_t now_ms, char *buf,
		 size_t len, size_t *at)
{
	int64_t eta = xfsj_progress_eta_s(p, now_ms);

	if (p->form == XFSJ_PROGRESS_JSON) {
		add(buf, len, at, "{\"kind\":\"progress\",\"tool\":\"%s\","
		    "\"phase\":\"", p->tool);
		add_json_name(buf, len, at, p->phase);
		add(buf, len, at, "\",\"done\":%" PRIu64 ",\"total\":%" PRIu64
		    ",\"eta_s\":", p->done, p->total);
		if (eta < 0)
			add(buf, len, at, "null}\n");
		else
			add(buf, len, at, "%" PRId64 "}\n", eta);
		return;
	}
	add(buf, len, at, "\r\033[K%s: %s: %" PRIu64, p->tool, p->phase,
	    p->done);
	if (p->total)
		add(buf, len, at, "/%" PRIu64 " (%u%%)", p->total,
		    (unsigned int)(100 * (p->done < p->total ? p->done :
					  p->total) / p->total));
	if (p->done >= p->total && p->total)
		add(buf, len, at, ", %.1f s", (double)(now_ms - p->start_ms) /
		    1000.0);
	else if (eta >= 0)
		add(buf, len, at, ", about %" PRId64 " s left", eta);
}

size_t xfsj_progress_end(struct xfsj_progress *p, uint64_t now_ms, char *buf,
			 size_t len)
{
	size_t at = 0;

	if (len)
		buf[0] = 0;
	if (p->form == XFSJ_PROGRESS_OFF || !p->phase[0])
		return 0;
	if (p->form == XFSJ_PROGRESS_TERM) {
		line(p, now_ms, buf, len, &at);
		add(buf, len, &at, "\n");
	} else if (p->unsent) {
		line(p, now_ms, buf, len, &at);
	}
	p->phase[0] = 0;
	p->shown = false;
	return at;
}

size_t xfsj_progress_step(struct xfsj_progress *p, const char *phase,
			  uint64_t done, uint64_t total, uint64_t now_ms,
			  char *buf, size_t len)
{
	size_t at = 0;
	bool first = false;

	if (len)
		buf[0] = 0;
	if (p->form == XFSJ_PROGRESS_OFF)
		return 0;
	if (strncmp(p->phase, phase, sizeof(p->phase) - 1)) {
		at = xfsj_progress_end(p, now_ms, buf, len);
		snprintf(p->phase, sizeof(p->phase), "%s", phase);
		p->start_ms = now_ms;
		first = true;
	}
	if (!first && done == p->done && total == p->total)
		return at;
	p->done = done;
	p->total = total;
	p->unsent = true;
	if (!first && done != total &&
	    now_ms - p->last_ms < (p->form == XFSJ_PROGRESS_TERM ?
				   TERM_EVERY_MS : JSON_EVERY_MS))
		return at;
	p->last_ms = now_ms;
	p->unsent = false;
	line(p, now_ms, buf, len, &at);
	p->shown = p->form == XFSJ_PROGRESS_TERM;
	return at;
}

size_t xfsj_progress_clear(struct xfsj_progress *p, char *buf, size_t len)
{
	size_t at = 0;

	if (len)
		buf[0] = 0;
	if (p->form == XFSJ_PROGRESS_TERM && p->shown) {
		add(buf, len, &at, "\r\033[K");
		p->shown = false;
	}
	return at;
}
