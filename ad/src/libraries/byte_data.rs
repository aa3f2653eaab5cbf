//! Memory that holds bytes without derivatives: a Rust string's. Copies of
//! it into shadowed memory (a `String` key made from a `&str`) zero the
//! shadow, and pointers to it stored into shadowed memory (a `&str` key) are
//! their own shadow, as integers are (a shadow table keeps the primal's
//! keys). The evidence: a reference rustc marks `!align 1`, memory hinted
//! `__enzyme_integer` (the enzyme crate's hint for a `&str` parameter), a
//! constant string, or, in unoptimised code, a copy that is
//! `core::ptr::copy_nonoverlapping::<u8>`.

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::ir::kind::Elem;
use crate::ir::layout::{hinted_elem, holds_integer_data, md_operands, metadata};
use crate::ir::{self, Value};

/// Whether pointer `v` points to bytes, whatever it is based on (see
/// [`ir::pointer_bases`], null aside): a reference to byte data (see
/// [`references_byte_data`]), memory hinted to hold integers (the enzyme
/// crate hints a `&str` parameter's bytes), or a constant string.
pub(crate) fn points_to_bytes(v: Value) -> bool {
    // Null where the pointer is none (an iterator's `None`) points to nothing.
    let bases: Vec<Value> =
        ir::pointer_bases(v).into_iter().filter(|b| unsafe { LLVMIsAConstantPointerNull(*b).is_null() }).collect();
    !bases.is_empty()
        && bases.into_iter().all(|b| {
            references_byte_data(b)
                || hint_holder(b).is_some_and(|f| hinted_elem(f, b) == Some(Elem::Int))
                || unsafe { !LLVMIsAGlobalVariable(b).is_null() } && holds_integer_data(b)
        })
}

/// The function whose type hints may speak of `b`: its own.
fn hint_holder(b: Value) -> Option<Value> {
    if ir::is_argument(b) {
        Some(unsafe { LLVMGetParamParent(b) })
    } else {
        ir::is_instruction(b).then(|| ir::parent_function(b))
    }
}

/// Whether copy `i` is Rust's `core::ptr::copy_nonoverlapping::<u8>` (or
/// `copy::<u8>`), by its debug location (an unoptimised build keeps no
/// `!align` on the source: see [`references_byte_data`]). Generic code also
/// moves other types as bytes this way; for a copy from memory without a
/// shadow that is still constants copied, floats included.
pub(crate) fn copies_rust_bytes(i: Value) -> bool {
    ir::debug_function_name(i).is_some_and(|(name, linkage)| is_core_byte_copy(&name, &linkage))
}

/// Whether a function is `core::ptr`'s copy of `u8`s (or `i8`s), by its name
/// and linkage name (legacy mangling, or the v0 mangling of rustc's own std).
fn is_core_byte_copy(name: &str, linkage: &str) -> bool {
    (linkage.starts_with("_ZN4core") || (linkage.starts_with("_R") && linkage.contains("4core3ptr")))
        && matches!(name, "copy_nonoverlapping<u8>" | "copy<u8>" | "copy_nonoverlapping<i8>" | "copy<i8>")
}

/// Whether copy `i` is the copy of a `[u8]`'s elements into a new `Vec<u8>`
/// (`<[u8]>::to_vec`, inlined: a `String`'s or a `Vec<u8>`'s `clone()`), by
/// its debug locations: bytes by their type, so no derivative moves.
pub(crate) fn copies_byte_slice(i: Value) -> bool {
    let frames = ir::debug_function_names(i);
    frames.first().is_some_and(|(name, linkage)| is_core_byte_copy(name, linkage))
        && frames.iter().take(4).any(|(name, linkage)| {
            linkage.contains("5alloc5slice") && (name.starts_with("to_vec<u8,") || name.starts_with("to_vec_in<u8,"))
        })
}

/// Whether `p` is a reference loaded from memory to data aligned to one byte
/// (rustc's `!align !{i64 1}` on the load: a `&str`, a `&[u8]`). Types that
/// hold pointers are aligned as pointers are (only a `#[repr(packed)]` struct
/// is not), so such data holds bytes, or floats copied as constants.
fn references_byte_data(p: Value) -> bool {
    if !ir::is_instruction(p) || ir::opcode(p) != LLVMOpcode::LLVMLoad || !ir::is_pointer(ir::type_of(p)) {
        return false;
    }
    metadata(p, "align").is_some_and(|md| {
        md_operands(md)
            .first()
            .is_some_and(|&c| unsafe { !LLVMIsAConstantInt(c).is_null() && LLVMConstIntGetZExtValue(c) == 1 })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::test_ir::with_function;

    /// `points_to_bytes` of each named pointer of `@f`, in order.
    fn verdicts(names: &[&str]) -> Vec<bool> {
        let ir = "declare void @__enzyme_integer(ptr, ...)\n\
                  @text = private constant [5 x i8] c\"alpha\"\n\
                  define void @f(ptr %slice, ptr %str, ptr %plain, i1 %c, i64 %k) {\n\
                  entry:\n  call void (ptr, ...) @__enzyme_integer(ptr %str)\n  \
                  %word = load ptr, ptr %slice, !align !0\n  %wide = load ptr, ptr %slice, !align !1\n  \
                  %at = getelementptr i8, ptr %str, i64 %k\n  %lit = getelementptr i8, ptr @text, i64 %k\n  \
                  %other = getelementptr i8, ptr %plain, i64 %k\n  br i1 %c, label %a, label %b\n\
                  a:\n  br label %b\n\
                  b:\n  %maybe = phi ptr [ null, %entry ], [ %at, %a ]\n  \
                  %mixed = phi ptr [ %at, %entry ], [ %other, %a ]\n  ret void\n}\n\
                  !0 = !{i64 1}\n!1 = !{i64 8}\n";
        with_function(ir, |f| {
            let all: Vec<Value> = ir::blocks(f).into_iter().flat_map(ir::instructions).collect();
            names.iter().map(|n| points_to_bytes(*all.iter().find(|i| ir::name(**i) == *n).expect("named"))).collect()
        })
    }

    #[test]
    fn byte_references_hinted_parameters_and_literals_point_to_bytes() {
        assert_eq!(
            verdicts(&["word", "wide", "at", "lit", "other", "maybe", "mixed"]),
            vec![true, false, true, true, false, true, false]
        );
    }
}
