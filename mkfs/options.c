/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Command line and configuration file of xfsj-mkfs, with mkfs.xfs's
 * spelling.  Sub-options are data: one table row per -X name=value with its
 * kind, range and where the value goes.  The same rows serve the INI file
 * given with -c options=FILE ([block] size=..., [metadata] rmapbt=..., ...),
 * whose values the command line then overrides.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <ini.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "mkfs.h"

enum kind {
	K_BOOL,		/* 0 or 1; a bare name means 1 */
	K_U32,		/* plain number */
	K_SIZE32,	/* size with unit suffix, stored in a u32 */
	K_SIZE64,	/* size with unit suffix, stored in a u64 */
	K_SPECIAL,	/* handled in set_special() */
};

enum special {
	S_NONE, S_DNAME, S_DFILE, S_NOALIGN, S_LINTERNAL, S_LVERSION,
	S_LOGDEV, S_CRC, S_UUID, S_METADIR, S_NVERSION, S_RTDEV, S_IALIGN,
	S_ATTR, S_PROJID32, S_LAZY, S_DSU, S_DSW, S_DSUNIT, S_DSWIDTH,
	S_LSU, S_LSUNIT, S_LAGNUM, S_IMAXPCT, S_AUTOFSCK, S_REXTSIZE,
};

struct subopt {
	char opt;
	const char *name;
	enum kind kind;
	size_t off;		/* into struct mkfs_cli */
	enum special special;
	uint64_t min, max;
};

#define REQ(field)	offsetof(struct mkfs_cli, req.field)
#define FEAT(field)	offsetof(struct mkfs_cli, req.feat.field)
#define CLI(field)	offsetof(struct mkfs_cli, field)

