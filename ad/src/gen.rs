//! Generation of derivative functions.
//!
//! A derivative is made per function, mode and activity pattern (which
//! pointer parameters have shadows). Over all float parameters (callers pass
//! zero tangents or drop adjoints for constant ones; post-AD optimisation
//! removes the dead work):
//!
//! - forward `fwddiffe_f(x₀, ẋ₀, n, p, p̄, …) -> {f, ḟ}`: each float parameter
//!   is followed by its tangent, each duplicated pointer by its shadow (which
//!   receives the tangents of what is stored through it); a float result
//!   comes back with its tangent (a non-float result alone);
//! - reverse `diffe_f(x₀, n, p, p̄, …, ȳ) -> {x̄₀, …}`: the primal arguments with
//!   the shadows of duplicated pointers, then the seed of a float result; the
//!   adjoints of the float parameters come back in order and the adjoints of
//!   memory are added into the shadows. The function runs the primal
//!   (forward sweep) and then the adjoint (reverse sweep) in one body;
//! - split reverse `augmented_f(x₀, n, p, p̄, …, io) -> handle`, for calls
//!   that stay calls (recursion): a coroutine whose first part is the forward
//!   sweep (result into `io`) and whose resumption is the reverse sweep (seed
//!   from `io`, adjoints into `io`), so the callee runs once.
//!
//! Shadow memory: loads, stores, address arithmetic and stack slots of the
//! primal have twins on the shadows. In reverse mode a load's adjoint is
//! added to its shadow location, and a store takes the adjoint out of its
//! shadow location (and clears it, as the stored-over value no longer counts).
//!
//! Reverse mode keeps adjoints and the values the reverse sweep needs in stack
//! slots; the post-AD pipeline promotes them to registers. Values are cached
//! as they were computed, so memory overwritten later in the forward sweep
//! cannot corrupt the reverse sweep. This is correct for any acyclic control
//! flow without dominance bookkeeping: a block's reverse runs only if the
//! block ran.

use std::collections::HashMap;

use llvm_sys::core::*;
use llvm_sys::prelude::*;

use crate::cfg::Cfg;
use crate::classify::{classify, Kind};
use crate::emit::{rule_operands, Emitter};
use crate::ir::{self, Block, Type, Value};
use crate::memory::{self, CopyLayout, Elem, Memory, PtrStatus};
use crate::prep::Prep;
use crate::runtime::{adjoint_move_function, libc_function, tape_grow_function};

/// Differentiation mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Tangents, `__enzyme_fwddiff`.
    Forward,
    /// Adjoints, `__enzyme_autodiff`.
    Reverse,
}

/// Which derivative: mode, preprocessed function, shadowed pointer
/// parameters, and whether it is the split (augmented forward, then reverse
/// on resumption) form of reverse mode.
type Key = (Mode, Value, Vec<bool>, bool);

/// The buffer through which a split derivative and its caller exchange
/// values: one per call site, in the caller's frame.
#[derive(Clone, Copy)]
pub(crate) struct SplitIo {
    /// `{ result?, seed?, adjoint of each float parameter... }`.
    pub ty: Type,
    /// The primal result, written before the forward part returns.
    pub result: Option<u32>,
    /// The result's adjoint (float results), written before resumption.
    pub seed: Option<u32>,
    /// Index of the first float parameter's adjoint, written by the reverse part.
    pub adjoints: u32,
}

impl SplitIo {
    fn of(ctx: LLVMContextRef, f: Value) -> SplitIo {
        let ret = ir::return_type(f);
        let mut fields = Vec::new();
        let result = (!ir::is_void(ret)).then(|| {
            fields.push(ret);
            fields.len() as u32 - 1
        });
        let seed = ir::is_float(ret).then(|| {
            fields.push(ret);
            fields.len() as u32 - 1
        });
        let adjoints = fields.len() as u32;
        fields.extend(ir::params(f).iter().map(|p| ir::type_of(*p)).filter(|t| ir::is_float(*t)));
        SplitIo { ty: struct_type(ctx, &fields), result, seed, adjoints }
    }

    /// The address of field `k` in buffer `io`.
    fn field(&self, e: &Emitter, io: Value, k: u32) -> Value {
        unsafe { LLVMBuildStructGEP2(e.b, self.ty, io, k, EMPTY) }
    }
}

/// Creates derivative functions on demand and fills their bodies.
pub(crate) struct Generator {
    pub module: LLVMModuleRef,
    pub prep: Prep,
    /// Whether to describe the analysis of each derivative in `reports`.
    pub report_activity: bool,
    pub reports: Vec<String>,
    made: HashMap<Key, Value>,
    pending: Vec<(Key, Value)>,
    /// Whether split derivatives (coroutines, to be lowered) were made.
    pub made_coroutines: bool,
    /// Shadow globals of the module's derivatives.
    pub shadow_globals: ShadowGlobals,
}

const EMPTY: *const std::ffi::c_char = c"".as_ptr();

impl Generator {
    pub fn new(module: LLVMModuleRef) -> Generator {
        Generator {
            module,
            prep: Prep::default(),
            report_activity: false,
            reports: Vec::new(),
            made: HashMap::new(),
            pending: Vec::new(),
            made_coroutines: false,
            shadow_globals: Default::default(),
        }
    }

    fn ctx(&self) -> LLVMContextRef {
        unsafe { LLVMGetModuleContext(self.module) }
    }

    /// The derivative of the preprocessed function `f` with pointer parameter
    /// `k` shadowed iff `dup[k]`, declared now and generated by [`Generator::run`].
    pub fn derivative(&mut self, mode: Mode, f: Value, dup: &[bool]) -> Value {
        let key = (mode, f, dup.to_vec(), false);
        if let Some(d) = self.made.get(&key) {
            return *d;
        }
        let original = self.prep.original(f);
        let ctx = self.ctx();
        let params: Vec<Type> = ir::params(f).iter().map(|p| ir::type_of(*p)).collect();
        let ret = ir::return_type(f);
        let mut arg_tys = Vec::new();
        for (k, t) in params.iter().enumerate() {
            arg_tys.push(*t);
            let shadowed = ir::is_pointer(*t) && dup.get(k).copied().unwrap_or(false);
            if shadowed || (mode == Mode::Forward && ir::is_float(*t)) {
                arg_tys.push(*t);
            }
        }
        let (ret_ty, prefix) = match mode {
            Mode::Forward => (if ir::is_float(ret) { struct_type(ctx, &[ret, ret]) } else { ret }, "fwddiffe_"),
            Mode::Reverse => {
                if ir::is_float(ret) {
                    arg_tys.push(ret);
                }
                let floats: Vec<Type> = params.iter().copied().filter(|t| ir::is_float(*t)).collect();
                (struct_type(ctx, &floats), "diffe_")
            }
        };
        self.declare(key, &format!("{prefix}{}", ir::name(original)), ret_ty, &mut arg_tys)
    }

