//! Loop-invariant snapshots: a snapshot of a `let mut` buffer (`Rhs::ReadCell`) taken at
//! the top level of a loop body whose iterations never write the buffer is taken once,
//! before the loop. A sub-slice `&buf[a..b]` or a whole `&buf` passed to a helper in a
//! loop then costs the slice, not a copy of the whole buffer per iteration (the buffer's
//! length times the number of iterations).
//!
//! Sound because the snapshot has no operands: before the loop it holds what every
//! iteration would have read, since nothing in the loop (its head included) writes the
//! buffer; and its adjoint is the buffer's, whichever side of the loop it is read on. Inner
//! loops are done first, so a snapshot moves out of every loop that leaves it unchanged.

use super::cells_written;
use crate::ir::{Block, LoopHead, Rhs, Stmt, VarInfo};
use std::collections::HashSet;

/// Moves loop-invariant snapshots in `block` (and the blocks nested in it) out of their
/// loops, giving each moved variable the region of the block it lands in.
pub(super) fn hoist_snapshots(block: &mut Block, vars: &mut [VarInfo]) {
    let stmts = std::mem::take(&mut block.stmts);
    for mut stmt in stmts {
        match &mut stmt {
            Stmt::If { then, els, .. } => {
                hoist_snapshots(then, vars);
                hoist_snapshots(els, vars);
            }
            Stmt::Loop { head, body, .. } => {
                hoist_snapshots(body, vars);
                let mut written = HashSet::new();
                cells_written(body, &mut written);
                if let LoopHead::For { iter, .. } = head {
                    written.extend(crate::ir::CellId::mentioned_in(iter));
                }
                let (moved, kept): (Vec<Stmt>, Vec<Stmt>) =
                    std::mem::take(&mut body.stmts).into_iter().partition(|s| {
                        matches!(s, Stmt::Let { rhs: Rhs::ReadCell(c), .. } if !written.contains(c))
                    });
                body.stmts = kept;
                for s in moved {
                    if let Stmt::Let { dst, .. } = &s {
                        vars[dst.0].region = block.region;
                    }
                    block.stmts.push(s);
                }
            }
            _ => {}
        }
        block.stmts.push(stmt);
    }
}
