//! The macros never panic: every entry point (`#[differentiable]`,
//! `differentiable_closure!`, the gradient helpers, `#[derive(Differentiable)]`) is fed
//! well-formed items it was not written for — the repository's own differentiable
//! functions mutated node by node, and syntax generated from Rust's grammar — and must
//! answer each with code or with `compile_error!`, never a panic, and always with tokens
//! that parse.
//!
//! `cargo test -p autodiff-macros never_panics` runs a short round; a long one:
//! `AUTODIFF_FUZZ_ITEMS=100000 cargo test --release -p autodiff-macros never_panics -- --nocapture`
//! (`AUTODIFF_FUZZ_SEED` picks another sequence; `AUTODIFF_FUZZ_ONLY=n,m` expands only
//! those inputs of it).

mod grammar;
mod mutate;
mod seeds;

use proc_macro2::TokenStream;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A small deterministic generator (SplitMix64): the same seed gives the same items.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `1 / n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// One input to one of the macros.
#[derive(Clone)]
pub enum Input {
    /// `#[differentiable(args)]` on `item`.
    Attribute {
        args: TokenStream,
        item: TokenStream,
    },
    /// `differentiable_closure!(tokens)`.
    Closure(TokenStream),
    /// `gradients_function!`, `value_and_gradients_function!` or `vjp!` (0, 1, 2).
    Helper(u8, TokenStream),
    /// `#[derive(Differentiable)]` on the item.
    Derive(TokenStream),
}

impl Input {
    fn describe(&self) -> String {
        match self {
            Input::Attribute { args, item } => {
                format!("#[differentiable({args})]\n{}", pretty(item))
            }
            Input::Closure(t) => format!("differentiable_closure!({t})"),
            Input::Helper(k, t) => format!(
                "{}!({t})",
                ["gradients_function", "value_and_gradients_function", "vjp"][*k as usize]
            ),
            Input::Derive(t) => format!("#[derive(Differentiable)]\n{}", pretty(t)),
        }
    }

    /// The macro's answer.
    fn expand(&self) -> TokenStream {
        match self {
            Input::Attribute { args, item } => {
                crate::expand::differentiable(args.clone(), item.clone())
            }
            Input::Closure(t) => crate::expand::closure(t.clone()),
            Input::Helper(k, t) => match syn::parse2::<crate::helpers::HelperInput>(t.clone()) {
                Ok(input) => match k {
                    0 => crate::helpers::gradients_function(input, false),
                    1 => crate::helpers::gradients_function(input, true),
                    _ => crate::helpers::vjp(input),
                }
                .unwrap_or_else(syn::Error::into_compile_error),
                Err(e) => e.into_compile_error(),
            },
            Input::Derive(t) => crate::derive::derive(t.clone()),
        }
    }
}

fn pretty(tokens: &TokenStream) -> String {
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(_) => tokens.to_string(),
    }
}

