#!/usr/bin/env bash
# Gauntlet: Luft builds against independent engines from Debian (Stockfish at a set UCI_Elo,
# Glaurung, Toga II, Ethereal, GNU Chess), one arena match per build and opponent over Luft's
# balanced openings at 1 thread and 16 MB each, then one joint maximum-likelihood rating of
# every player (`arena rate`, printed and written to DIR/ratings.txt).
#
# Usage: scripts/gauntlet.sh --luft NAME=PATH[:EVALFILE] [--luft ...] [options]
#   --luft NAME=PATH[:EVALFILE]  a Luft binary (repeatable); EVALFILE is sent as option.EvalFile
#   --opponents LIST   comma-separated, default sf2200,sf2600,glaurung,toga: sfN (Stockfish with
#                      UCI_LimitStrength and UCI_Elo=N), stockfish (full strength), glaurung,
#                      toga, ethereal, gnuchess. Sjeng speaks only xboard, which arena does not.
#   --games N          games per build and opponent, even (default 20)
#   --tc BASE+INC      seconds (default 5+0.05)     --nodes N   nodes per move instead of --tc
#   --concurrency C    games at once (default 1)    --seed S    opening order (default 1)
#   --out DIR          PGNs, logs and ratings (default target/gauntlet); one DIR per time control,
#                      since every PGN in DIR is rated together
#   --anchor NAME=ELO  the rating anchor (default: the first sfN opponent at N; "none": mean 0)
#   --no-install       never run apt-get (the engines must be installed)
#   --extra "ARGS"     more arena arguments, e.g. "--resign movecount=3 score=600"
# Missing engines are installed with apt-get (as root, or with sudo). Resumable: a pairing
# whose PGN holds N finished games is skipped, a shorter one is completed (a pair cut in half
# first: its missing game alone, colours reversed, then the next openings). Environment: ARENA
# (the arena binary; by default target/release/arena, built when missing or out of date).
# Exit code: 0 when every pairing was played and rated, 3 on an error or an interruption.
set -uo pipefail

die() {
    echo "gauntlet: $*" >&2
    exit 3
}
usage() {
    sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
}

luft_specs=() opponents_arg=sf2200,sf2600,glaurung,toga games=20 tc=5+0.05 nodes=
concurrency=1 seed=1 out= anchor= install=1 extra=
while [ $# -gt 0 ]; do
    opt=$1
    case $opt in
    -h | --help) usage; exit 0 ;;
    --no-install) install=0; shift; continue ;;
    --luft | --opponents | --games | --tc | --nodes | --concurrency | --seed | --out | --anchor | --extra)
        [ $# -ge 2 ] || die "$opt needs a value"
        value=$2
        shift 2
        ;;
    *) die "unknown argument $opt (see --help)" ;;
    esac
    case $opt in
    --luft) luft_specs+=("$value") ;;
    --opponents) opponents_arg=$value ;;
    --games) games=$value ;;
    --tc) tc=$value ;;
    --nodes) nodes=$value ;;
    --concurrency) concurrency=$value ;;
    --seed) seed=$value ;;
    --out) out=$value ;;
    --anchor) anchor=$value ;;
    --extra) extra=$value ;;
    esac
done

