//! `cargo bench --bench report`: runs every workload three ways in paired rounds (primal,
//! generated gradient, hand-written adjoint, one after the other, many times) and prints
//! the medians of the per-round ratios: generated ÷ hand-written and gradient ÷ primal.
//! Paired ratios cancel most of the noise of a shared machine.

use autodiff::prelude::*;
use std::hint::black_box;
use std::time::{Duration, Instant};

mod workloads;
use workloads::*;

/// The time of one call of `f`, averaged over enough calls to last about `target`.
fn time<R>(f: &mut dyn FnMut() -> R, target: Duration) -> f64 {
    let mut reps = 1u32;
    loop {
        let start = Instant::now();
        for _ in 0..reps {
            black_box(f());
        }
        let elapsed = start.elapsed();
        if elapsed >= target || reps >= 1 << 20 {
            return elapsed.as_secs_f64() / f64::from(reps);
        }
        reps *= 2;
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

struct Row {
    name: String,
    primal: f64,
    generated: f64,
    by_hand: f64,
    generated_over_hand: f64,
    gradient_over_primal: f64,
}

fn measure<A, B, C>(
    name: &str,
    rounds: usize,
    mut primal: impl FnMut() -> A,
    mut generated: impl FnMut() -> B,
    mut by_hand: impl FnMut() -> C,
) -> Row {
    let target = Duration::from_millis(40);
    let (mut p, mut g, mut h, mut gh, mut gp) = (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        let tp = time(&mut primal, target);
        let tg = time(&mut generated, target);
        let th = time(&mut by_hand, target);
        p.push(tp);
        g.push(tg);
        h.push(th);
        gh.push(tg / th);
        gp.push(tg / tp);
    }
    Row {
        name: name.to_string(),
        primal: median(p),
        generated: median(g),
        by_hand: median(h),
        generated_over_hand: median(gh),
        gradient_over_primal: median(gp),
    }
}

fn pretty(seconds: f64) -> String {
    if seconds < 1e-6 {
        format!("{:.0} ns", seconds * 1e9)
    } else if seconds < 1e-3 {
        format!("{:.1} µs", seconds * 1e6)
    } else {
        format!("{:.2} ms", seconds * 1e3)
    }
}

fn main() {
    // `cargo bench` passes `--bench`; a quick run for smoke tests takes `--quick`.
    let quick = std::env::args().any(|a| a == "--quick");
    let rounds = if quick { 3 } else { 31 };
    let mut rows = Vec::new();
    for n in [10_000, 1_000_000] {
        let x = rosenbrock_input(n);
        let generated = value_and_gradients_function!(rosenbrock);
        rows.push(measure(
            &format!("Rosenbrock, n = {n}"),
            rounds,
            || rosenbrock(black_box(&x)),
            || generated(black_box(&x)),
            || rosenbrock_by_hand(black_box(&x)),
        ));
        let generated = value_and_gradients_function!(rosenbrock_wrapped);
        rows.push(measure(
            &format!("Rosenbrock through a wrapper, n = {n}"),
            rounds,
            || rosenbrock_wrapped(black_box(&x)),
            || generated(black_box(&x)),
            || rosenbrock_by_hand(black_box(&x)),
        ));
    }
    let n = 1_000_000;
    let generated = value_and_gradients_function!(chain, params = ["x"]);
    rows.push(measure(
        "scalar chain, 10^6 steps",
        rounds,
        || chain(black_box(0.5), n),
        || generated(black_box(0.5), n),
        || chain_by_hand(black_box(0.5), n),
    ));
    let generated = value_and_gradients_function!(recurrence, params = ["a", "b"]);
    rows.push(measure(
        "branchy recurrence, 10^6 steps",
        rounds,
        || recurrence(black_box(0.9), black_box(0.3), n),
        || generated(black_box(0.9), black_box(0.3), n),
        || recurrence_by_hand(black_box(0.9), black_box(0.3), n),
    ));

    let (m, x, labels) = mlp_input(784, 256, 10, 64);
    let generated = value_and_gradients_function!(mlp_loss, params = ["m"]);
    rows.push(measure(
        "MLP 784-256-10, batch 64",
        rounds,
        || mlp_loss(black_box(&m), black_box(&x), &labels),
        || generated(black_box(&m), black_box(&x), &labels),
        || mlp_by_hand(black_box(&m), black_box(&x), &labels),
    ));

    // The implicit helpers' cost over the explicit mode: a tiny function (the seed's),
    // where any per-call overhead shows, and Rosenbrock over a variable-free slice.
    let w1 = Variable::new(2.0);
    let w2 = Variable::new(3.0);
    let weighted_sum = differentiable_closure!(|x1: f64, x2: f64| w1 * x1 + w2 * x2);
    let implicit = implicit_value_and_gradients(&weighted_sum);
    let explicit = value_and_gradients_function!(weighted_sum_with_weights);
    let mut overhead = Vec::new();
    for _ in 0..rounds {
        let te = time(
            &mut || {
                explicit(
                    black_box(2.0),
                    black_box(5.0),
                    black_box(3.0),
                    black_box(7.0),
                )
            },
            Duration::from_millis(40),
        );
        let ti = time(
            &mut || implicit(black_box(5.0), black_box(7.0)),
            Duration::from_millis(40),
        );
        overhead.push((te, ti));
    }
    let te = median(overhead.iter().map(|p| p.0).collect());
    let ti = median(overhead.iter().map(|p| p.1).collect());

    println!("| workload | primal | generated gradient | hand-written adjoint | generated ÷ hand-written | gradient ÷ primal |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for r in rows {
        println!(
            "| {} | {} | {} | {} | {:.2} | {:.2} |",
            r.name,
            pretty(r.primal),
            pretty(r.generated),
            pretty(r.by_hand),
            r.generated_over_hand,
            r.gradient_over_primal
        );
    }
    println!("\nmedians of {rounds} paired rounds; single thread, f64");
    println!(
        "\nimplicit mode, the seed's weighted_sum: explicit value_and_gradients_function! {} per call, implicit_value_and_gradients {} per call (+{} for the request, the variable reads and the pairs)",
        pretty(te),
        pretty(ti),
        pretty(ti - te)
    );
}
