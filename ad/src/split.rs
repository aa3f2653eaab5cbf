//! Split reverse mode for calls that stay calls (recursion), and for the
//! user's `__enzyme_augmentfwd`/`__enzyme_reverse` (see `split_entry`): the derivative
//! is a coroutine whose first part is the forward sweep and whose
//! resumption is the reverse sweep, so the callee runs once.

use llvm_sys::core::*;

use crate::ir::{self, Block, Value};
use crate::runtime::libc_function;

use crate::body::SplitIo;
use crate::request::Request;
use crate::reverse::{Reverse, Split};

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
            || crate::classify::nested_call_pattern(i, &self.mem).expect("validated").contains(&true)
    }

    /// A call that stays a call, in the forward sweep: the callee's split
    /// derivative runs its forward part now.
    pub(super) fn call_split(&mut self, i: Value, callee: Value) {
        let mask = crate::classify::nested_call_pattern(i, &self.mem).expect("validated");
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
        let mut args = Vec::new();
        for k in 0..ir::call_arg_count(i) {
            let a = ir::operand(i, k);
            args.push(self.map.get(&a).copied().unwrap_or(a));
            if mask[k as usize] {
                args.push(self.sh.of(a));
            }
        }
        args.push(io);
        let list = self.freed_list();
        self.e.store(list, layout.field(&self.e, io, layout.freed));
        let h = self.e.call(s, &mut args);
        if let Some(k) = layout.result {
            let p = layout.field(&self.e, io, k);
            let r = self.e.load(ir::type_of(i), p);
            self.map.insert(i, r);
        }
        self.split_calls.insert(i, (h, io, layout));
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
