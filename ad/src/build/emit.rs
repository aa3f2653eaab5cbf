//! Emission helpers shared by forward and reverse mode: float arithmetic,
//! width conversion, intrinsic calls and evaluation of rule expressions.

use std::collections::HashMap;

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMIntPredicate, LLVMRealPredicate};

use crate::ir::{self, Block, Type, Value};
use crate::rules::{BinOp, CmpOp, CompiledRule, Expr};

/// An IR builder bound to one module.
pub(crate) struct Emitter {
    pub ctx: LLVMContextRef,
    pub module: LLVMModuleRef,
    pub b: LLVMBuilderRef,
    /// `enzyme_strong_zero`: a zero seed times any partial gives zero.
    pub strong_zero: bool,
    /// `enzyme_runtime_activity`, passed on to the derivatives of callees.
    pub runtime_activity: bool,
    /// `__enzyme_error_estimate`: tangents are error estimates.
    pub error_estimate: bool,
}

impl Drop for Emitter {
    fn drop(&mut self) {
        unsafe { LLVMDisposeBuilder(self.b) }
    }
}

/// A value computed while evaluating a rule expression.
#[derive(Clone, Copy)]
enum Val {
    /// A literal whose type is decided by its use.
    Lit(f64),
    /// A float of the rule's type.
    F(Value),
    /// An integer.
    I(Value),
    /// An `i1`.
    B(Value),
}

/// The empty name for built values.
pub(crate) const EMPTY: *const std::ffi::c_char = c"".as_ptr();

impl Emitter {
    pub fn new(module: LLVMModuleRef) -> Emitter {
        unsafe {
            let ctx = LLVMGetModuleContext(module);
            Emitter {
                ctx,
                module,
                b: LLVMCreateBuilderInContext(ctx),
                strong_zero: false,
                runtime_activity: false,
                error_estimate: false,
            }
        }
    }

    pub fn at_end(&self, bb: Block) {
        unsafe { LLVMPositionBuilderAtEnd(self.b, bb) }
    }

    /// Instructions built from now on carry the debug location of primal
    /// instruction `i` (none if it has none), remapped into the derivative's
    /// own subprogram when the derivative is complete.
    pub fn located_at(&self, i: Value) {
        unsafe { LLVMSetCurrentDebugLocation2(self.b, llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(i)) }
    }

    /// Instructions built from now on carry no debug location.
    pub fn unlocated(&self) {
        unsafe { LLVMSetCurrentDebugLocation2(self.b, std::ptr::null_mut()) }
    }

    /// Prints `message` and aborts when `cond` holds at run time.
    pub fn abort_if(&self, cond: Value, message: &str) {
        unsafe {
            let msg = ir::cstring(message);
            let s = LLVMBuildGlobalString(self.b, msg.as_ptr(), c"enzyme_rs.message".as_ptr());
            self.call(crate::build::runtime::abort_if_function(self.module), &mut [cond, s]);
        }
    }

    pub fn before(&self, i: Value) {
        unsafe { LLVMPositionBuilderBefore(self.b, i) }
    }

    pub fn current_block(&self) -> Block {
        unsafe { LLVMGetInsertBlock(self.b) }
    }

    pub fn append_block(&self, f: Value, name: &str) -> Block {
        let n = ir::cstring(name);
        unsafe { LLVMAppendBasicBlockInContext(self.ctx, f, n.as_ptr()) }
    }

    pub fn fadd(&self, a: Value, b: Value) -> Value {
        if ir::const_float_value(a) == Some(0.0) {
            return b;
        }
        unsafe { LLVMBuildFAdd(self.b, a, b, EMPTY) }
    }

    /// `a + b` for any derivative-carrying type: float aggregates add field
    /// by field (their integer fields are kept from `a`).
    pub fn add(&self, a: Value, b: Value) -> Value {
        let t = ir::type_of(a);
        if !ir::is_float_aggregate(t) {
            return self.fadd(a, b);
        }
        let mut out = a;
        for (k, et) in ir::aggregate_elements(t).into_iter().enumerate() {
            if ir::is_real(et) {
                let s = self.add(self.extract(a, k as u32), self.extract(b, k as u32));
                out = self.insert(out, s, k as u32);
            }
        }
        out
    }

