//! Preprocessing: the engine differentiates private, simplified clones of the
//! user's functions, never the functions themselves.
//!
//! At `-O0` clang marks every function `optnone` and keeps locals in stack
//! slots; the clones drop `optnone` and go through a short pipeline (SROA,
//! early CSE, instcombine, simplifycfg) so the engine sees SSA values. At
//! `-O2` the clones are already in that shape and the pipeline is cheap. The
//! user's primal functions stay exactly as compiled. The clones of callees
//! are inlined into their callers' clones (recursion excepted), so memory
//! passed between functions is differentiated within one body. Clones are
//! deleted when differentiation is done.

use std::collections::HashMap;

use llvm_sys::core::*;
use llvm_sys::error::*;
use llvm_sys::prelude::*;
use llvm_sys::transforms::pass_builder::*;

use crate::ir::edits::{mark_unwinding_call, remap_operands};
use crate::ir::names::CLONE_SUFFIX;
use crate::ir::{self, Value};

/// The passes each clone goes through.
/// `loop-simplify` and `lcssa` last: the engine relies on loops having one
/// preheader, one latch, dedicated exits, and values leaving a loop through
/// phis in its exit blocks.
const PIPELINE: &str = "sroa<modify-cfg>,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,sroa<modify-cfg>,early-cse<memssa>,instcombine<no-verify-fixpoint>,simplifycfg,loop-simplify,lcssa";

/// Full unrolling of loops with a small constant trip count, then the
/// clean-up and loop form [`PIPELINE`] ends with.
const UNROLL_PIPELINE: &str =
    "loop(loop-unroll-full),instcombine<no-verify-fixpoint>,simplifycfg,early-cse,loop-simplify,lcssa";

/// The clones made so far.
#[derive(Default)]
pub(crate) struct Prep {
    clone_of: HashMap<Value, Value>,
    /// Clones specialised for function arguments known at the call.
    special: HashMap<(Value, Vec<Option<Value>>), Value>,
    original_of: HashMap<Value, Value>,
    /// Callees whose calls run as they are (see `inert_calls`), per callee.
    inert: crate::prepare::inert_calls::Memo,
    /// Functions whose clones could not be made, and why (asked again, the
    /// same answer).
    failed: HashMap<Value, String>,
    /// Instructions in the clones made so far (see [`MAX_CLONED`]).
    cloned: usize,
}

/// The most instructions the clones of one module may hold: past it the
/// code reached is not the kind that is differentiated (a thread pool, a
/// runtime), and preprocessing it would take many times a compile's time.
const MAX_CLONED: usize = 400_000;

/// Calls that start threads: code reaching them runs concurrently, which
/// the engine does not differentiate (OpenMP regions excepted, which are
/// not reached through these).
const THREAD_STARTS: &[&str] = &["pthread_create", "thrd_create", "clone", "clone3"];

/// A function reached from `f`, through calls and function values (where
/// indirect calls may go: closures, vtables, tables of functions, through
/// constants and the initialisers of globals), that calls one starting a
/// thread, with that call's name. Calls that run as they are (functions
/// registered inactive) are not followed.
fn thread_start_reached(f: Value) -> Option<(Value, String)> {
    let mut seen = std::collections::HashSet::new();
    let mut work = vec![f];
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        unsafe {
            if !LLVMIsAFunction(v).is_null() {
                if crate::ir::attrs::fn_attr_value(v, crate::surface::registry::INACTIVE).is_some() {
                    continue;
                }
                if let Some(start) = starts_threads(v) {
                    return Some((v, start));
                }
                for i in ir::blocks(v).into_iter().flat_map(ir::instructions) {
                    let callee = ir::is_call_or_invoke(i).then(|| ir::called_function(i)).flatten();
                    if callee.is_some_and(|c| crate::surface::registry::is_inactive_call(i, c)) {
                        continue;
                    }
                    work.extend(
                        (0..ir::operand_count(i))
                            .map(|k| ir::operand(i, k))
                            .filter(|o| !LLVMIsAConstant(*o).is_null() || !LLVMIsAFunction(*o).is_null()),
                    );
                }
            } else if !LLVMIsAGlobalVariable(v).is_null() {
                let init = LLVMGetInitializer(v);
                if !init.is_null() {
                    work.push(init);
                }
            } else if !LLVMIsAGlobalAlias(v).is_null() {
                work.push(LLVMAliasGetAliasee(v));
            } else if !LLVMIsAConstant(v).is_null() {
                work.extend((0..ir::operand_count(v)).map(|k| ir::operand(v, k)));
            }
        }
    }
    None
}

