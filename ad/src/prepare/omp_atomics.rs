//! OpenMP atomics on floats that are not plain additions, in a region's
//! microtask: each becomes ordinary code in a critical section of its own
//! (one lock for all of them), which both modes differentiate as any
//! critical section (see `parallel::ORDERED`): in reverse mode the sections
//! are reversed in the opposite of the order the threads went through them,
//! so the value written last gets the adjoint, and a capture sees the
//! values added before it. Additions whose old value is unused stay atomic
//! (their reverse needs no order). Outside a region these atomics stay
//! refused by `classify`.
//!
//! - `atomic write` (`store atomic`): a plain store;
//! - `atomic capture` of `+=`/`-=` and exchanges (`atomicrmw` whose old value
//!   is used): a load, the operation and a store;
//! - any other update (`x *= v`, `x = max(x, v)`): clang's compare-and-swap
//!   loop over the float's bits, run once: a load, the loop's computation,
//!   a store.

use llvm_sys::core::*;
use llvm_sys::prelude::LLVMModuleRef;
use llvm_sys::LLVMAtomicRMWBinOp::*;
use llvm_sys::LLVMOpcode;

use crate::calls::parallel::{call_before, marked_location, omp_function};
use crate::ir::{self, Value};

/// Lowers the float atomics of microtask clone `task` (see the module doc).
pub(crate) fn lower(module: LLVMModuleRef, task: Value) {
    let Some(loc) =
        ir::users(task).into_iter().find_map(|u| if ir::is_instruction(u) { marked_location(u) } else { None })
    else {
        return;
    };
    let mut section = Section { module, loc, lock: None };
    for i in ir::blocks(task).into_iter().flat_map(ir::instructions).collect::<Vec<_>>() {
        match ir::opcode(i) {
            LLVMOpcode::LLVMStore if ir::is_atomic(i) && ir::is_float(ir::type_of(ir::operand(i, 0))) => {
                unsafe { LLVMSetOrdering(i, llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic) };
                section.around(i, i);
            }
            LLVMOpcode::LLVMAtomicRMW if float_rmw_needing_order(i) => {
                let (load, store) = rmw_as_code(module, i);
                section.around(load, store);
            }
            LLVMOpcode::LLVMAtomicCmpXchg => {
                if let Some((load, store)) = float_update_loop(module, i) {
                    section.around(load, store);
                }
            }
            _ => {}
        }
    }
}

/// Critical sections of one lock, at the region's source location.
struct Section {
    module: LLVMModuleRef,
    loc: Value,
    lock: Option<Value>,
}

impl Section {
    /// Encloses the instructions from `first` to `last` (one block).
    fn around(&mut self, first: Value, last: Value) {
        let lock = self.lock();
        let m = self.module;
        let gtid = call_before(first, omp_function(m, "__kmpc_global_thread_num"), &mut [self.loc]);
        call_before(first, omp_function(m, "__kmpc_critical"), &mut [self.loc, gtid, lock]);
        let after = unsafe { LLVMGetNextInstruction(last) };
        call_before(after, omp_function(m, "__kmpc_end_critical"), &mut [self.loc, gtid, lock]);
    }

    /// The lock: a `kmp_critical_name`, eight zeroed 32-bit words.
    fn lock(&mut self) -> Value {
        if let Some(l) = self.lock {
            return l;
        }
        let l = unsafe {
            let name = c"enzyme_rs.atomic_float.lock";
            let g = LLVMGetNamedGlobal(self.module, name.as_ptr());
            if g.is_null() {
                let t = LLVMArrayType2(LLVMInt32TypeInContext(LLVMGetModuleContext(self.module)), 8);
                let g = LLVMAddGlobal(self.module, t, name.as_ptr());
                LLVMSetInitializer(g, LLVMConstNull(t));
                LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
                g
            } else {
                g
            }
        };
        self.lock = Some(l);
        l
    }
}

/// An `atomicrmw` on a float whose order matters: an exchange, or an
/// addition whose old value is used (`atomic capture`).
fn float_rmw_needing_order(i: Value) -> bool {
    let op = unsafe { LLVMGetAtomicRMWBinOp(i) };
    ir::is_float(ir::type_of(i))
        && (op == LLVMAtomicRMWBinOpXchg
            || (matches!(op, LLVMAtomicRMWBinOpFAdd | LLVMAtomicRMWBinOpFSub) && !ir::users(i).is_empty()))
}

/// `old = *p; *p = old op v` (or `v`) in place of the `atomicrmw`, whose
/// uses get `old`. Returns the load and the store.
fn rmw_as_code(module: LLVMModuleRef, i: Value) -> (Value, Value) {
    unsafe {
        let (p, v, t) = (ir::operand(i, 0), ir::operand(i, 1), ir::type_of(i));
        let b = LLVMCreateBuilderInContext(LLVMGetModuleContext(module));
        LLVMPositionBuilderBefore(b, i);
        let old = LLVMBuildLoad2(b, t, p, c"".as_ptr());
        let new = match LLVMGetAtomicRMWBinOp(i) {
            LLVMAtomicRMWBinOpFAdd => LLVMBuildFAdd(b, old, v, c"".as_ptr()),
            LLVMAtomicRMWBinOpFSub => LLVMBuildFSub(b, old, v, c"".as_ptr()),
            _ => v,
        };
        let store = LLVMBuildStore(b, new, p);
        LLVMDisposeBuilder(b);
        for k in [old, new, store] {
            if ir::is_instruction(k) {
                ir::copy_debug_location(i, k);
            }
        }
        LLVMReplaceAllUsesWith(i, old);
        LLVMInstructionEraseFromParent(i);
        (old, store)
    }
}

