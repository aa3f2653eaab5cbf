//! User-given derivatives in Enzyme's conventions
//! (`__enzyme_register_derivative_f`, `__enzyme_register_gradient_f`,
//! `__enzyme_register_splitderivative_f`): the rules are recorded on `f` as
//! metadata (`!enzyme_derivative`, `!enzyme_augment`, `!enzyme_gradient`,
//! `!enzyme_splitderivative`, as Enzyme does), their signatures
//! are checked against `f`'s before anything is generated, and calls of `f`
//! in differentiated code call them instead of differentiating `f`'s body.
//!
//! For `R f(P₁, …, Pₙ)`:
//! - forward: `fwd(p₁, ṗ₁, …)`, every float and pointer parameter followed by
//!   its tangent or shadow (integers alone); it returns `{R, R}` (primal,
//!   tangent) or `R` (the tangent; the primal then comes from calling `f`)
//!   for a float `R`, the primal for an integer `R` (a status code), nothing
//!   for `void`;
//! - reverse: `aug(p₁, …)`, every pointer followed by its shadow, returns
//!   the primal result `R`, a tape, `{tape, R}`, or nothing; `rev(p₁, …,
//!   [dR], [tape])`, pointers again followed by shadows, then the result's
//!   adjoint (float `R`), then the tape (when `aug` returns one), returns
//!   the adjoints of the float parameters (one float, a struct of them, or
//!   nothing) and adds pointer adjoints into the shadows itself;
//! - split forward (`__enzyme_fwdsplit`): the same `aug` in the augmented
//!   call, then `split(p₁, ṗ₁, …, [tape])`: the forward rule's parameters and
//!   result, with the tape last. The augmented function may also return
//!   `{tape, R, R}`, as Enzyme's do (the third field is not used).
//!
//! A pointer argument without a shadow gets a null shadow, as in Enzyme.

use llvm_sys::core::*;

use crate::ir::names::display_name;
use crate::ir::{self, Type, Value};

/// Metadata naming the augmented forward function of a custom gradient.
pub(crate) const AUGMENT: &str = "enzyme_augment";
/// Metadata naming the reverse function of a custom gradient.
pub(crate) const GRADIENT: &str = "enzyme_gradient";
/// Metadata naming the forward derivative.
pub(crate) const DERIVATIVE: &str = "enzyme_derivative";
/// Metadata naming the split forward derivative (run by `__enzyme_fwdsplit`
/// with the augmented function's tape).
pub(crate) const SPLIT_DERIVATIVE: &str = "enzyme_splitderivative";

/// Which of a function's rules a derivative calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RuleUse {
    /// `__enzyme_fwddiff`: the forward rule.
    Forward,
    /// `__enzyme_autodiff`, `__enzyme_reverse`: the augmented and reverse functions.
    Reverse,
    /// `__enzyme_augmentfwd`: the augmented function (the reverse function
    /// is needed by the `__enzyme_reverse` calls, checked as [`RuleUse::Reverse`]).
    Augment,
    /// `__enzyme_fwdsplit`: the augmented function and the split forward rule.
    SplitForward,
}

impl RuleUse {
    /// The rules a request of `mode` (and split part) calls.
    pub(crate) fn of(
        split: Option<crate::surface::entry_points::SplitPart>,
        mode: crate::surface::request::Mode,
    ) -> RuleUse {
        use crate::surface::entry_points::SplitPart;
        use crate::surface::request::Mode;
        match (split, mode) {
            (Some(SplitPart::Augment | SplitPart::Size), _) => RuleUse::Augment,
            (Some(SplitPart::Tangent), _) => RuleUse::SplitForward,
            (Some(SplitPart::Reverse), _) | (None, Mode::Reverse) => RuleUse::Reverse,
            (None, Mode::Forward) => RuleUse::Forward,
        }
    }
}

/// The rules registered for a function.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rules {
    pub forward: Option<Value>,
    pub augment: Option<Value>,
    pub gradient: Option<Value>,
    pub split_forward: Option<Value>,
}

/// Records `rule` under `kind` on `f`.
pub(crate) fn register(f: Value, kind: &str, rule: Value) {
    ir::set_global_metadata(f, kind, Some(rule));
}

/// Records the augmented function of a custom gradient or split
/// derivative; an error when `f` already has a different one (one
/// augmented call serves both `__enzyme_reverse` and `__enzyme_fwdsplit`).
pub(crate) fn register_augment(f: Value, rule: Value) -> Result<(), String> {
    match registered(f, AUGMENT) {
        Some(old) if old != rule => Err(format!(
            "`{}` is given two augmented forward functions, `{}` and `{}`",
            display_name(&ir::name(f)),
            display_name(&ir::name(old)),
            display_name(&ir::name(rule))
        )),
        _ => {
            register(f, AUGMENT, rule);
            Ok(())
        }
    }
}

