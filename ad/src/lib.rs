//! The enzyme-rs automatic-differentiation engine.
//!
//! A library over one LLVM module: it finds Enzyme-style calls
//! (`__enzyme_autodiff`, `__enzyme_fwddiff`), synthesises the derivative
//! functions they ask for and replaces each call by a call of its
//! derivative. It spawns no processes and prints nothing; anything it cannot
//! differentiate correctly comes back as a [`Diagnostic`].
//!
//! Pipeline inside [`differentiate`]:
//! 1. `surface::markers` parses every entry-point call (function, activities, seed);
//! 2. `prepare::prep` clones the functions to differentiate and simplifies the clones;
//! 3. `prepare::checks` validates every instruction of the clones (by what
//!    `calls::classify` says each is, exhaustive over opcodes) and reports
//!    what is unsupported, before anything is generated;
//! 4. `generate::gen` builds forward and reverse derivatives using the
//!    [`rules`] table;
//! 5. `rewrite` replaces the calls, and the clones are deleted.
//!
//! The source is in layers, each a folder whose `mod.rs` says what it is; a
//! layer imports only from the layers below it (`tests/layers.rs` checks):
//! `rules`, `ir`, `build`, `surface`, `calls`, `libraries`, `analysis`,
//! `prepare`, `generate`, `rewrite`, and this file on top.

#![warn(missing_docs)]

mod analysis;
mod build;
mod calls;
mod generate;
mod ir;
mod libraries;
mod prepare;
mod rewrite;
pub mod rules;
mod surface;

use std::collections::{HashMap, HashSet};

use llvm_sys::core::*;
use llvm_sys::prelude::*;

pub use calls::classify::rule_example;
pub use ir::diag::{Diagnostic, SourceLocation};
pub use ir::names::display_name;
pub use ir::progress;
pub use surface::request::{Ablation, Mode};

/// The names of the globals that register derivative rules
/// (`__enzyme_register_gradient_f`, `_derivative_`, `_splitderivative_`):
/// the engine calls the functions they name and does not look inside them.
pub const RULE_REGISTRATION_PREFIX: &str = "__enzyme_register_";

/// Whether `name` is one the engine gives the derivatives it generates
/// (`diffe_f`, `diffeN_f`, `fwddiffe_f`, `fwddiffeN_f`, `augmented_f`; see
/// `gen`), for a driver that treats derivatives apart from the program's code.
pub fn is_derivative_name(name: &str) -> bool {
    ["diffe", "fwddiffe", "augmented_"].iter().any(|p| name.starts_with(p))
}

use crate::build::emit::Emitter;
use crate::generate::gen::Generator;
use crate::ir::Value;
use crate::surface::entry_points::{EntryPoint, SplitPart};
use crate::surface::markers::MarkerCall;

/// What [`differentiate`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Summary {
    /// One line per rewritten call: mode, function and where it was called from.
    pub calls: Vec<String>,
    /// Per generated derivative, what was found active, constant, shadowed
    /// (filled when [`Options::report_activity`] is set).
    pub activity: Vec<String>,
}

/// Options of [`differentiate_with`].
#[derive(Debug, Default, Clone)]
pub struct Options {
    /// Describe the activity and pointer analysis of every differentiated function.
    pub report_activity: bool,
    /// On failure, keep the preprocessed clones (`*.enzyme.prep`) in the
    /// module, for debugging the engine; the module must not be emitted then.
    pub keep_clones_on_error: bool,
    /// Run-time activity for every request (Enzyme's
    /// `-enzyme-runtime-activity`), as `enzyme_runtime_activity` gives it to one.
    pub runtime_activity: bool,
    /// Speed levers switched off, to measure what each buys.
    pub ablation: Ablation,
}

/// Reads what the program registers in Enzyme's spellings outside the
/// `__enzyme_*` calls (`__enzyme_inactivefn`, `__enzyme_function_like`,
/// `annotate("enzyme_inactive")`, ...) and keeps the functions named out of
/// line, so the optimiser does not inline them before differentiation. Call
/// it before optimising a module that [`differentiate`] will see; anything
/// spelled like Enzyme's API that the engine does not implement is an error.
pub fn read_registrations(module: &inkwell::module::Module<'_>) -> Result<(), Vec<Diagnostic>> {
    surface::registry::read(module.as_mut_ptr())
}

