//! Code generation in parts: huge derivatives apart from the rest of the
//! program, and a large module's functions over several threads.
//!
//! The derivative of a function of thousands of straight-line statements is
//! one block of tens of thousands of instructions, and LLVM's optimising
//! code generator (greedy register allocation, two-address rewriting,
//! stack-slot colouring) is superlinear in a block's size: such a derivative
//! took four times as long to compile as clang's whole build of the
//! program. Its code is spills and reloads either way (its values all live
//! across the reverse sweep), and the code generator's fast path (fast
//! instruction selection and register allocation) compiled one ten times as
//! fast into code that ran as fast (measured on `bench/scaling.sh`'s
//! programs). So derivatives over [`SPLIT_FUNCTION`] instructions with a
//! block over [`SPLIT_BLOCK`] move into a module of their own, compiled without code-generation optimisations
//! into a second object; the rest is compiled as before. The functions and
//! globals they share become hidden symbols of the two objects.
//!
//! The same split serves parallel code generation: a module of thousands of
//! instructions (a test program's derivatives, a benchmark) is spread over
//! as many parts as the machine has cores to spare ([`MAX_PARTS`] at most),
//! each read into a context of its own and compiled on its own thread.
//! Functions are compiled one at a time by the code generator either way,
//! so the objects' code is the code one object would hold.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use inkwell::attributes::AttributeLoc;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::{Linkage, Module};
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::core::*;
use llvm_sys::prelude::LLVMValueRef;

use crate::args::OptLevel;
use crate::error::DriverError;

/// Derivatives of more instructions than this are compiled apart. The
/// benchmarks' derivatives are far smaller (their largest functions are
/// under 2,000 lines of IR); the derivative of 2,000 straight-line
/// statements is about 11,000 instructions.
pub const SPLIT_FUNCTION: usize = 8_000;

/// ... and only if one block has more than this: the code generator's cost
/// is superlinear in a block's size, and straight-line code is what its fast
/// path compiles as well (a derivative with loops of moderate blocks keeps
/// the optimising code generator, which keeps values in registers there).
pub const SPLIT_BLOCK: usize = 4_000;

/// Whether `f` is over [`SPLIT_FUNCTION`] instructions with a block over [`SPLIT_BLOCK`].
pub(crate) fn is_huge(f: FunctionValue<'_>) -> bool {
    let sizes: Vec<usize> = f.get_basic_blocks().iter().map(|b| b.get_instructions().count()).collect();
    sizes.iter().sum::<usize>() > SPLIT_FUNCTION && sizes.iter().any(|n| *n > SPLIT_BLOCK)
}

/// The names of the module's huge derivatives, if they can be compiled
/// apart (no aliases or interfaces among what they use, no comdat).
pub fn huge_derivatives(module: &Module<'_>) -> Vec<String> {
    module
        .get_functions()
        .filter(|f| {
            let name = f.get_name().to_string_lossy();
            ad::is_derivative_name(&name) && is_huge(*f) && f.as_global_value().get_comdat().is_none()
        })
        .filter(|f| {
            referenced_globals_and_block_addresses(*f)
                .0
                .iter()
                .all(|g| unsafe { LLVMIsAGlobalAlias(*g).is_null() && LLVMIsAGlobalIFunc(*g).is_null() })
        })
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .collect()
}

/// The globals (functions, variables, aliases) function `f` refers to,
/// through constant expressions, and its personality function; and whether
/// it refers to the address of a block (of any function).
pub(crate) fn referenced_globals_and_block_addresses(f: FunctionValue<'_>) -> (Vec<LLVMValueRef>, bool) {
    let mut out: Vec<LLVMValueRef> = Vec::new();
    let mut block_addresses = false;
    let mut seen = std::collections::HashSet::new();
    let mut work: Vec<LLVMValueRef> = Vec::new();
    unsafe {
        if LLVMHasPersonalityFn(f.as_value_ref()) != 0 {
            work.push(LLVMGetPersonalityFn(f.as_value_ref()));
        }
    }
    crate::focus::for_each_instruction(f, |i| unsafe {
        work.extend((0..LLVMGetNumOperands(i)).map(|k| LLVMGetOperand(i, k as u32)));
    });
    while let Some(v) = work.pop() {
        if v.is_null() || !seen.insert(v) {
            continue;
        }
        unsafe {
            if !LLVMIsAGlobalValue(v).is_null() {
                out.push(v);
            } else if !LLVMIsABlockAddress(v).is_null() {
                block_addresses = true;
            } else if !LLVMIsAConstant(v).is_null() {
                work.extend((0..LLVMGetNumOperands(v)).map(|k| LLVMGetOperand(v, k as u32)));
            }
        }
    }
    (out, block_addresses)
}

