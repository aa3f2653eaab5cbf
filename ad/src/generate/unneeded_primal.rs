//! `enzyme_dupnoneed` on a pointer in forward mode: the caller does not
//! want the primal values of that memory, only their tangents (Enzyme's
//! sparse Hessians pass `(double *)0x1` for it). The forward derivative
//! then drops its primal stores through the pointer, with the loads and
//! arithmetic that only feed them, where that is safe: when every load
//! through the pointer goes with them (nothing else, tangents included,
//! reads the memory the dropped stores would have written) and the pointer
//! reaches nothing but loads and stores (no call could read it). Otherwise
//! the derivative is left as it is, the primal stores kept.

use std::collections::HashSet;

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode::*;

use crate::ir::{self, Value};
use crate::surface::markers::{Activity, MarkerCall};

/// Per parameter: a pointer given with `enzyme_dupnoneed` (empty if none).
pub(crate) fn mask(plan: &MarkerCall) -> Vec<bool> {
    let m: Vec<bool> = ir::params(plan.function)
        .iter()
        .zip(&plan.args)
        .map(|(p, a)| ir::is_pointer(ir::type_of(*p)) && a.activity == Activity::DupNoNeed && a.shadow.is_some())
        .collect();
    if m.contains(&true) {
        m
    } else {
        Vec::new()
    }
}

/// Drops the primal stores through each `enzyme_dupnoneed` pointer of the
/// forward derivative `d` of `plan`, where safe (see the module's comment).
pub(crate) fn drop_stores(plan: &MarkerCall, d: Value) {
    let unneeded = mask(plan);
    if unneeded.is_empty() {
        return;
    }
    let dup = plan.dup_mask();
    let lanes = plan.width.max(1) as usize;
    let dparams = ir::params(d);
    let mut k = 0;
    for (n, p) in ir::params(plan.function).into_iter().enumerate() {
        let t = ir::type_of(p);
        if unneeded[n] {
            if let Some(dp) = dparams.get(k) {
                drop_through(*dp);
            }
        }
        k += 1;
        // (Shadows of pointers, tangents of floats: `body::map_params`.)
        if (ir::is_pointer(t) && dup[n]) || ir::is_float(t) {
            k += lanes;
        }
    }
}

fn drop_through(p: Value) {
    // Addresses made from the pointer, and the accesses through them.
    let mut loads: Vec<Value> = Vec::new();
    let mut stores: Vec<Value> = Vec::new();
    let Some(addresses) = crate::analysis::reread::derived_pointers(p, |u, v| match ir::opcode(u) {
        LLVMLoad if !ir::is_atomic(u) => {
            loads.push(u);
            true
        }
        LLVMStore if ir::operand(u, 1) == v && ir::operand(u, 0) != v && !ir::is_atomic(u) => {
            stores.push(u);
            true
        }
        LLVMCall => ir::is_lifetime_marker(u),
        _ => false,
    }) else {
        return;
    };
    // Joins only of addresses made from the pointer.
    for a in &addresses {
        let mixed = match ir::opcode(*a) {
            LLVMPHI => ir::incoming(*a).iter().any(|(x, _)| !addresses.contains(x)),
            LLVMSelect => [1, 2].iter().any(|k| !addresses.contains(&ir::operand(*a, *k))),
            _ => false,
        };
        if mixed {
            return;
        }
    }
    if stores.is_empty() {
        return;
    }
    // What only feeds the stores: side-effect free instructions all of
    // whose users are in the set.
    let mut dead: HashSet<Value> = stores.iter().copied().collect();
    let mut work: Vec<Value> = stores.iter().map(|s| ir::operand(*s, 0)).collect();
    while let Some(v) = work.pop() {
        if dead.contains(&v) || !ir::is_instruction(v) || !pure(v, &addresses) {
            continue;
        }
        if ir::users(v).iter().all(|u| dead.contains(u)) {
            dead.insert(v);
            work.extend((0..ir::operand_count(v)).map(|k| ir::operand(v, k)));
        }
    }
    if !loads.iter().all(|l| dead.contains(l)) {
        return;
    }
    // Erase users before what they use.
    let mut left: Vec<Value> = dead.into_iter().collect();
    while !left.is_empty() {
        let before = left.len();
        left.retain(|i| {
            if ir::users(*i).is_empty() {
                unsafe { LLVMInstructionEraseFromParent(*i) };
                false
            } else {
                true
            }
        });
        if left.len() == before {
            // (A cycle through phis: cannot happen for values feeding
            // stores only through arithmetic; leave them to the optimiser.)
            break;
        }
    }
}

/// Intrinsics without side effects (the optimiser's `a * b + c` is `fmuladd`).
const PURE_INTRINSICS: &[&str] =
    &["fmuladd", "fma", "fabs", "copysign", "minnum", "maxnum", "minimum", "maximum", "sqrt", "floor", "ceil"];

/// Instructions without side effects that may go with the stores they
/// feed: arithmetic, casts, aggregates and loads through the pointer.
fn pure(i: Value, addresses: &HashSet<Value>) -> bool {
    match ir::opcode(i) {
        LLVMLoad => addresses.contains(&ir::operand(i, 0)) && !ir::is_atomic(i),
        LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem | LLVMFNeg | LLVMAdd | LLVMSub | LLVMMul | LLVMAnd
        | LLVMOr | LLVMXor | LLVMShl | LLVMLShr | LLVMAShr | LLVMFPExt | LLVMFPTrunc | LLVMSIToFP | LLVMUIToFP
        | LLVMBitCast | LLVMZExt | LLVMSExt | LLVMTrunc | LLVMExtractElement | LLVMInsertElement
        | LLVMShuffleVector | LLVMExtractValue | LLVMInsertValue | LLVMSelect | LLVMFCmp | LLVMICmp => true,
        LLVMCall => ir::called_function(i).is_some_and(|f| {
            let name = ir::name(f);
            PURE_INTRINSICS.iter().any(|p| {
                name.strip_prefix("llvm.").and_then(|n| n.strip_prefix(p)).is_some_and(|rest| rest.starts_with('.'))
            })
        }),
        _ => false,
    }
}
