//! `__enzyme_todense(load, store, args...)` (and its other name,
//! `__enzyme_post_sparse_todense`): a pointer whose memory is the user's
//! two functions. A load of a `T` at byte offset `k` from it is
//! `load(k, args...)`, a store of `v` there is `store(v, k, args...)`.
//! Given as a shadow, it turns a derivative's accesses of that shadow into
//! calls: a Hessian-vector product that records its entries as triplets,
//! a seed computed from the offset instead of stored.
//!
//! Lowered right after differentiation, before the post-AD pipeline, so
//! that the accesses are the derivative's own, one call per access as it
//! was generated (an optimiser that forwarded a stored value to a later
//! load would change what a store-to-accumulate function sees). Functions
//! the pointer is passed to are inlined into the caller of
//! `__enzyme_todense` first; whatever else the pointer reaches (memory it
//! is stored to, a function without a body, a comparison with another
//! pointer) is a build error. The call itself becomes a null pointer:
//! every address made from it is then its own offset.

use std::collections::{HashMap, HashSet};

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode::*;

use crate::ir::diag::Diagnostic;
use crate::ir::names::display_name;
use crate::ir::{self, Value};
use crate::prepare::prep::{run_passes, PassTarget};
use crate::surface::entry_points::TODENSE_NAMES;
use crate::surface::markers::at_call;

/// Rounds of inlining functions the pointer is passed to.
const INLINE_ROUNDS: usize = 16;

/// One `__enzyme_todense` call and its memory's functions.
struct Dense {
    call: Value,
    load: Value,
    store: Value,
    args: Vec<Value>,
}

/// What the pointer reaches: the addresses made from it, the loads and
/// stores through them, calls it is passed to (to inline), and what cannot
/// be lowered.
#[derive(Default)]
struct Reach {
    addresses: Vec<Value>,
    accesses: Vec<Value>,
    callees: Vec<Value>,
    problems: Vec<Diagnostic>,
}

/// Lowers every `__enzyme_todense` call of the module.
pub(crate) fn lower(module: llvm_sys::prelude::LLVMModuleRef) -> Result<(), Vec<Diagnostic>> {
    if find(module).is_empty() {
        return Ok(());
    }
    // Inline what the pointer is passed to, until nothing is left to inline
    // (the calls are found again each round: inlining a function that calls
    // `__enzyme_todense` itself copies its call). Stack slots holding the
    // pointer (an unoptimised build) become values first.
    for round in 0..=INLINE_ROUNDS {
        let calls = find(module);
        let holders: HashSet<Value> = calls.iter().map(|c| ir::parent_function(*c)).collect();
        for f in &holders {
            promote_slots(*f);
        }
        let callees: HashSet<Value> = calls.iter().flat_map(|c| reach(*c).callees).collect();
        if callees.is_empty() || round == INLINE_ROUNDS {
            break;
        }
        inline(module, &callees);
    }
    let mut diags: Vec<Diagnostic> = Vec::new();
    for call in find(module) {
        let d = match read(call) {
            Ok(d) => d,
            Err(d) => {
                diags.push(*d);
                continue;
            }
        };
        let r = reach(d.call);
        if !r.problems.is_empty() {
            diags.extend(r.problems);
            continue;
        }
        if let Err(mut ds) = rewrite(module, &d, &r) {
            diags.append(&mut ds);
        }
    }
    if diags.is_empty() {
        Ok(())
    } else {
        Err(diags)
    }
}

fn find(module: llvm_sys::prelude::LLVMModuleRef) -> Vec<Value> {
    ir::functions(module)
        .into_iter()
        .filter(|f| crate::surface::entry_points::is_todense(&ir::name(*f)))
        .flat_map(crate::surface::registry::call_sites_of)
        .collect()
}