/// Whether the macro's output is something rustc can read: items, or an expression for
/// the function-like macros.
fn output_parses(input: &Input, out: &TokenStream) -> bool {
    match input {
        Input::Attribute { .. } | Input::Derive(_) => syn::parse2::<syn::File>(out.clone()).is_ok(),
        Input::Closure(_) | Input::Helper(..) => {
            syn::parse2::<syn::Expr>(out.clone()).is_ok()
                || syn::parse2::<syn::File>(out.clone()).is_ok()
                || syn::parse2::<syn::Block>(quote::quote!({ #out })).is_ok()
        }
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn never_panics() {
    let items = env_number("AUTODIFF_FUZZ_ITEMS", 1_500) as usize;
    let seed = env_number("AUTODIFF_FUZZ_SEED", 1);
    let pool = seeds::Pool::load();
    assert!(
        pool.functions.len() >= 100,
        "expected the repository's differentiable functions as seeds, found {}",
        pool.functions.len()
    );
    let mut rng = Rng::new(seed);
    // `AUTODIFF_FUZZ_ONLY=27799,49746`: expand only these inputs of the sequence (to
    // check a fix of a reported panic without the whole run)
    let only: Option<Vec<usize>> = std::env::var("AUTODIFF_FUZZ_ONLY")
        .ok()
        .map(|v| v.split(',').filter_map(|n| n.trim().parse().ok()).collect());

    let message = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let hook_message = message.clone();
    // Panics inside an expansion are recorded; any other (the generator's own) is reported
    // as usual.
    let expanding = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let hook_expanding = expanding.clone();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !hook_expanding.load(std::sync::atomic::Ordering::SeqCst) {
            previous(info);
            return;
        }
        let place = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let text = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        *hook_message.lock().unwrap() = format!("{text} at {place}");
    }));

    let mut panics = Vec::new();
    let mut unreadable = Vec::new();
    let mut counts = [0usize; 4];
    let mut accepted = 0usize;
    let mut slowest = (std::time::Duration::ZERO, 0, String::new());
    for n in 0..items {
        let input = match rng.below(20) {
            0..=11 => mutate::mutated_attribute(&pool, &mut rng),
            12..=15 => grammar::generated_attribute(&pool, &mut rng),
            16 => grammar::closure_input(&pool, &mut rng),
            17 | 18 => grammar::helper_input(&pool, &mut rng),
            _ => grammar::derive_input(&mut rng),
        };
        if only.as_ref().is_some_and(|o| !o.contains(&n)) {
            continue;
        }
        counts[match input {
            Input::Attribute { .. } => 0,
            Input::Closure(_) => 1,
            Input::Helper(..) => 2,
            Input::Derive(_) => 3,
        }] += 1;
        expanding.store(true, std::sync::atomic::Ordering::SeqCst);
        let started = std::time::Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| input.expand()));
        let took = started.elapsed();
        expanding.store(false, std::sync::atomic::Ordering::SeqCst);
        if took > slowest.0 {
            slowest = (took, n, input.describe());
        }
        match result {
            Ok(out) => {
                if !out.to_string().contains("compile_error") {
                    accepted += 1;
                }
                if !output_parses(&input, &out) && unreadable.len() < 20 {
                    unreadable.push((n, input.describe(), out.to_string()));
                }
            }
            Err(_) => {
                let why = message.lock().unwrap().clone();
                panics.push((n, input.describe(), why));
            }
        }
    }
    let _ = std::panic::take_hook();
    println!(
        "never_panics: {items} inputs (seed {seed}; {} attribute items, {} closures, {} helper calls, {} derives), {accepted} expanded without an error, {} panics, {} unreadable outputs; {} seed functions",
        counts[0], counts[1], counts[2], counts[3],
        panics.len(),
        unreadable.len(),
        pool.functions.len()
    );
    println!(
        "slowest: input {} in {:.1} ms{}",
        slowest.1,
        slowest.0.as_secs_f64() * 1e3,
        if std::env::var_os("AUTODIFF_FUZZ_SHOW_SLOWEST").is_some() {
            format!("\n{}", slowest.2)
        } else {
            String::new()
        }
    );
    for (n, input, why) in panics.iter().take(5) {
        println!("--- input {n} panicked: {why}\n{input}");
    }
    for (n, input, out) in unreadable.iter().take(5) {
        println!("--- input {n} expanded to tokens that do not parse:\n{input}\n=> {out}");
    }
    assert!(
        panics.is_empty(),
        "{} of {items} inputs made a macro panic",
        panics.len()
    );
    assert!(
        unreadable.is_empty(),
        "{} outputs do not parse",
        unreadable.len()
    );
}

