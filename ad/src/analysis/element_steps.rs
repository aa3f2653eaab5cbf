//! What a copy between arrays holds, from how the function steps through
//! them: Rust's `ptr.add(i)` on a `*mut f64` is `getelementptr f64, p, i`,
//! and a container that shifts part of an array (a `BTreeMap` node's keys,
//! values and child pointers) copies from and to such addresses. The step
//! type is trusted only where the function also loads or stores that type
//! through a step of the same type from the same array (the same base and
//! constant offsets), so an address computed as `double *` over memory that
//! holds something else is not taken for floats.

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::analysis::object_classes::only_moved;
use crate::ir::kind::Elem;
use crate::ir::{self, Type, Value};

/// A value loaded only to be stored elsewhere (see [`only_moved`]).
fn is_moved_value(v: Value) -> bool {
    ir::is_instruction(v) && ir::opcode(v) == LLVMOpcode::LLVMLoad && only_moved(v)
}

/// Where an array starts: a base value less constant-index address
/// arithmetic, and the constant steps on the way.
struct ArrayStart {
    /// The objects the root may be (through phis and selects).
    roots: Vec<Value>,
    constant_path: Vec<(Type, Vec<u64>)>,
}

impl ArrayStart {
    /// `p` as a root and constant steps from it.
    fn of(mut p: Value) -> Option<ArrayStart> {
        let mut constant_path = Vec::new();
        while ir::is_instruction(p) && ir::opcode(p) == LLVMOpcode::LLVMGetElementPtr {
            let indices: Option<Vec<u64>> = (1..ir::operand_count(p))
                .map(|k| unsafe {
                    let idx = ir::operand(p, k);
                    (!LLVMIsAConstantInt(idx).is_null()).then(|| LLVMConstIntGetZExtValue(idx))
                })
                .collect();
            constant_path.push((unsafe { LLVMGetGEPSourceElementType(p) }, indices?));
            p = ir::operand(p, 0);
        }
        Some(ArrayStart { roots: ir::chosen_values(p), constant_path })
    }

    /// Whether the two may be the same array of the same object (a node
    /// chosen by a `select` is one of the nodes it chooses from).
    fn meets(&self, other: &ArrayStart) -> bool {
        self.constant_path == other.constant_path && self.roots.iter().any(|r| other.roots.contains(r))
    }
}

/// `p` as `getelementptr T, start, i` with a variable `i` and a scalar `T`:
/// the array's start and `T`.
/// A constant byte offset of whole elements after the step (`&a[i + 2]` as
/// `a + i` then 16 bytes) stays in the array.
fn array_step(p: Value) -> Option<(ArrayStart, Type)> {
    if !ir::is_instruction(p) || ir::opcode(p) != LLVMOpcode::LLVMGetElementPtr || ir::operand_count(p) != 2 {
        return None;
    }
    let elem = unsafe { LLVMGetGEPSourceElementType(p) };
    let index = ir::operand(p, 1);
    if unsafe { !LLVMIsAConstantInt(index).is_null() } {
        let (start, t) = array_step(ir::operand(p, 0))?;
        let bytes = unsafe { LLVMConstIntGetSExtValue(index) } * byte_size(elem)? as i64;
        return (bytes % byte_size(t)? as i64 == 0).then_some((start, t));
    }
    if ir::scalar_of(elem) != elem {
        return None;
    }
    Some((ArrayStart::of(ir::operand(p, 0))?, elem))
}

/// The size of a scalar type in bytes (integers of whole bytes, pointers, floats).
fn byte_size(t: Type) -> Option<u64> {
    if ir::is_pointer(t) {
        return Some(8);
    }
    if ir::is_int(t) {
        let bits = unsafe { LLVMGetIntTypeWidth(t) } as u64;
        return bits.is_multiple_of(8).then_some(bits / 8);
    }
    Elem::float_of(t).map(Elem::size)
}

/// A scalar type as a copy layout element.
fn elem_of(t: Type) -> Option<Elem> {
    Elem::float_of(t).or_else(|| {
        if ir::is_pointer(t) {
            Some(Elem::Ptr)
        } else if ir::is_int(t) && unsafe { LLVMGetIntTypeWidth(t) } >= 16 {
            // Bytes (`i8`) are how untyped code steps; wider integers are typed.
            Some(Elem::Int)
        } else {
            None
        }
    })
}