fn read(call: Value) -> Result<Dense, Box<Diagnostic>> {
    let entry = ir::called_function(call).map(ir::name).unwrap_or_default();
    let entry = TODENSE_NAMES.iter().find(|n| entry.contains(*n)).copied().unwrap_or(TODENSE_NAMES[1]);
    let usage = || format!("`{entry}(load, store, args...)` takes the two functions first, then their extra arguments");
    if ir::opcode(call) == LLVMInvoke {
        return Err(Box::new(
            at_call(call, format!("`{entry}` is called where it may throw (an `invoke`)"))
                .with_help(format!("declare it `noexcept`: `extern double *{entry}(void *, ...) noexcept;`")),
        ));
    }
    if !ir::is_pointer(ir::type_of(call)) {
        return Err(Box::new(at_call(call, format!("`{entry}` must return a pointer")).with_help(usage())));
    }
    let n = ir::call_arg_count(call);
    let function = |k: u32| (k < n).then(|| ir::strip_to_function(ir::operand(call, k))).flatten();
    let (Some(load), Some(store)) = (function(0), function(1)) else {
        return Err(Box::new(
            at_call(call, format!("the first two arguments of `{entry}` must be functions")).with_help(usage()),
        ));
    };
    let args: Vec<Value> = (2..n).map(|k| ir::operand(call, k)).collect();
    for (f, what, fixed) in [(load, "load", 1usize), (store, "store", 2)] {
        let params = ir::params(f);
        let fits = params.len() == fixed + args.len()
            && params[fixed..].iter().zip(&args).all(|(p, a)| ir::type_of(*p) == ir::type_of(*a))
            && ir::is_int(ir::type_of(params[fixed - 1]));
        let result_fits =
            if what == "load" { !ir::is_void(ir::return_type(f)) } else { ir::is_void(ir::return_type(f)) };
        if !fits || !result_fits {
            let shape = if what == "load" {
                "T load(int64_t offset, args...)"
            } else {
                "void store(T value, int64_t offset, args...)"
            };
            let given: Vec<String> = args.iter().map(|a| ir::print_type(ir::type_of(*a))).collect();
            return Err(Box::new(
                at_call(
                    call,
                    format!(
                        "the {what} function `{}` given to `{entry}` does not take the arguments the call gives",
                        display_name(&ir::name(f))
                    ),
                )
                .with_note(format!("the call's extra arguments: ({})", given.join(", ")))
                .with_help(format!(
                    "the {what} function is `{shape}`, its extra parameters of the same types as the call's"
                )),
            ));
        }
    }
    Ok(Dense { call, load, store, args })
}

/// Promotes the stack slots of `f` (the pointer held in a local variable
/// of an unoptimised build). `optnone` would keep the pass from running.
fn promote_slots(f: Value) {
    unsafe {
        LLVMRemoveEnumAttributeAtIndex(f, llvm_sys::LLVMAttributeFunctionIndex, ir::attr_kind("optnone"));
    }
    let _ = run_passes(PassTarget::Function(f), "mem2reg");
}

/// Inlines every call of `callees` (functions the pointer is passed to).
fn inline(module: llvm_sys::prelude::LLVMModuleRef, callees: &HashSet<Value>) {
    let always = ir::attr_kind("alwaysinline");
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        for f in callees {
            for a in ["noinline", "optnone"] {
                LLVMRemoveEnumAttributeAtIndex(*f, llvm_sys::LLVMAttributeFunctionIndex, ir::attr_kind(a));
            }
            LLVMAddAttributeAtIndex(*f, llvm_sys::LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, always, 0));
            for call in crate::surface::registry::call_sites_of(*f) {
                LLVMRemoveCallSiteEnumAttribute(call, llvm_sys::LLVMAttributeFunctionIndex, ir::attr_kind("noinline"));
            }
        }
        let _ = run_passes(PassTarget::Module(module), "always-inline");
        for f in callees {
            // (Those the inliner deleted are gone from the module.)
            if ir::functions(module).contains(f) {
                LLVMRemoveEnumAttributeAtIndex(*f, llvm_sys::LLVMAttributeFunctionIndex, always);
            }
        }
    }
}

