//! Thin, safe-ish helpers over the raw LLVM C API.
//!
//! The engine works on `LLVMValueRef`s directly: instruction introspection
//! (opcodes, operands, callees, debug locations) and generic cloning are far
//! shorter in the C API than through inkwell's typed wrappers. Every function
//! here is a one-liner's worth of `unsafe`; callers must only pass live values
//! of the module being transformed.

use std::collections::HashMap;
use std::ffi::{CStr, CString};

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMOpcode, LLVMTypeKind};

pub(crate) use crate::ir::debug_loc::{
    copy_debug_location, debug_function_name, debug_function_names, inlined_through, location,
};

pub(crate) type Value = LLVMValueRef;
pub(crate) type Type = LLVMTypeRef;
pub(crate) type Block = LLVMBasicBlockRef;

pub(crate) fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', "")).expect("interior NUL removed")
}

/// The name of a value (empty for unnamed values).
pub(crate) fn name(v: Value) -> String {
    unsafe {
        let mut len = 0usize;
        let p = LLVMGetValueName2(v, &mut len);
        if p.is_null() {
            return String::new();
        }
        let bytes = std::slice::from_raw_parts(p as *const u8, len);
        String::from_utf8_lossy(bytes).into_owned()
    }
}

pub(crate) fn set_name(v: Value, n: &str) {
    unsafe { LLVMSetValueName2(v, n.as_ptr() as *const _, n.len()) }
}

/// The textual IR of a value, trimmed, for diagnostics.
pub(crate) fn print(v: Value) -> String {
    unsafe {
        let p = LLVMPrintValueToString(v);
        let s = CStr::from_ptr(p).to_string_lossy().trim().to_string();
        LLVMDisposeMessage(p);
        s
    }
}

pub(crate) fn print_type(t: Type) -> String {
    unsafe {
        let p = LLVMPrintTypeToString(t);
        let s = CStr::from_ptr(p).to_string_lossy().into_owned();
        LLVMDisposeMessage(p);
        s
    }
}

pub(crate) fn type_of(v: Value) -> Type {
    unsafe { LLVMTypeOf(v) }
}

pub(crate) fn kind(t: Type) -> LLVMTypeKind {
    unsafe { LLVMGetTypeKind(t) }
}

/// Scalar floating-point types: the only types that carry derivatives in this slice.
pub(crate) fn is_float(t: Type) -> bool {
    use LLVMTypeKind::*;
    matches!(
        kind(t),
        LLVMHalfTypeKind
            | LLVMBFloatTypeKind
            | LLVMFloatTypeKind
            | LLVMDoubleTypeKind
            | LLVMX86_FP80TypeKind
            | LLVMFP128TypeKind
            | LLVMPPC_FP128TypeKind
    )
}

/// The types whose values carry derivatives: scalar floats, fixed-width
/// vectors of them (`<4 x double>`, lane by lane), and structs and arrays
/// held in registers whose leaves are such values or integers (`{ double,
/// double }`, `{ double, i32 }`; the integers carry nothing). Aggregates with
/// pointers are not: their shadows are pointers, not derivatives.
pub(crate) fn is_real(t: Type) -> bool {
    is_float(t) || vector_lanes(t).is_some() || is_float_aggregate(t)
}

/// A struct or array of floats, float vectors and integers, with a float.
pub(crate) fn is_float_aggregate(t: Type) -> bool {
    // (leaves all allowed, some leaf a float)
    fn leaves(t: Type) -> (bool, bool) {
        unsafe {
            match kind(t) {
                LLVMTypeKind::LLVMStructTypeKind => (0..LLVMCountStructElementTypes(t))
                    .map(|k| leaves(LLVMStructGetTypeAtIndex(t, k)))
                    .fold((true, false), |(a, b), (c, d)| (a && c, b || d)),
                LLVMTypeKind::LLVMArrayTypeKind => leaves(LLVMGetElementType(t)),
                LLVMTypeKind::LLVMIntegerTypeKind => (true, false),
                _ => {
                    let real = is_float(t) || vector_lanes(t).is_some();
                    (real, real)
                }
            }
        }
    }
    matches!(kind(t), LLVMTypeKind::LLVMStructTypeKind | LLVMTypeKind::LLVMArrayTypeKind) && leaves(t) == (true, true)
}