/// Replaces function `f` of `module` by a declaration of the same name,
/// type, calling convention and linkage.
pub(crate) fn to_declaration<'ctx>(module: &Module<'ctx>, f: FunctionValue<'ctx>) {
    let name = f.get_name().to_string_lossy().into_owned();
    if unsafe { LLVMGetFirstUse(f.as_value_ref()).is_null() } {
        unsafe { f.delete() };
        return;
    }
    let decl = module.add_function(&format!("{name}.declared"), f.get_type(), Some(Linkage::External));
    decl.set_call_conventions(f.get_call_conventions());
    // The attributes too: some are the calling convention (`nest`, flang's
    // link to an internal procedure's host; `sret`, `byval`, `inreg`, the
    // extension of small integers), which a call site need not repeat; a
    // declaration without them passes the argument elsewhere than the
    // definition in the other object reads it.
    let params = f.count_params();
    let places = [AttributeLoc::Function, AttributeLoc::Return].into_iter().chain((0..params).map(AttributeLoc::Param));
    for place in places {
        for a in f.attributes(place) {
            decl.add_attribute(place, a);
        }
    }
    unsafe {
        LLVMSetVisibility(decl.as_value_ref(), LLVMGetVisibility(f.as_value_ref()));
        LLVMReplaceAllUsesWith(f.as_value_ref(), decl.as_value_ref());
        f.delete();
    }
    decl.as_global_value().set_name(&name);
}

/// Modules of fewer instructions than this are compiled on one thread: the
/// code generator takes tens of milliseconds for them, of which a thread
/// would save little beside the cost of cloning a part and reading it back.
/// (Measured above it: `bench/kernels/fft.c`'s module of 2,854 instructions,
/// 93 ms on one thread, 51 ms in two parts.)
pub const PARALLEL_MODULE: usize = 2_000;

/// Parts are at least this large (instructions), so that each is worth a
/// thread; and there are at most [`MAX_PARTS`] of them.
pub const PART_SIZE: usize = 800;

/// The most parts one module is compiled in (part 0 on the calling thread,
/// each other on a thread of its own).
pub const MAX_PARTS: usize = 4;

/// Where each defined function is compiled: part 0 (the object the caller
/// names, with every global definition), the part of huge derivatives, or
/// one of the parallel parts.
struct Plan {
    /// The functions of the huge derivatives' part (compiled without optimisations).
    huge: Vec<String>,
    /// The functions of each parallel part beside part 0.
    parts: Vec<Vec<String>>,
}

/// Whether function `f` may be compiled in another object than the module's
/// global definitions: a plain definition (no comdat, no section, no weak or
/// inline-only linkage) that refers to no alias or interface.
pub(crate) fn movable(f: FunctionValue<'_>, referenced: &[LLVMValueRef]) -> bool {
    use llvm_sys::LLVMLinkage::*;
    let v = f.as_value_ref();
    unsafe {
        f.count_basic_blocks() > 0
            && matches!(LLVMGetLinkage(v), LLVMExternalLinkage | LLVMInternalLinkage | LLVMPrivateLinkage)
            && f.as_global_value().get_comdat().is_none()
            && (LLVMGetSection(v).is_null() || *LLVMGetSection(v) == 0)
            && referenced.iter().all(|g| LLVMIsAGlobalAlias(*g).is_null() && LLVMIsAGlobalIFunc(*g).is_null())
    }
}

/// Which functions go where: the huge derivatives apart (unless ablated);
/// the rest, where the module is large and this machine has cores to spare,
/// spread over parts of about equal size (largest first into the smallest),
/// part 0 starting with the functions that must stay with the globals.
fn plan(module: &Module<'_>) -> Plan {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_PARTS);
    plan_for(module, threads, PARALLEL_MODULE, PART_SIZE)
}