    /// Adds derivative function `name` (internal, with the original's string
    /// attributes) and queues its body for [`Generator::run`].
    fn declare(&mut self, key: Key, name: &str, ret: Type, params: &mut [Type]) -> Value {
        let original = self.prep.original(key.1);
        let d = unsafe {
            let fty = LLVMFunctionType(ret, params.as_mut_ptr(), params.len() as u32, 0);
            let name = ir::cstring(name);
            let d = LLVMAddFunction(self.module, name.as_ptr(), fty);
            LLVMSetLinkage(d, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
            copy_string_attributes(original, d);
            d
        };
        self.made.insert(key.clone(), d);
        self.pending.push((key, d));
        d
    }

    /// The split reverse-mode derivative of `f`, for calls that stay calls
    /// (recursion). A coroutine: called in the caller's forward sweep, it runs
    /// `f` (writing primal and shadow memory once), keeps what its reverse
    /// needs in its frame and suspends, returning its handle; resumed in the
    /// caller's reverse sweep, it propagates adjoints and frees the frame.
    /// Parameters: `f`'s, each shadowed pointer followed by its shadow, then
    /// the [`SplitIo`] buffer.
    pub fn split_derivative(&mut self, f: Value, dup: &[bool]) -> Value {
        let key = (Mode::Reverse, f, dup.to_vec(), true);
        if let Some(d) = self.made.get(&key) {
            return *d;
        }
        let original = self.prep.original(f);
        let ctx = self.ctx();
        let mut arg_tys = Vec::new();
        for (k, p) in ir::params(f).into_iter().enumerate() {
            let t = ir::type_of(p);
            arg_tys.push(t);
            if ir::is_pointer(t) && dup.get(k).copied().unwrap_or(false) {
                arg_tys.push(t);
            }
        }
        let ptr_t = unsafe { LLVMPointerTypeInContext(ctx, 0) };
        arg_tys.push(ptr_t);
        let d = self.declare(key, &format!("augmented_{}", ir::name(original)), ptr_t, &mut arg_tys);
        unsafe {
            let a = LLVMCreateEnumAttribute(ctx, ir::attr_kind("presplitcoroutine"), 0);
            LLVMAddAttributeAtIndex(d, llvm_sys::LLVMAttributeFunctionIndex, a);
        }
        self.made_coroutines = true;
        d
    }

    /// Generates the bodies of every derivative declared so far, and of those
    /// they need in turn.
    pub fn run(&mut self) {
        while let Some(((mode, f, dup, split), d)) = self.pending.pop() {
            if self.report_activity {
                let report = self.describe(mode, f, &dup);
                self.reports.push(report);
            }
            match mode {
                Mode::Forward => Forward::build(self, f, &dup, d),
                Mode::Reverse => Reverse::build(self, f, &dup, d, split),
            }
        }
    }

    /// The analysis of one derivative, in words, instruction by instruction.
    fn describe(&self, mode: Mode, f: Value, dup: &[bool]) -> String {
        use std::fmt::Write;
        let cfg = Cfg::new(f);
        let mem = memory::analyze(f, &cfg, dup, mode, classify);
        let name = crate::names::display_name(&ir::name(self.prep.original(f)));
        let mut out = format!("activity of `{name}` ({mode:?} mode):\n");
        for (k, p) in ir::params(f).into_iter().enumerate() {
            let t = ir::type_of(p);
            let what = if ir::is_pointer(t) {
                if dup.get(k).copied().unwrap_or(false) {
                    "pointer with shadow"
                } else {
                    "constant pointer"
                }
            } else if ir::is_float(t) {
                "active float"
            } else {
                "integer: constant"
            };
            let shown = match ir::name(p) {
                n if n.is_empty() => String::new(),
                n => format!(" `{n}`"),
            };
            let _ = writeln!(out, "  parameter {}{shown}: {what}", k + 1);
        }
        for (n, l) in cfg.loops.iter().enumerate() {
            let _ = writeln!(out, "  loop {n}: {} blocks, values needed in reverse go on a tape", l.blocks.len());
        }
        for b in &cfg.order {
            for i in ir::instructions(*b) {
                let t = ir::type_of(i);
                let what = if ir::is_float(t) {
                    if mem.varied.contains(&i) {
                        "active"
                    } else {
                        "constant"
                    }
                } else if ir::is_pointer(t) {
                    match mem.status(i) {
                        PtrStatus::Shadowed => "pointer with shadow",
                        PtrStatus::Constant => "constant pointer",
                        PtrStatus::Unknown(_) => "pointer of unknown origin",
                    }
                } else {
                    continue;
                };
                let text = ir::print(i);
                let text = text.split(", !").next().unwrap_or(&text);
                let _ = writeln!(out, "  {what:<26} {text}");
            }
            for i in ir::instructions(*b) {
                if let Kind::MemCpy = classify(i) {
                    let layout = memory::copy_layout(i, memory::data_layout(f));
                    let _ =
                        writeln!(out, "  copy layout {layout:?}: {}", ir::print(i).split(", !").next().unwrap_or(""));
                }
            }
        }
        out
    }

    /// Calls in derivative code call the user's functions, not the clones.
    fn remap_callee(&self, i: Value, map: &mut HashMap<Value, Value>) {
        if ir::opcode(i) == llvm_sys::LLVMOpcode::LLVMCall {
            if let Some(c) = ir::called_function(i) {
                let o = self.prep.original(c);
                if o != c {
                    map.insert(c, o);
                }
            }
        }
    }
}

fn struct_type(ctx: LLVMContextRef, elems: &[Type]) -> Type {
    let mut e = elems.to_vec();
    unsafe { LLVMStructTypeInContext(ctx, e.as_mut_ptr(), e.len() as u32, 0) }
}

/// Copies string attributes (`target-cpu`, `target-features`, float-math
/// settings, ...) so derivatives are compiled like the primal. Enum
/// attributes (`optnone`, `noinline`, ...) are deliberately not copied.
fn copy_string_attributes(from: Value, to: Value) {
    unsafe {
        let idx = llvm_sys::LLVMAttributeFunctionIndex;
        let n = LLVMGetAttributeCountAtIndex(from, idx);
        let mut attrs: Vec<LLVMAttributeRef> = vec![std::ptr::null_mut(); n as usize];
        LLVMGetAttributesAtIndex(from, idx, attrs.as_mut_ptr());
        for a in attrs {
            if LLVMIsStringAttribute(a) != 0 {
                LLVMAddAttributeAtIndex(to, idx, a);
            }
        }
    }
}

/// Maps the parameters of `f` to those of its derivative `d`; returns the
/// tangent (forward) and shadow parameters too.
fn map_params(
    f: Value,
    d: Value,
    dup: &[bool],
    mode: Mode,
) -> (HashMap<Value, Value>, HashMap<Value, Value>, HashMap<Value, Value>) {
    let (mut map, mut tan, mut sh) = (HashMap::new(), HashMap::new(), HashMap::new());
    let dparams = ir::params(d);
    let mut k = 0;
    for (n, p) in ir::params(f).into_iter().enumerate() {
        let t = ir::type_of(p);
        map.insert(p, dparams[k]);
        ir::set_name(dparams[k], &ir::name(p));
        k += 1;
        if ir::is_pointer(t) && dup.get(n).copied().unwrap_or(false) {
            sh.insert(p, dparams[k]);
            ir::set_name(dparams[k], &format!("{}.shadow", ir::name(p)));
            k += 1;
        } else if mode == Mode::Forward && ir::is_float(t) {
            tan.insert(p, dparams[k]);
            ir::set_name(dparams[k], &format!("d{}", ir::name(p)));
            k += 1;
        }
    }
    (map, tan, sh)
}

/// Shadows of pointer values, shared by both modes.
struct Shadows {
    sh: HashMap<Value, Value>,
    /// The module's shadow globals, per global (shared by all derivatives).
    globals: ShadowGlobals,
    module: LLVMModuleRef,
}

/// Shadow globals made so far, per global. They are zeroed before each
/// top-level derivative call (not inside derivatives, which also run nested).
pub(crate) type ShadowGlobals = std::rc::Rc<std::cell::RefCell<HashMap<Value, Value>>>;

impl Shadows {
    fn new(sh: HashMap<Value, Value>, module: LLVMModuleRef, globals: ShadowGlobals) -> Shadows {
        Shadows { sh, globals, module }
    }

    /// The shadow of a pointer operand: null stays null.
    fn of(&self, v: Value) -> Value {
        unsafe {
            if !LLVMIsAConstantPointerNull(v).is_null() || !LLVMIsAUndefValue(v).is_null() {
                return v;
            }
            if let Some(s) = self.sh.get(&v) {
                return *s;
            }
            if memory::constant_root(v).is_some() {
                return self.constant_shadow(v);
            }
        }
        panic!("no shadow for {}", ir::print(v))
    }

