//! The translations of Trencher's examples (`examples/trencher/`, each with
//! Trencher's own verdict in its header): litmus proves the same verdict
//! under TSO for every iteration, and proves sufficient and minimal a set of
//! fences no larger than Trencher's (counted as Trencher counts them:
//! places; the fenced program is re-proved robust). Where Trencher crashes
//! (an infinite state space), litmus answers within bounds and says why: it
//! never claims the program proved. The verdict alone (stopping at the
//! first attack) agrees.

use litmus_checker::machine::Model;
use litmus_checker::options::Options;
use litmus_checker::options::StateLimits as Limits;
use litmus_checker::unbounded::{self, fences, Stop};
use litmus_checker::{Answer, Iterations, MonitorKind};
use std::path::Path;

fn translations() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/trencher");
    let mut v = Vec::new();
    for dir in [root.clone(), root.join("memorax")] {
        let mut paths: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        paths.sort();
        for p in paths.into_iter().filter(|p| p.extension().is_some_and(|x| x == "litmus")) {
            v.push((p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()));
        }
    }
    v
}

/// Trencher's verdict from the header: robust or not, and its fence count.
fn trencher(src: &str) -> Option<(bool, Option<usize>)> {
    let line = src.lines().find(|l| l.starts_with("// Trencher:"))?;
    let rest = line.trim_start_matches("// Trencher:").trim();
    if rest.starts_with("crashes") {
        return None;
    }
    let robust = rest.starts_with("robust");
    let fences = rest.split('(').nth(1).and_then(|x| x.split_whitespace().next()).and_then(|n| n.parse().ok());
    Some((robust, fences))
}

#[test]
fn every_verdict_equals_trencher_s_and_no_more_fences() {
    let files = translations();
    assert!(files.len() >= 39, "{} translations", files.len());
    let mut errors = Vec::new();
    let (mut proved, mut compared) = (0, 0);
    for (name, src) in &files {
        let p = litmus_dsl::analyze(src).program.unwrap_or_else(|| panic!("{name} does not analyse"));
        let opts = Options::default();
        let r = unbounded::prove(&p, &[Model::Tso], &opts, &Limits::default());
        let Some((robust, count)) = trencher(src) else {
            // Trencher crashes: an honest answer is no proof.
            match r {
                Err(Stop::Growth { .. } | Stop::States(_)) => {}
                other => errors.push(format!("{name}: Trencher crashes, litmus {:?}", other.map(|p| p.states))),
            }
            continue;
        };
        compared += 1;
        let pr = match r {
            Ok(pr) => pr,
            // bakery: Trencher's -r answers, but tickets grow (see below).
            Err(Stop::Growth { .. }) if src.contains("without bound") => continue,
            Err(s) => {
                errors.push(format!("{name}: not proved: {}", s.describe()));
                continue;
            }
        };
        proved += 1;
        let rb = &pr.robustness[0];
        if rb.violations.is_empty() != robust {
            errors.push(format!("{name}: litmus robust = {}, Trencher {robust}", rb.violations.is_empty()));
            continue;
        }
        if robust {
            continue;
        }
        let mut vs = rb.violations.clone();
        let fix = fences::minimal_fences(&p, &[Model::Tso], &pr.attacks, &pr.runs, &mut vs, &opts, &Limits::default());
        if fix.confirmed != Answer::Proved(true) || !fix.minimal {
            errors.push(format!("{name}: fences {:?}, minimal {}", fix.confirmed, fix.minimal));
        }
        if let Some(n) = count {
            if fix.fences.len() > n {
                errors.push(format!("{name}: {} fences, Trencher {n}", fix.fences.len()));
            }
        }
        // The fenced program, checked from scratch: robust, proved.
        let fenced = litmus_dsl::fence_ir::insert_fences(&p, &litmus_checker::violation::insertions(&fix.fences));
        match unbounded::prove(&fenced, &[Model::Tso], &opts, &Limits::default()) {
            Ok(again) if again.robustness[0].violations.is_empty() => {}
            other => errors.push(format!("{name}: fenced program not proved robust: {:?}", other.map(|p| p.states))),
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    assert!(compared >= 35 && proved >= 33, "compared {compared}, proved {proved}");
}

#[test]
fn infinite_ones_are_answered_within_bounds_with_the_reason() {
    // Through the whole check, as `litmus check` runs it: the bounded engine
    // answers and the answer says why it is not for every iteration.
    for (name, src) in translations().into_iter().filter(|(_, s)| s.contains("without bound")) {
        let p = litmus_dsl::analyze(&src).program.unwrap();
        let opts = Options::default().with_unbounded().with_timeout(Some(std::time::Duration::from_secs(20)));
        let r = litmus_checker::check_robustness(&p, &[Model::Sc, Model::Tso], MonitorKind::Bss, &opts);
        let sc = &r.outcomes[0];
        match &sc.iterations {
            Iterations::Fallback(why) => assert!(why.contains("grows without bound"), "{name}: {why}"),
            other => panic!("{name}: {other:?}"),
        }
        assert_ne!(sc.coverage, litmus_checker::Coverage::Complete, "{name}");
        let tso = &r.robustness[0];
        assert!(!tso.iterations.every(), "{name}");
        // Not robust: a violation is proved by its witness all the same.
        assert!(
            matches!(tso.robust(), Answer::Proved(false) | Answer::WithinBounds(true, _)),
            "{name}: {:?}",
            tso.robust()
        );
    }
}

#[test]
fn the_verdict_alone_stops_at_the_first_attack_and_agrees() {
    // `unbounded::robust` (Trencher's -r: the first attack decides) says
    // what the whole search says.
    for (name, src) in translations() {
        let Some((robust, _)) = trencher(&src) else { continue };
        let p = litmus_dsl::analyze(&src).program.unwrap();
        match unbounded::robust(&p, Model::Tso, &Options::default(), &Limits::default()) {
            Ok(r) => assert_eq!(r, robust, "{name}"),
            Err(Stop::Growth { .. }) => assert!(src.contains("without bound"), "{name}"),
            Err(s) => panic!("{name}: {}", s.describe()),
        }
    }
}
