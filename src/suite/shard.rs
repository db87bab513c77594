//! `--shard K/N`: which files of the list this run checks, so that the
//! schedulers people already use (a CI matrix, a Slurm array, a Kubernetes
//! Indexed Job) can spread one suite over many machines. The partition
//! depends only on the list and the files' sizes, so every machine of a
//! run computes the same one without talking to the others.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Shard `index` (0-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

/// What a summary says of the list its run checked (present when the report
/// is a shard or a stream, whose files are not the list in list order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardOf {
    /// 1-based, as `--shard K/N`.
    pub index: usize,
    pub count: usize,
    /// Entries of the whole (unsharded) list.
    pub list_files: usize,
    /// The list position of each file object, in the report's order.
    pub positions: Vec<usize>,
}

/// `K/N` with 1 ≤ K ≤ N (1-based, as jest and playwright spell it).
pub fn parse(s: &str) -> Result<Shard, String> {
    let bad = || format!("`{s}` is not a shard: expected K/N with 1 ≤ K ≤ N (e.g. 2/4), or `auto`");
    let (k, n) = s.trim().split_once('/').ok_or_else(bad)?;
    let (k, n): (usize, usize) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if n == 0 || k == 0 || k > n {
        return Err(bad());
    }
    Ok(Shard { index: k - 1, count: n })
}

/// `--shard auto`: the shard from the scheduler's environment, first match of
/// - `LITMUS_SHARD=K/N` (anything, e.g. a GitHub Actions matrix);
/// - GitLab `parallel:` — `CI_NODE_INDEX` (1-based) of `CI_NODE_TOTAL`;
/// - Slurm job arrays — `SLURM_ARRAY_TASK_ID` minus `SLURM_ARRAY_TASK_MIN`
///   of `SLURM_ARRAY_TASK_COUNT` (so `--array=0-7` and `--array=1-8` both work);
/// - Kubernetes Indexed Jobs — `JOB_COMPLETION_INDEX` (0-based) of
///   `LITMUS_SHARD_COUNT` (Kubernetes does not export the completion count:
///   the Job sets it from `.spec.completions`).
pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Result<Shard, String> {
    let num = |name: &str| -> Result<Option<usize>, String> {
        match var(name) {
            None => Ok(None),
            Some(v) => v.trim().parse().map(Some).map_err(|_| format!("{name}=`{v}` is not a number")),
        }
    };
    let checked = |index: usize, count: usize, from: &str| {
        if count == 0 || index >= count {
            Err(format!("{from} gives shard {} of {count}, which does not exist", index + 1))
        } else {
            Ok(Shard { index, count })
        }
    };
    if let Some(v) = var("LITMUS_SHARD") {
        return parse(&v).map_err(|e| format!("LITMUS_SHARD: {e}"));
    }
    if let (Some(i), Some(n)) = (num("CI_NODE_INDEX")?, num("CI_NODE_TOTAL")?) {
        return checked(i.wrapping_sub(1), n, "CI_NODE_INDEX/CI_NODE_TOTAL");
    }
    if let (Some(id), Some(n)) = (num("SLURM_ARRAY_TASK_ID")?, num("SLURM_ARRAY_TASK_COUNT")?) {
        let min = num("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        return checked(id.wrapping_sub(min), n, "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT");
    }
    if let Some(i) = num("JOB_COMPLETION_INDEX")? {
        let n = num("LITMUS_SHARD_COUNT")?.ok_or(
            "JOB_COMPLETION_INDEX is set but LITMUS_SHARD_COUNT is not (set it to the Job's .spec.completions)",
        )?;
        return checked(i, n, "JOB_COMPLETION_INDEX/LITMUS_SHARD_COUNT");
    }
    Err("--shard auto: no shard in the environment (LITMUS_SHARD, CI_NODE_INDEX/CI_NODE_TOTAL, \
         SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, JOB_COMPLETION_INDEX/LITMUS_SHARD_COUNT)"
        .to_string())
}

/// Which of `costs.len()` files (their estimated costs, in list order) go to
/// each of `count` shards: the largest first, each to the least loaded shard
/// (ties: the lower shard, then list order), so shards finish together even
/// when a few files dominate. Each shard's files keep list order. A
/// partition: every file is in exactly one shard. Only the first
/// `min(count, files)` shards are returned; the rest are empty.
pub fn partition(costs: &[u64], count: usize) -> Vec<Vec<usize>> {
    use std::cmp::Reverse;
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|&a, &b| costs[b].cmp(&costs[a]).then(a.cmp(&b)));
    // Only the first `len` shards can receive a file (each file goes to an
    // empty shard while there is one, the lowest first), so the work is in
    // the number of files, not of shards: `--shard 1/4000000000` is cheap.
    let bins = count.min(costs.len());
    let mut load: std::collections::BinaryHeap<Reverse<(u64, usize)>> = (0..bins).map(|s| Reverse((0, s))).collect();
    let mut shards = vec![Vec::new(); bins];
    for i in order {
        let Reverse((l, s)) = load.pop().expect("a file means a shard");
        // A file costs at least 1, so empty files spread out too.
        load.push(Reverse((l + costs[i].max(1), s)));
        shards[s].push(i);
    }
    for s in &mut shards {
        s.sort_unstable();
    }
    shards
}

