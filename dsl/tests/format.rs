//! The formatter: one layout, idempotent, meaning and comments kept, on
//! every native file we ship and on a hand-made mess.

use litmus_dsl::native::format::format;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn native_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            native_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "litmus") {
            out.push(path);
        }
    }
}

fn shipped() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["examples", "tests"] {
        native_files(&root.join(dir), &mut files);
    }
    files.sort();
    files
}

#[test]
fn every_shipped_file_formats_idempotently_keeping_its_program() {
    let mut formatted = 0;
    for path in shipped() {
        let src = std::fs::read_to_string(&path).unwrap();
        let a = litmus_dsl::analyze(&src);
        if a.program.is_none() || a.dialect != litmus_dsl::Dialect::Native {
            assert_eq!(format(&src), None, "{}: a file with errors or in herd's dialect is left alone", path.display());
            continue;
        }
        // `format` itself refuses a layout that changes the program or drops a comment.
        let once = format(&src).unwrap_or_else(|| panic!("{} did not format", path.display()));
        assert_eq!(format(&once).as_deref(), Some(once.as_str()), "{}: not idempotent", path.display());
        formatted += 1;
    }
    assert!(formatted > 50, "only {formatted} files formatted");
}

/// The examples a user opens first are in the layout `litmus fmt` gives
/// (issue 44: an example was not; the editor's Format Document moved it).
#[test]
fn every_example_is_in_the_formatters_layout() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut files = Vec::new();
    native_files(&root, &mut files);
    let unformatted: Vec<String> = files
        .iter()
        .filter(|path| {
            let src = std::fs::read_to_string(path).unwrap();
            format(&src).is_some_and(|f| f != src)
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(unformatted.is_empty(), "not in `litmus fmt`'s layout (run `litmus fmt examples`): {unformatted:#?}");
}

#[test]
fn a_mess_gets_the_canonical_layout() {
    let src =
        "// header comment\nlitmus Messy \"doc\"\nshared x=0,y = 0;\nshared a[3]={0,0,-1};\nfn inc(v){return v+1;}\n\
thread P0 {x=1;let r0=y; if(r0==0){a[1]=inc(r0);}else if (r0 != -1) { fence ww; } else {}\n\
  while(r0<2) bound 3 {r0=r0+1;}   // loop\n  for k in 0..2 { let t = fetch_add(x,-1); assert(!(t==5)); }\n      }\n\
thread P1{ y=1;\n/* block\n   comment */\nlet r1 = x; await(x==1); lock(x); unlock(x); let q = cas(y, 0 , 1) ;}\n\
~exists(P0:r0==0&&P1:r1==0);\n";
    let want = "// header comment
litmus Messy \"doc\"

shared x = 0, y = 0;
shared a[3] = {0, 0, -1};

fn inc(v) {
  return v + 1;
}

thread P0 {
  x = 1;
  let r0 = y;
  if (r0 == 0) {
    a[1] = inc(r0);
  } else if (r0 != -1) {
    fence ww;
  } else {}
  while (r0 < 2) bound 3 {
    r0 = r0 + 1;
  } // loop
  for k in 0..2 {
    let t = fetch_add(x, -1);
    assert (!(t == 5));
  }
}

thread P1 {
  y = 1;
  /* block
   comment */
  let r1 = x;
  await (x == 1);
  lock(x);
  unlock(x);
  let q = cas(y, 0, 1);
}

~exists (P0:r0 == 0 && P1:r1 == 0);
";
    assert_eq!(format(src).as_deref(), Some(want));
}

#[test]
fn long_lines_are_cut_at_the_shallowest_operator_and_comments_keep_their_column() {
    let cond = (0..12).map(|i| format!("P0:r{i} == {i}")).collect::<Vec<_>>().join(" && ");
    let regs = (0..12).map(|i| format!("  let r{i} = x; // r{i}\n")).collect::<String>();
    let src =
        format!("litmus L\nshared x = 0;\nthread P0 {{\n{regs}  let aligned = 1;    // kept\n}}\nexists ({cond});\n");
    let out = format(&src).unwrap();
    assert!(out.lines().all(|l| l.chars().count() <= 100), "{out}");
    assert!(out.contains("\n    && P0:r"), "continuation lines start with the operator:\n{out}");
    assert!(out.contains("let aligned = 1;    // kept"), "an aligned comment keeps its gap:\n{out}");
    assert_eq!(format(&out).as_deref(), Some(out.as_str()));
}

#[test]
fn a_file_with_errors_is_left_alone() {
    assert_eq!(format("litmus T\nshared x = 0;\nthread P0 { x = ; }\n"), None);
}

/// The shipped files with spaces changed at random (never a newline, nor on
/// a line with a comment, whose gap before the comment is the author's to
/// keep): the layout must not depend on them.
fn respaced(files: Vec<String>) -> impl Strategy<Value = (String, String)> {
    (prop::sample::select(files), prop::collection::vec(0u8..4, 4000)).prop_map(|(src, noise)| {
        let (tokens, comments) = litmus_dsl::native::lexer::lex_with_comments(&src);
        let mut spans: Vec<_> = tokens.iter().map(|(_, s)| (*s, false)).collect();
        spans.extend(comments.iter().map(|s| (*s, true)));
        spans.sort_by_key(|(s, _)| s.start);
        let mut out = String::new();
        let mut at = 0;
        for (k, (span, is_comment)) in spans.iter().enumerate() {
            let gap = &src[at..span.start];
            let line_start = src[..span.start].rfind('\n').map_or(0, |i| i + 1);
            let line_end = src[span.start..].find('\n').map_or(src.len(), |i| span.start + i);
            let near_comment =
                *is_comment || src[line_start..line_end].contains("//") || src[line_start..line_end].contains("/*");
            if near_comment || gap.contains('\n') || k == 0 || spans[k - 1].0.text(&src) == "litmus" {
                out.push_str(gap);
            } else {
                // Tokens that were apart stay apart; adjacent ones may get a gap.
                let n = noise[k % noise.len()] as usize;
                out.push_str(&" \t  "[..if gap.is_empty() { n } else { n.max(1) }]);
            }
            out.push_str(span.text(&src));
            at = span.end;
        }
        out.push_str(&src[at..]);
        (src, out)
    })
}

fn formattable() -> Vec<String> {
    shipped().into_iter().map(|p| std::fs::read_to_string(p).unwrap()).filter(|s| format(s).is_some()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn the_layout_does_not_depend_on_spacing((src, noisy) in respaced(formattable())) {
        prop_assert_eq!(format(&noisy), format(&src));
    }
}

/// Found in review: a cut line's trailing comment, a comment that alone
/// makes a line too long, comments aligned under a cut line's comment, and
/// block comments with trailing blanks or bare line feeds in a CRLF file all
/// format, and formatting again changes nothing.
#[test]
fn comments_on_long_lines_and_block_comments_format_idempotently() {
    let cond = (0..14).map(|i| format!("r{i} == 1")).collect::<Vec<_>>().join(" && ");
    let regs = (0..14).map(|i| format!("  let r{i} = x;\n")).collect::<String>();
    let long_comment = "c".repeat(90);
    let cases = [
        // A long statement with a two-space gap before its comment.
        format!("litmus A\nshared x = 0;\nthread P0 {{\n{regs}  assert ({cond});  // note\n}}\n"),
        // Code that fits; the comment alone goes past 100 columns.
        format!("litmus B\nshared x = 0;\nthread P0 {{\n  let r = cas(x, 0, 1); // {long_comment}\n}}\n"),
        // Comments aligned under the trailing comment of a line that is cut.
        format!(
            "litmus C\nshared x = 0;\nthread P0 {{\n{regs}  assert ({cond}); // one\n{pad}// two\n}}\n",
            pad = " ".repeat(cond.len() + 13)
        ),
        // A block comment with trailing blanks inside.
        "litmus D\nshared x = 0;\n/* note  \n   more */\nthread P0 {\n  x = 1;\n}\n".to_string(),
        // CRLF lines, a block comment with bare line feeds.
        "litmus E\r\nshared x = 0;\r\n/* a\n b */\r\nthread P0 {\r\n  x = 1;\r\n}\r\n".to_string(),
    ];
    for src in &cases {
        let once = format(src).unwrap_or_else(|| panic!("refused:\n{src}"));
        assert_eq!(format(&once).as_deref(), Some(once.as_str()), "not idempotent:\n{src}\n---\n{once}");
        assert!(once.lines().all(|l| l.contains("//") || l.chars().count() <= 100), "{once}");
    }
}