/// [`plan`] for `threads` threads, modules of at least `least` instructions
/// and parts of at least `part_size`.
fn plan_for(module: &Module<'_>, threads: usize, least: usize, part_size: usize) -> Plan {
    let mut plan = Plan { huge: Vec::new(), parts: Vec::new() };
    // Aliases would alias declarations in all but one part.
    if unsafe { !LLVMGetFirstGlobalAlias(module.as_mut_ptr()).is_null() } {
        return plan;
    }
    if !crate::pipeline::driver_lever_ablated("split-codegen") {
        plan.huge = huge_derivatives(module);
    }
    if threads < 2 || crate::pipeline::driver_lever_ablated("parallel-codegen") {
        return plan;
    }
    let mut pinned = 0;
    let mut free: Vec<(usize, String)> = Vec::new();
    let mut total = 0;
    for f in module.get_functions() {
        let name = f.get_name().to_string_lossy().into_owned();
        if f.count_basic_blocks() == 0 || plan.huge.contains(&name) {
            continue;
        }
        let size = crate::pipeline::instruction_count(f);
        total += size;
        let (referenced, block_addresses) = referenced_globals_and_block_addresses(f);
        if block_addresses {
            // A block's address names its function: keep everything together.
            return plan;
        }
        if movable(f, &referenced) {
            free.push((size, name));
        } else {
            pinned += size;
        }
    }
    let count = threads.min(total / part_size);
    if total < least || count < 2 {
        return plan;
    }
    plan.parts = spread(free, count, pinned);
    plan
}

/// Functions (size, name) spread over `count` parts, largest first into the
/// lightest, part 0 starting at `first_load` (what must stay with the
/// rest); returns the functions of the non-empty parts beside part 0, whose
/// functions stay in the module as they are.
pub(crate) fn spread(mut functions: Vec<(usize, String)>, count: usize, first_load: usize) -> Vec<Vec<String>> {
    functions.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let mut loads = vec![0; count];
    loads[0] = first_load;
    let mut parts: Vec<Vec<String>> = vec![Vec::new(); count];
    for (size, name) in functions {
        let k = (0..count).min_by_key(|k| loads[*k]).expect("one part at least");
        loads[k] += size;
        parts[k].push(name);
    }
    parts.into_iter().skip(1).filter(|p| !p.is_empty()).collect()
}

/// One part's module, as bitcode (to be read into a context of its own on
/// its own thread), where its object goes, and at which level it is compiled.
struct Part {
    bitcode: Vec<u8>,
    path: PathBuf,
    level: OptLevel,
}

