//! Any byte string: `analyze` must not panic, and every span it reports
//! must lie inside the text on character boundaries.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let a = litmus_dsl::analyze(&src);
    for d in &a.diagnostics {
        assert!(d.span.end <= src.len() && src.is_char_boundary(d.span.start) && src.is_char_boundary(d.span.end));
    }
    let _ = litmus_dsl::diagnostic::render(&a.diagnostics, "f.litmus", &src, false);
});
