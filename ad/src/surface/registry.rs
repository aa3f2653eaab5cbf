//! What a program tells the engine outside the `__enzyme_*` calls themselves,
//! in Enzyme's spellings: registration globals (`__enzyme_inactivefn`,
//! `__enzyme_function_like`, ...), `annotate("enzyme_...")` annotations,
//! `enzyme_*` function attributes, and the helpers
//! `__enzyme_ignore_derivatives(x)` and `__enzyme_call_inactive(f, ...)`.
//!
//! [`read`] turns them into attributes the other modules query (a function
//! or call attribute `enzyme_inactive`, a function attribute
//! `enzyme_math`=name, `!enzyme_inactive` on a global), before the module is
//! optimised: the functions named are kept out of line until differentiation
//! is done, or the optimiser would inline them and their own bodies would be
//! differentiated. Anything named like Enzyme's API that the engine does not
//! implement is an error here, never ignored.

use llvm_sys::core::*;
use llvm_sys::prelude::*;

use crate::ir::attrs::{fn_attr_value, has_fn_attr, set_fn_attr, string_attr, string_attrs};
use crate::ir::diag::Diagnostic;
use crate::ir::names::display_name;
use crate::ir::{self, Value};

/// Function (or call-site) attribute: calls carry no derivative and run as they are.
pub const INACTIVE: &str = "enzyme_inactive";
/// Function attribute: calls are differentiated with the rule of the math
/// function named by the value (`enzyme_math`=`log1p`).
pub const MATH: &str = "enzyme_math";
/// Function attribute: an allocator (`__enzyme_allocation_like`); the value
/// is the index of its size argument.
const ALLOCATOR: &str = "enzyme_allocator";
/// Function attribute of an allocator: the name of its deallocation function.
const DEALLOCATOR_FN: &str = "enzyme_deallocator_fn";
/// Function attribute: a deallocation function of a registered allocator.
const DEALLOCATOR: &str = "enzyme_deallocator";
/// Function attribute (and annotation): a call that adds an entry to sparse
/// storage, for Enzyme's automatic sparsification, which this engine does
/// not do; the calls run as written.
const SPARSE_ACCUMULATE: &str = "enzyme_sparse_accumulate";

/// Marks functions this module made `noinline` (undone after differentiation).
const HELD_OUT_OF_LINE: &str = "enzyme-rs.held-out-of-line";

/// The stop-gradient helper: replaced by its argument after differentiation.
pub(crate) const IGNORE_DERIVATIVES: &str = "__enzyme_ignore_derivatives";
const CALL_INACTIVE: &str = "__enzyme_call_inactive";

/// Registration globals, by name prefix.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Registration {
    InactiveFn,
    InactiveGlobal,
    FunctionLike,
    NoFree,
    /// `{f, augmented_forward, reverse}`: a custom reverse-mode derivative.
    Gradient,
    /// `{f, forward}`: a custom forward-mode derivative.
    Derivative,
    /// `{f, augmented_forward, split_forward}`: a custom split forward-mode
    /// derivative (`__enzyme_fwdsplit`).
    SplitDerivative,
    /// `{alloc, size argument, "-1", free}`: an allocator and its deallocator.
    AllocationLike,
}

const REGISTRATIONS: &[(&str, Registration)] = &[
    ("__enzyme_inactivefn", Registration::InactiveFn),
    ("__enzyme_inactive_global", Registration::InactiveGlobal),
    ("__enzyme_function_like", Registration::FunctionLike),
    ("__enzyme_nofree", Registration::NoFree),
    ("__enzyme_register_gradient", Registration::Gradient),
    ("__enzyme_register_derivative", Registration::Derivative),
    ("__enzyme_register_splitderivative", Registration::SplitDerivative),
    ("__enzyme_allocation_like", Registration::AllocationLike),
];

/// Marker globals of Enzyme's calling convention (checked where they are
/// passed, in [`crate::surface::markers`]).
fn is_marker_name(name: &str) -> bool {
    crate::surface::markers::is_known_marker(name)
}