/// The element types of a struct or array, in order.
pub(crate) fn aggregate_elements(t: Type) -> Vec<Type> {
    unsafe {
        match kind(t) {
            LLVMTypeKind::LLVMStructTypeKind => {
                (0..LLVMCountStructElementTypes(t)).map(|k| LLVMStructGetTypeAtIndex(t, k)).collect()
            }
            LLVMTypeKind::LLVMArrayTypeKind => vec![LLVMGetElementType(t); LLVMGetArrayLength2(t) as usize],
            _ => Vec::new(),
        }
    }
}

/// The lane count of a fixed-width vector of floats.
pub(crate) fn vector_lanes(t: Type) -> Option<u32> {
    unsafe {
        (kind(t) == LLVMTypeKind::LLVMVectorTypeKind && is_float(LLVMGetElementType(t))).then(|| LLVMGetVectorSize(t))
    }
}

/// The scalar type of a float or of the lanes of a float vector.
pub(crate) fn scalar_of(t: Type) -> Type {
    if vector_lanes(t).is_some() {
        unsafe { LLVMGetElementType(t) }
    } else {
        t
    }
}

/// Width rank of a float type (or of a float vector's lanes), used to decide
/// between `fpext` and `fptrunc`.
pub(crate) fn float_rank(t: Type) -> u32 {
    use LLVMTypeKind::*;
    match kind(scalar_of(t)) {
        LLVMHalfTypeKind | LLVMBFloatTypeKind => 16,
        LLVMFloatTypeKind => 32,
        LLVMDoubleTypeKind => 64,
        LLVMX86_FP80TypeKind => 80,
        _ => 128,
    }
}

pub(crate) fn is_int(t: Type) -> bool {
    kind(t) == LLVMTypeKind::LLVMIntegerTypeKind
}

/// The lane type and number of lanes of an integer (one lane) or integer
/// vector type.
pub(crate) fn int_lanes(t: Type) -> Option<(Type, u32)> {
    unsafe {
        match kind(t) {
            LLVMTypeKind::LLVMIntegerTypeKind => Some((t, 1)),
            LLVMTypeKind::LLVMVectorTypeKind if kind(LLVMGetElementType(t)) == LLVMTypeKind::LLVMIntegerTypeKind => {
                Some((LLVMGetElementType(t), LLVMGetVectorSize(t)))
            }
            _ => None,
        }
    }
}

pub(crate) fn int_width(t: Type) -> u32 {
    unsafe { LLVMGetIntTypeWidth(t) }
}

pub(crate) fn is_void(t: Type) -> bool {
    kind(t) == LLVMTypeKind::LLVMVoidTypeKind
}

pub(crate) fn is_pointer(t: Type) -> bool {
    kind(t) == LLVMTypeKind::LLVMPointerTypeKind
}

pub(crate) fn opcode(i: Value) -> LLVMOpcode {
    unsafe { LLVMGetInstructionOpcode(i) }
}

pub(crate) fn is_instruction(v: Value) -> bool {
    unsafe { !LLVMIsAInstruction(v).is_null() }
}

pub(crate) fn is_argument(v: Value) -> bool {
    unsafe { !LLVMIsAArgument(v).is_null() }
}

pub(crate) fn is_declaration(f: Value) -> bool {
    unsafe { LLVMIsDeclaration(f) != 0 }
}

pub(crate) fn operand_count(i: Value) -> u32 {
    unsafe { LLVMGetNumOperands(i) as u32 }
}

pub(crate) fn operand(i: Value, n: u32) -> Value {
    unsafe { LLVMGetOperand(i, n) }
}

/// The number of argument operands of a call (operands minus the callee and bundles).
pub(crate) fn call_arg_count(call: Value) -> u32 {
    unsafe { LLVMGetNumArgOperands(call) }
}

/// The function a call calls directly, looking through pointer casts and aliases.
pub(crate) fn called_function(call: Value) -> Option<Value> {
    let callee = unsafe { LLVMGetCalledValue(call) };
    strip_to_function(callee)
}

