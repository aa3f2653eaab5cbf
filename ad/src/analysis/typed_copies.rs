//! What a `memcpy`/`memmove` copies, from every kind of evidence but the
//! grown blocks' (which use this to type their own copies): metadata, hints,
//! stack slots' types, the function's own accesses, and what the library
//! recognisers know (byte data, hash tables, growing containers).

use llvm_sys::core::*;

use crate::ir::kind::Elem;
use crate::ir::layout::{
    all_zero_indices, fit_to_copy, flatten, hinted_elem, md_operands, metadata, moves_pointers_through_memory, root_of,
    tag_elem, usage_elem, CopyLayout,
};
use crate::ir::{self, Value};

/// [`copy_layout`] from what the copy's types say, without following grown blocks.
pub(crate) fn copy_layout_by_types(i: Value, module_layout: llvm_sys::target::LLVMTargetDataRef) -> Option<CopyLayout> {
    if let Some(tag) = metadata(i, "tbaa") {
        if let Some(e) = tag_elem(tag, None) {
            return Some(CopyLayout::Uniform(e));
        }
    }
    if let Some(st) = metadata(i, "tbaa.struct") {
        // Trusted only when every field has a type; otherwise other evidence decides.
        let ops = md_operands(st);
        let fields: Option<Vec<(u64, u64, Elem)>> = ops
            .chunks(3)
            .map(|triple| {
                let [off, size, tag] = triple else { return None };
                let (off, size) = unsafe { (LLVMConstIntGetZExtValue(*off), LLVMConstIntGetZExtValue(*size)) };
                Some((off, size, tag_elem(*tag, Some(size))?))
            })
            .collect();
        if let Some(fields) = fields {
            return Some(CopyLayout::Fields(fields));
        }
    }
    // A `String`'s or `Vec<u8>`'s clone: bytes by their type.
    if crate::libraries::copies_byte_slice(i) {
        return Some(CopyLayout::Uniform(Elem::Int));
    }
    // What the user said with `__enzyme_double(p)` and friends.
    let f = ir::parent_function(i);
    for k in 0..2 {
        if let Some(e) = hinted_elem(f, root_of(ir::operand(i, k))) {
            return Some(CopyLayout::Uniform(e));
        }
    }
    // Slots and control bytes of a hash table (Rust's `HashMap` growing),
    // also when the other side is a slot holding them for a moment (a swap).
    if let Some(layout) = crate::libraries::table_copy_layout(i) {
        return Some(layout);
    }
    // No metadata (as at -O0): a typed stack slot tells.
    for k in 0..2 {
        let mut p = ir::operand(i, k);
        unsafe {
            while !LLVMIsAGetElementPtrInst(p).is_null() && all_zero_indices(p) {
                p = LLVMGetOperand(p, 0);
            }
            if !LLVMIsAAllocaInst(p).is_null() {
                let mut fields = Vec::new();
                if flatten(LLVMGetAllocatedType(p), 0, module_layout, &mut fields) {
                    return fit_to_copy(fields, ir::operand(i, 2));
                }
            }
        }
    }
    // Arrays the function steps through element by element (Rust's `ptr.add`).
    if let Some(e) = crate::analysis::element_steps::copy_elem(i) {
        return Some(CopyLayout::Uniform(e));
    }
    // One element, at places the function reads or writes as its type.
    if let Some(e) = crate::analysis::element_steps::accessed_element(i) {
        return Some(CopyLayout::Uniform(e));
    }
    // How the function itself reads and writes the memory copied from and to,
    // trusted only in a function that moves no pointers through memory (a
    // pointer field it does not touch here would otherwise be taken for a float).
    if !moves_pointers_through_memory(f) {
        let uses: Vec<Option<Elem>> = (0..2).map(|k| usage_elem(f, root_of(ir::operand(i, k)))).collect();
        match (uses[0], uses[1]) {
            (Some(a), Some(b)) if a == b => return Some(CopyLayout::Uniform(a)),
            (Some(a), None) | (None, Some(a)) if a != Elem::Int => return Some(CopyLayout::Uniform(a)),
            _ => {}
        }
    }
    if let Some(e) = crate::libraries::grown_container_elem(i) {
        return Some(CopyLayout::Uniform(e));
    }
    crate::analysis::int_bytes::copies_integer_bytes(i).then_some(CopyLayout::Uniform(Elem::Int))
}
