//! Reverse mode of a checkpointed loop (see `checkpoint`): the forward
//! sweep hands the loop to the driver of `enzyme/checkpoint.h`
//! (`enzyme_rs_ckpt_forward`), which runs its steps under the scheme's
//! schedule, saving snapshots; the reverse sweep hands it back
//! (`enzyme_rs_ckpt_reverse`), which differentiates each step once, last
//! first, restoring snapshots and running steps again as the schedule says.
//!
//! The driver calls two functions made here for each call, both `(env, i)`:
//! one runs step `i` (the user's step; it returns whether a while loop goes
//! on), the other differentiates it (the
//! combined derivative of the step's preprocessed clone, with the shadows
//! of the caller's arguments). `env` holds the arguments after the step
//! number, each followed by its shadow if it has one (the layout a scheme's
//! `save_state` is told about), then one sum per float argument, into which
//! each step's derivative adds that argument's adjoint.

use llvm_sys::core::*;
use llvm_sys::prelude::LLVMModuleRef;

use crate::build::emit::Emitter;
use crate::build::runtime::{add_function, libc_function};
use crate::generate::body::{struct_type, Lanes};
use crate::generate::reverse::state::{CheckpointCall, Reverse};
use crate::ir::{self, Type, Value};
use crate::surface::checkpoint::{region_count, step_call, FIXED_PARAMS};
use crate::surface::request::{Mode, Request};

