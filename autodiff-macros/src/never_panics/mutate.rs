//! The mutator: a seed function with a few of its nodes replaced — by a node of the same
//! kind taken from another seed, by a generated one, or by a wrapped or reshaped copy.

use super::grammar;
use super::seeds::Pool;
use super::{Input, Rng};
use quote::ToTokens;
use syn::visit_mut::VisitMut;

/// A seed with 1–6 mutations (retried until the result is still a well-formed item, as
/// rustc hands an attribute only well-formed items).
pub fn mutated_attribute(pool: &Pool, rng: &mut Rng) -> Input {
    loop {
        let seed = rng.pick(&pool.functions);
        let mut item = seed.item.clone();
        let mut args = seed.args.clone();
        if rng.one_in(10) {
            args = grammar::attribute_args(pool, rng);
        }
        let budget = 1 + rng.below(6);
        let mut mutator = Mutator {
            pool,
            rng,
            left: budget,
            rate: 0,
        };
        // The chance per node grows until the budget is spent.
        for _ in 0..4 {
            if mutator.left == 0 {
                break;
            }
            mutator.rate = 2 + mutator.rng.below(30);
            mutator.visit_item_mut(&mut item);
        }
        let tokens = item.to_token_stream();
        if syn::parse2::<syn::Item>(tokens.clone()).is_ok() {
            return Input::Attribute { args, item: tokens };
        }
    }
}

struct Mutator<'a> {
    pool: &'a Pool,
    rng: &'a mut Rng,
    left: usize,
    rate: usize,
}

impl Mutator<'_> {
    fn fire(&mut self) -> bool {
        if self.left > 0 && self.rng.one_in(self.rate) {
            self.left -= 1;
            true
        } else {
            false
        }
    }

    fn expr(&mut self, e: &syn::Expr) -> syn::Expr {
        let pool = self.pool;
        match self.rng.below(4) {
            0 => self.rng.pick(&pool.exprs).clone(),
            1 => grammar::expr(pool, self.rng, 2),
            _ => grammar::wrap(pool, self.rng, e.clone()),
        }
    }
}

impl VisitMut for Mutator<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if self.fire() {
            *e = self.expr(e);
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_bin_op_mut(&mut self, op: &mut syn::BinOp) {
        if self.fire() {
            *op = grammar::bin_op(self.rng);
        }
    }

    fn visit_lit_mut(&mut self, lit: &mut syn::Lit) {
        if self.fire() {
            *lit = grammar::lit(self.rng);
        }
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        if !b.stmts.is_empty() && self.fire() {
            let at = self.rng.below(b.stmts.len());
            match self.rng.below(5) {
                0 => {
                    b.stmts.remove(at);
                }
                1 => {
                    let s = b.stmts[at].clone();
                    b.stmts.insert(at, s);
                }
                2 => {
                    let other = self.rng.below(b.stmts.len());
                    b.stmts.swap(at, other);
                }
                3 => {
                    let s = self.rng.pick(&self.pool.stmts).clone();
                    b.stmts.insert(at, s);
                }
                _ => {
                    let s = grammar::stmt(self.pool, self.rng);
                    b.stmts.insert(at, s);
                }
            }
        }
        syn::visit_mut::visit_block_mut(self, b);
    }

    fn visit_type_mut(&mut self, t: &mut syn::Type) {
        if self.fire() {
            *t = if self.rng.one_in(2) {
                self.rng.pick(&self.pool.types).clone()
            } else {
                grammar::ty(self.rng)
            };
            return;
        }
        syn::visit_mut::visit_type_mut(self, t);
    }

    fn visit_pat_mut(&mut self, p: &mut syn::Pat) {
        if self.fire() {
            *p = if self.rng.one_in(2) {
                self.rng.pick(&self.pool.pats).clone()
            } else {
                grammar::pat(self.rng)
            };
            return;
        }
        syn::visit_mut::visit_pat_mut(self, p);
    }

    fn visit_signature_mut(&mut self, sig: &mut syn::Signature) {
        if self.fire() {
            match self.rng.below(8) {
                0 => {
                    let n = sig.inputs.len();
                    if n > 0 {
                        let at = self.rng.below(n);
                        let kept: Vec<syn::FnArg> = sig
                            .inputs
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| *i != at)
                            .map(|(_, a)| a.clone())
                            .collect();
                        sig.inputs = kept.into_iter().collect();
                    }
                }
                1 => sig.inputs.push(grammar::fn_arg(self.rng)),
                2 => sig.output = grammar::return_type(self.rng),
                3 => sig.generics = grammar::generics(self.rng),
                4 => sig.asyncness = Some(Default::default()),
                5 => sig.constness = Some(Default::default()),
                6 => sig.unsafety = Some(Default::default()),
                _ => {
                    let ident = grammar::ident(self.rng);
                    sig.ident = ident;
                }
            }
        }
        syn::visit_mut::visit_signature_mut(self, sig);
    }

    fn visit_fn_arg_mut(&mut self, arg: &mut syn::FnArg) {
        if let syn::FnArg::Typed(pt) = arg {
            if self.fire() {
                match self.rng.below(3) {
                    0 => pt.attrs.push(syn::parse_quote!(#[no_grad])),
                    1 => pt.attrs.clear(),
                    _ => pt.attrs.push(syn::parse_quote!(#[allow(unused)])),
                }
            }
        }
        syn::visit_mut::visit_fn_arg_mut(self, arg);
    }
}
