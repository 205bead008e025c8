//! A game: the start position, the moves, and the position after each, with the rules that
//! end a game (`docs/design/RULES.md`): checkmate, stalemate, dead position, threefold (claimable) and
//! fivefold (automatic) repetition, the fifty-move (claimable) and seventy-five-move
//! (automatic) rules. Checkmate always takes precedence, so a mate delivered on the 100th or
//! 150th ply stands.
//!
//! Repetition compares whole positions, not only keys: same pieces on the same squares,
//! side to move, castling rights and legal en passant capture (see `Board::same_position`).

use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::notation::MoveParseError;
use crate::types::{Color, Move, PieceType};

/// Why a game was drawn.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum DrawReason {
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can checkmate by any sequence of legal moves: the cases
    /// [`Board::is_dead_position`] recognises (king against king, a lone minor piece, bishops
    /// all on one colour).
    DeadPosition,
    /// The same position occurred for the third time (claimable).
    ThreefoldRepetition,
    /// The same position occurred for the fifth time (automatic).
    FivefoldRepetition,
    /// 100 plies without a capture or pawn move (claimable).
    FiftyMoveRule,
    /// 150 plies without a capture or pawn move (automatic, unless the last move mates).
    SeventyFiveMoveRule,
}

/// How a game ended by the rules on the board.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Outcome {
    /// The side to move is checkmated; `winner` delivered it.
    Checkmate {
        /// The side that delivered mate.
        winner: Color,
    },
    /// A draw, and why.
    Draw(DrawReason),
}

impl Outcome {
    /// The PGN result token.
    pub fn result_str(&self) -> &'static str {
        match self {
            Outcome::Checkmate { winner: Color::White } => "1-0",
            Outcome::Checkmate { winner: Color::Black } => "0-1",
            Outcome::Draw(_) => "1/2-1/2",
        }
    }

    /// A short human description for PGN `Termination`-style comments.
    pub fn description(&self) -> &'static str {
        match self {
            Outcome::Checkmate { winner: Color::White } => "White mates",
            Outcome::Checkmate { winner: Color::Black } => "Black mates",
            Outcome::Draw(DrawReason::Stalemate) => "Draw by stalemate",
            Outcome::Draw(DrawReason::DeadPosition) => "Draw by insufficient mating material",
            Outcome::Draw(DrawReason::ThreefoldRepetition) => "Draw by threefold repetition",
            Outcome::Draw(DrawReason::FivefoldRepetition) => "Draw by fivefold repetition",
            Outcome::Draw(DrawReason::FiftyMoveRule) => "Draw by fifty-move rule",
            Outcome::Draw(DrawReason::SeventyFiveMoveRule) => "Draw by seventy-five-move rule",
        }
    }
}

impl Board {
    /// Whether no sequence of legal moves can end in mate: K v K, K v K+minor, and kings with
    /// bishops only, all on squares of one colour.
    pub fn is_dead_position(&self) -> bool {
        let heavy =
            self.pieces(PieceType::Pawn) | self.pieces(PieceType::Rook) | self.pieces(PieceType::Queen);
        if heavy.is_nonempty() {
            return false;
        }
        let knights = self.pieces(PieceType::Knight);
        let bishops = self.pieces(PieceType::Bishop);
        let minors = knights | bishops;
        if minors.len() <= 1 {
            return true;
        }
        knights.is_empty()
            && ((bishops & Bitboard::LIGHT_SQUARES).is_empty()
                || (bishops & Bitboard::DARK_SQUARES).is_empty())
    }

    /// Whether `color` could possibly mate by some sequence of legal moves (a helpmate is
    /// enough). Used when a flag falls: a side that cannot mate does not win on time.
    pub fn can_mate(&self, color: Color) -> bool {
        let ours = self.colored(color);
        let their_extras = self.colored(!color) & !self.pieces(PieceType::King);
        let heavy =
            self.pieces(PieceType::Pawn) | self.pieces(PieceType::Rook) | self.pieces(PieceType::Queen);
        let knights = self.pieces(PieceType::Knight) & ours;
        let bishops = self.pieces(PieceType::Bishop) & ours;
        if (heavy & ours).is_nonempty()
            || (knights.is_nonempty() && bishops.is_nonempty())
            || knights.has_many()
        {
            return true;
        }
        if knights.is_nonempty() {
            // A lone knight mates only with an enemy piece boxing its own king in.
            return their_extras.is_nonempty();
        }
        if bishops.is_empty() {
            return false;
        }
        // Bishops alone: a mate needs bishops on both colours, or an enemy piece that is not
        // a bishop to block with.
        let all_bishops = self.pieces(PieceType::Bishop);
        let both_colours = (all_bishops & Bitboard::LIGHT_SQUARES).is_nonempty()
            && (all_bishops & Bitboard::DARK_SQUARES).is_nonempty();
        both_colours || (their_extras & !all_bishops).is_nonempty()
    }
}

