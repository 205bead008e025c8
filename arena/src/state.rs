//! Saving and resuming a tournament (`-config outname=F`, `-autosaveinterval N`,
//! `-config file=F`), in a small JSON file:
//!
//! ```json
//! {"arena_state": 1,
//!  "args": ["-engine", "cmd=./new", "..."],
//!  "done": [[0, 39], [41, 41]],
//!  "pairs": [{"first": 0, "second": 1, "tri": [10, 15, 15], "penta": [1, 4, 8, 5, 2], "wl": 3}],
//!  "games": [[0, 1, 2], [1, 0, 1]]}
//! ```
//!
//! `args` is the command line the tournament was started with (without `-config`), so the
//! resumed run plays the same engines, openings in the same order and the same schedule.
//! `done` lists the encounters (game pairs, or single games with `-games 1`) whose every
//! game has finished, as inclusive ranges of encounter numbers from 0; a resumed run plays
//! only the others, so a pair cut in half by an interruption is played again whole. `pairs`
//! holds the counts of the done encounters for each pair of engines, from the first's side
//! (`wl` is how many of the `penta[2]` pairs were a win and a loss); `games` holds each done
//! game as [white, black, White's half-points] (kept only with more than two engines, for
//! the joint rating). The file is written to a temporary name and renamed, so an
//! interruption never leaves half a file.

use crate::runner::Tally;

/// What a saved tournament holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SavedState {
    /// The tournament's command line without `-config`, to rebuild it on resume.
    pub args: Vec<String>,
    /// Done encounters, as inclusive ranges.
    pub done: Vec<(u64, u64)>,
    /// (first engine, second engine, counts from the first's side).
    pub pairs: Vec<(usize, usize, Tally)>,
    /// (white, black, White's half-points).
    pub games: Vec<(usize, usize, u8)>,
}

/// The version written in `arena_state`.
const VERSION: u64 = 1;

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_list(items: impl Iterator<Item = String>) -> String {
    format!("[{}]", items.collect::<Vec<_>>().join(", "))
}

impl SavedState {
    /// The state as JSON text.
    pub fn to_json(&self) -> String {
        let args = json_list(self.args.iter().map(|a| json_string(a)));
        let done = json_list(self.done.iter().map(|(a, b)| format!("[{a}, {b}]")));
        let pairs = json_list(self.pairs.iter().map(|(first, second, t)| {
            format!(
                "{{\"first\": {first}, \"second\": {second}, \"tri\": {}, \"penta\": {}, \"wl\": {}}}",
                json_list(t.tri.iter().map(u64::to_string)),
                json_list(t.penta.iter().map(u64::to_string)),
                t.wl
            )
        }));
        let games = json_list(self.games.iter().map(|(w, b, p)| format!("[{w}, {b}, {p}]")));
        format!(
            "{{\"arena_state\": {VERSION},\n \"args\": {args},\n \"done\": {done},\n \"pairs\": {pairs},\n \"games\": {games}}}\n"
        )
    }

