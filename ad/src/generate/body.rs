//! Building blocks shared by forward and reverse mode: the parameters of a
//! derivative, shadows of pointers (and shadow globals), cloning primal
//! instructions, and the buffer a split derivative exchanges with its caller.

use std::collections::HashMap;

use llvm_sys::core::*;
use llvm_sys::prelude::*;

use crate::analysis::memory::{self, Memory, PtrStatus};
use crate::build::emit::Emitter;
use crate::build::runtime::libc_function;
use crate::calls::classify::Kind;
use crate::ir::cfg::Cfg;
use crate::ir::{self, Block, Type, Value};
use crate::surface::request::{Derivatives, Mode, ShadowGlobals};

pub(crate) const EMPTY: *const std::ffi::c_char = c"".as_ptr();

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
    /// The address of the list of freed shadows the outermost derivative
    /// frees at its end (see `freed_shadows`), written by the caller.
    pub freed: u32,
    /// Split forward mode: the address of the [`ReplayIo`] buffer when the
    /// coroutine is resumed for its tangent sweep, null for its reverse sweep.
    pub replay: u32,
    /// `__enzyme_reverse`: the address of the shadows its reverse sweep is
    /// to use (the derivative's shadow parameters, in order), written before
    /// resumption; null: the ones the forward part was given.
    pub shadows: u32,
}

impl SplitIo {
    pub(crate) fn of(ctx: LLVMContextRef, f: Value) -> SplitIo {
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
        let freed = fields.len() as u32;
        let ptr = unsafe { llvm_sys::core::LLVMPointerTypeInContext(ctx, 0) };
        fields.push(ptr);
        let replay = fields.len() as u32;
        fields.push(ptr);
        let shadows = fields.len() as u32;
        fields.push(ptr);
        SplitIo { ty: struct_type(ctx, &fields), result, seed, adjoints, freed, replay, shadows }
    }

    /// The address of field `k` in buffer `io`.
    pub(crate) fn field(&self, e: &Emitter, io: Value, k: u32) -> Value {
        unsafe { LLVMBuildStructGEP2(e.b, self.ty, io, k, EMPTY) }
    }
}

/// What the caller of a split derivative's tangent sweep (`__enzyme_fwdsplit`)
/// and the sweep exchange: `{ result's tangent?, per parameter: its tangent
/// (floats) or shadow (duplicated pointers)... }`.
pub(crate) struct ReplayIo {
    pub ty: Type,
    /// The result's tangent (float results), written by the sweep.
    pub result: Option<u32>,
    /// Per parameter of the function: the field of its tangent or shadow.
    pub params: Vec<Option<u32>>,
}

impl ReplayIo {
    pub(crate) fn of(ctx: LLVMContextRef, f: Value, dup: &[bool]) -> ReplayIo {
        let ret = ir::return_type(f);
        let mut fields = Vec::new();
        let result = ir::is_float(ret).then(|| {
            fields.push(ret);
            0
        });
        let mut params = Vec::new();
        for (k, p) in ir::params(f).into_iter().enumerate() {
            let t = ir::type_of(p);
            let carried = ir::is_float(t) || (ir::is_pointer(t) && dup.get(k).copied().unwrap_or(false));
            params.push(carried.then(|| {
                fields.push(t);
                fields.len() as u32 - 1
            }));
        }
        ReplayIo { ty: struct_type(ctx, &fields), result, params }
    }

    /// The address of field `k` in buffer `io`.
    pub(crate) fn field(&self, e: &Emitter, io: Value, k: u32) -> Value {
        unsafe { LLVMBuildStructGEP2(e.b, self.ty, io, k, EMPTY) }
    }
}

pub(crate) fn struct_type(ctx: LLVMContextRef, elems: &[Type]) -> Type {
    let mut e = elems.to_vec();
    unsafe { LLVMStructTypeInContext(ctx, e.as_mut_ptr(), e.len() as u32, 0) }
}

/// The parameters of a derivative: primal values, and per lane (vector
/// mode has `width` lanes) the tangents (forward) and shadows.
pub(crate) struct Params {
    pub map: HashMap<Value, Value>,
    pub tan: Vec<HashMap<Value, Value>>,
    pub sh: Vec<HashMap<Value, Value>>,
}

/// Maps the parameters of `f` to those of its derivative `d`: each
/// parameter is followed by `width` shadows (duplicated pointers) or, in
/// forward mode, `width` tangents (floats).
pub(crate) fn map_params(f: Value, d: Value, dup: &[bool], mode: Mode, width: u32) -> Params {
    let lanes = width as usize;
    let mut out = Params { map: HashMap::new(), tan: vec![HashMap::new(); lanes], sh: vec![HashMap::new(); lanes] };
    let dparams = ir::params(d);
    let mut k = 0;
    let suffix = |lane: usize| if lanes == 1 { String::new() } else { format!(".{lane}") };
    for (n, p) in ir::params(f).into_iter().enumerate() {
        let t = ir::type_of(p);
        out.map.insert(p, dparams[k]);
        ir::set_name(dparams[k], &ir::name(p));
        k += 1;
        if ir::is_pointer(t) && dup.get(n).copied().unwrap_or(false) {
            for lane in 0..lanes {
                out.sh[lane].insert(p, dparams[k]);
                ir::set_name(dparams[k], &format!("{}.shadow{}", ir::name(p), suffix(lane)));
                k += 1;
            }
        } else if mode == Mode::Forward && ir::is_float(t) {
            for lane in 0..lanes {
                out.tan[lane].insert(p, dparams[k]);
                ir::set_name(dparams[k], &format!("d{}{}", ir::name(p), suffix(lane)));
                k += 1;
            }
        }
    }
    out
}