/// Differentiates every `__enzyme_autodiff` / `__enzyme_fwddiff` call in the
/// module, in place.
///
/// On error the module may hold partially generated code and must not be
/// emitted; every problem found is reported, not only the first.
pub fn differentiate(module: &inkwell::module::Module<'_>) -> Result<Summary, Vec<Diagnostic>> {
    differentiate_raw(module.as_mut_ptr(), &Options::default())
}

/// [`differentiate`] with options.
pub fn differentiate_with(module: &inkwell::module::Module<'_>, options: &Options) -> Result<Summary, Vec<Diagnostic>> {
    differentiate_raw(module.as_mut_ptr(), options)
}

/// [`differentiate`] on a raw LLVM module handle.
pub fn differentiate_raw(module: LLVMModuleRef, options: &Options) -> Result<Summary, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    if let Err(ds) = surface::registry::read(module) {
        diags.extend(ds);
    }
    simplify_callers(module);
    surface::entry_points::split_chosen_functions(module);
    let mut plans: Vec<MarkerCall> = Vec::new();
    diags.extend(surface::entry_points::address_taken(module));
    for (call, ep) in surface::entry_points::find(module) {
        match ep {
            Some(EntryPoint::Diff(mode)) => match surface::markers::parse(call, mode, None) {
                Ok(p) => plans.push(p),
                Err(d) => diags.push(d),
            },
            Some(EntryPoint::ErrorEstimate) => match surface::markers::parse(call, Mode::Forward, None) {
                Ok(p) => plans.push(MarkerCall { error_estimate: true, ..p }),
                Err(d) => diags.push(d),
            },
            Some(EntryPoint::Split(part)) => match surface::markers::parse(call, part.mode(), Some(part)) {
                Ok(p) => plans.push(p),
                Err(d) => diags.push(d),
            },
            Some(EntryPoint::VirtualReverse) => {
                if let Err(d) = virtual_reverse(module, call) {
                    diags.push(d)
                }
            }
            Some(EntryPoint::Batch) => {
                if let Err(d) = rewrite::batch::rewrite(module, call) {
                    diags.push(d)
                }
            }
            Some(EntryPoint::Unsupported(name)) => {
                diags.push(surface::markers::at_call(call, format!("`{name}` is not supported yet")).with_help(
                    "supported entry points: __enzyme_autodiff (reverse mode), __enzyme_fwddiff (forward mode)",
                ))
            }
            None => {}
        }
    }
    diags.extend(plans.iter().filter(|p| p.mode == Mode::Reverse).filter_map(|p| generate::grad_log::check(module, p)));
    diags.extend(plans.iter().flat_map(rewrite::call_site::constant_null_shadows));
    if !diags.is_empty() {
        return Err(diags);
    }
    // Higher order: a request whose code holds another request's call (the
    // inner derivative, `__enzyme_fwddiff` inside a function given to
    // `__enzyme_autodiff`) waits until that call has become a call of the
    // inner derivative; then the outer differentiates the inner's code.
    let mut summary = Summary::default();
    while !plans.is_empty() {
        let reach: Vec<HashSet<Value>> = plans.iter().map(reached_by).collect();
        let (ready, waiting): (Vec<usize>, Vec<usize>) = (0..plans.len()).partition(|&k| {
            !plans.iter().enumerate().any(|(j, q)| j != k && reach[k].contains(&ir::parent_function(q.call)))
        });
        if ready.is_empty() {
            return Err(plans
                .iter()
                .map(|p| {
                    surface::markers::at_call(
                        p.call,
                        format!(
                            "`{}` of `{}` is requested inside the code it differentiates",
                            p.entry_name(),
                            display_name(&ir::name(p.function))
                        ),
                    )
                    .with_help("a derivative cannot contain a request for itself; move the request out of the function")
                })
                .collect());
        }
        let mut all: Vec<Option<MarkerCall>> = plans.into_iter().map(Some).collect();
        let round: Vec<MarkerCall> = ready.iter().map(|k| all[*k].take().expect("once")).collect();
        plans = waiting.iter().map(|k| all[*k].take().expect("once")).collect();
        // Derivatives a later round differentiates again keep their tapes to
        // themselves: a buffer from the pool of kept tapes (a global) has no
        // shadow the outer derivative could follow; and their tape accesses
        // carry no alias scopes the outer derivative would copy onto shadows.
        let mut round_options = options.clone();
        round_options.ablation.no_tape_reuse |= !plans.is_empty();
        round_options.ablation.no_tape_scope |= !plans.is_empty();
        differentiate_round(module, &round, &round_options, &mut summary)?;
    }
    remove_type_hints(module);
    surface::registry::finish(module);
    surface::checkpoint::finish(module);
    define_leftover_markers(module);
    rewrite::todense::lower(module)?;
    Ok(summary)
}

