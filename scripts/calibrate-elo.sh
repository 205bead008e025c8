#!/usr/bin/env bash
# Calibrates luft's UCI_Elo scale against Stockfish's own UCI_LimitStrength/UCI_Elo.
#
# For each Luft level L (UCI_LimitStrength true, UCI_Elo L) it plays GAMES games (paired,
# colours swapped) with arena against Stockfish limited to UCI_Elo S = L clamped into
# Stockfish's range, and takes Luft's measured Elo as S + the match's Elo difference
# (from the score, clamped away from 0% and 100%). Then it prints a table and the
# least-squares line  measured = A + B * UCI_Elo,  and the UCI_Elo setting that would
# give each target Elo (put the new scale into engine/src/strength.rs from that).
#
# Usage: scripts/calibrate-elo.sh
# Environment: LEVELS ("1400 1800 2200 2600"), GAMES (40, even), TC (10+0.1),
#   CONCURRENCY (1), STOCKFISH (/usr/games/stockfish; installed with apt-get if missing),
#   LUFT and ARENA (binaries; default: built here with cargo build --release),
#   OPENINGS (arena/openings/luft-8ply.epd), OUT (target/calibrate-elo: logs and PGNs),
#   SEED (1), OVERHEAD (100: "Move Overhead" in ms for both engines).
# A full run (defaults) is 160 games at 10+0.1: over an hour on one core.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
levels=${LEVELS:-1400 1800 2200 2600}
games=${GAMES:-40}
tc=${TC:-10+0.1}
concurrency=${CONCURRENCY:-1}
# Both engines keep this many milliseconds in hand: without it a loaded machine turns the
# calibration into a count of time losses (Stockfish's default overhead is 10 ms).
overhead=${OVERHEAD:-100}
stockfish=${STOCKFISH:-/usr/games/stockfish}
openings=${OPENINGS:-arena/openings/luft-8ply.epd}
out=${OUT:-target/calibrate-elo}
seed=${SEED:-1}

die() { echo "calibrate-elo: $*" >&2; exit 2; }
[ $((games % 2)) -eq 0 ] && [ "$games" -ge 2 ] || die "GAMES must be even and at least 2 (got $games)"
[ "$(wc -w <<<"$levels")" -ge 2 ] || die "give at least two LEVELS to fit a line"

if [ ! -x "$stockfish" ]; then
    echo "calibrate-elo: $stockfish not found; installing Debian's stockfish" >&2
    apt-get install -y stockfish >&2 || die "cannot install stockfish (run as root, or set STOCKFISH)"
    [ -x "$stockfish" ] || die "$stockfish still missing after apt-get"
fi
if [ -z "${LUFT:-}" ] || [ -z "${ARENA:-}" ]; then
    cargo build --release -p engine -p arena >&2
    target=${CARGO_TARGET_DIR:-target}
fi
luft=${LUFT:-$target/release/luft}
arena=${ARENA:-$target/release/arena}
[ -x "$luft" ] || die "no luft binary at $luft"
[ -x "$arena" ] || die "no arena binary at $arena"
[ -f "$openings" ] || die "no openings file $openings"

# The range of the Stockfish at hand (15.1: 1350-2850; later versions differ).
range=$(printf 'uci\nquit\n' | "$stockfish" | awk '/option name UCI_Elo /{for(i=1;i<=NF;i++){if($i=="min")lo=$(i+1);if($i=="max")hi=$(i+1)}} END{print lo, hi}')
read -r sf_min sf_max <<<"$range"
[ -n "$sf_min" ] && [ -n "$sf_max" ] || die "$stockfish has no UCI_Elo option"
luft_range=$(printf 'uci\nquit\n' | "$luft" | awk '/option name UCI_Elo /{for(i=1;i<=NF;i++){if($i=="min")lo=$(i+1);if($i=="max")hi=$(i+1)}} END{print lo, hi}')
read -r luft_min luft_max <<<"$luft_range"
[ -n "$luft_min" ] || die "$luft has no UCI_Elo option"
sf_name=$(printf 'uci\nquit\n' | "$stockfish" | sed -n 's/^id name //p')
echo "luft $luft (UCI_Elo $luft_min-$luft_max) vs $sf_name (UCI_Elo $sf_min-$sf_max), tc $tc, $games games a level"

