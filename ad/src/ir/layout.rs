//! What memory holds, as far as the IR says: the layout of copied bytes
//! (TBAA, `!tbaa.struct`, stack-slot types, type hints, the function's own
//! accesses), the base a pointer is computed from, and what a reallocated
//! block holds. Read by [`crate::analysis::memory`] and the generators.

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::ir::kind::type_hint;
use crate::ir::kind::Elem;
pub(crate) use crate::ir::roots::{constant_table_elements, root_of};
use crate::ir::{self, Value};

/// Whether a value is an integer constant (zero bytes from a `memset`, or
/// the bits of a float constant the optimiser stores as an integer).
pub(crate) fn is_int_constant(v: Value) -> bool {
    unsafe { ir::is_int(ir::type_of(v)) && !LLVMIsAConstant(v).is_null() }
}

/// The layout of a copy: one element type throughout, or fields at offsets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CopyLayout {
    /// The whole copy, whatever its length, holds one element type.
    Uniform(Elem),
    /// `(offset, size, element)` runs; bytes outside them hold nothing that
    /// carries derivatives (padding).
    Fields(Vec<(u64, u64, Elem)>),
}

/// The element type a TBAA access-type name stands for.
pub(crate) fn tbaa_elem(name: &str) -> Option<Elem> {
    Some(match name {
        "double" => Elem::F64,
        "float" => Elem::F32,
        "any pointer" | "vtable pointer" => Elem::Ptr,
        n if n.starts_with("p1 ") || n.starts_with("p2 ") || n.starts_with("p3 ") => Elem::Ptr,
        "int" | "long" | "long long" | "short" | "_Bool" | "bool" | "char" | "signed char" | "unsigned char" => {
            Elem::Int
        }
        n if n.starts_with("_ZTS") => return None,
        _ => return None,
    })
}

pub(crate) fn md_operands(md: Value) -> Vec<Value> {
    unsafe {
        let n = LLVMGetMDNodeNumOperands(md) as usize;
        let mut out = vec![std::ptr::null_mut(); n];
        LLVMGetMDNodeOperands(md, out.as_mut_ptr());
        out
    }
}

pub(crate) fn md_string(v: Value) -> Option<String> {
    unsafe {
        if v.is_null() {
            return None;
        }
        let mut len = 0u32;
        let p = LLVMGetMDString(v, &mut len);
        (!p.is_null())
            .then(|| String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize)).into_owned())
    }
}

/// The access type of a TBAA tag `!{base, access, offset}`: `!{!"double", ...}`.
/// `field_size` is the size of a `!tbaa.struct` field, `None` for a whole copy.
pub(crate) fn tag_elem(tag: Value, field_size: Option<u64>) -> Option<Elem> {
    let ops = md_operands(tag);
    let access = *ops.get(1)?;
    let name = md_string(*md_operands(access).first()?)?;
    if name == "omnipotent char" {
        // Only a one-byte field is surely a `char`; clang also describes
        // arrays (`double pos[3]`) this way, and an untyped copy says nothing.
        return (field_size == Some(1)).then_some(Elem::Int);
    }
    tbaa_elem(&name)
}

pub(crate) fn metadata(i: Value, kind: &str) -> Option<Value> {
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(i));
        let id = LLVMGetMDKindIDInContext(ctx, kind.as_ptr() as *const _, kind.len() as u32);
        let md = LLVMGetMetadata(i, id);
        (!md.is_null()).then_some(md)
    }
}