/// A call in `f`'s body that starts a thread, by the callee's name.
fn starts_threads(f: Value) -> Option<String> {
    ir::blocks(f).into_iter().flat_map(ir::instructions).find_map(|i| {
        let c = ir::is_call_or_invoke(i).then(|| ir::called_function(i)).flatten()?;
        let name = ir::name(c);
        THREAD_STARTS.contains(&name.as_str()).then_some(name)
    })
}

impl Prep {
    /// The simplified clone of `f`, made (with the clones of every module
    /// function it calls, transitively) on first request. Parameters given a
    /// function in `consts` are replaced by it in a clone of their own, so
    /// calls through them become direct calls (the target is known).
    pub fn ensure(&mut self, module: LLVMModuleRef, f: Value, consts: &[Option<Value>]) -> Result<Value, String> {
        if let Some(e) = self.failed.get(&f) {
            return Err(e.clone());
        }
        let made = self.ensure_once(module, f, consts);
        if let Err(e) = &made {
            self.failed.insert(f, e.clone());
        }
        made
    }

    fn ensure_once(&mut self, module: LLVMModuleRef, f: Value, consts: &[Option<Value>]) -> Result<Value, String> {
        crate::ir::progress::working_on(|| format!("preparing `{}`", crate::ir::names::display_name(&ir::name(f))));
        // Threads are refused before anything is cloned: the code behind
        // them (a thread pool) is large, and would be refused anyway.
        if !self.clone_of.contains_key(&f) {
            if let Some((caller, start)) = thread_start_reached(f) {
                return Err(format!(
                    "the function reaches code that starts threads (`{}` calls `{start}`), which is not \
                     differentiated; differentiate a serial version (rayon's `par_iter` as `iter`), or parallelise \
                     with OpenMP",
                    crate::ir::names::display_name(&ir::name(caller))
                ));
            }
        }
        if consts.iter().any(Option::is_some) {
            let (c, new) = self.specialised(module, f, consts)?;
            if new {
                self.close_over(module, vec![c])?;
            }
            return Ok(c);
        }
        if let Some(c) = self.clone_of.get(&f) {
            return Ok(*c);
        }
        let c = clone_function(module, f);
        self.original_of.insert(c, f);
        self.clone_of.insert(f, c);
        self.close_over(module, vec![c])?;
        Ok(c)
    }

    /// The clone of `f` with the parameters given in `consts` replaced by
    /// those functions, and whether it was just made.
    fn specialised(
        &mut self,
        module: LLVMModuleRef,
        f: Value,
        consts: &[Option<Value>],
    ) -> Result<(Value, bool), String> {
        let key = (f, consts.to_vec());
        if let Some(c) = self.special.get(&key) {
            return Ok((*c, false));
        }
        let c = clone_function(module, f);
        self.original_of.insert(c, f);
        for (p, k) in ir::params(c).into_iter().zip(consts) {
            if let Some(v) = k {
                unsafe { LLVMReplaceAllUsesWith(p, *v) };
            }
        }
        self.special.insert(key, c);
        // At -O0 the pointer goes through a stack slot: simplify now, so the
        // calls are direct before callees are looked for.
        run_pipeline(c)?;
        Ok((c, true))
    }

