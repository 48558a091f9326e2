/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Output: one 1 MiB buffer written to stdout in large pieces, and number
 * formatting by hand.  A busy log gives millions of lines, and printf's
 * format parsing was most of logprint's time; what is printed per item
 * is fixed, so it is cheaper to spell it out.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "logprint.h"

char o_buf[O_CAP];
size_t o_n;
static int o_err;

void o_flush(void)
{
	size_t done = 0;

	while (done < o_n) {
		ssize_t w = write(STDOUT_FILENO, o_buf + done, o_n - done);

		if (w <= 0) {
			o_err = 1;
			break;
		}
		done += (size_t)w;
	}
	o_n = 0;
}

int o_error(void)
{
	return o_err;
}

void o_write_slow(const char *s, size_t n)
{
	if (n > O_CAP - o_n) {
		o_flush();
		if (n > O_CAP) {
			ssize_t w;

			while (n) {
				w = write(STDOUT_FILENO, s, n);
				if (w <= 0) {
					o_err = 1;
					return;
				}
				s += w;
				n -= (size_t)w;
			}
			return;
		}
	}
	memcpy(o_buf + o_n, s, n);
	o_n += n;
}

/* o_u() when the buffer is nearly full. */
void o_u_slow(uint64_t v)
{
	char t[24];
	int i = 24;

	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	o_write(t + i, (size_t)(24 - i));
}

void o_printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (O_CAP - o_n < 1024)
		o_flush();
	va_start(ap, fmt);
	n = vsnprintf(o_buf + o_n, O_CAP - o_n, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < O_CAP - o_n) {
		o_n += (size_t)n;
		return;
	}
	/* Longer than what is left: format again into a buffer of its own. */
	{
		char *big = malloc((size_t)n + 1);

		if (!big)
			return;
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		o_write(big, (size_t)n);
		free(big);
	}
}
