//! Expansion snapshots: the pretty-printed code the attribute writes for representative
//! functions, kept in `autodiff-macros/snapshots/` so a reviewer can read the generated
//! adjoint. Regenerate with `AUTODIFF_BLESS=1 cargo test -p autodiff-macros snapshots`.

use quote::quote;

fn expand_pretty(item: proc_macro2::TokenStream) -> String {
    pretty(crate::expand::differentiable(
        proc_macro2::TokenStream::new(),
        item,
    ))
}

fn pretty(tokens: proc_macro2::TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens).expect("the expansion parses as a file");
    prettyplease::unparse(&file)
}

fn check(name: &str, item: proc_macro2::TokenStream) {
    compare(name, expand_pretty(item));
}

/// Compares `actual` with the stored snapshot `name`, or stores it when blessing.
fn compare(name: &str, actual: String) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("snapshots")
        .join(format!("{name}.expanded.rs"));
    if std::env::var_os("AUTODIFF_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("create snapshots dir");
        std::fs::write(&path, &actual).expect("write snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == actual,
        "the expansion of `{name}` changed; review it and rerun with AUTODIFF_BLESS=1 to \
             update {}\n--- new expansion ---\n{actual}",
        path.display()
    );
}

#[test]
fn weighted_sum() {
    check(
        "weighted_sum",
        quote! {
            fn weighted_sum(w1: f64, x1: f64, w2: f64, x2: f64) -> f64 {
                w1 * x1 + w2 * x2
            }
        },
    );
}

#[test]
fn calls_and_constants() {
    check(
        "calls_and_constants",
        quote! {
            fn energy<T: Float>(x: T, y: T, n: i32) -> T {
                let r = x.hypot(y);
                let k = (n as f64) * 0.5;
                let s = weighted_sum(x, T::from(k).unwrap(), r.sin(), y);
                s.powi(n) / r
            }
        },
    );
}

#[test]
fn rosenbrock_loop() {
    check(
        "rosenbrock_loop",
        quote! {
            fn rosenbrock(x: &[f64]) -> f64 {
                let mut sum = 0.0;
                for i in 0..x.len() - 1 {
                    let a = 1.0 - x[i];
                    let b = x[i + 1] - x[i] * x[i];
                    sum += a * a + 100.0 * b * b;
                }
                sum
            }
        },
    );
}

#[test]
fn scalar_chain() {
    check(
        "scalar_chain",
        quote! {
            fn chain(x: f64, n: usize) -> f64 {
                let mut y = x;
                for _ in 0..n {
                    y = y.sin() * 1.0001 + (x * y).cos();
                }
                y
            }
        },
    );
}