/// `__enzyme_virtualreverse(p)`, the shadow of a vtable or function pointer
/// (Enzyme's way to give a shadow object its vtable: `*(void **)dobj =
/// __enzyme_virtualreverse(*(void **)dobj)`). Here a vtable or function is
/// its own shadow: calls through pointers are differentiated by dispatching
/// on the primal's target (see `dispatch`), so the call is the pointer itself.
fn virtual_reverse(module: LLVMModuleRef, call: Value) -> Result<(), Diagnostic> {
    let n = ir::call_arg_count(call);
    let arg = (n == 1).then(|| ir::operand(call, 0)).filter(|a| ir::is_pointer(ir::type_of(*a)));
    let (Some(a), true) = (arg, ir::is_pointer(ir::type_of(call))) else {
        return Err(surface::markers::at_call(
            call,
            "`__enzyme_virtualreverse` takes one pointer and returns one".into(),
        )
        .with_help("pass a vtable pointer or a function: `__enzyme_virtualreverse(*(void **)obj)`"));
    };
    let e = Emitter::new(module);
    e.before(call);
    build::emit::keep_invoke_edges(&e, call);
    unsafe {
        LLVMReplaceAllUsesWith(call, a);
        LLVMInstructionEraseFromParent(call);
    }
    Ok(())
}

/// Unoptimised (`-O0`) callers of entry points, where wrappers such as
/// `<enzyme/enzyme>`'s always-inlined helpers leave the markers and values
/// in stack slots: SSA form is made (SROA, early CSE) so each argument of the
/// call is seen as what it is; functions that hold an entry point as a
/// value are simplified too (the call through a local becomes direct, even
/// in optimised code where the pointer was not folded). `optnone` is taken
/// off those callers only.
fn simplify_callers(module: LLVMModuleRef) {
    let optnone = ir::attr_kind("optnone");
    let mut callers = Vec::new();
    for (call, ep) in surface::entry_points::find(module) {
        if ep.is_some() {
            let f = ir::parent_function(call);
            let unoptimised =
                unsafe { !LLVMGetEnumAttributeAtIndex(f, llvm_sys::LLVMAttributeFunctionIndex, optnone).is_null() };
            if unoptimised && !callers.contains(&f) {
                callers.push(f);
            }
        }
    }
    for f in surface::entry_points::functions_using_as_value(module) {
        if !callers.contains(&f) {
            callers.push(f);
        }
    }
    for f in callers {
        unsafe { LLVMRemoveEnumAttributeAtIndex(f, llvm_sys::LLVMAttributeFunctionIndex, optnone) };
        // Best effort: on failure the markers are read as they are.
        let _ = prepare::prep::run_passes(prepare::prep::PassTarget::Function(f), "sroa<modify-cfg>,early-cse");
    }
}

/// The functions a request differentiates: its function, the functions
/// given for its parameters, and what they call.
fn reached_by(plan: &MarkerCall) -> HashSet<Value> {
    let mut out = HashSet::new();
    let roots = std::iter::once(plan.function).chain(plan.known_functions().into_iter().flatten());
    for r in roots {
        out.extend(ir::reach::called_from(r));
    }
    out
}

