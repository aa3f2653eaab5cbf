//! The declared results of entry points: what a call's result (or its
//! `sret` memory) can hold, checked against what the derivative produces.

use llvm_sys::core::*;

use crate::ir::names::display_name;
use crate::ir::{self, Type, Value};
use crate::surface::request::Mode;

/// A failed check: the message and what to do.
pub(crate) type Checked = Result<(), (String, &'static str)>;

/// rustc describes memory returned through `sret` as bytes (`[24 x i8]`); the
/// `enzyme` crate declares its gradient and lane structs with one `f64` per
/// value, so bytes for exactly one double per value produced (adjoints in
/// reverse mode, tangents of the result's lanes in forward mode) are read as
/// doubles.
pub(crate) fn bytes_as_doubles(t: Type, doubles: u64) -> Type {
    unsafe {
        let bytes = ir::kind(t) == llvm_sys::LLVMTypeKind::LLVMArrayTypeKind
            && ir::is_int(LLVMGetElementType(t))
            && ir::int_width(LLVMGetElementType(t)) == 8;
        if bytes && doubles > 0 && LLVMGetArrayLength2(t) == 8 * doubles {
            return LLVMArrayType2(LLVMDoubleTypeInContext(LLVMGetTypeContext(t)), doubles);
        }
    }
    t
}

/// `__enzyme_augmentfwd`'s declared result: nothing, the tape (`void *`), or
/// a struct of the tape and, for a function with a float result, that result
/// (in either order, as Enzyme's examples declare it).
pub(crate) fn check_augment_result(call: Value, function: Value, sret: Option<(Value, Type)>) -> Checked {
    let target = sret.map(|(_, t)| t).unwrap_or_else(|| ir::type_of(call));
    let fields = augment_fields(target);
    let rt = ir::return_type(function);
    let ok = ir::is_void(target)
        || ir::is_pointer(target)
        || fields.as_ref().is_some_and(|f| {
            let ptrs = f.iter().filter(|t| ir::is_pointer(**t)).count();
            let floats = f.iter().filter(|t| ir::is_float(**t)).count();
            ptrs == 1 && floats == usize::from(ir::is_float(rt)) && (floats == 0 || f.contains(&rt))
        });
    if ok {
        return Ok(());
    }
    Err((
        format!("`__enzyme_augmentfwd` is declared to return `{}`, which cannot hold its tape", ir::print_type(target)),
        if ir::is_float(rt) {
            "declare it returning `void *` (the tape) or a struct of the tape and the result, e.g. \
             `struct { double y; void *tape; }`"
        } else {
            "declare it returning `void *` (the tape)"
        },
    ))
}

/// The fields of a struct result (one level), if it is a struct.
pub(crate) fn augment_fields(t: Type) -> Option<Vec<Type>> {
    unsafe {
        (ir::kind(t) == llvm_sys::LLVMTypeKind::LLVMStructTypeKind)
            .then(|| (0..LLVMCountStructElementTypes(t)).map(|k| LLVMStructGetTypeAtIndex(t, k)).collect())
    }
}

/// What an entry point call produces, for checking its declared result.
pub(crate) struct Produced {
    pub mode: Mode,
    /// Reverse mode: the number of active float arguments.
    pub active: usize,
    pub primal_return: bool,
    pub const_return: bool,
    pub width: u32,
}

/// The entry point's declared result (or `sret` memory) must hold what the
/// derivative produces: the tangent of the result, or one float per active
/// argument (times the width in vector mode).
pub(crate) fn check_result_type(call: Value, function: Value, sret: Option<(Value, Type)>, p: &Produced) -> Checked {
    let Produced { mode, primal_return, const_return, width, .. } = *p;
    let entry = mode.entry_name();
    let produced = usize::from(primal_return)
        + match mode {
            Mode::Forward => usize::from(ir::is_float(ir::return_type(function)) && !const_return) * width as usize,
            Mode::Reverse => p.active * width as usize,
        };
    let what = match (mode, primal_return) {
        (Mode::Forward, false) if width > 1 => format!("{width} tangents of the result"),
        (Mode::Forward, true) if width > 1 => format!("the result and its {width} tangents"),
        (Mode::Forward, false) => "the tangent of the result".to_string(),
        (Mode::Forward, true) => "the result and its tangent".to_string(),
        (Mode::Reverse, false) => format!("{produced} adjoint(s) of active arguments"),
        (Mode::Reverse, true) => format!("the result and {} adjoint(s) of active arguments", produced - 1),
    };
    let target = sret.map(|(_, t)| t).unwrap_or_else(|| ir::type_of(call));
    // Called for its effect on the shadows only: a `double`-returning
    // declaration is fine when nobody reads the result (as in reverse mode).
    if mode == Mode::Forward && produced == 0 && !ir::is_void(target) && (sret.is_some() || result_really_used(call)) {
        let fname = display_name(&ir::name(function));
        return Err((
            format!(
                "`{fname}` returns `{}`, which has no derivative: forward mode has no tangent to return",
                ir::print_type(ir::return_type(function))
            ),
            "read the tangents from the shadow arguments and ignore the call's result, or declare the entry point \
             returning `void`",
        ));
    }
    if ir::is_void(target) {
        if produced > 0 && mode == Mode::Reverse {
            return Err((
                format!("`{entry}` call is declared to return `void`, but it produces {what}"),
                "declare the entry point returning `double` (one active argument) or a struct of doubles (several)",
            ));
        }
        return Ok(());
    }
    if produced == 0 && sret.is_none() && !result_really_used(call) {
        // `double __enzyme_autodiff(void*, ...)` called for its effect on shadows only.
        return Ok(());
    }
    if produced == 0 && mode == Mode::Reverse {
        return Err((
            format!("the result of this `{entry}` call is used, but there is no derivative to return"),
            "no argument is an active float (`enzyme_out`): derivatives with respect to pointer arguments \
             are added into their shadows; do not use the call's result",
        ));
    }
    if count_float_leaves(target) != Some(produced) {
        return Err((
            format!("`{entry}` call is declared to return `{}`, which cannot hold {what}", ir::print_type(target)),
            "declare the entry point returning `double` for one derivative, or a struct with one `double` per active \
             argument",
        ));
    }
    Ok(())
}

/// Whether a call's result is used for more than being parked in a stack
/// slot (what `-O0` makes of `double unused = f(...);`).
fn result_really_used(call: Value) -> bool {
    let mut u = unsafe { LLVMGetFirstUse(call) };
    while !u.is_null() {
        unsafe {
            let user = LLVMGetUser(u);
            // Stored into a local that is never read back (as at -O0).
            let parked = !LLVMIsAStoreInst(user).is_null()
                && LLVMGetOperand(user, 0) == call
                && !LLVMIsAAllocaInst(LLVMGetOperand(user, 1)).is_null()
                && !slot_is_read(LLVMGetOperand(user, 1));
            if !parked {
                return true;
            }
            u = LLVMGetNextUse(u);
        }
    }
    false
}

/// Whether a stack slot is read: anything but stores into it, intrinsics
/// (lifetime markers, debug info) and loads whose value goes unused counts.
fn slot_is_read(slot: Value) -> bool {
    let mut u = unsafe { LLVMGetFirstUse(slot) };
    while !u.is_null() {
        unsafe {
            let user = LLVMGetUser(u);
            let store_into = !LLVMIsAStoreInst(user).is_null() && LLVMGetOperand(user, 1) == slot;
            let intrinsic = !LLVMIsAIntrinsicInst(user).is_null();
            // `(void)r;` at -O0 loads the slot and drops the value.
            let dropped = !LLVMIsALoadInst(user).is_null() && LLVMGetFirstUse(user).is_null();
            if !store_into && !intrinsic && !dropped {
                return true;
            }
            u = LLVMGetNextUse(u);
        }
    }
    false
}

/// Number of float scalars in a type made of floats, structs, arrays and vectors.
pub(crate) fn count_float_leaves(t: Type) -> Option<usize> {
    use llvm_sys::LLVMTypeKind::*;
    if ir::is_float(t) {
        return Some(1);
    }
    unsafe {
        match ir::kind(t) {
            LLVMStructTypeKind => {
                let n = LLVMCountStructElementTypes(t);
                (0..n).map(|i| count_float_leaves(LLVMStructGetTypeAtIndex(t, i))).sum()
            }
            LLVMArrayTypeKind => Some(count_float_leaves(LLVMGetElementType(t))? * LLVMGetArrayLength2(t) as usize),
            LLVMVectorTypeKind => Some(count_float_leaves(LLVMGetElementType(t))? * LLVMGetVectorSize(t) as usize),
            _ => None,
        }
    }
}