static const struct subopt subopts[] = {
	{ 'b', "size",      K_SIZE32, REQ(blocksize), S_NONE, 1024, 65536 },
	{ 'd', "size",      K_SIZE64, REQ(dsize), S_NONE, 1, UINT64_MAX },
	{ 'd', "agcount",   K_U32, REQ(agcount), S_NONE, 1, UINT32_MAX },
	{ 'd', "agsize",    K_SIZE64, REQ(agsize), S_NONE, 1, UINT64_MAX },
	{ 'd', "su",        K_SPECIAL, 0, S_DSU, 0, UINT32_MAX },
	{ 'd', "sw",        K_SPECIAL, 0, S_DSW, 0, UINT32_MAX },
	{ 'd', "sunit",     K_SPECIAL, 0, S_DSUNIT, 0, UINT32_MAX },
	{ 'd', "swidth",    K_SPECIAL, 0, S_DSWIDTH, 0, UINT32_MAX },
	{ 'd', "name",      K_SPECIAL, 0, S_DNAME, 0, 0 },
	{ 'd', "file",      K_SPECIAL, 0, S_DFILE, 0, 1 },
	{ 'd', "noalign",   K_SPECIAL, 0, S_NOALIGN, 0, 1 },
	{ 'd', "extszinherit", K_U32, CLI(extszinherit), S_NONE, 0, 2097151 },
	{ 'd', "daxinherit", K_BOOL, CLI(daxinherit), S_NONE, 0, 1 },
	{ 'i', "size",      K_SIZE32, REQ(inodesize), S_NONE, 256, 2048 },
	{ 'i', "maxpct",    K_SPECIAL, 0, S_IMAXPCT, 0, 100 },
	{ 'i', "sparse",    K_BOOL, FEAT(sparse), S_NONE, 0, 1 },
	{ 'i', "nrext64",   K_BOOL, FEAT(nrext64), S_NONE, 0, 1 },
	{ 'i', "exchange",  K_BOOL, FEAT(exchange), S_NONE, 0, 1 },
	{ 'i', "align",     K_SPECIAL, 0, S_IALIGN, 0, 1 },
	{ 'i', "attr",      K_SPECIAL, 0, S_ATTR, 0, 2 },
	{ 'i', "projid32bit", K_SPECIAL, 0, S_PROJID32, 0, 1 },
	{ 'l', "size",      K_SIZE64, REQ(logsize), S_NONE, 2 << 20, UINT64_MAX },
	{ 'l', "su",        K_SPECIAL, 0, S_LSU, 0, UINT32_MAX },
	{ 'l', "sunit",     K_SPECIAL, 0, S_LSUNIT, 0, UINT32_MAX },
	{ 'l', "internal",  K_SPECIAL, 0, S_LINTERNAL, 0, 1 },
	{ 'l', "version",   K_SPECIAL, 0, S_LVERSION, 1, 2 },
	{ 'l', "logdev",    K_SPECIAL, 0, S_LOGDEV, 0, 0 },
	{ 'l', "agnum",     K_SPECIAL, 0, S_LAGNUM, 0, UINT32_MAX },
	{ 'l', "lazy-count", K_SPECIAL, 0, S_LAZY, 0, 1 },
	{ 'm', "crc",       K_SPECIAL, 0, S_CRC, 0, 1 },
	{ 'm', "finobt",    K_BOOL, FEAT(finobt), S_NONE, 0, 1 },
	{ 'm', "rmapbt",    K_BOOL, FEAT(rmapbt), S_NONE, 0, 1 },
	{ 'm', "reflink",   K_BOOL, FEAT(reflink), S_NONE, 0, 1 },
	{ 'm', "bigtime",   K_BOOL, FEAT(bigtime), S_NONE, 0, 1 },
	{ 'm', "inobtcount", K_BOOL, FEAT(inobtcount), S_NONE, 0, 1 },
	{ 'm', "uuid",      K_SPECIAL, 0, S_UUID, 0, 0 },
	{ 'm', "metadir",   K_SPECIAL, 0, S_METADIR, 0, 1 },
	{ 'm', "autofsck",  K_SPECIAL, 0, S_AUTOFSCK, 0, 1 },
	/* Where xfsprogs 6.1's lts_*.conf files (Debian 12's) put it. */
	{ 'm', "nrext64",   K_BOOL, FEAT(nrext64), S_NONE, 0, 1 },
	{ 'n', "size",      K_SIZE32, REQ(dirblocksize), S_NONE, 4096, 65536 },
	{ 'n', "ftype",     K_BOOL, FEAT(ftype), S_NONE, 0, 1 },
	{ 'n', "parent",    K_BOOL, FEAT(parent), S_NONE, 0, 1 },
	{ 'n', "version",   K_SPECIAL, 0, S_NVERSION, 0, 0 },
	{ 's', "size",      K_SIZE32, REQ(sectsize), S_NONE, 512, 32768 },
	{ 'r', "rtdev",     K_SPECIAL, 0, S_RTDEV, 0, 0 },
	{ 'r', "size",      K_SPECIAL, 0, S_RTDEV, 0, 0 },
	{ 'r', "extsize",   K_SPECIAL, 0, S_REXTSIZE, 0, 0 },
};

/* INI section names of mkfs.xfs's configuration files. */
static const struct { const char *section; char opt; } sections[] = {
	{ "block", 'b' }, { "data", 'd' }, { "inode", 'i' }, { "log", 'l' },
	{ "metadata", 'm' }, { "naming", 'n' }, { "realtime", 'r' },
	{ "sector", 's' },
};

struct parse_state {
	struct mkfs_cli *cli;
	uint32_t blocksize;	/* for the "b" unit */
	uint32_t sectsize;	/* for the "s" unit */
	bool dsu_given, dsw_given, dsunit_given, dswidth_given;
	bool linternal_given, lagnum_given;
	uint64_t linternal;	/* -l internal=, when given */
};

/* A usage error: the synopsis and where the rest is. */
static void mkfs_short_usage(void)
{
	fputs("Usage: xfsj-mkfs [options] device\n"
	      "Try 'xfsj-mkfs --help' for more information.\n", stderr);
}

