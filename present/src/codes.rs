//! The one registry of finding codes: the CLI's terminal output and the
//! language server's diagnostics both take a finding's code from here, so
//! a violation is `E0400` in both, and each code has one section in
//! `docs/codes.md` (anchor: the code in lower case).
//!
//! The letter is the most severe a finding of that kind can be: an `E` code
//! is shown as a warning when what makes it an error is not established
//! (a violation whose harm is not proved, a condition that differs from SC
//! without failing). The parser's and analysis' codes (`E00xx`–`E02xx`,
//! `W02xx`, defined where they are raised in `litmus-dsl`) and the history
//! reader's (`E06xx`) are documented in `docs/codes.md` by group.

/// A kind of finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Code {
    /// Stable: editors and scripts match on it.
    pub code: &'static str,
    /// A short name for the kind, as a word.
    pub name: &'static str,
    /// One line: what a finding of this kind says.
    pub title: &'static str,
}

pub const FAILURE: Code =
    Code { code: "E0300", name: "failure", title: "a statement can fail (an assertion or a run-time error)" };
pub const CONDITION_UNDEFINED: Code = Code {
    code: "E0301",
    name: "condition-undefined",
    title: "the final condition or filter divides by zero in a reachable final state",
};
pub const CONDITION_DIFFERS: Code = Code {
    code: "E0302",
    name: "condition-differs",
    title: "the final condition's answer under a relaxed model differs from SC's",
};
pub const CONDITION_FAILS: Code = Code {
    code: "E0305",
    name: "condition-fails",
    title: "the final condition (`forall`, `~exists`) fails under SC: the program's own bug",
};
pub const DATA_RACE: Code = Code {
    code: "E0306",
    name: "data-race",
    title: "two accesses race in an execution the model allows: the behaviour is undefined",
};
pub const DEADLOCK: Code = Code { code: "W0303", name: "deadlock", title: "some execution deadlocks" };
pub const INCOMPLETE: Code =
    Code { code: "W0304", name: "incomplete", title: "the check did not finish in its time: some answers are unknown" };
pub const VIOLATION: Code =
    Code { code: "E0400", name: "sc-violation", title: "SC violation: a store may be delayed past a later access" };
pub const ACTIVE_VIOLATION: Code = Code {
    code: "E0401",
    name: "sc-violation-active",
    title: "SC violation: a happens-before cycle confirmed by active testing",
};

/// Every checker finding, in the order of `docs/codes.md`.
pub const CHECKER: [Code; 9] = [
    FAILURE,
    CONDITION_UNDEFINED,
    CONDITION_DIFFERS,
    DEADLOCK,
    INCOMPLETE,
    CONDITION_FAILS,
    DATA_RACE,
    VIOLATION,
    ACTIVE_VIOLATION,
];

/// Groups of codes documented together: (prefix, anchor, title).
pub const GROUPS: [(&str, &str, &str); 5] = [
    ("E00", "e00xx", "lexing and parsing"),
    ("E01", "e01xx", "herd (x86) analysis"),
    ("E02", "e02xx", "native analysis"),
    ("W02", "w02xx", "native analysis warnings"),
    ("E06", "e06xx", "recorded histories"),
];

/// The checker finding with this code.
pub fn find(code: &str) -> Option<&'static Code> {
    CHECKER.iter().find(|c| c.code == code)
}

/// The anchor of the section of `docs/codes.md` that documents `code`: its
/// own for a checker finding, its group's for the others (None if unknown).
pub fn anchor(code: &str) -> Option<String> {
    if let Some(c) = find(code) {
        return Some(c.code.to_ascii_lowercase());
    }
    let is_code = code.len() == 5 && code.as_bytes()[1..].iter().all(|b| b.is_ascii_digit());
    GROUPS.iter().find(|g| is_code && code.starts_with(g.0)).map(|g| g.1.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_anchored() {
        for (i, c) in CHECKER.iter().enumerate() {
            assert!(CHECKER[..i].iter().all(|d| d.code != c.code && d.name != c.name), "{c:?}");
            assert_eq!(anchor(c.code).as_deref(), Some(c.code.to_ascii_lowercase().as_str()));
        }
        assert_eq!(anchor("E0217").as_deref(), Some("e02xx"));
        assert_eq!(anchor("W0201").as_deref(), Some("w02xx"));
        assert_eq!(anchor("E0603").as_deref(), Some("e06xx"));
        assert_eq!(anchor("sc-violation"), None);
        assert_eq!(anchor("E02"), None);
        assert_eq!(anchor("Eé12"), None);
    }

    /// Every code raised anywhere (the dsl's, the history reader's, the
    /// binary's, these) has its row or section in docs/codes.md, and every
    /// anchor named here exists there.
    #[test]
    fn docs_list_every_code() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let docs = std::fs::read_to_string(root.join("docs/codes.md")).unwrap();
        let mut raised = Vec::new();
        let mut dirs =
            vec![root.join("dsl/src"), root.join("history/src"), root.join("hardware/src"), root.join("src")];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    let b = text.as_bytes();
                    for (i, _) in text.match_indices("\"E0").chain(text.match_indices("\"W0")) {
                        let Some(code) = b.get(i + 1..i + 7) else { continue };
                        if code[1..5].iter().all(|c| c.is_ascii_digit()) && code[5] == b'"' {
                            raised.push((String::from_utf8_lossy(&code[..5]).into_owned(), p.display().to_string()));
                        }
                    }
                }
            }
        }
        assert!(raised.len() > 60, "{raised:?}");
        for (code, file) in raised {
            assert!(docs.contains(&format!("| {code} |")), "{code} (raised in {file}) is not in docs/codes.md");
            assert!(anchor(&code).is_some(), "{code} has no anchor");
        }
        for c in CHECKER {
            assert!(docs.contains(&format!(
                "<a id=\"{}\"></a>\n### {} `{}`",
                c.code.to_ascii_lowercase(),
                c.code,
                c.name
            )));
        }
        for g in GROUPS {
            assert!(docs.contains(&format!("<a id=\"{}\"></a>", g.1)), "{g:?}");
        }
    }
}