/// Follows the pointer a call returns through every address made from it.
fn reach(call: Value) -> Reach {
    let mut r = Reach::default();
    let entry = ir::called_function(call).map(|f| display_name(&ir::name(f))).unwrap_or_default();
    let problem =
        |i: Value, what: String| {
            at_call(i, format!("the pointer from `{entry}` {what}"))
            .with_note(format!(
                "`{entry}` was called at {}",
                ir::location(call).map(|l| format!("{}:{}", l.file, l.line)).unwrap_or_else(|| "an unknown line".into())
            ))
            .with_help(
                "its memory is the functions given to it: it may be offset, loaded from, stored through, and passed \
                 to functions of the program (which are inlined), nothing else",
            )
        };
    let made = crate::analysis::reread::derived_pointers(call, |u, v| {
        match ir::opcode(u) {
            LLVMLoad if !ir::is_atomic(u) => r.accesses.push(u),
            LLVMStore if ir::operand(u, 1) == v && ir::operand(u, 0) != v && !ir::is_atomic(u) => r.accesses.push(u),
            LLVMStore if ir::is_atomic(u) => r.problems.push(problem(u, "is accessed atomically".into())),
            LLVMStore => r.problems.push(problem(u, "is stored to memory".into())),
            LLVMLoad => r.problems.push(problem(u, "is accessed atomically".into())),
            LLVMPtrToInt | LLVMICmp => {}
            LLVMCall if ir::is_lifetime_marker(u) => {}
            LLVMCall | LLVMInvoke => match ir::called_function(u) {
                Some(f) if !ir::is_declaration(f) && (0..ir::call_arg_count(u)).any(|k| ir::operand(u, k) == v) => {
                    if !r.callees.contains(&f) {
                        r.callees.push(f);
                    }
                }
                f => r.problems.push(problem(
                    u,
                    format!(
                        "is passed to `{}`, whose body is not in the program",
                        f.map(|f| display_name(&ir::name(f))).unwrap_or_else(|| "a function pointer".into())
                    ),
                )),
            },
            _ => r.problems.push(problem(u, format!("is used by `{}`", ir::print(u).trim()))),
        }
        // Every use is recorded (as an access, a callee or a problem): the walk goes on.
        true
    })
    .expect("never refused");
    r.addresses = made.iter().copied().filter(|v| *v != call).collect();
    // A join or comparison must be of addresses made from this pointer only.
    for a in &r.addresses {
        let mixed = match ir::opcode(*a) {
            LLVMPHI => ir::incoming(*a).iter().any(|(x, _)| !made.contains(x) && !is_undef(*x)),
            LLVMSelect => [1, 2].iter().any(|k| !made.contains(&ir::operand(*a, *k)) && !is_undef(ir::operand(*a, *k))),
            _ => false,
        };
        if mixed {
            r.problems.push(problem(*a, "is joined with another pointer".into()));
        }
        for u in ir::users(*a) {
            if ir::opcode(u) == LLVMICmp && !(made.contains(&ir::operand(u, 0)) && made.contains(&ir::operand(u, 1))) {
                r.problems.push(problem(u, "is compared with another pointer".into()));
            }
        }
    }
    for u in ir::users(call) {
        if ir::opcode(u) == LLVMICmp && !(made.contains(&ir::operand(u, 0)) && made.contains(&ir::operand(u, 1))) {
            r.problems.push(problem(u, "is compared with another pointer".into()));
        }
    }
    r
}

fn is_undef(v: Value) -> bool {
    unsafe { !LLVMIsAUndefValue(v).is_null() || !LLVMIsAPoisonValue(v).is_null() }
}