/// Reads every registration, annotation and attribute in Enzyme's spelling
/// and applies it; returns an error for each one the engine does not
/// implement. Idempotent: the driver calls it before optimising the merged
/// module, [`crate::differentiate`] again (for callers that did not).
pub fn read(module: LLVMModuleRef) -> Result<(), Vec<Diagnostic>> {
    let mut diags = Vec::new();
    read_globals(module, &mut diags);
    read_annotations(module, &mut diags);
    for g in ir::globals(module) {
        if is_inactive_global(g) {
            crate::surface::inactive_reads::cut(module, g);
        }
    }
    read_functions(module, &mut diags);
    recognise_rust_libm(module);
    hold_out_of_line(module);
    if diags.is_empty() {
        Ok(())
    } else {
        Err(diags)
    }
}

fn read_globals(module: LLVMModuleRef, diags: &mut Vec<Diagnostic>) {
    for g in ir::globals(module) {
        let name = ir::name(g);
        if name.starts_with("__enzyme_") {
            let Some((_, kind)) = REGISTRATIONS.iter().find(|(p, _)| name.starts_with(p)) else {
                diags.push(at_global(g, format!("unknown Enzyme registration global `{name}`")).with_help(
                    "the engine reads __enzyme_register_gradient_*, __enzyme_register_derivative_*, \
                     __enzyme_register_splitderivative_*, __enzyme_allocation_like, \
                     __enzyme_inactivefn, __enzyme_inactive_global, __enzyme_function_like and __enzyme_nofree; \
                     rename the global if it is not meant for Enzyme",
                ));
                continue;
            };
            apply_registration(g, &name, *kind, diags);
        } else if name.starts_with("enzyme_") && !is_marker_name(&name) && used_outside_entry_calls(g, 0) {
            diags.push(at_global(g, format!("unknown Enzyme marker `{name}`")).with_help(
                "activity markers are enzyme_out, enzyme_const, enzyme_dup and enzyme_dupnoneed; rename the \
                 global if it is not meant for Enzyme",
            ));
        }
    }
}

fn apply_registration(g: Value, name: &str, kind: Registration, diags: &mut Vec<Diagnostic>) {
    let elems = initializer_elements(g);
    if elems.is_empty() && unsafe { LLVMIsDeclaration(g) } != 0 {
        // Declared here, defined in another object: read where it is defined.
        return;
    }
    match kind {
        Registration::InactiveFn | Registration::NoFree => {
            for e in elems {
                match ir::strip_to_function(e) {
                    Some(f) if kind == Registration::InactiveFn => set_fn_attr(f, INACTIVE, ""),
                    Some(f) => ir::add_function_attr(f, "nofree"),
                    None => diags.push(at_global(g, format!("`{name}` lists something that is not a function"))),
                }
            }
        }
        Registration::InactiveGlobal => {
            for e in elems {
                match ir::constant_root(e) {
                    Some(v) => mark_inactive_global(v),
                    None => diags.push(at_global(g, format!("`{name}` lists something that is not a global variable"))),
                }
            }
        }
        Registration::FunctionLike => {
            let pair = (elems.first().and_then(|f| ir::strip_to_function(*f)), elems.get(1).and_then(|s| c_string(*s)));
            match pair {
                (Some(f), Some(math)) if elems.len() == 2 => set_function_like(f, &math, g, diags),
                _ => diags.push(
                    at_global(g, format!("`{name}` must be `{{(void*)function, (void*)\"math function name\"}}`"))
                        .with_help("e.g. `void *__enzyme_function_like[2] = {(void *)my_log1p, (void *)\"log1p\"};`"),
                ),
            }
        }
        Registration::Gradient | Registration::Derivative | Registration::SplitDerivative => {
            let fns: Vec<Option<Value>> = elems.iter().map(|e| ir::strip_to_function(*e)).collect();
            let (want, usage) = match kind {
                Registration::Gradient => (
                    3,
                    "`void *__enzyme_register_gradient_f[3] = {(void *)f, (void *)augmented_f, (void *)reverse_f};`",
                ),
                Registration::SplitDerivative => (
                    3,
                    "`void *__enzyme_register_splitderivative_f[3] = {(void *)f, (void *)augmented_f, \
                     (void *)split_forward_f};`",
                ),
                _ => (2, "`void *__enzyme_register_derivative_f[2] = {(void *)f, (void *)forward_f};`"),
            };
            if fns.len() != want || fns.iter().any(Option::is_none) {
                let extra =
                    if fns.len() > want { " (extra entries such as \"byref_N\" are not supported yet)" } else { "" };
                diags.push(
                    at_global(g, format!("`{name}` must list {want} functions{extra}"))
                        .with_help(format!("write it as {usage}")),
                );
                return;
            }
            let fns: Vec<Value> = fns.into_iter().flatten().collect();
            let second = match kind {
                Registration::Gradient => crate::surface::custom::GRADIENT,
                Registration::SplitDerivative => crate::surface::custom::SPLIT_DERIVATIVE,
                _ => {
                    crate::surface::custom::register(fns[0], crate::surface::custom::DERIVATIVE, fns[1]);
                    return;
                }
            };
            if let Err(e) = crate::surface::custom::register_augment(fns[0], fns[1]) {
                diags.push(at_global(g, e).with_help(
                    "one augmented call serves both __enzyme_reverse and __enzyme_fwdsplit: register the same \
                     augmented function in __enzyme_register_gradient_* and __enzyme_register_splitderivative_*",
                ));
                return;
            }
            crate::surface::custom::register(fns[0], second, fns[2]);
        }
        Registration::AllocationLike => {
            let alloc = elems.first().and_then(|e| ir::strip_to_function(*e));
            let free = elems.get(3).and_then(|e| ir::strip_to_function(*e));
            let size = elems.get(1).and_then(|e| constant_index(*e));
            let which = elems.get(2).and_then(|e| c_string(*e));
            match (alloc, size, which.as_deref(), free) {
                (Some(a), Some(k), Some("-1"), Some(fr)) if elems.len() == 4 && k < ir::params(a).len() as u64 => {
                    set_fn_attr(a, ALLOCATOR, &k.to_string());
                    set_fn_attr(a, DEALLOCATOR_FN, &ir::name(fr));
                    set_fn_attr(fr, DEALLOCATOR, "");
                }
                _ => diags.push(
                    at_global(
                        g,
                        format!(
                            "`{name}` must be `{{(void *)allocate, (void *)SIZE_ARGUMENT, (void *)\"-1\", (void *)free}}`"
                        ),
                    )
                    .with_help(
                        "the allocator's size argument by index, and \"-1\": its result is what the deallocator frees \
                         (other deallocation indices are not supported yet)",
                    ),
                ),
            }
        }
    }
}