    /// The shadow of a global, or of constant address arithmetic on one.
    unsafe fn constant_shadow(&self, v: Value) -> Value {
        if !LLVMIsAGlobalVariable(v).is_null() {
            if let Some(s) = self.globals.borrow().get(&v) {
                return *s;
            }
            let t = LLVMGlobalGetValueType(v);
            let name = ir::cstring(&format!("{}.enzyme.shadow", ir::name(v)));
            let s = LLVMAddGlobal(self.module, t, name.as_ptr());
            LLVMSetInitializer(s, LLVMConstNull(t));
            LLVMSetLinkage(s, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
            LLVMSetAlignment(s, LLVMGetAlignment(v));
            self.globals.borrow_mut().insert(v, s);
            return s;
        }
        let base = self.constant_shadow(LLVMGetOperand(v, 0));
        match LLVMGetConstOpcode(v) {
            llvm_sys::LLVMOpcode::LLVMGetElementPtr => {
                let n = ir::operand_count(v);
                let mut idx: Vec<Value> = (1..n).map(|k| ir::operand(v, k)).collect();
                LLVMConstGEP2(LLVMGetGEPSourceElementType(v), base, idx.as_mut_ptr(), idx.len() as u32)
            }
            _ => base,
        }
    }

    /// Creates the shadow of a pointer-valued instruction `i` (already cloned
    /// as `n`) when the analysis says it is shadowed. Stack slots are made by
    /// `alloca_at` (and zeroed there).
    fn make(
        &mut self,
        e: &Emitter,
        i: Value,
        kind: &Kind,
        mem: &Memory,
        map: &HashMap<Value, Value>,
        alloca_at: LLVMBuilderRef,
    ) {
        if !ir::is_pointer(ir::type_of(i)) || mem.status(i) != PtrStatus::Shadowed {
            return;
        }
        let s = unsafe {
            match kind {
                Kind::Gep | Kind::PtrCast => {
                    let mut m = map.clone();
                    m.insert(ir::operand(i, 0), self.of(ir::operand(i, 0)));
                    e.clone_instruction(i, &m)
                }
                Kind::Alloca => {
                    let ty = LLVMGetAllocatedType(i);
                    let count = ir::operand(i, 0);
                    let s = LLVMBuildArrayAlloca(alloca_at, ty, count, c"shadow".as_ptr());
                    LLVMSetAlignment(s, LLVMGetAlignment(i));
                    let i64t = LLVMInt64TypeInContext(e.ctx);
                    let n = LLVMBuildZExtOrBitCast(alloca_at, count, i64t, EMPTY);
                    let size = LLVMBuildMul(alloca_at, LLVMSizeOf(ty), n, EMPTY);
                    let zero = LLVMConstInt(LLVMInt8TypeInContext(e.ctx), 0, 0);
                    LLVMBuildMemSet(alloca_at, s, zero, size, LLVMGetAlignment(i));
                    s
                }
                Kind::Load => e.load_like(ir::type_of(i), self.of(ir::operand(i, 0)), i),
                Kind::Phi => LLVMBuildPhi(e.b, ir::type_of(i), c"shadow".as_ptr()),
                Kind::Realloc => {
                    // A fresh zeroed block; the caller of `make` moves the contents.
                    let malloc = libc_function(self.module, "malloc");
                    let n = map.get(&ir::operand(i, 1)).copied().unwrap_or(ir::operand(i, 1));
                    let s = e.call(malloc, &mut [n]);
                    let zero = LLVMConstInt(LLVMInt8TypeInContext(e.ctx), 0, 0);
                    LLVMBuildMemSet(e.b, s, zero, n, 1);
                    s
                }
                Kind::Alloc(a) => {
                    // The same allocation again, zeroed: the shadow.
                    let s = e.clone_instruction(i, map);
                    ir::set_name(s, "shadow");
                    if !a.zeroed {
                        let zero = LLVMConstInt(LLVMInt8TypeInContext(e.ctx), 0, 0);
                        LLVMBuildMemSet(
                            e.b,
                            s,
                            zero,
                            map.get(&ir::operand(i, 0)).copied().unwrap_or(ir::operand(i, 0)),
                            1,
                        );
                    }
                    s
                }
                Kind::Select => {
                    let c = map[&ir::operand(i, 0)];
                    let a = self.of(ir::operand(i, 1));
                    let b = self.of(ir::operand(i, 2));
                    e.select(c, a, b)
                }
                _ => unreachable!("the analysis shadows only these kinds"),
            }
        };
        self.sh.insert(i, s);
    }

    /// Fills a shadow phi once every incoming shadow exists.
    fn fill_phi(&self, i: Value, cfg: &Cfg, block_of: impl Fn(Block) -> Block) {
        let Some(s) = self.sh.get(&i).copied() else {
            return;
        };
        for (v, b) in ir::incoming(i) {
            if !cfg.reachable(b) {
                continue;
            }
            let mut sv = self.of(v);
            let mut nb = block_of(b);
            unsafe { LLVMAddIncoming(s, &mut sv, &mut nb, 1) };
        }
    }
}

/// State of one forward-mode function being built.
struct Forward<'g> {
    g: &'g mut Generator,
    e: Emitter,
    cfg: Cfg,
    mem: Memory,
    map: HashMap<Value, Value>,
    tan: HashMap<Value, Value>,
    sh: Shadows,
}

impl<'g> Forward<'g> {
    fn build(g: &'g mut Generator, f: Value, dup: &[bool], d: Value) {
        let cfg = Cfg::new(f);
        let mem = memory::analyze(f, &cfg, dup, Mode::Forward, classify);
        let e = Emitter::new(g.module);
        let (map, tan, sh) = map_params(f, d, dup, Mode::Forward);
        // A first block of its own, so the body's entry may be a loop header.
        let prologue_block = e.append_block(d, "prologue");
        let sh = Shadows::new(sh, g.module, g.shadow_globals.clone());
        let mut s = Forward { g, e, cfg, mem, map, tan, sh };
        for b in s.cfg.order.clone() {
            let nb = s.e.append_block(d, "");
            s.map.insert(ir::block_value(b), ir::block_value(nb));
        }
        s.e.at_end(prologue_block);
        s.e.br(s.block(s.cfg.entry()));
        for b in s.cfg.order.clone() {
            s.e.at_end(s.block(b));
            let live = s.cfg.live.contains(&b);
            for i in ir::instructions(b) {
                if live {
                    s.instruction(f, d, i);
                } else {
                    s.map_primal(i);
                }
            }
        }
        s.fill_phis();
    }

    /// Phis get their incoming values once every block exists: values fed
    /// back by a loop's latch are emitted after the header.
    fn fill_phis(&mut self) {
        for b in self.cfg.order.clone() {
            for i in ir::instructions(b) {
                if ir::opcode(i) != llvm_sys::LLVMOpcode::LLVMPHI {
                    break;
                }
                let phi = self.map[&i];
                let tphi = self.tan.get(&i).copied();
                for (v, pb) in ir::incoming(i) {
                    if !self.cfg.reachable(pb) {
                        continue;
                    }
                    let mut nb = self.block(pb);
                    let mut nv = self.val(v);
                    unsafe { LLVMAddIncoming(phi, &mut nv, &mut nb, 1) };
                    if let Some(tp) = tphi {
                        let mut tv = self.tangent(v);
                        unsafe { LLVMAddIncoming(tp, &mut tv, &mut nb, 1) };
                    }
                }
                let map = &self.map;
                self.sh.fill_phi(i, &self.cfg, |b| unsafe { LLVMValueAsBasicBlock(map[&ir::block_value(b)]) });
            }
        }
    }

    fn block(&self, b: Block) -> Block {
        unsafe { LLVMValueAsBasicBlock(self.map[&ir::block_value(b)]) }
    }

    /// A block that never returns (a `throw` path): the primal only.
    fn map_primal(&mut self, i: Value) {
        clone_primal(self.g, &self.e, &mut self.map, i);
    }

    fn val(&self, v: Value) -> Value {
        self.map.get(&v).copied().unwrap_or(v)
    }

    /// Which pointer arguments of a call that stays a call have shadows.
    fn call_mask(&self, i: Value) -> Vec<bool> {
        crate::classify::nested_call_pattern(i, &self.mem).expect("validated")
    }

    fn tangent(&self, v: Value) -> Value {
        self.tan.get(&v).copied().unwrap_or_else(|| self.e.zero(ir::type_of(v)))
    }

    fn instruction(&mut self, f: Value, d: Value, i: Value) {
        let t = ir::type_of(i);
        let kind = classify(i);
        match kind {
            Kind::Phi => unsafe {
                // Incoming values are added by `fill_phis`.
                let phi = LLVMBuildPhi(self.e.b, t, EMPTY);
                ir::set_name(phi, &ir::name(i));
                self.map.insert(i, phi);
                if ir::is_real(t) {
                    self.tan.insert(i, LLVMBuildPhi(self.e.b, t, EMPTY));
                }
                self.sh.make(&self.e, i, &kind, &self.mem, &self.map, self.e.b);
            },
            Kind::Return => unsafe {
                if ir::is_float(ir::return_type(f)) {
                    let v = ir::operand(i, 0);
                    let agg = LLVMGetUndef(LLVMGetReturnType(LLVMGlobalGetValueType(d)));
                    let agg = self.e.insert(agg, self.val(v), 0);
                    let agg = self.e.insert(agg, self.tangent(v), 1);
                    LLVMBuildRet(self.e.b, agg);
                } else {
                    self.e.clone_instruction(i, &self.map);
                }
            },
            // Calls that move tangents (a float result, or shadows the callee writes)
            // go through its derivative; the others are cloned below.
            Kind::Call(callee) if ir::is_float(t) || self.call_mask(i).contains(&true) => {
                let mask = self.call_mask(i);
                let g = self.g.derivative(Mode::Forward, callee, &mask);
                let mut args = Vec::new();
                for k in 0..ir::call_arg_count(i) {
                    let a = ir::operand(i, k);
                    args.push(self.val(a));
                    if mask[k as usize] {
                        args.push(self.sh.of(a));
                    } else if ir::is_float(ir::type_of(a)) {
                        args.push(self.tangent(a));
                    }
                }
                let r = self.e.call(g, &mut args);
                if ir::is_float(t) {
                    self.map.insert(i, self.e.extract(r, 0));
                    self.tan.insert(i, self.e.extract(r, 1));
                } else {
                    // The primal result (or nothing): the callee wrote the shadows.
                    self.map.insert(i, r);
                }
            }
            kind => {
                self.g.remap_callee(i, &mut self.map);
                let n = self.e.clone_instruction(i, &self.map);
                self.map.insert(i, n);
                self.sh.make(&self.e, i, &kind, &self.mem, &self.map, self.e.b);
                self.memory(i, &kind);
                if ir::is_real(t) {
                    if let Some(dv) = self.float_tangent(i, n, &kind) {
                        self.tan.insert(i, dv);
                    }
                }
            }
        }
    }

