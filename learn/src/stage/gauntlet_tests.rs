//! The gauntlet stage: a gauntlet killed after arena saved its state resumes from that
//! state to the uninterrupted gauntlet's records; a torn `gauntlet_done` is made again (the
//! games rated again) and a damaged earlier record refused; settings changed while killed
//! leave the gauntlet under way its engines, limits and games, and its rating takes the
//! anchor of now. Ratings come from arena's rating library.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::stage::gate_math::{reading_of, write_state};
use crate::stage::testkit::{
    calls, candidate, decisions, edit_settings, finish, kill_when, new_run, open, temp, torn_then_damaged,
};

const SETTINGS: &str = "[selfplay]\nthreads_busy = 0\n[train]\nevery_positions = 1000000000\n\
    [gauntlet]\nevery = 1\nnodes = 300\ngames = 4\nanchor = \"sf=2200\"\n\
    [[gauntlet.opponents]]\nname = \"sf\"\nengine = [\"cmd=/bin/true\"]\n";

/// PGN text of games of gen2-32 against sf with White's results `results`.
fn pgn(results: &[&str]) -> String {
    results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let (white, black) = if i % 2 == 0 {
                ("gen2-32", "sf")
            } else {
                ("sf", "gen2-32")
            };
            format!("[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{r}\"]\n\n1. e4 {r}\n\n")
        })
        .collect()
}

/// A run whose journal holds a promoted candidate (testkit's `candidate`), with an
/// arena that saves a state and two games (then sleeps while `DIR/stall` exists) and then
/// all four games, appended as arena appends to the PGN it found at its first start.
fn run(dir: &Path) -> RunDir {
    std::fs::create_dir_all(dir).unwrap();
    write_state(&dir.join("state.json"), 2, [0, 1, 0, 0, 0]);
    std::fs::write(dir.join("two.pgn"), pgn(&["1-0", "1/2-1/2"])).unwrap();
    std::fs::write(dir.join("four.pgn"), pgn(&["1-0", "1/2-1/2", "0-1", "0-1"])).unwrap();
    let d = |name: &str| dir.join(name).display().to_string();
    let arena = format!(
        "for a in \"$@\"; do case \"$a\" in outname=*) state=${{a#outname=}};; file=*state.json) state=${{a#file=}};; esac; done\n\
         games=$(dirname \"$state\")/games.pgn\n\
         if [ ! -e \"$state\" ]; then\n  cp \"$games\" \"$games.before\" 2>/dev/null || : > \"$games.before\"\n  \
         cat \"$games.before\" '{}' > \"$games\"\n  cp '{}' \"$state.part\" && mv \"$state.part\" \"$state\"\n  \
         [ -e '{}' ] && exec sleep 30\nfi\ncat \"$games.before\" '{}' > \"$games\"",
        d("two.pgn"),
        d("state.json"),
        d("stall"),
        d("four.pgn")
    );
    let run = new_run(dir, SETTINGS, &[("arena", &arena)]);
    candidate(&run, reading_of([0, 2, 8, 40, 50], 1000), 5);
    run
}

fn rated(cx: &Context) -> bool {
    cx.state.gauntlets.first().is_some_and(|g| g.done.is_some())
}

/// The run of `dir` with its arena killed after it saved its state and two games.
fn killed(dir: &Path) -> RunDir {
    let run = run(dir);
    let state = run.path(Path::new("gauntlets/gen2-32/state.json"));
    kill_when::<Gauntlet>(&run, &dir.join("stall"), || state.exists());
    run
}

