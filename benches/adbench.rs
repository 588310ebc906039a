//! ADBench's objectives (`benches/adbench/workloads.rs`): for each workload the objective and
//! its gradient (or the BA Jacobian), measured by criterion in the same run; at the end, the
//! gradient ÷ objective ratio of each, from the medians of criterion's own samples.
//! `cargo bench --bench adbench`; a part of the name runs a part (`cargo bench --bench
//! adbench -- gmm`). A function whose first call takes more than [`ONCE_OVER`] is measured
//! by that call alone (today: the slowest gradients).

use autodiff::prelude::*;
use criterion::{black_box, BenchmarkGroup, Criterion, SamplingMode};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

#[path = "adbench/workloads.rs"]
mod workloads;
use workloads::*;

/// Per group and function: the time of one call in each sample, and whether it was
/// measured once.
type Samples = BTreeMap<(String, &'static str), (Vec<f64>, bool)>;

thread_local! {
    /// Per group and function, the time of one call in each sample criterion took, and
    /// whether the function was measured once instead (see [`ONCE_OVER`]).
    static SAMPLES: RefCell<Samples> =
        const { RefCell::new(BTreeMap::new()) };
}

/// A function whose first call takes longer than this is measured by that one call,
/// outside criterion (which needs at least eleven calls), so that the slowest gradients
/// of today do not make the run last a quarter of an hour.
const ONCE_OVER: Duration = Duration::from_secs(3);

/// The names given on the command line (criterion's filter); a function is run when its
/// `group/name` contains one of them, or when none is given.
fn selected(full_name: &str) -> bool {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    filters.is_empty() || filters.iter().any(|f| full_name.contains(f.as_str()))
}

fn record(group_name: &str, name: &'static str, seconds: f64, once: bool) {
    SAMPLES.with(|s| {
        let mut s = s.borrow_mut();
        let entry = s.entry((group_name.to_string(), name)).or_default();
        entry.0.push(seconds);
        entry.1 = once;
    });
}

/// Registers `f` with criterion as `group/name`, keeping the time per call of every sample;
/// or, when its first call takes longer than [`ONCE_OVER`], keeps that call's time.
fn bench<M: criterion::measurement::Measurement<Value = Duration>, R>(
    group: &mut BenchmarkGroup<'_, M>,
    group_name: &str,
    name: &'static str,
    mut f: impl FnMut() -> R,
) {
    let full_name = format!("{group_name}/{name}");
    if !selected(&full_name) {
        return;
    }
    let start = Instant::now();
    black_box(f());
    let first = start.elapsed();
    if first > ONCE_OVER {
        println!(
            "{full_name}: one call took {}, measured once outside criterion",
            pretty(first.as_secs_f64())
        );
        record(group_name, name, first.as_secs_f64(), true);
        return;
    }
    group.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                black_box(f());
            }
            let elapsed = start.elapsed();
            record(
                group_name,
                name,
                elapsed.as_secs_f64() / iters as f64,
                false,
            );
            elapsed
        })
    });
}

/// The number of samples criterion takes of each function.
const SAMPLE_SIZE: usize = 10;

/// A group with few samples and a short measurement time, flat sampling (the same number of
/// calls in every sample) so that slow gradients need only one call per sample.
fn group<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(SAMPLE_SIZE)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .sampling_mode(SamplingMode::Flat);
    g
}

fn gmm_benches(c: &mut Criterion) {
    for (d, k, n) in [(10, 25, 1000), (64, 50, 1000)] {
        let name = format!("gmm/d{d}-K{k}-n{n}");
        let (alphas, means, icf, x) = gmm_input(d, k, n);
        let (gamma, m) = (1.0, 0);
        let mut g = group(c, &name);
        bench(&mut g, &name, "objective", || {
            gmm_objective(d, k, black_box(&alphas), &means, &icf, &x, gamma, m)
        });
        let vg = value_and_gradients_function!(gmm_objective, params = ["alphas", "means", "icf"]);
        bench(&mut g, &name, "gradient", || {
            vg(d, k, black_box(&alphas), &means, &icf, &x, gamma, m)
        });
        g.finish();
        // the C form: `&mut` output helpers, buffers allocated once
        let name = format!("gmm-buffers/d{d}-K{k}-n{n}");
        let mut g = group(c, &name);
        bench(&mut g, &name, "objective", || {
            gmm_objective_buffers(d, k, black_box(&alphas), &means, &icf, &x, gamma, m)
        });
        let vg = value_and_gradients_function!(
            gmm_objective_buffers,
            params = ["alphas", "means", "icf"]
        );
        bench(&mut g, &name, "gradient", || {
            vg(d, k, black_box(&alphas), &means, &icf, &x, gamma, m)
        });
        g.finish();
    }
}