/// A game from a start position: the moves played and the position after each.
#[derive(Clone, Debug)]
pub struct Game {
    /// `positions[i]` is the position before move `i`; the last one is the current position.
    positions: Vec<Board>,
    moves: Vec<Move>,
}

impl Default for Game {
    fn default() -> Self {
        Game::new(Board::startpos())
    }
}

impl Game {
    /// A game starting from `start`, no moves played yet.
    pub fn new(start: Board) -> Game {
        Game {
            positions: vec![start],
            moves: Vec::new(),
        }
    }

    /// The current position.
    pub fn board(&self) -> &Board {
        self.positions.last().expect("a game always has a position")
    }

    /// The position the game started from.
    pub fn start(&self) -> &Board {
        &self.positions[0]
    }

    /// The moves played so far, in order (`moves()[i]` was played in `positions()[i]`).
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Every position of the game, the start first and the current one last.
    pub fn positions(&self) -> &[Board] {
        &self.positions
    }

    /// Plays `mv` if it is legal.
    pub fn play(&mut self, mv: Move) -> Result<(), MoveParseError> {
        if !self.board().is_legal(mv) {
            return Err(MoveParseError::IllegalMove(mv.to_string()));
        }
        self.play_unchecked(mv);
        Ok(())
    }

    /// Plays a move known to be legal (from the move generator or a parser).
    pub fn play_unchecked(&mut self, mv: Move) {
        let mut next = *self.board();
        next.play(mv);
        self.positions.push(next);
        self.moves.push(mv);
    }

    /// Takes back the last move, if any.
    pub fn undo(&mut self) -> Option<Move> {
        let mv = self.moves.pop()?;
        self.positions.pop();
        Some(mv)
    }

    /// How many times the current position has occurred, counting itself.
    pub fn repetition_count(&self) -> usize {
        let current = self.board();
        let reversible = current.halfmove_clock() as usize;
        self.positions
            .iter()
            .rev()
            .take(reversible + 1)
            .step_by(2)
            .filter(|b| b.same_position(current))
            .count()
    }

    /// The end of the game by rules that apply automatically: checkmate, stalemate, dead
    /// position, fivefold repetition, seventy-five-move rule. `None` while play goes on.
    pub fn outcome(&self) -> Option<Outcome> {
        let board = self.board();
        if !board.has_legal_move() {
            return Some(if board.in_check() {
                Outcome::Checkmate {
                    winner: !board.side_to_move(),
                }
            } else {
                Outcome::Draw(DrawReason::Stalemate)
            });
        }
        if board.is_dead_position() {
            return Some(Outcome::Draw(DrawReason::DeadPosition));
        }
        if self.repetition_count() >= 5 {
            return Some(Outcome::Draw(DrawReason::FivefoldRepetition));
        }
        if board.halfmove_clock() >= 150 {
            return Some(Outcome::Draw(DrawReason::SeventyFiveMoveRule));
        }
        None
    }

    /// A draw the player to move may claim: threefold repetition or the fifty-move rule.
    /// (Checkmate on the move that completes the 100 plies stands; see [`Game::outcome`].)
    pub fn claimable_draw(&self) -> Option<DrawReason> {
        if self.repetition_count() >= 3 {
            return Some(DrawReason::ThreefoldRepetition);
        }
        if self.board().halfmove_clock() >= 100 {
            return Some(DrawReason::FiftyMoveRule);
        }
        None
    }

    /// The outcome as match runners adjudicate it: the automatic endings, then claimable
    /// draws as if claimed at once. Checkmate takes precedence over everything.
    pub fn outcome_with_claims(&self) -> Option<Outcome> {
        match self.outcome() {
            Some(o @ Outcome::Checkmate { .. }) | Some(o @ Outcome::Draw(DrawReason::Stalemate)) => Some(o),
            other => self.claimable_draw().map(Outcome::Draw).or(other),
        }
    }
}