    pub fn fmul(&self, a: Value, b: Value) -> Value {
        unsafe { LLVMBuildFMul(self.b, a, b, EMPTY) }
    }

    pub fn fneg(&self, a: Value) -> Value {
        unsafe { LLVMBuildFNeg(self.b, a, EMPTY) }
    }

    pub fn select(&self, c: Value, a: Value, b: Value) -> Value {
        unsafe { LLVMBuildSelect(self.b, c, a, b, EMPTY) }
    }

    pub fn load(&self, t: Type, p: Value) -> Value {
        unsafe { LLVMBuildLoad2(self.b, t, p, EMPTY) }
    }

    pub fn store(&self, v: Value, p: Value) {
        unsafe {
            LLVMBuildStore(self.b, v, p);
        }
    }

    /// A load of shadow memory at the alignment of primal access `like`
    /// (the shadow sits at the same offsets, so it is aligned alike; the
    /// type's own alignment may be more than the memory has).
    /// A load from shadow memory at the alignment (and, for an atomic
    /// primal load, with the ordering) of primal access `like`.
    pub fn load_like(&self, t: Type, p: Value, like: Value) -> Value {
        let l = self.load(t, p);
        unsafe {
            LLVMSetAlignment(l, LLVMGetAlignment(like));
            if ir::opcode(like) == llvm_sys::LLVMOpcode::LLVMLoad && ir::is_atomic(like) {
                LLVMSetOrdering(l, LLVMGetOrdering(like));
            }
        }
        l
    }

    /// A store into shadow memory at the alignment of primal access `like`.
    pub fn store_like(&self, v: Value, p: Value, like: Value) {
        unsafe {
            let s = LLVMBuildStore(self.b, v, p);
            LLVMSetAlignment(s, LLVMGetAlignment(like));
        }
    }

    pub fn br(&self, to: Block) {
        unsafe {
            LLVMBuildBr(self.b, to);
        }
    }

    pub fn extract(&self, agg: Value, k: u32) -> Value {
        unsafe { LLVMBuildExtractValue(self.b, agg, k, EMPTY) }
    }

    pub fn insert(&self, agg: Value, v: Value, k: u32) -> Value {
        unsafe { LLVMBuildInsertValue(self.b, agg, v, k, EMPTY) }
    }

    pub fn call(&self, f: Value, args: &mut [Value]) -> Value {
        unsafe { LLVMBuildCall2(self.b, ir::function_type(f), f, args.as_mut_ptr(), args.len() as u32, EMPTY) }
    }

    /// A call of a user's function, in its calling convention.
    pub fn call_user(&self, f: Value, args: &mut [Value]) -> Value {
        let c = self.call(f, args);
        unsafe { LLVMSetInstructionCallConv(c, LLVMGetFunctionCallConv(f)) };
        c
    }

    pub fn zero(&self, t: Type) -> Value {
        unsafe { LLVMConstNull(t) }
    }

    /// The value an adjoint accumulator starts from: -0.0 for floats and
    /// float vectors, because `-0.0 + x` is exactly `x` for every x (and
    /// LLVM folds it), where `+0.0 + x` turns -0.0 into +0.0 and stays.
    pub fn adjoint_zero(&self, t: Type) -> Value {
        adjoint_zero(t)
    }

    /// `p + offset` bytes.
    /// Lane `lane`'s address in a buffer whose lanes are `stride` bytes
    /// apart (`stride` an integer value of any width).
    pub fn lane_in_buffer(&self, base: Value, stride: Value, lane: u32) -> Value {
        unsafe {
            let i64t = LLVMInt64TypeInContext(self.ctx);
            let stride = LLVMBuildSExtOrBitCast(self.b, stride, i64t, EMPTY);
            let mut off = LLVMBuildMul(self.b, stride, LLVMConstInt(i64t, lane as u64, 0), EMPTY);
            LLVMBuildGEP2(self.b, LLVMInt8TypeInContext(self.ctx), base, &mut off, 1, c"lane".as_ptr())
        }
    }