fn ba_benches(c: &mut Criterion) {
    let p = 10_000;
    let problem = ba_input(20, 2_000, p);
    let name = format!("ba/p{p}");
    let mut errors = vec![0.0; 2 * p];
    let mut jacobian = vec![0.0; 30 * p];
    let mut g = group(c, &name);
    bench(&mut g, &name, "objective", || {
        ba_objective(black_box(&problem), &mut errors)
    });
    bench(&mut g, &name, "gradient", || {
        ba_jacobian(black_box(&problem), &mut errors, &mut jacobian)
    });
    bench(&mut g, &name, "accumulated", || {
        ba_jacobian_accumulated(black_box(&problem), &mut errors, &mut jacobian)
    });
    bench(&mut g, &name, "by hand", || {
        ba_jacobian_by_hand(black_box(&problem), &mut errors, &mut jacobian)
    });
    g.finish();
    // the C form: `&mut` output helpers handed local arrays as `&[f64]`
    let name = format!("ba-slices/p{p}");
    let mut g = group(c, &name);
    bench(&mut g, &name, "objective", || {
        ba_objective_slices(black_box(&problem), &mut errors)
    });
    bench(&mut g, &name, "gradient", || {
        ba_jacobian_slices(black_box(&problem), &mut errors, &mut jacobian)
    });
    g.finish();
}

fn lstm_benches(c: &mut Criterion) {
    let (l, cc, b) = (2, 1024, 14);
    let (main, extra, state, seq) = lstm_input(l, cc, b);
    let name = format!("lstm-in-place/l{l}-c{cc}-b{b}");
    let mut g = group(c, &name);
    bench(&mut g, &name, "objective", || {
        lstm_objective(l, cc, b, black_box(&main), &extra, &state, &seq)
    });
    let vg =
        value_and_gradients_function!(lstm_objective, params = ["main_params", "extra_params"]);
    bench(&mut g, &name, "gradient", || {
        vg(l, cc, b, black_box(&main), &extra, &state, &seq)
    });
    g.finish();
    let name = format!("lstm-split/l{l}-c{cc}-b{b}");
    let mut g = group(c, &name);
    bench(&mut g, &name, "objective", || {
        lstm_objective_split(l, cc, b, black_box(&main), &extra, &state, &seq)
    });
    let vg = value_and_gradients_function!(
        lstm_objective_split,
        params = ["main_params", "extra_params"]
    );
    bench(&mut g, &name, "gradient", || {
        vg(l, cc, b, black_box(&main), &extra, &state, &seq)
    });
    g.finish();
}

fn pick_benches(c: &mut Criterion) {
    let calls = 10_000;
    for len in [10, 100, 1_000, 10_000, 100_000, 1_000_000] {
        let v = uniform(len, 31);
        let name = format!("pick/len{len}");
        let mut g = group(c, &name);
        bench(&mut g, &name, "objective", || {
            pick_sum(black_box(&v), calls)
        });
        let vg = value_and_gradients_function!(pick_sum);
        bench(&mut g, &name, "gradient", || vg(black_box(&v), calls));
        // the gradient added into a buffer the caller keeps across calls (as an optimiser
        // accumulating sparse updates does): nothing of `v`'s length per call
        let add = accumulate_gradients!(pick_sum);
        let mut buffer = vec![0.0; len];
        bench(&mut g, &name, "accumulated", || {
            add(black_box(&v), calls, &mut buffer)
        });
        g.finish();
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn pretty(seconds: f64) -> String {
    if seconds < 1e-3 {
        format!("{:.1} µs", seconds * 1e6)
    } else if seconds < 1.0 {
        format!("{:.2} ms", seconds * 1e3)
    } else {
        format!("{:.2} s", seconds)
    }
}

/// Gradient ÷ objective for every group that ran both, from the medians of the last
/// [`SAMPLE_SIZE`] samples of each function (the earlier calls were criterion's warm-up), or
/// from its one call; and from the fastest sample of each.
fn print_ratios() {
    let samples = SAMPLES.with(|s| std::mem::take(&mut *s.borrow_mut()));
    let mut groups: Vec<&String> = samples.keys().map(|(g, _)| g).collect();
    groups.dedup();
    if groups.is_empty() {
        return;
    }
    println!(
        "\n| workload | objective | gradient | gradient ÷ objective | best gradient ÷ best \
         objective | into a kept buffer ÷ objective | by hand ÷ objective |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for group in groups {
        let get = |name: &'static str| {
            let (all, once) = samples.get(&(group.clone(), name))?;
            let time = median(all[all.len().saturating_sub(SAMPLE_SIZE)..].to_vec());
            Some((time, if *once { " (one call)" } else { "" }))
        };
        // (the fastest sample of each, warm-up included: on a shared machine the least
        // disturbed, and steadier from run to run than the medians)
        let best = |name: &'static str| {
            let (all, _) = samples.get(&(group.clone(), name))?;
            all.iter().copied().min_by(f64::total_cmp)
        };
        if let (Some((objective, o)), Some((gradient, g))) = (get("objective"), get("gradient")) {
            let ratio =
                |name| get(name).map_or("".to_string(), |(a, _)| format!("{:.2}", a / objective));
            let (accumulated, by_hand) = (ratio("accumulated"), ratio("by hand"));
            let best_ratio = match (best("objective"), best("gradient")) {
                (Some(o), Some(g)) => format!("{:.2}", g / o),
                _ => String::new(),
            };
            println!(
                "| {group} | {}{o} | {}{g} | {:.2} | {best_ratio} | {accumulated} | {by_hand} |",
                pretty(objective),
                pretty(gradient),
                gradient / objective
            );
        }
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    gmm_benches(&mut c);
    ba_benches(&mut c);
    lstm_benches(&mut c);
    pick_benches(&mut c);
    c.final_summary();
    print_ratios();
}