impl Reverse<'_> {
    /// Forward sweep: the driver runs the loop under the scheme.
    pub(in crate::generate) fn call_checkpoint(&mut self, i: Value, callee: Value) {
        let module = self.g.module();
        let ctx = self.e.ctx;
        let mask = crate::prepare::checks::nested_call_pattern(i, &self.mem).expect("validated");
        let regions = region_count(callee).expect("a loop function");
        let first = FIXED_PARAMS + 2 * regions;
        let nargs = ir::call_arg_count(i);
        let step = step_call(callee).and_then(ir::called_function).expect("the step's call");
        let dup: Vec<bool> = std::iter::once(false).chain((first..nargs).map(|k| mask[k as usize])).collect();
        let derivative = self.g.request(
            Request::new(Mode::Reverse, step, &dup)
                .strong_zero(self.e.strong_zero)
                .runtime_activity(self.e.runtime_activity)
                .atomic_adjoints(self.atomic),
        );
        unsafe {
            let (i32t, i64t, ptr) =
                (LLVMInt32TypeInContext(ctx), LLVMInt64TypeInContext(ctx), LLVMPointerTypeInContext(ctx, 0));
            // (Reverse vector mode is refused before generation.)
            debug_assert_eq!(self.lane_count(), 1);
            // The environment: arguments (and shadows), then the sums.
            let mut tys = Vec::new();
            let mut values = Vec::new();
            for k in first..nargs {
                let a = ir::operand(i, k);
                tys.push(ir::type_of(a));
                values.push(self.map.get(&a).copied().unwrap_or(a));
                if mask[k as usize] {
                    tys.push(ptr);
                    values.push(self.sh.of(a));
                }
            }
            let mut sums = Vec::new();
            for k in first..nargs {
                let t = ir::type_of(ir::operand(i, k));
                if ir::is_float(t) {
                    sums.push((k, tys.len() as u32));
                    tys.push(t);
                    values.push(self.e.zero(t));
                }
            }
            let env_ty = struct_type(ctx, &tys);
            let e = &self.e;
            let env = e.call(libc_function(module, "malloc"), &mut [LLVMSizeOf(env_ty)]);
            for (k, v) in values.into_iter().enumerate() {
                let p = LLVMBuildStructGEP2(e.b, env_ty, env, k as u32, c"".as_ptr());
                e.store(v, p);
            }
            // The regions, and the globals the step writes.
            let region_ty = struct_type(ctx, &[ptr, i64t, i32t, i32t]);
            let mut pieces: Vec<(Value, Value)> = (0..regions)
                .map(|r| {
                    let (p, b) = (ir::operand(i, FIXED_PARAMS + 2 * r), ir::operand(i, FIXED_PARAMS + 2 * r + 1));
                    (self.map.get(&p).copied().unwrap_or(p), self.map.get(&b).copied().unwrap_or(b))
                })
                .collect();
            for g in written_globals(step) {
                let bytes = ir::store_size(step, LLVMGlobalGetValueType(g));
                pieces.push((g, LLVMConstInt(i64t, bytes, 0)));
            }
            let array_ty = LLVMArrayType2(region_ty, pieces.len().max(1) as u64);
            let array = LLVMBuildAlloca(self.slots, array_ty, c"checkpoint.regions".as_ptr());
            for (r, (p, b)) in pieces.iter().enumerate() {
                let mut idx = [LLVMConstInt(i64t, 0, 0), LLVMConstInt(i64t, r as u64, 0)];
                let entry = LLVMBuildGEP2(e.b, array_ty, array, idx.as_mut_ptr(), 2, c"".as_ptr());
                let fields = [*p, *b, LLVMConstInt(i32t, 0, 0), LLVMConstInt(i32t, 0, 0)];
                for (f, v) in fields.into_iter().enumerate() {
                    e.store(v, LLVMBuildStructGEP2(e.b, region_ty, entry, f as u32, c"".as_ptr()));
                }
            }
            let user_step = self.g.original(step);
            let primal = step_thunk(module, user_step, env_ty, &mask[first as usize..], None);
            let gradient = step_thunk(module, derivative, env_ty, &mask[first as usize..], Some(&sums));
            let arg = |k: u32| {
                let a = ir::operand(i, k);
                self.map.get(&a).copied().unwrap_or(a)
            };
            let mut args =
                [arg(3), arg(4), arg(1), arg(2), array, LLVMConstInt(i64t, pieces.len() as u64, 0), env, primal];
            let run = e.call(driver(module, "enzyme_rs_ckpt_forward"), &mut args);
            self.checkpoint_calls.insert(i, CheckpointCall { run, env, env_ty, primal, gradient, sums });
        }
    }

    /// Reverse sweep: the driver differentiates the steps; the sums of the
    /// float arguments' adjoints come out of the environment.
    pub(in crate::generate) fn reverse_checkpoint_call(&mut self, i: Value) {
        let c = self.checkpoint_calls[&i].clone();
        let (run, env) = (self.fetch(c.run), self.fetch(c.env));
        let module = self.g.module();
        self.e.call(driver(module, "enzyme_rs_ckpt_reverse"), &mut [run, c.primal, c.gradient]);
        for (k, field) in c.sums {
            let t = ir::type_of(ir::operand(i, k));
            let p = unsafe { LLVMBuildStructGEP2(self.e.b, c.env_ty, env, field, c"".as_ptr()) };
            let v = self.e.load(t, p);
            self.accumulate(ir::operand(i, k), v);
        }
        self.e.call(libc_function(module, "free"), &mut [env]);
    }
}

/// The driver's function `name`, from `enzyme/checkpoint.h` (or declared:
/// the link then says it is missing).
fn driver(module: LLVMModuleRef, name: &str) -> Value {
    if let Some(f) = crate::build::runtime::existing(module, name) {
        return f;
    }
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let (i64t, ptr) = (LLVMInt64TypeInContext(ctx), LLVMPointerTypeInContext(ctx, 0));
        match name {
            "enzyme_rs_ckpt_forward" => {
                add_function(module, name, ptr, &mut [ptr, ptr, i64t, i64t, ptr, i64t, ptr, ptr])
            }
            _ => add_function(module, name, LLVMVoidTypeInContext(ctx), &mut [ptr, ptr, ptr]),
        }
    }
}

