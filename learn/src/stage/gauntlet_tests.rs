//! Gauntlets are rated by arena's rating library.

#![allow(clippy::unwrap_used)]

use super::*;

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

#[test]
fn gauntlets_are_rated_by_arenas_rating_library() {
    let dir = std::env::temp_dir().join(format!("learn-rate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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
