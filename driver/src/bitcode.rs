//! Collecting LLVM bitcode from objects and static archives and merging it
//! into one module, with archive members pulled in only when they define a
//! symbol still needed, as a linker would.

use std::cell::RefCell;
use std::collections::HashSet;
use std::ffi::{c_void, CStr};
use std::path::{Path, PathBuf};

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::{Linkage, Module};
use inkwell::values::AsValueRef;
use llvm_sys::core::*;
use llvm_sys::prelude::*;

use crate::error::DriverError;

/// What an object file's bytes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    /// LLVM bitcode (raw or in the bitcode wrapper).
    Bitcode,
    /// A native ELF object.
    Native,
    /// Neither.
    Unknown,
}

/// Sniffs the magic number.
pub fn object_kind(bytes: &[u8]) -> ObjectKind {
    if bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]) {
        ObjectKind::Bitcode
    } else if bytes.starts_with(b"\x7fELF") {
        ObjectKind::Native
    } else {
        ObjectKind::Unknown
    }
}

/// One bitcode archive member.
pub struct Member {
    /// `archive.a(member.o)`, for messages.
    pub name: String,
    /// Its bitcode.
    pub bytes: Vec<u8>,
}

/// What an archive holds.
pub struct ArchiveContents {
    /// Bitcode members, in order.
    pub bitcode: Vec<Member>,
    /// Whether any member is native (then the archive also goes to the linker).
    pub has_native: bool,
}

/// Reads the members of a static archive.
pub fn read_archive(path: &Path) -> Result<ArchiveContents, DriverError> {
    let data = std::fs::read(path).map_err(|e| bad(path, format!("cannot read: {e}")))?;
    let archive = object::read::archive::ArchiveFile::parse(&*data)
        .map_err(|e| bad(path, format!("not a valid static archive: {e}")))?;
    let mut out = ArchiveContents { bitcode: Vec::new(), has_native: false };
    for m in archive.members() {
        let m = m.map_err(|e| bad(path, format!("corrupt archive member: {e}")))?;
        let bytes = m.data(&*data).map_err(|e| bad(path, format!("corrupt archive member: {e}")))?;
        let name = String::from_utf8_lossy(m.name()).into_owned();
        match object_kind(bytes) {
            ObjectKind::Bitcode => {
                out.bitcode.push(Member { name: format!("{}({name})", path.display()), bytes: bytes.to_vec() })
            }
            ObjectKind::Native => out.has_native = true,
            // Symbol tables and other bookkeeping members.
            ObjectKind::Unknown => {}
        }
    }
    Ok(out)
}

/// Whether a shared library exports a definition of `name` (a file that
/// cannot be read or parsed defines nothing: this only improves a message).
pub fn defines_dynamic_symbol(path: &Path, name: &str) -> bool {
    use object::{Object, ObjectSymbol};
    let Ok(data) = std::fs::read(path) else { return false };
    let Ok(file) = object::File::parse(&*data) else { return false };
    file.dynamic_symbols().any(|s| !s.is_undefined() && s.name() == Ok(name))
}

fn bad(path: &Path, message: String) -> DriverError {
    DriverError::BadInput { path: path.to_path_buf(), message }
}

thread_local! {
    static LLVM_ERRORS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

extern "C" fn collect_diagnostic(info: LLVMDiagnosticInfoRef, _: *mut c_void) {
    unsafe {
        let severity = LLVMGetDiagInfoSeverity(info);
        if severity == llvm_sys::LLVMDiagnosticSeverity::LLVMDSError {
            let msg = LLVMGetDiagInfoDescription(info);
            let s = CStr::from_ptr(msg).to_string_lossy().into_owned();
            LLVMDisposeMessage(msg);
            LLVM_ERRORS.with(|e| e.borrow_mut().push(s));
        }
    }
}

/// Routes LLVM's error diagnostics into our errors instead of LLVM's
/// default handler, which prints and exits.
pub fn capture_llvm_errors(ctx: &Context) {
    unsafe { LLVMContextSetDiagnosticHandler(ctx.raw(), Some(collect_diagnostic), std::ptr::null_mut()) };
}

fn take_llvm_errors() -> String {
    let mut unique: Vec<String> = Vec::new();
    for e in LLVM_ERRORS.with(|e| e.borrow_mut().drain(..).collect::<Vec<_>>()) {
        // Inline assembly's errors end in clang's encoded source location
        // ("at line 131"), which is no line of the user's file.
        let e = match e.rsplit_once(" at line ") {
            Some((head, n)) if n.bytes().all(|b| b.is_ascii_digit()) => format!("{head} (in inline assembly)"),
            _ => e,
        };
        if !unique.contains(&e) {
            unique.push(e);
        }
    }
    unique.join("; ")
}

/// The error diagnostics LLVM reported on this thread since the last call
/// (through [`capture_llvm_errors`]'s handler) as an error of `what`: a pass
/// or the code generator reports some errors only so (inline assembly that
/// does not fit its constraints, a call of a function declared with
/// `__attribute__((error))` left in the code) and goes on.
pub fn reported_llvm_errors(what: &str) -> Result<(), DriverError> {
    let errors = take_llvm_errors();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(DriverError::Llvm(format!("{what}: {errors}")))
    }
}

