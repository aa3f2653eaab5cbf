//! The tangent of one instruction, from its operands' primal values,
//! tangents and shadows: what forward mode and split forward mode's tangent
//! sweep (see `replay`) share. They differ in where the primal values come
//! from: computed alongside (forward mode) or read back from the tape.

use std::collections::HashMap;

use llvm_sys::core::*;
use llvm_sys::prelude::LLVMModuleRef;

use crate::analysis::memory::{self, Memory, PtrStatus};
use crate::build::emit::{rule_operands, Emitter};
use crate::build::runtime::libc_function;
use crate::calls::classify::Kind;
use crate::generate::body::{old_block_bytes, Shadows};
use crate::ir::{self, Value};

/// A derivative being built that propagates tangents.
pub(crate) trait Tangents {
    /// The builder, positioned where the tangent goes.
    fn emitter(&self) -> &Emitter;
    /// Which pointers have shadows.
    fn facts(&self) -> &Memory;
    fn module(&self) -> LLVMModuleRef;
    /// The primal value of each of the function's values used here.
    fn primals(&self) -> &HashMap<Value, Value>;
    /// The tangents made so far.
    fn tangents(&self) -> &HashMap<Value, Value>;
    /// The shadows made so far.
    fn shadows(&self) -> &Shadows;

    /// The primal value of `v` here.
    fn val(&self, v: Value) -> Value {
        self.primals().get(&v).copied().unwrap_or(v)
    }

    /// The tangent of `v` (zero when it has none).
    fn tangent(&self, v: Value) -> Value {
        self.tangents().get(&v).copied().unwrap_or_else(|| self.emitter().zero(ir::type_of(v)))
    }

    /// The arguments of call `i`'s forward (or split forward) rule: each
    /// argument's primal value, followed by its tangent (floats) or its
    /// shadow (pointers; null where it has none, as Enzyme passes).
    fn forward_rule_arguments(&self, i: Value) -> Vec<Value> {
        let mut args = Vec::new();
        for k in 0..ir::call_arg_count(i) {
            let a = ir::operand(i, k);
            let t = ir::type_of(a);
            args.push(self.val(a));
            if ir::is_float(t) {
                args.push(self.tangent(a));
            } else if ir::is_pointer(t) {
                let shadowed = self.facts().status(a) == PtrStatus::Shadowed;
                args.push(if shadowed { self.shadows().of(a) } else { unsafe { LLVMConstNull(t) } });
            }
        }
        args
    }

