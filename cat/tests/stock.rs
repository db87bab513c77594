//! The embedded library: every file parses, every model loads with its
//! includes from the embedded set, and the embedded models agree with the
//! same files read from disk.

use std::path::{Path, PathBuf};

use litmus_cat::eval::{evaluate, Execution, Options};
use litmus_cat::{stock, CatError, Model};

const MODELS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/models");

fn disk_path(name: &str) -> PathBuf {
    let local = Path::new(MODELS).join(name);
    // The project's own models live in `models/` at the root.
    let own = Path::new(MODELS).join("../../../models").join(name);
    if local.is_file() {
        local
    } else if own.is_file() {
        own
    } else {
        Path::new(MODELS).join("herd").join(name)
    }
}

#[test]
fn every_embedded_file_loads_with_its_includes() {
    let names: Vec<&str> = stock::names().collect();
    for must in [
        "stdlib.cat",
        "cos.cat",
        "cos-ok-opt.cat",
        "cos-no-opt.cat",
        "cross.cat",
        "fences.cat",
        "x86fences.cat",
        "filters.cat",
        "sc.cat",
        "x86tso.cat",
        "x86tso-mixed.cat",
        "sc-rmw.cat",
        "x86pso.cat",
    ] {
        assert!(names.contains(&must), "{must} is not embedded");
    }
    for name in names {
        let m = stock::load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(m.root_file().path.ends_with(name));
        if name != "stdlib.cat" {
            let p = m.prelude.expect("stdlib.cat is the prelude");
            assert!(m.files[p].path.ends_with("stdlib.cat"));
        }
        // The same text as on disk, and the same files included.
        let disk = Model::load(disk_path(name), &[Path::new(MODELS).join("herd")]).unwrap();
        assert_eq!(m.root_file().text, disk.root_file().text, "{name}");
        let files = |m: &Model| {
            let mut v: Vec<String> =
                m.files.iter().map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned()).collect();
            v.sort();
            v
        };
        assert_eq!(files(&m), files(&disk), "{name}");
    }
}

#[test]
fn names_with_or_without_the_extension() {
    assert!(stock::load("x86tso").is_ok());
    assert!(stock::load("x86tso.cat").is_ok());
    assert!(stock::load("sc-rmw").is_ok());
    assert!(matches!(stock::load("no-such-model"), Err(CatError::Io { .. })));
}

#[test]
fn a_users_model_includes_the_stock_library() {
    let src = "\"mine\"\ninclude \"x86fences.cat\"\ninclude \"cos.cat\"\nacyclic po | rf | co | fr as sc\n";
    let m = Model::from_sources(Path::new("mine.cat"), src, &stock::source).unwrap();
    assert_eq!(m.files.len(), 7, "{:?}", m.files.iter().map(|f| &f.path).collect::<Vec<_>>());
    // A missing include is an error at its span, in the including file.
    let bad = "\"mine\"\n  include \"nowhere.cat\"\n";
    match Model::from_sources(Path::new("mine.cat"), bad, &stock::source) {
        Err(CatError::Include(d)) => {
            assert_eq!((d.line, d.column), (2, 11), "{d}");
            assert!(d.path.ends_with("mine.cat"));
        }
        other => panic!("{other:?}"),
    }
    // A syntax error in an embedded-style lookup names that file.
    let lookup = |n: &str| (n == "broken.cat").then(|| "B\nlet = po\n".to_string());
    match Model::from_sources(Path::new("top.cat"), "T\ninclude \"broken.cat\"\n", &lookup) {
        Err(CatError::Syntax(d)) => assert!(d.path.ends_with("broken.cat") && d.line == 2, "{d}"),
        other => panic!("{other:?}"),
    }
}

/// Store buffering with both loads reading the initial writes.
fn sb() -> Execution {
    let loc = [(0, 0), (0, 2), (0, 5), (2, 0), (2, 2), (2, 5), (5, 0), (5, 2), (5, 5)];
    let loc2 = [(1, 1), (1, 3), (1, 4), (3, 1), (3, 3), (3, 4), (4, 1), (4, 3), (4, 4)];
    let all: Vec<_> = loc.iter().chain(&loc2).copied().collect();
    Execution::new(6)
        .set("IW", &[0, 1])
        .set("W", &[0, 1, 2, 4])
        .set("R", &[3, 5])
        .rel("po", &[(2, 3), (4, 5)])
        .rel("rf", &[(1, 3), (0, 5)])
        .rel("co", &[(0, 2), (1, 4)])
        .rel("loc", &all)
        .set("MFENCE", &[])
}

#[test]
fn embedded_models_give_the_disk_verdicts() {
    let x = sb();
    for (name, allowed) in [("sc", false), ("x86tso", true), ("sc-rmw", false), ("x86pso", true), ("tso", true)] {
        let m = stock::load(name).unwrap();
        let v = evaluate(&m, &x, &Options::default()).unwrap();
        assert_eq!(v.allowed(), allowed, "{name}: {v:?}");
        let disk = Model::load(disk_path(&format!("{name}.cat")), &[Path::new(MODELS).join("herd")]).unwrap();
        assert_eq!(evaluate(&disk, &x, &Options::default()).unwrap(), v, "{name}");
    }
}