fn set_function_like(f: Value, math: &str, at: Value, diags: &mut Vec<Diagnostic>) {
    let fname = display_name(&ir::name(f));
    let rank = ir::float_rank(ir::return_type(f));
    if !ir::is_float(ir::return_type(f)) || crate::rules::for_callee(math, rank).is_none() {
        diags.push(
            at_global(at, format!("`{fname}` is declared to be like `{math}`, which has no derivative rule"))
                .with_help("name a math function with a rule (exp, log, log1p, sin, pow, ...), of the same type"),
        );
        return;
    }
    set_fn_attr(f, MATH, math);
}

/// `llvm.global.annotations`: `__attribute__((annotate("enzyme_inactive")))`
/// on definitions (clang records annotations of definitions only).
fn read_annotations(module: LLVMModuleRef, diags: &mut Vec<Diagnostic>) {
    let g = unsafe { LLVMGetNamedGlobal(module, c"llvm.global.annotations".as_ptr()) };
    if g.is_null() {
        return;
    }
    for entry in initializer_elements(g) {
        if ir::operand_count(entry) < 2 {
            continue;
        }
        let (target, text) = (ir::operand(entry, 0), c_string(ir::operand(entry, 1)));
        let Some(text) = text.filter(|t| t.starts_with("enzyme_")) else { continue };
        let file = c_string(ir::operand(entry, 2)).unwrap_or_default();
        let line = unsafe {
            let l = ir::operand(entry, 3);
            if LLVMIsAConstantInt(l).is_null() {
                0
            } else {
                LLVMConstIntGetZExtValue(l) as u32
            }
        };
        let at = || {
            let mut d = Diagnostic::new(String::new());
            if line > 0 {
                d.location = Some(crate::ir::diag::SourceLocation {
                    directory: String::new(),
                    file: file.clone(),
                    line,
                    column: 0,
                });
            }
            d
        };
        let f = ir::strip_to_function(target);
        let global = ir::constant_root(target);
        match (text.as_str(), f, global) {
            ("enzyme_inactive", Some(f), _) => set_fn_attr(f, INACTIVE, ""),
            ("enzyme_inactive", None, Some(v)) => mark_inactive_global(v),
            ("enzyme_nofree", Some(f), _) => ir::add_function_attr(f, "nofree"),
            (t, Some(f), _) if t.starts_with("enzyme_function_like=") => {
                let math = &t["enzyme_function_like=".len()..];
                let mut sub = Vec::new();
                set_function_like(f, math, f, &mut sub);
                diags.extend(sub.into_iter().map(|mut d| {
                    d.location = d.location.or(at().location);
                    d
                }));
            }
            (t, None, Some(v)) if t.starts_with("enzyme_shadow=") => {
                let symbol = &t["enzyme_shadow=".len()..];
                let shadow = unsafe { LLVMGetNamedGlobal(module, ir::cstring(symbol).as_ptr()) };
                if shadow.is_null() || unsafe { LLVMGlobalGetValueType(shadow) != LLVMGlobalGetValueType(v) } {
                    let mut d = at();
                    d.message = format!(
                        "`{}` is declared `enzyme_shadow({})`, which is not a global of the same type",
                        display_name(&ir::name(v)),
                        display_name(symbol)
                    );
                    diags.push(
                        d.with_help("the shadow of a global is a global of the same type, defined in the program"),
                    );
                } else {
                    set_user_shadow(v, shadow);
                }
            }
            // Leave to Enzyme's automatic sparsification to visit only the
            // entries such a call receives; enzyme-rs does not sparsify
            // (`-enzyme-auto-sparsity` is refused), so the call runs as the
            // program wrote it, and the derivative is the same either way.
            (SPARSE_ACCUMULATE, Some(_), _) => {}
            ("enzyme_sparse_accumulate" | "enzyme_shouldrecompute", _, _) => {
                let mut d = at();
                let name = display_name(&ir::name(f.or(global).unwrap_or(target)));
                d.message = format!("Enzyme annotation `{text}` on `{name}` is not supported yet");
                diags.push(d.with_help(
                    "the derivative would silently ignore it; remove it if the derivative without it is what you want",
                ));
            }
            _ => {
                let mut d = at();
                d.message = format!("unknown Enzyme annotation `{text}`");
                diags.push(d.with_help(
                    "annotations the engine reads: enzyme_inactive (functions, globals), enzyme_nofree, \
                     enzyme_function_like=<math function>, enzyme_shadow=<global>",
                ));
            }
        }
    }
}