    /// Tangents through memory: stores write the shadow; a load's tangent,
    /// read from its shadow, is returned.
    fn memory(&self, i: Value, kind: &Kind) -> Option<Value> {
        let shadowed = |v: Value| self.facts().status(v) == PtrStatus::Shadowed;
        match kind {
            Kind::Load if ir::is_real(ir::type_of(i)) && shadowed(ir::operand(i, 0)) => {
                let p = ir::operand(i, 0);
                let mut t = self.emitter().load_like(ir::type_of(i), self.shadows().of(p), i);
                if let Some(inactive) = self.inactive_at_run_time(p) {
                    // The primal's memory: no tangent there.
                    t = self.emitter().select(inactive, self.emitter().zero(ir::type_of(i)), t);
                }
                return Some(t);
            }
            Kind::Store if shadowed(ir::operand(i, 1)) => {
                let (v, p) = (ir::operand(i, 0), ir::operand(i, 1));
                let vt = ir::type_of(v);
                let value = if ir::is_real(vt) {
                    self.tangent(v)
                } else if self.facts().int_stores_clearing.contains(&i) {
                    // Integers written over what may be floats: zero tangent there.
                    self.emitter().zero(vt)
                } else if self.facts().int_stores_mirrored.contains(&i) {
                    self.val(v)
                } else if ir::is_pointer(vt) {
                    self.shadows().of(v)
                } else {
                    return None;
                };
                // Into the primal's memory (run-time activity): the primal's value again.
                let value = match self.inactive_at_run_time(p) {
                    Some(inactive) => self.emitter().select(inactive, self.val(v), value),
                    None => value,
                };
                self.emitter().store_like(value, self.shadows().of(p), i);
            }
            Kind::AtomicAdd if shadowed(ir::operand(i, 0)) => {
                // The tangent goes into the shadow the same way, atomically.
                let (p, v) = (ir::operand(i, 0), ir::operand(i, 1));
                let dv = self.tangent(v);
                unsafe {
                    let rmw = LLVMBuildAtomicRMW(
                        self.emitter().b,
                        LLVMGetAtomicRMWBinOp(i),
                        self.shadows().of(p),
                        dv,
                        LLVMGetOrdering(i),
                        LLVMIsAtomicSingleThread(i),
                    );
                    LLVMSetAlignment(rmw, LLVMGetAlignment(i));
                }
            }
            Kind::MemSet if shadowed(ir::operand(i, 0)) => {
                let mut m = self.primals().clone();
                m.insert(ir::operand(i, 0), self.shadows().of(ir::operand(i, 0)));
                m.insert(ir::operand(i, 1), unsafe { LLVMConstInt(LLVMInt8TypeInContext(self.emitter().ctx), 0, 0) });
                self.emitter().clone_instruction(i, &m);
            }
            Kind::Realloc if self.shadows().sh.contains_key(&i) => {
                // The primal copied the old contents: so do the tangents.
                let old = ir::operand(i, 0);
                let os = self.shadows().of(old);
                let ns = self.shadows().sh[&i];
                let n = self.val(ir::operand(i, 1));
                let m = old_block_bytes(self.emitter(), self.module(), os, n);
                unsafe { LLVMBuildMemCpy(self.emitter().b, ns, 1, os, 1, m) };
                // As `realloc` frees the old block, the old shadow goes too.
                let free = libc_function(self.module(), "free");
                self.emitter().call(free, &mut [os]);
            }
            Kind::Free if shadowed(ir::operand(i, 0)) && self.shadows().pool_frees && frees_with_free(i) => {
                let free = crate::generate::tape_buffer::pooled_free_function(self.module());
                self.emitter().call(free, &mut [self.shadows().of(ir::operand(i, 0))]);
            }
            Kind::Free if shadowed(ir::operand(i, 0)) => {
                let mut m = self.primals().clone();
                m.insert(ir::operand(i, 0), self.shadows().of(ir::operand(i, 0)));
                self.emitter().clone_instruction(i, &m);
            }
            Kind::MemCpy if shadowed(ir::operand(i, 0)) && memory::copies_inert_constant(i) => {
                // Constant integers and inert pointers: their own shadow.
                let mut m = self.primals().clone();
                m.insert(ir::operand(i, 0), self.shadows().of(ir::operand(i, 0)));
                self.emitter().clone_instruction(i, &m);
            }
            Kind::MemCpy if shadowed(ir::operand(i, 0)) && !shadowed(ir::operand(i, 1)) => {
                // Constants copied in: their tangents are zero.
                let len = self.val(ir::operand(i, 2));
                unsafe {
                    let zero = LLVMConstInt(LLVMInt8TypeInContext(self.emitter().ctx), 0, 0);
                    LLVMBuildMemSet(self.emitter().b, self.shadows().of(ir::operand(i, 0)), zero, len, 1);
                }
            }
            Kind::MemCpy if shadowed(ir::operand(i, 0)) => {
                let mut m = self.primals().clone();
                m.insert(ir::operand(i, 0), self.shadows().of(ir::operand(i, 0)));
                m.insert(ir::operand(i, 1), self.shadows().of(ir::operand(i, 1)));
                self.emitter().clone_instruction(i, &m);
            }
            _ => {}
        }
        None
    }

    /// Run-time activity: for a mixed pointer, whether its shadow is the
    /// primal here.
    fn inactive_at_run_time(&self, p: Value) -> Option<Value> {
        self.facts()
            .mixed
            .contains(&p)
            .then(|| crate::generate::body::shadow_is_primal(self.emitter(), self.shadows().of(p), self.val(p)))
    }

