//! Gradients computed on many threads over shared variables while an optimizer updates
//! them from another thread: no panic, no deadlock, and every gradient consistent with the
//! snapshot its own computation read. (CI also runs this file with `--release`.)

use autodiff::optim::Sgd;
use autodiff::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

#[test]
fn readers_and_an_optimizer_at_once() {
    let w = Arc::new(Variable::new(1.0).with_name("w"));
    let stop = Arc::new(AtomicBool::new(false));
    // the updater's steps so far: the readers run until it has made some, so that the two
    // overlap however the threads are scheduled (on a busy machine six readers can finish
    // 5 000 calls each before the updater's first step)
    let steps = Arc::new(AtomicU64::new(0));

    let updater = {
        let (w, stop, steps) = (Arc::clone(&w), Arc::clone(&stop), Arc::clone(&steps));
        std::thread::spawn(move || {
            // Minimises (w − 3)², through the same implicit machinery.
            let f = differentiable_closure!(|| ((*w) - 3.0) * ((*w) - 3.0));
            let mut sgd = Sgd::new(1e-4);
            while !stop.load(Ordering::Relaxed) {
                sgd.apply_gradients(&implicit_gradients(&f)());
                steps.fetch_add(1, Ordering::Relaxed);
            }
        })
    };

    let readers: Vec<_> = (0..6)
        .map(|t| {
            let (w, steps) = (Arc::clone(&w), Arc::clone(&steps));
            std::thread::spawn(move || {
                let x = 1.0 + t as f64;
                // One read of `w` per call: value = v²·x and gradient = 2·v·x for the same
                // snapshot v, whatever the updater does meanwhile.
                let f = differentiable_closure!(|x: f64| {
                    let v = (*w) * 1.0;
                    v * v * x
                });
                let vg = implicit_value_and_gradients(&f);
                let (mut calls, started) = (0u64, std::time::Instant::now());
                let waiting = || {
                    steps.load(Ordering::Relaxed) == 0
                        && started.elapsed() < std::time::Duration::from_secs(30)
                };
                while calls < 5_000 || waiting() {
                    calls += 1;
                    let (value, grads) = vg(x);
                    let g = grads.get(&*w).expect("w was read");
                    let v = (value / x).sqrt();
                    assert!(
                        (g - 2.0 * v * x).abs() <= 1e-9 * g.abs().max(1.0),
                        "value {value} and gradient {g} come from different snapshots"
                    );
                }
            })
        })
        .collect();
    for r in readers {
        r.join().expect("a reader panicked");
    }
    stop.store(true, Ordering::Relaxed);
    updater.join().expect("the updater panicked");
    // (the readers wait for the updater's first step at most 30 s: none by then is a
    // writer starved or deadlocked)
    assert!(
        steps.load(Ordering::Relaxed) > 0,
        "the updater made no step"
    );
    // the updater moved w towards 3 and never past it
    let final_w = w.get();
    assert!(final_w > 1.0 && final_w <= 3.0, "{final_w}");
}