fn registered(f: Value, kind: &str) -> Option<Value> {
    let ops = ir::global_metadata(f, kind)?;
    ops.first().and_then(|op| ir::strip_to_function(*op))
}

/// The rules registered for `f`, if any.
pub(crate) fn rules_of(f: Value) -> Option<Rules> {
    let r = Rules {
        forward: registered(f, DERIVATIVE),
        augment: registered(f, AUGMENT),
        gradient: registered(f, GRADIENT),
        split_forward: registered(f, SPLIT_DERIVATIVE),
    };
    (r.forward.is_some() || r.augment.is_some()).then_some(r)
}

/// Where the primal result comes from in reverse mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Primal {
    /// `f` returns nothing.
    None,
    /// The augmented function returns it (whole, or as field 1 after the tape).
    FromAugment,
    /// Calling `f` itself (the augmented function does not return it).
    CallOriginal,
}

/// How calls of an augmented function are made.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AugmentShape {
    pub augment: Value,
    /// The tape's type, when the augmented function returns one.
    pub tape: Option<Type>,
    /// Whether the augmented function returns `{tape, primal[, shadow]}`.
    pub pair: bool,
    pub primal: Primal,
    /// What it returns through an `sret` first parameter (a C struct too
    /// large for registers, such as Enzyme's `{tape, primal, shadow}`).
    pub sret: Option<Type>,
}

/// How calls of a custom gradient are made.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReverseShape {
    pub gradient: Value,
}

/// How calls of a custom forward derivative are made.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ForwardShape {
    pub forward: Value,
    /// Whether it returns `{primal, tangent}` (else the tangent alone, or nothing).
    pub pair: bool,
}

fn params(f: Value) -> Vec<Type> {
    ir::params(f).iter().map(|p| ir::type_of(*p)).collect()
}

/// The type `f` returns through an `sret` first parameter, if it does.
fn sret_type(f: Value) -> Option<Type> {
    unsafe {
        let a = LLVMGetEnumAttributeAtIndex(f, 1, ir::attr_kind("sret"));
        (!a.is_null()).then(|| LLVMGetTypeAttributeValue(a))
    }
}

fn show(types: &[Type]) -> String {
    types.iter().map(|t| ir::print_type(*t)).collect::<Vec<_>>().join(", ")
}

/// Two floats of type `t` as a struct or an array.
fn is_pair_of(r: Type, t: Type) -> bool {
    use llvm_sys::LLVMTypeKind::*;
    unsafe {
        match ir::kind(r) {
            LLVMStructTypeKind => {
                LLVMCountStructElementTypes(r) == 2
                    && LLVMStructGetTypeAtIndex(r, 0) == t
                    && LLVMStructGetTypeAtIndex(r, 1) == t
            }
            LLVMArrayTypeKind => LLVMGetArrayLength2(r) == 2 && LLVMGetElementType(r) == t,
            _ => false,
        }
    }
}

/// The forward rule of `f` and how to call it; an error naming what does not fit.
pub(crate) fn forward_shape(f: Value) -> Result<ForwardShape, String> {
    let name = display_name(&ir::name(f));
    let rules = rules_of(f).ok_or("no rule")?;
    let Some(fwd) = rules.forward else {
        return Err(format!(
            "`{name}` has a custom {} but none for forward mode; register one with \
             `__enzyme_register_derivative_{name}`",
            if rules.gradient.is_some() { "reverse-mode derivative" } else { "split forward-mode derivative" }
        ));
    };
    let pair = tangent_rule_shape(f, fwd, "custom forward derivative", None)?;
    Ok(ForwardShape { forward: fwd, pair })
}

