#!/usr/bin/env python3
"""Which entries of the project's summaries another module reads (issue 10, lazy summaries).

Run project mode once with a result cache, then point this at the checkout and the cache:

    stoker check DIR --cache-dir /tmp/c --threads 1 --output-format json >/dev/null
    python3 bench/project/summary_reads.py DIR /tmp/c

Each cached module state holds the module's latest summary (its entries: functions, methods,
classes, module-level tables) and the queries its latest analysis made. An entry counts as read
when another module's 'c' (callee) or 't' (class attribute) query, or one of its outgoing calls,
names it. The resolution is approximate and errs towards "read": relative names, imports and
re-exports followed up to 5 hops; a class read makes all its entries ("C.*") and its bases' read;
a hot "*.m"/"%.m" call reads every method m. Registries, "M.*" calls and the table's own reads
(subclass stores, class tables) are not followed. Only the latest analyses' queries are seen.
"""
import json, os, sys, glob, collections
root, cache = sys.argv[1], sys.argv[2]
mods = {}
for f in glob.glob(cache + '/*/*/*.json'):
    d = json.load(open(f)); st = d.get('state')
    if not st: continue
    p = os.path.relpath(d['path'], root); parts = p[:-3].split('/')
    # package name: climb while __init__.py
    dirs = parts[:-1]; i = len(dirs)
    while i > 0 and os.path.exists(os.path.join(root, *dirs[:i], '__init__.py')): i -= 1
    name = '.'.join(parts[i:])
    if name.endswith('.__init__'): name = name[:-9]
    mods[name] = (json.loads(st), parts[-1] == '__init__')
names = set(mods)
def absolute(frm, n, is_pkg):
    if not n.startswith('.'): return n
    k = len(n) - len(n.lstrip('.')); base = frm.split('.')
    if not is_pkg: base = base[:-1]
    base = base[:len(base) - (k - 1)] if k > 1 else base
    rest = n[k:]
    return '.'.join(base + ([rest] if rest else []))
def split(a):
    parts = a.split('.')
    for i in range(len(parts), 0, -1):
        m = '.'.join(parts[:i])
        if m in names: return m, '.'.join(parts[i:])
    return None, None
def resolve(frm, n, hops=0):
    st, pkg = mods[frm]
    first = n.split('.')[0]
    imp = dict(map(tuple, st['imports']))
    if not n.startswith('.') and first in imp and hops < 5:
        q = imp[first]; rest = n[len(first):]
        return resolve_abs(absolute(frm, q, pkg) + rest, hops + 1)
    return resolve_abs(absolute(frm, n, pkg), hops)
def resolve_abs(a, hops):
    m, rest = split(a)
    if m is None or not rest: return None
    st, pkg = mods[m]
    locs = {e[0] for e in st['functions']}
    if rest in locs: return (m, rest)
    first = rest.split('.')[0]
    imp = dict(map(tuple, st['imports']))
    if first in imp and hops < 5:
        return resolve_abs(absolute(m, imp[first], pkg) + rest[len(first):], hops + 1)
    return None
read_q, read_call = set(), set()
for m, (st, pkg) in mods.items():
    for q in st['queries']:
        t, n = q[1], q[2]
        if t == 't': n = n.split(' ')[0]
        if t not in 'ct': continue
        r = resolve(m, n)
        if r and r[0] != m: read_q.add(r)
        # a method via its class: "C.m" asked as "x.C" + ".m"
    for c in st['calls']:
        r = resolve(m, c[0])
        if r and r[0] != m:
            read_call.add(r)
            if '.' not in r[1]: read_call.add((r[0], r[1] + '.__init__'))
# Conservative: a class read (or constructed) makes every entry "C.*" of it read, and its bases'
# (through the project), transitively; a hot "*.m"/"%.m" call reads every method m.
def classes_closure(reads):
    todo = [r for r in reads]; seen = set(reads)
    while todo:
        m, loc = todo.pop()
        st, pkg = mods[m]
        for e in st['functions']:
            if e[0] == loc and e[10]:
                for b in e[23]:
                    r = resolve(m, b)
                    if r and r not in seen: seen.add(r); todo.append(r)
            if e[0].startswith(loc + '.') and (m, e[0]) not in seen:
                seen.add((m, e[0])); todo.append((m, e[0]))
    return seen
read_q = classes_closure(read_q); read_call = classes_closure(read_call)
for m, (st, pkg) in mods.items():
    for c in st['calls']:
        if c[0][:2] in ('*.', '%.') and c[2]:
            for m2, (st2, _) in mods.items():
                for e in st2['functions']:
                    if m2 != m and e[0].endswith('.' + c[0][2:]): read_call.add((m2, e[0]))
total = 0; kinds = collections.Counter(); mod_unread = 0
for m, (st, pkg) in mods.items():
    any_read = False
    for e in st['functions']:
        key = (m, e[0]); total += 1
        q, c = key in read_q, key in read_call
        kinds['query' if q and not c else 'call' if c and not q else 'both' if q else 'neither'] += 1
        any_read |= q or c
    mod_unread += not any_read
print(f"modules {len(mods)}, summary entries {total}: " + ', '.join(f"{k} {v} ({v/total:.0%})" for k, v in kinds.most_common()))
print(f"modules none of whose entries another module reads: {mod_unread}")
