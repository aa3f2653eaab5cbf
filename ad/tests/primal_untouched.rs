//! Differentiation changes nothing of the program but the entry points'
//! calls (issue 39, item 4): every function other than a caller of
//! `__enzyme_*` prints the same before and after, whether a derivative
//! reaches it (the engine works on clones) or not, with loops, the heap,
//! globals, an internal procedure with a `nest` parameter (flang's link to
//! its host) and a function registered inactive.

mod common;

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::values::{AnyValue, FunctionValue};

const IR: &str = r#"
@g = global double 0.0
@table = global [4 x double] [double 1.0, double 2.0, double 3.0, double 4.0]
@__enzyme_inactivefn = global [1 x ptr] [ptr @log_value]

define internal void @log_value(double %x) noinline {
  store double %x, ptr @g
  ret void
}

define internal double @helper(double %x, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %a = phi double [ %x, %entry ], [ %b, %loop ]
  %b = phi double [ 1.0, %entry ], [ %a, %loop ]
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  %p = getelementptr [4 x double], ptr @table, i64 0, i32 %i
  %t = load double, ptr %p
  %r = fmul double %a, %t
  ret double %r
}

define internal double @f(double %x) {
  %m = call ptr @malloc(i64 8)
  store double %x, ptr %m
  %v = load double, ptr %m
  %s = call double @sin(double %v)
  call void @log_value(double %s)
  %h = call double @helper(double %s, i32 3)
  call void @free(ptr %m)
  ret double %h
}

define internal void @inner(ptr nest noalias %host) noinline {
  %v = load double, ptr %host
  %w = fadd double %v, 1.0
  store double %w, ptr %host
  ret void
}

define double @unrelated(double %x) {
  %y = fmul double %x, %x
  ret double %y
}

define double @caller(double %x) {
  %slot = alloca double
  store double %x, ptr %slot
  call void @inner(ptr nest %slot)
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  %p = call double @helper(double %x, i32 2)
  %u = call double @unrelated(double %d)
  %s = fadd double %p, %u
  ret double %s
}

declare ptr @malloc(i64)
declare void @free(ptr)
declare double @sin(double)
"#;

/// A function's text without what renumbering may change (attribute group
/// numbers), so two printings of the same code compare equal.
fn text(f: FunctionValue<'_>) -> String {
    let printed = f.print_to_string().to_string();
    printed
        .split_whitespace()
        .filter(|w| !(w.starts_with('#') && w[1..].chars().all(|c| c.is_ascii_digit())))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn only_the_callers_of_entry_points_change() {
    let ctx = Context::create();
    let src = format!("{}\n{IR}", common::DECLS);
    let buf = MemoryBuffer::create_from_memory_range_copy(src.as_bytes(), "primal.ll");
    let module = ctx.create_module_from_ir(buf).expect("the test's IR parses");
    let before: Vec<(String, String)> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .map(|f| (f.get_name().to_string_lossy().into_owned(), text(f)))
        .collect();
    ad::differentiate(&module).unwrap_or_else(|d| panic!("differentiation failed: {d:?}"));
    module.verify().expect("valid IR after differentiation");
    let mut compared = 0;
    for (name, old) in &before {
        if name == "caller" {
            continue;
        }
        let f = module.get_function(name).unwrap_or_else(|| panic!("`{name}` is gone after differentiation"));
        assert_eq!(&text(f), old, "`{name}` changed");
        compared += 1;
    }
    assert_eq!(compared, 5, "every function but the caller compared");
    // The caller now calls a derivative.
    let caller = text(module.get_function("caller").expect("kept"));
    assert!(!caller.contains("__enzyme_autodiff"), "{caller}");
}