/// clang's loop for an atomic update of a float by anything but an
/// addition, around `cmpxchg`:
///
/// ```text
/// pre:  %first = load atomic i64, ptr %p
/// loop: %bits = phi i64 [ %first, %pre ], [ %seen, %loop ]
///       %old = bitcast i64 %bits to double
///       ... %new = f(%old, ...)
///       %newbits = bitcast double %new to i64
///       %r = cmpxchg ptr %p, i64 %bits, i64 %newbits
///       %seen = extractvalue %r, 0
///       %ok = extractvalue %r, 1
///       br i1 %ok, label %done, label %loop
/// ```
///
/// becomes one pass: `%old = load double, ptr %p` before the computation,
/// `store double %new, ptr %p` in place of the exchange, and the branch
/// taken. Returns the load and the store (the section's ends), or `None`
/// (nothing changed) if the loop is not that.
fn float_update_loop(module: LLVMModuleRef, cas: Value) -> Option<(Value, Value)> {
    let block = ir::parent_block(cas);
    let (p, expected, desired) = (ir::operand(cas, 0), ir::operand(cas, 1), ir::operand(cas, 2));
    // The phi of the old bits, in this block, from the first load and the retry.
    if !ir::is_instruction(expected)
        || ir::opcode(expected) != LLVMOpcode::LLVMPHI
        || ir::parent_block(expected) != block
    {
        return None;
    }
    let incoming = ir::incoming(expected);
    let first = incoming.iter().map(|(v, _)| *v).find(|v| {
        ir::is_instruction(*v) && ir::opcode(*v) == LLVMOpcode::LLVMLoad && ir::is_atomic(*v) && ir::operand(*v, 0) == p
    })?;
    // The old value as a float, and the new one.
    let old = ir::users(expected).into_iter().find(|u| ir::opcode(*u) == LLVMOpcode::LLVMBitCast)?;
    let float = ir::type_of(old);
    if !ir::is_float(float) || !ir::is_instruction(desired) || ir::opcode(desired) != LLVMOpcode::LLVMBitCast {
        return None;
    }
    let new = ir::operand(desired, 0);
    if ir::type_of(new) != float {
        return None;
    }
    // The exchange's results: the seen bits only back into the phi, the
    // success flag only to the branch out of the loop.
    let mut ok = None;
    for u in ir::users(cas) {
        if ir::opcode(u) != LLVMOpcode::LLVMExtractValue {
            return None;
        }
        let index = unsafe { *LLVMGetIndices(u) };
        match index {
            0 if ir::users(u).into_iter().all(|x| x == expected) => {}
            1 => ok = Some(u),
            _ => return None,
        }
    }
    let ok = ok?;
    let branch = ir::terminator(block);
    if ir::users(ok) != vec![branch] || ir::operand_count(branch) != 3 {
        return None;
    }
    let successors = unsafe { [LLVMGetSuccessor(branch, 0), LLVMGetSuccessor(branch, 1)] };
    let back = successors.iter().filter(|s| unsafe { LLVMBasicBlockAsValue(**s) } == ir::block_value(block)).count();
    if back != 1 {
        return None;
    }
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let b = LLVMCreateBuilderInContext(ctx);
        // The plain load, first in the block (after the phis).
        let after_phis =
            ir::instructions(block).into_iter().find(|i| ir::opcode(*i) != LLVMOpcode::LLVMPHI).expect("a terminator");
        LLVMPositionBuilderBefore(b, after_phis);
        let load = LLVMBuildLoad2(b, float, p, c"".as_ptr());
        LLVMSetAlignment(load, LLVMGetAlignment(first));
        ir::copy_debug_location(cas, load);
        LLVMReplaceAllUsesWith(old, load);
        LLVMInstructionEraseFromParent(old);
        // The store in place of the exchange.
        LLVMPositionBuilderBefore(b, cas);
        let store = LLVMBuildStore(b, new, p);
        LLVMSetAlignment(store, LLVMGetAlignment(first));
        ir::copy_debug_location(cas, store);
        LLVMDisposeBuilder(b);
        // Out of the loop at once.
        // (The successor the success flag leads to is the one not back to the loop.)
        let done = [LLVMGetSuccessor(branch, 0), LLVMGetSuccessor(branch, 1)]
            .into_iter()
            .find(|s| LLVMBasicBlockAsValue(*s) != ir::block_value(block))
            .expect("checked: the branch leaves the loop");
        let b2 = LLVMCreateBuilderInContext(ctx);
        LLVMPositionBuilderBefore(b2, branch);
        LLVMBuildBr(b2, done);
        LLVMDisposeBuilder(b2);
        LLVMInstructionEraseFromParent(branch);
        for u in ir::users(cas) {
            LLVMReplaceAllUsesWith(u, LLVMGetUndef(ir::type_of(u)));
            LLVMInstructionEraseFromParent(u);
        }
        LLVMInstructionEraseFromParent(cas);
        if ir::users(desired).is_empty() {
            LLVMInstructionEraseFromParent(desired);
        }
        // The phi and the atomic load of the bits are dead now.
        LLVMReplaceAllUsesWith(expected, LLVMGetUndef(ir::type_of(expected)));
        LLVMInstructionEraseFromParent(expected);
        if ir::users(first).is_empty() {
            LLVMInstructionEraseFromParent(first);
        }
        Some((load, store))
    }
}