/// Checks and generates the derivatives of a set of requests none of which
/// contains another's call, and rewrites their calls.
fn differentiate_round(
    module: LLVMModuleRef,
    plans: &[MarkerCall],
    options: &Options,
    summary: &mut Summary,
) -> Result<(), Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut gen = Generator::new(module);
    gen.report_activity = options.report_activity;
    gen.ablation = options.ablation;
    let mut checked: HashSet<(Value, Vec<bool>, Mode, surface::custom::RuleUse, bool)> = HashSet::new();
    // Sum steps (see `sum_loops`) change the clone that every request of the
    // same function shares, before any request is checked: only where each
    // of them calls a step as reverse mode expects or as any call (width 1,
    // not split) and one is reverse mode.
    let mut steps = Vec::new();
    if !options.ablation.no_sum_steps {
        let mut outlined = HashSet::new();
        for plan in plans {
            let key = (plan.function, plan.known_functions());
            let sharing: Vec<&MarkerCall> = plans.iter().filter(|q| (q.function, q.known_functions()) == key).collect();
            let fits = sharing.iter().all(|q| q.width == 1 && q.split.is_none())
                && sharing.iter().any(|q| q.mode == Mode::Reverse);
            if !fits || !outlined.insert(key.clone()) {
                continue;
            }
            if let Ok(clone) = gen.prep.ensure(module, plan.function, &key.1) {
                steps.extend(generate::reverse::sum_loops::outline_sum_loops(module, clone));
            }
        }
    }
    // Globals this round's code only reads are constant memory for its
    // derivatives (see `read_only_globals`); marked until the round is over.
    let roots: Vec<Value> = plans
        .iter()
        .filter_map(|plan| {
            let known = plan.known_functions();
            let clone = gen.prep.ensure(module, plan.function, &known).ok()?;
            Some(std::iter::once(clone).chain(known.into_iter().flatten()))
        })
        .flatten()
        .collect();
    let _read_only = analysis::read_only_globals::mark(module, &roots);
    for plan in plans {
        let clone = match gen.prep.ensure(module, plan.function, &plan.known_functions()) {
            Ok(c) => c,
            Err(e) => {
                diags.push(surface::markers::at_call(plan.call, e));
                continue;
            }
        };
        let context = format!(
            "needed by the `{}` call in `{}`{}",
            plan.entry_name(),
            display_name(&ir::name(ir::parent_function(plan.call))),
            ir::location(plan.call).map(|l| format!(" at {l}")).unwrap_or_default()
        );
        let mask = plan.dup_mask();
        let runtime_activity = plan.runtime_activity || options.runtime_activity;
        let rules = surface::custom::RuleUse::of(plan.split, plan.mode);
        if checked.insert((clone, mask.clone(), plan.mode, rules, runtime_activity)) {
            let name = ir::name(plan.function);
            let (ds, callees) =
                prepare::checks::check_function(clone, &name, &mask, plan.mode, rules, runtime_activity);
            diags.extend(ds.into_iter().map(|d| d.with_note(context.clone())));
            let mut work = callees;
            while let Some((f, mask)) = work.pop() {
                if !checked.insert((f, mask.clone(), plan.mode, rules, runtime_activity)) {
                    continue;
                }
                let name = ir::name(gen.prep.original(f));
                let (ds, callees) =
                    prepare::checks::check_function(f, &name, &mask, plan.mode, rules, runtime_activity);
                diags.extend(ds.into_iter().map(|d| d.with_note(context.clone())));
                work.extend(callees);
            }
        }
        diags.extend(globals_passed_and_used(plan, &ir::reach::called_from(clone)));
        if plan.width > 1 {
            let prep = &gen.prep;
            diags.extend(vector_mode_limits(plan, &ir::reach::called_from(clone), &|f| prep.original(f) != f));
        }
        diags.extend(calls::parallel::limits(plan, &ir::reach::called_from(clone)));
        if plan.error_estimate {
            diags.extend(generate::error_estimate::limits(module, plan, &ir::reach::called_from(clone)));
        }
        if plan.split == Some(SplitPart::Tangent) {
            let prep = &gen.prep;
            diags.extend(rewrite::split_entry::tangent_limits(plan, plans, &ir::reach::called_from(clone), &|f| {
                prep.original(f) != f
            }));
        }
    }
    if !diags.is_empty() {
        if !options.keep_clones_on_error {
            gen.prep.delete_all();
        }
        return Err(diags);
    }

    let mut targets = Vec::new();
    for plan in plans {
        let clone = gen.prep.ensure(module, plan.function, &plan.known_functions()).expect("cloned above");
        let mask = plan.dup_mask();
        targets.push(match plan.split {
            // The split derivative (a coroutine), whose forward part the
            // augmented call runs; the reverse call resumes it.
            Some(SplitPart::Augment) => Some(surface::request::Derivatives::request(
                &mut gen,
                surface::request::Request::split(clone, &mask)
                    .strong_zero(plan.strong_zero)
                    .runtime_activity(plan.runtime_activity || options.runtime_activity)
                    .tangent_replay(rewrite::split_entry::tangent_sweep_wanted(plan, plans)),
            )),
            Some(_) => None,
            None => {
                let mut request = surface::request::Request::new(plan.mode, clone, &mask)
                    .strong_zero(plan.strong_zero)
                    .width(plan.width)
                    .runtime_activity(plan.runtime_activity || options.runtime_activity)
                    .error_estimate(plan.error_estimate);
                request.primal_return = plan.primal_return && plan.mode == Mode::Reverse;
                if plan.mode == Mode::Forward {
                    request.primal_unneeded = generate::unneeded_primal::mask(plan);
                }
                Some(gen.derivative(request))
            }
        });
    }
    gen.run();
    summary.activity.append(&mut gen.reports);
    summary.calls.append(&mut gen.notes);
    // In the order of their names: the calls zero them in this order, and a
    // build must not depend on a hash map's (the same input, the same output).
    let mut shadow_globals: Vec<Value> = gen.shadow_globals.borrow().values().copied().collect();
    shadow_globals.sort_by_cached_key(|g| ir::name(*g));
    let mut reached_by = HashMap::new();
    let mut reached_of = |d: Value| {
        let reached =
            reached_by.entry(d).or_insert_with(|| rewrite::call_site::shadow_globals_reached(d, &shadow_globals));
        reached.clone()
    };
    for (plan, d) in plans.iter().zip(targets.iter().copied()) {
        if let (Mode::Forward, None, Some(d)) = (plan.mode, plan.split, d) {
            generate::unneeded_primal::drop_stores(plan, d);
        }
        match (plan.split, d) {
            (None, Some(d)) => rewrite::call_site::rewrite(module, plan, d, &reached_of(d)),
            (Some(_), _) => {
                // The split derivative this call's part belongs to (the
                // augmented call's), or all shadows when it is not in the round.
                let augment = plans.iter().zip(&targets).find_map(|(p, d)| {
                    (p.split == Some(SplitPart::Augment) && rewrite::split_entry::same_derivative(p, plan))
                        .then_some(*d)?
                });
                let reached = augment.map(&mut reached_of).unwrap_or_else(|| shadow_globals.clone());
                rewrite::split_entry::rewrite(module, plan, d, &reached)
            }
            (None, None) => unreachable!("a combined call has its derivative"),
        }
        summary.calls.push(format!(
            "{} of `{}`",
            match (plan.mode, plan.split) {
                (Mode::Forward, None) if plan.error_estimate => "error estimate",
                (Mode::Forward, None) => "forward mode",
                (Mode::Forward, Some(_)) => "split forward mode",
                (Mode::Reverse, None) => "reverse mode",
                (Mode::Reverse, Some(_)) => "split reverse mode",
            },
            display_name(&ir::name(plan.function))
        ));
    }
    gen.prep.delete_all();
    for step in steps {
        // Called by the clones only (the derivatives have the step's code).
        if unsafe { LLVMGetFirstUse(step).is_null() } {
            unsafe { LLVMDeleteFunction(step) };
        }
    }
    calls::parallel::restore_forks(module);
    if gen.made_coroutines {
        // Before a later round differentiates code that calls them.
        lower_coroutines(module).map_err(|e| vec![Diagnostic::new(e)])?;
    }
    Ok(())
}

