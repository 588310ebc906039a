//! Statement-level preaccumulation of a cell's update from its own value read more than
//! once (`y -= h * a * y`, `y += h * b * (1.0 - y)`, `x = x * x`).
//!
//! Applied as it is, the chain rule sends the update's cotangent `t` down every path to
//! the old value and adds what arrives: `dy = t − (h·a)·t`, a multiplication and a
//! subtraction on the path from one iteration's adjoint to the previous one's, which in a
//! loop is the reverse sweep's critical dependency chain. Here the paths' partials are
//! combined first, from a seed of one, without the cotangent — `p = 1 − h·a`, which does
//! not depend on `t` and is computed off that chain (often hoisted out of the loop) — and
//! each input then receives `p · t` once: what a hand-written adjoint does
//! (`dy *= 1.0 - h * a`). Both are the same derivative; they may round differently.
//!
//! Only scalar steps (operators and float methods on values that cannot be arrays) whose
//! results are read once, by the next step of the same statement, form a tree; a tree is
//! preaccumulated only when one of its leaves is a snapshot of the cell its root is
//! written back to, read more than once.

use super::*;
use std::collections::HashSet;

/// A statement's scalar steps, the root (its result) first, each node after the node
/// that reads it.
#[derive(Clone)]
pub(crate) struct Tree {
    pub(crate) nodes: Vec<(VarId, &'static crate::rules::Rule, Prim, Vec<Operand>)>,
    pub(crate) members: HashSet<VarId>,
    /// The cell whose update this is (its adjoint's chain is what the tree shortens).
    pub(crate) cell: CellId,
}

/// The trees to preaccumulate, by root.
pub(crate) fn trees(body: &Body) -> HashMap<VarId, Tree> {
    let mentions = hoist::var_mentions(&body.block);
    let mut output = Vec::new();
    body.output.vars(&mut output);
    let defs = crate::ir::definitions(&body.block);
    let mut out = HashMap::new();
    walk(body, &body.block, &defs, &mentions, &output, &mut out);
    out
}

/// A step a tree may hold: a scalar rule's, active.
fn scalar_step(body: &Body, dst: VarId, rhs: &Rhs) -> Option<&'static crate::rules::Rule> {
    let Rhs::Prim(prim, _) = rhs else {
        return None;
    };
    if !matches!(prim, Prim::Binary { .. } | Prim::Neg | Prim::Method { .. })
        || body.vars[dst.0].maybe_array
        || !body.is_active(dst)
    {
        return None;
    }
    let rule = prim.rule()?;
    (!crate::rules::is_option_rule(rule) && rule.form != crate::rules::Form::Join).then_some(rule)
}

/// `all_defs`: every variable's definition in the body (a leaf's may be outside `block`).
fn walk(
    body: &Body,
    block: &Block,
    all_defs: &HashMap<VarId, &Rhs>,
    mentions: &HashMap<VarId, usize>,
    output: &[VarId],
    out: &mut HashMap<VarId, Tree>,
) {
    let defs: HashMap<VarId, &Rhs> = (block.stmts.iter())
        .filter_map(|s| match s {
            Stmt::Let { dst, rhs, .. } => Some((*dst, rhs)),
            _ => None,
        })
        .collect();
    for stmt in &block.stmts {
        match stmt {
            Stmt::If { then, els, .. } => {
                walk(body, then, all_defs, mentions, output, out);
                walk(body, els, all_defs, mentions, output, out);
            }
            Stmt::Loop { body: b, .. } => walk(body, b, all_defs, mentions, output, out),
            Stmt::WriteCell {
                cell,
                value: Operand::Var(root),
            } if body.cells[cell.0].active && mentions.get(root) == Some(&1) => {
                let Some(tree) = tree(body, &defs, mentions, output, *root, *cell) else {
                    continue;
                };
                // a leaf read twice or more, a snapshot of the cell written
                let mut seen: HashMap<VarId, usize> = HashMap::new();
                for (_, _, _, args) in &tree.nodes {
                    for a in args {
                        if let Operand::Var(u) = a {
                            if !tree.members.contains(u) {
                                *seen.entry(*u).or_default() += 1;
                            }
                        }
                    }
                }
                let repeated = seen.iter().any(|(u, n)| {
                    *n > 1 && matches!(all_defs.get(u), Some(Rhs::ReadCell(c)) if c == cell)
                });
                if repeated {
                    out.insert(*root, tree);
                }
            }
            _ => {}
        }
    }
}