    /// Reads the JSON text [`SavedState::to_json`] writes.
    pub fn from_json(text: &str) -> Result<SavedState, String> {
        let mut parser = Json {
            chars: text.chars().collect(),
            at: 0,
        };
        let value = parser.value(0)?;
        parser.skip_space();
        if parser.at < parser.chars.len() {
            return Err(format!("unexpected text at character {}", parser.at));
        }
        let field = |name: &str| -> Result<&Value, String> {
            match &value {
                Value::Object(fields) => fields
                    .iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v)
                    .ok_or_else(|| format!("no \"{name}\" field")),
                _ => Err("not a JSON object".into()),
            }
        };
        match field("arena_state")? {
            Value::Number(v) if *v == VERSION => {}
            _ => return Err(format!("not an arena state file of version {VERSION}")),
        }
        let list = |v: &Value, what: &str| -> Result<Vec<Value>, String> {
            match v {
                Value::Array(items) => Ok(items.clone()),
                _ => Err(format!("\"{what}\" is not a list")),
            }
        };
        let numbers = |v: &Value, n: usize, what: &str| -> Result<Vec<u64>, String> {
            let items = list(v, what)?;
            let nums: Option<Vec<u64>> = items
                .iter()
                .map(|i| match i {
                    Value::Number(x) => Some(*x),
                    _ => None,
                })
                .collect();
            match nums {
                Some(nums) if nums.len() == n => Ok(nums),
                _ => Err(format!("\"{what}\" holds {n} whole numbers, not {v:?}")),
            }
        };
        let mut state = SavedState::default();
        for a in list(field("args")?, "args")? {
            match a {
                Value::String(s) => state.args.push(s),
                _ => return Err("\"args\" holds strings only".into()),
            }
        }
        for range in list(field("done")?, "done")? {
            let r = numbers(&range, 2, "done")?;
            if r[0] > r[1] {
                return Err(format!("\"done\" has a backward range [{}, {}]", r[0], r[1]));
            }
            state.done.push((r[0], r[1]));
        }
        for pair in list(field("pairs")?, "pairs")? {
            let Value::Object(fields) = &pair else {
                return Err("\"pairs\" holds objects".into());
            };
            let get = |name: &str| {
                fields
                    .iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v)
                    .ok_or_else(|| format!("a pair without \"{name}\""))
            };
            let one = |name: &str| -> Result<u64, String> {
                match get(name)? {
                    Value::Number(x) => Ok(*x),
                    _ => Err(format!("\"{name}\" is not a whole number")),
                }
            };
            let tri = numbers(get("tri")?, 3, "tri")?;
            let penta = numbers(get("penta")?, 5, "penta")?;
            let tally = Tally {
                tri: [tri[0], tri[1], tri[2]],
                penta: [penta[0], penta[1], penta[2], penta[3], penta[4]],
                wl: one("wl")?,
            };
            if tally.wl > tally.penta[2] {
                return Err("a pair's \"wl\" exceeds its penta[2]".into());
            }
            state
                .pairs
                .push((one("first")? as usize, one("second")? as usize, tally));
        }
        for game in list(field("games")?, "games")? {
            let g = numbers(&game, 3, "games")?;
            if g[2] > 2 {
                return Err("a game's half-points must be 0, 1 or 2".into());
            }
            state.games.push((g[0] as usize, g[1] as usize, g[2] as u8));
        }
        Ok(state)
    }

    /// Whether encounter `e` is done.
    pub fn is_done(&self, e: u64) -> bool {
        self.done.iter().any(|&(a, b)| a <= e && e <= b)
    }
}

/// Inclusive ranges of a sorted set of numbers.
pub fn ranges(sorted: impl IntoIterator<Item = u64>) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for e in sorted {
        match out.last_mut() {
            Some((_, end)) if *end + 1 == e => *end = e,
            _ => out.push((e, e)),
        }
    }
    out
}

/// Writes `state` to `path` (through a temporary file and a rename).
pub fn save(path: &str, state: &SavedState) -> Result<(), String> {
    let tmp = format!("{path}.tmp");
    std::fs::write(&tmp, state.to_json()).map_err(|e| format!("cannot write {tmp}: {e}"))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot rename {tmp} to {path}: {e}"))
}

/// Reads a state file.
pub fn load(path: &str) -> Result<SavedState, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    SavedState::from_json(&text).map_err(|e| format!("{path}: {e}"))
}