/// Vector mode's lanes in a derivative being built: the builder works on
/// the current lane's maps (tangents, shadows, adjoints) in its own fields;
/// the other lanes' maps are stored aside and exchanged on a switch.
pub(crate) trait Lanes: Sized {
    /// The number of lanes (the width).
    fn lane_count(&self) -> usize;
    /// The lane whose maps are in the builder's fields.
    fn current_lane(&self) -> usize;
    /// Exchanges the builder's fields with lane `lane`'s stored maps.
    fn exchange(&mut self, lane: usize);
    /// Records which lane is current.
    fn note_current(&mut self, lane: usize);

    /// Makes `lane`'s maps the current ones.
    fn set_lane(&mut self, lane: usize) {
        let current = self.current_lane();
        if lane != current {
            self.exchange(current);
            self.exchange(lane);
            self.note_current(lane);
        }
    }

    /// Runs `f` once per lane, with that lane current; lane 0 after.
    fn each_lane(&mut self, mut f: impl FnMut(&mut Self)) {
        for lane in 0..self.lane_count() {
            self.set_lane(lane);
            f(self);
        }
        self.set_lane(0);
    }
}

/// Shadows of pointer values, shared by both modes.
pub(crate) struct Shadows {
    pub(crate) sh: HashMap<Value, Value>,
    /// The module's shadow globals, per global (shared by all derivatives).
    pub(crate) globals: ShadowGlobals,
    pub(crate) module: LLVMModuleRef,
    /// Which derivative lane these shadows are of (vector mode).
    pub(crate) lane: u32,
    /// Run-time activity: constant pointers that are their own shadows
    /// (see `memory`).
    pub(crate) own: std::collections::HashSet<Value>,
    /// The `malloc` blocks whose shadows come from the pool of kept buffers
    /// when large (reverse mode, which ends them: see `tape_buffer`).
    pub(crate) pooled: std::collections::HashSet<Value>,
    /// Forward mode: where the primal frees a block with `free`, its
    /// shadow goes to the pool (which frees what it does not keep).
    pub(crate) pool_frees: bool,
}

impl Shadows {
    pub(crate) fn new(sh: HashMap<Value, Value>, module: LLVMModuleRef, globals: ShadowGlobals, lane: u32) -> Shadows {
        Shadows { sh, globals, module, lane, own: Default::default(), pooled: Default::default(), pool_frees: false }
    }

    /// Run-time activity: the constant pointers of `mem` chosen alongside
    /// shadowed ones are their own shadows; `params` maps the function's
    /// parameters to the derivative's.
    pub(crate) fn own_shadows(&mut self, mem: &Memory, params: &HashMap<Value, Value>) {
        self.own = mem.self_shadowed.clone();
        for (p, d) in params {
            if self.own.contains(p) {
                self.sh.insert(*p, *d);
            }
        }
    }