/// `(env, i64 i)` calling `f` on step `i` with the arguments in `env`: the
/// user's step (`sums` none; it returns whether a while loop goes on), or
/// its derivative, given the shadows too, whose float adjoints are added to
/// the sums.
fn step_thunk(module: LLVMModuleRef, f: Value, env_ty: Type, dup: &[bool], sums: Option<&[(u32, u32)]>) -> Value {
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let (i64t, ptr) = (LLVMInt64TypeInContext(ctx), LLVMPointerTypeInContext(ctx, 0));
        let i32t = LLVMInt32TypeInContext(ctx);
        let name = format!("{}.checkpoint_step", ir::name(f));
        // The step returns whether a while loop goes on (1 for a for loop).
        let result = if sums.is_some() { LLVMVoidTypeInContext(ctx) } else { i32t };
        let t = add_function(module, &name, result, &mut [ptr, i64t]);
        LLVMSetLinkage(t, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        let p = ir::params(t);
        let e = Emitter::new(module);
        let entry = e.append_block(t, "entry");
        e.at_end(entry);
        let fp = ir::params(f);
        let it = ir::type_of(fp[0]);
        let step = if ir::int_width(it) < 64 { LLVMBuildTrunc(e.b, p[1], it, c"".as_ptr()) } else { p[1] };
        let mut args = vec![step];
        let mut field = 0u32;
        for d in dup {
            let load = |k: u32| {
                let gep = LLVMBuildStructGEP2(e.b, env_ty, p[0], k, c"".as_ptr());
                e.load(LLVMStructGetTypeAtIndex(env_ty, k), gep)
            };
            args.push(load(field));
            field += 1;
            if *d {
                if sums.is_some() {
                    args.push(load(field));
                }
                field += 1;
            }
        }
        let r = e.call(f, &mut args);
        LLVMSetInstructionCallConv(r, LLVMGetFunctionCallConv(f));
        if let Some(sums) = sums {
            // The derivative returns the float parameters' adjoints in order.
            for (j, (_, field)) in sums.iter().enumerate() {
                let gep = LLVMBuildStructGEP2(e.b, env_ty, p[0], *field, c"".as_ptr());
                let t = LLVMStructGetTypeAtIndex(env_ty, *field);
                let sum = e.fadd(e.load(t, gep), e.extract(r, j as u32));
                e.store(sum, gep);
            }
        }
        if sums.is_some() {
            LLVMBuildRetVoid(e.b);
        } else if ir::is_int(ir::type_of(r)) {
            let no = LLVMConstInt(ir::type_of(r), 0, 0);
            let on = LLVMBuildICmp(e.b, llvm_sys::LLVMIntPredicate::LLVMIntNE, r, no, c"".as_ptr());
            LLVMBuildRet(e.b, LLVMBuildZExt(e.b, on, i32t, c"".as_ptr()));
        } else {
            LLVMBuildRet(e.b, LLVMConstInt(i32t, 1, 0));
        }
        t
    }
}

/// The global variables a step writes (stores, copies, sets, atomics),
/// which its snapshots hold besides the regions given.
fn written_globals(step: Value) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for i in ir::blocks(step).into_iter().flat_map(ir::instructions) {
        let dest = match ir::opcode(i) {
            llvm_sys::LLVMOpcode::LLVMStore => Some(ir::operand(i, 1)),
            llvm_sys::LLVMOpcode::LLVMAtomicRMW | llvm_sys::LLVMOpcode::LLVMAtomicCmpXchg => Some(ir::operand(i, 0)),
            llvm_sys::LLVMOpcode::LLVMCall => ir::called_function(i)
                .filter(|f| {
                    let n = ir::name(*f);
                    n.starts_with("llvm.memcpy") || n.starts_with("llvm.memmove") || n.starts_with("llvm.memset")
                })
                .map(|_| ir::operand(i, 0)),
            _ => None,
        };
        let Some(dest) = dest else { continue };
        for b in ir::pointer_bases(dest) {
            let g = ir::constant_root(b).unwrap_or(b);
            let is_global = unsafe { !LLVMIsAGlobalVariable(g).is_null() && LLVMIsGlobalConstant(g) == 0 };
            if is_global && !out.contains(&g) {
                out.push(g);
            }
        }
    }
    out
}