void mkfs_usage(FILE *out)
{
	fputs(
"Usage: xfsj-mkfs [options] device\n"
"Format a block device or a regular file as a v5 XFS filesystem.\n"
"\n"
"/* blocksize */    [-b size=num]\n"
"/* config file */  [-c options=xxx]\n"
"/* data subvol */  [-d agcount=n,agsize=n,file,name=xxx,size=num,\n"
"                       (sunit=value,swidth=value|su=num,sw=num|noalign),\n"
"                       extszinherit=n,daxinherit=0|1]\n"
"/* force overwrite */ [-f]\n"
"/* inode size */   [-i size=num,maxpct=n,sparse=0|1,nrext64=0|1,exchange=0|1]\n"
"/* no discard */   [-K]\n"
"/* log subvol */   [-l size=num,internal=1,su=num,sunit=num,agnum=n,version=2]\n"
"/* external log */ [-l logdev=xxx,size=num,su=num,sunit=num]\n"
"/* label */        [-L label (maximum 12 characters)]\n"
"/* metadata */     [-m crc=1,finobt=0|1,rmapbt=0|1,reflink=0|1,bigtime=0|1,\n"
"                       inobtcount=0|1,uuid=xxx,autofsck=0|1|none|check|\n"
"                       optimize|repair]\n"
"/* naming */       [-n size=num,ftype=1,parent=0|1]\n"
"/* no-op info only */ [-N]\n"
"/* prototype */    [-p [file=]DIR|PROTOFILE]  copy the tree at DIR (owners,\n"
"                   modes, times, xattrs, ACLs, hard links) or the one a\n"
"                   mkfs.xfs protofile describes into the new filesystem;\n"
"                   SOURCE_DATE_EPOCH clamps times: reproducible images\n"
"/* quiet */        [-q]\n"
"/* realtime */     [-r extsize=num]  recorded in the superblock only: no\n"
"                   realtime device\n"
"/* sectorsize */   [-s size=num]\n"
"/* version */      [-V]\n"
"/* small fs */     [--small]  allow filesystems below 300 MB with the\n"
"                   absolute minimum log (not supported by mkfs.xfs)\n"
"/* progress */     [--progress]  progress as JSON Lines on stderr (on a\n"
"                   terminal without it: a line per phase, time left)\n"
"\n"
"Sizes take the suffixes k, m, g, t, p, e (powers of 1024), b (filesystem\n"
"blocks) and s (sectors).  With -l logdev= the log is on that device: all\n"
"of it, or size= of it (at least 64 MiB, at most 2 GiB less 10 MiB); mount\n"
"with -o logdev=.  Not supported: realtime devices, v4 (crc=0) filesystems,\n"
"metadir.\n"
"Exit status:\n"
"  0   success\n"
"  1   failure: bad option or value, refused device, I/O error\n",
		out);
}

static int bad_value(const struct subopt *s, const char *val)
{
	fprintf(stderr, "xfsj-mkfs: illegal value '%s' for -%c %s option\n",
		val ? val : "", s->opt, s->name);
	return -1;
}