/// Function attributes in Enzyme's spelling, and calls of `__enzyme_*`
/// functions the engine does not implement.
fn read_functions(module: LLVMModuleRef, diags: &mut Vec<Diagnostic>) {
    for f in ir::functions(module) {
        for a in string_attrs(f) {
            if a.starts_with("enzyme_")
                && ![INACTIVE, MATH, ALLOCATOR, DEALLOCATOR, DEALLOCATOR_FN, SPARSE_ACCUMULATE].contains(&a.as_str())
            {
                diags.push(
                    at_function(f, format!("unknown Enzyme attribute `{a}` on `{}`", display_name(&ir::name(f))))
                        .with_help(
                            "attributes the engine reads: enzyme_inactive, enzyme_math, enzyme_sparse_accumulate",
                        ),
                );
            }
        }
        let name = ir::name(f);
        if !is_enzyme_api_name(&name) {
            continue;
        }
        if crate::surface::entry_points::entry_point(&name).is_some() || crate::ir::kind::type_hint(&name).is_some() {
            continue;
        }
        if is_ignore_derivatives(&name) || crate::surface::entry_points::is_todense(&name) {
            continue;
        }
        if name == CALL_INACTIVE {
            for call in call_sites_of(f) {
                if let Err(d) = lower_call_inactive(call) {
                    diags.push(d);
                }
            }
            continue;
        }
        if name == crate::surface::checkpoint::CHECKPOINT_FOR || name == crate::surface::checkpoint::CHECKPOINT_WHILE {
            let while_loop = name == crate::surface::checkpoint::CHECKPOINT_WHILE;
            for call in call_sites_of(f) {
                if let Err(d) = crate::surface::checkpoint::lower(module, call, while_loop) {
                    diags.push(*d);
                }
            }
            continue;
        }
        if let Some(call) = call_sites_of(f).into_iter().next() {
            let mut d = Diagnostic::new(format!("`{}` is not supported", display_name(&name)));
            d.location = ir::location(call);
            d.function = Some(display_name(&ir::name(ir::parent_function(call))));
            diags.push(d.with_help(
                "the engine implements __enzyme_autodiff, __enzyme_fwddiff, __enzyme_ignore_derivatives, \
                 __enzyme_call_inactive and the type hints __enzyme_double/float/integer/pointer",
            ));
        }
    }
}