/// `v` as a function, looking through constant casts and global aliases.
/// For a load from a stack slot: the value the last store to the same
/// address before it, in the same block, put there, when nothing in between
/// can have changed it.
fn stored_before(load: Value) -> Option<Value> {
    unsafe {
        let p = LLVMGetOperand(load, 0);
        let root = |mut q: Value| {
            while !LLVMIsAGetElementPtrInst(q).is_null() {
                q = LLVMGetOperand(q, 0);
            }
            q
        };
        if LLVMIsAAllocaInst(root(p)).is_null() {
            return None;
        }
        let same_address = |q: Value| {
            q == p
                || (!LLVMIsAGetElementPtrInst(q).is_null()
                    && !LLVMIsAGetElementPtrInst(p).is_null()
                    && LLVMGetNumOperands(q) == LLVMGetNumOperands(p)
                    && (0..LLVMGetNumOperands(p) as u32).all(|k| {
                        let (a, b) = (LLVMGetOperand(p, k), LLVMGetOperand(q, k));
                        a == b
                    }))
        };
        let mut i = LLVMGetPreviousInstruction(load);
        while !i.is_null() {
            if !LLVMIsAStoreInst(i).is_null() {
                let q = LLVMGetOperand(i, 1);
                if same_address(q) {
                    return Some(LLVMGetOperand(i, 0));
                }
                if root(q) == root(p) {
                    return None;
                }
            } else if !LLVMIsACallInst(i).is_null() {
                return None;
            }
            i = LLVMGetPreviousInstruction(i);
        }
        None
    }
}

pub(crate) fn strip_to_function(mut v: Value) -> Option<Value> {
    for _ in 0..8 {
        if v.is_null() {
            return None;
        }
        unsafe {
            if !LLVMIsAFunction(v).is_null() {
                return Some(v);
            }
            if !LLVMIsAGlobalAlias(v).is_null() {
                v = LLVMAliasGetAliasee(v);
                continue;
            }
            if !LLVMIsAConstantExpr(v).is_null() {
                match LLVMGetConstOpcode(v) {
                    LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast | LLVMOpcode::LLVMPtrToInt => {
                        v = LLVMGetOperand(v, 0);
                        continue;
                    }
                    _ => return None,
                }
            }
            // Unoptimised code (flang's `c_funloc` at -O0) parks the address
            // in a local and reads it back as an integer.
            if !LLVMIsAIntToPtrInst(v).is_null() || !LLVMIsAPtrToIntInst(v).is_null() {
                v = LLVMGetOperand(v, 0);
                continue;
            }
            if !LLVMIsALoadInst(v).is_null() {
                match stored_before(v) {
                    Some(s) => {
                        v = s;
                        continue;
                    }
                    None => return None,
                }
            }
        }
        return None;
    }
    None
}

pub(crate) fn params(f: Value) -> Vec<Value> {
    unsafe {
        let n = LLVMCountParams(f);
        (0..n).map(|i| LLVMGetParam(f, i)).collect()
    }
}

pub(crate) fn return_type(f: Value) -> Type {
    unsafe { LLVMGetReturnType(LLVMGlobalGetValueType(f)) }
}

pub(crate) fn function_type(f: Value) -> Type {
    unsafe { LLVMGlobalGetValueType(f) }
}

pub(crate) fn blocks(f: Value) -> Vec<Block> {
    let mut out = Vec::new();
    unsafe {
        let mut b = LLVMGetFirstBasicBlock(f);
        while !b.is_null() {
            out.push(b);
            b = LLVMGetNextBasicBlock(b);
        }
    }
    out
}

pub(crate) fn instructions(b: Block) -> Vec<Value> {
    let mut out = Vec::new();
    unsafe {
        let mut i = LLVMGetFirstInstruction(b);
        while !i.is_null() {
            out.push(i);
            i = LLVMGetNextInstruction(i);
        }
    }
    out
}

pub(crate) fn terminator(b: Block) -> Value {
    unsafe { LLVMGetBasicBlockTerminator(b) }
}

