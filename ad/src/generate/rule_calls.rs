//! Calls of functions with user-given derivatives ([`crate::surface::custom`]) in
//! generated code: forward mode calls the forward rule; reverse mode calls
//! the augmented function in the forward sweep (keeping its tape) and the
//! reverse function in the reverse sweep (split forward mode's tangent
//! sweep calls the split forward rule with that tape: `replay`).

use llvm_sys::core::*;

use crate::analysis::memory::PtrStatus;
use crate::generate::body::remap_callee;
use crate::generate::forward::Forward;
use crate::generate::reverse::Reverse;
use crate::generate::tangent::Tangents;
use crate::ir::{self, Value};
use crate::surface::custom::{self, Primal};

impl Forward<'_> {
    /// `f(args)` with a custom forward derivative: `fwd(arg, tangent, ...)`.
    pub(crate) fn custom_forward_call(&mut self, i: Value, callee: Value) {
        let shape = custom::forward_shape(callee).expect("checked when validating");
        let mut args = self.forward_rule_arguments(i);
        let r = self.e.call_user(shape.forward, &mut args);
        let t = ir::type_of(i);
        if !ir::is_float(t) {
            // It wrote the primal and tangent results through the pointers.
            self.map.insert(i, r);
            return;
        }
        if shape.pair {
            self.map.insert(i, self.e.extract(r, 0));
            self.tan.insert(i, self.e.extract(r, 1));
        } else {
            // The tangent alone: the primal from the function itself.
            self.tan.insert(i, r);
            remap_callee(self.g, i, &mut self.map);
            let n = self.e.clone_instruction(i, &self.map);
            self.map.insert(i, n);
        }
    }
}

impl Reverse<'_> {
    fn shadow_or_null(&mut self, a: Value, forward_sweep: bool) -> Value {
        if self.mem.status(a) != PtrStatus::Shadowed {
            return unsafe { LLVMConstNull(ir::type_of(a)) };
        }
        if forward_sweep {
            self.sh.of(a)
        } else {
            self.shadow(a)
        }
    }

    /// Forward sweep: the augmented function instead of the call; its tape
    /// is kept for the reverse function.
    pub(crate) fn custom_augmented_call(&mut self, i: Value, callee: Value) {
        let shape = custom::augment_shape(callee, &crate::analysis::reread::writes_no_caller_memory)
            .expect("checked when validating");
        let result = shape.sret.map(|t| unsafe { LLVMBuildAlloca(self.slots, t, c"augmented".as_ptr()) });
        let mut args: Vec<Value> = result.into_iter().collect();
        for k in 0..ir::call_arg_count(i) {
            let a = ir::operand(i, k);
            args.push(self.map.get(&a).copied().unwrap_or(a));
            if ir::is_pointer(ir::type_of(a)) {
                args.push(self.shadow_or_null(a, true));
            }
        }
        let mut r = self.e.call_user(shape.augment, &mut args);
        if let (Some(slot), Some(t)) = (result, shape.sret) {
            ir::add_call_type_attr(r, 1, "sret", t);
            r = self.e.load(t, slot);
        }
        let tape = match (shape.tape, shape.pair) {
            (Some(_), true) => Some(self.e.extract(r, 0)),
            (Some(_), false) => Some(r),
            (None, _) => None,
        };
        match shape.primal {
            Primal::FromAugment => {
                let p = if shape.pair { self.e.extract(r, 1) } else { r };
                self.map.insert(i, p);
            }
            Primal::CallOriginal => {
                remap_callee(self.g, i, &mut self.map);
                let n = self.e.clone_instruction(i, &self.map);
                self.map.insert(i, n);
            }
            Primal::None => {}
        }
        self.custom_calls.insert(i, tape);
    }

    /// Reverse sweep: the reverse function, with the result's adjoint and
    /// the tape; the float parameters' adjoints come back.
    pub(crate) fn custom_gradient_call(&mut self, i: Value, callee: Value) {
        let shape = match custom::reverse_shape(callee, &crate::analysis::reread::writes_no_caller_memory) {
            Ok(shape) => shape,
            Err(why) => {
                // Only an `__enzyme_augmentfwd` asked for this derivative, and
                // every `__enzyme_reverse` of it was checked to have a gradient:
                // this sweep is never run (a call from elsewhere would stop here).
                let yes = unsafe { LLVMConstInt(LLVMInt1TypeInContext(self.e.ctx), 1, 0) };
                self.e.abort_if(yes, &format!("enzyme-rs: cannot run the reverse of a split derivative: {why}"));
                return;
            }
        };
        let tape = self.custom_calls[&i];
        let mut args = Vec::new();
        let n = ir::call_arg_count(i);
        for k in 0..n {
            let a = ir::operand(i, k);
            args.push(self.primal(a));
            if ir::is_pointer(ir::type_of(a)) {
                args.push(self.shadow_or_null(a, false));
            }
        }
        let t = ir::type_of(i);
        if ir::is_float(t) {
            let d = if unsafe { LLVMGetFirstUse(i).is_null() } { self.e.zero(t) } else { self.take_adjoint(i) };
            args.push(d);
        }
        if let Some(tp) = tape {
            let tp = self.fetch(tp);
            args.push(tp);
        }
        let r = self.e.call_user(shape.gradient, &mut args);
        let floats: Vec<Value> = (0..n).map(|k| ir::operand(i, k)).filter(|a| ir::is_float(ir::type_of(*a))).collect();
        let single = floats.len() == 1;
        for (j, a) in floats.into_iter().enumerate() {
            let v = if single { r } else { self.e.extract(r, j as u32) };
            self.accumulate(a, v);
        }
    }
}