    /// Clones the module functions the fresh clones call (transitively),
    /// points calls between clones at clones, inlines, and simplifies.
    fn close_over(&mut self, module: LLVMModuleRef, mut fresh: Vec<Value>) -> Result<(), String> {
        let mut work = fresh.clone();
        while let Some(c) = work.pop() {
            // Calls through pointers become calls of a dispatcher (a module
            // function, cloned and inlined like the others).
            // Parallel regions: their microtasks are called directly (see `parallel`).
            crate::calls::parallel::outline_forks(module, c);
            crate::calls::parallel::lower_reductions(module, c);
            let original_of = &self.original_of;
            crate::calls::dispatch::devirtualize(module, c, &|g| original_of.contains_key(&g));
            for b in ir::blocks(c) {
                for i in ir::instructions(b) {
                    if !ir::is_call_or_invoke(i) {
                        continue;
                    }
                    let Some(callee) = ir::called_function(i) else { continue };
                    if self.original_of.contains_key(&callee)
                        || crate::surface::registry::keeps_call(i, callee)
                        || crate::calls::classify::never_returns_inertly(i, callee)
                    {
                        continue;
                    }
                    if crate::prepare::inert_calls::runs_inertly(i, callee, &mut self.inert) {
                        ir::set_flag(i, crate::prepare::inert_calls::INERT);
                        continue;
                    }
                    if ir::is_declaration(callee) {
                        continue;
                    }
                    // Functions passed along (recursion carrying an integrand):
                    // the callee gets a clone specialised for them too.
                    let consts: Vec<Option<Value>> = ir::params(callee)
                        .iter()
                        .enumerate()
                        .map(|(k, p)| {
                            (ir::is_pointer(ir::type_of(*p)) && (k as u32) < ir::call_arg_count(i))
                                .then(|| ir::strip_to_function(ir::operand(i, k as u32)))
                                .flatten()
                        })
                        .collect();
                    if consts.iter().any(Option::is_some) {
                        let (sc, new) = self.specialised(module, callee, &consts)?;
                        unsafe { LLVMSetOperand(i, ir::operand_count(i) - 1, sc) };
                        if new {
                            fresh.push(sc);
                            work.push(sc);
                        }
                        continue;
                    }
                    if self.clone_of.contains_key(&callee) {
                        continue;
                    }
                    // Refused before it is cloned: threads, and code too large
                    // to be what is differentiated (a build would run away).
                    let shown = |f: Value| crate::ir::names::display_name(&ir::name(f));
                    if let Some(start) = starts_threads(callee) {
                        return Err(format!(
                            "the function reaches code that starts threads (`{}` calls `{start}`), which is not \
                             differentiated; differentiate a serial version (rayon's `par_iter` as `iter`), or \
                             parallelise with OpenMP",
                            shown(callee)
                        ));
                    }
                    self.cloned += ir::blocks(callee).into_iter().map(|b| ir::instructions(b).len()).sum::<usize>();
                    if self.cloned > MAX_CLONED {
                        return Err(format!(
                            "the function reaches over {MAX_CLONED} instructions of code (the last added: `{}`), \
                             more than is differentiated in one build; mark calls that need no derivative \
                             inactive, or differentiate a smaller function",
                            shown(callee)
                        ));
                    }
                    let cc = clone_function(module, callee);
                    self.clone_of.insert(callee, cc);
                    self.original_of.insert(cc, callee);
                    fresh.push(cc);
                    work.push(cc);
                }
            }
        }
        // Point calls between clones at the clones, so analyses of a clone see clones.
        for c in &fresh {
            for b in ir::blocks(*c) {
                for i in ir::instructions(b) {
                    if ir::is_call_or_invoke(i) {
                        if let Some(callee) = ir::called_function(i) {
                            if let Some(cc) = self.clone_of.get(&callee) {
                                unsafe { LLVMSetOperand(i, ir::operand_count(i) - 1, *cc) };
                            }
                        }
                    }
                }
            }
        }
        // All clones, not only the fresh ones: an earlier clone may be called by a new one.
        let all: Vec<Value> = self.original_of.keys().copied().collect();
        inline_clones(module, &all)?;
        for c in &fresh {
            expand_allocations(*c);
            run_pipeline(*c)?;
            if crate::libraries::moves_parts_of_slots(*c) {
                // Unoptimised Rust swaps a hash table's slots a word at a
                // time in a loop, each word a different field: unrolled,
                // each move has one type.
                run_passes(PassTarget::Function(*c), UNROLL_PIPELINE)
                    .map_err(|s| format!("preprocessing pipeline failed: {s}"))?;
            }
            // In a microtask (its calls are regions, now that they call
            // clones), once simplified (the -O0 form of an atomic is plain).
            crate::prepare::omp_atomics::lower(module, *c);
            drop_lifetime_markers(*c);
            crate::analysis::bits::canonicalise(*c);
            expand_out_parameters(*c);
            // The optimiser turns code with undefined behaviour into `unreachable`;
            // a clone that lost every return would differentiate into garbage.
            let orig = self.original_of[c];
            if returns(orig) && !returns(*c) {
                return Err(format!(
                    "internal error: preprocessing `{}` removed every return (the optimiser found undefined \
                     behaviour in the clone); refusing to differentiate it",
                    crate::ir::names::display_name(&ir::name(orig))
                ));
            }
        }
        Ok(())
    }

