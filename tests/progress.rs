//! `litmus check`'s progress bar: drawn on a terminal (a real pty, through
//! util-linux `script`) with the phase and the executions so far, cleared
//! before the results, `N/2 files` for two files; absent when stderr is
//! piped or the format is JSON, unless `--progress always`.

use std::path::PathBuf;
use std::process::Command;

fn litmus() -> Command {
    Command::new(env!("CARGO_BIN_EXE_litmus"))
}

fn slow() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs/slow.litmus").display().to_string()
}

/// A check that explores for about a second (the timeout ends it), long
/// past the 200 ms before a bar appears: the bounded engine's (the
/// unbounded procedure decides slow.litmus in a few milliseconds).
const LONG: [&str; 7] = ["check", "--bounded", "--model", "tso", "--timeout", "1", "--threads"];

/// What a bar line looks like: "slow.litmus · TSO: outcomes · 1,234 executions".
fn bar_lines(text: &str) -> Vec<&str> {
    text.split(['\r', '\n']).filter(|l| l.contains("slow.litmus · ") && l.contains(" executions")).collect()
}

/// Run `litmus args` with its stdout and stderr on a pseudo-terminal; what
/// the terminal received.
fn on_a_terminal(args: &[&str]) -> String {
    let bin = env!("CARGO_BIN_EXE_litmus");
    let cmd = std::iter::once(bin).chain(args.iter().copied()).collect::<Vec<_>>().join(" ");
    // `script` (util-linux, Debian's essential bsdutils) gives the child a pty.
    let out = Command::new("script")
        .args(["-qfec", &cmd, "/dev/null"])
        .env("TERM", "xterm-256color")
        .output()
        .expect("util-linux `script` runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_terminal_shows_phase_and_count_then_clears_before_results() {
    let path = slow();
    let mut args = LONG.to_vec();
    args.extend(["1", "--color", "never", &path]);
    let screen = on_a_terminal(&args);
    let lines = bar_lines(&screen);
    assert!(!lines.is_empty(), "no progress bar on the terminal:\n{screen}");
    // A phase with its model, and a count that grows.
    assert!(lines.iter().any(|l| l.contains("SC: executions and monitors") || l.contains("TSO: ")), "{lines:?}");
    let counts: Vec<u64> = lines
        .iter()
        .filter_map(|l| l.rsplit(" · ").next()?.trim_end().strip_suffix(" executions"))
        .map(|n| n.trim().replace(',', "").parse().unwrap())
        .collect();
    assert!(counts.windows(2).all(|w| w[0] <= w[1]), "the count went back: {counts:?}");
    assert!(counts.last().is_some_and(|&n| n > 0), "{counts:?}");
    // The bar's line is erased, then the results follow with no bar after them.
    let cleared = screen.rfind("\r\x1b[2K").expect("the bar is cleared");
    let after = &screen[cleared..];
    assert!(bar_lines(after).is_empty() && after.contains("TSO:"), "results after the bar:\n{after}");
}

#[test]
fn several_files_show_how_many_are_done() {
    // Two files (one file named twice is checked once).
    let path = slow();
    let copy = std::env::temp_dir().join(format!("litmus-progress-{}", std::process::id()));
    std::fs::create_dir_all(&copy).unwrap();
    let copy = copy.join("slow.litmus");
    std::fs::copy(&path, &copy).unwrap();
    let copy = copy.display().to_string();
    let mut args = LONG.to_vec();
    args.extend(["1", "--color", "never", &path, &copy]);
    let screen = on_a_terminal(&args);
    assert!(screen.contains("/2 files · slow.litmus · "), "{screen}");
}

#[test]
fn json_on_a_terminal_has_no_bar() {
    let path = slow();
    let mut args = LONG.to_vec();
    args.extend(["1", "--format", "json", &path]);
    let screen = on_a_terminal(&args);
    assert!(bar_lines(&screen).is_empty() && !screen.contains('\x1b'), "{screen}");
    assert!(screen.contains("\"executions\":"), "the JSON is there: {screen}");
}

#[test]
fn piped_stderr_has_no_bar_unless_asked() {
    let path = slow();
    let run = |progress: &str| {
        let out = litmus().args(LONG).args(["1", "--color", "never", "--progress", progress, &path]).output().unwrap();
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let auto = run("auto");
    assert!(bar_lines(&auto).is_empty() && !auto.contains('\x1b') && !auto.contains('\r'), "{auto}");
    // The control: the same run draws when told to, so the check above can fail.
    let always = run("always");
    assert!(!bar_lines(&always).is_empty(), "{always}");
    assert!(bar_lines(&run("never")).is_empty());
}
