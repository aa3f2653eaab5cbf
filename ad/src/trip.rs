//! Trip counts of counted loops, known when the loop is entered: used to
//! size a loop's tapes once on entry instead of growing them as it runs.
//!
//! The count found is an upper bound at best (a loop may still leave early
//! through another exit), and the tapes keep growing on demand, so a bound
//! that is too small costs a reallocation, never correctness.

use llvm_sys::core::*;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode};

use crate::cfg::{Cfg, Loop};
use crate::ir::{self, Value};

/// `for (i = start; i <cmp> bound; i += step)`: an integer header phi
/// stepped by a constant and compared with a value from outside the loop.
pub(crate) struct Counted {
    /// The induction variable's value on entry.
    pub start: Value,
    /// The loop-invariant value it is compared with.
    pub bound: Value,
    /// The constant step (non-zero).
    pub step: i64,
    /// Whether the comparison is unsigned (then values are zero-extended).
    pub unsigned: bool,
}

/// The counted-loop shape of `l`, if it has one.
pub(crate) fn counted(cfg: &Cfg, l: &Loop) -> Option<Counted> {
    let inside = |v: Value| ir::is_instruction(v) && l.blocks.contains(&ir::parent_block(v));
    for phi in ir::instructions(l.header) {
        if ir::opcode(phi) != LLVMOpcode::LLVMPHI {
            break;
        }
        if !ir::is_int(ir::type_of(phi)) {
            continue;
        }
        let (mut start, mut next) = (None, None);
        for (v, b) in ir::incoming(phi) {
            if l.blocks.contains(&b) {
                next = Some(v);
            } else {
                start = Some(v);
            }
        }
        let (Some(start), Some(next)) = (start, next) else { continue };
        if ir::opcode(next) != LLVMOpcode::LLVMAdd {
            continue;
        }
        let step = match (ir::operand(next, 0) == phi, ir::operand(next, 1) == phi) {
            (true, false) => ir::operand(next, 1),
            (false, true) => ir::operand(next, 0),
            _ => continue,
        };
        if unsafe { LLVMIsAConstantInt(step).is_null() } {
            continue;
        }
        let step = unsafe { LLVMConstIntGetSExtValue(step) };
        if step == 0 {
            continue;
        }
        // A conditional exit comparing the variable (or its next value) with an
        // invariant, tested on every iteration (its block dominates the latch).
        for (b, _) in &l.exits {
            let t = ir::terminator(*b);
            if ir::opcode(t) != LLVMOpcode::LLVMBr
                || ir::operand_count(t) != 3
                || !l.latches.iter().all(|latch| cfg.dominates(*b, *latch))
            {
                continue;
            }
            let cond = ir::operand(t, 0);
            if ir::opcode(cond) != LLVMOpcode::LLVMICmp {
                continue;
            }
            let (a, c) = (ir::operand(cond, 0), ir::operand(cond, 1));
            let bound = if (a == phi || a == next) && !inside(c) {
                c
            } else if (c == phi || c == next) && !inside(a) {
                a
            } else {
                continue;
            };
            use LLVMIntPredicate::*;
            let unsigned =
                matches!(unsafe { LLVMGetICmpPredicate(cond) }, LLVMIntULT | LLVMIntULE | LLVMIntUGT | LLVMIntUGE);
            return Some(Counted { start, bound, step, unsigned });
        }
    }
    None
}