pub(crate) fn successors(term: Value) -> Vec<Block> {
    unsafe {
        let n = LLVMGetNumSuccessors(term);
        (0..n).map(|i| LLVMGetSuccessor(term, i)).collect()
    }
}

/// Moves the instructions after `i` into a new block of the same function,
/// which takes over the successors of `i`'s block (their phis name it);
/// `i`'s block is left ending at `i`, without a terminator.
pub(crate) fn split_after(i: Value, name: &str) -> Block {
    unsafe {
        let b = LLVMGetInstructionParent(i);
        let ctx = LLVMGetTypeContext(LLVMTypeOf(i));
        let tail = LLVMAppendBasicBlockInContext(ctx, LLVMGetBasicBlockParent(b), cstring(name).as_ptr());
        let builder = LLVMCreateBuilderInContext(ctx);
        LLVMPositionBuilderAtEnd(builder, tail);
        let mut next = LLVMGetNextInstruction(i);
        while !next.is_null() {
            let after = LLVMGetNextInstruction(next);
            let n = cstring(&self::name(next));
            LLVMInstructionRemoveFromParent(next);
            LLVMInsertIntoBuilderWithName(builder, next, n.as_ptr());
            next = after;
        }
        // Phis of the successors came from `b`; now from `tail`: rebuilt,
        // since the C API cannot change an incoming block in place.
        for s in successors(terminator(tail)) {
            for phi in instructions(s).into_iter().take_while(|p| opcode(*p) == LLVMOpcode::LLVMPHI) {
                let inc = incoming(phi);
                if !inc.iter().any(|(_, ib)| *ib == b) {
                    continue;
                }
                LLVMPositionBuilderBefore(builder, phi);
                let new = LLVMBuildPhi(builder, LLVMTypeOf(phi), cstring(&self::name(phi)).as_ptr());
                for (mut v, ib) in inc {
                    let mut from = if ib == b { tail } else { ib };
                    LLVMAddIncoming(new, &mut v, &mut from, 1);
                }
                LLVMReplaceAllUsesWith(phi, new);
                LLVMInstructionEraseFromParent(phi);
            }
        }
        LLVMDisposeBuilder(builder);
        tail
    }
}

pub(crate) fn block_value(b: Block) -> Value {
    unsafe { LLVMBasicBlockAsValue(b) }
}

pub(crate) fn parent_block(i: Value) -> Block {
    unsafe { LLVMGetInstructionParent(i) }
}

pub(crate) fn parent_function(i: Value) -> Value {
    unsafe { LLVMGetBasicBlockParent(LLVMGetInstructionParent(i)) }
}

pub(crate) fn incoming(phi: Value) -> Vec<(Value, Block)> {
    unsafe {
        let n = LLVMCountIncoming(phi);
        (0..n).map(|k| (LLVMGetIncomingValue(phi, k), LLVMGetIncomingBlock(phi, k))).collect()
    }
}

/// A float constant; for a vector type, `x` in every lane.
pub(crate) fn const_real(t: Type, x: f64) -> Value {
    unsafe {
        match vector_lanes(t) {
            Some(n) => {
                let mut lanes = vec![LLVMConstReal(LLVMGetElementType(t), x); n as usize];
                LLVMConstVector(lanes.as_mut_ptr(), n)
            }
            None => LLVMConstReal(t, x),
        }
    }
}

/// The value of a floating-point constant, if `v` is one.
pub(crate) fn const_float_value(v: Value) -> Option<f64> {
    unsafe {
        if LLVMIsAConstantFP(v).is_null() {
            return None;
        }
        let mut lost = 0;
        Some(LLVMConstRealGetDouble(v, &mut lost))
    }
}

/// The text of the inline assembly a call runs, if it runs some.
pub(crate) fn inline_asm_text(call: Value) -> Option<String> {
    unsafe {
        let callee = LLVMGetCalledValue(call);
        if callee.is_null() || LLVMIsAInlineAsm(callee).is_null() {
            return None;
        }
        let mut len = 0usize;
        let p = LLVMGetInlineAsmAsmString(callee, &mut len);
        Some(String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned())
    }
}

