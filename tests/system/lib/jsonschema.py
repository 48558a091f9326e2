#!/usr/bin/env python3
"""Validate JSON Lines of an xfsj tool against doc/json-schema.json.

    jsonschema.py SCHEMA TOOL STREAM FILE... [--mixed] [--need KIND,...]

Every line of each FILE must be one JSON object of a kind the schema lists
for TOOL's STREAM (stdout, stderr), with its required keys, no key it does
not list (unless the kind is open), and each value of its type.  --mixed:
lines that do not start with '{' are skipped (stderr mixes JSON progress
lines with words).  --need: each of these kinds must occur.  Prints one line
per bad object (at most 20) and the count of each kind; exits 1 when an
object does not conform, a needed kind is missing, or a FILE has no object.
Python 3 standard library only.
"""
import json
import sys


def check_type(spec, v, defs, where, errs):
    """True when @v is of type @spec; else appends why to @errs."""
    for alt in spec.split('|'):
        if type_ok(alt, v, defs, where, []):
            return True
    sub = []
    # One alternative that is a def or an array: say what in it is wrong.
    for alt in spec.split('|'):
        if alt.startswith(('@', '[', '{')):
            type_ok(alt, v, defs, where, sub)
    errs.append('%s: %r is not %s%s' % (where, v, spec,
                                         (' (' + sub[0] + ')') if sub else ''))
    return False


def type_ok(t, v, defs, where, errs):
    if t.startswith('='):
        return isinstance(v, str) and v == t[1:]
    if t == 'string':
        return isinstance(v, str)
    if t == 'bool':
        return isinstance(v, bool)
    if t == 'null':
        return v is None
    if t == 'uint':
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0
    if t == 'int':
        return isinstance(v, int) and not isinstance(v, bool)
    if t == 'hex':
        return (isinstance(v, str) and v.startswith('0x') and len(v) > 2 and
                all(c in '0123456789abcdefABCDEF' for c in v[2:]))
    if t == 'lsn':
        return (isinstance(v, list) and len(v) == 2 and
                all(type_ok('uint', x, defs, where, errs) for x in v))
    if t == 'object':
        return isinstance(v, dict)
    if t.startswith('[') and t.endswith(']'):
        if not isinstance(v, list):
            return False
        return all(check_type(t[1:-1], x, defs, '%s[%d]' % (where, i), errs)
                   for i, x in enumerate(v))
    if t.startswith('{') and t.endswith('}'):
        if not isinstance(v, dict):
            return False
        return all(check_type(t[1:-1], x, defs, '%s.%s' % (where, k), errs)
                   for k, x in v.items())
    if t.startswith('@'):
        if not isinstance(v, dict):
            return False
        return check_obj(defs[t[1:]], v, defs, where, errs)
    raise SystemExit('schema: unknown type %r' % t)


def check_obj(spec, o, defs, where, errs, top=False):
    req = dict(spec.get('required', {}))
    opt = dict(spec.get('optional', {}))
    by = spec.get('by')
    if by is not None and by in o:
        var = spec.get('variants', {}).get(o[by])
        if var:
            req.update(var.get('required', {}))
            opt.update(var.get('optional', {}))
    ok = True
    for k, t in req.items():
        if k not in o:
            errs.append('%s: no key %r' % (where, k))
            ok = False
        elif not check_type(t, o[k], defs, '%s.%s' % (where, k), errs):
            ok = False
    for k, v in o.items():
        if k in req or (top and k == 'kind'):
            continue
        if k in opt:
            ok = check_type(opt[k], v, defs, '%s.%s' % (where, k), errs) and ok
        elif not spec.get('open'):
            errs.append('%s: key %r is not in the schema' % (where, k))
            ok = False
    return ok


def main(argv):
    mixed = False
    need = []
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == '--mixed':
            mixed = True
        elif argv[i] == '--need':
            i += 1
            need = [k for k in argv[i].split(',') if k]
        else:
            args.append(argv[i])
        i += 1
    if len(args) < 4:
        raise SystemExit(__doc__)
    schema = json.load(open(args[0]))
    kinds = schema['tools'][args[1]][args[2]]
    defs = schema.get('defs', {})
    count = {}
    bad = 0
    for path in args[3:]:
        seen = 0
        for n, line in enumerate(open(path, encoding='utf-8', errors='replace'), 1):
            line = line.rstrip('\n')
            if mixed and not line.startswith('{'):
                continue
            where = '%s:%d' % (path, n)
            errs = []
            try:
                o = json.loads(line)
            except ValueError as e:
                errs.append('%s: not JSON: %s' % (where, e))
                o = None
            if o is not None:
                seen += 1
                if not isinstance(o, dict) or not isinstance(o.get('kind'), str):
                    errs.append('%s: no "kind"' % where)
                elif o['kind'] not in kinds:
                    errs.append('%s: kind %r is not in the schema' % (where, o['kind']))
                else:
                    count[o['kind']] = count.get(o['kind'], 0) + 1
                    check_obj(kinds[o['kind']], o, defs, where + ':' + o['kind'], errs,
                              True)
                    # A key twice in one object: the parser kept the last.
                    pairs = json.loads(line, object_pairs_hook=lambda p: p)
                    names = [k for k, _ in pairs]
                    if len(names) != len(set(names)):
                        errs.append('%s: a key appears twice' % where)
            if errs:
                bad += 1
                if bad <= 20:
                    print('not conforming: ' + errs[0][:400])
        if not seen and not mixed:
            print('%s: no JSON object' % path)
            bad += 1
    for k in need:
        if k not in count:
            print('no object of kind %r' % k)
            bad += 1
    print(' '.join('%s=%d' % kv for kv in sorted(count.items())))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