    pub fn byte_offset(&self, p: Value, offset: u64) -> Value {
        if offset == 0 {
            return p;
        }
        unsafe {
            let i8t = LLVMInt8TypeInContext(self.ctx);
            let mut idx = [LLVMConstInt(LLVMInt64TypeInContext(self.ctx), offset, 0)];
            LLVMBuildGEP2(self.b, i8t, p, idx.as_mut_ptr(), 1, EMPTY)
        }
    }

    /// `memcpy(dst, src, size)` with a constant size.
    pub fn memcpy(&self, dst: Value, src: Value, size: u64) {
        unsafe {
            let len = LLVMConstInt(LLVMInt64TypeInContext(self.ctx), size, 0);
            LLVMBuildMemCpy(self.b, dst, 1, src, 1, len);
        }
    }

    /// Converts a float to another float width (or returns it unchanged).
    pub fn convert_float(&self, v: Value, to: Type) -> Value {
        let from = ir::type_of(v);
        if from == to {
            return v;
        }
        unsafe {
            if ir::float_rank(from) < ir::float_rank(to) {
                LLVMBuildFPExt(self.b, v, to, EMPTY)
            } else {
                LLVMBuildFPTrunc(self.b, v, to, EMPTY)
            }
        }
    }

    /// Converts an argument to a parameter's type where C's argument
    /// promotions allow it (float widths, integer widths); `None` otherwise.
    pub fn convert_arg(&self, v: Value, to: Type) -> Option<Value> {
        let from = ir::type_of(v);
        if from == to {
            return Some(v);
        }
        if ir::is_float(from) && ir::is_float(to) {
            return Some(self.convert_float(v, to));
        }
        if ir::is_int(from) && ir::is_int(to) {
            let (a, b) = (ir::int_width(from), ir::int_width(to));
            return Some(unsafe {
                if a > b {
                    LLVMBuildTrunc(self.b, v, to, EMPTY)
                } else {
                    LLVMBuildSExt(self.b, v, to, EMPTY)
                }
            });
        }
        None
    }

    /// A call of the overloaded intrinsic `name` at the given overload types.
    pub fn intrinsic(&self, name: &str, overloads: &[Type], args: &mut [Value]) -> Value {
        unsafe {
            let id = LLVMLookupIntrinsicID(name.as_ptr() as *const _, name.len());
            assert!(id != 0, "unknown intrinsic {name}");
            let mut tys = overloads.to_vec();
            let f = LLVMGetIntrinsicDeclaration(self.module, id, tys.as_mut_ptr(), tys.len());
            let fty = LLVMIntrinsicGetType(self.ctx, id, tys.as_mut_ptr(), tys.len());
            LLVMBuildCall2(self.b, fty, f, args.as_mut_ptr(), args.len() as u32, EMPTY)
        }
    }

    /// `partial · seed`, where `partial` is a rule expression over `args`
    /// (values in the function being built) and `result`. `None` when the
    /// partial is the constant zero, so no contribution needs emitting.
    ///
    /// `siblings` are values of the function being built standing for calls
    /// of the partial (`(name, k, v)`: `name(argument k)` is `v`), so
    /// `-sin(x)` for a `cos(x)` whose `sin(x)` the program computes anyway
    /// costs no second call (see [`sibling_calls`]).
    pub fn scaled_partial(
        &self,
        partial: &Expr,
        ty: Type,
        args: &[Value],
        siblings: &[Sibling],
        result: &mut dyn FnMut() -> Value,
        seed: Value,
        undefined_operand: bool,
    ) -> Option<Value> {
        match partial {
            Expr::Num(x) if *x == 0.0 => None,
            Expr::Num(x) if *x == 1.0 => Some(seed),
            Expr::Num(x) if *x == -1.0 => Some(self.fneg(seed)),
            e => {
                let p = self.eval(e, ty, args, siblings, result);
                let p = self.as_float(p, ty);
                let c = self.fmul(p, seed);
                if ir::vector_lanes(ty).is_none() && !self.strong_zero && !undefined_operand {
                    return Some(c);
                }
                // Lanes the program never reads, and operands undefined on
                // some path (see `undefined`), may hold poison or infinities
                // (optimised code leaves them undefined), and strong zero asks
                // it everywhere: a zero seed contributes exactly zero, not
                // `0 · inf` (NaN).
                unsafe {
                    let z = self.zero(ty);
                    let is_zero = LLVMBuildFCmp(self.b, LLVMRealPredicate::LLVMRealOEQ, seed, z, EMPTY);
                    Some(self.select(is_zero, z, c))
                }
            }
        }
    }