/// What `copy` (a `memcpy`/`memmove`) moves, where its addresses are in
/// arrays the function steps through element by element as one scalar type
/// (and no address steps as another).
pub(crate) fn copy_elem(copy: Value) -> Option<Elem> {
    let f = ir::parent_function(copy);
    // One address at least must step through an array (`a + i`): a copy
    // from and to the start of objects is as likely a whole struct's. Else
    // a copy of a run-time length at constant offsets inside arrays the
    // function steps through (a node's keys shifted by one).
    if !(0..2).any(|k| array_step(ir::operand(copy, k)).is_some()) {
        return inside_arrays(f, copy);
    }
    let mut found: Option<Elem> = None;
    for k in 0..2 {
        let p = ir::operand(copy, k);
        // A copy at `a + i` is in the array at `a`; one at `a` starts it.
        let (start, stepped) = match array_step(p) {
            Some((start, t)) => (start, Some(t)),
            None => match ArrayStart::of(p) {
                Some(start) => (start, None),
                None => continue,
            },
        };
        let Some(t) = accessed_as(f, &start) else { continue };
        if stepped.is_some_and(|s| s != t) {
            return None;
        }
        found = Some(join(found, elem_of(t)?)?);
    }
    // No evidence in these very objects: their class's (see `inside_arrays`).
    let e = match found {
        Some(e) => e,
        None => return inside_arrays(f, copy),
    };
    // A constant length must cover whole elements.
    let len = ir::operand(copy, 2);
    unsafe {
        if !LLVMIsAConstantInt(len).is_null() && !LLVMConstIntGetZExtValue(len).is_multiple_of(e.size()) {
            return None;
        }
    }
    Some(e)
}

/// A copy whose two addresses are constant offsets into objects (`node +
/// 16` from `node + 8`), each inside an array of the object's class (see
/// [`crate::analysis::object_classes`]), both of one type; a copy of a constant length
/// stays inside the arrays.
fn inside_arrays(f: Value, copy: Value) -> Option<Elem> {
    let len = ir::operand(copy, 2);
    let len = unsafe { (!LLVMIsAConstantInt(len).is_null()).then(|| LLVMConstIntGetZExtValue(len)) };
    let mut classes = crate::analysis::object_classes::Classes::of(f);
    let mut found: Option<Elem> = None;
    for k in 0..2 {
        let p = ir::operand(copy, k);
        let t = classes.array_type_at(p, len)?;
        if array_step(p).is_some_and(|(_, step)| step != t) {
            return None;
        }
        found = Some(join(found, elem_of(t)?)?);
    }
    found
}

/// What two addresses of a copy say together: `None` if they disagree.
fn join(found: Option<Elem>, e: Elem) -> Option<Elem> {
    match found {
        Some(x) => (x == e).then_some(x),
        None => Some(e),
    }
}

/// A load's or store's address, the type it moves, and whether the value is
/// only moved from one place to another (bits in whatever type).
fn access(i: Value) -> Option<(Value, Type, bool)> {
    match ir::opcode(i) {
        LLVMOpcode::LLVMLoad => Some((ir::operand(i, 0), ir::type_of(i), only_moved(i))),
        LLVMOpcode::LLVMStore => {
            Some((ir::operand(i, 1), ir::type_of(ir::operand(i, 0)), is_moved_value(ir::operand(i, 0))))
        }
        _ => None,
    }
}

/// The one type `f` loads and stores, stepping through the array at
/// `start` as that type; `None` if it never does, or mixes types.
fn accessed_as(f: Value, start: &ArrayStart) -> Option<Type> {
    let mut seen: Option<Type> = None;
    for i in ir::blocks(f).into_iter().flat_map(ir::instructions) {
        let Some((ptr, t, moved)) = access(i) else { continue };
        let Some((s, step)) = array_step(ptr) else { continue };
        if !s.meets(start) {
            continue;
        }
        // Bits only moved, in another type than the step's, say nothing.
        if moved && t != step {
            continue;
        }
        if t != step || seen.is_some_and(|x| x != t) {
            return None;
        }
        seen = Some(t);
    }
    seen
}