/// Parses bitcode bytes into a module.
pub fn parse<'ctx>(ctx: &'ctx Context, bytes: &[u8], name: &str) -> Result<Module<'ctx>, DriverError> {
    let buf = MemoryBuffer::create_from_memory_range_copy(bytes, name);
    if name.ends_with(".ll") {
        // Textual IR given to a link step.
        return ctx.create_module_from_ir(buf).map_err(|e| DriverError::BadInput {
            path: PathBuf::from(name),
            message: format!("invalid LLVM IR: {}", e.to_string().trim()),
        });
    }
    Module::parse_bitcode_from_buffer(&buf, ctx).map_err(|e| {
        let details = take_llvm_errors();
        let msg = if details.is_empty() { e.to_string() } else { details };
        DriverError::BadInput { path: PathBuf::from(name), message: format!("invalid LLVM bitcode: {msg}") }
    })
}

/// Makes user definitions of marker globals (`int enzyme_dup;` in several
/// files, as Enzyme users write) mergeable instead of duplicate symbols.
pub fn soften_marker_definitions(m: &Module<'_>) {
    for g in m.get_globals() {
        let name = g.get_name().to_string_lossy().into_owned();
        if name.starts_with("enzyme_") && g.get_initializer().is_some() {
            g.set_linkage(Linkage::WeakAny);
        }
    }
}

/// Names a module defines and names it needs (declarations), external ones only.
pub fn symbols(m: &Module<'_>) -> (HashSet<String>, HashSet<String>) {
    let mut defined = HashSet::new();
    let mut undefined = HashSet::new();
    for f in m.get_functions() {
        let name = f.get_name().to_string_lossy().into_owned();
        if name.starts_with("llvm.") {
            continue;
        }
        let local = matches!(f.get_linkage(), Linkage::Internal | Linkage::Private);
        if f.count_basic_blocks() > 0 {
            if !local {
                defined.insert(name);
            }
        } else {
            undefined.insert(name);
        }
    }
    for g in m.get_globals() {
        let name = g.get_name().to_string_lossy().into_owned();
        let local = matches!(g.get_linkage(), Linkage::Internal | Linkage::Private);
        if unsafe { LLVMIsDeclaration(g.as_value_ref()) } != 0 {
            undefined.insert(name);
        } else if !local {
            defined.insert(name);
        }
    }
    (defined, undefined)
}

/// Links `other` into `into`.
pub fn link<'ctx>(into: &Module<'ctx>, other: Module<'ctx>, name: &str) -> Result<(), DriverError> {
    // Through the C API: inkwell's `link_in_module` replaces the context's
    // diagnostic handler by one of its own that stays installed, pointing
    // into its finished stack frame, so that the code generator's errors
    // (inline assembly that does not fit its constraints) later went there
    // instead of to [`capture_llvm_errors`]'s handler, and were lost.
    let failed = unsafe { llvm_sys::linker::LLVMLinkModules2(into.as_mut_ptr(), other.as_mut_ptr()) } != 0;
    // The linker has destroyed `other`.
    std::mem::forget(other);
    if failed {
        let details = take_llvm_errors();
        return Err(DriverError::Llvm(format!(
            "linking the bitcode of {name} failed: {}",
            if details.is_empty() { "see LLVM's messages above".to_string() } else { details }
        )));
    }
    Ok(())
}