    fn as_float(&self, v: Val, ty: Type) -> Value {
        match v {
            Val::Lit(x) => ir::const_real(ty, x),
            Val::F(v) => v,
            Val::I(v) => unsafe { LLVMBuildSIToFP(self.b, v, ty, EMPTY) },
            Val::B(v) => unsafe { LLVMBuildUIToFP(self.b, v, ty, EMPTY) },
        }
    }

    fn eval(&self, e: &Expr, ty: Type, args: &[Value], siblings: &[Sibling], result: &mut dyn FnMut() -> Value) -> Val {
        unsafe {
            match e {
                Expr::Num(x) => Val::Lit(*x),
                Expr::Param(k) => {
                    let v = args[*k];
                    if ir::is_real(ir::type_of(v)) {
                        Val::F(v)
                    } else {
                        Val::I(v)
                    }
                }
                Expr::Result => Val::F(result()),
                Expr::Neg(a) => match self.eval(a, ty, args, siblings, result) {
                    Val::Lit(x) => Val::Lit(-x),
                    Val::I(v) => Val::I(LLVMBuildNeg(self.b, v, EMPTY)),
                    v => Val::F(self.fneg(self.as_float(v, ty))),
                },
                Expr::Bin(op, a, b) => {
                    let (x, y) = (self.eval(a, ty, args, siblings, result), self.eval(b, ty, args, siblings, result));
                    match (x, y) {
                        (Val::Lit(p), Val::Lit(q)) => Val::Lit(match op {
                            BinOp::Add => p + q,
                            BinOp::Sub => p - q,
                            BinOp::Mul => p * q,
                            BinOp::Div => p / q,
                        }),
                        (Val::I(p), Val::I(q)) => Val::I(self.int_bin(*op, p, q)),
                        (Val::I(p), Val::Lit(q)) => {
                            Val::I(self.int_bin(*op, p, LLVMConstInt(ir::type_of(p), q as i64 as u64, 1)))
                        }
                        (Val::Lit(p), Val::I(q)) => {
                            Val::I(self.int_bin(*op, LLVMConstInt(ir::type_of(q), p as i64 as u64, 1), q))
                        }
                        (x, y) => {
                            let (p, q) = (self.as_float(x, ty), self.as_float(y, ty));
                            Val::F(match op {
                                BinOp::Add => LLVMBuildFAdd(self.b, p, q, EMPTY),
                                BinOp::Sub => LLVMBuildFSub(self.b, p, q, EMPTY),
                                BinOp::Mul => LLVMBuildFMul(self.b, p, q, EMPTY),
                                BinOp::Div => LLVMBuildFDiv(self.b, p, q, EMPTY),
                            })
                        }
                    }
                }
                Expr::Cmp(op, a, b) => {
                    let (x, y) = (self.eval(a, ty, args, siblings, result), self.eval(b, ty, args, siblings, result));
                    match (x, y) {
                        (Val::B(p), Val::B(q)) => {
                            let pred = match op {
                                CmpOp::Eq => LLVMIntPredicate::LLVMIntEQ,
                                _ => LLVMIntPredicate::LLVMIntNE,
                            };
                            Val::B(LLVMBuildICmp(self.b, pred, p, q, EMPTY))
                        }
                        (Val::I(p), Val::Lit(q)) => {
                            let q = LLVMConstInt(ir::type_of(p), q as i64 as u64, 1);
                            Val::B(LLVMBuildICmp(self.b, int_pred(*op), p, q, EMPTY))
                        }
                        (Val::I(p), Val::I(q)) => Val::B(LLVMBuildICmp(self.b, int_pred(*op), p, q, EMPTY)),
                        (x, y) => {
                            let (p, q) = (self.as_float(x, ty), self.as_float(y, ty));
                            Val::B(LLVMBuildFCmp(self.b, real_pred(*op), p, q, EMPTY))
                        }
                    }
                }
                Expr::Select(c, a, b) => {
                    let c = match self.eval(c, ty, args, siblings, result) {
                        Val::B(c) => c,
                        _ => panic!("select condition must be a comparison"),
                    };
                    let (x, y) = (self.eval(a, ty, args, siblings, result), self.eval(b, ty, args, siblings, result));
                    Val::F(self.select(c, self.as_float(x, ty), self.as_float(y, ty)))
                }
                Expr::Call(name, call_args) => {
                    if let [Expr::Param(k)] = call_args.as_slice() {
                        if let Some((_, _, v)) = siblings.iter().find(|(n, j, _)| n == name && j == k) {
                            return Val::F(*v);
                        }
                    }
                    let vals: Vec<Val> = call_args.iter().map(|a| self.eval(a, ty, args, siblings, result)).collect();
                    let intrinsic = format!("llvm.{name}");
                    if *name == "powi" {
                        let x = self.as_float(vals[0], ty);
                        let n = match vals[1] {
                            Val::I(n) => n,
                            Val::Lit(q) => LLVMConstInt(LLVMInt32TypeInContext(self.ctx), q as i64 as u64, 1),
                            _ => panic!("powi exponent must be an integer"),
                        };
                        return Val::F(self.intrinsic(&intrinsic, &[ty, ir::type_of(n)], &mut [x, n]));
                    }
                    let mut fs: Vec<Value> = vals.into_iter().map(|v| self.as_float(v, ty)).collect();
                    if *name == "digamma" {
                        let f = crate::build::runtime::digamma_function(self.module, ty);
                        return Val::F(self.call(f, &mut fs));
                    }
                    Val::F(self.intrinsic(&intrinsic, &[ty], &mut fs))
                }
            }
        }
    }

