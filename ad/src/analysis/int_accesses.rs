//! Integer loads and stores through shadowed pointers: whether they surely
//! move integers (a TBAA tag, a type hint, an integer field or stack slot,
//! address arithmetic over integers, or memory of the function's own that
//! is only ever accessed as integers there), and whether an integer stored
//! may be the bits of a float or a pointer. `memory` refuses an integer
//! store into shadowed memory that may move such bits, since their
//! derivative or shadow would be lost.

use std::collections::HashSet;

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::ir::kind::{Elem, Kind};
use crate::ir::layout::{data_layout, flatten, hinted_elem, metadata, root_of, tag_elem};
use crate::ir::roots::is_local;
use crate::ir::{self, Value};

pub(crate) const INT_ACCESS_WHAT: &str =
    "bytes copied as an integer into memory that may hold floating-point values or pointers";
pub(crate) const INT_ACCESS_HELP: &str =
    "the bytes pass through an integer, so a derivative or shadow pointer they hold would \
     be lost; copy through a variable of their own type (`double`, a pointer), or, if the memory holds integers, say \
     so with `__enzyme_integer(ptr)`";

/// Whether an integer load or store `i` through the shadowed pointer `p`
/// certainly moves integers: its TBAA type, a type hint, the stack slot it
/// addresses, the element type of its address arithmetic, or (for memory of
/// the function's own) every access of the same memory says so. Floats or
/// pointers moved as integer bits would lose their derivative or shadow.
pub(crate) fn surely_integer_access(i: Value, p: Value, kind_of: &impl Fn(Value) -> Kind) -> bool {
    let t = if ir::opcode(i) == LLVMOpcode::LLVMLoad { ir::type_of(i) } else { ir::type_of(ir::stored_value(i)) };
    // Integer vectors (what the vectoriser makes of copies) by their lanes.
    let Some((t, lanes)) = ir::int_lanes(t) else { return false };
    if lanes == 1 && ir::int_width(t) < 32 {
        // Too narrow for a float or a pointer.
        return true;
    }
    if let Some(tag) = metadata(i, "tbaa") {
        if let Some(e) = tag_elem(tag, None) {
            return e == Elem::Int;
        }
    }
    if ir::has_flag(i, crate::ir::layout::INT_FIELD) {
        return true;
    }
    let root = root_of(p);
    let f = ir::parent_function(i);
    if let Some(e) = hinted_elem(f, root) {
        return e == Elem::Int;
    }
    unsafe {
        // Address arithmetic over integers of this width: `getelementptr i64, ptr %a, i64 %k`.
        if !LLVMIsAGetElementPtrInst(p).is_null() {
            let src = LLVMGetGEPSourceElementType(p);
            if ir::is_int(src) && ir::int_width(src) == ir::int_width(t) {
                return true;
            }
            // A struct's integer field: `p->key = k`.
            if let Some(field) = crate::ir::layout::struct_field_type(p) {
                if ir::is_int(field) && ir::int_width(field) == ir::int_width(t) {
                    return true;
                }
            }
            // A field of an element of an array of structs (`v[i].len`, a
            // `String`'s length as a `Vec<String>` grows).
            if lanes == 1 && integer_field_of_element(p, ir::store_size(f, t), data_layout(f)) {
                return true;
            }
        }
        if let Some(integers) = slot_of_integers(root, data_layout(f)) {
            return integers;
        }
    }
    // A choice between stack slots of integers (unoptimised Rust picks the
    // slot of an `Option<Layout>`'s size or of its alignment by a phi).
    let bases = ir::pointer_bases(p);
    if bases.len() > 1 && bases.iter().all(|b| slot_of_integers(*b, data_layout(f)) == Some(true)) {
        return true;
    }
    // A hash table's control bytes or integer fields (Rust's `HashMap` keys).
    let bytes = ir::store_size(f, t) * lanes as u64;
    if let Some(e) = crate::libraries::table_elem_at(p, bytes) {
        return e == Elem::Int;
    }
    // Memory of the function's own, never accessed as anything but integers
    // (as a whole, or at these bytes: a tree node's integer key at -O0).
    if !is_local(root, kind_of) {
        return false;
    }
    if only_integer_accesses(f, root) {
        return true;
    }
    let td = crate::ir::layout::data_layout(f);
    let size = unsafe { llvm_sys::target::LLVMABISizeOfType(td, t) } * lanes as u64;
    crate::ir::layout::constant_offset(p, td)
        .is_some_and(|(r, at)| r == root && only_integer_accesses_at(f, root, at, size, td))
}

/// Whether address `p` is an integer field of `bytes` bytes in an element
/// of an array of structs: `getelementptr T, ptr %a, i64 %i` (a struct `T`
/// that is no union), then constant offsets into the element.
fn integer_field_of_element(p: Value, bytes: u64, td: llvm_sys::target::LLVMTargetDataRef) -> bool {
    let mut at: u64 = 0;
    let mut q = p;
    for _ in 0..8 {
        if unsafe { LLVMIsAGetElementPtrInst(q).is_null() } {
            return false;
        }
        let src = unsafe { LLVMGetGEPSourceElementType(q) };
        let variable = unsafe { LLVMIsAConstantInt(ir::operand(q, 1)).is_null() };
        if ir::operand_count(q) == 2 && variable && ir::kind(src) == llvm_sys::LLVMTypeKind::LLVMStructTypeKind {
            let mut fields = Vec::new();
            return flatten(src, 0, td, &mut fields)
                && fields.iter().any(|(o, size, e)| *o == at && *size == bytes && *e == Elem::Int);
        }
        match crate::ir::layout::constant_gep(q, td).and_then(|g| g.offset) {
            Some(o) => at += o,
            None => return false,
        }
        q = ir::operand(q, 0);
    }
    false
}