    fn float_tangent(&self, i: Value, n: Value, kind: &Kind) -> Option<Value> {
        let t = ir::type_of(i);
        match kind {
            Kind::Rule(r) => {
                let ops = rule_operands(i, r);
                let args: Vec<Value> = ops.iter().map(|o| self.val(*o)).collect();
                // Only calls made before `i`: tangents are made in program order.
                let before = |c: Value| {
                    let mut x = c;
                    while !x.is_null() && x != i {
                        x = unsafe { llvm_sys::core::LLVMGetNextInstruction(x) };
                    }
                    x == i
                };
                // And only those whose value is at hand here: split forward
                // mode's tangent sweep reads back only the primal values it
                // needs, and the call itself is in the function differentiated.
                let siblings: Vec<crate::build::emit::Sibling> = crate::build::emit::sibling_calls(i, r, &ops)
                    .into_iter()
                    .filter(|(_, _, c)| before(*c) && self.primals().contains_key(c))
                    .map(|(name, k, c)| (name, k, self.val(c)))
                    .collect();
                let e = self.emitter();
                let mut sum: Option<Value> = None;
                for (k, op) in ops.iter().enumerate() {
                    let (Some(partial), Some(dop)) = (&r.partials[k], self.tangents().get(op)) else {
                        continue;
                    };
                    // An error is scaled by the operand's condition number.
                    let seed = if e.error_estimate { e.fmul(*dop, args[k]) } else { *dop };
                    if let Some(mut c) = e.scaled_partial(partial, t, &args, &siblings, &mut || n, seed, false) {
                        if e.error_estimate {
                            c = crate::generate::error_estimate::operand_term(e, c, n);
                        }
                        sum = Some(match sum {
                            Some(s) => e.fadd(s, c),
                            None => c,
                        });
                    }
                }
                match sum {
                    Some(s) if e.error_estimate => {
                        let err = crate::generate::error_estimate::with_rounding(e, n, s);
                        crate::generate::error_estimate::log_operation(
                            e,
                            self.module(),
                            self.facts(),
                            i,
                            n,
                            err,
                            &args,
                        );
                        Some(err)
                    }
                    sum => sum,
                }
            }
            Kind::FloatCast => self.tangents().get(&ir::operand(i, 0)).map(|d| {
                let d = self.emitter().convert_float(*d, t);
                match self.emitter().error_estimate {
                    true => crate::generate::error_estimate::with_rounding(self.emitter(), n, d),
                    false => d,
                }
            }),
            Kind::Identity => self.tangents().get(&ir::operand(i, 0)).copied(),
            Kind::Select => {
                let (a, b) = (ir::operand(i, 1), ir::operand(i, 2));
                if self.tangents().contains_key(&a) || self.tangents().contains_key(&b) {
                    let c = self.val(ir::operand(i, 0));
                    Some(self.emitter().select(c, self.tangent(a), self.tangent(b)))
                } else {
                    None
                }
            }
            Kind::Load => self.tangents().get(&i).copied(),
            Kind::Lanes | Kind::Reduce(_) => {
                let float_ops =
                    (0..ir::operand_count(i)).map(|k| ir::operand(i, k)).filter(|o| ir::is_real(ir::type_of(*o)));
                if !float_ops.clone().any(|o| self.tangents().contains_key(&o)) {
                    return None;
                }
                let (val, tan) = (|v| self.val(v), |v| self.tangent(v));
                Some(match kind {
                    Kind::Reduce(op) => crate::generate::lanes::reduce_tangent(self.emitter(), i, *op, n, val, tan),
                    _ => crate::generate::lanes::linear_tangent(self.emitter(), i, val, tan),
                })
            }
            _ => None,
        }
    }
}

/// Whether free call `i` is libc's `free` (any `malloc` block, the pool's
/// buffers included, may go to the pool instead).
fn frees_with_free(i: Value) -> bool {
    ir::called_function(i).map(ir::name).as_deref() == Some("free")
}
