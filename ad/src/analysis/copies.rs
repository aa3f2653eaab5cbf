//! What a copy moves, with every kind of evidence: its types
//! (`typed_copies`), else how the function's own grown blocks are accessed
//! (`grown_blocks`); and the questions the memory analysis asks of copies
//! from memory without a shadow.

use llvm_sys::core::*;

use crate::analysis::typed_copies::copy_layout_by_types;
use crate::ir::kind::Elem;
use crate::ir::layout::{data_layout, flatten, holds_integer_data, CopyLayout};
use crate::ir::{self, constant_root, Value};

/// What a `memcpy`/`memmove` copies, from the TBAA metadata clang attaches
/// when optimising (`!tbaa` for a copy of one type, `!tbaa.struct` listing a
/// struct's fields), or from the type of a stack slot it copies from or to.
/// Otherwise, a copy between blocks of the function's own copies what their
/// accesses say (see `grown_blocks::copied_elem`).
pub(crate) fn copy_layout(i: Value, module_layout: llvm_sys::target::LLVMTargetDataRef) -> Option<CopyLayout> {
    copy_layout_by_types(i, module_layout)
        .or_else(|| crate::analysis::grown_blocks::copied_elem(i).map(CopyLayout::Uniform))
}

/// Whether a copy from memory without a shadow into shadowed memory moves
/// no pointers (whose shadows the shadow would need): its source is a
/// global whose type holds none, Rust byte data, or its layout says so. The
/// shadow of what it writes is zeroed: right for the floats and integers of
/// constant memory; a pointer there would get a null shadow, which faults
/// where it is used (a crash, never a wrong derivative).
pub(crate) fn copies_no_pointers(i: Value) -> bool {
    let td = data_layout(ir::parent_function(i));
    if let Some(g) = constant_root(ir::operand(i, 1)) {
        let mut fields = Vec::new();
        if flatten(unsafe { LLVMGlobalGetValueType(g) }, 0, td, &mut fields) {
            return fields.iter().all(|(_, _, e)| *e != Elem::Ptr);
        }
        if holds_integer_data(g) {
            return true;
        }
    }
    if crate::libraries::points_to_bytes(ir::operand(i, 1)) || crate::libraries::copies_rust_bytes(i) {
        return true;
    }
    match copy_layout(i, td) {
        Some(CopyLayout::Uniform(e)) => e != Elem::Ptr,
        Some(CopyLayout::Fields(fs)) => fs.iter().all(|(_, _, e)| *e != Elem::Ptr),
        None => false,
    }
}

/// Whether a copy from memory without a shadow copies a constant global
/// whose bytes are their own shadow: pointers to nothing with derivatives
/// (null, functions, read-only memory without floats: an empty hash
/// table's header points to the shared empty control bytes), typed
/// integers and zeros (as float bits, a constant's zero tangent). The shadow
/// gets the same copy.
pub(crate) fn copies_inert_constant(i: Value) -> bool {
    let Some(g) = constant_root(ir::operand(i, 1)) else { return false };
    unsafe {
        !LLVMIsAGlobalVariable(g).is_null()
            && LLVMIsGlobalConstant(g) != 0
            && !LLVMGetInitializer(g).is_null()
            && own_shadow(LLVMGetInitializer(g), 0)
    }
}

/// Whether constant `c` is its own shadow (see [`copies_inert_constant`]).
fn own_shadow(c: Value, depth: u32) -> bool {
    if depth > 8 {
        return false;
    }
    let t = ir::type_of(c);
    unsafe {
        if !LLVMIsAConstantAggregateZero(c).is_null()
            || !LLVMIsAConstantPointerNull(c).is_null()
            || !LLVMIsAUndefValue(c).is_null()
        {
            return true;
        }
        if ir::is_pointer(t) {
            return crate::ir::roots::is_inert_constant(c);
        }
        // Integers of a type wider than a byte are integers; bytes may be
        // anything's, and count only when zero.
        if !LLVMIsAConstantInt(c).is_null() {
            return LLVMGetIntTypeWidth(t) > 8 || LLVMConstIntGetZExtValue(c) == 0;
        }
        if !LLVMIsAConstantFP(c).is_null() {
            let mut lost = 0;
            let v = LLVMConstRealGetDouble(c, &mut lost);
            return v == 0.0 && v.is_sign_positive();
        }
        if !LLVMIsAConstantDataSequential(c).is_null() {
            let e = LLVMGetElementType(t);
            return ir::is_int(e) && LLVMGetIntTypeWidth(e) > 8;
        }
        if !LLVMIsAConstantStruct(c).is_null() || !LLVMIsAConstantArray(c).is_null() {
            return (0..ir::operand_count(c)).all(|k| own_shadow(ir::operand(c, k), depth + 1));
        }
    }
    false
}

/// Whether a copy's layout is known to hold integers only.
pub(crate) fn copies_only_integers(i: Value) -> bool {
    match copy_layout(i, data_layout(ir::parent_function(i))) {
        Some(CopyLayout::Uniform(e)) => e == Elem::Int,
        Some(CopyLayout::Fields(fs)) => fs.iter().all(|(_, _, e)| *e == Elem::Int),
        None => false,
    }
}