/// Compiles `module` into `path`, and, where it pays, parts of it into other
/// objects beside `path` in parallel threads: its huge derivatives without
/// code-generation optimisations (see the module's documentation), and, in a
/// large module on a machine with several cores, the other functions spread
/// over parts of about equal size (as lld's `--lto-partitions` does: the
/// code generator works a function at a time, so splitting costs the code
/// nothing). Returns the other objects written (the final link needs them
/// beside `path`) and whether huge derivatives were among them. Where a part
/// cannot be made, everything is compiled into `path` as usual.
pub fn emit_objects(module: &Module<'_>, level: OptLevel, path: &Path) -> Result<(Vec<PathBuf>, bool), DriverError> {
    let tm = crate::pipeline::target_machine(module, level)?;
    let plan = plan(module);
    if plan.huge.is_empty() && plan.parts.is_empty() {
        crate::pipeline::emit_object(module, &tm, path)?;
        return Ok((Vec::new(), false));
    }
    // The machine scheduler switch is global: set from the whole module, before any thread starts.
    crate::pipeline::prepare_codegen(module);
    let mut groups: Vec<(Vec<String>, OptLevel)> = Vec::new();
    if !plan.huge.is_empty() {
        groups.push((plan.huge.clone(), OptLevel::O0));
    }
    groups.extend(plan.parts.iter().map(|p| (p.clone(), level)));
    // Everything a moved function shares with the rest, visible to every object.
    let suffix = format!(".enzyme_rs.{}", std::process::id());
    let mut moved: Vec<Vec<FunctionValue<'_>>> = Vec::new();
    for (names, _) in &groups {
        let fs: Vec<FunctionValue<'_>> = names.iter().filter_map(|n| module.get_function(n)).collect();
        for &f in &fs {
            let mut shared = referenced_globals_and_block_addresses(f).0;
            shared.push(f.as_value_ref());
            for g in shared {
                make_shared(g, &suffix);
            }
        }
        moved.push(fs);
    }
    let mut parts = Vec::new();
    for (k, ((_, part_level), fs)) in groups.iter().zip(&moved).enumerate() {
        // Their names now (renamed where they were internal).
        let keep: HashSet<String> = fs.iter().map(|f| f.get_name().to_string_lossy().into_owned()).collect();
        let Some(bitcode) = part_module(module, &keep) else {
            // Compiled together after all (the shared symbols now hidden ones: harmless).
            crate::pipeline::write_object(module, &tm, path)?;
            return Ok((Vec::new(), false));
        };
        let name = if k == 0 && !plan.huge.is_empty() {
            "enzyme-ad-huge.o".to_string()
        } else {
            format!("enzyme-ad-part{k}.o")
        };
        parts.push(Part { bitcode, path: path.with_file_name(name), level: *part_level });
    }
    // The rest: the moved functions declared.
    for f in moved.into_iter().flatten() {
        to_declaration(module, f);
    }
    let results: Vec<Result<(), DriverError>> = std::thread::scope(|s| {
        let handles: Vec<_> = parts.iter().map(|p| s.spawn(move || compile_part(p))).collect();
        let mut results = vec![crate::pipeline::write_object(module, &tm, path)];
        results.extend(handles.into_iter().map(|h| {
            h.join().unwrap_or_else(|_| Err(DriverError::Internal("code generation of a part panicked".into())))
        }));
        results
    });
    for r in results {
        r?;
    }
    Ok((parts.into_iter().map(|p| p.path).collect(), !plan.huge.is_empty()))
}

/// Global `g`, if internal or private, renamed (with `suffix`) into a hidden
/// symbol that other objects of the same link can refer to.
pub(crate) fn make_shared(g: LLVMValueRef, suffix: &str) {
    unsafe {
        use llvm_sys::LLVMLinkage::*;
        if matches!(LLVMGetLinkage(g), LLVMInternalLinkage | LLVMPrivateLinkage) {
            let old = std::ffi::CStr::from_ptr(LLVMGetValueName2(g, &mut 0)).to_string_lossy().into_owned();
            let new = std::ffi::CString::new(format!("{old}{suffix}")).expect("no NUL");
            LLVMSetValueName2(g, new.as_ptr(), new.as_bytes().len());
            LLVMSetLinkage(g, LLVMExternalLinkage);
            LLVMSetVisibility(g, llvm_sys::LLVMVisibility::LLVMHiddenVisibility);
        }
    }
}

/// A clone of `module` that defines only the functions named in `keep`
/// (everything else declared), as bitcode; `None` if it is not valid IR.
fn part_module(module: &Module<'_>, keep: &HashSet<String>) -> Option<Vec<u8>> {
    part_module_with_copies(module, keep, &HashSet::new())
}