/// Adds enum attribute `name` (`"noinline"`, `"nofree"`, ...) to function `f`.
pub(crate) fn add_function_attr(f: Value, name: &str) {
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
        let a = LLVMCreateEnumAttribute(ctx, attr_kind(name), 0);
        LLVMAddAttributeAtIndex(f, llvm_sys::LLVMAttributeFunctionIndex, a);
    }
}

/// Adds the type attribute `name` (`"sret"`, `"byval"`) of type `t` to
/// argument `index` (1-based) of call `call`.
pub(crate) fn add_call_type_attr(call: Value, index: u32, name: &str, t: Type) {
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(call));
        let a = LLVMCreateTypeAttribute(ctx, attr_kind(name), t);
        LLVMAddCallSiteAttribute(call, index, a);
    }
}

/// An enum attribute kind by name (`"sret"`, `"noreturn"`, ...).
pub(crate) fn attr_kind(name: &str) -> u32 {
    unsafe { LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len()) }
}

/// The global a constant pointer expression is based on (through constant
/// `getelementptr` and casts), if any.
pub(crate) fn constant_root(mut v: Value) -> Option<Value> {
    unsafe {
        for _ in 0..16 {
            if !LLVMIsAGlobalVariable(v).is_null() {
                return Some(v);
            }
            if LLVMIsAConstantExpr(v).is_null() {
                return None;
            }
            match LLVMGetConstOpcode(v) {
                LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast => {
                    v = LLVMGetOperand(v, 0)
                }
                _ => return None,
            }
        }
    }
    None
}

/// What store `store` writes, as far as the types of memory go: its value,
/// or the integer behind it when the value is an integer that only travels
/// as a pointer to be stored (an `inttoptr` whose every use stores it, of
/// an integer that is not a pointer's bits). The optimiser merges stores of
/// equal integers this way (a Rust `String`'s length stored where another
/// type has a pointer: `store ptr (inttoptr i64 %len)`); such a store moves
/// an integer.
pub(crate) fn stored_value(store: Value) -> Value {
    let v = operand(store, 0);
    integer_behind(v)
        .filter(|_| users(v).into_iter().all(|u| opcode(u) == LLVMOpcode::LLVMStore && operand(u, 0) == v))
        .unwrap_or(v)
}

/// Whether pointer `v` is a phi or select one of whose choices is an
/// integer made a pointer (see [`integer_behind`]): unoptimised Rust keeps
/// an enum's variants in shared slots, a `String`'s length in one variant
/// where another has a reference.
pub(crate) fn chooses_integer(v: Value) -> bool {
    is_instruction(v)
        && matches!(opcode(v), LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMSelect)
        && chosen_values(v).into_iter().any(|c| integer_behind(c).is_some())
}

/// The integer `v` is made from, when `v` is an `inttoptr` of an integer
/// that is not (through phis, selects and `freeze`) a pointer's bits.
fn integer_behind(v: Value) -> Option<Value> {
    if !is_instruction(v) || opcode(v) != LLVMOpcode::LLVMIntToPtr {
        return None;
    }
    let x = operand(v, 0);
    let mut work = vec![x];
    let mut seen = std::collections::HashSet::new();
    while let Some(w) = work.pop() {
        if !seen.insert(w) || !is_instruction(w) {
            continue;
        }
        match opcode(w) {
            LLVMOpcode::LLVMPtrToInt | LLVMOpcode::LLVMPtrToAddr => return None,
            LLVMOpcode::LLVMPHI => work.extend(incoming(w).into_iter().map(|(y, _)| y)),
            LLVMOpcode::LLVMSelect => work.extend([operand(w, 1), operand(w, 2)]),
            LLVMOpcode::LLVMFreeze => work.push(operand(w, 0)),
            _ => {}
        }
    }
    Some(x)
}

/// A constant pointer to no object: null, undefined, or an address never
/// mapped (see [`is_unmapped_address`]). Its own shadow, and no object's.
pub(crate) fn is_no_address(v: Value) -> bool {
    unsafe { !LLVMIsAConstantPointerNull(v).is_null() || !LLVMIsAUndefValue(v).is_null() || is_unmapped_address(v) }
}

