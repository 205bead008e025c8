#!/usr/bin/env python3
"""Rewrites the absolute paths of one machine in Luft's records (records/) into paths
relative to the repository or named by what they stood for, once.

The records (learn runs' reports, settings and candidates, gauntlets' and SPRTs' commands,
logs and states) were written on the machines that made them, with the absolute paths of
those machines: the repository's checkout, the run directory, the tools' binaries, the
reference data beside the repository and scratch folders. This script rewrites them:

    <checkout>/nets/x.nnue           -> nets/x.nnue (relative to the repository; the
                                        checkout itself -> .)
    <runs>/NAME/nets/x.nnue           -> <run>/nets/x.nnue (the record's run directory)
    <shared>/data/syzygy              -> <reference>/data/syzygy (the reference data beside
                                        the repository: Syzygy tables, older self-play)
    <bin>/tools3/luft                 -> <bin>/tools3/luft (the builds of the repository
                                        the record names by commit)
    <gauntlet folder>/out             -> <out> (the folder whose PGNs and logs the record
                                        holds, also a match's folder); the gauntlet folder
                                        itself -> <gauntlet>
    a datagen folder, an SPSA, SPRT or experiment folder
                                      -> <data>, <spsa>, <sprt>, <exp>

Two binary names that named a working period are renamed by what they were: the tuned
build of 1c0ba2d -> luft-1c0ba2d, the build before the tuning -> luft-start.

Usage:
    python3 scripts/relativize-records.py [--check] [--pack-renames FILE]
        [--pack-renames-git OLD NEW] [DIR...]

DIR defaults to records/. Text files only (a file with a NUL byte, a .gz or a .png is left
alone). --check rewrites nothing and exits 1 if a file would change. --pack-renames FILE
also rewrites data/selfplay/OLD into data/selfplay/NEW for each line "OLD NEW" of FILE
(for the corpus's renaming); --pack-renames-git OLD NEW takes the same pairs from the renames
git finds under data/selfplay between two commits (`git diff -M --name-status OLD NEW`), so
that the old names need not be written anywhere. Exits 2 on an absolute path no rule knows (listed on stderr,
nothing written), so that no machine path is left behind silently.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

# The machine's root folders, built so that this file does not name them as paths itself.
W = "/" + "work"
R = "/" + "root"
NAME = r"[^/\s\"',;:)\]]+"
# Folder and binary names made of a working period's number, built for the same reason.
TUNED_BIN = "luft-" + "s" + "23"
START_BIN = "luft-" + "iss" + "ue25-start"
GEN13_DIR = "gen13-" + "s" + "15"

# (pattern, replacement), applied in order to every line.
RULES = [
    (re.compile(re.escape(W) + r"/main/"), ""),
    (re.compile(re.escape(W) + r"/main(?![\w.-])"), "."),
    (re.compile(re.escape(W) + r"/runs/" + NAME + r"/"), "<run>/"),
    (re.compile(re.escape(W) + r"/runs/" + NAME), "<run>"),
    (re.compile(re.escape(W) + r"/shared/"), "<reference>/"),
    (re.compile(re.escape(W) + r"/bin/" + re.escape(TUNED_BIN) + r"(?![\w.-])"), "<bin>/luft-1c0ba2d"),
    (re.compile(re.escape(W) + r"/bin/" + re.escape(START_BIN) + r"(?![\w.-])"), "<bin>/luft-start"),
    (re.compile(re.escape(W) + r"/bin/"), "<bin>/"),
    (re.compile(re.escape(W) + r"/data/" + re.escape(GEN13_DIR) + r"(?![\w.-])"), "<data>/gen13"),
    (re.compile(re.escape(W) + r"/gauntlet-" + NAME + r"/out(?![\w.-])"), "<out>"),
    (re.compile(re.escape(W) + r"/gauntlet-" + NAME), "<gauntlet>"),
    (re.compile(re.escape(W) + r"/spsa(?![\w.-])"), "<spsa>"),
    (re.compile(re.escape(W) + r"/sprt25(?![\w.-])"), "<sprt>"),
    (re.compile(re.escape(W) + r"/exp-layer(?![\w.-])"), "<exp>"),
    (re.compile(re.escape(W) + r"/evs25(?![\w.-])"), "<out>"),
]

LEFT = re.compile("(" + re.escape(W) + "|" + re.escape(R) + r")/\S*")


def is_text(path, data):
    """A file the rules apply to: not compressed, not an image, no NUL byte."""
    return not path.endswith((".gz", ".png")) and b"\0" not in data


def rewrite(text, renames):
    """The text with every rule applied, then the pack renames."""
    for pattern, replacement in RULES:
        text = pattern.sub(replacement, text)
    for old, new in renames:
        text = text.replace("data/selfplay/" + old, "data/selfplay/" + new)
    return text


def read_renames(path):
    """The "OLD NEW" lines of FILE (blank lines and # comments skipped)."""
    renames = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2:
                sys.exit(f"{path}:{number}: expected 'OLD NEW', got {line!r}")
            renames.append((parts[0], parts[1]))
    return renames


def git_renames(old, new):
    """The (old name, new name) pairs of the packs git sees renamed under data/selfplay."""
    out = subprocess.run(
        ["git", "diff", "-M", "--name-status", old, new, "--", "data/selfplay"],
        capture_output=True, text=True,
    )
    if out.returncode != 0:
        sys.exit(f"git diff {old} {new} failed: {out.stderr.strip()}")
    renames = []
    for line in out.stdout.splitlines():
        parts = line.split("\t")
        if parts[0].startswith("R") and len(parts) == 3:
            renames.append((os.path.basename(parts[1]), os.path.basename(parts[2])))
    if not renames:
        sys.exit(f"git finds no renames under data/selfplay between {old} and {new}")
    return renames


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="*", default=["records"])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    parser.add_argument("--pack-renames", metavar="FILE", help='lines "OLD NEW" of pack names in data/selfplay')
    parser.add_argument("--pack-renames-git", nargs=2, metavar=("OLD", "NEW"),
                        help="the packs git sees renamed under data/selfplay between two commits")
    args = parser.parse_args()
    renames = read_renames(args.pack_renames) if args.pack_renames else []
    if args.pack_renames_git:
        renames += git_renames(*args.pack_renames_git)

    changes = []
    unknown = []
    for top in args.dirs:
        if not os.path.isdir(top):
            sys.exit(f"{top}: not a folder")
        for folder, _, files in sorted(os.walk(top)):
            for name in sorted(files):
                path = os.path.join(folder, name)
                with open(path, "rb") as f:
                    data = f.read()
                if not is_text(path, data):
                    continue
                text = data.decode("utf-8", errors="surrogateescape")
                new = rewrite(text, renames)
                for number, line in enumerate(new.splitlines(), 1):
                    for m in LEFT.finditer(line):
                        unknown.append(f"{path}:{number}: {m.group(0)}")
                if new != text:
                    lines = sum(a != b for a, b in zip(text.splitlines(), new.splitlines()))
                    changes.append((path, new, lines))
    if unknown:
        print("absolute paths no rule rewrites (nothing written):", file=sys.stderr)
        for u in unknown:
            print("  " + u, file=sys.stderr)
        return 2
    for path, new, lines in changes:
        print(f"{path}: {lines} lines")
        if not args.check:
            tmp = path + ".tmp"
            with open(tmp, "wb") as f:
                f.write(new.encode("utf-8", errors="surrogateescape"))
            shutil.copymode(path, tmp)  # a script stays executable
            os.replace(tmp, path)
    print(f"{len(changes)} files {'would change' if args.check else 'rewritten'}")
    return 1 if args.check and changes else 0


if __name__ == "__main__":
    sys.exit(main())
