#!/usr/bin/env python3
"""Make tuned values the defaults: rewrite the `default` of each tunable in engine/src/params.rs.

Reads the values as `arena spsa` prints them for arena (`option.NAME=VALUE`, whitespace- or
newline-separated; a file or stdin) and replaces `NAME = OLD, min ..., max ..., step ...;`
in the `tunables!` block with the new default. Refuses, changing nothing, when a name is
not a tunable, a value is not an integer or lies outside the tunable's [min, max], or a
name is given twice. Prints one line per changed value (old -> new).

    python3 scripts/adopt-tuned.py records/2026-12-01-spsa-search/tuned-options.txt
    python3 scripts/adopt-tuned.py --params engine/src/params.rs FILE
    python3 scripts/adopt-tuned.py --check FILE      # report only, write nothing
    python3 scripts/adopt-tuned.py --against-spsa SPSA_LIST   # no values: check the reading

`--against-spsa` takes what a tune build's `luft spsa` prints (`NAME, int, DEFAULT, MIN, MAX,
C_END, R_END` a line) and refuses unless this script's reading of params.rs finds exactly
those tunables with those defaults, ranges and steps: the macro is the grammar's one definition,
and CI runs this check so a change to the line format cannot leave a tunable unread.

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


def check_against_spsa(matches, path):
    """Compare the tunables read from params.rs (`matches` of LINE) with a `luft spsa`
    listing (`NAME, int, DEFAULT, MIN, MAX, C_END, R_END` a line, C_END the step); exit 1 on
    any difference, an empty side or a name given twice."""
    listed, problems = {}, []
    for number, line in enumerate(open(path).read().splitlines(), 1):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) == 7 and fields[1] == "float":
            raise SystemExit(f"adopt-tuned: {path}:{number}: {fields[0]} is a float tunable; "
                             "params.rs declares integers only, and this script reads only those")
        if (len(fields) != 7 or fields[1] != "int"
                or not all(re.fullmatch(r"-?\d+", v) for v in fields[2:6])):
            raise SystemExit(f"adopt-tuned: {path}:{number}: not a `NAME, int, DEFAULT, MIN, MAX, "
                             f"C_END, R_END` line with integers: {line!r}")
        if fields[0] in listed:
            problems.append(f"{fields[0]}: listed twice by luft spsa")
        listed[fields[0]] = tuple(int(v) for v in fields[2:6])
    read = {}
    for m in matches:
        if m["name"] in read:
            problems.append(f"{m['name']}: declared twice in params.rs")
        read[m["name"]] = tuple(int(m[k]) for k in ("default", "min", "max", "step"))
    if not listed or not read:
        raise SystemExit(f"adopt-tuned: nothing to compare ({len(read)} tunables read from "
                         f"params.rs, {len(listed)} listed in {path})")
    problems += [f"{n}: listed by luft spsa, not read from params.rs" for n in sorted(set(listed) - set(read))]
    problems += [f"{n}: read from params.rs, not listed by luft spsa" for n in sorted(set(read) - set(listed))]
    problems += [f"{n}: params.rs reads (default, min, max, step) = {read[n]}, luft spsa lists {listed[n]}"
                 for n in sorted(set(read) & set(listed)) if read[n] != listed[n]]
    if problems:
        raise SystemExit("adopt-tuned: the reading of params.rs disagrees with luft spsa:\n  "
                         + "\n  ".join(problems))
    print(f"adopt-tuned: params.rs reads as luft spsa lists it ({len(read)} tunables)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("values", nargs="?", help="file of option.NAME=VALUE pairs (default: stdin)")
    ap.add_argument("--params", default="engine/src/params.rs", help="the params file to rewrite")
    ap.add_argument("--check", action="store_true", help="report the changes, write nothing")
    ap.add_argument("--against-spsa", metavar="SPSA_LIST",
                    help="check the reading of params.rs against `luft spsa` output; no values")
    args = ap.parse_args()

    if args.against_spsa is not None:
        if args.values or args.check:
            raise SystemExit("adopt-tuned: --against-spsa takes no values file and no --check")
        check_against_spsa(list(LINE.finditer(open(args.params).read())), args.against_spsa)
        return

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