/// How a rule computing tangents (`rule`, of kind `what`) fits `f`: its
/// parameters are `f`'s, each float and pointer followed by its tangent or
/// shadow, then `tape` when given; it returns the tangent or `{primal,
/// tangent}` (`true`) for a float result, the primal for an integer one,
/// nothing for `void`.
fn tangent_rule_shape(f: Value, rule: Value, what: &str, tape: Option<Type>) -> Result<bool, String> {
    let name = display_name(&ir::name(f));
    let rule_name = display_name(&ir::name(rule));
    let mut want = Vec::new();
    for t in params(f) {
        want.push(t);
        if ir::is_float(t) || ir::is_pointer(t) {
            want.push(t);
        }
    }
    want.extend(tape);
    if params(rule) != want {
        return Err(format!(
            "{what} `{rule_name}` of `{name}` takes ({}), but must take ({}): each float and pointer parameter \
             followed by its tangent or shadow{}",
            show(&params(rule)),
            show(&want),
            if tape.is_some() { ", then the tape that the augmented function returns" } else { "" }
        ));
    }
    let (r, fr) = (ir::return_type(f), ir::return_type(rule));
    let pair = if ir::is_void(r) {
        false
    } else if ir::is_int(r) && fr == r {
        // An integer result (a status code): the primal, which the rule computes.
        false
    } else if ir::is_float(r) && fr == r {
        false
    } else if ir::is_float(r) && is_pair_of(fr, r) {
        true
    } else {
        return Err(format!(
            "{what} `{rule_name}` of `{name}` returns `{}`; it must return {}",
            ir::print_type(fr),
            if ir::is_float(r) {
                format!("{{primal, tangent}} (`{{{0}, {0}}}`) or the tangent (`{0}`)", ir::print_type(r))
            } else if ir::is_int(r) {
                format!("`{}`: the primal result (integers have no tangents)", ir::print_type(r))
            } else {
                "nothing: only float results have tangents to return".into()
            }
        ));
    };
    if ir::is_void(r) && !ir::is_void(fr) {
        return Err(format!("{what} `{rule_name}` of `{name}` must return nothing, as `{name}` does"));
    }
    Ok(pair)
}

/// `f`'s parameter types, each pointer followed by its shadow (how
/// augmented and reverse functions take them).
fn with_pointer_shadows(f: Value) -> Vec<Type> {
    let mut out = Vec::new();
    for t in params(f) {
        out.push(t);
        if ir::is_pointer(t) {
            out.push(t);
        }
    }
    out
}

/// The augmented function of `f` and how to call it; an error naming what
/// does not fit. `rerun_safe(f)`: calling `f` again cannot change what its
/// caller sees (`reread::writes_no_caller_memory`, passed in from above).
pub(crate) fn augment_shape(f: Value, rerun_safe: &dyn Fn(Value) -> bool) -> Result<AugmentShape, String> {
    let name = display_name(&ir::name(f));
    let rules = rules_of(f).ok_or("no rule")?;
    let Some(aug) = rules.augment else {
        return Err(format!(
            "`{name}` has a custom forward-mode derivative but none for reverse or split mode; register one with \
             `__enzyme_register_gradient_{name}` (or `__enzyme_register_splitderivative_{name}` for \
             `__enzyme_fwdsplit`)"
        ));
    };
    let aug_name = display_name(&ir::name(aug));
    let with_shadows = with_pointer_shadows(f);
    // As the source declares it: a struct returned through memory is its result.
    let sret = sret_type(aug);
    let declared = params(aug).into_iter().skip(usize::from(sret.is_some())).collect::<Vec<_>>();
    if declared != with_shadows {
        return Err(format!(
            "augmented forward function `{aug_name}` of `{name}` takes ({}), but must take ({}): `{name}`'s parameters, \
             each pointer followed by its shadow",
            show(&declared),
            show(&with_shadows)
        ));
    }
    let r = ir::return_type(f);
    let a = sret.unwrap_or_else(|| ir::return_type(aug));
    if !ir::is_void(r) && !ir::is_float(r) && !ir::is_int(r) {
        return Err(format!("`{name}` returns `{}`: custom gradients of functions returning pointers or aggregates are not supported yet", ir::print_type(r)));
    }
    // `{tape, primal}`, or `{tape, primal, shadow}` as Enzyme's augmented
    // functions may return (a float result's shadow means nothing here).
    let struct_pair = unsafe {
        let n =
            if ir::kind(a) == llvm_sys::LLVMTypeKind::LLVMStructTypeKind { LLVMCountStructElementTypes(a) } else { 0 };
        (n == 2 || n == 3 && ir::is_float(r) && LLVMStructGetTypeAtIndex(a, 2) == r)
            && LLVMStructGetTypeAtIndex(a, 1) == r
    };
    let (tape, pair, primal) = if ir::is_void(a) {
        (None, false, if ir::is_void(r) { Primal::None } else { Primal::CallOriginal })
    } else if !ir::is_void(r) && a == r {
        (None, false, Primal::FromAugment)
    } else if !ir::is_void(r) && struct_pair {
        (Some(unsafe { LLVMStructGetTypeAtIndex(a, 0) }), true, Primal::FromAugment)
    } else {
        (Some(a), false, if ir::is_void(r) { Primal::None } else { Primal::CallOriginal })
    };
    if primal == Primal::CallOriginal && !rerun_safe(f) {
        // `f` would run twice, its writes applied twice.
        return Err(format!(
            "augmented forward function `{aug_name}` of `{name}` does not return `{name}`'s result, and `{name}` may \
             write memory, so it cannot be called again for its result; return `{{tape, result}}` (a struct) from \
             `{aug_name}`, or the result alone when there is no tape"
        ));
    }
    Ok(AugmentShape { augment: aug, tape, pair, primal, sret })
}

