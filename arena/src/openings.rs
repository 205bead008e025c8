//! Opening books: EPD (a FEN, or the four FEN fields with `hmvc` / `fmvn` opcodes) and PGN
//! (each game's start position and its first `plies` moves). Read once, then handed out in
//! file or shuffled order from a start offset, wrapping around at the end.

use crate::play::Opening;
use movegen::pgn::parse_pgn;
use movegen::Board;

/// Reads an EPD opening file. Lines that are empty or start with `#` are skipped.
pub fn read_epd(text: &str) -> Result<Vec<Opening>, String> {
    let mut openings = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 4 {
            return Err(format!("line {}: expected at least 4 FEN fields", i + 1));
        }
        // Six numeric-ended fields: a full FEN; otherwise four fields plus opcodes.
        let full_fen = fields.len() >= 6
            && fields[4].parse::<u32>().is_ok()
            && fields[5].trim_end_matches(';').parse::<u32>().is_ok();
        let fen = if full_fen {
            fields[..6].join(" ").trim_end_matches(';').to_string()
        } else {
            let opcode = |name: &str| {
                line.split(';')
                    .map(str::trim)
                    .find_map(|op| op.strip_prefix(name).map(|v| v.trim().to_string()))
            };
            let hmvc = opcode_in(&fields[4..], "hmvc")
                .or_else(|| opcode("hmvc"))
                .unwrap_or_else(|| "0".into());
            let fmvn = opcode_in(&fields[4..], "fmvn")
                .or_else(|| opcode("fmvn"))
                .unwrap_or_else(|| "1".into());
            format!("{} {hmvc} {fmvn}", fields[..4].join(" "))
        };
        let start = Board::from_fen(&fen).map_err(|e| format!("line {}: {e}", i + 1))?;
        openings.push(Opening {
            start,
            moves: Vec::new(),
        });
    }
    if openings.is_empty() {
        return Err("no openings in the file".into());
    }
    Ok(openings)
}

/// The value after `name` among EPD operation tokens (`hmvc 3;`).
fn opcode_in(tokens: &[&str], name: &str) -> Option<String> {
    let i = tokens.iter().position(|&t| t == name)?;
    tokens.get(i + 1).map(|v| v.trim_end_matches(';').to_string())
}

/// Reads a PGN opening file, keeping at most `plies` moves of each game.
pub fn read_pgn(text: &str, plies: Option<usize>) -> Result<Vec<Opening>, String> {
    let games = parse_pgn(text).map_err(|e| e.to_string())?;
    let openings: Vec<Opening> = games
        .into_iter()
        .map(|g| {
            let keep = plies.unwrap_or(usize::MAX).min(g.moves.len());
            Opening {
                start: g.start,
                moves: g.moves[..keep].to_vec(),
            }
        })
        .collect();
    if openings.is_empty() {
        return Err("no games in the PGN file".into());
    }
    Ok(openings)
}

/// Orders the book: shuffled by `seed` when `random`, then rotated to start at `start`
/// (1-based, as in fastchess).
pub fn arrange(mut openings: Vec<Opening>, random: bool, seed: u64, start: usize) -> Vec<Opening> {
    if random {
        let mut rng = movegen::rng::SplitMix64(seed);
        for i in (1..openings.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            openings.swap(i, j);
        }
    }
    let offset = start.saturating_sub(1) % openings.len().max(1);
    openings.rotate_left(offset);
    openings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_epd_forms() {
        let text = "# comment\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n\
                    rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - hmvc 0; fmvn 2;\n\
                    rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -\n";
        let book = read_epd(text).unwrap();
        assert_eq!(book.len(), 3);
        assert_eq!(book[1].start.fullmove_number(), 2);
        assert_eq!(book[2].start.fullmove_number(), 1);
        assert!(read_epd("not a fen at all").is_err());
        assert!(read_epd("").is_err());
    }

    #[test]
    fn reads_pgn_with_a_ply_limit() {
        let book = read_pgn("1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n\n1. d4 d5 *\n", Some(3)).unwrap();
        assert_eq!(book.len(), 2);
        assert_eq!(book[0].moves.len(), 3);
        assert_eq!(book[1].moves.len(), 2);
    }

    #[test]
    fn arrangement_is_seeded_and_rotated() {
        let book = read_epd(include_str!("../openings/luft-8ply.epd")).unwrap();
        let a = arrange(book.clone(), true, 7, 1);
        let b = arrange(book.clone(), true, 7, 1);
        assert_eq!(a, b);
        assert_ne!(a, arrange(book.clone(), true, 8, 1));
        let rotated = arrange(book.clone(), false, 0, 3);
        assert_eq!(rotated[0], book[2]);
    }
}