/// A global passed as a duplicated argument must not also be used directly
/// by the differentiated code: its direct uses would see the engine's own
/// shadow of the global (or none), not the shadow passed, and the adjoint
/// would be split between them.
fn globals_passed_and_used(plan: &MarkerCall, functions: &[Value]) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    for a in plan.args.iter().filter(|a| a.shadow.is_some()) {
        let Some(g) = analysis::memory::constant_root(a.primal) else { continue };
        let used = functions.iter().any(|f| {
            ir::blocks(*f).into_iter().flat_map(ir::instructions).any(|i| {
                (0..ir::operand_count(i)).any(|k| analysis::memory::constant_root(ir::operand(i, k)) == Some(g))
            })
        });
        if used {
            let gname = display_name(&ir::name(g));
            let fname = display_name(&ir::name(plan.function));
            diags.push(
                surface::markers::at_call(
                    plan.call,
                    format!("global `{gname}` is passed as a duplicated argument and also used directly by `{fname}`"),
                )
                .with_help(
                    "its derivative would be split between the shadow passed here and the uses of the global; \
                     access it only through the argument, or pass it as `enzyme_const`",
                ),
            );
        }
    }
    diags
}

/// What vector mode cannot do yet, found before anything is generated: a
/// custom forward rule is written for one tangent, and a user's shadow of a
/// global (`enzyme_shadow`) is one lane's.
fn vector_mode_limits(plan: &MarkerCall, functions: &[Value], is_clone: &dyn Fn(Value) -> bool) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let fname = display_name(&ir::name(plan.function));
    for i in functions.iter().flat_map(|f| ir::blocks(*f)).flat_map(ir::instructions) {
        let kind = calls::classify::classify(i);
        // Calls that stay calls between the functions being differentiated
        // (recursion); calls of the user's functions on paths that never
        // return (panics) run as they are.
        let recursive = matches!(kind, calls::classify::Kind::Call(c) if is_clone(c));
        if let (calls::classify::Kind::Call(callee), Mode::Reverse, true) = (&kind, plan.mode, recursive) {
            if surface::checkpoint::stays_call(i) {
                diags.push(
                    surface::markers::at_call(
                        plan.call,
                        format!("`{fname}` has a checkpointed loop: not supported in reverse vector mode yet"),
                    )
                    .with_help("call the width-1 derivative once per seed"),
                );
                continue;
            }
            let callee = display_name(&ir::name(ir::strip_to_function(*callee).unwrap_or(*callee)));
            diags.push(
                surface::markers::at_call(
                    plan.call,
                    format!("`{fname}` makes a recursive call of `{callee}`: not supported in reverse vector mode yet"),
                )
                .with_help("use forward vector mode, or call the width-1 derivative once per seed"),
            );
        }
        // A forward rule of floats only has no effect but its results: it is
        // called once per lane. Rules given memory, and reverse rules (whose
        // reverse part may free its tape), take one lane.
        let given_memory = |i: Value| {
            (0..ir::call_arg_count(i)).any(|k| ir::is_pointer(ir::type_of(ir::operand(i, k))))
                || ir::is_pointer(ir::type_of(i))
        };
        let custom = match kind {
            calls::classify::Kind::Custom(callee) if plan.mode == Mode::Reverse || given_memory(i) => Some(callee),
            _ => None,
        };
        if let Some(callee) = custom {
            let callee = display_name(&ir::name(callee));
            let what =
                if plan.mode == Mode::Reverse { "a custom gradient" } else { "a custom derivative given memory" };
            diags.push(
                surface::markers::at_call(
                    plan.call,
                    format!("`{fname}` calls `{callee}`, which has {what}: not supported in vector mode yet"),
                )
                .with_help(
                    "in vector mode custom forward rules of floats only are called once per lane; call the width-1 \
                     derivative once per direction",
                ),
            );
        }
        for k in 0..ir::operand_count(i) {
            let Some(g) = analysis::memory::constant_root(ir::operand(i, k)) else { continue };
            if surface::registry::user_shadow(g).is_some() {
                let gname = display_name(&ir::name(g));
                diags.push(
                    surface::markers::at_call(
                        plan.call,
                        format!("`{fname}` uses `{gname}`, whose shadow is the user's (`enzyme_shadow`): not supported in vector mode yet"),
                    )
                    .with_help("vector mode needs one shadow per lane; call the width-1 derivative once per direction"),
                );
            }
        }
    }
    let mut seen = HashSet::new();
    diags.retain(|d| seen.insert(d.message.clone()));
    diags
}

