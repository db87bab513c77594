//! herd's library, embedded: the stock models the project runs and the
//! files they include, with no filesystem at run time.
//!
//! The texts are herd7's own (`tests/corpus/models/herd/`, herdtools7's
//! `herd/libdir`, CeCILL-B, see its `LICENSE.txt`), unchanged, plus the
//! corpus's local models `sc-rmw.cat` (SC with the rmw edge) and
//! `x86pso.cat` (x86 with per-address store buffers). [`load`] reads one
//! of them with its includes resolved inside this set and `stdlib.cat` as
//! the prelude, as [`Model::load`] does next to herd's files; diagnostics
//! name the embedded file (`cos-no-opt.cat:…`).
//!
//! ```
//! let tso = litmus_cat::stock::load("x86tso").unwrap();
//! assert!(tso.root_file().path.ends_with("x86tso.cat"));
//! ```

use std::path::Path;

use crate::model::{CatError, Model};

macro_rules! herd {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../tests/corpus/models/herd/", $name)))),*]
    };
}

/// herd's files: the prelude, coherence generation, fences and filters,
/// and the models built on them.
const HERD: &[(&str, &str)] = herd![
    "stdlib.cat",
    "cos.cat",
    "cos-no-opt.cat",
    "cos-ok-opt.cat",
    "cos-opt.cat",
    "cross.cat",
    "fences.cat",
    "x86fences.cat",
    "armfences.cat",
    "ppcfences.cat",
    "aarch64fences.cat",
    "mipsfences.cat",
    "filters.cat",
    "sc.cat",
    "x86tso.cat",
    "x86tso-mixed.cat",
    "tso.cat",
    "uniproc.cat",
    "uni.cat",
    "minimal.cat",
    "naked.cat",
    "mips-tso.cat",
    "riscv.cat",
    "riscv-defs.cat",
    "rc11.cat",
    // herd's AArch64 model, read unchanged (`catdep`: register events).
    "aarch64.cat",
    "aarch64hwreqs.cat",
    "aarch64deps.cat",
    "aarch64util.cat",
    "aarch64bbm.cat",
    "aarch64memattrs.cat",
    "aarch64show.cat",
    "aarch64loc.cat",
    "enumerations.cat",
];

/// The corpus's own models, next to herd's directory.
const LOCAL: &[(&str, &str)] = &[
    ("sc-rmw.cat", include_str!("../../tests/corpus/models/sc-rmw.cat")),
    ("x86pso.cat", include_str!("../../tests/corpus/models/x86pso.cat")),
    // The project's own models (`models/`), written from the papers.
    ("rvwmo.cat", include_str!("../../models/rvwmo.cat")),
    ("rc11-lahav.cat", include_str!("../../models/rc11-lahav.cat")),
    ("armv8.cat", include_str!("../../models/armv8.cat")),
];

fn all() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    HERD.iter().chain(LOCAL)
}

/// Every embedded file name (`"x86tso.cat"`, `"stdlib.cat"`, …), library
/// files included.
pub fn names() -> impl Iterator<Item = &'static str> {
    all().map(|(n, _)| *n)
}

/// The embedded text of `name` (with or without `.cat`).
pub fn text(name: &str) -> Option<&'static str> {
    let name = file_name(name);
    all().find(|(n, _)| *n == name.as_ref()).map(|(_, t)| *t)
}

/// A lookup for [`Model::from_sources`]: the embedded text of an
/// included file, so that a model of the user's can include herd's
/// library files.
pub fn source(name: &str) -> Option<String> {
    text(name).map(str::to_string)
}

fn file_name(name: &str) -> std::borrow::Cow<'_, str> {
    if name.ends_with(".cat") {
        name.into()
    } else {
        format!("{name}.cat").into()
    }
}

/// Loads the embedded model `name` (`"x86tso"` or `"x86tso.cat"`), its
/// includes and the `stdlib.cat` prelude from the embedded set.
pub fn load(name: &str) -> Result<Model, CatError> {
    let file = file_name(name);
    let Some(text) = text(&file) else {
        return Err(CatError::Io {
            path: file.as_ref().into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "not one of litmus_cat::stock::names()"),
        });
    };
    Model::from_sources(Path::new(file.as_ref()), text, &source)
}
