//! Gradients computed on many threads over shared variables while an optimizer updates
//! them from another thread: no panic, no deadlock, and every gradient consistent with the
//! snapshot its own computation read. (CI also runs this file with `--release`.)

use autodiff::optim::Sgd;
use autodiff::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[test]
fn readers_and_an_optimizer_at_once() {
    let w = Arc::new(Variable::new(1.0).with_name("w"));
    let stop = Arc::new(AtomicBool::new(false));

    let updater = {
        let (w, stop) = (Arc::clone(&w), Arc::clone(&stop));
        std::thread::spawn(move || {
            // Minimises (w − 3)², through the same implicit machinery.
            let f = differentiable_closure!(|| ((*w) - 3.0) * ((*w) - 3.0));
            let mut sgd = Sgd::new(1e-4);
            let mut steps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                sgd.apply_gradients(&implicit_gradients(&f)());
                steps += 1;
            }
            steps
        })
    };

    let readers: Vec<_> = (0..6)
        .map(|t| {
            let w = Arc::clone(&w);
            std::thread::spawn(move || {
                let x = 1.0 + t as f64;
                // One read of `w` per call: value = v²·x and gradient = 2·v·x for the same
                // snapshot v, whatever the updater does meanwhile.
                let f = differentiable_closure!(|x: f64| {
                    let v = (*w) * 1.0;
                    v * v * x
                });
                let vg = implicit_value_and_gradients(&f);
                for _ in 0..5_000 {
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
    let steps = updater.join().expect("the updater panicked");
    assert!(steps > 0);
    // the updater moved w towards 3 and never past it
    let final_w = w.get();
    assert!(final_w > 1.0 && final_w <= 3.0, "{final_w}");
}
