//! Split reverse mode for calls that stay calls (recursion), and for the
//! user's `__enzyme_augmentfwd`/`__enzyme_reverse` (see `split_entry`): the derivative
//! is a coroutine whose first part is the forward sweep and whose
//! resumption is the reverse sweep, so the callee runs once. The reverse
//! sweep may take other shadows than the forward part had (`__enzyme_reverse`
//! given others): see [`Reverse::rebase_shadows`].

use llvm_sys::core::*;

use crate::build::runtime::libc_function;
use crate::ir::{self, Block, Value};

use crate::generate::body::SplitIo;
use crate::generate::reverse::{Reverse, Split};
use crate::surface::request::Request;

impl<'g> Reverse<'g> {
    /// The prologue of a split derivative (frame allocation, in the current
    /// block) and its closing blocks.
    pub(super) fn begin_coroutine(&mut self, f: Value, d: Value) -> Split {
        unsafe {
            let ctx = self.e.ctx;
            let (i32t, i64t, ptr_t) =
                (LLVMInt32TypeInContext(ctx), LLVMInt64TypeInContext(ctx), LLVMPointerTypeInContext(ctx, 0));
            let null = LLVMConstNull(ptr_t);
            let id = self.e.intrinsic("llvm.coro.id", &[], &mut [LLVMConstInt(i32t, 0, 0), null, null, null]);
            let size = self.e.intrinsic("llvm.coro.size", &[i64t], &mut []);
            let malloc = libc_function(self.g.module(), "malloc");
            let mem = self.e.call(malloc, &mut [size]);
            let hdl = self.e.intrinsic("llvm.coro.begin", &[], &mut [id, mem]);
            let release = self.e.append_block(d, "release");
            let cleanup = self.e.append_block(d, "coro.cleanup");
            let end = self.e.append_block(d, "coro.end");
            self.e.at_end(cleanup);
            let frame = self.e.intrinsic("llvm.coro.free", &[], &mut [id, hdl]);
            let free = libc_function(self.g.module(), "free");
            self.e.call(free, &mut [frame]);
            self.e.br(end);
            self.e.at_end(end);
            let none = LLVMConstNull(LLVMTokenTypeInContext(ctx));
            self.e.intrinsic("llvm.coro.end", &[], &mut [hdl, LLVMConstInt(LLVMInt1TypeInContext(ctx), 0, 0), none]);
            LLVMBuildRet(self.e.b, hdl);
            let io = *ir::params(d).last().expect("the buffer parameter");
            Split { io, layout: SplitIo::of(ctx, f), cleanup, end, release }
        }
    }

    /// A `ret` of a split derivative's forward part: the result goes to the
    /// buffer and the coroutine suspends; resumed, it reads the result's
    /// adjoint and goes on to the reverse sweep.
    pub(super) fn suspend_at_return(&mut self, s: Split, ret: Value, b: Block) {
        unsafe {
            let d = LLVMGetBasicBlockParent(self.e.current_block());
            // In a block of its own, so values saved at the end of the forward
            // block are saved before the suspension.
            let suspend = self.e.append_block(d, "suspend");
            let resume = self.e.append_block(d, "resume");
            self.e.br(suspend);
            self.e.at_end(suspend);
            if let Some(k) = s.layout.result {
                let p = s.layout.field(&self.e, s.io, k);
                let v = ir::operand(ret, 0);
                self.e.store(self.map.get(&v).copied().unwrap_or(v), p);
            }
            let none = LLVMConstNull(LLVMTokenTypeInContext(self.e.ctx));
            let fin = LLVMConstInt(LLVMInt1TypeInContext(self.e.ctx), 0, 0);
            let state = self.e.intrinsic("llvm.coro.suspend", &[], &mut [none, fin]);
            let sw = LLVMBuildSwitch(self.e.b, state, s.end, 2);
            let i8t = LLVMInt8TypeInContext(self.e.ctx);
            LLVMAddCase(sw, LLVMConstInt(i8t, 0, 0), resume);
            LLVMAddCase(sw, LLVMConstInt(i8t, 1, 0), s.cleanup);
            self.e.at_end(resume);
            if let Some(start) = self.replay.as_ref().map(|r| r.start) {
                // Resumed by `__enzyme_fwdsplit` (a tangent buffer given), or
                // by `__enzyme_reverse`.
                let p = self
                    .e
                    .load(LLVMPointerTypeInContext(self.e.ctx, 0), s.layout.field(&self.e, s.io, s.layout.replay));
                let reverse = self.e.append_block(d, "resume.reverse");
                let none = LLVMBuildIsNull(self.e.b, p, c"".as_ptr());
                LLVMBuildCondBr(self.e.b, none, reverse, start);
                self.e.at_end(reverse);
            }
            self.resumptions.push(self.e.current_block());
            self.take_new_shadows(s, d);
            if let Some(k) = s.layout.seed {
                let p = s.layout.field(&self.e, s.io, k);
                let seed = self.e.load(ir::type_of(ir::operand(ret, 0)), p);
                self.accumulate(ir::operand(ret, 0), seed);
            }
            self.e.br(self.rev[&b]);
        }
    }