/// The `libm` crate's functions are ports of C's libm with C's names and
/// meanings; their bodies reinterpret float bits, which has no derivative.
/// Each one whose name and types are those of a math function with a rule
/// is differentiated by that rule (and kept out of line until then), as
/// `__enzyme_function_like` would do; its body still computes the primal.
/// `cargo enzyme` compiles the crate with every function `noinline`, so that
/// rustc's link-time optimisation leaves the calls (the crate itself never
/// asks for that): they may be inlined again once derivatives are made.
fn recognise_rust_libm(module: LLVMModuleRef) {
    let noinline = ir::attr_kind("noinline");
    for f in ir::functions(module) {
        if ir::is_declaration(f) {
            continue;
        }
        let Some(path) = rust_libm_path(&ir::name(f)) else { continue };
        if unsafe { !LLVMGetEnumAttributeAtIndex(f, llvm_sys::LLVMAttributeFunctionIndex, noinline).is_null() } {
            set_fn_attr(f, HELD_OUT_OF_LINE, "");
        }
        let Some(math) = math_name(&path) else { continue };
        let ret = ir::return_type(f);
        if !ir::is_float(ret) || has_fn_attr(f, MATH) {
            continue;
        }
        let Some(rule) = crate::rules::for_callee(math, ir::float_rank(ret)) else { continue };
        let params = ir::params(f);
        let fits = params.len() == rule.int_params.len()
            && params.iter().zip(&rule.int_params).all(|(p, int)| {
                let t = ir::type_of(*p);
                if *int {
                    ir::is_int(t)
                } else {
                    t == ret
                }
            });
        if fits {
            set_fn_attr(f, MATH, math);
        } else {
            set_fn_attr(f, RESHAPED_LIBM, math);
        }
    }
}

/// Function attribute: a function of the `libm` crate named like a math
/// function with a rule, whose parameters rustc's optimiser changed (the
/// value is the math function's name).
const RESHAPED_LIBM: &str = "enzyme-rs.reshaped-libm";

/// The math function a `libm` crate function is named like, where rustc's
/// optimiser changed its parameters so that no rule fits.
pub(crate) fn reshaped_libm(f: Value) -> Option<String> {
    fn_attr_value(f, RESHAPED_LIBM)
}

/// `libm::math::exp::exp` for a function of the `libm` crate (Rust's legacy
/// or v0 mangling; generic arguments dropped); `None` for anything else.
fn rust_libm_path(symbol: &str) -> Option<String> {
    let path = format!("{:#}", rustc_demangle::try_demangle(symbol).ok()?);
    let path = path.split("::<").next().unwrap_or(&path);
    path.starts_with("libm::").then(|| path.to_string())
}

/// `exp` for `libm::math::exp::exp`: the crate's math functions carry C's names.
fn math_name(path: &str) -> Option<&str> {
    let last = path.strip_prefix("libm::math::")?.rsplit("::").next()?;
    last.chars().all(|c| c.is_ascii_alphanumeric() || c == '_').then_some(last)
}

/// A function name of Enzyme's C API: `__enzyme_...`, or its Itanium
/// mangling for a top-level C++ function (`_Z17__enzyme_autodiff...`).
pub(crate) fn is_enzyme_api_name(name: &str) -> bool {
    if name.starts_with("__enzyme_") {
        return true;
    }
    let Some(rest) = name.strip_prefix("_Z") else { return false };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && rest[digits..].starts_with("__enzyme_")
}

