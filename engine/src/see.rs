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
    let mut attackers = (board.attackers_to(to, movegen::Color::White, occupied)
        | board.attackers_to(to, movegen::Color::Black, occupied))
        & occupied;
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