    /// Whether a call that stays a call moves derivatives (floats in or out,
    /// or pointers with shadows); the others run as they are.
    pub(super) fn carries_derivatives(&self, i: Value) -> bool {
        let float_arg = (0..ir::call_arg_count(i)).any(|k| ir::is_float(ir::type_of(ir::operand(i, k))));
        ir::is_float(ir::type_of(i))
            || float_arg
            || crate::prepare::checks::nested_call_pattern(i, &self.mem).expect("validated").contains(&true)
    }

    /// A call that stays a call, in the forward sweep: the callee's split
    /// derivative runs its forward part now.
    pub(super) fn call_split(&mut self, i: Value, callee: Value) {
        let mask = crate::prepare::checks::nested_call_pattern(i, &self.mem).expect("validated");
        // A derivative with a tangent sweep resumes its callees' for theirs.
        let s = self.g.request(
            Request::split(callee, &mask)
                .strong_zero(self.e.strong_zero)
                .runtime_activity(self.e.runtime_activity)
                .atomic_adjoints(self.atomic)
                .tangent_replay(self.replay.is_some()),
        );
        let layout = SplitIo::of(self.e.ctx, callee);
        let io = unsafe { LLVMBuildAlloca(self.slots, layout.ty, c"call.io".as_ptr()) };
        let mut args = self.arguments_with_shadows(i, &mask, 0);
        args.push(io);
        let list = self.freed_list();
        self.e.store(list, layout.field(&self.e, io, layout.freed));
        // The callee's reverse sweep uses the shadows given here.
        let null = unsafe { LLVMConstNull(LLVMPointerTypeInContext(self.e.ctx, 0)) };
        self.e.store(null, layout.field(&self.e, io, layout.shadows));
        let h = self.e.call(s, &mut args);
        if let Some(k) = layout.result {
            let p = layout.field(&self.e, io, k);
            let r = self.e.load(ir::type_of(i), p);
            self.map.insert(i, r);
        }
        self.split_calls.insert(i, (h, io, layout));
    }

    /// Call `i`'s arguments from number `first` on, as a derivative takes
    /// them: each followed by its shadow where `mask` says it has one.
    pub(super) fn arguments_with_shadows(&self, i: Value, mask: &[bool], first: u32) -> Vec<Value> {
        let mut args = Vec::new();
        for k in first..ir::call_arg_count(i) {
            let a = ir::operand(i, k);
            args.push(self.map.get(&a).copied().unwrap_or(a));
            if mask[k as usize] {
                args.push(self.sh.of(a));
            }
        }
        args
    }

