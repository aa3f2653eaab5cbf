//! What memory holds, as far as the IR says: the layout of copied bytes
//! (TBAA, `!tbaa.struct`, stack-slot types, type hints, the function's own
//! accesses), the base a pointer is computed from, and what a reallocated
//! block holds. Read by [`crate::memory`] and the generators.

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::ir::{self, Value};
use crate::kind::Elem;
use crate::markers::type_hint;
pub(crate) use crate::roots::{constant_table_elements, root_of};

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

/// What a `memcpy`/`memmove` copies, from the TBAA metadata clang attaches
/// when optimising (`!tbaa` for a copy of one type, `!tbaa.struct` listing a
/// struct's fields), or from the type of a stack slot it copies from or to.
/// Otherwise, a copy between blocks of the function's own copies what their
/// accesses say (see `grown_blocks::copied_elem`).
pub(crate) fn copy_layout(i: Value, module_layout: llvm_sys::target::LLVMTargetDataRef) -> Option<CopyLayout> {
    copy_layout_by_types(i, module_layout).or_else(|| crate::grown_blocks::copied_elem(i).map(CopyLayout::Uniform))
}

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
    if crate::byte_data::copies_byte_slice(i) {
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
    if let Some(layout) = crate::swiss_tables::copy_layout(i) {
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
    if let Some(e) = crate::element_steps::copy_elem(i) {
        return Some(CopyLayout::Uniform(e));
    }
    // One element, at places the function reads or writes as its type.
    if let Some(e) = crate::element_steps::accessed_element(i) {
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
    if let Some(e) = fresh_blocks_elem(i) {
        return Some(CopyLayout::Uniform(e));
    }
    crate::int_bytes::copies_integer_bytes(i).then_some(CopyLayout::Uniform(Elem::Int))
}

/// A copy between heap blocks the function allocates itself (a growing
/// `std::vector`'s old and new buffers: `memmove(new, old, n)` inside
/// libstdc++), whose addresses go nowhere the function cannot see (never
/// stored, passed only to deallocation and copies among themselves): every
/// access to them is in the function, and if those agree on one float type
/// and none moves a pointer, that is what the blocks hold.
///
/// Also a container the caller owns (a `std::vector` passed by reference
/// and grown): the old block is loaded from a slot of the caller's object
/// into which the function stores its new block (see [`ContainerSlot`]).
/// The new block's accesses then type the copy, provided the container's
/// elements are exactly one float wide (every step the function takes
/// through its blocks is one float), so a struct element with fields the
/// function does not touch is never taken for floats.
fn fresh_blocks_elem(copy: Value) -> Option<Elem> {
    let mut blocks = allocations_reached(ir::operand(copy, 0))?;
    let slot = match allocations_reached(ir::operand(copy, 1)) {
        Some(sources) => {
            blocks.extend(sources.into_iter().filter(|b| !blocks.contains(b)).collect::<Vec<_>>());
            None
        }
        None => Some(ContainerSlot::of(ir::operand(copy, 1), &blocks)?),
    };
    // Everything derived from the blocks' addresses, and how it is used.
    let mut derived: Vec<Value> = blocks.clone();
    let mut seen: Option<Elem> = None;
    let mut steps: Vec<Value> = Vec::new();
    let mut k = 0;
    while k < derived.len() {
        let p = derived[k];
        k += 1;
        for u in ir::users(p) {
            let elem = match ir::opcode(u) {
                LLVMOpcode::LLVMGetElementPtr
                | LLVMOpcode::LLVMBitCast
                | LLVMOpcode::LLVMPHI
                | LLVMOpcode::LLVMSelect => {
                    if ir::opcode(u) == LLVMOpcode::LLVMGetElementPtr {
                        steps.push(u);
                    }
                    if !derived.contains(&u) {
                        derived.push(u);
                    }
                    continue;
                }
                LLVMOpcode::LLVMICmp | LLVMOpcode::LLVMPtrToInt => continue,
                LLVMOpcode::LLVMLoad => ir::type_of(u),
                LLVMOpcode::LLVMStore if ir::operand(u, 1) == p && ir::operand(u, 0) != p => {
                    if is_int_constant(ir::operand(u, 0)) {
                        continue;
                    }
                    ir::type_of(ir::operand(u, 0))
                }
                // The new block (or a position in it) kept in the caller's container.
                LLVMOpcode::LLVMStore if slot.as_ref().is_some_and(|s| s.holds(ir::operand(u, 1))) => continue,
                LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke => {
                    let name = ir::called_function(u).map(ir::name).unwrap_or_default();
                    let is_copy = name.starts_with("llvm.memcpy") || name.starts_with("llvm.memmove");
                    if is_copy && ir::operand(u, 0) == p {
                        // A copy into the blocks comes from blocks the function
                        // allocates (which join the set: their accesses are
                        // checked too), or from the container's old block.
                        if let Some(from) = allocations_reached(ir::operand(u, 1)) {
                            for b in from {
                                join(&mut blocks, &mut derived, b);
                            }
                            continue;
                        }
                        let from_slot = slot
                            .as_ref()
                            .is_some_and(|s| ContainerSlot::of(ir::operand(u, 1), &blocks).as_ref() == Some(s));
                        if !from_slot {
                            return None;
                        }
                        continue;
                    }
                    if is_copy || name.starts_with("llvm.memset") || name.starts_with("llvm.lifetime.") {
                        continue;
                    }
                    if crate::kind::DEALLOCATORS.contains(&name.as_str()) && ir::operand(u, 0) == p {
                        continue;
                    }
                    // A block grown in place or moved (a Rust `Vec` or
                    // `VecDeque` growing): the new block is one of the blocks.
                    if name == "realloc"
                        && ir::operand(u, 0) == p
                        && ir::called_function(u).is_some_and(ir::is_declaration)
                    {
                        join(&mut blocks, &mut derived, u);
                        continue;
                    }
                    return None;
                }
                _ => return None, // stored as a value, returned, passed on: it escapes
            };
            let e = Elem::float_of(elem)?;
            match seen {
                None => seen = Some(e),
                Some(s) if s == e => {}
                Some(_) => return None,
            }
        }
    }
    let elem = seen?;
    if slot.is_some() && !steps.iter().all(|g| is_one_element_step(*g, elem)) {
        return None;
    }
    Some(elem)
}

/// Adds block `b` to the blocks, and to what is derived from them (its uses
/// are then checked too).
fn join(blocks: &mut Vec<Value>, derived: &mut Vec<Value>, b: Value) {
    if !blocks.contains(&b) {
        blocks.push(b);
    }
    if !derived.contains(&b) {
        derived.push(b);
    }
}

/// The slot of a caller's object a container keeps its block in (a
/// `std::vector`'s start pointer), known by the function loading the old
/// block from it and storing its new one there.
#[derive(PartialEq, Eq)]
struct ContainerSlot {
    /// The address loaded from and stored to.
    slot: Value,
    /// The object it is a field of (the slot less constant offsets).
    object: Value,
}

impl ContainerSlot {
    /// The slot `old` (through address arithmetic and phis) was loaded from,
    /// if the function also stores a pointer into `blocks` there.
    fn of(old: Value, blocks: &[Value]) -> Option<ContainerSlot> {
        let loads = loads_reached(old)?;
        let slot = ir::operand(*loads.first()?, 0);
        if !loads.iter().all(|l| ir::operand(*l, 0) == slot) {
            return None;
        }
        let stores_new = ir::users(slot).into_iter().any(|u| {
            ir::opcode(u) == LLVMOpcode::LLVMStore
                && ir::operand(u, 1) == slot
                && allocations_reached(ir::operand(u, 0))
                    .is_some_and(|to| !to.is_empty() && to.iter().all(|b| blocks.contains(b)))
        });
        stores_new.then(|| ContainerSlot { slot, object: object_of(slot) })
    }

    /// Whether `p` is a field of the same object (the container's other
    /// pointers: its end, its capacity).
    fn holds(&self, p: Value) -> bool {
        p == self.slot || object_of(p) == self.object
    }
}

/// `p` less constant-offset address arithmetic.
fn object_of(mut p: Value) -> Value {
    while ir::is_instruction(p)
        && ir::opcode(p) == LLVMOpcode::LLVMGetElementPtr
        && (1..ir::operand_count(p)).all(|k| is_int_constant(ir::operand(p, k)))
    {
        p = ir::operand(p, 0);
    }
    p
}

/// The pointer loads `p` may come from, through address arithmetic, phis
/// and selects (nulls aside); `None` if anything else.
fn loads_reached(p: Value) -> Option<Vec<Value>> {
    bases_all(p, |b| ir::is_instruction(b) && ir::opcode(b) == LLVMOpcode::LLVMLoad)
}

/// Whether address arithmetic steps by whole elements of one float: indexes
/// of that float type, or byte offsets of exactly its size (or of a
/// run-time amount, such as the old block's length in bytes).
fn is_one_element_step(gep: Value, elem: Elem) -> bool {
    let size = elem.size();
    unsafe {
        let source = LLVMGetGEPSourceElementType(gep);
        if ir::scalar_of(source) == source && Elem::float_of(source) == Some(elem) {
            return true;
        }
        if ir::operand_count(gep) != 2 || !ir::is_int(source) || LLVMGetIntTypeWidth(source) != 8 {
            return false;
        }
        let offset = ir::operand(gep, 1);
        LLVMIsAConstantInt(offset).is_null() || LLVMConstIntGetSExtValue(offset) == size as i64
    }
}

/// The allocation calls (C and C++ allocators) `p` may point into, through
/// address arithmetic, phis and selects, nulls aside; `None` if it may point
/// anywhere else.
fn allocations_reached(p: Value) -> Option<Vec<Value>> {
    bases_all(p, |b| {
        ir::is_instruction(b)
            && ir::is_call_or_invoke(b)
            && ir::called_function(b).is_some_and(|callee| {
                let name = ir::name(callee);
                ir::is_declaration(callee)
                    && (name == "realloc" || crate::kind::ALLOCATORS.iter().any(|a| a.name == name))
            })
    })
}

/// `p`'s bases (see [`ir::pointer_bases`]) other than nulls, if every one is `wanted`.
fn bases_all(p: Value, wanted: impl Fn(Value) -> bool) -> Option<Vec<Value>> {
    let bases: Vec<Value> = ir::pointer_bases(p)
        .into_iter()
        .filter(|b| unsafe { LLVMIsAConstantPointerNull(*b).is_null() } && !ir::is_unmapped_address(*b))
        .collect();
    bases.iter().all(|b| wanted(*b)).then_some(bases)
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

/// Whether a copy's layout is known to hold integers only.
pub(crate) fn copies_only_integers(i: Value) -> bool {
    match copy_layout(i, data_layout(ir::parent_function(i))) {
        Some(CopyLayout::Uniform(e)) => e == Elem::Int,
        Some(CopyLayout::Fields(fs)) => fs.iter().all(|(_, _, e)| *e == Elem::Int),
        None => false,
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