mkdir -p "$out"
results=$out/results.txt
: >"$results"
for level in $levels; do
    if [ "$level" -lt "$luft_min" ] || [ "$level" -gt "$luft_max" ]; then
        die "level $level outside luft's UCI_Elo range $luft_min-$luft_max"
    fi
    anchor=$level
    [ "$anchor" -lt "$sf_min" ] && anchor=$sf_min
    [ "$anchor" -gt "$sf_max" ] && anchor=$sf_max
    log=$out/level-$level.log
    echo "level $level: $games games against Stockfish UCI_Elo $anchor (log $log)"
    set +e
    "$arena" \
        --engine cmd="$luft" name="luft-$level" option.UCI_LimitStrength=true option.UCI_Elo="$level" \
        --engine cmd="$stockfish" name="stockfish-$anchor" option.UCI_LimitStrength=true option.UCI_Elo="$anchor" \
        --each tc="$tc" option.Hash=16 option.Threads=1 "option.Move Overhead=$overhead" \
        --openings file="$openings" format=epd order=random \
        --rounds $((games / 2)) --games 2 --concurrency "$concurrency" \
        --pgnout "$out/level-$level.pgn" --recover --seed "$seed" --ratinginterval 0 >"$log" 2>&1
    status=$?
    set -e
    # arena exits 0 after a match played out; 2 is an interruption, 3 an error.
    [ "$status" = 0 ] || die "arena failed at level $level (exit $status); see $log"
    line=$(grep '^Games: ' "$log" | tail -1)
    [ -n "$line" ] || die "no result in $log"
    # "Games: N, Wins: W, Losses: L, Draws: D, ..." (wins and losses are luft's)
    read -r n w l d <<<"$(sed -E 's/^Games: ([0-9]+), Wins: ([0-9]+), Losses: ([0-9]+), Draws: ([0-9]+).*/\1 \2 \3 \4/' <<<"$line")"
    echo "$level $anchor $n $w $l $d" >>"$results"
    echo "  $line"
done

awk -v tc="$tc" '
function log10(x) { return log(x) / log(10) }
{
    level[NR] = $1; anchor[NR] = $2; n = $3; w = $4; l = $5; d = $6
    games[NR] = n; wins[NR] = w; losses[NR] = l; draws[NR] = d
    s = (w + d / 2) / n
    lo = 0.5 / n; hi = 1 - 0.5 / n
    sc = s < lo ? lo : (s > hi ? hi : s)
    diff[NR] = -400 * log10(1 / sc - 1) + 0
    if (diff[NR] > -0.5 && diff[NR] < 0.5) diff[NR] = 0
    clamped[NR] = (s != sc)
    # 95% interval of the score, carried through the logistic curve.
    var = (w * (1 - s)^2 + d * (0.5 - s)^2 + l * s^2) / n
    se = sqrt(var / n)
    pm[NR] = 1.96 * se * 400 / (log(10) * sc * (1 - sc))
    score[NR] = 100 * s
    measured[NR] = anchor[NR] + diff[NR]
}
END {
    printf "\nCalibration at %s (Elo difference from the score; a score of 0%% or 100%% is\n", tc
    printf "clamped to half a game from it and marked < or >, its Elo only a bound)\n"
    printf "%8s %10s %6s %5s %5s %5s %7s %14s %9s\n", "UCI_Elo", "Stockfish", "games", "W", "D", "L", "score%", "Elo diff", "measured"
    for (i = 1; i <= NR; i++) {
        bound = clamped[i] ? (diff[i] < 0 ? "<" : ">") : " "
        spread = clamped[i] ? "     ?" : sprintf("+/-%4.0f", pm[i])
        printf "%8d %10d %6d %5d %5d %5d %7.1f %s%6.0f %s %9.0f\n", level[i], anchor[i], games[i], wins[i], draws[i], losses[i], score[i], bound, diff[i], spread, measured[i]
        sx += level[i]; sy += measured[i]
    }
    mx = sx / NR; my = sy / NR
    for (i = 1; i <= NR; i++) { sxx += (level[i] - mx)^2; sxy += (level[i] - mx) * (measured[i] - my) }
    b = sxy / sxx; a = my - b * mx
    printf "\nfit: measured = %.1f + %.3f * UCI_Elo\n", a, b
    if (b > 0) {
        printf "\n%8s %16s\n", "target", "UCI_Elo to set"
        for (t = 1400; t <= 2800; t += 200) printf "%8d %16.0f\n", t, (t - a) / b
    } else {
        print "the measured Elo does not rise with UCI_Elo: play more games (GAMES) before refitting"
    }
}' "$results"