    /// The same call in the reverse sweep: the result's adjoint goes in, the
    /// callee's reverse part runs, the arguments' adjoints come out.
    pub(super) fn reverse_split_call(&mut self, i: Value) {
        let (h, io, layout) = self.split_calls[&i];
        let h = self.fetch(h);
        if let Some(k) = layout.seed {
            let t = ir::type_of(i);
            let d = if unsafe { LLVMGetFirstUse(i).is_null() } { self.e.zero(t) } else { self.take_adjoint(i) };
            let p = layout.field(&self.e, io, k);
            self.e.store(d, p);
        }
        self.e.intrinsic("llvm.coro.resume", &[], &mut [h]);
        let mut j = layout.adjoints;
        for k in 0..ir::call_arg_count(i) {
            let a = ir::operand(i, k);
            let t = ir::type_of(a);
            if ir::is_float(t) {
                let p = layout.field(&self.e, io, j);
                let v = self.e.load(t, p);
                self.accumulate(a, v);
                j += 1;
            }
        }
    }
}

/// The uses of a shadow parameter in the forward part that keep the reverse
/// sweep free to take another shadow: address arithmetic on it, and tests.
fn is_address_arithmetic(u: Value) -> bool {
    use llvm_sys::LLVMOpcode::*;
    matches!(ir::opcode(u), LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMPHI | LLVMSelect | LLVMICmp)
}