    /// Tangents through memory: loads read the shadow, stores write it.
    fn memory(&mut self, i: Value, kind: &Kind) {
        let shadowed = |v: Value| self.mem.status(v) == PtrStatus::Shadowed;
        match kind {
            Kind::Load if ir::is_real(ir::type_of(i)) && shadowed(ir::operand(i, 0)) => {
                let t = self.e.load_like(ir::type_of(i), self.sh.of(ir::operand(i, 0)), i);
                self.tan.insert(i, t);
            }
            Kind::Store if shadowed(ir::operand(i, 1)) => {
                let (v, p) = (ir::operand(i, 0), ir::operand(i, 1));
                let vt = ir::type_of(v);
                if ir::is_real(vt) {
                    self.e.store_like(self.tangent(v), self.sh.of(p), i);
                } else if ir::is_pointer(vt) {
                    self.e.store_like(self.sh.of(v), self.sh.of(p), i);
                } else if self.mem.int_stores_clearing.contains(&i) {
                    // Integers written over what may be floats: zero tangent there.
                    self.e.store_like(self.e.zero(vt), self.sh.of(p), i);
                }
            }
            Kind::MemSet if shadowed(ir::operand(i, 0)) => {
                let mut m = self.map.clone();
                m.insert(ir::operand(i, 0), self.sh.of(ir::operand(i, 0)));
                m.insert(ir::operand(i, 1), unsafe { LLVMConstInt(LLVMInt8TypeInContext(self.e.ctx), 0, 0) });
                self.e.clone_instruction(i, &m);
            }
            Kind::Realloc if self.sh.sh.contains_key(&i) => {
                // The primal copied the old contents: so do the tangents.
                let old = ir::operand(i, 0);
                let os = self.sh.of(old);
                let ns = self.sh.sh[&i];
                let n = self.val(ir::operand(i, 1));
                let m = old_block_bytes(&self.e, self.g.module, os, n);
                unsafe { LLVMBuildMemCpy(self.e.b, ns, 1, os, 1, m) };
                // As `realloc` frees the old block, the old shadow goes too.
                let free = libc_function(self.g.module, "free");
                self.e.call(free, &mut [os]);
            }
            Kind::Free if shadowed(ir::operand(i, 0)) => {
                let mut m = self.map.clone();
                m.insert(ir::operand(i, 0), self.sh.of(ir::operand(i, 0)));
                self.e.clone_instruction(i, &m);
            }
            Kind::MemCpy if shadowed(ir::operand(i, 0)) && !shadowed(ir::operand(i, 1)) => {
                // Constants copied in: their tangents are zero.
                let len = self.val(ir::operand(i, 2));
                unsafe {
                    let zero = LLVMConstInt(LLVMInt8TypeInContext(self.e.ctx), 0, 0);
                    LLVMBuildMemSet(self.e.b, self.sh.of(ir::operand(i, 0)), zero, len, 1);
                }
            }
            Kind::MemCpy if shadowed(ir::operand(i, 0)) => {
                let mut m = self.map.clone();
                m.insert(ir::operand(i, 0), self.sh.of(ir::operand(i, 0)));
                m.insert(ir::operand(i, 1), self.sh.of(ir::operand(i, 1)));
                self.e.clone_instruction(i, &m);
            }
            _ => {}
        }
    }

    fn float_tangent(&self, i: Value, n: Value, kind: &Kind) -> Option<Value> {
        let t = ir::type_of(i);
        match kind {
            Kind::Rule(r) => {
                let ops = rule_operands(i, r);
                let args: Vec<Value> = ops.iter().map(|o| self.val(*o)).collect();
                let mut sum: Option<Value> = None;
                for (k, op) in ops.iter().enumerate() {
                    let (Some(partial), Some(dop)) = (&r.partials[k], self.tan.get(op)) else {
                        continue;
                    };
                    if let Some(c) = self.e.scaled_partial(partial, t, &args, &mut || n, *dop) {
                        sum = Some(match sum {
                            Some(s) => self.e.fadd(s, c),
                            None => c,
                        });
                    }
                }
                sum
            }
            Kind::FloatCast => self.tan.get(&ir::operand(i, 0)).map(|d| self.e.convert_float(*d, t)),
            Kind::Identity => self.tan.get(&ir::operand(i, 0)).copied(),
            Kind::Select => {
                let (a, b) = (ir::operand(i, 1), ir::operand(i, 2));
                if self.tan.contains_key(&a) || self.tan.contains_key(&b) {
                    let c = self.val(ir::operand(i, 0));
                    Some(self.e.select(c, self.tangent(a), self.tangent(b)))
                } else {
                    None
                }
            }
            Kind::Load => self.tan.get(&i).copied(),
            Kind::Lanes | Kind::Reduce(_) => {
                let float_ops =
                    (0..ir::operand_count(i)).map(|k| ir::operand(i, k)).filter(|o| ir::is_real(ir::type_of(*o)));
                if !float_ops.clone().any(|o| self.tan.contains_key(&o)) {
                    return None;
                }
                let (val, tan) = (|v| self.val(v), |v| self.tangent(v));
                Some(match kind {
                    Kind::Reduce(op) => crate::lanes::reduce_tangent(&self.e, i, *op, n, val, tan),
                    _ => crate::lanes::linear_tangent(&self.e, i, val, tan),
                })
            }
            _ => None,
        }
    }
}

/// State of one reverse-mode function being built.
struct Reverse<'g> {
    g: &'g mut Generator,
    e: Emitter,
    cfg: Cfg,
    mem: Memory,
    /// Builder parked before the terminator of the slot block.
    slots: LLVMBuilderRef,
    /// The slot block (first block; it dominates everything).
    slot_block: Block,
    /// Primal value in the function being built, per preprocessed value.
    map: HashMap<Value, Value>,
    sh: Shadows,
    fwd: HashMap<Block, Block>,
    rev: HashMap<Block, Block>,
    /// Adjoint slot of each value that received a contribution.
    adj: HashMap<Value, Value>,
    /// Slot caching a forward-sweep value for the reverse sweep.
    cache: HashMap<Value, Value>,
    /// Cached values already loaded in a reverse block.
    loaded: HashMap<(Block, Value), Value>,
    /// Which predecessor a block was entered from (a phi in the forward
    /// sweep), for blocks with several.
    selector: HashMap<Block, Value>,
    /// The primal block of each forward-sweep block.
    prep_block: HashMap<Block, Block>,
    /// Per loop: a slot counting header executions in the forward sweep,
    /// counted back down in the reverse sweep.
    count: Vec<Value>,
    /// Per loop: the instance (header execution) whose reverse is running.
    rev_instance: Vec<Value>,
    /// Per loop: the instance number in the forward sweep (in the header).
    instance: HashMap<usize, Value>,
    /// Per loop: the first instance number of the current entry into the
    /// loop, read in its preheader (saved per entry, not per iteration).
    entry_instance: HashMap<usize, Value>,
    /// Per loop: the tape length its entry needs, when its trip count is
    /// known in the preheader (computed there on first use).
    reserved: HashMap<usize, Option<Value>>,
    /// Tape buffers (slot of the buffer pointer) to free at the end.
    tapes: Vec<Value>,
    /// Instance numbers already loaded in a reverse block.
    loaded_instance: HashMap<(Block, usize), Value>,
    /// The function writes no memory its caller can see.
    inputs_unchanged: bool,
    /// For a split derivative: its coroutine.
    split: Option<Split>,
    /// Per call of a split derivative: its handle (forward sweep) and buffer.
    split_calls: HashMap<Value, (Value, Value, SplitIo)>,
}

/// The coroutine of a split derivative being built.
#[derive(Clone, Copy)]
struct Split {
    /// The [`SplitIo`] buffer parameter and its layout.
    io: Value,
    layout: SplitIo,
    /// Frees the frame, then ends the coroutine.
    cleanup: Block,
    /// Ends the coroutine: returns the handle from the forward part, or
    /// returns from the resumed reverse part.
    end: Block,
}

impl<'g> Reverse<'g> {
    fn build(g: &'g mut Generator, f: Value, dup: &[bool], d: Value, split: bool) {
        let cfg = Cfg::new(f);
        let mem = memory::analyze(f, &cfg, dup, Mode::Reverse, classify);
        let e = Emitter::new(g.module);
        let slot_block = e.append_block(d, "slots");
        let slots = unsafe { LLVMCreateBuilderInContext(e.ctx) };
        let (map, _, sh) = map_params(f, d, dup, Mode::Reverse);
        let g_module = g.module;
        let globals = g.shadow_globals.clone();
        let mut r = Reverse {
            g,
            e,
            cfg,
            mem,
            slots,
            slot_block,
            map,
            sh: Shadows::new(sh, g_module, globals),
            fwd: HashMap::new(),
            rev: HashMap::new(),
            adj: HashMap::new(),
            cache: HashMap::new(),
            loaded: HashMap::new(),
            selector: HashMap::new(),
            prep_block: HashMap::new(),
            count: Vec::new(),
            rev_instance: Vec::new(),
            instance: HashMap::new(),
            tapes: Vec::new(),
            loaded_instance: HashMap::new(),
            inputs_unchanged: false,
            entry_instance: HashMap::new(),
            reserved: HashMap::new(),
            split: None,
            split_calls: HashMap::new(),
        };
        // A split derivative's caller may change memory between its two parts:
        // nothing can be re-read then.
        r.inputs_unchanged = !split && memory::writes_only_local_memory(f, &r.cfg, classify);
        for b in r.cfg.order.clone() {
            let fb = r.e.append_block(d, "fwd");
            r.fwd.insert(b, fb);
            r.prep_block.insert(fb, b);
            r.map.insert(ir::block_value(b), ir::block_value(fb));
        }
        for b in r.cfg.order.clone() {
            let rb = r.e.append_block(d, "rev");
            r.rev.insert(b, rb);
        }
        let nparams = ir::params(d).len();
        let seed = (!split && ir::is_float(ir::return_type(f))).then(|| ir::params(d)[nparams - 1]);
        r.e.at_end(slot_block);
        if split {
            r.split = Some(r.begin_coroutine(f, d));
            r.e.at_end(slot_block);
        }
        r.e.br(r.fwd[&r.cfg.entry()]);
        unsafe {
            LLVMPositionBuilderBefore(r.slots, ir::terminator(slot_block));
            let i64t = LLVMInt64TypeInContext(r.e.ctx);
            for _ in 0..r.cfg.loops.len() {
                let c = LLVMBuildAlloca(r.slots, i64t, c"iterations".as_ptr());
                LLVMBuildStore(r.slots, LLVMConstInt(i64t, 0, 0), c);
                r.count.push(c);
                let v = LLVMBuildAlloca(r.slots, i64t, c"instance".as_ptr());
                r.rev_instance.push(v);
            }
        }

        r.forward_sweep(seed);
        r.fill_phis();
        r.record_loop_entries();
        r.reverse_sweep(f, d);
        unsafe { LLVMDisposeBuilder(r.slots) };
    }