    /// The shadow of a pointer operand: null stays null.
    pub(crate) fn of(&self, v: Value) -> Value {
        unsafe {
            if ir::is_no_address(v)
                // An instruction choosing among such constants has a shadow of its own
                // in the derivative (the same choice), looked up below.
                || (!ir::is_instruction(v) && memory::is_inert_constant(v))
            {
                return v;
            }
            if let Some(s) = self.sh.get(&v) {
                return *s;
            }
            if self.own.contains(&v) && !ir::is_instruction(v) && !ir::is_argument(v) {
                return v;
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
            // The user's own shadow: not ours to make or zero.
            if let Some(s) = crate::surface::registry::user_shadow(v) {
                return s;
            }
            if let Some(s) = self.globals.borrow().get(&(v, self.lane)) {
                return *s;
            }
            let t = LLVMGlobalGetValueType(v);
            let lane = if self.lane == 0 { String::new() } else { format!(".{}", self.lane) };
            let name = ir::cstring(&format!("{}.enzyme.shadow{lane}", ir::name(v)));
            let s = LLVMAddGlobal(self.module, t, name.as_ptr());
            LLVMSetInitializer(s, LLVMConstNull(t));
            LLVMSetLinkage(s, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
            LLVMSetAlignment(s, LLVMGetAlignment(v));
            self.globals.borrow_mut().insert((v, self.lane), s);
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
    pub(crate) fn make(
        &mut self,
        e: &Emitter,
        i: Value,
        kind: &Kind,
        mem: &Memory,
        map: &HashMap<Value, Value>,
        alloca_at: LLVMBuilderRef,
    ) {
        if mem.self_shadowed.contains(&i) {
            self.sh.insert(i, map[&i]);
            return;
        }
        // A choice among vtables or functions is its own shadow, the same choice
        // made again: stored into shadow memory as the primal is into memory.
        // So is an offset from null.
        let inert_choice = (matches!(kind, Kind::Phi | Kind::Select) && memory::is_inert_constant(i))
            || (matches!(kind, Kind::Gep) && memory::is_null_offset(i));
        if !ir::is_pointer(ir::type_of(i)) || (mem.status(i) != PtrStatus::Shadowed && !inert_choice) {
            return;
        }
        let s = unsafe {
            match kind {
                Kind::Gep | Kind::PtrCast => {
                    let mut m = map.clone();
                    m.insert(ir::operand(i, 0), self.of(ir::operand(i, 0)));
                    e.clone_instruction(i, &m)
                }
                Kind::Alloca if !is_fixed_size(i) => {
                    // A run-time size: the shadow is made where the primal is,
                    // zeroed. In forward mode it lives as long as the primal
                    // (on the stack beside it); in reverse mode the reverse
                    // sweep still needs it after the forward sweep's
                    // `stackrestore`s, so it is on the heap, freed by the
                    // reverse of the allocation.
                    let ty = LLVMGetAllocatedType(i);
                    let count = map.get(&ir::operand(i, 0)).copied().unwrap_or(ir::operand(i, 0));
                    let i64t = LLVMInt64TypeInContext(e.ctx);
                    let n = LLVMBuildZExtOrBitCast(e.b, count, i64t, EMPTY);
                    let size = LLVMBuildMul(e.b, LLVMSizeOf(ty), n, EMPTY);
                    let s = if alloca_at == e.b {
                        let s = LLVMBuildArrayAlloca(e.b, ty, count, c"shadow".as_ptr());
                        LLVMSetAlignment(s, LLVMGetAlignment(i));
                        s
                    } else {
                        let malloc = libc_function(self.module, "malloc");
                        e.call(malloc, &mut [size])
                    };
                    let zero = LLVMConstInt(LLVMInt8TypeInContext(e.ctx), 0, 0);
                    LLVMBuildMemSet(e.b, s, zero, size, LLVMGetAlignment(i));
                    s
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
                Kind::Alloc(a) if self.pooled.contains(&i) => {
                    let n = ir::operand(i, a.size_arg);
                    let n = map.get(&n).copied().unwrap_or(n);
                    let s = e.call(crate::generate::tape_buffer::pooled_malloc_function(self.module), &mut [n]);
                    ir::set_name(s, "shadow");
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
                        let n = ir::operand(i, a.size_arg);
                        LLVMBuildMemSet(e.b, s, zero, map.get(&n).copied().unwrap_or(n), 1);
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
    pub(crate) fn fill_phi(&self, i: Value, cfg: &Cfg, block_of: impl Fn(Block) -> Block) {
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

/// Run-time activity: whether a mixed pointer's shadow is the primal itself
/// (then no derivative goes through it).
pub(crate) fn shadow_is_primal(e: &Emitter, shadow: Value, primal: Value) -> Value {
    unsafe { LLVMBuildICmp(e.b, llvm_sys::LLVMIntPredicate::LLVMIntEQ, shadow, primal, c"inactive".as_ptr()) }
}

/// Whether an `alloca` has a constant element count.
pub(crate) fn is_fixed_size(alloca: Value) -> bool {
    unsafe { !LLVMIsAConstantInt(ir::operand(alloca, 0)).is_null() }
}

/// Clones primal instruction `i` at the builder's position, recording it in
/// `map`; phis are made empty (their incoming values are added later).
pub(crate) fn clone_primal(g: &dyn Derivatives, e: &Emitter, map: &mut HashMap<Value, Value>, i: Value) {
    let n = if ir::opcode(i) == llvm_sys::LLVMOpcode::LLVMPHI {
        unsafe { LLVMBuildPhi(e.b, ir::type_of(i), EMPTY) }
    } else {
        remap_callee(g, i, map);
        e.clone_instruction(i, map)
    };
    map.insert(i, n);
}

/// How many bytes `realloc` carried over from the old block: at most the new
/// size, at most what the old shadow block can hold (`malloc_usable_size`;
/// zero for null).
pub(crate) fn old_block_bytes(e: &Emitter, module: LLVMModuleRef, old_shadow: Value, new_size: Value) -> Value {
    unsafe {
        let usable_fn = libc_function(module, "malloc_usable_size");
        let usable = e.call(usable_fn, &mut [old_shadow]);
        let smaller = LLVMBuildICmp(e.b, llvm_sys::LLVMIntPredicate::LLVMIntULT, usable, new_size, EMPTY);
        LLVMBuildSelect(e.b, smaller, usable, new_size, EMPTY)
    }
}

/// Calls in derivative code call the user's functions, not the clones.
pub(crate) fn remap_callee(g: &dyn Derivatives, i: Value, map: &mut HashMap<Value, Value>) {
    if ir::opcode(i) == llvm_sys::LLVMOpcode::LLVMCall {
        if let Some(c) = ir::called_function(i) {
            let o = g.original(c);
            if o != c {
                map.insert(c, o);
            }
        }
    }
}