/// A stack slot's fields as the layout of a copy starting at the slot: one
/// element type throughout fits any length; mixed fields need the copy's
/// length to be a constant and are cut to it (a copy may cover part of the
/// slot; taking the whole slot would move adjoints past the copy's end).
pub(crate) fn fit_to_copy(fields: Vec<(u64, u64, Elem)>, len: Value) -> Option<CopyLayout> {
    let first = fields.first()?.2;
    if fields.iter().all(|f| f.2 == first) {
        return Some(CopyLayout::Uniform(first));
    }
    let len = unsafe {
        if LLVMIsAConstantInt(len).is_null() {
            return None;
        }
        LLVMConstIntGetZExtValue(len)
    };
    let mut out = Vec::new();
    for (off, size, e) in fields {
        if off + size <= len {
            out.push((off, size, e));
        } else if off < len {
            // A field cut in the middle: the copy's bytes are not typed whole.
            return None;
        }
    }
    Some(CopyLayout::Fields(out))
}

/// Whether `f` loads or stores any pointer, other than in stack slots that
/// are only ever loaded and stored whole (no copy or reallocation can reach
/// what they hold: a `Vec`'s pointer kept in a slot across a loop).
pub(crate) fn moves_pointers_through_memory(f: Value) -> bool {
    ir::blocks(f).into_iter().flat_map(ir::instructions).any(|i| match ir::opcode(i) {
        LLVMOpcode::LLVMLoad => ir::is_pointer(ir::type_of(i)) && !ir::is_private_slot(ir::operand(i, 0)),
        LLVMOpcode::LLVMStore => {
            ir::is_pointer(ir::type_of(ir::operand(i, 0))) && !ir::is_private_slot(ir::operand(i, 1))
        }
        _ => false,
    })
}

/// The one scalar type `f` loads and stores through pointers based at
/// `root`, if there is exactly one and it is a float or a pointer type.
pub(crate) fn usage_elem(f: Value, root: Value) -> Option<Elem> {
    let mut seen: Option<Elem> = None;
    for b in ir::blocks(f) {
        for i in ir::instructions(b) {
            let (ptr, t) = match ir::opcode(i) {
                LLVMOpcode::LLVMLoad => (ir::operand(i, 0), ir::type_of(i)),
                // Integer constants (a small `memset`, a float constant's bits)
                // say nothing about the memory's type.
                LLVMOpcode::LLVMStore if is_int_constant(ir::operand(i, 0)) => continue,
                LLVMOpcode::LLVMStore => (ir::operand(i, 1), ir::type_of(ir::operand(i, 0))),
                _ => continue,
            };
            if root_of(ptr) != root {
                continue;
            }
            // A vector access touches lanes of its element type.
            let e = Elem::float_of(t).unwrap_or(if ir::is_pointer(ir::scalar_of(t)) { Elem::Ptr } else { Elem::Int });
            match seen {
                None => seen = Some(e),
                Some(s) if s == e => {}
                Some(_) => return None,
            }
        }
    }
    seen.filter(|e| *e != Elem::Int)
}

pub(crate) fn all_zero_indices(gep: Value) -> bool {
    (1..ir::operand_count(gep)).all(|k| unsafe {
        let idx = ir::operand(gep, k);
        !LLVMIsAConstantInt(idx).is_null() && LLVMConstIntGetZExtValue(idx) == 0
    })
}

/// A `getelementptr` whose field indices are constants: its byte offset
/// from its base pointer (when the first index, which steps over whole
/// objects, is constant too), the type it addresses, and whether a union
/// (whose type says nothing about which member the bytes hold) is on the way.
pub(crate) struct ConstantGep {
    pub offset: Option<u64>,
    pub addressed: ir::Type,
    pub through_union: bool,
}