/// `__enzyme_call_inactive(f, args...)` becomes `f(args...)` marked inactive.
fn lower_call_inactive(call: Value) -> Result<(), Diagnostic> {
    let fail = |why: &str| {
        let mut d = Diagnostic::new(format!("cannot lower `{CALL_INACTIVE}`: {why}"));
        d.location = ir::location(call);
        d.function = Some(display_name(&ir::name(ir::parent_function(call))));
        d.with_help("call it as `__enzyme_call_inactive((void *)f, arguments of f...)`")
    };
    if ir::opcode(call) != llvm_sys::LLVMOpcode::LLVMCall || ir::call_arg_count(call) == 0 {
        return Err(fail("it must be a plain call with the function first"));
    }
    let Some(f) = ir::strip_to_function(ir::operand(call, 0)) else {
        return Err(fail("its first argument is not a known function"));
    };
    let params = ir::params(f);
    let n = ir::call_arg_count(call) as usize - 1;
    if params.len() != n
        || params.iter().enumerate().any(|(k, p)| ir::type_of(*p) != ir::type_of(ir::operand(call, k as u32 + 1)))
    {
        return Err(fail("its arguments do not match the function's parameters"));
    }
    let rt = ir::return_type(f);
    let call_ty = ir::type_of(call);
    if !ir::is_void(call_ty) && has_uses(call) && call_ty != rt {
        return Err(fail("its declared result type differs from the function's"));
    }
    unsafe {
        let ctx = LLVMGetTypeContext(call_ty);
        let b = LLVMCreateBuilderInContext(ctx);
        LLVMPositionBuilderBefore(b, call);
        let mut args: Vec<Value> = (1..=n as u32).map(|k| ir::operand(call, k)).collect();
        let new = LLVMBuildCall2(b, ir::function_type(f), f, args.as_mut_ptr(), args.len() as u32, c"".as_ptr());
        LLVMDisposeBuilder(b);
        let attr = string_attr(ctx, INACTIVE, "");
        LLVMAddCallSiteAttribute(new, llvm_sys::LLVMAttributeFunctionIndex, attr);
        let noinline = LLVMCreateEnumAttribute(ctx, ir::attr_kind("noinline"), 0);
        LLVMAddCallSiteAttribute(new, llvm_sys::LLVMAttributeFunctionIndex, noinline);
        ir::copy_debug_location(call, new);
        if has_uses(call) {
            LLVMReplaceAllUsesWith(call, new);
        }
        LLVMInstructionEraseFromParent(call);
    }
    Ok(())
}

/// Whether a call carries no derivative: its callee is registered inactive,
/// or the call itself is (`__enzyme_call_inactive`).
pub(crate) fn is_inactive_call(call: Value, callee: Value) -> bool {
    has_fn_attr(callee, INACTIVE)
        || unsafe {
            let k = INACTIVE;
            !LLVMGetCallSiteStringAttribute(
                call,
                llvm_sys::LLVMAttributeFunctionIndex,
                k.as_ptr() as *const _,
                k.len() as u32,
            )
            .is_null()
        }
}

/// The math function a function is declared to behave like.
pub(crate) fn function_like(f: Value) -> Option<String> {
    fn_attr_value(f, MATH)
}

/// Whether a function is a stop-gradient: the user's
/// `__enzyme_ignore_derivatives`, or one of ours cutting reads of inactive
/// globals ([`crate::surface::inactive_reads`]).
pub(crate) fn is_ignore_derivatives(name: &str) -> bool {
    name == IGNORE_DERIVATIVES || crate::surface::inactive_reads::is_helper(name)
}

/// Whether a global is registered inactive: derivatives never flow through it.
pub(crate) fn is_inactive_global(g: Value) -> bool {
    ir::global_metadata(g, INACTIVE).is_some()
}

/// Whether a call must stay a call when its caller is differentiated (not
/// cloned and inlined): the callee has a registered meaning of its own.
pub(crate) fn keeps_call(call: Value, callee: Value) -> bool {
    is_inactive_call(call, callee)
        || function_like(callee).is_some()
        || reshaped_libm(callee).is_some()
        || crate::surface::custom::rules_of(callee).is_some()
        || has_fn_attr(callee, ALLOCATOR)
        || has_fn_attr(callee, DEALLOCATOR)
}

/// The allocator a function is registered as (`__enzyme_allocation_like`).
/// Made once per function and kept for the process, as the built-in ones are.
pub(crate) fn allocation_like(f: Value) -> Option<&'static crate::ir::kind::Allocator> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static MADE: OnceLock<Mutex<HashMap<(String, String, u32), &'static crate::ir::kind::Allocator>>> = OnceLock::new();
    let size_arg: u32 = fn_attr_value(f, ALLOCATOR)?.parse().ok()?;
    let free = fn_attr_value(f, DEALLOCATOR_FN)?;
    let key = (ir::name(f), free, size_arg);
    let mut made = MADE.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    let a = made.entry(key.clone()).or_insert_with(|| {
        Box::leak(Box::new(crate::ir::kind::Allocator {
            name: Box::leak(key.0.into_boxed_str()),
            free: Box::leak(key.1.into_boxed_str()),
            zeroed: false,
            size_arg,
            free_align_arg: None,
        }))
    });
    Some(*a)
}