/// The files of one shard (see [`partition`]).
pub fn files_of(costs: &[u64], shard: Shard) -> Vec<usize> {
    partition(costs, shard.count).into_iter().nth(shard.index).unwrap_or_default()
}

/// A file's estimated cost: its size in bytes (unreadable: 0, its error is
/// cheap to report).
pub fn cost(path: &str) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn k_of_n_is_one_based_and_checked() {
        assert_eq!(parse("1/4"), Ok(Shard { index: 0, count: 4 }));
        assert_eq!(parse(" 4 / 4 "), Ok(Shard { index: 3, count: 4 }));
        for bad in ["0/4", "5/4", "1/0", "1", "a/b", "-1/2", ""] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Shard { index: 1, count: 3 }.to_string(), "2/3");
    }

    #[test]
    fn every_file_in_exactly_one_shard_for_1_to_16_shards() {
        // Sizes with ties, zeros and one file far larger than the rest.
        let costs: Vec<u64> = (0..103u64).map(|i| if i == 7 { 100_000 } else { (i * 37) % 11 * 100 }).collect();
        for n in 1..=16 {
            let shards = partition(&costs, n);
            assert_eq!(shards.len(), n);
            for (k, s) in shards.iter().enumerate() {
                assert_eq!(&files_of(&costs, Shard { index: k, count: n }), s);
            }
            let mut all: Vec<usize> = shards.iter().flatten().copied().collect();
            all.sort_unstable();
            assert_eq!(all, (0..costs.len()).collect::<Vec<_>>(), "N = {n}");
            for s in &shards {
                assert!(s.windows(2).all(|w| w[0] < w[1]), "a shard keeps list order");
            }
            // Deterministic.
            assert_eq!(shards, partition(&costs, n));
            // Balanced: apart from the big file, loads differ by at most the largest small file.
            if n > 1 {
                let loads: Vec<u64> = shards
                    .iter()
                    .filter(|s| !s.contains(&7))
                    .map(|s| s.iter().map(|&i| costs[i].max(1)).sum())
                    .collect();
                let (lo, hi) = (loads.iter().min().unwrap(), loads.iter().max().unwrap());
                assert!(hi - lo <= 1000, "N = {n}: loads {loads:?}");
            }
        }
    }

    #[test]
    fn more_shards_than_files_leaves_the_rest_empty_at_no_cost() {
        let costs = [5, 1, 9];
        let n = 1usize << 62;
        let got: Vec<Vec<usize>> =
            [0, 1, 2, 3, n - 1].iter().map(|&k| files_of(&costs, Shard { index: k, count: n })).collect();
        assert_eq!(got, [vec![2], vec![0], vec![1], vec![], vec![]]);
        // The same as with exactly as many shards as files.
        assert_eq!(partition(&costs, 3), [vec![2], vec![0], vec![1]]);
        assert!(files_of(&[], Shard { index: 0, count: 3 }).is_empty());
    }

    #[test]
    fn the_schedulers_variables_name_the_shard() {
        let env = |pairs: &[(&str, &str)]| {
            let m: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            move |k: &str| m.get(k).cloned()
        };
        assert_eq!(from_env(env(&[("LITMUS_SHARD", "2/3")])), Ok(Shard { index: 1, count: 3 }));
        assert_eq!(from_env(env(&[("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "5")])), Ok(Shard { index: 0, count: 5 }));
        let slurm = [("SLURM_ARRAY_TASK_ID", "8"), ("SLURM_ARRAY_TASK_MIN", "1"), ("SLURM_ARRAY_TASK_COUNT", "8")];
        assert_eq!(from_env(env(&slurm)), Ok(Shard { index: 7, count: 8 }));
        let k8s = [("JOB_COMPLETION_INDEX", "0"), ("LITMUS_SHARD_COUNT", "4")];
        assert_eq!(from_env(env(&k8s)), Ok(Shard { index: 0, count: 4 }));
        assert!(from_env(env(&[("JOB_COMPLETION_INDEX", "0")])).is_err());
        assert!(from_env(env(&[("CI_NODE_INDEX", "0"), ("CI_NODE_TOTAL", "5")])).is_err());
        assert!(from_env(env(&[("SLURM_ARRAY_TASK_ID", "x"), ("SLURM_ARRAY_TASK_COUNT", "2")])).is_err());
        assert!(from_env(env(&[])).is_err());
    }
}
