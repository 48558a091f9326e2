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

void o_write(const char *s, size_t n)
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

void o_s(const char *s)
{
	o_write(s, strlen(s));
}

void o_u(uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char t[24];
	int i = 24;

	if (v < 10 && o_n < O_CAP) {
		o_buf[o_n++] = (char)('0' + v);
		return;
	}
	while (v >= 100) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		t[--i] = pairs[2 * r + 1];
		t[--i] = pairs[2 * r];
	}
	if (v >= 10) {
		t[--i] = pairs[2 * v + 1];
		t[--i] = pairs[2 * v];
	} else {
		t[--i] = (char)('0' + v);
	}
	o_write(t + i, (size_t)(24 - i));
}

void o_d(int64_t v)
{
	if (v < 0) {
		o_c('-');
		o_u((uint64_t)0 - (uint64_t)v);
	} else {
		o_u((uint64_t)v);
	}
}

void o_x(uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char t[16];
	int i = 16;

	do {
		t[--i] = hex[v & 15];
		v >>= 4;
	} while (v);
	o_write(t + i, (size_t)(16 - i));
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