pub(crate) fn constant_gep(gep: Value, td: llvm_sys::target::LLVMTargetDataRef) -> Option<ConstantGep> {
    use llvm_sys::target::{LLVMABISizeOfType, LLVMOffsetOfElement};
    use llvm_sys::LLVMTypeKind::*;
    unsafe {
        if LLVMIsAGetElementPtrInst(gep).is_null() {
            return None;
        }
        let mut t = LLVMGetGEPSourceElementType(gep);
        let mut g = ConstantGep { offset: Some(0), addressed: t, through_union: false };
        for k in 1..ir::operand_count(gep) {
            let idx = ir::operand(gep, k);
            if LLVMIsAConstantInt(idx).is_null() {
                if k == 1 {
                    g.offset = None;
                    continue;
                }
                return None;
            }
            let n = LLVMConstIntGetSExtValue(idx);
            let step = |t: ir::Type| (n as u64).wrapping_mul(LLVMABISizeOfType(td, t));
            let add = |g: &mut ConstantGep, d: u64| g.offset = g.offset.map(|o| o.wrapping_add(d));
            if k == 1 {
                add(&mut g, step(t));
                continue;
            }
            match ir::kind(t) {
                LLVMStructTypeKind => {
                    g.through_union |= is_union(t);
                    add(&mut g, LLVMOffsetOfElement(td, t, n as u32));
                    t = LLVMStructGetTypeAtIndex(t, n as u32);
                }
                LLVMArrayTypeKind => {
                    t = LLVMGetElementType(t);
                    add(&mut g, step(t));
                }
                _ => return None,
            }
        }
        g.addressed = t;
        g.through_union |= ir::kind(t) == LLVMStructTypeKind && is_union(t);
        Some(g)
    }
}

/// The type of the field a `getelementptr` with constant indices into a
/// struct addresses (`getelementptr %struct.pair, ptr %p, 0, 0` is the pair's
/// first field), if no union is on the way: the source's own type for that
/// access, which holds at -O0 where no TBAA tags say it.
pub(crate) fn struct_field_type(gep: Value) -> Option<ir::Type> {
    unsafe {
        if LLVMIsAGetElementPtrInst(gep).is_null()
            || ir::kind(LLVMGetGEPSourceElementType(gep)) != llvm_sys::LLVMTypeKind::LLVMStructTypeKind
        {
            return None;
        }
    }
    let g = constant_gep(gep, data_layout(ir::parent_function(gep)))?;
    (!g.through_union).then_some(g.addressed)
}

/// Metadata on a load or store of a struct's integer field (`p->count`),
/// put on the clones before preprocessing: the pipeline turns the
/// struct-typed `getelementptr` that says so into a byte offset, and at -O0
/// no TBAA says it either.
pub(crate) const INT_FIELD: &str = "enzyme_rs.int_field";

/// Marks `f`'s loads and stores of integer struct fields with [`INT_FIELD`].
pub(crate) fn mark_integer_fields(f: Value) {
    for i in ir::blocks(f).into_iter().flat_map(ir::instructions) {
        let (p, t) = match ir::opcode(i) {
            llvm_sys::LLVMOpcode::LLVMLoad => (ir::operand(i, 0), ir::type_of(i)),
            llvm_sys::LLVMOpcode::LLVMStore => (ir::operand(i, 1), ir::type_of(ir::operand(i, 0))),
            _ => continue,
        };
        let field = if ir::is_int(t) { struct_field_type(p) } else { None };
        if field.is_some_and(|ft| ir::is_int(ft) && ir::int_width(ft) == ir::int_width(t)) {
            ir::set_flag(i, INT_FIELD);
        }
    }
}

/// The base of an address and its constant byte offset from it, through
/// `getelementptr`s with constant indices.
pub(crate) fn constant_offset(mut p: Value, td: llvm_sys::target::LLVMTargetDataRef) -> Option<(Value, u64)> {
    let mut total: u64 = 0;
    while unsafe { !LLVMIsAGetElementPtrInst(p).is_null() } {
        total = total.wrapping_add(constant_gep(p, td)?.offset?);
        p = ir::operand(p, 0);
    }
    Some((p, total))
}

/// A struct type clang made for a C or C++ union (`%union.U`).
fn is_union(t: ir::Type) -> bool {
    unsafe {
        let name = LLVMGetStructName(t);
        !name.is_null() && std::ffi::CStr::from_ptr(name).to_bytes().starts_with(b"union.")
    }
}

