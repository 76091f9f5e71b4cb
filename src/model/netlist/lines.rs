//! The netlist's text as SPICE reads it: logical lines and their tokens.
//!
//! The first line of a netlist file is its title (SPICE ignores whatever it
//! says); a line whose first non-blank character is `*` is a comment, and
//! `;`, `//` and a `$` after a blank start a comment that runs to the end of
//! the line (ngspice's inline comments). A line starting with `+` continues
//! the previous one. `.end` ends the netlist; an ngspice `.control` ...
//! `.endc` block (commands for ngspice's interpreter) is skipped. Each
//! logical line keeps the number of its first physical line, for messages.
//!
//! Tokens are separated by blanks and commas; `(`, `)` and `=` are tokens of
//! their own; `{...}` and `'...'` are expressions kept whole (with their
//! blanks, commas and parentheses).

use super::NetError;

/// One logical line: the continuation lines joined, comments removed.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// 1-based number of its first physical line.
    pub number: usize,
    pub text: String,
}

/// What the line splitter found besides the statements.
#[derive(Debug, Default)]
pub struct Text {
    /// The first line, when the text has one.
    pub title: Option<String>,
    pub lines: Vec<Line>,
    /// Physical lines skipped in `.control` blocks, by first line number.
    pub control_blocks: Vec<usize>,
}

/// Splits `text` into logical lines. With `title`, the first physical line
/// is the title (netlist files); without, every line is a statement (a
/// netlist inside a TOML model, whose name and description are the model's).
pub fn split(text: &str, title: bool) -> Result<Text, NetError> {
    let mut out = Text::default();
    let mut in_control: Option<usize> = None;
    for (k, raw) in text.lines().enumerate() {
        let number = k + 1;
        if title && k == 0 {
            out.title = Some(raw.trim().to_string());
            continue;
        }
        let line = strip_comment(raw);
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('*') {
            continue;
        }
        let lower = trimmed.to_ascii_lowercase();
        let first = lower.split_whitespace().next().unwrap_or("");
        if in_control.is_some() {
            if first == ".endc" {
                in_control = None;
            }
            continue;
        }
        match first {
            ".control" => {
                in_control = Some(number);
                out.control_blocks.push(number);
                continue;
            }
            ".endc" => {
                return Err(NetError::at(number, ".endc without .control"));
            }
            ".end" => return Ok(out),
            _ => {}
        }
        if let Some(rest) = trimmed.strip_prefix('+') {
            let Some(last) = out.lines.last_mut() else {
                return Err(NetError::at(
                    number,
                    "a continuation line ('+') with no line before it to continue",
                ));
            };
            last.text.push(' ');
            last.text.push_str(rest.trim());
            continue;
        }
        out.lines.push(Line {
            number,
            text: trimmed.to_string(),
        });
    }
    if let Some(start) = in_control {
        return Err(NetError::at(start, ".control without .endc"));
    }
    Ok(out)
}

/// The line without its inline comment (`;`, `//`, or `$` after a blank).
/// Text inside `{...}` and `'...'` is left alone.
fn strip_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    let mut depth = 0usize;
    let mut quoted = false;
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'{' if !quoted => depth += 1,
            b'}' if !quoted => depth = depth.saturating_sub(1),
            b'\'' if depth == 0 => quoted = !quoted,
            _ if depth > 0 || quoted => {}
            b';' => return &line[..i],
            b'/' if bytes.get(i + 1) == Some(&b'/') => return &line[..i],
            b'$' if i == 0 || bytes[i - 1].is_ascii_whitespace() => return &line[..i],
            _ => {}
        }
    }
    line
}

/// A token of a logical line.
#[derive(Clone, Debug, PartialEq)]
pub enum Token {
    /// A name, a number or a keyword, as written.
    Word(String),
    /// The text inside `{...}` or `'...'`.
    Expr(String),
    Open,
    Close,
    Equals,
}

impl Token {
    /// The token as the user wrote it, for messages.
    pub fn text(&self) -> String {
        match self {
            Token::Word(w) => w.clone(),
            Token::Expr(e) => format!("{{{e}}}"),
            Token::Open => "(".into(),
            Token::Close => ")".into(),
            Token::Equals => "=".into(),
        }
    }

    /// The word in lower case, if the token is a word.
    pub fn keyword(&self) -> Option<String> {
        match self {
            Token::Word(w) => Some(w.to_ascii_lowercase()),
            _ => None,
        }
    }
}

/// The tokens of one logical line.
pub fn tokens(line: &Line) -> Result<Vec<Token>, NetError> {
    let mut out = Vec::new();
    let mut chars = line.text.char_indices().peekable();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<Token>| {
        if !word.is_empty() {
            out.push(Token::Word(std::mem::take(word)));
        }
    };
    while let Some((_, c)) = chars.next() {
        match c {
            c if c.is_whitespace() || c == ',' => flush(&mut word, &mut out),
            '(' | ')' | '=' => {
                flush(&mut word, &mut out);
                out.push(match c {
                    '(' => Token::Open,
                    ')' => Token::Close,
                    _ => Token::Equals,
                });
            }
            '{' | '\'' => {
                flush(&mut word, &mut out);
                let close = if c == '{' { '}' } else { '\'' };
                let mut depth = 1usize;
                let mut inner = String::new();
                loop {
                    let Some((_, d)) = chars.next() else {
                        return Err(NetError::at(
                            line.number,
                            format!("'{c}' is never closed (expected '{close}')"),
                        ));
                    };
                    if c == '{' && d == '{' {
                        depth += 1;
                    } else if d == close {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    inner.push(d);
                }
                out.push(Token::Expr(inner.trim().to_string()));
            }
            '}' => {
                return Err(NetError::at(line.number, "'}' without '{'"));
            }
            c => word.push(c),
        }
    }
    flush(&mut word, &mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<(usize, String)> {
        split(text, true)
            .unwrap()
            .lines
            .into_iter()
            .map(|l| (l.number, l.text))
            .collect()
    }

    #[test]
    fn title_comments_continuations_and_end() {
        let text = "my title R1 a b 1\n* comment\nR1 a b 1k ; inline\n+ extra\n\n  $ all comment\nC1 b 0 {2*x} // c\n.end\nR9 ignored 0 1\n";
        assert_eq!(
            lines(text),
            vec![
                (3, "R1 a b 1k extra".to_string()),
                (7, "C1 b 0 {2*x}".to_string())
            ]
        );
        assert!(split("t\n+ x\n", true).is_err());
        let t = split("t\n.control\nrun\n.endc\nR1 a 0 1\n", true).unwrap();
        assert_eq!(t.control_blocks, vec![2]);
        assert_eq!(t.lines.len(), 1);
    }

    #[test]
    fn tokens_split_on_blanks_commas_and_parentheses() {
        let line = Line {
            number: 4,
            text: "V1 in 0 SIN(0, 1 50) IC=3 {a*(b+c), 2}".into(),
        };
        let t = tokens(&line).unwrap();
        assert_eq!(
            t,
            vec![
                Token::Word("V1".into()),
                Token::Word("in".into()),
                Token::Word("0".into()),
                Token::Word("SIN".into()),
                Token::Open,
                Token::Word("0".into()),
                Token::Word("1".into()),
                Token::Word("50".into()),
                Token::Close,
                Token::Word("IC".into()),
                Token::Equals,
                Token::Word("3".into()),
                Token::Expr("a*(b+c), 2".into()),
            ]
        );
        let bad = Line {
            number: 2,
            text: "R1 a b {1+".into(),
        };
        assert_eq!(tokens(&bad).unwrap_err().line, 2);
    }
}