/// A constant address in the first page (`inttoptr (i64 8 to ptr)`) or the
/// last (`(void *)-1`), which are never mapped: a dangling pointer (an empty
/// Rust `Vec`'s) or a sentinel (MPICH's `MPI_IN_PLACE`) that nothing
/// dereferences. Like null, it is its own shadow.
pub(crate) fn is_unmapped_address(v: Value) -> bool {
    unsafe {
        if LLVMIsAConstantExpr(v).is_null() || LLVMGetConstOpcode(v) != llvm_sys::LLVMOpcode::LLVMIntToPtr {
            return false;
        }
        let k = LLVMGetOperand(v, 0);
        if LLVMIsAConstantInt(k).is_null() {
            return false;
        }
        let bits = LLVMGetIntTypeWidth(LLVMTypeOf(k));
        let top = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let a = LLVMConstIntGetZExtValue(k);
        a < 4096 || a > top - 4096
    }
}

/// An empty phi, or a select on the same condition with undefined arms, of
/// type `t` just before phi or select `m`: its mirror in another type, whose
/// operands [`fill_mirrors`] sets.
pub(crate) fn empty_mirror(b: LLVMBuilderRef, m: Value, t: Type) -> Value {
    unsafe {
        LLVMPositionBuilderBefore(b, m);
        if opcode(m) == LLVMOpcode::LLVMPHI {
            LLVMBuildPhi(b, t, c"".as_ptr())
        } else {
            let undef = LLVMGetUndef(t);
            LLVMBuildSelect(b, operand(m, 0), undef, undef, c"".as_ptr())
        }
    }
}

/// Gives the mirrors (`map`) of the phis and selects among `members` the
/// mirrored versions (`mirror`) of their operands.
pub(crate) fn fill_mirrors(members: &[Value], map: &HashMap<Value, Value>, mirror: impl Fn(Value) -> Value) {
    for m in members {
        unsafe {
            match opcode(*m) {
                LLVMOpcode::LLVMPHI => {
                    for (x, blk) in incoming(*m) {
                        let (mut v, mut bb) = (mirror(x), blk);
                        LLVMAddIncoming(map[m], &mut v, &mut bb, 1);
                    }
                }
                LLVMOpcode::LLVMSelect => {
                    LLVMSetOperand(map[m], 1, mirror(operand(*m, 1)));
                    LLVMSetOperand(map[m], 2, mirror(operand(*m, 2)));
                }
                _ => {}
            }
        }
    }
}

/// A call of `llvm.lifetime.start`/`end`.
pub(crate) fn is_lifetime_marker(i: Value) -> bool {
    opcode(i) == LLVMOpcode::LLVMCall && called_function(i).is_some_and(|f| name(f).starts_with("llvm.lifetime."))
}

/// A stack slot whose address is used only to load and store it (and by
/// lifetime markers): nothing but those loads and stores can reach it.
pub(crate) fn is_private_slot(p: Value) -> bool {
    is_instruction(p)
        && opcode(p) == LLVMOpcode::LLVMAlloca
        && users(p).into_iter().all(|u| match opcode(u) {
            LLVMOpcode::LLVMLoad => true,
            LLVMOpcode::LLVMStore => operand(u, 1) == p && operand(u, 0) != p,
            _ => is_lifetime_marker(u),
        })
}

/// Calls and invokes: both name a callee as their last operand.
pub(crate) fn is_call_or_invoke(i: Value) -> bool {
    matches!(opcode(i), llvm_sys::LLVMOpcode::LLVMCall | llvm_sys::LLVMOpcode::LLVMInvoke)
}

/// The users of a value.
pub(crate) fn users(v: Value) -> Vec<Value> {
    let mut out = Vec::new();
    unsafe {
        let mut u = LLVMGetFirstUse(v);
        while !u.is_null() {
            out.push(LLVMGetUser(u));
            u = LLVMGetNextUse(u);
        }
    }
    out
}