/// Scalar fields of a type with their byte offsets.
pub(crate) fn flatten(
    t: ir::Type,
    base: u64,
    td: llvm_sys::target::LLVMTargetDataRef,
    out: &mut Vec<(u64, u64, Elem)>,
) -> bool {
    use llvm_sys::target::*;
    use llvm_sys::LLVMTypeKind::*;
    unsafe {
        match ir::kind(t) {
            LLVMDoubleTypeKind => out.push((base, 8, Elem::F64)),
            LLVMFloatTypeKind => out.push((base, 4, Elem::F32)),
            LLVMPointerTypeKind => out.push((base, 8, Elem::Ptr)),
            // Bytes (`[24 x i8]`, as SROA makes slots) say nothing about what they hold.
            LLVMIntegerTypeKind if LLVMGetIntTypeWidth(t) == 8 => return false,
            LLVMIntegerTypeKind => out.push((base, LLVMABISizeOfType(td, t), Elem::Int)),
            LLVMArrayTypeKind | LLVMVectorTypeKind => {
                let e = LLVMGetElementType(t);
                let size = LLVMABISizeOfType(td, e);
                let n =
                    if ir::kind(t) == LLVMArrayTypeKind { LLVMGetArrayLength2(t) } else { LLVMGetVectorSize(t) as u64 };
                for k in 0..n {
                    if !flatten(e, base + k * size, td, out) {
                        return false;
                    }
                }
            }
            // A union's type is one of its members (clang picks the largest):
            // it says nothing about which member the bytes hold.
            LLVMStructTypeKind if is_union(t) => return false,
            LLVMStructTypeKind => {
                for k in 0..LLVMCountStructElementTypes(t) {
                    let off = LLVMOffsetOfElement(td, t, k);
                    if !flatten(LLVMStructGetTypeAtIndex(t, k), base + off, td, out) {
                        return false;
                    }
                }
            }
            _ => return false,
        }
    }
    true
}

/// The data layout of the module holding function `f`.
pub(crate) fn data_layout(f: Value) -> llvm_sys::target::LLVMTargetDataRef {
    unsafe { llvm_sys::target::LLVMGetModuleDataLayout(LLVMGetGlobalParent(f)) }
}

/// A constant global whose initializer is a flat array of integers (a C
/// string literal, `c"alpha\00"`): its bytes are integers, whatever their width.
pub(crate) fn holds_integer_data(g: Value) -> bool {
    unsafe {
        let init = LLVMGetInitializer(g);
        LLVMIsGlobalConstant(g) != 0
            && !init.is_null()
            && !LLVMIsAConstantDataSequential(init).is_null()
            && ir::is_int(LLVMGetElementType(LLVMTypeOf(init)))
    }
}

/// The element type declared for memory based at `root` by a type hint in `f`.
pub(crate) fn hinted_elem(f: Value, root: Value) -> Option<Elem> {
    for b in ir::blocks(f) {
        for i in ir::instructions(b) {
            if ir::opcode(i) != LLVMOpcode::LLVMCall || ir::call_arg_count(i) == 0 {
                continue;
            }
            let Some(callee) = ir::called_function(i) else { continue };
            if let Some(e) = type_hint(&ir::name(callee)) {
                if root_of(ir::operand(i, 0)) == root {
                    return Some(e);
                }
            }
        }
    }
    None
}

/// A constant that addresses nothing writable: constant data, an integer
/// made an address, null, undefined; not a mutable global (others see it).
pub(crate) fn read_only_constant(v: Value) -> bool {
    unsafe {
        if LLVMIsAConstant(v).is_null() || !LLVMIsAFunction(v).is_null() {
            return false;
        }
        match ir::constant_root(v) {
            Some(g) => LLVMIsGlobalConstant(g) != 0,
            None => LLVMIsAGlobalValue(v).is_null(),
        }
    }
}