/// Turns each load and store into a call, then the pointer into null.
fn rewrite(module: llvm_sys::prelude::LLVMModuleRef, d: &Dense, r: &Reach) -> Result<(), Vec<Diagnostic>> {
    let entry = ir::called_function(d.call).map(|f| display_name(&ir::name(f))).unwrap_or_default();
    let mut diags = Vec::new();
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let b = LLVMCreateBuilderInContext(ctx);
        let i64t = LLVMInt64TypeInContext(ctx);
        let loaded = ir::return_type(d.load);
        let stored = ir::type_of(ir::params(d.store)[0]);
        let mut done: Vec<Value> = Vec::new();
        let mut values: HashMap<Value, Value> = HashMap::new();
        for a in &r.accesses {
            let is_load = ir::opcode(*a) == LLVMLoad;
            let address = if is_load { ir::operand(*a, 0) } else { ir::operand(*a, 1) };
            let t = if is_load { ir::type_of(*a) } else { ir::type_of(ir::operand(*a, 0)) };
            let element = if is_load { loaded } else { stored };
            // A vector access is one call per lane.
            let (lane_type, lanes) = match ir::vector_lanes(t) {
                Some(n) => (ir::scalar_of(t), n),
                None => (t, 1),
            };
            if !movable(module, lane_type, element) {
                let what = if is_load { "loads" } else { "stores" };
                let f = if is_load { d.load } else { d.store };
                diags.push(
                    at_call(
                        *a,
                        format!(
                            "this {} a `{}` through the pointer from `{entry}`, whose {} function `{}` takes `{}`",
                            what,
                            ir::print_type(t),
                            if is_load { "load" } else { "store" },
                            display_name(&ir::name(f)),
                            ir::print_type(element)
                        ),
                    )
                    .with_help("give the pointer the type its functions move (a `double *` for functions of doubles)"),
                );
                continue;
            }
            LLVMPositionBuilderBefore(b, *a);
            let base = LLVMBuildPtrToInt(b, address, i64t, c"dense.offset".as_ptr());
            let lane_bytes = ir::store_size(ir::parent_function(*a), lane_type) as u64;
            let mut result = LLVMGetPoison(t);
            for lane in 0..lanes {
                let offset = if lane == 0 {
                    base
                } else {
                    LLVMBuildAdd(b, base, LLVMConstInt(i64t, lane as u64 * lane_bytes, 0), c"".as_ptr())
                };
                let f = if is_load { d.load } else { d.store };
                let offset_param = ir::type_of(ir::params(f)[if is_load { 0 } else { 1 }]);
                let offset = LLVMBuildIntCast2(b, offset, offset_param, 1, c"".as_ptr());
                let mut args: Vec<Value> = Vec::new();
                if !is_load {
                    let v = ir::operand(*a, 0);
                    let v = if lanes > 1 {
                        LLVMBuildExtractElement(b, v, LLVMConstInt(i64t, lane as u64, 0), c"".as_ptr())
                    } else {
                        v
                    };
                    args.push(convert(b, v, element));
                }
                args.push(offset);
                args.extend(d.args.iter().copied());
                let call = LLVMBuildCall2(
                    b,
                    ir::function_type(f),
                    f,
                    args.as_mut_ptr(),
                    args.len() as u32,
                    if is_load { c"dense.load".as_ptr() } else { c"".as_ptr() },
                );
                ir::copy_debug_location(*a, call);
                if is_load {
                    let v = convert(b, call, lane_type);
                    result = if lanes > 1 {
                        LLVMBuildInsertElement(b, result, v, LLVMConstInt(i64t, lane as u64, 0), c"".as_ptr())
                    } else {
                        v
                    };
                }
            }
            if is_load {
                values.insert(*a, result);
            }
            done.push(*a);
        }
        LLVMDisposeBuilder(b);
        if !diags.is_empty() {
            return Err(diags);
        }
        for a in done {
            if let Some(v) = values.get(&a) {
                LLVMReplaceAllUsesWith(a, *v);
            }
            LLVMInstructionEraseFromParent(a);
        }
        // Addresses are offsets from null now: no `inbounds` (which would
        // make them poison).
        for a in &r.addresses {
            if ir::opcode(*a) == LLVMGetElementPtr {
                LLVMSetIsInBounds(*a, 0);
                LLVMGEPSetNoWrapFlags(*a, 0);
            }
        }
        LLVMReplaceAllUsesWith(d.call, LLVMConstNull(ir::type_of(d.call)));
        LLVMInstructionEraseFromParent(d.call);
    }
    Ok(())
}

/// Whether a value of type `from` can be handed on as `to` (the same type,
/// or bits of the same size).
fn movable(module: llvm_sys::prelude::LLVMModuleRef, from: ir::Type, to: ir::Type) -> bool {
    if from == to {
        return true;
    }
    let scalar = |t: ir::Type| ir::is_int(t) || ir::is_float(t);
    scalar(from)
        && scalar(to)
        && unsafe {
            let layout = llvm_sys::target::LLVMGetModuleDataLayout(module);
            llvm_sys::target::LLVMSizeOfTypeInBits(layout, from) == llvm_sys::target::LLVMSizeOfTypeInBits(layout, to)
        }
}

fn convert(b: llvm_sys::prelude::LLVMBuilderRef, v: Value, to: ir::Type) -> Value {
    if ir::type_of(v) == to {
        v
    } else {
        unsafe { LLVMBuildBitCast(b, v, to, c"".as_ptr()) }
    }
}