#[test]
fn a_gauntlet_killed_under_way_resumes_from_arenas_state_to_the_same_records() {
    let dir = temp("gauntlet-kill");
    let whole = run(&dir.join("whole"));
    let mut cx = open(&whole);
    finish(&mut cx, &mut Gauntlet::default(), rated);
    let reference = decisions(&cx);
    let (games, elo, error, table) = cx.state.gauntlets[0].done.clone().unwrap();
    assert_eq!(games, 4);
    assert!(
        elo.is_some_and(|e| e > 2200.0) && error.is_some_and(|e| e > 0.0),
        "2.5 of 4"
    );
    assert!(whole.path(Path::new("gauntlets/gen2-32/ratings.txt")).exists());
    assert!(table.contains("the anchor sf=2200"), "{table}");

    let broken = dir.join("broken");
    let run = killed(&broken);
    let mut cx = open(&run);
    finish(&mut cx, &mut Gauntlet::default(), rated);
    assert_eq!(decisions(&cx), reference);
    let played = calls(&broken, "arena");
    assert_eq!(played.len(), 2, "{played:?}");
    assert!(played[0].starts_with("-tournament gauntlet") && played[0].contains("-rounds 2"));
    assert_eq!(played[1], "-config file=gauntlets/gen2-32/state.json");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn games_a_killed_first_start_left_without_a_saved_state_are_not_rated_again() {
    // arena appends to an existing PGN (as fastchess does) and saves its state only after
    // a game: a kill between the two leaves games no state accounts for. The fresh start
    // must not rate them beside its own.
    let dir = temp("gauntlet-unsaved");
    let run = run(&dir);
    let games = run.path(Path::new("gauntlets/gen2-32/games.pgn"));
    std::fs::create_dir_all(games.parent().unwrap()).unwrap();
    std::fs::write(&games, pgn(&["0-1", "1-0"])).unwrap();
    let mut cx = open(&run);
    cx.record(Record::GauntletStarted {
        t: now(),
        net: "gen2-32".into(),
        args: Vec::new(),
        games: 4,
    })
    .unwrap();
    let mut cx = open(&run);
    finish(&mut cx, &mut Gauntlet::default(), rated);
    let (games, ..) = cx.state.gauntlets[0].done.clone().unwrap();
    assert_eq!(games, 4, "the fresh start's games only");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_torn_gauntlet_record_is_made_again_and_a_damaged_earlier_one_refused() {
    let dir = temp("gauntlet-damage");
    torn_then_damaged::<Gauntlet>(&run(&dir), rated);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn settings_changed_while_killed_keep_the_gauntlets_games_and_rate_with_the_anchor_of_now() {
    let dir = temp("gauntlet-settings");
    let whole = run(&dir.join("whole"));
    let mut cx = open(&whole);
    finish(&mut cx, &mut Gauntlet::default(), rated);
    let elo = cx.state.gauntlets[0].done.clone().unwrap().1.unwrap();

    let broken = dir.join("broken");
    let run = killed(&broken);
    edit_settings(&run, "games = 4", "games = 8");
    edit_settings(&run, "nodes = 300", "nodes = 500");
    edit_settings(&run, "anchor = \"sf=2200\"", "anchor = \"sf=1000\"");
    let mut cx = open(&run);
    finish(&mut cx, &mut Gauntlet::default(), rated);
    let played = calls(&broken, "arena");
    assert_eq!(played[1], "-config file=gauntlets/gen2-32/state.json");
    let g = &cx.state.gauntlets[0];
    assert_eq!(g.games, 4, "the games of its start");
    let (games, rerated, _, table) = g.done.clone().unwrap();
    assert_eq!(games, 4);
    assert!((rerated.unwrap() - (elo - 1200.0)).abs() < 1e-6, "{table}");
    assert!(table.contains("the anchor sf=1000"), "{table}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn gauntlets_are_rated_by_arenas_rating_library() {
    let dir = temp("gauntlet-rate");
    let file = dir.join("games.pgn");
    let text = pgn(&["1-0", "1/2-1/2", "0-1", "0-1"]) + &pgn(&["*"]);
    std::fs::write(&file, text).unwrap();
    let (ratings, table) = rate(&file, Path::new("gauntlets/gen2-32/games.pgn"), "sf=2200").unwrap();
    let of = |name: &str| ratings.iter().find(|r| r.name == name).unwrap();
    assert_eq!((of("sf").elo, of("sf").error), (2200.0, 0.0));
    // 2.5 of 4 points: above the anchor.
    assert!(of("gen2-32").elo > 2200.0 && of("gen2-32").error > 0.0);
    assert_eq!(of("gen2-32").games, 4);
    assert!(
        table.starts_with("4 games of 2 players from gauntlets/gen2-32/games.pgn (1 unfinished left out)"),
        "{table}"
    );
    assert!(table.contains(&arena::rating::render(&ratings)), "{table}");
    assert!(rate(&file, &file, "sf").is_err(), "an anchor without a rating");
    assert!(
        rate(&file, &file, "nobody=0").is_err(),
        "an anchor that did not play"
    );
    assert!(rate(&dir.join("none.pgn"), &file, "").is_err());
    std::fs::remove_dir_all(&dir).ok();
}