/* A number with an optional unit suffix. */
static int parse_size(const struct parse_state *ps, const char *val,
		      bool allow_units, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	if (!val || !*val || !isdigit((unsigned char)*val))
		return -1;
	errno = 0;
	v = strtoull(val, &end, 0);
	if (errno)
		return -1;
	if (*end) {
		if (!allow_units || end[1])
			return -1;
		switch (tolower((unsigned char)*end)) {
		case 'k': mult = 1ULL << 10; break;
		case 'm': mult = 1ULL << 20; break;
		case 'g': mult = 1ULL << 30; break;
		case 't': mult = 1ULL << 40; break;
		case 'p': mult = 1ULL << 50; break;
		case 'e': mult = 1ULL << 60; break;
		case 'b': mult = ps->blocksize; break;
		case 's': mult = ps->sectsize; break;
		default: return -1;
		}
	}
	if (mult && v > UINT64_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

/* -l logdev= against the options of an internal log, as mkfs.xfs. */
static int check_log_opts(const struct parse_state *ps)
{
	const struct mkfs_cli *cli = ps->cli;

	if (cli->logdev && ps->linternal_given) {
		fprintf(stderr, "xfsj-mkfs: Cannot specify both -l logdev and -l internal\n");
		return -1;
	}
	if (cli->logdev && ps->lagnum_given) {
		fprintf(stderr, "xfsj-mkfs: Cannot specify both -l logdev and -l agnum\n");
		return -1;
	}
	if (!cli->logdev && ps->linternal_given && !ps->linternal) {
		fprintf(stderr, "xfsj-mkfs: no log subvolume or external log: -l internal=0 needs -l logdev=\n");
		return -1;
	}
	return 0;
}

static int set_special(struct parse_state *ps, const struct subopt *s,
		       const char *val)
{
	struct mkfs_cli *cli = ps->cli;
	struct xfsj_mkfs_req *r = &cli->req;
	uint64_t v = 0;
	bool numeric = val && parse_size(ps, val, true, &v) == 0;

	switch (s->special) {
	case S_DNAME:
		if (!val || !*val)
			return bad_value(s, val);
		cli->device = val;
		return 0;
	case S_DFILE:
		cli->dfile = !val || (numeric && v);
		return 0;
	case S_NOALIGN:
		r->dsu_set = true;
		r->dsu = 0;
		r->dsw = 0;
		return 0;
	case S_DSU:
		if (!numeric)
			return bad_value(s, val);
		r->dsu_set = true;
		r->dsu = v;
		ps->dsu_given = true;
		return 0;
	case S_DSW:
		if (!val || parse_size(ps, val, false, &v) || v > UINT32_MAX)
			return bad_value(s, val);
		r->dsu_set = true;
		r->dsw = (uint32_t)v;
		ps->dsw_given = true;
		return 0;
	case S_DSUNIT:
	case S_DSWIDTH:
		if (!val || parse_size(ps, val, false, &v) || v > UINT32_MAX)
			return bad_value(s, val);
		r->dsunit_set = true;
		if (s->special == S_DSUNIT) {
			r->dsunit = (uint32_t)v;
			ps->dsunit_given = true;
		} else {
			r->dswidth = (uint32_t)v;
			ps->dswidth_given = true;
		}
		return 0;
	case S_LSU:
		if (!numeric)
			return bad_value(s, val);
		r->lsu_set = true;
		r->lsu = v;
		return 0;
	case S_LSUNIT:
		if (!val || parse_size(ps, val, false, &v) || v > UINT32_MAX)
			return bad_value(s, val);
		r->lsunit_set = true;
		r->lsunit = (uint32_t)v;
		return 0;
	case S_LAGNUM:
		if (!val || parse_size(ps, val, false, &v) || v > UINT32_MAX)
			return bad_value(s, val);
		r->logagno = (int64_t)v;
		ps->lagnum_given = true;
		return 0;
	case S_IMAXPCT:
		if (!val || parse_size(ps, val, false, &v) || v > 100)
			return bad_value(s, val);
		r->imaxpct_set = true;
		r->imaxpct = (uint32_t)v;
		return 0;
	case S_LINTERNAL:
		if (val && (!numeric || v > 1))
			return bad_value(s, val);
		/* internal=0 asks for -l logdev=, checked once all are read. */
		ps->linternal_given = true;
		ps->linternal = val ? v : 1;
		return 0;
	case S_LOGDEV:
		if (!val || !*val)
			return bad_value(s, val);
		cli->logdev = val;
		r->logdev = true;
		return 0;
	case S_LVERSION:
		if (!numeric || v != 2) {
			fprintf(stderr, "xfsj-mkfs: only version 2 logs are supported\n");
			return -1;
		}
		return 0;
	case S_LAZY:
	case S_IALIGN:
	case S_PROJID32:
		/* Always on for v5; turning them off is a v4 thing. */
		if (val && (!numeric || v != 1)) {
			fprintf(stderr, "xfsj-mkfs: -%c %s=0 is only valid for v4 filesystems, which are not supported\n",
				s->opt, s->name);
			return -1;
		}
		return 0;
	case S_ATTR:
		if (val && (!numeric || v != 2)) {
			fprintf(stderr, "xfsj-mkfs: only attr=2 is supported\n");
			return -1;
		}
		return 0;
	case S_CRC:
		if (val && (!numeric || v != 1)) {
			fprintf(stderr, "xfsj-mkfs: v4 (crc=0) filesystems are not supported\n");
			return -1;
		}
		return 0;
	case S_METADIR:
		if (val && (!numeric || v != 0)) {
			fprintf(stderr, "xfsj-mkfs: metadir is not supported by this version\n");
			return -1;
		}
		return 0;
	case S_UUID:
		if (!val || uuid_parse(val, cli->uuid)) {
			if (val && !strcmp(val, "generate")) {
				cli->uuid_set = false;
				return 0;
			}
			return bad_value(s, val);
		}
		cli->uuid_set = true;
		return 0;
	case S_NVERSION:
		if (val && (!strcmp(val, "2")))
			return 0;
		fprintf(stderr, "xfsj-mkfs: only naming version 2 is supported (no ascii-ci)\n");
		return -1;
	case S_RTDEV:
		fprintf(stderr, "xfsj-mkfs: realtime devices are not supported by this version\n");
		return -1;
	case S_REXTSIZE:
		/* Without a realtime device: recorded in the superblock. */
		if (!numeric || !v)
			return bad_value(s, val);
		r->rextsize = v;
		return 0;
	case S_AUTOFSCK: {
		/* The property xfs_scrub_all reads: 1 is repair, 0 none. */
		static const char *const names[] = { "none", "check",
						      "optimize", "repair" };

		if (!val || (numeric && v <= 1)) {
			cli->autofsck = val && !v ? "none" : "repair";
			return 0;
		}
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(val, names[i])) {
				cli->autofsck = names[i];
				return 0;
			}
		return bad_value(s, val);
	}
	case S_NONE:
		break;
	}
	return bad_value(s, val);
}

static int set_one(struct parse_state *ps, char opt, const char *name,
		   const char *val)
{
	const struct subopt *s = NULL;
	uint64_t v;
	char *base = (char *)ps->cli;

	for (size_t i = 0; i < sizeof(subopts) / sizeof(subopts[0]); i++)
		if (subopts[i].opt == opt && !strcmp(subopts[i].name, name))
			s = &subopts[i];
	if (!s) {
		fprintf(stderr, "xfsj-mkfs: unknown suboption '%s' for -%c\n",
			name, opt);
		return -1;
	}
	switch (s->kind) {
	case K_BOOL:
		if (!val) {
			v = 1;
		} else if (parse_size(ps, val, false, &v) || v > 1) {
			return bad_value(s, val);
		}
		*(bool *)(base + s->off) = v != 0;
		return 0;
	case K_U32:
		if (!val || parse_size(ps, val, false, &v) || v < s->min ||
		    v > s->max)
			return bad_value(s, val);
		*(uint32_t *)(base + s->off) = (uint32_t)v;
		return 0;
	case K_SIZE32:
	case K_SIZE64:
		if (!val || parse_size(ps, val, true, &v) || v < s->min ||
		    v > s->max)
			return bad_value(s, val);
		if (s->kind == K_SIZE32)
			*(uint32_t *)(base + s->off) = (uint32_t)v;
		else
			*(uint64_t *)(base + s->off) = v;
		return 0;
	case K_SPECIAL:
		return set_special(ps, s, val);
	}
	return -1;
}

/* "a=1,b,c=2": each comma-separated item through set_one(). */
static int set_list(struct parse_state *ps, char opt, char *list)
{
	char *save = NULL;

	for (char *item = strtok_r(list, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');

		if (eq)
			*eq++ = 0;
		if (set_one(ps, opt, item, eq))
			return -1;
	}
	return 0;
}

static int config_line(void *user, const char *section, const char *name,
		       const char *value)
{
	struct parse_state *ps = user;

	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		if (strcasecmp(section, sections[i].section))
			continue;
		/* inih keeps the value only for this call. */
		return set_one(ps, sections[i].opt, name,
			       value && *value ? strdup(value) : NULL) == 0;
	}
	fprintf(stderr, "xfsj-mkfs: unknown section [%s] in config file\n",
		section);
	return 0;
}

/* Where mkfs.xfs keeps the configuration files it ships. */
#define XFSPROGS_CONF_DIR "/usr/share/xfsprogs/mkfs"

static int load_config(struct parse_state *ps, const char *path)
{
	static char shipped[4096];
	int rc;

	/* A bare name not in this directory: one xfsprogs ships, as mkfs.xfs. */
	if (!strchr(path, '/') && access(path, F_OK) &&
	    (size_t)snprintf(shipped, sizeof(shipped), "%s/%s",
			     XFSPROGS_CONF_DIR, path) < sizeof(shipped))
		path = shipped;
	rc = ini_parse(path, config_line, ps);

	if (rc < 0) {
		fprintf(stderr, "xfsj-mkfs: cannot open config file %s\n", path);
		return -1;
	}
	if (rc > 0) {
		fprintf(stderr, "xfsj-mkfs: config file %s: error at line %d\n",
			path, rc);
		return -1;
	}
	return 0;
}

int mkfs_parse_args(int argc, char **argv, struct mkfs_cli *cli)
{
	static const struct option longopts[] = {
		{ "small", no_argument, NULL, 'S' },
		{ "progress", no_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct parse_state ps = { .cli = cli, .blocksize = 4096,
				  .sectsize = 512 };
	int c;

	memset(cli, 0, sizeof(*cli));
	xfsj_mkfs_req_init(&cli->req);

	/*
	 * First pass: the config file (defaults that the command line
	 * overrides) and the block and sector sizes that the "b" and "s"
	 * units depend on.
	 */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "b:c:d:i:l:L:m:n:p:r:s:fhKNqV",
				longopts, NULL)) != -1) {
		char *copy;
		uint64_t v;

		if ((c != 'b' && c != 's' && c != 'c') || !optarg)
			continue;
		copy = strdup(optarg);
		for (char *t = strtok(copy, ","); t; t = strtok(NULL, ",")) {
			if (c == 'c' && !strncmp(t, "options=", 8))
				cli->config = optarg + (t - copy) + 8;
			if (c != 'c' && !strncmp(t, "size=", 5) &&
			    !parse_size(&ps, t + 5, true, &v) && v <= 65536) {
				if (c == 'b')
					ps.blocksize = (uint32_t)v;
				else
					ps.sectsize = (uint32_t)v;
			}
		}
		free(copy);
	}
	if (cli->config) {
		char *p = strchr(cli->config, ',');

		if (p)
			cli->config = strndup(cli->config, (size_t)(p - cli->config));
		if (load_config(&ps, cli->config))
			return -1;
	}

	optind = 1;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "b:c:d:i:l:L:m:n:p:r:s:fhKNqV",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'b': case 'd': case 'i': case 'l': case 'm': case 'n':
		case 'r': case 's':
			if (set_list(&ps, (char)c, strdup(optarg)))
				return -1;
			break;
		case 'c':
			break;	/* handled above */
		case 'p':
			cli->proto = strncmp(optarg, "file=", 5) ? optarg :
				     optarg + 5;
			break;
		case 'L':
			if (strlen(optarg) > 12) {
				fprintf(stderr, "xfsj-mkfs: label %s is too long (maximum 12 characters)\n",
					optarg);
				return -1;
			}
			snprintf(cli->label, sizeof(cli->label), "%s", optarg);
			break;
		case 'f': cli->force = true; break;
		case 'K': cli->nodiscard = true; break;
		case 'N': cli->dry_run = true; break;
		case 'q': cli->quiet = true; break;
		case 'G': cli->progress = true; break;
		case 'S': cli->req.small = true; break;
		case 'V':
			printf("xfsj-mkfs version %s\n", PACKAGE_VERSION);
			exit(0);
		case 'h':
			mkfs_usage(stdout);
			exit(0);
		default:
			mkfs_short_usage();
			return -1;
		}
	}
	if (ps.dsu_given != ps.dsw_given && cli->req.dsu) {
		fprintf(stderr, "xfsj-mkfs: both data su and data sw options must be specified\n");
		return -1;
	}
	if (ps.dsunit_given != ps.dswidth_given) {
		fprintf(stderr, "xfsj-mkfs: both data sunit and data swidth options must be specified\n");
		return -1;
	}
	if (cli->req.dsu_set && cli->req.dsunit_set && cli->req.dsu) {
		fprintf(stderr, "xfsj-mkfs: -d su/sw and sunit/swidth are mutually exclusive\n");
		return -1;
	}
	if (check_log_opts(&ps))
		return -1;
	cli->req.root_attr = cli->autofsck != NULL;
	if (optind < argc) {
		if (cli->device && strcmp(cli->device, argv[optind])) {
			fprintf(stderr, "xfsj-mkfs: cannot specify both -d name=%s and %s\n",
				cli->device, argv[optind]);
			return -1;
		}
		cli->device = argv[optind++];
	}
	if (optind < argc) {
		fprintf(stderr, "xfsj-mkfs: extra argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!cli->device) {
		fprintf(stderr, "xfsj-mkfs: no device name given\n");
		mkfs_short_usage();
		return -1;
	}
	if (cli->dfile && !cli->req.dsize) {
		/* -d file without size: the file must exist and has a size. */
	}
	return 0;
}