    /// The user's function a clone was made from (identity for other values).
    pub fn original(&self, v: Value) -> Value {
        self.original_of.get(&v).copied().unwrap_or(v)
    }

    /// Deletes every clone. Nothing generated may refer to them by then.
    pub fn delete_all(&mut self) {
        // Clones call each other where a call stayed a call (recursion): a
        // clone must not be used by another when it goes, or deleting that
        // other would write to the freed clone's list of uses.
        for c in self.original_of.keys() {
            for u in ir::users(*c) {
                if !ir::is_instruction(u) || !self.original_of.contains_key(&ir::parent_function(u)) {
                    continue;
                }
                for k in 0..ir::operand_count(u) {
                    if ir::operand(u, k) == *c {
                        unsafe { LLVMSetOperand(u, k, LLVMGetPoison(ir::type_of(*c))) };
                    }
                }
            }
        }
        for c in self.original_of.keys() {
            unsafe { LLVMDeleteFunction(*c) };
        }
        self.clone_of.clear();
        self.special.clear();
        self.original_of.clear();
    }
}

/// Removes the clone's stack lifetime markers. The reverse sweep reads
/// stack slots after the forward sweep has passed their `lifetime.end` (a
/// rule's reverse call gets the same `&n` as its forward call, where `n` is
/// a parameter of a function inlined into this one); left in place, the
/// slot would be dead there and the optimiser free to reuse it. Slots stay
/// live to the function's end instead.
fn drop_lifetime_markers(c: Value) {
    let markers: Vec<Value> =
        ir::blocks(c).into_iter().flat_map(ir::instructions).filter(|i| ir::is_lifetime_marker(*i)).collect();
    for m in markers {
        unsafe { LLVMInstructionEraseFromParent(m) };
    }
}

/// Inlines the clones into each other (recursive calls stay calls), so that
/// a function and the helpers it passes pointers to are differentiated as
/// one body. The inliner only touches calls of `alwaysinline` functions, and
/// only clones carry that attribute here.
fn inline_clones(module: LLVMModuleRef, clones: &[Value]) -> Result<(), String> {
    let kind = ir::attr_kind("alwaysinline");
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        for c in clones {
            let attr = LLVMCreateEnumAttribute(ctx, kind, 0);
            LLVMAddAttributeAtIndex(*c, llvm_sys::LLVMAttributeFunctionIndex, attr);
            // The inliner deletes internal functions left without uses: ours must stay.
            LLVMSetLinkage(*c, llvm_sys::LLVMLinkage::LLVMExternalLinkage);
        }
        // A call site may say `noinline` of its own (rustc's code calling an
        // `#[inline(never)]` function through a closure): between clones, it goes.
        let noinline = ir::attr_kind("noinline");
        for c in clones {
            for i in ir::blocks(*c).into_iter().flat_map(ir::instructions) {
                // (A parallel region's call stays a call: it becomes a fork again.)
                if ir::opcode(i) == llvm_sys::LLVMOpcode::LLVMCall
                    && ir::called_function(i).is_some_and(|callee| clones.contains(&callee))
                    && !crate::calls::parallel::is_region(i)
                    && !crate::surface::checkpoint::stays_call(i)
                {
                    LLVMRemoveCallSiteEnumAttribute(i, llvm_sys::LLVMAttributeFunctionIndex, noinline);
                }
            }
        }
        let result = run_passes(PassTarget::Module(module), "always-inline");
        for c in clones {
            LLVMRemoveEnumAttributeAtIndex(*c, llvm_sys::LLVMAttributeFunctionIndex, kind);
            LLVMSetLinkage(*c, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        }
        result.map_err(|s| format!("inlining before differentiation failed: {s}"))
    }
}

fn run_pipeline(f: Value) -> Result<(), String> {
    run_passes(PassTarget::Function(f), PIPELINE).map_err(|s| format!("preprocessing pipeline failed: {s}"))
}

/// What a pass pipeline runs over.
pub(crate) enum PassTarget {
    Module(LLVMModuleRef),
    Function(Value),
}