/// [`part_module`], where the functions and constants named in `copies`
/// are also defined, as internal copies of their own (for the part's
/// optimiser to inline and read).
pub(crate) fn part_module_with_copies(
    module: &Module<'_>,
    keep: &HashSet<String>,
    copies: &HashSet<String>,
) -> Option<Vec<u8>> {
    let part = module.clone();
    let mut others = Vec::new();
    for f in part.get_functions().filter(|f| f.count_basic_blocks() > 0) {
        let name = f.get_name().to_string_lossy();
        if copies.contains(name.as_ref()) {
            f.set_linkage(Linkage::Internal);
            unsafe {
                LLVMSetVisibility(f.as_value_ref(), llvm_sys::LLVMVisibility::LLVMDefaultVisibility);
                llvm_sys::comdat::LLVMSetComdat(f.as_value_ref(), std::ptr::null_mut());
            }
        } else if !keep.contains(name.as_ref()) {
            others.push(f);
        }
    }
    for f in others {
        to_declaration(&part, f);
    }
    let globals: Vec<_> = part.get_globals().collect();
    for g in globals {
        let name = g.get_name().to_string_lossy().into_owned();
        unsafe {
            let v = g.as_value_ref();
            if LLVMGetLinkage(v) == llvm_sys::LLVMLinkage::LLVMAppendingLinkage || name.starts_with("llvm.") {
                LLVMDeleteGlobal(v);
            } else if copies.contains(&name) {
                if LLVMGetFirstUse(v).is_null() {
                    LLVMDeleteGlobal(v);
                } else {
                    LLVMSetLinkage(v, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
                    llvm_sys::comdat::LLVMSetComdat(v, std::ptr::null_mut());
                }
            } else if LLVMIsDeclaration(v) == 0 {
                if LLVMGetFirstUse(v).is_null() {
                    LLVMDeleteGlobal(v);
                } else {
                    // Its debug description stays with its definition (else this
                    // object's debug information names a symbol it lacks).
                    LLVMGlobalEraseMetadata(
                        v,
                        LLVMGetMDKindIDInContext(LLVMGetModuleContext(part.as_mut_ptr()), c"dbg".as_ptr(), 3),
                    );
                    LLVMSetInitializer(v, std::ptr::null_mut());
                    LLVMSetLinkage(v, llvm_sys::LLVMLinkage::LLVMExternalLinkage);
                    llvm_sys::comdat::LLVMSetComdat(v, std::ptr::null_mut());
                }
            }
        }
    }
    part.verify().is_ok().then(|| part.write_bitcode_to_memory().as_slice().to_vec())
}

/// A part's bitcode read into `ctx` (a context of the thread's own), with
/// LLVM's errors captured there.
pub(crate) fn read_part<'ctx>(ctx: &'ctx Context, bitcode: &[u8]) -> Result<Module<'ctx>, DriverError> {
    crate::bitcode::capture_llvm_errors(ctx);
    let buffer = MemoryBuffer::create_from_memory_range_copy(bitcode, "part");
    Module::parse_bitcode_from_buffer(&buffer, ctx)
        .map_err(|e| DriverError::Internal(format!("a part of the module cannot be read back: {e}")))
}

