//! Static exchange evaluation: whether the capture sequence on a move's destination square,
//! both sides always recapturing with their least valuable attacker, wins at least
//! `threshold` centipawns. X-rays are found by recomputing slider attacks as pieces leave
//! the board. Used to split good from bad captures and to prune losing moves.

use crate::params::see_value;
use movegen::attacks::{bishop_attacks, rook_attacks};
use movegen::{Board, Move, PieceType};

/// Value of what `mv` captures (a pawn for en passant) plus promotion gain.
pub fn gain(board: &Board, mv: Move) -> i32 {
    let captured = if board.is_en_passant(mv) {
        see_value(PieceType::Pawn)
    } else if board.is_castling(mv) {
        0
    } else {
        board.piece_type_on(mv.to()).map_or(0, see_value)
    };
    captured
        + mv.promotion()
            .map_or(0, |p| see_value(p) - see_value(PieceType::Pawn))
}

/// Whether `mv` wins at least `threshold` by static exchange.
pub fn see(board: &Board, mv: Move, threshold: i32) -> bool {
    if board.is_castling(mv) {
        return threshold <= 0;
    }
    let from = mv.from();
    let to = mv.to();
    let mut balance = gain(board, mv) - threshold;
    if balance < 0 {
        return false;
    }
    let moving = mv
        .promotion()
        .or_else(|| board.piece_type_on(from))
        .unwrap_or(PieceType::Pawn);
    balance -= see_value(moving);
    if balance >= 0 {
        return true;
    }
    let mut occupied = board.occupied() ^ from;
    if board.is_en_passant(mv) {
        occupied ^= movegen::Square::from_coords(to.file(), from.rank());
    }
    occupied |= to;
    let diagonal = board.pieces(PieceType::Bishop) | board.pieces(PieceType::Queen);
    let orthogonal = board.pieces(PieceType::Rook) | board.pieces(PieceType::Queen);
    let mut attackers = board.all_attackers_to(to, occupied) & occupied;
    let mut side = !board.side_to_move();
    loop {
        let ours = attackers & board.colored(side);
        if ours.is_empty() {
            break;
        }
        // The least valuable attacker captures next; sliders behind it join in.
        let (kind, sq) = PieceType::ALL
            .into_iter()
            .find_map(|k| (ours & board.pieces(k)).first().map(|s| (k, s)))
            .expect("a non-empty attacker set has a piece");
        occupied ^= sq;
        if matches!(kind, PieceType::Pawn | PieceType::Bishop | PieceType::Queen) {
            attackers |= bishop_attacks(to, occupied) & diagonal;
        }
        if matches!(kind, PieceType::Rook | PieceType::Queen) {
            attackers |= rook_attacks(to, occupied) & orthogonal;
        }
        attackers &= occupied;
        side = !side;
        balance = -balance - 1 - see_value(kind);
        if balance >= 0 {
            // A king may not capture onto a square the other side still attacks.
            if kind == PieceType::King && (attackers & board.colored(side)).is_nonempty() {
                side = !side;
            }
            break;
        }
    }
    side != board.side_to_move()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known exchanges: (FEN, move in UCI, the exchange's value for the side to move in
    /// centipawns, written in the SEE values `p`, `n`, `b`, `r`, `q` of [`see_value`] (the tuned
    /// defaults of `params`), so a retune changes the numbers, not the sequences asserted.
    /// Each side may stop capturing when going on would lose more; pins are not looked at
    /// (a pinned piece still recaptures), a king only captures onto a square the other side
    /// no longer attacks, and castling is worth 0.
    fn exchanges() -> Vec<(&'static str, &'static str, i32)> {
        let [p, n, b, r, q, _] = PieceType::ALL.map(see_value);
        vec![
            // A free pawn.
            ("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", p),
            // Pawn for pawn.
            ("4k3/8/2p5/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 0),
            // A knight for a defended pawn.
            ("4k3/8/2p5/3p4/8/4N3/8/4K3 w - - 0 1", "e3d5", p - n),
            // A bishop for a knight defended by a pawn.
            ("4k3/8/2p5/3n4/8/8/6B1/4K3 w - - 0 1", "g2d5", n - b),
            // A rook for a pawn defended by a rook...
            ("3rk3/8/8/3p4/8/8/3R4/4K3 w - - 0 1", "d2d5", p - r),
            // ...but with a second rook behind (x-ray) the pawn is won: Black does not recapture.
            ("3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", p),
            // X-ray through the capturing bishop: Bxf6 gxf6 Qxf6 nets a pawn for a bishop.
            ("4k3/6p1/5p2/8/3B4/2Q5/8/4K3 w - - 0 1", "d4f6", p - b + p),
            // A long sequence with x-rays on both sides (Nxe5 Nxe5 Rxe5 Bxe5 Qxe5 Qxe5): Black
            // stops after Nxe5, a knight for a pawn.
            (
                "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1",
                "d3e5",
                p - n,
            ),
            // A queen for a rook defended by a rook (and the king).
            ("3rk3/3r4/8/8/8/8/8/3QK3 w - - 0 1", "d1d7", r - q),
            // En passant wins the pawn...
            ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", p),
            // ...or trades it...
            ("4k3/2p5/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 0),
            // ...and the pawn taken leaves the file: the d1 rook now defends d6, so Black's
            // rook does not recapture.
            ("3rk3/8/8/3pP3/8/8/8/3RK3 w - d6 0 1", "e5d6", p),
            // Promotions gain the new piece less the pawn.
            ("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q", q - p),
            ("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8n", n - p),
            // A promotion onto a defended square loses the queen.
            ("2r1k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q", q - p - q),
            // Capturing and promoting, then losing the new piece.
            ("1r2k3/P2n4/8/8/8/8/8/4K3 w - - 0 1", "a7b8q", r + q - p - q),
            ("1r2k3/P2n4/8/8/8/8/8/4K3 w - - 0 1", "a7b8n", r + n - p - n),
            // The king takes a free pawn.
            ("4k3/8/8/8/8/8/3p4/4K3 w - - 0 1", "e1d2", p),
            // The king recaptures a lone rook...
            ("4k3/4p3/8/8/8/8/8/4RK2 w - - 0 1", "e1e7", p - r),
            // ...but may not when a second rook defends it: the pawn is won.
            ("4k3/4p3/8/8/8/8/4R3/4RK2 w - - 0 1", "e2e7", p),
            // A queen for a pawn that only the king defends.
            ("4k3/3p4/8/8/8/8/8/3QK3 w - - 0 1", "d1d7", p - q),
            // The c6 pawn is pinned to its king by the a4 bishop, but SEE ignores pins: it
            // recaptures, and the rook is lost for the knight.
            ("4k3/8/2p5/3n4/B7/8/8/3RK3 w - - 0 1", "d1d5", n - r),
            // A quiet move onto a square a pawn attacks, and onto a safe one.
            ("4k3/8/8/2p5/8/3P4/8/4K3 w - - 0 1", "d3d4", -p),
            ("4k3/8/8/8/8/3P4/8/4K3 w - - 0 1", "d3d4", 0),
            // Black to move: the same exchanges from the other side.
            ("4k3/8/8/3p4/4P3/5P2/8/4K3 b - - 0 1", "d5e4", 0),
            ("4k3/8/8/3q4/4P3/8/8/4K3 b - - 0 1", "d5e4", p),
        ]
    }

    #[test]
    fn known_exchanges_have_their_exact_values() {
        let exchanges = exchanges();
        assert!(exchanges.len() >= 15);
        for (fen, uci, value) in exchanges {
            let board = Board::from_fen(fen).unwrap();
            let mv = board.parse_uci(uci).unwrap();
            assert!(board.is_legal(mv), "{fen} {uci}");
            // The value is exactly `value`: reached, and not one centipawn more.
            assert!(see(&board, mv, value), "{fen} {uci}: SEE below {value}");
            assert!(!see(&board, mv, value + 1), "{fen} {uci}: SEE above {value}");
            // And every threshold either side agrees.
            for threshold in [-2000, value - 100, value - 1, value + 100, 2000] {
                assert_eq!(
                    see(&board, mv, threshold),
                    threshold <= value,
                    "{fen} {uci} {threshold}"
                );
            }
        }
    }

    #[test]
    fn castling_is_worth_nothing_and_gain_counts_what_is_taken() {
        for (fen, uci) in [
            ("4k3/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1"),
            // Chess960: the king on b1 castles with the a1 rook (written king takes rook).
            ("1k6/8/8/8/8/8/8/RK6 w A - 0 1", "b1a1"),
        ] {
            let board = Board::from_fen(fen).unwrap();
            let mv = board.parse_uci(uci).unwrap();
            assert!(board.is_castling(mv), "{fen} {uci}");
            assert!(see(&board, mv, 0) && !see(&board, mv, 1), "{fen}");
            assert_eq!(gain(&board, mv), 0);
        }
        let board = Board::from_fen("1r2k3/P2n4/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        let [p, _, _, r, q, _] = PieceType::ALL.map(see_value);
        assert_eq!(gain(&board, board.parse_uci("a7b8q").unwrap()), r + q - p);
        let board = Board::from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1").unwrap();
        assert_eq!(gain(&board, board.parse_uci("e5d6").unwrap()), p);
    }
}
