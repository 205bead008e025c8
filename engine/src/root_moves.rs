//! The root moves one search may play, derived once per search and read by everything that
//! needs them: the search of every thread leaves out [`RootMoves::excluded`] (and searches
//! MultiPV lines among [`RootMoves::allowed`]), the answer is always one of the allowed
//! moves, the strength limit chooses among them, and the tablebase root filter
//! (`crate::syzygy`) ranks them and drops those that spoil the result
//! ([`RootMoves::exclude`]). `go searchmoves` is where they start: the legal moves it names,
//! or all of them when it names none that is legal.

use movegen::{Board, Move};

/// The legal root moves split into those the search may play and those it leaves out.
/// For a position with legal moves at least one is always allowed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RootMoves {
    /// The moves that may be searched and played, in move generation order.
    allowed: Vec<Move>,
    /// The legal moves left out (`searchmoves` and the tablebase filter), in the order
    /// they were left out.
    excluded: Vec<Move>,
}

impl RootMoves {
    /// The root moves of `board` for `go searchmoves` with `search_moves`: the legal ones
    /// among them, or every legal move when `search_moves` is empty or names no legal move
    /// (illegal entries are ignored).
    pub fn new(board: &Board, search_moves: &[Move]) -> RootMoves {
        let legal = board.legal_moves();
        let named = |m: &Move| search_moves.contains(m);
        if !legal.iter().any(named) {
            return RootMoves {
                allowed: legal.iter().copied().collect(),
                excluded: Vec::new(),
            };
        }
        let (allowed, excluded) = legal.iter().copied().partition(named);
        RootMoves { allowed, excluded }
    }

    /// Leaves `moves` out as well (those not allowed are ignored). Refused, changing
    /// nothing, when it would leave no move allowed: returns whether it was done.
    pub fn exclude(&mut self, moves: &[Move]) -> bool {
        if self.allowed.iter().all(|m| moves.contains(m)) {
            return false;
        }
        let (out, kept): (Vec<Move>, Vec<Move>) =
            self.allowed.iter().copied().partition(|m| moves.contains(m));
        self.allowed = kept;
        self.excluded.extend(out);
        true
    }

    /// The moves the search may play; empty only for a position without legal moves.
    pub fn allowed(&self) -> &[Move] {
        &self.allowed
    }

    /// The legal moves the search leaves out.
    pub fn excluded(&self) -> &[Move] {
        &self.excluded
    }

    /// Whether the search may play `mv`.
    pub fn allows(&self, mv: Move) -> bool {
        self.allowed.contains(&mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn searchmoves_then_the_tablebase_filter_narrow_the_root() {
        let board = Board::startpos();
        let mv = |uci: &str| board.parse_uci(uci).unwrap();
        let all = RootMoves::new(&board, &[]);
        assert_eq!((all.allowed().len(), all.excluded().len()), (20, 0));
        // The legal moves named; an illegal one is ignored.
        let mut after = board;
        after.play(mv("e2e4"));
        let black = after.parse_uci("e7e5").unwrap();
        let mut some = RootMoves::new(&board, &[mv("a2a3"), black, mv("g1f3")]);
        assert_eq!(some.allowed().len(), 2);
        assert!(some.allows(mv("a2a3")) && some.allows(mv("g1f3")));
        assert_eq!(some.excluded().len(), 18);
        assert!(!some.allows(mv("e2e4")) && some.excluded().contains(&mv("e2e4")));
        // Only illegal ones named: every move.
        assert_eq!(RootMoves::new(&board, &[black]), all);
        // A filter leaves out what it may, never the last move.
        assert!(some.exclude(&[mv("a2a3"), mv("e2e4")]));
        assert_eq!(some.allowed(), [mv("g1f3")]);
        assert_eq!(some.excluded().len(), 19);
        assert!(!some.exclude(&[mv("g1f3")]));
        assert_eq!(some.allowed(), [mv("g1f3")]);
        // No legal moves: nothing allowed, nothing to leave out.
        let mate = Board::from_fen("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(RootMoves::new(&mate, &[]), RootMoves::default());
    }
}