/// What a copy of one scalar's size moves, from the very places it copies
/// from and to: each address the copy may use (through phis and selects,
/// as a base and constant byte offset) is also loaded or stored by the
/// function as that scalar, and never as another type. A sort moves its
/// elements so (`ptr::copy_nonoverlapping(src, dst, 1)` after comparing
/// `*src`, the addresses chosen by `select`s of a sorting network).
pub(crate) fn accessed_element(copy: Value) -> Option<Elem> {
    let len = ir::operand(copy, 2);
    let len = unsafe { (!LLVMIsAConstantInt(len).is_null()).then(|| LLVMConstIntGetZExtValue(len))? };
    let f = ir::parent_function(copy);
    let td = crate::ir::layout::data_layout(f);
    let sides: Vec<Vec<(Value, u64)>> = (0..2).map(|k| places(ir::operand(copy, k), td)).collect();
    // Per place: the one type accessed there, or `None` once two are.
    let mut typed: std::collections::HashMap<(Value, u64), Option<Type>> = std::collections::HashMap::new();
    for i in ir::blocks(f).into_iter().flat_map(ir::instructions) {
        let Some((ptr, t, moved)) = access(i) else { continue };
        if moved {
            continue;
        }
        for place in places(ptr, td) {
            if sides.iter().any(|s| s.contains(&place)) {
                let e = typed.entry(place).or_insert(Some(t));
                if *e != Some(t) {
                    *e = None;
                }
            }
        }
    }
    let mut found: Option<Elem> = None;
    for side in &sides {
        let mut types = Vec::new();
        for place in side {
            match typed.get(place) {
                Some(Some(t)) => types.push(*t),
                // Two types at one place: nothing can be said.
                Some(None) => return None,
                None => {}
            }
        }
        // Evidence only when every place of this side has it.
        if types.len() < side.len() {
            continue;
        }
        for t in types {
            let e = elem_of(t)?;
            if byte_size(t)? != len {
                return None;
            }
            found = Some(join(found, e)?);
        }
    }
    found
}