    /// The prologue of a split derivative (frame allocation, in the current
    /// block) and its closing blocks.
    fn begin_coroutine(&mut self, f: Value, d: Value) -> Split {
        unsafe {
            let ctx = self.e.ctx;
            let (i32t, i64t, ptr_t) =
                (LLVMInt32TypeInContext(ctx), LLVMInt64TypeInContext(ctx), LLVMPointerTypeInContext(ctx, 0));
            let null = LLVMConstNull(ptr_t);
            let id = self.e.intrinsic("llvm.coro.id", &[], &mut [LLVMConstInt(i32t, 0, 0), null, null, null]);
            let size = self.e.intrinsic("llvm.coro.size", &[i64t], &mut []);
            let malloc = libc_function(self.g.module, "malloc");
            let mem = self.e.call(malloc, &mut [size]);
            let hdl = self.e.intrinsic("llvm.coro.begin", &[], &mut [id, mem]);
            let cleanup = self.e.append_block(d, "coro.cleanup");
            let end = self.e.append_block(d, "coro.end");
            self.e.at_end(cleanup);
            let frame = self.e.intrinsic("llvm.coro.free", &[], &mut [id, hdl]);
            let free = libc_function(self.g.module, "free");
            self.e.call(free, &mut [frame]);
            self.e.br(end);
            self.e.at_end(end);
            let none = LLVMConstNull(LLVMTokenTypeInContext(ctx));
            self.e.intrinsic("llvm.coro.end", &[], &mut [hdl, LLVMConstInt(LLVMInt1TypeInContext(ctx), 0, 0), none]);
            LLVMBuildRet(self.e.b, hdl);
            let io = *ir::params(d).last().expect("the buffer parameter");
            Split { io, layout: SplitIo::of(ctx, f), cleanup, end }
        }
    }