/// Runs a new-pass-manager pipeline (`passes` in `opt -passes=` syntax);
/// LLVM's error message on failure.
pub(crate) fn run_passes(target: PassTarget, passes: &str) -> Result<(), String> {
    let passes = ir::cstring(passes);
    unsafe {
        let opts = LLVMCreatePassBuilderOptions();
        let err = match target {
            PassTarget::Module(m) => LLVMRunPasses(m, passes.as_ptr(), std::ptr::null_mut(), opts),
            PassTarget::Function(f) => LLVMRunPassesOnFunction(f, passes.as_ptr(), std::ptr::null_mut(), opts),
        };
        LLVMDisposePassBuilderOptions(opts);
        if err.is_null() {
            return Ok(());
        }
        let msg = LLVMGetErrorMessage(err);
        let s = std::ffi::CStr::from_ptr(msg).to_string_lossy().into_owned();
        LLVMDisposeErrorMessage(msg);
        Err(s)
    }
}

/// Copies `f`'s body into a new internal function, instruction by instruction.
/// Debug locations are kept (diagnostics need them); debug records are not.
fn clone_function(module: LLVMModuleRef, f: Value) -> Value {
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let name = ir::cstring(&format!("{}{}", ir::name(f), CLONE_SUFFIX));
        let c = LLVMAddFunction(module, name.as_ptr(), ir::function_type(f));
        LLVMSetLinkage(c, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        if LLVMHasPersonalityFn(f) != 0 {
            // Landing pads need it; passes crash on a function without one.
            LLVMSetPersonalityFn(c, LLVMGetPersonalityFn(f));
        }
        copy_interface(f, c);
        let mut map: HashMap<Value, Value> = HashMap::new();
        for (p, q) in ir::params(f).into_iter().zip(ir::params(c)) {
            map.insert(p, q);
            ir::set_name(q, &ir::name(p));
        }
        let blocks = ir::blocks(f);
        for b in &blocks {
            let nb = LLVMAppendBasicBlockInContext(ctx, c, c"".as_ptr());
            map.insert(ir::block_value(*b), LLVMBasicBlockAsValue(nb));
        }
        let builder = LLVMCreateBuilderInContext(ctx);
        let mut cloned = Vec::new();
        let mut phis = Vec::new();
        for b in &blocks {
            let nb = LLVMValueAsBasicBlock(map[&ir::block_value(*b)]);
            LLVMPositionBuilderAtEnd(builder, nb);
            for i in ir::instructions(*b) {
                let n = if ir::opcode(i) == llvm_sys::LLVMOpcode::LLVMPHI {
                    let n = LLVMBuildPhi(builder, ir::type_of(i), c"".as_ptr());
                    phis.push((i, n));
                    n
                } else {
                    let n = LLVMInstructionClone(i);
                    LLVMInsertIntoBuilder(builder, n);
                    cloned.push(n);
                    n
                };
                if !ir::is_void(ir::type_of(i)) {
                    ir::set_name(n, &ir::name(i));
                }
                map.insert(i, n);
            }
        }
        for n in cloned {
            remap_operands(n, &map);
        }
        for (old, new) in phis {
            for (v, b) in ir::incoming(old) {
                let mut v2 = map.get(&v).copied().unwrap_or(v);
                let mut b2 = LLVMValueAsBasicBlock(map[&ir::block_value(b)]);
                LLVMAddIncoming(new, &mut v2, &mut b2, 1);
            }
        }
        LLVMDisposeBuilder(builder);
        drop_unwind_edges(c);
        crate::ir::layout::mark_integer_fields(c);
        c
    }
}

/// The clone must be called like the original: same calling convention (the
/// optimiser gives internal functions `fastcc`; a mismatch is undefined
/// behaviour, which the optimiser then deletes), same parameter and return
/// attributes (`byval`, `sret`, ...), same function attributes but `optnone`
/// and `noinline`.
fn copy_interface(f: Value, c: Value) {
    unsafe {
        LLVMSetFunctionCallConv(c, LLVMGetFunctionCallConv(f));
        let skip = [ir::attr_kind("optnone"), ir::attr_kind("noinline")];
        let nparams = LLVMCountParams(f);
        let indices = std::iter::once(llvm_sys::LLVMAttributeFunctionIndex)
            .chain(std::iter::once(llvm_sys::LLVMAttributeReturnIndex))
            .chain(1..=nparams);
        for idx in indices {
            let n = LLVMGetAttributeCountAtIndex(f, idx);
            let mut attrs: Vec<LLVMAttributeRef> = vec![std::ptr::null_mut(); n as usize];
            LLVMGetAttributesAtIndex(f, idx, attrs.as_mut_ptr());
            for a in attrs {
                if LLVMIsEnumAttribute(a) != 0 && skip.contains(&LLVMGetEnumAttributeKind(a)) {
                    continue;
                }
                LLVMAddAttributeAtIndex(c, idx, a);
            }
        }
    }
}