/// Whether a function is the deallocation function of a registered allocator.
pub(crate) fn is_deallocation_like(f: Value) -> bool {
    has_fn_attr(f, DEALLOCATOR)
}

/// After differentiation: registered functions may be inlined again, and
/// `__enzyme_ignore_derivatives(x)` becomes `x`.
pub(crate) fn finish(module: LLVMModuleRef) {
    for f in ir::functions(module) {
        if has_fn_attr(f, HELD_OUT_OF_LINE) {
            unsafe {
                LLVMRemoveEnumAttributeAtIndex(f, llvm_sys::LLVMAttributeFunctionIndex, ir::attr_kind("noinline"));
                let k = HELD_OUT_OF_LINE;
                LLVMRemoveStringAttributeAtIndex(
                    f,
                    llvm_sys::LLVMAttributeFunctionIndex,
                    k.as_ptr() as *const _,
                    k.len() as u32,
                );
            }
        }
        if is_ignore_derivatives(&ir::name(f)) {
            for call in calls_of(f) {
                unsafe {
                    if ir::call_arg_count(call) >= 1 && ir::type_of(ir::operand(call, 0)) == ir::type_of(call) {
                        LLVMReplaceAllUsesWith(call, ir::operand(call, 0));
                    } else if !ir::is_void(ir::type_of(call)) {
                        LLVMReplaceAllUsesWith(call, LLVMGetPoison(ir::type_of(call)));
                    }
                    LLVMInstructionEraseFromParent(call);
                }
            }
            if crate::surface::inactive_reads::is_helper(&ir::name(f)) && unsafe { LLVMGetFirstUse(f).is_null() } {
                unsafe { LLVMDeleteFunction(f) };
            }
        }
    }
}

/// Functions with a registered meaning stay out of line until differentiation is done.
fn hold_out_of_line(module: LLVMModuleRef) {
    let noinline = ir::attr_kind("noinline");
    for f in ir::functions(module) {
        let registered = has_fn_attr(f, INACTIVE)
            || has_fn_attr(f, MATH)
            || has_fn_attr(f, ALLOCATOR)
            || has_fn_attr(f, DEALLOCATOR)
            || crate::surface::custom::rules_of(f).is_some();
        if !registered || ir::is_declaration(f) {
            continue;
        }
        unsafe {
            if LLVMGetEnumAttributeAtIndex(f, llvm_sys::LLVMAttributeFunctionIndex, noinline).is_null() {
                ir::add_function_attr(f, "noinline");
                set_fn_attr(f, HELD_OUT_OF_LINE, "");
            }
        }
    }
}

/// Metadata naming the user's shadow of a global (`enzyme_shadow(dg)`).
const USER_SHADOW: &str = "enzyme_shadow";

fn set_user_shadow(g: Value, shadow: Value) {
    ir::set_global_metadata(g, USER_SHADOW, Some(shadow));
}

/// The shadow the user gave a global (`enzyme_shadow(dg)`, or Enzyme's
/// `!enzyme_shadow` metadata): derivatives of the global accumulate there,
/// and the engine neither makes nor zeroes a shadow of its own.
pub(crate) fn user_shadow(g: Value) -> Option<Value> {
    let ops = ir::global_metadata(g, USER_SHADOW)?;
    ops.first().copied().filter(|op| !op.is_null() && unsafe { !LLVMIsAGlobalVariable(*op).is_null() })
}

fn mark_inactive_global(g: Value) {
    ir::set_global_metadata(g, INACTIVE, None);
}

/// The elements of a global's initializer: an array's or struct's operands,
/// or the one value.
fn initializer_elements(g: Value) -> Vec<Value> {
    unsafe {
        let init = LLVMGetInitializer(g);
        if init.is_null() {
            return Vec::new();
        }
        if !LLVMIsAConstantArray(init).is_null() || !LLVMIsAConstantStruct(init).is_null() {
            (0..ir::operand_count(init)).map(|k| ir::operand(init, k)).collect()
        } else if !LLVMIsAConstantAggregateZero(init).is_null() {
            Vec::new()
        } else {
            vec![init]
        }
    }
}