impl Reverse<'_> {
    /// A slot per shadow parameter of the split derivative, holding the
    /// shadow the reverse sweep uses: the parameter, unless `__enzyme_reverse`
    /// gives another (see [`Reverse::rebase_shadows`]).
    pub(super) fn keep_shadow_slots(&mut self, shadow_params: &[Value]) {
        for param in shadow_params {
            let slot = unsafe {
                let slot = LLVMBuildAlloca(self.slots, ir::type_of(*param), c"shadow.used".as_ptr());
                LLVMBuildStore(self.slots, *param, slot);
                slot
            };
            self.shadow_slots.push((*param, slot));
        }
    }

    /// On resumption for the reverse sweep: the shadows `__enzyme_reverse`
    /// gives, if any, go into the slots; a check that they are the ones the
    /// forward part had stops the program unless the reverse sweep can take
    /// others (decided once the derivative is complete).
    fn take_new_shadows(&mut self, s: Split, d: Value) {
        if self.shadow_slots.is_empty() {
            return;
        }
        unsafe {
            let ptr = LLVMPointerTypeInContext(self.e.ctx, 0);
            let given = self.e.load(ptr, s.layout.field(&self.e, s.io, s.layout.shadows));
            let take = self.e.append_block(d, "resume.shadows");
            let go_on = self.e.append_block(d, "resume.sweep");
            LLVMBuildCondBr(self.e.b, LLVMBuildIsNull(self.e.b, given, c"".as_ptr()), go_on, take);
            self.e.at_end(take);
            let mut differ = LLVMConstInt(LLVMInt1TypeInContext(self.e.ctx), 0, 0);
            let i64t = LLVMInt64TypeInContext(self.e.ctx);
            for (j, (param, slot)) in self.shadow_slots.clone().into_iter().enumerate() {
                let mut idx = [LLVMConstInt(i64t, j as u64, 0)];
                let at = LLVMBuildGEP2(self.e.b, ptr, given, idx.as_mut_ptr(), 1, c"".as_ptr());
                let new = self.e.load(ptr, at);
                let ne = LLVMBuildICmp(self.e.b, llvm_sys::LLVMIntPredicate::LLVMIntNE, new, param, c"".as_ptr());
                differ = LLVMBuildOr(self.e.b, differ, ne, c"".as_ptr());
                self.e.store(new, slot);
            }
            self.e.abort_if(
                differ,
                "enzyme-rs: __enzyme_reverse was given other shadows than __enzyme_augmentfwd, and this derivative's \
                 forward part used the first ones beyond address arithmetic (it read, wrote or kept them); pass \
                 the same shadows to both",
            );
            // (The check is the call just made.)
            self.shadow_checks.push(LLVMGetLastInstruction(LLVMGetInsertBlock(self.e.b)));
            self.e.br(go_on);
            self.e.at_end(go_on);
        }
    }

    /// Once a split derivative is complete: its reverse sweep uses the
    /// shadows in the slots (those `__enzyme_reverse` gave) where its forward
    /// part used its shadow parameters only for address arithmetic; an
    /// address computed in the forward part from a shadow and used in the
    /// reverse sweep is computed again there from the new shadow. Then the
    /// shadows may change between the two parts, as Enzyme allows.
    /// Otherwise the run-time checks stay.
    pub(super) fn rebase_shadows(&mut self) {
        use llvm_sys::LLVMOpcode::*;
        use std::collections::{HashMap, HashSet};
        if self.shadow_slots.is_empty() {
            return;
        }
        // The blocks of the resumed part.
        let mut resumed: HashSet<Block> = HashSet::new();
        let mut work = self.resumptions.clone();
        while let Some(b) = work.pop() {
            if resumed.insert(b) {
                work.extend(ir::successors(ir::terminator(b)));
            }
        }
        let in_resumed = |i: Value| resumed.contains(&ir::parent_block(i));
        let slot_of: HashMap<Value, Value> = self.shadow_slots.iter().copied().collect();
        // Values computed from shadow parameters in the forward part, and
        // their uses in the resumed part.
        let mut derived: Vec<Value> = self.shadow_slots.iter().map(|(p, _)| *p).collect();
        let mut seen: HashSet<Value> = derived.iter().copied().collect();
        let mut crossing: Vec<(Value, Value)> = Vec::new();
        let mut k = 0;
        while k < derived.len() {
            let v = derived[k];
            k += 1;
            for u in ir::users(v) {
                // The slots' own initial stores.
                if ir::opcode(u) == LLVMStore && slot_of.values().any(|s| *s == ir::operand(u, 1)) {
                    continue;
                }
                if in_resumed(u) {
                    crossing.push((v, u));
                    continue;
                }
                // A phi of shadows cannot be computed again in the reverse sweep.
                let movable = matches!(ir::opcode(u), LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMSelect);
                let used_later = ir::users(u).into_iter().any(&in_resumed);
                if !is_address_arithmetic(u) || (used_later && !movable) {
                    return;
                }
                if !ir::is_void(ir::type_of(u)) && seen.insert(u) {
                    derived.push(u);
                }
            }
        }
        unsafe {
            for c in self.shadow_checks.drain(..) {
                LLVMInstructionEraseFromParent(c);
            }
            for (v, u) in crossing {
                for op in 0..ir::operand_count(u) {
                    if ir::operand(u, op) != v {
                        continue;
                    }
                    let at = if ir::opcode(u) == LLVMPHI { ir::terminator(LLVMGetIncomingBlock(u, op)) } else { u };
                    let again = self.compute_again(v, at, &slot_of, &seen);
                    LLVMSetOperand(u, op, again);
                }
            }
        }
    }

    /// Shadow-derived value `v` computed again before `at` from the shadows
    /// in the slots (its other operands dominate `v`, hence `at`).
    fn compute_again(
        &self,
        v: Value,
        at: Value,
        slot_of: &std::collections::HashMap<Value, Value>,
        derived: &std::collections::HashSet<Value>,
    ) -> Value {
        unsafe {
            if let Some(slot) = slot_of.get(&v) {
                self.e.before(at);
                return self.e.load(LLVMPointerTypeInContext(self.e.ctx, 0), *slot);
            }
            let ops: Vec<Value> = (0..ir::operand_count(v))
                .map(|k| {
                    let o = ir::operand(v, k);
                    if derived.contains(&o) {
                        self.compute_again(o, at, slot_of, derived)
                    } else {
                        o
                    }
                })
                .collect();
            let n = LLVMInstructionClone(v);
            self.e.before(at);
            LLVMInsertIntoBuilder(self.e.b, n);
            for (k, o) in ops.into_iter().enumerate() {
                LLVMSetOperand(n, k as u32, o);
            }
            n
        }
    }
}