fn check_closure(name: &str, closure: proc_macro2::TokenStream) {
    let tokens = crate::expand::closure(closure);
    let file: syn::File =
        syn::parse2(quote!(fn snapshot() { let _ = #tokens; })).expect("the expansion parses");
    compare(name, prettyplease::unparse(&file));
}

#[test]
fn implicit_closure() {
    check_closure(
        "implicit_closure",
        quote!(|x1: f64, x2: f64| w1 * x1 + w2 * x2),
    );
    check_closure(
        "implicit_closure_loop",
        quote!(|x: f64| {
            let mut s = 0.0;
            for i in 0..n {
                s += w * x * scale + i as f64;
            }
            s
        }),
    );
}

#[test]
fn dense_layer() {
    check(
        "dense_layer",
        quote! {
            fn dense(x: &Array2<f64>, w: &Array2<f64>, b: &Array1<f64>) -> f64 {
                let h = x.dot(w) + b;
                h.mapv(f64::tanh).sum()
            }
        },
    );
}

#[test]
fn branchy_recurrence() {
    check(
        "branchy_recurrence",
        quote! {
            fn recurrence(a: f64, b: f64, n: usize) -> f64 {
                let h = 1e-5;
                let mut y = 0.0;
                for _ in 0..n {
                    if y > 0.5 {
                        y -= h * a * y;
                    } else {
                        y += h * b * (1.0 - y);
                    }
                }
                y
            }
        },
    );
}

#[test]
fn slice_helper_calls() {
    check(
        "slice_helper_calls",
        quote! {
            fn sum_picks(v: &[f64], n: usize) -> f64 {
                let mut s = 0.0;
                for i in 0..n {
                    s += pick(v, i % v.len());
                }
                s
            }
        },
    );
}

/// A trait impl annotated as a whole: the trait's methods as written (answering the
/// implicit helpers), their companions in an inherent `impl` of the type, a sibling call
/// through `self` and a call in method form on another receiver.
#[test]
fn trait_impl_methods() {
    check(
        "trait_impl_methods",
        quote! {
            impl Continuous<f64, f64> for Exp {
                fn pdf(&self, x: f64) -> f64 {
                    self.rate * (-self.rate * x).exp()
                }
                fn ln_pdf(&self, x: f64) -> f64 {
                    self.pdf(x).ln() + self.base.ln_pdf(x)
                }
            }
        },
    );
}

/// A function whose body is one call of another: its fused gradient is the callee's
/// (`fuse::tail`).
#[test]
fn tail_call() {
    check(
        "tail_call",
        quote! {
            fn rosenbrock(x: &[f64]) -> f64 {
                rosenbrock_ab(x, 1.0, 100.0)
            }
        },
    );
}

/// A generic reduction loop whose slice the fused gradient only indexes, a condition
/// reading an element: `hvp!`'s split sweep `__seeded_split` (`fuse::split`).
#[test]
fn split_sweep() {
    check(
        "split_sweep",
        quote! {
            fn gated_squares<T: Float>(x: &[T], a: T) -> T {
                let mut sum = T::zero();
                for i in 0..x.len() - 1 {
                    if x[i] > a {
                        continue;
                    }
                    let d = x[i + 1] - a * x[i];
                    sum = sum + d * d;
                }
                sum
            }
        },
    );
}

#[test]
fn fixed_arrays() {
    check(
        "fixed_arrays",
        quote! {
            fn cross_rotated([x, y]: [f64; 2], m: &[[f64; 2]; 2], b: [f64; 3]) -> [f64; 3] {
                let (r, t) = if x > 0.0 { (x * m[0][1], y) } else { (y, x) };
                [b[1] * r - b[2] * t, b[2] * x - b[0] * r, b[0] * t - b[1] * x]
            }
        },
    );
}

/// Prints the expansion of every `#[differentiable]` item of the file named by
/// `AUTODIFF_EXPAND` (a development aid: `AUTODIFF_EXPAND=f.rs cargo test -p
/// autodiff-macros expand_file -- --nocapture`); does nothing without it.
#[test]
fn expand_file() {
    let Some(path) = std::env::var_os("AUTODIFF_EXPAND") else {
        return;
    };
    let text = std::fs::read_to_string(path).expect("read the file to expand");
    let file: syn::File = syn::parse_str(&text).expect("the file parses");
    for item in file.items.clone() {
        let syn::Item::Fn(mut f) = item else {
            continue;
        };
        let before = f.attrs.len();
        // (the attribute's arguments, `second_order`, kept for the expansion)
        let args = (f.attrs.iter())
            .find(|a| a.path().is_ident("differentiable"))
            .and_then(|a| a.meta.require_list().ok().map(|l| l.tokens.clone()))
            .unwrap_or_default();
        f.attrs.retain(|a| !a.path().is_ident("differentiable"));
        if f.attrs.len() != before {
            // `AUTODIFF_EXPAND_TIME=1`: how long the attribute takes, not the expansion
            if std::env::var_os("AUTODIFF_EXPAND_TIME").is_some() {
                let item = quote!(#f);
                let rounds: u32 = std::env::var("AUTODIFF_EXPAND_TIME")
                    .ok()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(1)
                    .max(1);
                let started = std::time::Instant::now();
                let mut tokens = proc_macro2::TokenStream::new();
                for _ in 0..rounds {
                    tokens = crate::expand::differentiable(
                        proc_macro2::TokenStream::new(),
                        item.clone(),
                    );
                }
                let took = started.elapsed() / rounds;
                println!(
                    "{}: {} lines in, {} tokens out, expanded in {took:.2?}",
                    f.sig.ident,
                    text.lines().count(),
                    tokens.into_iter().count()
                );
                continue;
            }
            let tokens = crate::expand::differentiable(args, quote!(#f));
            println!("{}", pretty(tokens));
        }
    }
}
