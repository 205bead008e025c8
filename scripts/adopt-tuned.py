#!/usr/bin/env python3
"""Make tuned values the defaults: rewrite the `default` of each tunable in engine/src/params.rs.

Reads the values as `arena spsa` prints them for arena (`option.NAME=VALUE`, whitespace- or
newline-separated; a file or stdin) and replaces `NAME = OLD, min ..., max ..., step ...;`
in the `tunables!` block with the new default. Refuses, changing nothing, when a name is
not a tunable, a value is not an integer or lies outside the tunable's [min, max], or a
name is given twice. Prints one line per changed value (old -> new).

    python3 scripts/adopt-tuned.py docs/tuning/spsa-s16/tuned-options.txt
    python3 scripts/adopt-tuned.py --params engine/src/params.rs FILE
    python3 scripts/adopt-tuned.py --check FILE      # report only, write nothing

Then rebuild and take the new `luft bench` signature for the commit's `Bench:` line.
"""

import argparse
import re
import sys

LINE = re.compile(
    r"^(?P<indent>\s+)(?P<name>[a-z_][a-z0-9_]*) = (?P<default>-?\d+), "
    r"min (?P<min>-?\d+), max (?P<max>-?\d+), step (?P<step>-?\d+);",
    re.M,
)


def parse_values(text):
    values = {}
    for token in text.split():
        if not token.startswith("option."):
            raise SystemExit(f"adopt-tuned: {token!r} is not an option.NAME=VALUE pair")
        name, sep, value = token[len("option."):].partition("=")
        if not sep or not name:
            raise SystemExit(f"adopt-tuned: {token!r} is not an option.NAME=VALUE pair")
        if not re.fullmatch(r"-?\d+", value):
            raise SystemExit(f"adopt-tuned: {name}: {value!r} is not an integer")
        if name in values:
            raise SystemExit(f"adopt-tuned: {name} is given twice")
        values[name] = int(value)
    if not values:
        raise SystemExit("adopt-tuned: no option.NAME=VALUE pairs in the input")
    return values


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("values", nargs="?", help="file of option.NAME=VALUE pairs (default: stdin)")
    ap.add_argument("--params", default="engine/src/params.rs", help="the params file to rewrite")
    ap.add_argument("--check", action="store_true", help="report the changes, write nothing")
    args = ap.parse_args()

    text = open(args.values).read() if args.values else sys.stdin.read()
    values = parse_values(text)
    source = open(args.params).read()
    declared = {m["name"]: m for m in LINE.finditer(source)}

    unknown = sorted(set(values) - set(declared))
    if unknown:
        raise SystemExit(f"adopt-tuned: not tunables in {args.params}: {', '.join(unknown)}")
    for name, value in values.items():
        m = declared[name]
        lo, hi = int(m["min"]), int(m["max"])
        if not lo <= value <= hi:
            raise SystemExit(f"adopt-tuned: {name} = {value} is outside [{lo}, {hi}]")

    changed = 0

    def replace(m):
        nonlocal changed
        name = m["name"]
        if name not in values or int(m["default"]) == values[name]:
            return m.group(0)
        changed += 1
        print(f"{name}: {m['default']} -> {values[name]}")
        return (
            f"{m['indent']}{name} = {values[name]}, min {m['min']}, max {m['max']}, "
            f"step {m['step']};"
        )

    out = LINE.sub(replace, source)
    print(f"adopt-tuned: {changed} of {len(values)} values differ from the defaults"
          + (" (--check: nothing written)" if args.check else f"; {args.params} rewritten"))
    if not args.check and changed:
        open(args.params, "w").write(out)


if __name__ == "__main__":
    main()