/// libm functions that return through pointers become what they compute:
/// `sincos(x, s, c)` stores `sin(x)` and `cos(x)`; `modf(x, ip)` stores
/// `trunc(x)` and returns `x - trunc(x)` (and LLVM's `llvm.modf` /
/// `llvm.sincos`, which return both as a pair, the same pair). Then the
/// stores and pairs carry derivatives like any other.
fn expand_out_parameters(f: Value) {
    let calls: Vec<(Value, String)> = ir::blocks(f)
        .into_iter()
        .flat_map(ir::instructions)
        .filter(|i| ir::opcode(*i) == llvm_sys::LLVMOpcode::LLVMCall)
        .filter_map(|i| {
            let name = ir::name(ir::called_function(i)?);
            let known = matches!(name.as_str(), "sincos" | "sincosf" | "modf" | "modff")
                || name.starts_with("llvm.modf.")
                || name.starts_with("llvm.sincos.");
            known.then_some((i, name))
        })
        .collect();
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
        let b = LLVMCreateBuilderInContext(ctx);
        let module = LLVMGetGlobalParent(f);
        let intrinsic = |name: &str, t: ir::Type, x: Value| {
            let id = LLVMLookupIntrinsicID(name.as_ptr() as *const _, name.len());
            let mut tys = [t];
            let decl = LLVMGetIntrinsicDeclaration(module, id, tys.as_mut_ptr(), 1);
            let fty = LLVMIntrinsicGetType(ctx, id, tys.as_mut_ptr(), 1);
            let mut args = [x];
            LLVMBuildCall2(b, fty, decl, args.as_mut_ptr(), 1, c"".as_ptr())
        };
        for (call, name) in calls {
            LLVMPositionBuilderBefore(b, call);
            let x = ir::operand(call, 0);
            let t = ir::type_of(x);
            if name.starts_with("llvm.") {
                // The intrinsics return both results: `{frac, whole}`, `{sin, cos}`.
                let (a, c) = if name.starts_with("llvm.modf.") {
                    let whole = intrinsic("llvm.trunc", t, x);
                    (LLVMBuildFSub(b, x, whole, c"".as_ptr()), whole)
                } else {
                    (intrinsic("llvm.sin", t, x), intrinsic("llvm.cos", t, x))
                };
                let agg = LLVMGetUndef(ir::type_of(call));
                let agg = LLVMBuildInsertValue(b, agg, a, 0, c"".as_ptr());
                let agg = LLVMBuildInsertValue(b, agg, c, 1, c"".as_ptr());
                LLVMReplaceAllUsesWith(call, agg);
            } else if name.starts_with("sincos") {
                let (s, c) = (intrinsic("llvm.sin", t, x), intrinsic("llvm.cos", t, x));
                LLVMBuildStore(b, s, ir::operand(call, 1));
                LLVMBuildStore(b, c, ir::operand(call, 2));
            } else {
                let whole = intrinsic("llvm.trunc", t, x);
                LLVMBuildStore(b, whole, ir::operand(call, 1));
                let frac = LLVMBuildFSub(b, x, whole, c"".as_ptr());
                LLVMReplaceAllUsesWith(call, frac);
            }
            LLVMInstructionEraseFromParent(call);
        }
        LLVMDisposeBuilder(b);
    }
}