/// A small integer given as a pointer constant (`(void *)0`, `(void *)2`).
fn constant_index(v: Value) -> Option<u64> {
    unsafe {
        if !LLVMIsAConstantPointerNull(v).is_null() {
            return Some(0);
        }
        if !LLVMIsAConstantExpr(v).is_null() && LLVMGetConstOpcode(v) == llvm_sys::LLVMOpcode::LLVMIntToPtr {
            let i = LLVMGetOperand(v, 0);
            if !LLVMIsAConstantInt(i).is_null() {
                return Some(LLVMConstIntGetZExtValue(i));
            }
        }
    }
    None
}

/// The text of a constant C string (`(void *)"log1p"`), through casts.
fn c_string(v: Value) -> Option<String> {
    unsafe {
        let mut v = v;
        for _ in 0..4 {
            if !LLVMIsAConstantExpr(v).is_null() {
                v = LLVMGetOperand(v, 0);
            }
        }
        if LLVMIsAGlobalVariable(v).is_null() {
            return None;
        }
        let init = LLVMGetInitializer(v);
        if init.is_null() || LLVMIsConstantString(init) == 0 {
            return None;
        }
        let mut len = 0usize;
        let p = LLVMGetAsString(init, &mut len);
        let bytes = std::slice::from_raw_parts(p as *const u8, len);
        let bytes = bytes.split(|b| *b == 0).next().unwrap_or(&[]);
        Some(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// Whether a value is used other than as an argument of `__enzyme_*` entry
/// point calls, directly or loaded (those calls report unknown markers
/// themselves, with their location).
fn used_outside_entry_calls(v: Value, depth: u32) -> bool {
    let mut u = unsafe { LLVMGetFirstUse(v) };
    while !u.is_null() {
        unsafe {
            let user = LLVMGetUser(u);
            u = LLVMGetNextUse(u);
            let entry_call = !LLVMIsACallInst(user).is_null()
                && ir::called_function(user)
                    .is_some_and(|f| crate::surface::entry_points::entry_point(&ir::name(f)).is_some());
            if entry_call {
                continue;
            }
            if !LLVMIsALoadInst(user).is_null() && depth < 2 && !used_outside_entry_calls(user, depth + 1) {
                continue;
            }
            return true;
        }
    }
    false
}

fn has_uses(v: Value) -> bool {
    unsafe { !LLVMGetFirstUse(v).is_null() }
}

/// The calls and invokes of `f` (C++ calls a function that may throw with
/// an `invoke` where cleanups are pending).
pub(crate) fn call_sites_of(f: Value) -> Vec<Value> {
    ir::users(f).into_iter().filter(|u| ir::is_call_or_invoke(*u) && unsafe { LLVMGetCalledValue(*u) } == f).collect()
}

/// Direct calls of `f` (its other uses are left alone).
fn calls_of(f: Value) -> Vec<Value> {
    call_sites_of(f).into_iter().filter(|u| ir::opcode(*u) == llvm_sys::LLVMOpcode::LLVMCall).collect()
}

fn at_global(g: Value, message: String) -> Diagnostic {
    let mut d = Diagnostic::new(message);
    d.location = ir::location(g);
    d
}

fn at_function(f: Value, message: String) -> Diagnostic {
    let mut d = Diagnostic::new(message);
    d.location = ir::location(f);
    d
}

#[cfg(test)]
mod tests {
    use super::{math_name, rust_libm_path};

    #[test]
    fn names_the_libm_crates_functions() {
        let name = |s: &str| rust_libm_path(s).and_then(|p| math_name(&p).map(String::from));
        assert_eq!(name("_ZN4libm4math3exp3exp17h0123456789abcdefE").as_deref(), Some("exp"));
        assert_eq!(name("_ZN4libm4math5atan25atan217h0123456789abcdefE").as_deref(), Some("atan2"));
        assert_eq!(name("_RNvNtNtCs1a2b3c_4libm4math3exp3exp").as_deref(), Some("exp"));
        // The crate's other items, another crate's `exp`, and C's own.
        assert_eq!(
            rust_libm_path("_ZN4libm11libm_helper3foo17h0123456789abcdefE").as_deref(),
            Some("libm::libm_helper::foo")
        );
        assert_eq!(name("_ZN4libm11libm_helper3foo17h0123456789abcdefE"), None);
        assert_eq!(name("_ZN5other4math3exp3exp17h0123456789abcdefE"), None);
        assert_eq!(name("exp"), None);
    }
}