[ ${#luft_specs[@]} -gt 0 ] || { usage >&2; die "give at least one --luft NAME=PATH[:EVALFILE]"; }
[[ $games =~ ^[0-9]+$ ]] && [ "$games" -ge 2 ] && [ $((games % 2)) -eq 0 ] ||
    die "--games must be an even number, at least 2 (colours are paired), found '$games'"
[[ $concurrency =~ ^[0-9]+$ ]] && [ "$concurrency" -ge 1 ] || die "--concurrency must be a whole number from 1, found '$concurrency'"
[[ $seed =~ ^[0-9]+$ ]] || die "--seed must be a whole number, found '$seed'"
if [ -n "$nodes" ]; then
    [[ $nodes =~ ^[0-9]+$ ]] && [ "$nodes" -ge 1 ] || die "--nodes must be a whole number from 1, found '$nodes'"
    limit="nodes=$nodes"
else
    [[ $tc =~ ^[0-9.]+(\+[0-9.]+)?$ ]] || die "--tc must be BASE+INC in seconds (e.g. 10+0.1), found '$tc'"
    limit="tc=$tc"
fi

root=$(cd "$(dirname "$0")/.." && pwd)
openings=$root/arena/openings/luft-8ply.epd
[ -f "$openings" ] || die "the openings $openings are missing"
out=${out:-$root/target/gauntlet}
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)

# --- Luft builds: NAME=PATH[:EVALFILE], paths made absolute.
valid_name='^[A-Za-z0-9][A-Za-z0-9._+-]*$'
luft_names=() luft_cmds=() luft_nets=()
for spec in "${luft_specs[@]}"; do
    [[ $spec == *=* ]] || die "--luft expects NAME=PATH[:EVALFILE], found '$spec'"
    name=${spec%%=*} rest=${spec#*=}
    path=${rest%%:*} net=
    [[ $rest == *:* ]] && net=${rest#*:}
    [[ $name =~ $valid_name ]] || die "--luft name '$name' must be letters, digits and ._+- (it names files)"
    for other in "${luft_names[@]}"; do
        [ "$other" != "$name" ] || die "two --luft builds are named '$name'"
    done
    [ -f "$path" ] && [ -x "$path" ] || die "--luft $name: '$path' is not an executable file (build it: make EXE=...)"
    path=$(realpath "$path")
    if [ -n "$net" ]; then
        [ -f "$net" ] || die "--luft $name: the net '$net' does not exist"
        net=$(realpath "$net")
    fi
    luft_names+=("$name") luft_cmds+=("$path") luft_nets+=("$net")
done

# --- Opponents: package, binary, extra arguments and options of each.
IFS=, read -r -a opponents <<<"$opponents_arg"
[ ${#opponents[@]} -gt 0 ] || die "--opponents is empty"
package_of() {
    case $1 in
    stockfish | sf[0-9]*) echo stockfish ;;
    glaurung) echo glaurung ;;
    toga) echo toga2 ;;
    ethereal) echo ethereal-chess ;;
    gnuchess) echo gnuchess ;;
    sjeng) die "sjeng (Debian's Sjeng 11.2) speaks only xboard/CECP: it answers 'uci' with 'Illegal move: uci', and arena plays UCI engines only; leave it out (sfN gives a fine scale at the low end)" ;;
    *) die "unknown opponent '$1' (sfN, stockfish, glaurung, toga, ethereal, gnuchess)" ;;
    esac
}
binary_of() {
    case $1 in
    stockfish) echo stockfish ;;
    toga2) echo toga2 ;;
    glaurung) echo glaurung ;;
    ethereal-chess) echo ethereal-chess ;;
    gnuchess) echo gnuchess ;;
    esac
}
find_binary() { # binary name -> full path, or nothing
    [ -n "$1" ] || return 0
    command -v "$1" 2>/dev/null || { [ -f "/usr/games/$1" ] && [ -x "/usr/games/$1" ] && echo "/usr/games/$1"; } || true
}
missing=()
for opp in "${opponents[@]}"; do
    [[ $opp =~ ^(sf[0-9]+|stockfish|glaurung|toga|ethereal|gnuchess|sjeng)$ ]] ||
        die "unknown opponent '$opp' (sfN, stockfish, glaurung, toga, ethereal, gnuchess)"
    pkg=$(package_of "$opp") || exit 3
    if [ -z "$(find_binary "$(binary_of "$pkg")")" ] && [[ " ${missing[*]} " != *" $pkg "* ]]; then
        missing+=("$pkg")
    fi
done
if [ ${#missing[@]} -gt 0 ]; then
    [ "$install" = 1 ] || die "not installed: ${missing[*]} (Debian packages; drop --no-install to install them)"
    command -v apt-get >/dev/null ||
        die "apt-get is not available, so ${missing[*]} cannot be installed here: install these Debian packages (or put their engines on PATH) and run again"
    sudo=
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null || die "installing ${missing[*]} needs root (and sudo is not available)"
        sudo=sudo
    fi
    echo "gauntlet: installing ${missing[*]} with apt-get"
    if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; then
        $sudo apt-get update && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" ||
            die "apt-get could not install ${missing[*]}"
    fi
fi

# The UCI options each engine declares (and a check that it speaks UCI).
declare -A declared
uci_options() { # path args... -> the option lines after "uci"
    local text
    text=$( (printf 'uci\n'; sleep 2; printf 'quit\n') | timeout 10 "$@" 2>/dev/null) || true
    grep -q '^uciok' <<<"$text" || return 1
    grep '^option name' <<<"$text" || true
}
opp_args=()
for opp in "${opponents[@]}"; do
    pkg=$(package_of "$opp")
    bin=$(find_binary "$(binary_of "$pkg")")
    [ -n "$bin" ] || die "$pkg is installed but its engine $(binary_of "$pkg") is not found on PATH or in /usr/games"
    extra_args=() options=(option.Hash=16 option.Threads=1)
    case $opp in
    sf*) ;;
    glaurung) options+=(option.OwnBook=false option.Ponder=false) ;;
    toga) options=(option.Hash=16 "option.Number of Threads=1" option.OwnBook=false) ;;
    ethereal) ;;
    gnuchess) extra_args=(args=--uci) options=(option.Hash=16 option.OwnBook=false) ;;
    esac
    if [ -z "${declared[$bin]+x}" ]; then
        if [ "$opp" = gnuchess ]; then
            declared[$bin]=$(uci_options "$bin" --uci) || die "$bin --uci does not answer 'uci' with 'uciok'"
        else
            declared[$bin]=$(uci_options "$bin") || die "$bin does not answer 'uci' with 'uciok'"
        fi
    fi
    if [[ $opp =~ ^sf([0-9]+)$ ]]; then
        elo=${BASH_REMATCH[1]}
        line=$(grep 'option name UCI_Elo ' <<<"${declared[$bin]}") || die "$bin has no UCI_Elo option"
        min=$(sed -n 's/.* min \([0-9]*\).*/\1/p' <<<"$line") max=$(sed -n 's/.* max \([0-9]*\).*/\1/p' <<<"$line")
        if [ -n "$min" ] && [ -n "$max" ] && { [ "$elo" -lt "$min" ] || [ "$elo" -gt "$max" ]; }; then
            die "$opp: this Stockfish takes UCI_Elo from $min to $max"
        fi
        options+=(option.UCI_LimitStrength=true "option.UCI_Elo=$elo")
    fi
    opp_args+=("$opp|$bin|${extra_args[*]}|$(printf '%s\t' "${options[@]}")")