/// Allocation functions the engine knows in another form: `r =
/// posix_memalign(&p, align, n)` becomes `p = memalign(align, n)` (so the
/// block is an allocation with a shadow of its own, and the pipeline after
/// sees the pointer itself instead of a slot a library call wrote; `r` is 0,
/// or ENOMEM with `p` null where it failed), `reallocarray(p, n, size)`
/// becomes `realloc(p, n * size)`, and `strdup(s)` a `malloc` of
/// `strlen(s) + 1` bytes and a copy (typed like any other copy). In clones
/// only: the user's functions stay as compiled.
fn expand_allocations(f: Value) {
    let calls: Vec<(Value, String)> = ir::blocks(f)
        .into_iter()
        .flat_map(ir::instructions)
        .filter(|i| ir::opcode(*i) == llvm_sys::LLVMOpcode::LLVMCall)
        .filter_map(|i| {
            let callee = ir::called_function(i)?;
            let name = ir::name(callee);
            let args = match name.as_str() {
                "posix_memalign" | "reallocarray" => 3,
                "strdup" => 1,
                _ => return None,
            };
            (ir::is_declaration(callee) && ir::call_arg_count(i) == args).then_some((i, name))
        })
        .collect();
    if calls.is_empty() {
        return;
    }
    unsafe {
        let module = LLVMGetGlobalParent(f);
        let ctx = LLVMGetModuleContext(module);
        let b = LLVMCreateBuilderInContext(ctx);
        let i64t = LLVMInt64TypeInContext(ctx);
        for (call, name) in calls {
            LLVMPositionBuilderBefore(b, call);
            let as_i64 = |v: Value| LLVMBuildZExtOrBitCast(b, v, i64t, c"".as_ptr());
            if name == "strdup" {
                let s = ir::operand(call, 0);
                let strlen = crate::build::runtime::libc_function(module, "strlen");
                let malloc = crate::build::runtime::libc_function(module, "malloc");
                let mut args = [s];
                let len = LLVMBuildCall2(b, ir::function_type(strlen), strlen, args.as_mut_ptr(), 1, c"".as_ptr());
                let n = LLVMBuildAdd(b, len, LLVMConstInt(i64t, 1, 0), c"".as_ptr());
                let mut args = [n];
                let p = LLVMBuildCall2(b, ir::function_type(malloc), malloc, args.as_mut_ptr(), 1, c"".as_ptr());
                LLVMBuildMemCpy(b, p, 1, s, 1, n);
                LLVMReplaceAllUsesWith(call, p);
                LLVMInstructionEraseFromParent(call);
                continue;
            }
            let (a0, a1, a2) = (ir::operand(call, 0), ir::operand(call, 1), ir::operand(call, 2));
            if name == "posix_memalign" {
                let memalign = crate::build::runtime::libc_function(module, "memalign");
                let mut args = [as_i64(a1), as_i64(a2)];
                let p = LLVMBuildCall2(b, ir::function_type(memalign), memalign, args.as_mut_ptr(), 2, c"".as_ptr());
                LLVMBuildStore(b, p, a0);
                let failed = LLVMBuildIsNull(b, p, c"".as_ptr());
                let rt = ir::type_of(call);
                // ENOMEM, as posix_memalign reports it.
                let r = LLVMBuildSelect(b, failed, LLVMConstInt(rt, 12, 0), LLVMConstInt(rt, 0, 0), c"".as_ptr());
                LLVMReplaceAllUsesWith(call, r);
            } else {
                let realloc = crate::build::runtime::libc_function(module, "realloc");
                let n = LLVMBuildMul(b, as_i64(a1), as_i64(a2), c"".as_ptr());
                let mut args = [a0, n];
                let p = LLVMBuildCall2(b, ir::function_type(realloc), realloc, args.as_mut_ptr(), 2, c"".as_ptr());
                LLVMReplaceAllUsesWith(call, p);
            }
            LLVMInstructionEraseFromParent(call);
        }
        LLVMDisposeBuilder(b);
    }
}

/// Whether a function has a `ret` reachable from its entry.
fn returns(f: Value) -> bool {
    let cfg = crate::ir::cfg::Cfg::new(f);
    cfg.order.iter().any(|b| ir::opcode(ir::terminator(*b)) == llvm_sys::LLVMOpcode::LLVMRet)
}

/// Exceptions inside differentiated code: every `invoke` in a clone is
/// marked `nounwind` (and tagged), so SimplifyCFG turns it into a call and
/// removes the landing pads and cleanups. Derivatives then contain plain
/// calls; `emit::clone_instruction` takes the `nounwind` off the tagged ones,
/// so an exception still unwinds out of a derivative (skipping cleanups in
/// the derivative code) instead of being undefined behaviour.
fn drop_unwind_edges(c: Value) {
    for b in ir::blocks(c) {
        let t = ir::terminator(b);
        if !t.is_null() && ir::opcode(t) == llvm_sys::LLVMOpcode::LLVMInvoke {
            mark_unwinding_call(t);
        }
    }
}