/// Whether a load or store is atomic.
pub(crate) fn is_atomic(i: Value) -> bool {
    unsafe { LLVMGetOrdering(i) != llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic }
}

/// The module's functions, in order.
pub(crate) fn functions(module: LLVMModuleRef) -> Vec<Value> {
    let mut out = Vec::new();
    unsafe {
        let mut f = LLVMGetFirstFunction(module);
        while !f.is_null() {
            out.push(f);
            f = LLVMGetNextFunction(f);
        }
    }
    out
}

/// The module's global variables, in order.
pub(crate) fn globals(module: LLVMModuleRef) -> Vec<Value> {
    let mut out = Vec::new();
    unsafe {
        let mut g = LLVMGetFirstGlobal(module);
        while !g.is_null() {
            out.push(g);
            g = LLVMGetNextGlobal(g);
        }
    }
    out
}

/// The values `v` may be through phis and selects (itself if neither).
pub(crate) fn chosen_values(v: Value) -> Vec<Value> {
    let (mut out, mut seen, mut stack) = (Vec::new(), Vec::new(), vec![v]);
    while let Some(x) = stack.pop() {
        if seen.contains(&x) {
            continue;
        }
        seen.push(x);
        match is_instruction(x).then(|| opcode(x)) {
            Some(LLVMOpcode::LLVMPHI) => stack.extend(incoming(x).into_iter().map(|(y, _)| y)),
            Some(LLVMOpcode::LLVMSelect) => stack.extend([operand(x, 1), operand(x, 2)]),
            _ => out.push(x),
        }
    }
    out
}

/// The values a pointer may be, through address arithmetic, casts, phis
/// and selects: what it is based on (allocations, loads, arguments,
/// globals, nulls, call results).
pub(crate) fn pointer_bases(p: Value) -> Vec<Value> {
    let (mut out, mut seen, mut stack) = (Vec::new(), Vec::new(), vec![p]);
    while let Some(v) = stack.pop() {
        if seen.contains(&v) {
            continue;
        }
        seen.push(v);
        if !is_instruction(v) {
            out.push(v);
            continue;
        }
        match opcode(v) {
            LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast => {
                stack.push(operand(v, 0))
            }
            LLVMOpcode::LLVMPHI => stack.extend(incoming(v).into_iter().map(|(x, _)| x)),
            LLVMOpcode::LLVMSelect => stack.extend([operand(v, 1), operand(v, 2)]),
            LLVMOpcode::LLVMCall => match returned_argument(v) {
                Some(a) => stack.push(a),
                None => out.push(v),
            },
            _ => out.push(v),
        }
    }
    out
}

/// The argument a call returns, where the callee or the call marks a
/// parameter `returned` (the result is that argument).
pub(crate) fn returned_argument(call: Value) -> Option<Value> {
    let kind = attr_kind("returned");
    let callee = called_function(call);
    (0..call_arg_count(call)).find_map(|k| unsafe {
        let at_call = !LLVMGetCallSiteEnumAttribute(call, k + 1, kind).is_null();
        let at_callee = callee.is_some_and(|f| !LLVMGetEnumAttributeAtIndex(f, k + 1, kind).is_null());
        (at_call || at_callee).then(|| operand(call, k))
    })
}

/// Tags an instruction with an empty `!kind` node (a flag for later passes).
pub(crate) fn set_flag(i: Value, kind: &str) {
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(i));
        let empty = LLVMMDNodeInContext2(ctx, std::ptr::null_mut(), 0);
        LLVMSetMetadata(i, md_kind(ctx, kind), LLVMMetadataAsValue(ctx, empty));
    }
}

/// Whether an instruction carries `!kind` (see [`set_flag`]).
pub(crate) fn has_flag(i: Value, kind: &str) -> bool {
    unsafe { !LLVMGetMetadata(i, md_kind(LLVMGetTypeContext(LLVMTypeOf(i)), kind)).is_null() }
}

fn md_kind(ctx: LLVMContextRef, kind: &str) -> u32 {
    unsafe { LLVMGetMDKindIDInContext(ctx, kind.as_ptr() as *const _, kind.len() as u32) }
}