/// The custom gradient of `f` and how to call it; an error naming what does not fit.
pub(crate) fn reverse_shape(f: Value, rerun_safe: &dyn Fn(Value) -> bool) -> Result<ReverseShape, String> {
    let name = display_name(&ir::name(f));
    let rules = rules_of(f).ok_or("no rule")?;
    let Some(grad) = rules.gradient else {
        return Err(format!(
            "`{name}` has a custom {} but none for reverse mode; register one with \
             `__enzyme_register_gradient_{name}`",
            if rules.forward.is_some() { "forward-mode derivative" } else { "split forward-mode derivative" }
        ));
    };
    let augment = augment_shape(f, rerun_safe)?;
    let grad_name = display_name(&ir::name(grad));
    let r = ir::return_type(f);
    let mut want = with_pointer_shadows(f);
    if ir::is_float(r) {
        want.push(r);
    }
    want.extend(augment.tape);
    if params(grad) != want {
        return Err(format!(
            "reverse function `{grad_name}` of `{name}` takes ({}), but must take ({}): `{name}`'s parameters (each \
             pointer followed by its shadow){}{}",
            show(&params(grad)),
            show(&want),
            if ir::is_float(r) { ", the result's adjoint" } else { "" },
            if augment.tape.is_some() { ", then the tape that the augmented function returns" } else { "" }
        ));
    }
    let floats: Vec<Type> = params(f).into_iter().filter(|t| ir::is_float(*t)).collect();
    let gr = ir::return_type(grad);
    let fits = match floats.len() {
        0 => ir::is_void(gr),
        1 => gr == floats[0],
        _ => unsafe {
            ir::kind(gr) == llvm_sys::LLVMTypeKind::LLVMStructTypeKind
                && LLVMCountStructElementTypes(gr) as usize == floats.len()
                && floats.iter().enumerate().all(|(k, t)| LLVMStructGetTypeAtIndex(gr, k as u32) == *t)
        },
    };
    if !fits {
        return Err(format!(
            "reverse function `{grad_name}` of `{name}` returns `{}`, but must return the adjoints of `{name}`'s float \
             parameters ({})",
            ir::print_type(gr),
            match floats.len() {
                0 => "nothing".to_string(),
                1 => format!("`{}`", ir::print_type(floats[0])),
                _ => format!("a struct `{{{}}}`", show(&floats)),
            }
        ));
    }
    Ok(ReverseShape { gradient: grad })
}

/// The split forward rule of `f` (`__enzyme_register_splitderivative_f`)
/// and how to call it: like a forward rule, the augmented function's tape last.
pub(crate) fn split_forward_shape(
    f: Value,
    rerun_safe: &dyn Fn(Value) -> bool,
) -> Result<(AugmentShape, ForwardShape), String> {
    let name = display_name(&ir::name(f));
    let rules = rules_of(f).ok_or("no rule")?;
    let Some(split) = rules.split_forward else {
        return Err(format!(
            "`{name}` has a custom {} but none for split forward mode; register one with \
             `__enzyme_register_splitderivative_{name}`",
            if rules.gradient.is_some() { "reverse-mode derivative" } else { "forward-mode derivative" }
        ));
    };
    let augment = augment_shape(f, rerun_safe)?;
    let pair = tangent_rule_shape(f, split, "split forward derivative", augment.tape)?;
    Ok((augment, ForwardShape { forward: split, pair }))
}

/// Checks that `f`'s rules fit the way they are used.
pub(crate) fn check(f: Value, used: RuleUse, rerun_safe: &dyn Fn(Value) -> bool) -> Result<(), String> {
    match used {
        RuleUse::Forward => forward_shape(f).map(|_| ()),
        RuleUse::Reverse => reverse_shape(f, rerun_safe).map(|_| ()),
        RuleUse::Augment => augment_shape(f, rerun_safe).map(|_| ()),
        RuleUse::SplitForward => split_forward_shape(f, rerun_safe).map(|_| ()),
    }
}
