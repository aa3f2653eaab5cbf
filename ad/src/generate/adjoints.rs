//! The reverse of each instruction, in the reverse sweep (see `reverse`):
//! its effects on shadow memory first (stores give back what accumulated at
//! their location, copies move adjoints, frees and allocations release
//! shadows), then its adjoint through the partials of the rule table, casts,
//! selects and lane moves; and the adjoints of phis along an edge.

use std::collections::HashMap;

use llvm_sys::core::*;

use crate::analysis::memory::{self, PtrStatus};
use crate::build::emit::rule_operands;
use crate::build::runtime::{adjoint_move_function, libc_function};
use crate::calls::classify::{classify, Kind};
use crate::generate::reverse::{carries_adjoint, Reverse};
use crate::ir::{self, Block, Value};

use crate::generate::body::{old_block_bytes, EMPTY};

impl Reverse<'_> {
    /// Adjoints of `b`'s phis flow to the values coming in from `pred`.
    ///
    /// A block's phis are one parallel copy: along a back edge a phi may
    /// take another phi of the same block (a rotation `(a, b) <- (b, ..)`),
    /// whose slot then already stands for that phi's previous instance. So
    /// every phi's adjoint is read and its slot cleared first, and only then
    /// given to the incoming values; reading and giving one phi at a time
    /// would add `ā` into `b̄` before `b̄` was read (the swap problem).
    pub(super) fn phi_adjoints(&mut self, b: Block, pred: Block) {
        let mut taken = Vec::new();
        for i in ir::instructions(b) {
            if ir::opcode(i) != llvm_sys::LLVMOpcode::LLVMPHI {
                break;
            }
            let t = ir::type_of(i);
            if !ir::is_real(t) || unsafe { LLVMGetFirstUse(i).is_null() } {
                continue;
            }
            let slot = self.adj_slot(i);
            let Some((v, _)) = ir::incoming(i).into_iter().find(|(_, pb)| *pb == pred) else {
                continue;
            };
            let dphi = self.e.load(t, slot);
            // Cleared for the previous instance of a loop.
            self.e.store(self.e.adjoint_zero(t), slot);
            taken.push((v, dphi));
        }
        for (v, dphi) in taken {
            self.accumulate(v, dphi);
        }
    }

    /// Frees shadow `s` of allocation `i` as the allocator's deallocation
    /// frees the block (an over-aligned `operator delete` takes the
    /// allocation's alignment too).
    pub(super) fn free_allocation_shadow(&mut self, i: Value, a: &crate::ir::kind::Allocator, s: Value) {
        let free = crate::build::runtime::function_named(self.g.module(), a.free);
        match a.free_align_arg {
            Some(k) => {
                let align = self.primal(ir::operand(i, k));
                self.e.call_user(free, &mut [s, align])
            }
            None => self.e.call_user(free, &mut [s]),
        };
    }

    pub(super) fn reverse_instruction(&mut self, i: Value) {
        let kind = classify(i);
        // Memory effects first: they do not depend on the instruction's own adjoint.
        match kind {
            Kind::Call(_) if self.sum_step_calls.contains_key(&i) => {
                self.reverse_sum_step(i);
                return;
            }
            Kind::Call(_) if self.split_calls.contains_key(&i) => {
                self.reverse_split_call(i);
                return;
            }
            Kind::Call(_) if self.region_calls.contains_key(&i) => {
                self.reverse_region_call(i);
                return;
            }
            Kind::Call(_) if self.checkpoint_calls.contains_key(&i) => {
                self.reverse_checkpoint_call(i);
                return;
            }
            Kind::LibCall if crate::calls::parallel::is_synchronisation(i) => {
                self.reverse_synchronisation(i);
                return;
            }
            Kind::Custom(callee) => {
                self.custom_gradient_call(i, callee);
                return;
            }
            Kind::Store => {
                let (v, p) = (ir::operand(i, 0), ir::operand(i, 1));
                if ir::is_real(ir::type_of(v)) && self.mem.status(p) == PtrStatus::Shadowed {
                    // The stored value's adjoint is what accumulated at its location;
                    // the location then holds a value that no longer counts.
                    let sp = self.shadow(p);
                    let t = ir::type_of(v);
                    let mut dv = self.e.load_like(t, sp, i);
                    let mut cleared = self.e.zero(t);
                    if let Some(inactive) = self.inactive_at_run_time(p, sp) {
                        // The primal's memory: no adjoint there, and it stays as it is.
                        cleared = self.e.select(inactive, dv, cleared);
                        dv = self.e.select(inactive, self.e.zero(t), dv);
                    }
                    self.e.store_like(cleared, sp, i);
                    self.accumulate(v, dv);
                } else if self.mem.int_stores_clearing.contains(&i) {
                    // Integers written over what may have been floats: their adjoints are dropped.
                    let sp = self.shadow(p);
                    let t = ir::type_of(v);
                    let mut cleared = self.e.zero(t);
                    if let Some(inactive) = self.inactive_at_run_time(p, sp) {
                        let old = self.e.load_like(t, sp, i);
                        cleared = self.e.select(inactive, old, cleared);
                    }
                    self.e.store_like(cleared, sp, i);
                }
                return;
            }
            Kind::AtomicAdd => {
                // `*p += v` (or `-=`): v's adjoint is what accumulated at p,
                // which stays there for what p held before.
                let (p, v) = (ir::operand(i, 0), ir::operand(i, 1));
                if self.mem.status(p) == PtrStatus::Shadowed && carries_adjoint(v) {
                    let sp = self.shadow(p);
                    let t = ir::type_of(v);
                    let mut dv = self.e.load(t, sp);
                    if unsafe { LLVMGetAtomicRMWBinOp(i) } == llvm_sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFSub {
                        dv = self.e.fneg(dv);
                    }
                    self.accumulate(v, dv);
                }
                return;
            }
            Kind::MemCpy => {
                let (dst, src) = (ir::operand(i, 0), ir::operand(i, 1));
                match (self.mem.status(dst), self.mem.status(src)) {
                    (PtrStatus::Shadowed, PtrStatus::Shadowed) => self.move_copied_adjoints(i),
                    // Its own shadow copied in again: the adjoints of the floats it
                    // replaced are dropped (its floats are zeros), the pointers stay.
                    (PtrStatus::Shadowed, _) if memory::copies_inert_constant(i) => {
                        let mut m = HashMap::new();
                        m.insert(dst, self.shadow(dst));
                        m.insert(ir::operand(i, 2), self.primal(ir::operand(i, 2)));
                        self.e.clone_instruction(i, &m);
                    }
                    (PtrStatus::Shadowed, _) => {
                        // Constants were copied in: the adjoints of what they replaced are dropped.
                        let sp = self.shadow(dst);
                        let len = self.primal(ir::operand(i, 2));
                        unsafe {
                            let zero = LLVMConstInt(LLVMInt8TypeInContext(self.e.ctx), 0, 0);
                            LLVMBuildMemSet(self.e.b, sp, zero, len, 1);
                        }
                    }
                    _ => {}
                }
                return;
            }
            Kind::Realloc => {
                // Adjoints of the copied floats go back to the old block's shadow;
                // the new shadow is done with.
                if self.sh.sh.contains_key(&i) {
                    let ns = self.shadow(i);
                    let os = self.shadow(ir::operand(i, 0));
                    let bytes = |r: &mut Self| {
                        let n = r.primal(ir::operand(i, 1));
                        old_block_bytes(&r.e, r.g.module(), os, n)
                    };
                    let i64t = unsafe { LLVMInt64TypeInContext(self.e.ctx) };
                    match memory::grown_contents(i) {
                        Some(memory::Grown::Floats(elem)) => {
                            let m = bytes(self);
                            let count =
                                unsafe { LLVMBuildUDiv(self.e.b, m, LLVMConstInt(i64t, elem.size(), 0), EMPTY) };
                            let helper = adjoint_move_function(self.g.module(), elem);
                            self.e.call(helper, &mut [ns, os, count]);
                        }
                        Some(memory::Grown::Fields { stride, floats }) => {
                            // Element by element, only the floats' places.
                            let m = bytes(self);
                            let count = unsafe { LLVMBuildUDiv(self.e.b, m, LLVMConstInt(i64t, stride, 0), EMPTY) };
                            let stride = unsafe { LLVMConstInt(i64t, stride, 0) };
                            for (at, elem) in floats {
                                let helper =
                                    crate::build::runtime::strided_adjoint_move_function(self.g.module(), elem);
                                let (new, old) = (self.e.byte_offset(ns, at), self.e.byte_offset(os, at));
                                self.e.call(helper, &mut [new, old, count, stride]);
                            }
                        }
                        _ => {}
                    }
                    // (A block linked into a structure: kept to the end, see `keep_grown_shadow`.)
                    if self.shadow_freed_with_allocation(i) {
                        let free = libc_function(self.g.module(), "free");
                        self.e.call(free, &mut [ns]);
                    }
                }
                return;
            }
            Kind::Alloca if !crate::generate::body::is_fixed_size(i) => {
                // The heap shadow of a run-time-size stack array (see `Shadows::make`).
                if self.sh.sh.contains_key(&i) {
                    let s = self.shadow(i);
                    let free = libc_function(self.g.module(), "free");
                    self.e.call(free, &mut [s]);
                }
                return;
            }
            Kind::Alloc(a) => {
                // Reverse of an allocation: every use of the shadow is behind us
                // (unless the block outlives the function, or is linked into a
                // structure: its shadow goes where the primal frees the block).
                if self.sh.sh.contains_key(&i) && self.shadow_freed_with_allocation(i) {
                    let s = self.shadow(i);
                    if self.sh.pooled.contains(&i) {
                        let free = crate::generate::tape_buffer::pooled_free_function(self.g.module());
                        self.e.call(free, &mut [s]);
                    } else {
                        self.free_allocation_shadow(i, a, s);
                    }
                }
                return;
            }
            Kind::MemSet => {
                let p = ir::operand(i, 0);
                if self.mem.status(p) == PtrStatus::Shadowed {
                    let sp = self.shadow(p);
                    let len = self.primal(ir::operand(i, 2));
                    unsafe {
                        let zero = LLVMConstInt(LLVMInt8TypeInContext(self.e.ctx), 0, 0);
                        LLVMBuildMemSet(self.e.b, sp, zero, len, 1);
                    }
                }
                return;
            }
            _ => {}
        }
        let t = ir::type_of(i);
        if !ir::is_real(t) {
            return;
        }
        // In a loop, contributions can come later in generation order (through
        // a header phi along the back edge), so every used value gets its slot;
        // deciding "no slot yet, so zero" here would drop them.
        if unsafe { LLVMGetFirstUse(i).is_null() } {
            return;
        }
        let d = self.take_adjoint(i);
        match kind {
            Kind::Rule(r) => {
                let ops = rule_operands(i, r);
                // Adjoints flow only into operands that vary with the inputs.
                let active: Vec<bool> =
                    ops.iter().map(|o| carries_adjoint(*o) && self.mem.varied.contains(o)).collect();
                if active.iter().any(|a| *a) {
                    crate::generate::grad_log::log(&self.e, self.g.module(), i, d);
                }
                // Only the primal values the partials of active operands mention are
                // fetched (and so kept for the reverse sweep); `fma(a, b, c)` never needs `c`.
                let args: Vec<Value> = ops
                    .iter()
                    .enumerate()
                    .map(|(k, o)| {
                        let needed = r
                            .partials
                            .iter()
                            .enumerate()
                            .any(|(j, p)| active[j] && p.as_ref().is_some_and(|p| p.uses_param(k)));
                        if needed {
                            self.primal(*o)
                        } else {
                            unsafe { LLVMGetUndef(ir::type_of(*o)) }
                        }
                    })
                    .collect();
                let result = r
                    .partials
                    .iter()
                    .enumerate()
                    .any(|(j, p)| active[j] && p.as_ref().is_some_and(|p| p.uses_result()))
                    .then(|| self.primal(i));
                let siblings: Vec<crate::build::emit::Sibling> = crate::build::emit::sibling_calls(i, r, &ops)
                    .into_iter()
                    .filter(|_| active.iter().any(|a| *a))
                    .map(|(name, k, c)| (name, k, self.primal(c)))
                    .collect();
                // An operand undefined where the seed is zero (a speculated
                // product whose result is discarded) must not turn it into NaN.
                let undefined_operand = ops.iter().any(|o| crate::ir::undefined::may_be_undefined(*o));
                for (k, op) in ops.iter().enumerate() {
                    let Some(partial) = &r.partials[k] else {
                        continue;
                    };
                    if !active[k] {
                        continue;
                    }
                    let mut res = || result.expect("result computed when a partial uses it");
                    if let Some(c) = self.e.scaled_partial(partial, t, &args, &siblings, &mut res, d, undefined_operand)
                    {
                        self.accumulate(*op, c);
                    }
                }
            }
            Kind::FloatCast => {
                let op = ir::operand(i, 0);
                let c = self.e.convert_float(d, ir::type_of(op));
                self.accumulate(op, c);
            }
            Kind::Identity => self.accumulate(ir::operand(i, 0), d),
            Kind::Lanes | Kind::Reduce(_) => {
                let needed: HashMap<Value, Value> =
                    crate::generate::lanes::primals_needed(i, &kind).into_iter().map(|v| (v, self.primal(v))).collect();
                let primal = |v: Value| needed[&v];
                let parts = match kind {
                    Kind::Reduce(op) => crate::generate::lanes::reduce_adjoints(&self.e, i, op, d, primal),
                    _ => crate::generate::lanes::lanes_adjoints(&self.e, i, d, primal),
                };
                for (v, c) in parts {
                    self.accumulate(v, c);
                }
            }
            Kind::Select => {
                let c = self.primal(ir::operand(i, 0));
                let z = self.e.zero(t);
                let (a, b) = (ir::operand(i, 1), ir::operand(i, 2));
                if carries_adjoint(a) {
                    let v = self.e.select(c, d, z);
                    self.accumulate(a, v);
                }
                if carries_adjoint(b) {
                    let v = self.e.select(c, z, d);
                    self.accumulate(b, v);
                }
            }
            Kind::Load => {
                let p = ir::operand(i, 0);
                if self.mem.status(p) == PtrStatus::Shadowed && self.atomic {
                    // Other threads may add to the same place (a parallel region):
                    // atomically, or once at the end for a shared scalar.
                    match self.private_accumulator(p, t) {
                        Some(slot) => {
                            let sum = self.e.add(self.e.load(t, slot), d);
                            self.e.store(sum, slot);
                        }
                        None => {
                            let sp = self.shadow(p);
                            crate::calls::parallel::atomic_add(&self.e, sp, d);
                            self.atomic_adds += 1;
                        }
                    }
                } else if self.mem.status(p) == PtrStatus::Shadowed {
                    let sp = self.shadow(p);
                    let old = self.e.load_like(t, sp, i);
                    let mut new = self.e.add(old, d);
                    if let Some(inactive) = self.inactive_at_run_time(p, sp) {
                        // The primal's memory stays as it is.
                        new = self.e.select(inactive, old, new);
                    }
                    self.e.store_like(new, sp, i);
                }
            }
            Kind::Inactive
            | Kind::Call(_)
            | Kind::Custom(_)
            | Kind::Phi
            | Kind::Return
            | Kind::Store
            | Kind::AtomicAdd
            | Kind::Gep
            | Kind::Alloca
            | Kind::PtrCast
            | Kind::MemSet
            | Kind::MemCpy
            | Kind::Alloc(_)
            | Kind::Free
            | Kind::Realloc
            | Kind::LibCall => {}
            Kind::Unsupported { .. } => unreachable!("validated before generation"),
        }
    }

    /// Run-time activity, in the reverse sweep: for a mixed pointer `p`
    /// whose shadow here is `sp`, whether that is the primal itself.
    fn inactive_at_run_time(&mut self, p: Value, sp: Value) -> Option<Value> {
        if !self.mem.mixed.contains(&p) {
            return None;
        }
        let pp = self.primal(p);
        Some(crate::generate::body::shadow_is_primal(&self.e, sp, pp))
    }
}