/// Attaches `!kind !{operand}` (or `!kind !{}`) to a global or function.
pub(crate) fn set_global_metadata(g: Value, kind: &str, operand: Option<Value>) {
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(g));
        let mut ops: Vec<LLVMMetadataRef> = operand.into_iter().map(|v| LLVMValueAsMetadata(v)).collect();
        LLVMGlobalSetMetadata(g, md_kind(ctx, kind), LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), ops.len()));
    }
}

/// Removes a global's or function's `!kind` metadata.
pub(crate) fn erase_global_metadata(g: Value, kind: &str) {
    unsafe { LLVMGlobalEraseMetadata(g, md_kind(LLVMGetTypeContext(LLVMTypeOf(g)), kind)) }
}

/// The operands of a global's or function's `!kind` metadata node, when it has one.
pub(crate) fn global_metadata(g: Value, kind: &str) -> Option<Vec<Value>> {
    unsafe {
        if LLVMIsAGlobalValue(g).is_null() {
            return None;
        }
        let ctx = LLVMGetTypeContext(LLVMTypeOf(g));
        let id = md_kind(ctx, kind);
        let mut n = 0usize;
        let entries = LLVMGlobalCopyAllMetadata(g, &mut n);
        let mut out = None;
        for k in 0..n as u32 {
            if LLVMValueMetadataEntriesGetKind(entries, k) == id {
                let node = LLVMMetadataAsValue(ctx, LLVMValueMetadataEntriesGetMetadata(entries, k));
                let mut ops = vec![std::ptr::null_mut(); LLVMGetMDNodeNumOperands(node) as usize];
                LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
                out = Some(ops);
            }
        }
        if !entries.is_null() {
            LLVMDisposeValueMetadataEntries(entries);
        }
        out
    }
}

/// The value of an integer constant (sign-extended), if `v` is one.
pub(crate) fn const_int_value(v: Value) -> Option<i64> {
    unsafe { (!LLVMIsAConstantInt(v).is_null()).then(|| LLVMConstIntGetSExtValue(v)) }
}

/// The bytes a value of type `t` occupies in memory, by the data layout of
/// `f`'s module.
pub(crate) fn store_size(f: Value, t: Type) -> u64 {
    unsafe {
        let m = LLVMGetGlobalParent(f);
        llvm_sys::target::LLVMStoreSizeOfType(llvm_sys::target::LLVMGetModuleDataLayout(m), t)
    }
}

/// Integer arithmetic, comparisons, casts between integers and selects, of
/// an integer result: computed from its operands alone.
pub(crate) fn is_integer_arithmetic(i: Value) -> bool {
    use LLVMOpcode::*;
    matches!(
        opcode(i),
        LLVMAdd
            | LLVMSub
            | LLVMMul
            | LLVMShl
            | LLVMLShr
            | LLVMAShr
            | LLVMAnd
            | LLVMOr
            | LLVMXor
            | LLVMICmp
            | LLVMSelect
            | LLVMTrunc
            | LLVMZExt
            | LLVMSExt
    ) && is_int(type_of(i))
}

/// Of `candidates`, the integer values made only of integer arithmetic and
/// phis over each other and over operands `fixed` accepts (values from
/// outside the region the candidates come from): the largest such set,
/// found by dropping members with any other operand until none is left.
pub(crate) fn integers_made_of(
    candidates: impl IntoIterator<Item = Value>,
    fixed: impl Fn(Value) -> bool,
) -> std::collections::HashSet<Value> {
    let mut set: std::collections::HashSet<Value> = candidates
        .into_iter()
        .filter(|i| is_int(type_of(*i)) && (is_integer_arithmetic(*i) || opcode(*i) == LLVMOpcode::LLVMPHI))
        .collect();
    loop {
        let dropped: Vec<Value> = set
            .iter()
            .copied()
            .filter(|i| {
                !(0..operand_count(*i)).all(|k| {
                    let o = operand(*i, k);
                    set.contains(&o) || fixed(o)
                })
            })
            .collect();
        if dropped.is_empty() {
            return set;
        }
        for i in dropped {
            set.remove(&i);
        }
    }
}