/// The places an address may be: each value it may be (through phis and
/// selects) as a base and a constant byte offset.
fn places(p: Value, td: llvm_sys::target::LLVMTargetDataRef) -> Vec<(Value, u64)> {
    ir::chosen_values(p).into_iter().map(|v| crate::ir::layout::constant_offset(v, td).unwrap_or((v, 0))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::test_ir::{calls, with_function};

    /// What each `memmove` of `@f`, in order, is found to move.
    fn verdicts(body: &str) -> Vec<Option<Elem>> {
        let ir = format!(
            "declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)\n\
             define void @f(ptr %node, ptr %other, i64 %i, i64 %n, double %x) {{\n{body}\n  ret void\n}}\n"
        );
        with_function(&ir, |f| calls(f).into_iter().map(copy_elem).collect())
    }

    // A node with keys (`i64`) at 8 and values (`double`) at 96, shifted by one
    // to make room, as `BTreeMap` does; each array also read as its type.
    const NODE: &str = "  %keys = getelementptr inbounds i8, ptr %node, i64 8\n  \
         %vals = getelementptr inbounds i8, ptr %node, i64 96\n  \
         %k = getelementptr inbounds i64, ptr %keys, i64 %i\n  %kl = load i64, ptr %k\n  \
         %v = getelementptr inbounds double, ptr %vals, i64 %i\n  store double %x, ptr %v\n";

    #[test]
    fn shifting_an_array_read_as_its_type_moves_that_type() {
        let body = format!(
            "{NODE}  %k1 = getelementptr inbounds i64, ptr %keys, i64 %n\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %k1, ptr %k, i64 %n, i1 false)\n  \
             %v1 = getelementptr inbounds i8, ptr %v, i64 8\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %v1, ptr %v, i64 %n, i1 false)\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %vals, ptr %v, i64 %n, i1 false)"
        );
        assert_eq!(verdicts(&body), vec![Some(Elem::Int), Some(Elem::F64), Some(Elem::F64)]);
    }

    #[test]
    fn a_step_type_the_function_never_reads_through_says_nothing() {
        // `double` steps over `%other`'s array, which nothing reads or writes.
        let body = "  %a = getelementptr inbounds double, ptr %other, i64 %i\n  \
             %b = getelementptr inbounds double, ptr %other, i64 %n\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %a, ptr %b, i64 %n, i1 false)";
        assert_eq!(verdicts(body), vec![None]);
    }

    #[test]
    fn an_array_read_as_two_types_or_stepped_as_another_is_refused() {
        // Read as `i64` and stored as `double` through the same steps.
        let mixed = "  %a = getelementptr inbounds double, ptr %other, i64 %i\n  store double %x, ptr %a\n  \
             %b = getelementptr inbounds i64, ptr %other, i64 %n\n  %l = load i64, ptr %b\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %a, ptr %b, i64 %n, i1 false)";
        assert_eq!(verdicts(mixed), vec![None]);
        // The two addresses of one copy in arrays of different types.
        let crossed = format!("{NODE}  call void @llvm.memmove.p0.p0.i64(ptr %v, ptr %k, i64 %n, i1 false)");
        assert_eq!(verdicts(&crossed), vec![None]);
        // A constant length that is not whole elements.
        let partial = format!("{NODE}  call void @llvm.memmove.p0.p0.i64(ptr %vals, ptr %v, i64 12, i1 false)");
        assert_eq!(verdicts(&partial), vec![None]);
        // A step into the middle of an element.
        let middle = format!(
            "{NODE}  %m = getelementptr inbounds i8, ptr %v, i64 4\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %m, ptr %other, i64 %n, i1 false)"
        );
        assert_eq!(verdicts(&middle), vec![None]);
    }

    #[test]
    fn a_copy_between_object_starts_is_not_typed_by_their_first_array() {
        // `*dst = *src` of a struct whose first field is a `double` array
        // (the rest an integer and a pointer) the function steps through.
        let body = "  %a = getelementptr inbounds double, ptr %node, i64 %i\n  store double %x, ptr %a\n  \
             %b = getelementptr inbounds double, ptr %other, i64 %i\n  store double %x, ptr %b\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %node, ptr %other, i64 88, i1 false)";
        assert_eq!(verdicts(body), vec![None]);
    }

    #[test]
    fn a_node_chosen_by_select_shares_its_arrays() {
        let body = format!(
            "{NODE}  %c = icmp eq i64 %i, 0\n  %s = select i1 %c, ptr %node, ptr %other\n  \
             %sv = getelementptr inbounds i8, ptr %s, i64 96\n  \
             %si = getelementptr inbounds double, ptr %sv, i64 %n\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %sv, ptr %si, i64 %n, i1 false)"
        );
        assert_eq!(verdicts(&body), vec![Some(Elem::F64)]);
    }

    /// What each `memmove` of `@f` is found to move by `accessed_element`.
    fn one_element(body: &str) -> Vec<Option<Elem>> {
        let ir = format!(
            "declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)\n\
             define void @f(ptr %a, ptr %b, ptr %out, i64 %n) {{\n{body}\n  ret void\n}}\n"
        );
        with_function(&ir, |f| calls(f).into_iter().map(accessed_element).collect())
    }

    // Two elements compared, the smaller moved out by `memmove` (a sorting
    // network's step), through a `select` of their addresses.
    const PICK: &str = "  %x = load double, ptr %a\n  %y = load double, ptr %b\n  %lt = fcmp olt double %y, %x\n  \
         %min = select i1 %lt, ptr %b, ptr %a\n  %o = getelementptr inbounds i8, ptr %out, i64 8\n";

    #[test]
    fn one_element_moved_from_places_read_as_its_type() {
        let body = format!("{PICK}  call void @llvm.memmove.p0.p0.i64(ptr %o, ptr %min, i64 8, i1 false)");
        assert_eq!(one_element(&body), vec![Some(Elem::F64)]);
    }

    #[test]
    fn places_read_as_two_types_partly_read_or_a_longer_copy_say_nothing() {
        // `%b` also read as an integer.
        let two = format!(
            "{PICK}  %i = load i64, ptr %b\n  call void @llvm.memmove.p0.p0.i64(ptr %o, ptr %min, i64 8, i1 false)"
        );
        assert_eq!(one_element(&two), vec![None]);
        // One of the places chosen never read.
        let partly = format!(
            "{PICK}  %c = select i1 %lt, ptr %out, ptr %a\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %o, ptr %c, i64 8, i1 false)"
        );
        assert_eq!(one_element(&partly), vec![None]);
        // Two elements' worth from places read as one.
        let longer = format!("{PICK}  call void @llvm.memmove.p0.p0.i64(ptr %o, ptr %min, i64 16, i1 false)");
        assert_eq!(one_element(&longer), vec![None]);
    }
}