done

# --- arena, with the rate subcommand.
if [ -n "${ARENA:-}" ]; then
    arena=$ARENA
else
    arena=${CARGO_TARGET_DIR:-$root/target}/release/arena
    if ! [ -x "$arena" ] || ! "$arena" rate --help >/dev/null 2>&1; then
        echo "gauntlet: building arena"
        (cd "$root" && cargo build --release -p arena) || die "cannot build arena"
    fi
fi
"$arena" rate --help >/dev/null 2>&1 || die "$arena has no 'rate' subcommand (rebuild it)"

# One arena run of the current pairing (luft, engine, pgn, log): START ROUNDS GAMES_A_ROUND
# [more arena arguments], the openings from START of the same order; exits on a failure.
play_part() {
    local cmd=("$arena" --engine "${luft[@]}" --engine "${engine[@]}" --each "$limit"
        --openings file="$openings" format=epd order=random start="$1"
        --rounds "$2" --games "$3" --concurrency "$concurrency" --seed "$seed"
        --pgnout "$pgn" --recover --ratinginterval 0 "${@:4}")
    # shellcheck disable=SC2206 # --extra is split into words on purpose
    [ -n "$extra" ] && cmd+=($extra)
    printf '%q ' "${cmd[@]}" >>"$out/commands.txt"
    echo >>"$out/commands.txt"
    echo "$name vs $opp: $(($2 * $3)) games (log $log)"
    "${cmd[@]}" >>"$log" 2>&1
    local rc=$?
    [ "$interrupted" = 0 ] || die "interrupted; run the same command again to go on"
    # 0 is a match played out (arena has no SPRT here); 2 an interruption, 3 an error.
    [ "$rc" = 0 ] || die "arena failed on $name vs $opp (exit code $rc); see $log"
}

interrupted=0
trap 'interrupted=1' INT TERM
echo "gauntlet: ${luft_names[*]} against ${opponents[*]}: $games games each at $limit, 1 thread, 16 MB, into $out"
for i in "${!luft_names[@]}"; do
    name=${luft_names[$i]}
    luft=(cmd="${luft_cmds[$i]}" name="$name" option.Hash=16 option.Threads=1)
    [ -n "${luft_nets[$i]}" ] && luft+=(option.EvalFile="${luft_nets[$i]}")
    for entry in "${opp_args[@]}"; do
        IFS='|' read -r opp bin args opts <<<"$entry"
        IFS=$'\t' read -r -a options <<<"$opts"
        engine=(cmd="$bin" name="$opp")
        [ -n "$args" ] && engine+=("$args")
        engine+=("${options[@]}")
        pgn=$out/$name-vs-$opp.pgn log=$out/$name-vs-$opp.log
        done_games=0
        [ -f "$pgn" ] && done_games=$(grep -cE '^\[Result "(1-0|0-1|1/2-1/2)"\]' "$pgn")
        if [ "$done_games" -ge "$games" ]; then
            echo "$name vs $opp: done ($done_games games in $pgn)"
            continue
        fi
        # Complete a partial pairing with the next openings of the same order. An odd count
        # is a pair cut in half: its missing game (the same opening, colours reversed) is
        # played alone first, so no opening is played twice with the same colours.
        if [ $((done_games % 2)) = 1 ]; then
            play_part $((done_games / 2 + 1)) 1 1 --reverse
            done_games=$((done_games + 1))
        fi
        rounds=$(((games - done_games + 1) / 2))
        [ "$rounds" -gt 0 ] && play_part $((done_games / 2 + 1)) "$rounds" 2
        grep '^Games:' "$log" | tail -n 1 | sed "s/^/    /"
    done
done

anchor_args=()
if [ -z "$anchor" ]; then
    for opp in "${opponents[@]}"; do
        if [[ $opp =~ ^sf([0-9]+)$ ]]; then
            anchor_args=(--anchor "$opp=${BASH_REMATCH[1]}")
            break
        fi
    done
elif [ "$anchor" != none ]; then
    anchor_args=(--anchor "$anchor")
fi
"$arena" rate "${anchor_args[@]}" "$out"/*.pgn >"$out/ratings.txt" || die "arena rate failed"
cat "$out/ratings.txt"