fn tree(
    body: &Body,
    defs: &HashMap<VarId, &Rhs>,
    mentions: &HashMap<VarId, usize>,
    output: &[VarId],
    root: VarId,
    cell: CellId,
) -> Option<Tree> {
    let mut tree = Tree {
        nodes: Vec::new(),
        members: HashSet::new(),
        cell,
    };
    let mut queue = std::collections::VecDeque::from([root]);
    while let Some(v) = queue.pop_front() {
        let rhs = defs.get(&v)?;
        let rule = scalar_step(body, v, rhs)?;
        let Rhs::Prim(prim, args) = rhs else {
            return None;
        };
        for a in args {
            match a {
                Operand::Var(u) => {
                    let inner = defs
                        .get(u)
                        .is_some_and(|r| scalar_step(body, *u, r).is_some())
                        && mentions.get(u) == Some(&1)
                        && !output.contains(u);
                    if inner {
                        tree.members.insert(*u);
                        queue.push_back(*u);
                    } else if body.is_active(*u) && body.vars[u.0].maybe_array {
                        return None;
                    }
                }
                // a reference or a range: not a scalar's
                Operand::Inline(_) => {}
                _ => return None,
            }
        }
        tree.nodes.push((v, rule, prim.clone(), args.clone()));
    }
    Some(tree)
}

impl Emitter<'_> {
    /// The reverse of a preaccumulated tree (see the module), at its root `dst`, whose
    /// adjoint is complete; `negated`: the adjoint holds its negation.
    pub(crate) fn preaccumulate(&mut self, out: &mut TokenStream, tree: &Tree, negated: bool) {
        let rt = rt();
        let dy = tree.nodes[0].0.adjoint();
        let mut partials = TokenStream::new();
        let mut partial: HashMap<VarId, syn::Ident> = HashMap::new();
        let one = self.fresh("__p");
        partials.extend(quote!(let #one = #rt::ops::one_like(&#dy);));
        partial.insert(tree.nodes[0].0, one);
        let mut leaves: Vec<(VarId, Vec<TokenStream>)> = Vec::new();
        for (node, rule, prim, args) in &tree.nodes {
            let p = partial[node].clone();
            for (k, arg) in args.iter().enumerate() {
                let Some(u) = self.active_var(arg) else {
                    continue;
                };
                if rule.constant_operand(k) {
                    continue;
                }
                let local = self.scalar_rule(rule, prim, *node, args, k, &quote!(#p));
                if tree.members.contains(&u) {
                    let q = self.fresh("__p");
                    partials.extend(quote!(let #q = #local;));
                    partial.insert(u, q);
                } else if let Some((_, parts)) = leaves.iter_mut().find(|(l, _)| *l == u) {
                    parts.push(local);
                } else {
                    leaves.push((u, vec![local]));
                }
            }
        }
        let products = leaves
            .iter()
            .map(|(_, parts)| quote!(#rt::ops::scale_by(#(#parts)+*, &#dy)));
        // Sums and products only: the partials are finite where the operands are, and
        // `0 · x` is what the rules give too (no test on the adjoint's chain). Otherwise a
        // zero cotangent contributes zero whatever the partials (as through each rule that
        // may be infinite, see the runtime's `ops`), and they are not computed.
        let plain = (tree.nodes.iter())
            .all(|(_, rule, ..)| ["add", "sub", "mul", "neg"].contains(&rule.name));
        let values = if plain {
            quote!({ #partials (#(#products,)*) })
        } else {
            let zeros = leaves.iter().map(|_| quote!(#dy));
            quote! {
                if #rt::ops::zero_cotangent(&#dy) {
                    (#(#zeros,)*)
                } else {
                    #partials
                    (#(#products,)*)
                }
            }
        };
        let names: Vec<syn::Ident> = leaves.iter().map(|_| self.fresh("__pa")).collect();
        out.extend(quote!(let (#(#names,)*) = #values;));
        for ((u, _), name) in leaves.iter().zip(names) {
            self.contribute_signed(out, *u, quote!(#name), false, negated);
        }
    }

    /// Whether `dst` roots a tree this reverse sweep preaccumulates: not when its cell's
    /// adjoint is the same in every iteration (a fused loop's accumulator), nor when an
    /// element's adjoint is kept elsewhere (`increments`).
    pub(crate) fn preaccumulated(&self, dst: VarId) -> Option<Tree> {
        let tree = self.preaccumulated.get(&dst)?;
        let kept_elsewhere = tree.nodes.iter().any(|(v, _, _, args)| {
            self.increment_values.contains(v)
                || args.iter().filter_map(Operand::var).any(|u| {
                    self.increment_reads.contains(&u)
                        || self.preinit.contains(&u) && tree.members.contains(&u)
                })
        });
        (!self.invariant.contains(&tree.cell) && !kept_elsewhere).then(|| tree.clone())
    }
}