    fn int_bin(&self, op: BinOp, p: Value, q: Value) -> Value {
        unsafe {
            match op {
                BinOp::Add => LLVMBuildAdd(self.b, p, q, EMPTY),
                BinOp::Sub => LLVMBuildSub(self.b, p, q, EMPTY),
                BinOp::Mul => LLVMBuildMul(self.b, p, q, EMPTY),
                BinOp::Div => LLVMBuildSDiv(self.b, p, q, EMPTY),
            }
        }
    }

    /// Clones a primal instruction at the builder's position, remapping operands.
    pub fn clone_instruction(&self, i: Value, map: &HashMap<Value, Value>) -> Value {
        unsafe {
            let n = LLVMInstructionClone(i);
            LLVMInsertIntoBuilder(self.b, n);
            crate::ir::edits::remap_operands(n, map);
            // A call that was an `invoke` in the user's code may throw again.
            let md = crate::ir::edits::WAS_INVOKE;
            let md_kind = LLVMGetMDKindIDInContext(self.ctx, md.as_ptr() as *const _, md.len() as u32);
            if !LLVMGetMetadata(n, md_kind).is_null() {
                LLVMRemoveCallSiteEnumAttribute(n, llvm_sys::LLVMAttributeFunctionIndex, ir::attr_kind("nounwind"));
                LLVMSetMetadata(n, md_kind, std::ptr::null_mut());
            }
            if !ir::is_void(ir::type_of(i)) {
                ir::set_name(n, &ir::name(i));
            }
            n
        }
    }
}

fn int_pred(op: CmpOp) -> LLVMIntPredicate {
    use LLVMIntPredicate::*;
    match op {
        CmpOp::Lt => LLVMIntSLT,
        CmpOp::Le => LLVMIntSLE,
        CmpOp::Gt => LLVMIntSGT,
        CmpOp::Ge => LLVMIntSGE,
        CmpOp::Eq => LLVMIntEQ,
        CmpOp::Ne => LLVMIntNE,
    }
}

fn real_pred(op: CmpOp) -> LLVMRealPredicate {
    use LLVMRealPredicate::*;
    match op {
        CmpOp::Lt => LLVMRealOLT,
        CmpOp::Le => LLVMRealOLE,
        CmpOp::Gt => LLVMRealOGT,
        CmpOp::Ge => LLVMRealOGE,
        CmpOp::Eq => LLVMRealOEQ,
        CmpOp::Ne => LLVMRealUNE,
    }
}

