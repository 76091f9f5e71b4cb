//! Progress bars for long runs, drawn on standard error only when it is a
//! terminal: a pipe, a log file or a test harness gets nothing, so output that
//! scripts read stays exactly what it was.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// A bar of `len` units, or `None` when standard error is not a terminal.
pub fn bar(len: u64, template: &str) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    Some(bar)
}