/// For a stack slot of a type that says what it holds: whether that is
/// integers only; `None` for anything else.
fn slot_of_integers(b: Value, td: llvm_sys::target::LLVMTargetDataRef) -> Option<bool> {
    let mut fields = Vec::new();
    unsafe {
        (!LLVMIsAAllocaInst(b).is_null() && flatten(LLVMGetAllocatedType(b), 0, td, &mut fields))
            .then(|| fields.iter().all(|(_, _, e)| *e == Elem::Int))
    }
}

/// Whether every load and store through `root` that may touch bytes
/// `at..at + size` is an integer access at a known offset.
fn only_integer_accesses_at(
    f: Value,
    root: Value,
    at: u64,
    size: u64,
    td: llvm_sys::target::LLVMTargetDataRef,
) -> bool {
    ir::blocks(f).into_iter().flat_map(ir::instructions).all(|i| {
        let (ptr, t) = match ir::opcode(i) {
            LLVMOpcode::LLVMLoad => (ir::operand(i, 0), ir::type_of(i)),
            LLVMOpcode::LLVMStore => (ir::operand(i, 1), ir::type_of(ir::operand(i, 0))),
            _ => return true,
        };
        if root_of(ptr) != root {
            return true;
        }
        match crate::ir::layout::constant_offset(ptr, td) {
            Some((r, o)) if r == root => {
                let n = unsafe { llvm_sys::target::LLVMABISizeOfType(td, t) };
                o + n <= at || at + size <= o || ir::is_int(t)
            }
            _ => false,
        }
    })
}

/// Whether an integer value stored may be the bits of a float or pointer
/// read from differentiated memory (through phis, selects, `freeze` and
/// lane moves) or a pointer's bits. Bits read from memory without a shadow are constants.
pub(crate) fn moves_untyped_bits(
    v: Value,
    shadowed: &impl Fn(Value) -> bool,
    kind_of: &impl Fn(Value) -> Kind,
) -> bool {
    let mut work = vec![v];
    let mut seen = HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) || !ir::is_instruction(v) {
            continue;
        }
        match ir::opcode(v) {
            LLVMOpcode::LLVMLoad => {
                let p = ir::operand(v, 0);
                if shadowed(p) && !surely_integer_access(v, p, kind_of) {
                    return true;
                }
            }
            LLVMOpcode::LLVMPtrToInt | LLVMOpcode::LLVMPtrToAddr => return true,
            LLVMOpcode::LLVMPHI => work.extend(ir::incoming(v).into_iter().map(|(x, _)| x)),
            LLVMOpcode::LLVMSelect => work.extend([ir::operand(v, 1), ir::operand(v, 2)]),
            LLVMOpcode::LLVMFreeze => work.push(ir::operand(v, 0)),
            // Bits rearranged, not computed: lanes shuffled (a vectorised
            // reversed copy), inserted, extracted, reinterpreted.
            LLVMOpcode::LLVMShuffleVector | LLVMOpcode::LLVMInsertElement => {
                work.extend([ir::operand(v, 0), ir::operand(v, 1)])
            }
            LLVMOpcode::LLVMExtractElement | LLVMOpcode::LLVMBitCast => work.push(ir::operand(v, 0)),
            _ => {}
        }
    }
    false
}

/// Whether every load and store in `f` through pointers based at `root` is of integers.
fn only_integer_accesses(f: Value, root: Value) -> bool {
    ir::blocks(f).into_iter().flat_map(ir::instructions).all(|i| {
        let (ptr, t) = match ir::opcode(i) {
            LLVMOpcode::LLVMLoad => (ir::operand(i, 0), ir::type_of(i)),
            LLVMOpcode::LLVMStore => (ir::operand(i, 1), ir::type_of(ir::operand(i, 0))),
            _ => return true,
        };
        root_of(ptr) != root || ir::is_int(t)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::test_ir::with_function;

    /// `surely_integer_access` of each store of `@f` (in order).
    fn stores_surely_integer(body: &str) -> Vec<bool> {
        let ir = format!("define void @f(ptr %a, i64 %i, i64 %n, i1 %c) {{\nentry:\n{body}\n  ret void\n}}\n");
        with_function(&ir, |f| {
            ir::blocks(f)
                .into_iter()
                .flat_map(ir::instructions)
                .filter(|i| ir::opcode(*i) == LLVMOpcode::LLVMStore)
                .map(|s| surely_integer_access(s, ir::operand(s, 1), &crate::calls::classify::classify))
                .collect()
        })
    }

    #[test]
    fn a_choice_between_integer_slots_holds_integers() {
        let body = "  %size = alloca i64\n  %align = alloca i64\n  %x = alloca double\n  \
             %slot = select i1 %c, ptr %size, ptr %align\n  store i64 %n, ptr %slot\n  \
             %mixed = select i1 %c, ptr %size, ptr %x\n  store i64 %n, ptr %mixed";
        assert_eq!(stores_surely_integer(body), vec![true, false]);
    }

    #[test]
    fn integer_fields_of_an_element_of_structs() {
        // `Vec<String>`'s elements: capacity, pointer, length.
        let body = "  %e = getelementptr { i64, ptr, i64 }, ptr %a, i64 %i\n  store i64 %n, ptr %e\n  \
             %len = getelementptr i8, ptr %e, i64 16\n  store i64 %n, ptr %len\n  \
             %buf = getelementptr i8, ptr %e, i64 8\n  store i64 %n, ptr %buf";
        assert_eq!(stores_surely_integer(body), vec![true, true, false]);
    }
}
