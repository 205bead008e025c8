"""Shares of a perf profile of the search by function group, from each sample's inline chain.

Usage: python3 scripts/profile-groups.py PERF.DATA BINARY [EXAMPLES]

With fat LTO nearly the whole search is inlined into a few functions (`negamax`,
`MovePicker::next`, `Worker::play`), so samples by symbol say little. This reads the sampled
addresses of BINARY from PERF.DATA (`perf record -e cpu-clock`, any call-graph mode), asks
`llvm-symbolizer --inlining` for the chain of inlined functions at each one (BINARY needs
line tables: `CARGO_PROFILE_RELEASE_DEBUG=true`), and counts the sample in the first group of
GROUPS, in order, that any function of its chain belongs to: SEE before move picking, so a
SEE call inside the picker counts as SEE; history reads inside quiet scoring count as
history; the table prefetch in `Worker::play` counts as the table. Samples outside BINARY
(the kernel, libc's memset) are listed by name. EXAMPLES (a number) lists that many of the
commonest innermost functions and source lines of each group.

Read the shares of memory-bound code with care: a `cpu-clock` sample lands on the
instruction that waits (the load or prefetch that misses the cache or the TLB), or on the one
after it.
"""
import collections
import re
import subprocess
import sys

GROUPS = [
    ("SEE", lambda fn: "engine::see::" in fn),
    ("correction history", lambda fn: "engine::correction::" in fn or "Worker::corrected" in fn),
    ("history updates/reads", lambda fn: "engine::history::" in fn and "PieceTo" not in fn),
    ("evaluation (output layer)", lambda fn: any(s in fn for s in (
        "AccumulatorStack::evaluate", "forward_sum", "output_centipawns", "output_bucket"))),
    ("accumulator updates/refresh", lambda fn: "engine::accumulator::" in fn or fn.startswith(("nnue::", "<nnue::"))),
    ("TT probe/store/prefetch", lambda fn: "engine::tt::" in fn),
    ("move generation (incl. legality checks)", lambda fn: any(s in fn for s in (
        "movegen::movegen::", "generate_", "is_legal", "has_legal_move"))),
    ("threat maps (Board::attacks_by)", lambda fn: "Board::attacks_by" in fn),
    ("move picking/scoring", lambda fn: "engine::move_picker::" in fn),
    ("make/unmake + hashing", lambda fn: any(s in fn for s in (
        "Board::play", "Worker::play", "Worker::undo", "null_move", "zobrist", "PieceTo"))),
]
OTHER = "other (negamax and quiescence bodies: pruning, draws, node count)"


def main():
    data, binary = sys.argv[1], sys.argv[2]
    examples = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    # LOAD segments of the binary: (file offset, virtual address, size).
    segments = []
    for line in subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            segments.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
    script = subprocess.run(["perf", "script", "-i", data, "--show-mmap-events", "-G", "-F", "ip,sym,dso"],
                            capture_output=True, text=True, check=True).stdout
    mmap = re.compile(r"PERF_RECORD_MMAP2? .*\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0) .*\]: \S+ (\S+)")
    maps, counts, outside, total = [], collections.Counter(), collections.Counter(), 0
    for line in script.splitlines():
        if "PERF_RECORD_MMAP" in line:
            m = mmap.search(line)
            if m and m.group(4) == binary:
                maps.append(tuple(int(m.group(i), 16) for i in (1, 2, 3)))
            continue
        f = line.split()
        try:
            ip = int(f[0], 16)
        except (ValueError, IndexError):
            continue
        total += 1
        if not line.rstrip().endswith("(" + binary + ")"):
            name = " ".join(f[1:-1])
            outside[name if name.startswith("__mem") else ("kernel" if "kernel" in f[-1] else f[-1])] += 1
            continue
        for start, length, pgoff in maps:
            if start <= ip < start + length:
                offset = ip - start + pgoff
                address = next((offset - so + sv for so, sv, sz in segments if so <= offset < so + sz), None)
                if address is not None:
                    counts[address] += 1
                break
    addresses = sorted(counts)
    symbolized = subprocess.run(["llvm-symbolizer", "--obj=" + binary, "--inlining", "--demangle"],
                                input="\n".join(hex(a) for a in addresses) + "\n",
                                capture_output=True, text=True, check=True).stdout.split("\n\n")
    groups, where = collections.Counter(), collections.defaultdict(collections.Counter)
    for address, text in zip(addresses, symbolized):
        lines = text.strip().splitlines()
        chain = [(lines[i], lines[i + 1] if i + 1 < len(lines) else "") for i in range(0, len(lines), 2)]
        group = next((name for name, rule in GROUPS if any(rule(fn) for fn, _ in chain)), OTHER)
        groups[group] += counts[address]
        inner = next((fn for fn, _ in chain if not fn.startswith(("core::", "<core::", "std::", "alloc::"))), "?")
        source = chain[0][1].rsplit("/", 1)[-1] if chain else "?"
        where[group][f"{inner} @ {source}"] += counts[address]
    for name, n in outside.items():
        groups["outside the binary: " + name] += n
    print(f"{total} samples")
    for group, n in groups.most_common():
        print(f"{100 * n / total:6.2f}%  {group}")
        for place, m in where[group].most_common(examples):
            print(f"          {100 * m / total:5.2f}%  {place}")


if __name__ == "__main__":
    main()
