/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel that will mount the new filesystem: the features it cannot
 * mount (its release is older than the one each needs), and the
 * configuration file of mkfs.xfs (lts_*.conf) that fits it.  mkfs.xfs does
 * not say; a filesystem with features the running kernel does not know
 * would fail to mount with a terse kernel message.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "mkfs.h"

#define F(name) #name, offsetof(struct xfsj_features, name)

/*
 * The first kernel release that mounts each feature (major, minor), and
 * the option that turns it off.  @late: newer than xfsprogs 6.1, whose
 * lts_*.conf files (Debian 12's) leave it at the default: the advice
 * spells it out.
 */
static const struct {
	const char *name;
	size_t off;		/* of its bool in struct xfsj_features */
	unsigned int major, minor;
	char opt;
	bool late;
} needs[] = {
	{ F(finobt),     3, 16, 'm', false },
	{ F(sparse),     4, 2,  'i', false },
	{ F(rmapbt),     4, 8,  'm', false },
	{ F(reflink),    4, 9,  'm', false },
	{ F(bigtime),    5, 10, 'm', false },
	{ F(inobtcount), 5, 10, 'm', false },
	{ F(nrext64),    5, 19, 'i', false },
	{ F(exchange),   6, 10, 'i', true },
	{ F(parent),     6, 10, 'n', true },
};

/* The long-term releases xfsprogs ships a configuration file for. */
static const struct { unsigned int major, minor; } lts[] = {
	{ 4, 19 }, { 5, 4 }, { 5, 10 }, { 5, 15 }, { 6, 1 }, { 6, 6 },
	{ 6, 12 },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static bool older(unsigned int ma, unsigned int mi, unsigned int mb,
		  unsigned int nb)
{
	return ma < mb || (ma == mb && mi < nb);
}

void mkfs_kernel_check(FILE *out, const struct xfsj_features *f)
{
	const char *rel = getenv("XFSJ_TEST_KERNEL_RELEASE");
	unsigned int ma, mi, need_ma = 0, need_mi = 0;
	struct utsname u;
	char names[256] = "", offs[256] = "";
	size_t i, k = 0;

	if (!rel || !*rel) {
		if (uname(&u))
			return;
		rel = u.release;
	}
	if (sscanf(rel, "%u.%u", &ma, &mi) != 2)
		return;
	for (i = 0; i < N(needs); i++) {
		if (!*(const bool *)((const char *)f + needs[i].off) ||
		    !older(ma, mi, needs[i].major, needs[i].minor))
			continue;
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", names[0] ? ", " : "", needs[i].name);
		if (needs[i].late)
			snprintf(offs + strlen(offs), sizeof(offs) - strlen(offs),
				 " -%c %s=0", needs[i].opt, needs[i].name);
		if (older(need_ma, need_mi, needs[i].major, needs[i].minor)) {
			need_ma = needs[i].major;
			need_mi = needs[i].minor;
		}
	}
	if (!names[0])
		return;
	/* The newest long-term release not newer than this kernel. */
	for (i = 0; i < N(lts); i++)
		if (!older(ma, mi, lts[i].major, lts[i].minor))
			k = i;
	fprintf(out, "xfsj-mkfs: warning: the running kernel %u.%u cannot mount %s (%u.%u or newer needed); for it: -c options=lts_%u.%u.conf%s\n",
		ma, mi, names, need_ma, need_mi, lts[k].major, lts[k].minor,
		offs);
}