    /// A `ret` of a split derivative's forward part: the result goes to the
    /// buffer and the coroutine suspends; resumed, it reads the result's
    /// adjoint and goes on to the reverse sweep.
    fn suspend_at_return(&mut self, s: Split, ret: Value, b: Block) {
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
    fn carries_derivatives(&self, i: Value) -> bool {
        let float_arg = (0..ir::call_arg_count(i)).any(|k| ir::is_float(ir::type_of(ir::operand(i, k))));
        ir::is_float(ir::type_of(i))
            || float_arg
            || crate::classify::nested_call_pattern(i, &self.mem).expect("validated").contains(&true)
    }

    /// A call that stays a call, in the forward sweep: the callee's split
    /// derivative runs its forward part now.
    fn call_split(&mut self, i: Value, callee: Value) {
        let mask = crate::classify::nested_call_pattern(i, &self.mem).expect("validated");
        let s = self.g.split_derivative(callee, &mask);
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
    fn reverse_split_call(&mut self, i: Value) {
        let (h, io, layout) = self.split_calls[&i];
        let h = self.fetch(h);
        if let Some(k) = layout.seed {
            let t = ir::type_of(i);
            let d = if unsafe { LLVMGetFirstUse(i).is_null() } {
                self.e.zero(t)
            } else {
                let slot = self.adj_slot(i);
                let d = self.e.load(t, slot);
                self.e.store(self.e.adjoint_zero(t), slot);
                d
            };
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

    fn forward_sweep(&mut self, seed: Option<Value>) {
        for b in self.cfg.order.clone() {
            self.e.at_end(self.fwd[&b]);
            if !self.cfg.live.contains(&b) {
                // Never returns (a `throw` path): the primal only, no reverse.
                for i in ir::instructions(b) {
                    clone_primal(self.g, &self.e, &mut self.map, i);
                }
                continue;
            }
            let mut selector_done = false;
            for i in ir::instructions(b) {
                let is_phi = ir::opcode(i) == llvm_sys::LLVMOpcode::LLVMPHI;
                if !is_phi && !selector_done {
                    // After the phis: which predecessor, and which loop instance.
                    self.record_selector(b);
                    self.count_instance(b);
                    selector_done = true;
                }
                let kind = classify(i);
                match kind {
                    Kind::Phi => unsafe {
                        // Incoming values are added once the sweep is complete.
                        let phi = LLVMBuildPhi(self.e.b, ir::type_of(i), EMPTY);
                        ir::set_name(phi, &ir::name(i));
                        self.map.insert(i, phi);
                        self.sh.make(&self.e, i, &kind, &self.mem, &self.map, self.e.b);
                    },
                    Kind::Return => {
                        if let Some(s) = self.split {
                            self.suspend_at_return(s, i, b);
                            continue;
                        }
                        if let (Some(seed), true) = (seed, ir::operand_count(i) > 0) {
                            self.accumulate(ir::operand(i, 0), seed);
                        }
                        self.e.br(self.rev[&b]);
                    }
                    Kind::Call(callee) if self.carries_derivatives(i) => self.call_split(i, callee),
                    _ => {
                        self.g.remap_callee(i, &mut self.map);
                        let n = self.e.clone_instruction(i, &self.map);
                        self.map.insert(i, n);
                        self.sh.make(&self.e, i, &kind, &self.mem, &self.map, self.slots);
                        // Copies: the pointers among the bytes copy their shadows along
                        // (float bytes' shadows hold adjoints, handled in reverse).
                        if let Kind::MemCpy = kind {
                            self.copy_shadow_pointers(i);
                        }
                        // Pointers stored into shadowed memory: their shadows go into the shadow.
                        if let Kind::Store = kind {
                            let (v, p) = (ir::operand(i, 0), ir::operand(i, 1));
                            if ir::is_pointer(ir::type_of(v)) && self.mem.status(p) == PtrStatus::Shadowed {
                                self.e.store_like(self.sh.of(v), self.sh.of(p), i);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Phi incoming values, once every forward block exists.
    fn fill_phis(&mut self) {
        for b in self.cfg.order.clone() {
            for i in ir::instructions(b) {
                if ir::opcode(i) != llvm_sys::LLVMOpcode::LLVMPHI {
                    break;
                }
                let phi = self.map[&i];
                for (v, pb) in ir::incoming(i) {
                    if !self.cfg.reachable(pb) {
                        continue;
                    }
                    let mut nv = self.map.get(&v).copied().unwrap_or(v);
                    let mut nb = self.fwd[&pb];
                    unsafe { LLVMAddIncoming(phi, &mut nv, &mut nb, 1) };
                }
                let fwd = &self.fwd;
                self.sh.fill_phi(i, &self.cfg, |b| fwd[&b]);
            }
        }
    }

    /// In each loop's preheader, the instance number the entry starts at.
    fn record_loop_entries(&mut self) {
        for l in 0..self.cfg.loops.len() {
            let header = self.cfg.loops[l].header;
            let outside: Vec<Block> =
                self.cfg.preds[&header].iter().copied().filter(|p| !self.cfg.loops[l].blocks.contains(p)).collect();
            let [pre] = outside.as_slice() else { continue };
            if !self.cfg.live.contains(pre) {
                continue;
            }
            unsafe {
                let tmp = LLVMCreateBuilderInContext(self.e.ctx);
                LLVMPositionBuilderBefore(tmp, ir::terminator(self.fwd[pre]));
                let i64t = LLVMInt64TypeInContext(self.e.ctx);
                let v = LLVMBuildLoad2(tmp, i64t, self.count[l], c"entry".as_ptr());
                LLVMDisposeBuilder(tmp);
                self.entry_instance.insert(l, v);
            }
        }
    }

    /// For a counted loop `l`, the tape length that its current entry needs
    /// (first instance + an upper bound of its trip count), computed in its
    /// preheader; `None` when the count is not known on entry.
    fn reservation(&mut self, l: usize) -> Option<Value> {
        if let Some(r) = self.reserved.get(&l) {
            return *r;
        }
        let r = self.compute_reservation(l);
        self.reserved.insert(l, r);
        r
    }

    fn compute_reservation(&mut self, l: usize) -> Option<Value> {
        let entry = *self.entry_instance.get(&l)?;
        let c = crate::trip::counted(&self.cfg, &self.cfg.loops[l])?;
        let width = ir::int_width(ir::type_of(c.start));
        if width > 64 {
            return None;
        }
        let pre = ir::parent_block(entry);
        unsafe {
            let b = LLVMCreateBuilderInContext(self.e.ctx);
            LLVMPositionBuilderBefore(b, ir::terminator(pre));
            let i64t = LLVMInt64TypeInContext(self.e.ctx);
            let widen = |v: Value| {
                if c.unsigned {
                    LLVMBuildZExtOrBitCast(b, v, i64t, EMPTY)
                } else {
                    LLVMBuildSExtOrBitCast(b, v, i64t, EMPTY)
                }
            };
            let s = widen(self.map.get(&c.start).copied().unwrap_or(c.start));
            let e = widen(self.map.get(&c.bound).copied().unwrap_or(c.bound));
            let diff = if c.step > 0 { LLVMBuildSub(b, e, s, EMPTY) } else { LLVMBuildSub(b, s, e, EMPTY) };
            let per = LLVMBuildSDiv(b, diff, LLVMConstInt(i64t, c.step.unsigned_abs(), 0), EMPTY);
            // One more for a test on the next value, one for the last header visit.
            let trip = LLVMBuildAdd(b, per, LLVMConstInt(i64t, 2, 0), EMPTY);
            // Nothing reserved for an empty range or an implausible count (the
            // tape still grows as needed).
            let neg = LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntSLT, diff, LLVMConstInt(i64t, 0, 0), EMPTY);
            let huge =
                LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntUGT, trip, LLVMConstInt(i64t, 1 << 32, 0), EMPTY);
            let skip = LLVMBuildOr(b, neg, huge, EMPTY);
            let trip = LLVMBuildSelect(b, skip, LLVMConstInt(i64t, 0, 0), trip, EMPTY);
            let need = LLVMBuildAdd(b, entry, trip, c"reserve".as_ptr());
            LLVMDisposeBuilder(b);
            Some(need)
        }
    }

    /// The loop whose header is the forward block holding `n`, if `n` is a
    /// phi there.
    fn header_loop_of(&self, n: Value) -> Option<usize> {
        if ir::opcode(n) != llvm_sys::LLVMOpcode::LLVMPHI {
            return None;
        }
        let b = *self.prep_block.get(&ir::parent_block(n))?;
        self.cfg.loops.iter().position(|l| l.header == b)
    }

    /// Which iteration of its current entry the reverse sweep is in, counted
    /// from 0, for loop `l`: `instance - first instance of the entry`.
    fn iteration(&mut self, l: usize) -> Option<Value> {
        let entry = *self.entry_instance.get(&l)?;
        let start = self.fetch(entry);
        let now = self.rev_instance_here(l);
        Some(unsafe { LLVMBuildSub(self.e.b, now, start, c"iteration".as_ptr()) })
    }

    /// An induction variable `i = start + step * k` (a header phi fed back
    /// `i + step` by the latch) in iteration `k`, computed instead of taped.
    fn induction_value(&mut self, n: Value) -> Option<Value> {
        let l = self.header_loop_of(n)?;
        let t = ir::type_of(n);
        if !ir::is_int(t) {
            return None;
        }
        let lp = &self.cfg.loops[l];
        let (mut start, mut next) = (None, None);
        for (v, b) in ir::incoming(n) {
            let pb = *self.prep_block.get(&b)?;
            if lp.blocks.contains(&pb) {
                next = Some(v);
            } else {
                start = Some(v);
            }
        }
        let (start, next) = (start?, next?);
        if ir::opcode(next) != llvm_sys::LLVMOpcode::LLVMAdd {
            return None;
        }
        let (a, b) = (ir::operand(next, 0), ir::operand(next, 1));
        let step = match (a == n, b == n) {
            (true, false) => b,
            (false, true) => a,
            _ => return None,
        };
        if unsafe { LLVMIsAConstantInt(step).is_null() } {
            return None;
        }
        let k = self.iteration(l)?;
        let s = self.fetch(start);
        unsafe {
            let k = LLVMBuildTruncOrBitCast(self.e.b, k, t, EMPTY);
            let off = LLVMBuildMul(self.e.b, k, step, EMPTY);
            Some(LLVMBuildAdd(self.e.b, s, off, c"induction".as_ptr()))
        }
    }

    /// In a loop header: number this execution (the instance), for the tape.
    fn count_instance(&mut self, b: Block) {
        let Some(l) = self.cfg.loops.iter().position(|l| l.header == b) else { return };
        unsafe {
            let i64t = LLVMInt64TypeInContext(self.e.ctx);
            let id = LLVMBuildLoad2(self.e.b, i64t, self.count[l], c"instance".as_ptr());
            let next = LLVMBuildAdd(self.e.b, id, LLVMConstInt(i64t, 1, 0), EMPTY);
            LLVMBuildStore(self.e.b, next, self.count[l]);
            self.instance.insert(l, id);
        }
    }

    /// In a block with several predecessors, records which one we came from.
    fn record_selector(&mut self, b: Block) {
        if self.cfg.preds[&b].len() <= 1 {
            return;
        }
        let preds = self.cfg.preds[&b].clone();
        unsafe {
            let i32t = LLVMInt32TypeInContext(self.e.ctx);
            let phi = LLVMBuildPhi(self.e.b, i32t, c"from".as_ptr());
            for (k, p) in preds.iter().enumerate() {
                // One phi entry per edge, so duplicate edges (switch cases) are counted.
                let edges = ir::successors(ir::terminator(*p)).into_iter().filter(|s| *s == b).count();
                for _ in 0..edges {
                    let mut v = LLVMConstInt(i32t, k as u64, 0);
                    let mut nb = self.fwd[p];
                    LLVMAddIncoming(phi, &mut v, &mut nb, 1);
                }
            }
            self.selector.insert(b, phi);
        }
    }

    fn reverse_sweep(&mut self, f: Value, d: Value) {
        for b in self.cfg.order.clone().into_iter().rev() {
            self.e.at_end(self.rev[&b]);
            if !self.cfg.live.contains(&b) {
                unsafe { LLVMBuildUnreachable(self.e.b) };
                continue;
            }
            for i in ir::instructions(b).into_iter().rev() {
                let op = ir::opcode(i);
                if op == llvm_sys::LLVMOpcode::LLVMPHI || i == ir::terminator(b) {
                    continue;
                }
                self.reverse_instruction(i);
            }
            if b == self.cfg.entry() {
                self.return_adjoints(f, d);
                continue;
            }
            let preds = self.cfg.preds[&b].clone();
            if preds.len() == 1 {
                self.reverse_edge(b, preds[0]);
                continue;
            }
            unsafe {
                let i32t = LLVMInt32TypeInContext(self.e.ctx);
                let from = self.header_selector(b).unwrap_or_else(|| self.fetch(self.selector[&b]));
                let edges: Vec<Block> = preds.iter().map(|_| self.e.append_block(d, "edge")).collect();
                let sw = LLVMBuildSwitch(self.e.b, from, edges[0], (edges.len() - 1) as u32);
                for (k, eb) in edges.iter().enumerate().skip(1) {
                    LLVMAddCase(sw, LLVMConstInt(i32t, k as u64, 0), *eb);
                }
                for (k, p) in preds.iter().enumerate() {
                    self.e.at_end(edges[k]);
                    self.reverse_edge(b, *p);
                }
            }
        }
    }

    /// Forward sweep of a copy between shadowed memory: shadow pointers
    /// among the copied bytes are copied too.
    fn copy_shadow_pointers(&mut self, i: Value) {
        let (dst, src) = (ir::operand(i, 0), ir::operand(i, 1));
        if self.mem.status(dst) != PtrStatus::Shadowed || self.mem.status(src) != PtrStatus::Shadowed {
            return;
        }
        let layout = memory::copy_layout(i, memory::data_layout(ir::parent_function(i))).expect("validated");
        let (sd, ss) = (self.sh.of(dst), self.sh.of(src));
        match layout {
            CopyLayout::Uniform(Elem::Ptr) => {
                let mut m = self.map.clone();
                m.insert(dst, sd);
                m.insert(src, ss);
                self.e.clone_instruction(i, &m);
            }
            CopyLayout::Uniform(_) => {}
            CopyLayout::Fields(fields) => {
                for (off, size, elem) in fields {
                    if elem == Elem::Ptr {
                        let (d, s) = (self.e.byte_offset(sd, off), self.e.byte_offset(ss, off));
                        self.e.memcpy(d, s, size);
                    }
                }
            }
        }
    }

    /// Reverse of a copy between shadowed memory: the adjoints of the copied
    /// floats move from the destination's shadow to the source's.
    fn move_copied_adjoints(&mut self, i: Value) {
        let layout = memory::copy_layout(i, memory::data_layout(ir::parent_function(i))).expect("validated");
        let (sd, ss) = (self.shadow(ir::operand(i, 0)), self.shadow(ir::operand(i, 1)));
        let i64t = unsafe { LLVMInt64TypeInContext(self.e.ctx) };
        match layout {
            CopyLayout::Uniform(elem @ (Elem::F32 | Elem::F64)) => {
                let len = self.primal(ir::operand(i, 2));
                let n = unsafe { LLVMBuildUDiv(self.e.b, len, LLVMConstInt(i64t, elem.size(), 0), EMPTY) };
                let helper = adjoint_move_function(self.g.module, elem);
                self.e.call(helper, &mut [sd, ss, n]);
            }
            CopyLayout::Uniform(_) => {}
            CopyLayout::Fields(fields) => {
                for (off, size, elem) in fields {
                    if matches!(elem, Elem::F32 | Elem::F64) {
                        let (d, s) = (self.e.byte_offset(sd, off), self.e.byte_offset(ss, off));
                        let n = unsafe { LLVMConstInt(i64t, size / elem.size(), 0) };
                        let helper = adjoint_move_function(self.g.module, elem);
                        self.e.call(helper, &mut [d, s, n]);
                    }
                }
            }
        }
    }

    /// In a loop header, which predecessor we came from follows from the
    /// iteration: the first came from outside the loop, the others from the latch.
    fn header_selector(&mut self, b: Block) -> Option<Value> {
        let l = self.cfg.loops.iter().position(|l| l.header == b)?;
        let preds = self.cfg.preds[&b].clone();
        if preds.len() != 2 {
            return None;
        }
        let inside = |p: &Block| self.cfg.loops[l].blocks.contains(p);
        let outside_index = preds.iter().position(|p| !inside(p))? as u64;
        let latch_index = preds.iter().position(inside)? as u64;
        let k = self.iteration(l)?;
        unsafe {
            let i32t = LLVMInt32TypeInContext(self.e.ctx);
            let first = LLVMBuildICmp(
                self.e.b,
                llvm_sys::LLVMIntPredicate::LLVMIntEQ,
                k,
                LLVMConstInt(LLVMTypeOf(k), 0, 0),
                EMPTY,
            );
            Some(LLVMBuildSelect(
                self.e.b,
                first,
                LLVMConstInt(i32t, outside_index, 0),
                LLVMConstInt(i32t, latch_index, 0),
                EMPTY,
            ))
        }
    }

    /// Leaves the reverse of `b` for the reverse of its predecessor `pred`:
    /// phi adjoints flow along the edge, and crossing a loop's back edge or
    /// exit edge backwards starts the reverse of the previous instance.
    fn reverse_edge(&mut self, b: Block, pred: Block) {
        self.phi_adjoints(b, pred);
        for l in 0..self.cfg.loops.len() {
            let lp = &self.cfg.loops[l];
            let back = lp.header == b && lp.blocks.contains(&pred);
            let exit = lp.blocks.contains(&pred) && !lp.blocks.contains(&b);
            if back || exit {
                unsafe {
                    let i64t = LLVMInt64TypeInContext(self.e.ctx);
                    let c = LLVMBuildLoad2(self.e.b, i64t, self.count[l], EMPTY);
                    let prev = LLVMBuildSub(self.e.b, c, LLVMConstInt(i64t, 1, 0), EMPTY);
                    LLVMBuildStore(self.e.b, prev, self.count[l]);
                    LLVMBuildStore(self.e.b, prev, self.rev_instance[l]);
                }
            }
        }
        self.e.br(self.rev[&pred]);
    }

    fn return_adjoints(&mut self, f: Value, d: Value) {
        unsafe {
            let free = libc_function(self.g.module, "free");
            for t in self.tapes.clone() {
                let buf = LLVMBuildLoad2(self.e.b, LLVMPointerTypeInContext(self.e.ctx, 0), t, EMPTY);
                self.e.call(free, &mut [buf]);
            }
            let rt = LLVMGetReturnType(LLVMGlobalGetValueType(d));
            let mut agg = LLVMGetUndef(rt);
            let mut k = 0;
            for p in ir::params(f) {
                let t = ir::type_of(p);
                if !ir::is_float(t) {
                    continue;
                }
                let v = match self.adj.get(&p) {
                    // `+ 0.0` turns the accumulator's starting -0.0 (see
                    // `Emitter::adjoint_zero`) into the +0.0 users expect, and
                    // leaves every other value as it is.
                    Some(s) => {
                        let v = self.e.load(t, *s);
                        self.e.add(v, self.e.zero(t))
                    }
                    None => self.e.zero(t),
                };
                match self.split {
                    // A split derivative hands them over in the buffer.
                    Some(s) => self.e.store(v, s.layout.field(&self.e, s.io, s.layout.adjoints + k)),
                    None => agg = self.e.insert(agg, v, k),
                }
                k += 1;
            }
            match self.split {
                Some(s) => self.e.br(s.cleanup),
                None => {
                    LLVMBuildRet(self.e.b, agg);
                }
            }
        }
    }

    /// Adjoints of `b`'s phis flow to the values coming in from `pred`.
    fn phi_adjoints(&mut self, b: Block, pred: Block) {
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
            self.accumulate(v, dphi);
        }
    }

    fn reverse_instruction(&mut self, i: Value) {
        let kind = classify(i);
        // Memory effects first: they do not depend on the instruction's own adjoint.
        match kind {
            Kind::Call(_) if self.split_calls.contains_key(&i) => {
                self.reverse_split_call(i);
                return;
            }
            Kind::Store => {
                let (v, p) = (ir::operand(i, 0), ir::operand(i, 1));
                if ir::is_real(ir::type_of(v)) && self.mem.status(p) == PtrStatus::Shadowed {
                    // The stored value's adjoint is what accumulated at its location;
                    // the location then holds a value that no longer counts.
                    let sp = self.shadow(p);
                    let t = ir::type_of(v);
                    let dv = self.e.load_like(t, sp, i);
                    self.e.store_like(self.e.zero(t), sp, i);
                    self.accumulate(v, dv);
                } else if self.mem.int_stores_clearing.contains(&i) {
                    // Integers written over what may have been floats: their adjoints are dropped.
                    let sp = self.shadow(p);
                    self.e.store_like(self.e.zero(ir::type_of(v)), sp, i);
                }
                return;
            }
            Kind::MemCpy => {
                let (dst, src) = (ir::operand(i, 0), ir::operand(i, 1));
                match (self.mem.status(dst), self.mem.status(src)) {
                    (PtrStatus::Shadowed, PtrStatus::Shadowed) => self.move_copied_adjoints(i),
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
                    if let Some(Some(elem)) = memory::realloc_elem(i) {
                        let n = self.primal(ir::operand(i, 1));
                        let m = old_block_bytes(&self.e, self.g.module, os, n);
                        let i64t = unsafe { LLVMInt64TypeInContext(self.e.ctx) };
                        let count = unsafe { LLVMBuildUDiv(self.e.b, m, LLVMConstInt(i64t, elem.size(), 0), EMPTY) };
                        let helper = adjoint_move_function(self.g.module, elem);
                        self.e.call(helper, &mut [ns, os, count]);
                    }
                    let free = libc_function(self.g.module, "free");
                    self.e.call(free, &mut [ns]);
                }
                return;
            }
            Kind::Alloc(a) => {
                // Reverse of an allocation: every use of the shadow is behind us.
                if self.sh.sh.contains_key(&i) {
                    let s = self.shadow(i);
                    let free = libc_function(self.g.module, a.free);
                    self.e.call(free, &mut [s]);
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
        let slot = self.adj_slot(i);
        let d = self.e.load(t, slot);
        // Cleared, so an earlier loop instance of `i` starts from zero.
        self.e.store(self.e.adjoint_zero(t), slot);
        match kind {
            Kind::Rule(r) => {
                let ops = rule_operands(i, r);
                // Adjoints flow only into operands that vary with the inputs.
                let active: Vec<bool> =
                    ops.iter().map(|o| carries_adjoint(*o) && self.mem.varied.contains(o)).collect();
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
                for (k, op) in ops.iter().enumerate() {
                    let Some(partial) = &r.partials[k] else {
                        continue;
                    };
                    if !active[k] {
                        continue;
                    }
                    let mut res = || result.expect("result computed when a partial uses it");
                    if let Some(c) = self.e.scaled_partial(partial, t, &args, &mut res, d) {
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
                    crate::lanes::primals_needed(i, &kind).into_iter().map(|v| (v, self.primal(v))).collect();
                let primal = |v: Value| needed[&v];
                let parts = match kind {
                    Kind::Reduce(op) => crate::lanes::reduce_adjoints(&self.e, i, op, d, primal),
                    _ => crate::lanes::lanes_adjoints(&self.e, i, d, primal),
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
                if self.mem.status(p) == PtrStatus::Shadowed {
                    let sp = self.shadow(p);
                    let old = self.e.load_like(t, sp, i);
                    let new = self.e.add(old, d);
                    self.e.store_like(new, sp, i);
                }
            }
            Kind::Inactive
            | Kind::Call(_)
            | Kind::Phi
            | Kind::Return
            | Kind::Store
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

    /// A forward-sweep value at the current point of the reverse sweep.
    ///
    /// Values from the slot block and the forward entry block are used as
    /// they are (those blocks dominate the reverse sweep). Others are saved
    /// at the end of their block: in a stack slot outside loops, on a tape
    /// indexed by the loop instance inside a loop.
    fn fetch(&mut self, n: Value) -> Value {
        self.fetch_at_depth(n, 0)
    }

    /// Constants, arguments and values of the slot block or the forward
    /// entry block: they dominate the reverse sweep, so it uses them as they are.
    fn available_as_is(&self, v: Value) -> bool {
        !ir::is_instruction(v) || [self.slot_block, self.fwd[&self.cfg.entry()]].contains(&ir::parent_block(v))
    }

    fn fetch_at_depth(&mut self, n: Value, depth: u32) -> Value {
        if self.available_as_is(n) {
            return n;
        }
        let here = self.e.current_block();
        if let Some(x) = self.loaded.get(&(here, n)) {
            return *x;
        }
        if let Some(x) = self.induction_value(n) {
            self.loaded.insert((here, n), x);
            return x;
        }
        if depth < 6 && (recomputable(n) || self.rereadable(n) || self.float_recomputable(n)) {
            // Cheaper to compute again from its operands than to keep on a tape.
            let ops: Vec<Value> =
                (0..ir::operand_count(n)).map(|k| self.fetch_at_depth(ir::operand(n, k), depth + 1)).collect();
            let x = unsafe {
                let x = LLVMInstructionClone(n);
                LLVMInsertIntoBuilder(self.e.b, x);
                for (k, o) in ops.into_iter().enumerate() {
                    LLVMSetOperand(x, k as u32, o);
                }
                x
            };
            self.loaded.insert((here, n), x);
            return x;
        }
        let t = ir::type_of(n);
        let block = self.prep_block[&ir::parent_block(n)];
        let x = match self.cfg.innermost.get(&block).copied() {
            None => {
                let slot = match self.cache.get(&n) {
                    Some(s) => *s,
                    None => unsafe {
                        let s = LLVMBuildAlloca(self.slots, t, c"cache".as_ptr());
                        let tmp = LLVMCreateBuilderInContext(self.e.ctx);
                        LLVMPositionBuilderBefore(tmp, ir::terminator(ir::parent_block(n)));
                        LLVMBuildStore(tmp, n, s);
                        LLVMDisposeBuilder(tmp);
                        self.cache.insert(n, s);
                        s
                    },
                };
                self.e.load(t, slot)
            }
            Some(l) => {
                let tape = match self.cache.get(&n) {
                    Some(s) => *s,
                    None => self.new_tape(n, l),
                };
                let id = self.rev_instance_here(l);
                unsafe {
                    let buf = LLVMBuildLoad2(self.e.b, LLVMPointerTypeInContext(self.e.ctx, 0), tape, EMPTY);
                    let mut idx = [id];
                    let p = LLVMBuildGEP2(self.e.b, t, buf, idx.as_mut_ptr(), 1, EMPTY);
                    let x = self.e.load(t, p);
                    LLVMSetAlignment(x, tape_alignment(self.g.module, t));
                    x
                }
            }
        };
        self.loaded.insert((here, n), x);
        x
    }

    /// A cheap float operation (`fadd`, `fsub`, `fmul`, `fneg`) worth
    /// computing again in the reverse sweep rather than taping: at most one of
    /// its distinct operands costs anything to fetch, so recomputing never
    /// keeps more values than taping `n` would (`u * u` keeps `u`, which the
    /// partials of `u`'s other uses usually need anyway). The result is the
    /// same bits: the instruction is cloned with its flags.
    fn float_recomputable(&self, n: Value) -> bool {
        use llvm_sys::LLVMOpcode::*;
        if !matches!(ir::opcode(n), LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFNeg) || self.cache.contains_key(&n) {
            return false;
        }
        let mut costly: Vec<Value> = Vec::new();
        for k in 0..ir::operand_count(n) {
            let o = ir::operand(n, k);
            let free = self.available_as_is(o) || self.cache.contains_key(&o) || recomputable(o);
            if !free && !costly.contains(&o) {
                costly.push(o);
            }
        }
        costly.len() <= 1
    }

    /// A load from the caller's memory (an argument's or a global's) when the
    /// function writes none: the value is still there in the reverse sweep.
    fn rereadable(&self, n: Value) -> bool {
        if !self.inputs_unchanged || ir::opcode(n) != llvm_sys::LLVMOpcode::LLVMLoad {
            return false;
        }
        let root = memory::root_of(ir::operand(n, 0));
        unsafe { ir::is_argument(root) || !LLVMIsAGlobalVariable(root).is_null() }
    }

    /// The instance of loop `l` being reversed, loaded once per reverse block.
    fn rev_instance_here(&mut self, l: usize) -> Value {
        let here = self.e.current_block();
        if let Some(v) = self.loaded_instance.get(&(here, l)) {
            return *v;
        }
        let v = unsafe {
            LLVMBuildLoad2(self.e.b, LLVMInt64TypeInContext(self.e.ctx), self.rev_instance[l], c"instance".as_ptr())
        };
        self.loaded_instance.insert((here, l), v);
        v
    }

    /// A tape for forward value `n` of loop `l`: each instance of the loop
    /// writes `n` at its instance number, growing the buffer as needed.
    fn new_tape(&mut self, n: Value, l: usize) -> Value {
        unsafe {
            let ctx = self.e.ctx;
            let ptr_t = LLVMPointerTypeInContext(ctx, 0);
            let i64t = LLVMInt64TypeInContext(ctx);
            let t = ir::type_of(n);
            let buf_slot = LLVMBuildAlloca(self.slots, ptr_t, c"tape".as_ptr());
            LLVMBuildStore(self.slots, LLVMConstNull(ptr_t), buf_slot);
            let cap_slot = LLVMBuildAlloca(self.slots, i64t, c"tape.cap".as_ptr());
            LLVMBuildStore(self.slots, LLVMConstInt(i64t, 0, 0), cap_slot);
            let grow = tape_grow_function(self.g.module);
            if let Some(need) = self.reservation(l) {
                // Sized once on entry to the loop, so its iterations need not grow it.
                let pre = LLVMCreateBuilderInContext(ctx);
                LLVMPositionBuilderBefore(pre, ir::terminator(ir::parent_block(need)));
                let mut args = [buf_slot, cap_slot, need, LLVMSizeOf(t)];
                LLVMBuildCall2(pre, ir::function_type(grow), grow, args.as_mut_ptr(), 4, EMPTY);
                LLVMDisposeBuilder(pre);
            }
            let tmp = LLVMCreateBuilderInContext(ctx);
            LLVMPositionBuilderBefore(tmp, ir::terminator(ir::parent_block(n)));
            let id = self.instance[&l];
            let need = LLVMBuildAdd(tmp, id, LLVMConstInt(i64t, 1, 0), EMPTY);
            let mut args = [buf_slot, cap_slot, need, LLVMSizeOf(t)];
            let buf = LLVMBuildCall2(tmp, ir::function_type(grow), grow, args.as_mut_ptr(), 4, EMPTY);
            let mut idx = [id];
            let p = LLVMBuildGEP2(tmp, t, buf, idx.as_mut_ptr(), 1, EMPTY);
            let s = LLVMBuildStore(tmp, n, p);
            LLVMSetAlignment(s, tape_alignment(self.g.module, t));
            LLVMDisposeBuilder(tmp);
            self.cache.insert(n, buf_slot);
            self.tapes.push(buf_slot);
            buf_slot
        }
    }

    /// The primal value of `v` at the current point of the reverse sweep.
    fn primal(&mut self, v: Value) -> Value {
        let n = self.map.get(&v).copied().unwrap_or(v);
        self.fetch(n)
    }

    /// The shadow of pointer `v` at the current point of the reverse sweep.
    fn shadow(&mut self, v: Value) -> Value {
        let s = self.sh.of(v);
        self.fetch(s)
    }

    /// The adjoint slot of `v`, made (zeroed) on first use.
    fn adj_slot(&mut self, v: Value) -> Value {
        if let Some(s) = self.adj.get(&v) {
            return *s;
        }
        let t = ir::type_of(v);
        unsafe {
            let s = LLVMBuildAlloca(self.slots, t, c"adj".as_ptr());
            LLVMBuildStore(self.slots, crate::emit::adjoint_zero(t), s);
            self.adj.insert(v, s);
            s
        }
    }

    /// `v̄ += delta` at the current point.
    fn accumulate(&mut self, v: Value, delta: Value) {
        if !carries_adjoint(v) {
            return;
        }
        let t = ir::type_of(v);
        let slot = self.adj_slot(v);
        let old = self.e.load(t, slot);
        let new = self.e.add(old, delta);
        self.e.store(new, slot);
    }
}

/// Clones primal instruction `i` at the builder's position, recording it in
/// `map`; phis are made empty (their incoming values are added later).
fn clone_primal(g: &Generator, e: &Emitter, map: &mut HashMap<Value, Value>, i: Value) {
    let n = if ir::opcode(i) == llvm_sys::LLVMOpcode::LLVMPHI {
        unsafe { LLVMBuildPhi(e.b, ir::type_of(i), EMPTY) }
    } else {
        g.remap_callee(i, map);
        e.clone_instruction(i, map)
    };
    map.insert(i, n);
}

/// Pure integer and address arithmetic: recomputed in the reverse sweep from
/// its (fetched) operands instead of being saved.
fn recomputable(n: Value) -> bool {
    use llvm_sys::LLVMOpcode::*;
    let t = ir::type_of(n);
    let scalar = ir::is_int(t) || ir::is_pointer(t);
    scalar
        && matches!(
            ir::opcode(n),
            LLVMGetElementPtr
                | LLVMBitCast
                | LLVMAddrSpaceCast
                | LLVMAdd
                | LLVMSub
                | LLVMMul
                | LLVMShl
                | LLVMAnd
                | LLVMOr
                | LLVMXor
                | LLVMZExt
                | LLVMSExt
                | LLVMTrunc
                | LLVMICmp
        )
}

/// The alignment of tape entries of type `t`: their own, but no more than
/// what `malloc`/`realloc` guarantee for the buffer (a `<4 x double>` wants 32).
fn tape_alignment(module: LLVMModuleRef, t: Type) -> u32 {
    unsafe { llvm_sys::target::LLVMABIAlignmentOfType(llvm_sys::target::LLVMGetModuleDataLayout(module), t).min(16) }
}

/// Only float instructions and arguments have adjoints; constants do not.
fn carries_adjoint(v: Value) -> bool {
    (ir::is_instruction(v) || ir::is_argument(v)) && ir::is_real(ir::type_of(v))
}

/// How many bytes `realloc` carried over from the old block: at most the new
/// size, at most what the old shadow block can hold (`malloc_usable_size`;
/// zero for null).
fn old_block_bytes(e: &Emitter, module: LLVMModuleRef, old_shadow: Value, new_size: Value) -> Value {
    unsafe {
        let usable_fn = libc_function(module, "malloc_usable_size");
        let usable = e.call(usable_fn, &mut [old_shadow]);
        let smaller = LLVMBuildICmp(e.b, llvm_sys::LLVMIntPredicate::LLVMIntULT, usable, new_size, EMPTY);
        LLVMBuildSelect(e.b, smaller, usable, new_size, EMPTY)
    }
}
