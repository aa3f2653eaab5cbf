//! User-given derivatives in Enzyme's conventions
//! (`__enzyme_register_derivative_f`, `__enzyme_register_gradient_f`): the
//! rules are recorded on `f` as metadata (`!enzyme_derivative`,
//! `!enzyme_augment`, `!enzyme_gradient`, as Enzyme does), their signatures
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
//!   nothing) and adds pointer adjoints into the shadows itself.
//!
//! A pointer argument without a shadow gets a null shadow, as in Enzyme.

use llvm_sys::core::*;

use crate::ir::{self, Type, Value};
use crate::names::display_name;
use crate::request::Mode;

/// Metadata naming the augmented forward function of a custom gradient.
pub(crate) const AUGMENT: &str = "enzyme_augment";
/// Metadata naming the reverse function of a custom gradient.
pub(crate) const GRADIENT: &str = "enzyme_gradient";
/// Metadata naming the forward derivative.
pub(crate) const DERIVATIVE: &str = "enzyme_derivative";

/// The rules registered for a function.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rules {
    pub forward: Option<Value>,
    pub augment: Option<Value>,
    pub gradient: Option<Value>,
}

/// Records `rule` under `kind` on `f`.
pub(crate) fn register(f: Value, kind: &str, rule: Value) {
    ir::set_global_metadata(f, kind, Some(rule));
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

/// How calls of a custom gradient are made.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReverseShape {
    pub augment: Value,
    pub gradient: Value,
    /// The tape's type, when the augmented function returns one.
    pub tape: Option<Type>,
    /// Whether the augmented function returns `{tape, primal}`.
    pub pair: bool,
    pub primal: Primal,
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
            "`{name}` has a custom reverse-mode derivative but none for forward mode; register one with \
             `__enzyme_register_derivative_{name}`"
        ));
    };
    let fwd_name = display_name(&ir::name(fwd));
    let mut want = Vec::new();
    for t in params(f) {
        want.push(t);
        if ir::is_float(t) || ir::is_pointer(t) {
            want.push(t);
        }
    }
    if params(fwd) != want {
        return Err(format!(
            "custom forward derivative `{fwd_name}` of `{name}` takes ({}), but must take ({}): each float and pointer \
             parameter followed by its tangent or shadow",
            show(&params(fwd)),
            show(&want)
        ));
    }
    let (r, fr) = (ir::return_type(f), ir::return_type(fwd));
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
            "custom forward derivative `{fwd_name}` of `{name}` returns `{}`; it must return {}",
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
        return Err(format!(
            "custom forward derivative `{fwd_name}` of `{name}` must return nothing, as `{name}` does"
        ));
    }
    Ok(ForwardShape { forward: fwd, pair })
}

/// The custom gradient of `f` and how to call it; an error naming what does not fit.
pub(crate) fn reverse_shape(f: Value) -> Result<ReverseShape, String> {
    let name = display_name(&ir::name(f));
    let rules = rules_of(f).ok_or("no rule")?;
    let (Some(aug), Some(grad)) = (rules.augment, rules.gradient) else {
        return Err(format!(
            "`{name}` has a custom forward-mode derivative but none for reverse mode; register one with \
             `__enzyme_register_gradient_{name}`"
        ));
    };
    let (aug_name, grad_name) = (display_name(&ir::name(aug)), display_name(&ir::name(grad)));
    let mut with_shadows = Vec::new();
    for t in params(f) {
        with_shadows.push(t);
        if ir::is_pointer(t) {
            with_shadows.push(t);
        }
    }
    if params(aug) != with_shadows {
        return Err(format!(
            "augmented forward function `{aug_name}` of `{name}` takes ({}), but must take ({}): `{name}`'s parameters, \
             each pointer followed by its shadow",
            show(&params(aug)),
            show(&with_shadows)
        ));
    }
    let r = ir::return_type(f);
    let a = ir::return_type(aug);
    if !ir::is_void(r) && !ir::is_float(r) && !ir::is_int(r) {
        return Err(format!("`{name}` returns `{}`: custom gradients of functions returning pointers or aggregates are not supported yet", ir::print_type(r)));
    }
    let struct_pair = unsafe {
        ir::kind(a) == llvm_sys::LLVMTypeKind::LLVMStructTypeKind
            && LLVMCountStructElementTypes(a) == 2
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
    let mut want = with_shadows.clone();
    if ir::is_float(r) {
        want.push(r);
    }
    if let Some(t) = tape {
        want.push(t);
    }
    if params(grad) != want {
        return Err(format!(
            "reverse function `{grad_name}` of `{name}` takes ({}), but must take ({}): `{name}`'s parameters (each \
             pointer followed by its shadow){}{}",
            show(&params(grad)),
            show(&want),
            if ir::is_float(r) { ", the result's adjoint" } else { "" },
            if tape.is_some() { ", then the tape that the augmented function returns" } else { "" }
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
    Ok(ReverseShape { augment: aug, gradient: grad, tape, pair, primal })
}

/// Checks that `f`'s rules fit the mode it is differentiated in.
pub(crate) fn check(f: Value, mode: Mode) -> Result<(), String> {
    match mode {
        Mode::Forward => forward_shape(f).map(|_| ()),
        Mode::Reverse => reverse_shape(f).map(|_| ()),
    }
}