/// The operands a rule's parameters refer to: call arguments or instruction operands.
pub(crate) fn rule_operands(i: Value, rule: &CompiledRule) -> Vec<Value> {
    let n = rule.int_params.len() as u32;
    (0..n).map(|k| ir::operand(i, k)).collect()
}

/// `name(operand k)` is `value`: a call a rule's partial makes that the
/// program has made already (see [`sibling_calls`]).
pub(crate) type Sibling = (&'static str, usize, Value);

/// The calls a rule's partials make of one operand (`sin(x)` in `cos`'s)
/// that the program itself makes of the same operand in the same block as
/// `i` (so both run whenever either does): `(name, k, call)` for `name(operand
/// k)`. Their values are used instead of calling again.
pub(crate) fn sibling_calls(i: Value, rule: &CompiledRule, ops: &[Value]) -> Vec<Sibling> {
    fn calls(e: &Expr, out: &mut Vec<(&'static str, usize)>) {
        match e {
            Expr::Call(name, args) => match args.as_slice() {
                [Expr::Param(k)] => out.push((name, *k)),
                _ => args.iter().for_each(|a| calls(a, out)),
            },
            Expr::Neg(a) => calls(a, out),
            Expr::Bin(_, a, b) | Expr::Cmp(_, a, b) => {
                calls(a, out);
                calls(b, out);
            }
            Expr::Select(c, a, b) => {
                calls(c, out);
                calls(a, out);
                calls(b, out);
            }
            Expr::Num(_) | Expr::Param(_) | Expr::Result => {}
        }
    }
    let mut wanted = Vec::new();
    rule.partials.iter().flatten().for_each(|p| calls(p, &mut wanted));
    let mut found = Vec::new();
    for (name, k) in wanted {
        let op = ops[k];
        // `sin`, `sinf`, `sinl` (their types are checked) or `llvm.sin.*`.
        let same_function = |callee: &str| {
            callee == name
                || callee.strip_suffix(['f', 'l']) == Some(name)
                || callee.strip_prefix("llvm.").and_then(|r| r.split('.').next()) == Some(name)
        };
        let sibling = ir::users(op).into_iter().find(|c| {
            ir::opcode(*c) == llvm_sys::LLVMOpcode::LLVMCall
                && *c != i
                && ir::call_arg_count(*c) == 1
                && ir::operand(*c, 0) == op
                && ir::type_of(*c) == ir::type_of(op)
                && ir::parent_block(*c) == ir::parent_block(i)
                && ir::called_function(*c).is_some_and(|f| same_function(&ir::name(f)))
        });
        if let Some(c) = sibling {
            found.push((name, k, c));
        }
    }
    found
}

/// See [`Emitter::adjoint_zero`].
pub(crate) fn adjoint_zero(t: Type) -> Value {
    unsafe {
        if ir::is_float(t) {
            return LLVMConstReal(t, -0.0);
        }
        if LLVMGetTypeKind(t) == llvm_sys::LLVMTypeKind::LLVMVectorTypeKind && ir::is_float(LLVMGetElementType(t)) {
            let lane = LLVMConstReal(LLVMGetElementType(t), -0.0);
            let mut lanes = vec![lane; LLVMGetVectorSize(t) as usize];
            return LLVMConstVector(lanes.as_mut_ptr(), lanes.len() as u32);
        }
        LLVMConstNull(t)
    }
}

/// Before an entry point's call is erased: if it is an `invoke`, an invoke
/// of a function that does nothing takes its place at the builder, so the
/// block keeps its terminator and both edges (the unwind destination's phis
/// stay valid; it is never taken).
pub(crate) fn keep_invoke_edges(e: &Emitter, call: Value) {
    if ir::opcode(call) != llvm_sys::LLVMOpcode::LLVMInvoke {
        return;
    }
    unsafe {
        let nop = crate::build::runtime::nop_function(e.module);
        LLVMBuildInvoke2(
            e.b,
            ir::function_type(nop),
            nop,
            std::ptr::null_mut(),
            0,
            LLVMGetNormalDest(call),
            LLVMGetUnwindDest(call),
            c"".as_ptr(),
        );
    }
}