/// Code generation of one part, on the calling thread, in a context of its own.
fn compile_part(part: &Part) -> Result<(), DriverError> {
    let ctx = Context::create();
    let module = read_part(&ctx, &part.bitcode)?;
    let tm = crate::pipeline::target_machine_initialised(&module, part.level)?;
    crate::pipeline::write_object(&module, &tm, &part.path)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Two plain functions (one internal, using an internal constant), one
    /// `linkonce_odr` (which stays with the globals) and `main`.
    const IR: &str = r#"
@table = internal constant [2 x double] [double 1.0, double 2.0]
define internal double @four(double %x) { %a = fmul double %x, %x
  %b = fadd double %a, 1.0
  %c = load double, ptr @table
  %d = fmul double %b, %c
  ret double %d }
define double @three(double %x) { %a = fmul double %x, 3.0
  %b = call double @four(double %a)
  ret double %b }
define linkonce_odr double @inline_only(double %x) { %a = fadd double %x, 2.0
  ret double %a }
define i32 @main() { %a = call double @three(double 1.0)
  %b = call double @inline_only(double %a)
  %c = fptosi double %b to i32
  ret i32 %c }
"#;

    /// The symbols of the object file at `path`: name, and whether undefined.
    pub(crate) fn object_symbols(path: &Path) -> Vec<(String, bool)> {
        use object::{Object, ObjectSymbol};
        let data = std::fs::read(path).expect("object written");
        let file = object::File::parse(&*data).expect("an object");
        file.symbols().map(|s| (s.name().unwrap_or("").to_string(), s.is_undefined())).collect()
    }

    fn parts_of(ir: &str, threads: usize) -> Vec<Vec<String>> {
        let ctx = Context::create();
        let m = crate::bitcode::parse(&ctx, ir.as_bytes(), "test.ll").expect("valid IR");
        let mut parts = plan_for(&m, threads, 1, 1).parts;
        for p in &mut parts {
            p.sort();
        }
        parts
    }

    #[test]
    fn functions_spread_over_parts_except_those_that_stay_with_the_globals() {
        // Sizes with the returns: four 5, main 4, three 3, inline_only 2. Part 0
        // starts with `inline_only` and takes `main`; `four`, then `three`, go to part 1.
        assert_eq!(parts_of(IR, 2), [vec!["four".to_string(), "three".to_string()]]);
        let three = parts_of(IR, 3);
        assert_eq!(three.len(), 2, "{three:?}");
        assert!(three.iter().flatten().all(|f| f != "inline_only"), "{three:?}");
        assert!(parts_of(IR, 1).is_empty());
    }

    #[test]
    fn a_block_address_keeps_the_module_in_one_piece() {
        let ir = format!(
            "{IR}\ndefine ptr @where() {{ br label %there\nthere:\n  ret ptr blockaddress(@where, %there) }}\n"
        );
        assert!(parts_of(&ir, 2).is_empty());
    }

    #[test]
    fn a_declaration_keeps_the_attributes_of_the_definition() {
        // flang's internal procedures take their host's variables through a
        // `nest` parameter, which call sites do not repeat.
        const NESTED: &str = "define internal void @inner(ptr nest noalias %host, i8 zeroext %c) #0 {\n  ret void\n}\n\
                              define void @outer(ptr %h) {\n  call void @inner(ptr %h, i8 1)\n  ret void\n}\n\
                              attributes #0 = { noinline }\n";
        let ctx = Context::create();
        let m = crate::bitcode::parse(&ctx, NESTED.as_bytes(), "nested.ll").expect("valid IR");
        to_declaration(&m, m.get_function("inner").expect("defined"));
        let decl = m.get_function("inner").expect("declared");
        assert_eq!(decl.count_basic_blocks(), 0);
        let kinds = |loc| -> Vec<u32> {
            decl.attributes(loc).iter().filter(|a| a.is_enum()).map(|a| a.get_enum_kind_id()).collect()
        };
        let kind = |name: &str| inkwell::attributes::Attribute::get_named_enum_kind_id(name);
        assert!(kinds(AttributeLoc::Param(0)).contains(&kind("nest")), "nest lost");
        assert!(kinds(AttributeLoc::Param(1)).contains(&kind("zeroext")), "zeroext lost");
        assert!(kinds(AttributeLoc::Function).contains(&kind("noinline")));
    }

    #[test]
    fn parts_compile_into_objects_that_share_the_internal_symbols() {
        let ctx = Context::create();
        let m = crate::bitcode::parse(&ctx, IR.as_bytes(), "test.ll").expect("valid IR");
        let dir = tempfile::tempdir().expect("temporary directory");
        let main_object = dir.path().join("main.o");
        // Initialises the native target, as `emit_objects` does before its threads start.
        let tm = crate::pipeline::target_machine(&m, OptLevel::O2).expect("target");
        // What `emit_objects` does with such a plan.
        let plan = plan_for(&m, 2, 1, 1);
        assert_eq!(plan.parts.len(), 1);
        let four = m.get_function("four").expect("defined");
        for g in referenced_globals_and_block_addresses(four).0.into_iter().chain([four.as_value_ref()]) {
            make_shared(g, ".test");
        }
        let bitcode = part_module(&m, &HashSet::from(["four.test".to_string()])).expect("a valid part");
        to_declaration(&m, m.get_function("four.test").expect("renamed"));
        let part = Part { bitcode, path: dir.path().join("part.o"), level: OptLevel::O2 };
        compile_part(&part).expect("the part compiles");
        crate::pipeline::write_object(&m, &tm, &main_object).expect("the rest compiles");
        let (main_syms, part_syms) = (object_symbols(&main_object), object_symbols(&part.path));
        // `four` is defined in the part and called from the rest; the table the other way round.
        assert!(part_syms.contains(&("four.test".to_string(), false)), "{part_syms:?}");
        assert!(main_syms.contains(&("four.test".to_string(), true)), "{main_syms:?}");
        assert!(main_syms.contains(&("table.test".to_string(), false)), "{main_syms:?}");
        assert!(part_syms.contains(&("table.test".to_string(), true)), "{part_syms:?}");
    }
}