#[derive(Clone, Debug, PartialEq)]
enum Value {
    Null,
    Bool(bool),
    Number(u64),
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

/// A JSON reader for the values the state file holds (numbers are whole).
struct Json {
    chars: Vec<char>,
    at: usize,
}

impl Json {
    fn skip_space(&mut self) {
        while self.chars.get(self.at).is_some_and(|c| c.is_whitespace()) {
            self.at += 1;
        }
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        self.skip_space();
        if self.chars.get(self.at) == Some(&c) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected {c:?} at character {}", self.at))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth > 32 {
            return Err("nested too deep".into());
        }
        self.skip_space();
        match self.chars.get(self.at) {
            Some('{') => {
                self.at += 1;
                let mut fields = Vec::new();
                self.skip_space();
                if self.chars.get(self.at) == Some(&'}') {
                    self.at += 1;
                    return Ok(Value::Object(fields));
                }
                loop {
                    self.skip_space();
                    let key = match self.value(depth + 1)? {
                        Value::String(s) => s,
                        _ => return Err(format!("a key that is not a string at character {}", self.at)),
                    };
                    self.expect(':')?;
                    fields.push((key, self.value(depth + 1)?));
                    self.skip_space();
                    match self.chars.get(self.at) {
                        Some(',') => self.at += 1,
                        Some('}') => {
                            self.at += 1;
                            return Ok(Value::Object(fields));
                        }
                        _ => return Err(format!("expected ',' or '}}' at character {}", self.at)),
                    }
                }
            }
            Some('[') => {
                self.at += 1;
                let mut items = Vec::new();
                self.skip_space();
                if self.chars.get(self.at) == Some(&']') {
                    self.at += 1;
                    return Ok(Value::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.skip_space();
                    match self.chars.get(self.at) {
                        Some(',') => self.at += 1,
                        Some(']') => {
                            self.at += 1;
                            return Ok(Value::Array(items));
                        }
                        _ => return Err(format!("expected ',' or ']' at character {}", self.at)),
                    }
                }
            }
            Some('"') => {
                self.at += 1;
                let mut s = String::new();
                loop {
                    let c = *self.chars.get(self.at).ok_or("a string is not closed")?;
                    self.at += 1;
                    match c {
                        '"' => return Ok(Value::String(s)),
                        '\\' => {
                            let e = *self.chars.get(self.at).ok_or("a string is not closed")?;
                            self.at += 1;
                            match e {
                                '"' | '\\' | '/' => s.push(e),
                                'n' => s.push('\n'),
                                'r' => s.push('\r'),
                                't' => s.push('\t'),
                                'b' => s.push('\u{8}'),
                                'f' => s.push('\u{c}'),
                                'u' => {
                                    let hex: String = self.chars.iter().skip(self.at).take(4).collect();
                                    let code = u32::from_str_radix(&hex, 16)
                                        .map_err(|_| format!("bad \\u escape at character {}", self.at))?;
                                    self.at += 4;
                                    s.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                                }
                                other => return Err(format!("bad escape \\{other}")),
                            }
                        }
                        c => s.push(c),
                    }
                }
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.at;
                while self.chars.get(self.at).is_some_and(|c| c.is_ascii_digit()) {
                    self.at += 1;
                }
                let text: String = self.chars[start..self.at].iter().collect();
                text.parse()
                    .map(Value::Number)
                    .map_err(|_| format!("number {text} too large"))
            }
            _ => {
                for (word, value) in [
                    ("true", Value::Bool(true)),
                    ("false", Value::Bool(false)),
                    ("null", Value::Null),
                ] {
                    let end = self.at + word.len();
                    if end <= self.chars.len() && self.chars[self.at..end].iter().collect::<String>() == word
                    {
                        self.at = end;
                        return Ok(value);
                    }
                }
                Err(format!("unexpected character at {}", self.at))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_goes_round_trip() {
        let state = SavedState {
            args: vec!["-engine".into(), "cmd=./a b\"c\\d".into(), "name=é\n".into()],
            done: ranges([0, 1, 2, 5, 7, 8]),
            pairs: vec![(
                0,
                1,
                Tally {
                    tri: [1, 2, 3],
                    penta: [0, 1, 2, 1, 0],
                    wl: 1,
                },
            )],
            games: vec![(0, 1, 2), (1, 0, 0)],
        };
        assert_eq!(state.done, [(0, 2), (5, 5), (7, 8)]);
        assert!(state.is_done(1) && state.is_done(8) && !state.is_done(3) && !state.is_done(6));
        assert_eq!(SavedState::from_json(&state.to_json()), Ok(state));
    }

    #[test]
    fn broken_files_are_refused_with_a_reason() {
        for (text, why) in [
            ("", "unexpected character"),
            ("{\"arena_state\": 2}", "not an arena state file"),
            (
                "{\"arena_state\": 1, \"args\": [1]}",
                "\"args\" holds strings only",
            ),
            ("[1, 2", "expected ',' or ']'"),
            ("{\"arena_state\": 1} x", "unexpected text"),
        ] {
            let e = SavedState::from_json(text).unwrap_err();
            assert!(e.contains(why), "{text:?}: {e}");
        }
    }
}
