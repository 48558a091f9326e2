#!/usr/bin/env python3
"""Compare the options of a tool's --help with its man page.

    optcheck.py HELPFILE MANPAGE

The options of --help: every -x or --long at the head of a line (after
spaces, a "/* ... */" label or a "[") and the ones listed after it with
commas.  The options of the man page: the tags of its OPTIONS section (the
line after each .TP, in every section) and its SYNOPSIS; an option of
--help may be described in the man page's text instead.  Prints what one
has and the other lacks; exits 1 when they differ.  Python 3 standard library only.
"""
import re
import sys

OPT = r'--?[A-Za-z][A-Za-z0-9-]*'


def help_opts(text):
    out = set()
    for line in text.splitlines():
        if line.lower().startswith('exit status'):
            break
        line = re.sub(r'^\s*/\*.*?\*/\s*', '', line)
        m = re.match(r'^\s*\[?((?:%s)(?:[ =][^,\]]*)?(?:,\s*(?:%s)(?:[ =][^,\]]*)?)*)' % (OPT, OPT), line)
        if not m:
            continue
        for tok in re.findall(r'(?:^|,\s*)(%s)' % OPT, m.group(1)):
            out.add(tok)
    return out


def man_opts(text):
    """(tags, all): the options the man page describes (the tags of its
    .TP paragraphs, its SYNOPSIS), and every option it names anywhere."""
    text = text.replace('\\-', '-')
    text = re.sub(r'\\f[BIRP]', '', text)
    tags = set()
    sect = None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith('.SH'):
            sect = line[3:].strip().strip('"')
            continue
        if sect == 'SYNOPSIS':
            tags.update(re.findall(r'(?:^\.BI? "?|\[)(%s)' % OPT, line))
        elif sect != 'SEE ALSO' and i > 0 and lines[i - 1].startswith('.TP'):
            tag = re.sub(r'^\.[A-Z]+\s*', '', line)
            tags.update(re.findall(r'(?:^|[\s",]|\[)(%s)' % OPT, tag))
    every = set(re.findall(r'(?:^|[\s"(\[,])(%s)' % OPT, text, re.M))
    return tags, every


def main(argv):
    h = help_opts(open(argv[0]).read())
    m, every = man_opts(open(argv[1]).read())
    bad = 0
    for o in sorted(h - every):
        print('in --help, not in the man page: %s' % o)
        bad = 1
    for o in sorted(m - h):
        print('in the man page, not in --help: %s' % o)
        bad = 1
    print('%d options' % len(h | m))
    return bad


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