/// Splits the derivatives made as coroutines (see
/// [`generate::gen::Generator::split_derivative`]) into their parts, so the module
/// needs no coroutine lowering from whoever compiles it.
fn lower_coroutines(module: LLVMModuleRef) -> Result<(), String> {
    prepare::prep::run_passes(prepare::prep::PassTarget::Module(module), "coro-early,cgscc(coro-split),coro-cleanup")
        .map_err(|s| format!("internal error: lowering split derivatives failed: {s}"))
}

/// Calls of the type hints (`__enzyme_double(p)`, ...) have served the
/// analyses; they are removed so the program links without them.
fn remove_type_hints(module: LLVMModuleRef) {
    unsafe {
        let mut f = LLVMGetFirstFunction(module);
        while !f.is_null() {
            if analysis::memory::type_hint(&ir::name(f)).is_some() {
                for u in ir::users(f) {
                    if !LLVMIsACallInst(u).is_null() {
                        if !ir::is_void(ir::type_of(u)) {
                            LLVMReplaceAllUsesWith(u, LLVMGetPoison(ir::type_of(u)));
                        }
                        LLVMInstructionEraseFromParent(u);
                    }
                }
            }
            f = LLVMGetNextFunction(f);
        }
    }
}

/// Marker globals (`enzyme_dup`, ...) that are only declared get a weak
/// definition, so a program that still mentions them links.
fn define_leftover_markers(module: LLVMModuleRef) {
    unsafe {
        let mut g = LLVMGetFirstGlobal(module);
        while !g.is_null() {
            if ir::name(g).starts_with("enzyme_") && LLVMIsDeclaration(g) != 0 {
                LLVMSetInitializer(g, LLVMConstNull(LLVMGlobalGetValueType(g)));
                LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMWeakAnyLinkage);
            }
            g = LLVMGetNextGlobal(g);
        }
    }
}