/// Links, from the rules module at `path` (Enzyme-style registrations, as
/// `wrappers/rules/*.c` make), the registrations of the functions `into`
/// declares without a body, with the rule functions they name; the others
/// are dropped before linking. The rules module's external functions are
/// bodies for library functions (libstdc++'s tree primitives): those `into`
/// declares are linked in as internal functions, for the engine to
/// differentiate like the program's own code. Nothing is linked if none applies.
pub fn link_rules<'ctx>(ctx: &'ctx Context, into: &Module<'ctx>, path: &Path) -> Result<(), DriverError> {
    let names = |m: &Module<'ctx>, body: bool| -> HashSet<String> {
        m.get_functions()
            .filter(|f| (f.count_basic_blocks() > 0) == body)
            .map(|f| f.get_name().to_string_lossy().into_owned())
            .collect()
    };
    let declared = names(into, false);
    // Only a program that asks for derivatives gets rules (they call BLAS
    // routines a program that does not might not link against).
    if !declared.iter().chain(names(into, true).iter()).any(|n| n.contains("__enzyme_")) {
        return Ok(());
    }
    // The user's own registrations take precedence.
    let user_rules: HashSet<String> = registrations(into).into_iter().map(|(_, t)| t).collect();
    let bytes = std::fs::read(path).map_err(|e| bad(path, format!("cannot read: {e}")))?;
    let rules = parse(ctx, &bytes, &path.display().to_string())?;
    // `llvm.used` only kept the registrations through clang's optimisation;
    // without it they have no uses and can be deleted safely.
    for used in ["llvm.used", "llvm.compiler.used"] {
        if let Some(g) = rules.get_global(used) {
            unsafe { LLVMDeleteGlobal(g.as_value_ref()) };
        }
    }
    let mut kept = Vec::new();
    // The program's declaration must be the one the rules were written for
    // (an ILP64 BLAS takes 64-bit integers: rules for 32-bit ones would be wrong).
    let same_type = |name: &str| -> bool {
        match (into.get_function(name), rules.get_function(name)) {
            (Some(a), Some(b)) => a.get_type() == b.get_type(),
            // Called only by a body the rules give (`LAPACKE_dpotrf` calls `dpotrf_`).
            (None, Some(_)) => true,
            _ => false,
        }
    };
    // What the program declares, and what the bodies it gets call in turn.
    let mut declared = declared;
    let mut stack: Vec<String> = declared.iter().cloned().collect();
    while let Some(name) = stack.pop() {
        let Some(f) = rules.get_function(&name) else { continue };
        if f.count_basic_blocks() == 0 || !same_type(&name) {
            continue;
        }
        for callee in functions_named_in(f) {
            if declared.insert(callee.clone()) {
                stack.push(callee);
            }
        }
    }
    for (g, target) in registrations(&rules) {
        if declared.contains(&target) && !user_rules.contains(&target) && same_type(&target) {
            // External, as a user's registration is: the linker takes internal
            // globals only where something uses them, and the optimiser would
            // drop them (and the rules) before the engine reads them.
            unsafe { LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMExternalLinkage) };
            kept.push(g);
        } else if unsafe { LLVMGetFirstUse(g).is_null() } {
            unsafe { LLVMDeleteGlobal(g) };
        }
    }
    // Bodies for declared library functions, with the very type declared;
    // the others become internal, lest they replace the library's (and go
    // below unless a kept body calls them: libstdc++'s string members call
    // each other). No comdats: the program's own copies of inline library
    // functions stay the program's.
    for f in rules.get_functions() {
        unsafe { llvm_sys::comdat::LLVMSetComdat(f.as_value_ref(), std::ptr::null_mut()) };
    }
    let (bodies, unused): (Vec<_>, Vec<_>) = rules
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0 && !matches!(f.get_linkage(), Linkage::Internal | Linkage::Private))
        .map(|f| (f.get_name().to_string_lossy().into_owned(), f))
        .partition(|(name, _)| declared.contains(name) && same_type(name));
    for (_, f) in unused {
        f.set_linkage(Linkage::Internal);
    }
    let bodies: Vec<String> = bodies.into_iter().map(|(name, _)| name).collect();
    if kept.is_empty() && bodies.is_empty() {
        return Ok(());
    }
    // Rule functions nothing names any more, until none is left.
    loop {
        let dead: Vec<LLVMValueRef> = rules
            .get_functions()
            .filter(|f| matches!(f.get_linkage(), Linkage::Internal | Linkage::Private) && f.count_basic_blocks() > 0)
            .map(|f| f.as_value_ref())
            .filter(|f| unsafe { LLVMGetFirstUse(*f).is_null() })
            .collect();
        if dead.is_empty() {
            break;
        }
        for f in dead {
            unsafe { LLVMDeleteFunction(f) };
        }
    }
    link(into, rules, &path.display().to_string())?;
    for name in bodies {
        if let Some(f) = into.get_function(&name) {
            f.set_linkage(Linkage::Internal);
        }
    }
    Ok(())
}

/// The functions `f`'s instructions name (called or passed on).
fn functions_named_in(f: inkwell::values::FunctionValue<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for b in f.get_basic_blocks() {
        let mut i = b.get_first_instruction();
        while let Some(inst) = i {
            let inst_ref = inst.as_value_ref();
            for k in 0..unsafe { LLVMGetNumOperands(inst_ref) } {
                let v = unsafe { LLVMGetOperand(inst_ref, k as u32) };
                if !v.is_null() && unsafe { !LLVMIsAFunction(v).is_null() } {
                    let mut len = 0;
                    let name = unsafe {
                        let p = LLVMGetValueName2(v, &mut len);
                        String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
                    };
                    out.push(name);
                }
            }
            i = inst.get_next_instruction();
        }
    }
    out
}

/// The `__enzyme_register_*` globals of `m` with the name of the function
/// each registers a rule for (its first element).
fn registrations(m: &Module<'_>) -> Vec<(LLVMValueRef, String)> {
    let mut out = Vec::new();
    for g in m.get_globals() {
        if !g.get_name().to_bytes().starts_with(ad::RULE_REGISTRATION_PREFIX.as_bytes()) {
            continue;
        }
        let target = unsafe {
            let init = LLVMGetInitializer(g.as_value_ref());
            let first =
                if init.is_null() || LLVMGetNumOperands(init) == 0 { None } else { Some(LLVMGetOperand(init, 0)) };
            match first {
                Some(f) if !f.is_null() => {
                    let mut len = 0;
                    let p = LLVMGetValueName2(f, &mut len);
                    String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
                }
                _ => String::new(),
            }
        };
        out.push((g.as_value_ref(), target));
    }
    out
}