/// Inputs the fuzzer found a panic with, kept as they were found.
#[test]
fn found_inputs_expand_without_panicking() {
    let found: &[TokenStream] = &[
        // (seed 11, input 72097) an `Err(p)` arm with a refutable `p`, an or-pattern
        quote::quote! {
            fn with_fallbacks(x: f64) -> f64 {
                let batch = match 'l: { break 'l safe_sqrt(x); } {
                    Ok(v) => vec![sin('c'); 2],
                    Err(1 | 2) => 0.0,
                };
                r + batch
            }
        },
        // (seed 1, input 505) a closure's body starting with a block, `{ … } + { … }`,
        // placed first in a generated block
        quote::quote! {
            fn and_then_chain(a: f64, b: f64) -> f64 {
                let r = checked_ln_power(a, b).and_then(|l| checked_ln_power(l.exp() + 1.0, 2.0));
                r.unwrap_or_else(|e| { if e == E::N { -a } else { 0.0 } } + { if e == E::N { -a } else { 0.0 } })
            }
        },
        // (seed 1, input 225) a struct literal heading a `for` loop's iterator: the
        // expansion did not parse
        quote::quote! {
            fn horner(x: f64, coeff: &P) -> f64 {
                Line { w: 255u8, b: w }.0.fold(0_f64, |acc, labels| acc * x + c)
            }
        },
        // (seed 13, input 69562) a typed closure parameter of a collected map
        quote::quote! {
            fn zipped_products(a: &[f64], b: StdRng) -> Vec<f64> {
                a.iter().zip(b.iter()).map(|g: f32| sum * y).map(|p| p.sin()).collect()
            }
        },
        // (seed 1, input 1357) `stack` whose axis is a name the lowering took for a
        // differentiable value: the join rule's part index underflowed
        quote::quote! {
            fn joined(a: &Array2<f64>, b: &[f64], v: &Option<f64>) -> f64 {
                let tall = autodiff::ndarray::concatenate(Axis(0), &[a.view(), b.view()]).unwrap();
                let rows = autodiff::ndarray::stack(y, &[v.view(), 18446744073709551615]).unwrap();
                tall.mapv(f64::sin).sum() + (&rows * &rows).sum() * 0.5 + tall.dot(v).sum()
            }
        },
        // (seed 25, input 3084) a function-pointer type in the signature of a function with
        // a parameter of a plain struct: the guard's scan took `fn(f64)` for an item and
        // wrote a second `where` (the expansion did not parse)
        quote::quote! {
            fn sin_m(_: Model) -> fn(f64) -> f64 {
                x.sin()
            }
        },
        // (seed 26, input 74597) a const generic argument's block in a parameter's type,
        // which the scan took for the body
        quote::quote! {
            fn single(#[allow(unused)] m: &Model, v: SVector<f32, { hidden as f64 }>) -> f32 {
                let gamma = m * v;
                assert_hand
            }
        },
        // (seed 25, input 9879) the same with a constant function-pointer parameter
        quote::quote! {
            fn loss(m: &Mlp, #[no_grad] x: fn(f64) -> f64, labels: Model) -> f64 {
                let h = (x.dot(&m.w1) + &m.b1).mapv(f64::tanh);
                nn::cross_entropy(&h, labels)
            }
        },
        // (seed 47, input 96782) a labeled block's tail naming no binding: its `break`
        // was quoted and parsed again, and did not parse
        quote::quote! {
            fn labeled_blocks(#[allow(unused)] x: f64, y: f64) -> f64 {
                let v = 'value: {
                    if x > 1.0 {
                        break 'value autodiff::sum_axis(18446744073709551615) * y;
                    }
                    let path = x.sin();
                    s * y
                };
                v * 2.0
            }
        },
        // (seed 50, input 24758) `for_each` as the operand of a cast: rewritten as a `for`
        // loop in place, which does not read back as an operand
        quote::quote! {
            fn sum_of_squares_by_for_each(#[no_grad] x: &[f64], a: f64) -> f64 {
                let mut s = 0.0;
                x.max(|Line { w, b }| Self).iter().for_each(|v| s += w * v * v) as &[f64; 2];
                s
            }
        },
        // (seed 368, input 7078) a destructuring assignment whose left side holds a `for`
        // loop: its rewrite as writes did not parse
        quote::quote! {
            fn rotated_pairs(x: &[f64]) -> f64 {
                let (mut a, mut b) = (x[0], x[1]);
                ((for i in 0..3 { 1.0; }, a), b) = ((a * a, b), a + b);
                a * b
            }
        },
        // a collected `scan` whose source is a struct literal's method call (a `for` head)
        quote::quote! {
            fn running(x: &[f64]) -> f64 {
                let c: Vec<f64> = P { v: x }.iter().scan(0.0, |acc, &v| { *acc += v; Some(*acc) }).collect();
                c[0]
            }
        },
    ];
    for item in found {
        let input = Input::Attribute {
            args: TokenStream::new(),
            item: item.clone(),
        };
        let result = catch_unwind(AssertUnwindSafe(|| input.expand()));
        assert!(result.is_ok(), "{}", input.describe());
        if let Ok(out) = result {
            assert!(output_parses(&input, &out), "{}", input.describe());
        }
    }
}
