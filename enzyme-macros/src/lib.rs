//! `#[autodiff_reverse]` and `#[autodiff_forward]`: std::autodiff's attribute
//! macros on stable Rust, expanded into calls of Enzyme's C entry points that
//! the enzyme-rs linker (run by `cargo enzyme`) replaces with derivatives.
//!
//! For `#[autodiff_reverse(df, Active, Active)] fn f(x: f64) -> f64` the
//! expansion keeps `f` and defines `df(x, seed) -> (f64, f64)`, which holds a
//! shim over `f` (a closure taken as a function pointer: references, raw
//! pointers and slices as pointers (and lengths), floats and integers by
//! value, other values and the result by address) and calls
//! `__enzyme_autodiff…(shim, …)` with Enzyme's activity markers, through a
//! pointer of the shim's types, so generic functions and methods work alike.
//! The entry point's symbol name says to build with
//! `cargo enzyme`, so a plain `cargo build` fails at link time saying so.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{parse_macro_input, Expr, FnArg, Ident, ItemFn, Pat, ReturnType, Token, Type};

/// Reverse mode, as `std::autodiff::autodiff_reverse`: `#[autodiff_reverse(NAME,
/// ACTIVITY..., [RETURN_ACTIVITY])]` with `Active`, `ActiveOnly`, `Const`,
/// `Duplicated`, `DuplicatedOnly`.
#[proc_macro_attribute]
pub fn autodiff_reverse(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand(Mode::Reverse, attr, item)
}

/// Forward mode, as `std::autodiff::autodiff_forward`: `#[autodiff_forward(NAME,
/// ACTIVITY..., [RETURN_ACTIVITY])]` with `Dual`, `DualOnly`, `Const`.
#[proc_macro_attribute]
pub fn autodiff_forward(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand(Mode::Forward, attr, item)
}

/// `#[inactive]` on a function: its calls carry no derivative and run as
/// they are (Enzyme's `__enzyme_inactivefn`). Logging, counters, caches.
#[proc_macro_attribute]
pub fn inactive(attr: TokenStream, item: TokenStream) -> TokenStream {
    let f = parse_macro_input!(item as ItemFn);
    if !attr.is_empty() {
        return err(Span::call_site(), "`#[inactive]` takes no arguments");
    }
    register(f, "__enzyme_inactivefn_", &[]).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// `#[custom_forward(f_fwd)]` on `f`: forward mode calls `f_fwd` instead of
/// differentiating `f` (Enzyme's `__enzyme_register_derivative_f`). For
/// `fn f(x: f64, ...) -> f64`, `fn f_fwd(x: f64, dx: f64, ...) -> (f64, f64)`
/// returns the value and its tangent (every float parameter followed by its
/// tangent; integers alone).
#[proc_macro_attribute]
pub fn custom_forward(attr: TokenStream, item: TokenStream) -> TokenStream {
    let f = parse_macro_input!(item as ItemFn);
    let rules = parse_macro_input!(attr with Punctuated::<syn::Path, Token![,]>::parse_terminated);
    if rules.len() != 1 {
        return err(Span::call_site(), "write `#[custom_forward(forward_function)]`");
    }
    let rules: Vec<syn::Path> = rules.into_iter().collect();
    register(f, "__enzyme_register_derivative_", &rules).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// `#[custom_reverse(f_aug, f_rev)]` on `f`: reverse mode calls `f_aug` in
/// the forward sweep and `f_rev` in the reverse sweep instead of
/// differentiating `f` (Enzyme's `__enzyme_register_gradient_f`). For
/// `fn f(x: f64, ...) -> f64`: `fn f_aug(x: f64, ...) -> f64` returns the
/// value (or `-> (T, f64)` a tape and the value), and `fn f_rev(x: f64, ...,
/// d_result: f64 [, tape: T]) -> f64` (or a tuple, one adjoint per float
/// parameter) returns the parameters' adjoints.
#[proc_macro_attribute]
pub fn custom_reverse(attr: TokenStream, item: TokenStream) -> TokenStream {
    let f = parse_macro_input!(item as ItemFn);
    let rules = parse_macro_input!(attr with Punctuated::<syn::Path, Token![,]>::parse_terminated);
    if rules.len() != 2 {
        return err(Span::call_site(), "write `#[custom_reverse(augmented_function, reverse_function)]`");
    }
    let rules: Vec<syn::Path> = rules.into_iter().collect();
    register(f, "__enzyme_register_gradient_", &rules).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// Keeps `f` (out of line: rustc must not inline it before the engine sees
/// its calls) and adds the registration static Enzyme's spelling asks for:
/// `{f, rules...}`, kept by `#[used]`, named `<prefix><f>`.
fn register(mut f: ItemFn, prefix: &str, rules: &[syn::Path]) -> syn::Result<Tokens> {
    if !f.sig.generics.params.is_empty() {
        return Err(syn::Error::new(
            f.sig.generics.span(),
            "generic functions cannot be registered; register an instantiation",
        ));
    }
    f.attrs.push(syn::parse_quote!(#[inline(never)]));
    let name = &f.sig.ident;
    let reg = format_ident!("{}{}", prefix, name);
    let n = 1 + rules.len();
    Ok(quote! {
        #f

        #[used]
        #[unsafe(no_mangle)]
        #[allow(non_upper_case_globals)]
        static #reg: ::enzyme::Registration<#n> = ::enzyme::Registration([
            #name as *const (),
            #(#rules as *const ()),*
        ]);
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Forward,
    Reverse,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Activity {
    Const,
    Active,
    ActiveOnly,
    Duplicated,
    DuplicatedOnly,
    Dual,
    DualOnly,
}

/// What a parameter or result is, as far as passing it to the engine goes.
#[derive(Clone)]
enum Shape {
    /// `f32` / `f64`.
    Float,
    /// Integers and `bool`: constant.
    Int,
    /// `&T` / `&mut T` of a sized `T` (and `&self` / `&mut self`).
    Ref { mutable: bool, inner: Tokens },
    /// `&[E]` / `&mut [E]`.
    Slice { mutable: bool, elem: Type },
    /// `&str` / `&mut str`: bytes, constant.
    Str { mutable: bool },
    /// `*const T` / `*mut T`: the derivative is `unsafe`.
    RawPtr { mutable: bool, inner: Type },
    /// Anything else passed by value (structs, tuples, arrays, generic
    /// parameters, `self`): handed to the engine by address, its derivative
    /// a value of the same type.
    Value,
}

fn shape(t: &Type) -> Shape {
    match t {
        Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
            match p.path.get_ident().unwrap().to_string().as_str() {
                "f32" | "f64" => Shape::Float,
                "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128" | "usize"
                | "bool" => Shape::Int,
                _ => Shape::Value,
            }
        }
        Type::Reference(r) => {
            let mutable = r.mutability.is_some();
            match &*r.elem {
                Type::Slice(s) => Shape::Slice { mutable, elem: (*s.elem).clone() },
                Type::Path(p) if p.qself.is_none() && p.path.is_ident("str") => Shape::Str { mutable },
                inner => Shape::Ref { mutable, inner: quote!(#inner) },
            }
        }
        Type::Ptr(p) => Shape::RawPtr { mutable: p.mutability.is_some(), inner: (*p.elem).clone() },
        _ => Shape::Value,
    }
}

fn err(span: Span, msg: impl std::fmt::Display) -> TokenStream {
    syn::Error::new(span, msg).to_compile_error().into()
}

/// The names of a shadow's lanes: the name itself at width 1, `name_0`,
/// `name_1`, ... in vector mode.
fn lane_names(shadow: &Ident, width: usize) -> Vec<Ident> {
    if width == 1 {
        vec![shadow.clone()]
    } else {
        (0..width).map(|k| format_ident!("{}_{}", shadow, k)).collect()
    }
}

/// One lane's value, or an array of them in vector mode.
fn lanes_value(lanes: &[Tokens]) -> Tokens {
    if lanes.len() == 1 {
        lanes[0].clone()
    } else {
        quote!([#(#lanes),*])
    }
}

fn expand(mode: Mode, attr: TokenStream, item: TokenStream) -> TokenStream {
    let f = parse_macro_input!(item as ItemFn);
    let args = parse_macro_input!(attr with Punctuated::<Expr, Token![,]>::parse_terminated);
    match expand_inner(mode, args, f) {
        Ok(t) => t.into(),
        Err(e) => e,
    }
}

/// One parameter of the primal function.
struct Param {
    /// How the derivative names the primal value (`x`, `self`).
    expr: Tokens,
    /// Its declaration in the derivative's signature (`x: f64`, `&self`).
    decl: Tokens,
    /// Its type (`Self` for a receiver).
    ty: Tokens,
    shape: Shape,
    act: Activity,
    span: Span,
    /// The name its shadows and tangents are made from.
    shadow: Ident,
}

/// The pieces of the expansion, gathered parameter by parameter.
#[derive(Default)]
struct Expansion {
    /// The derivative's parameters: the primal's, each followed by its
    /// shadows or tangents, then the seeds.
    d_params: Vec<Tokens>,
    /// The shim's parameters and the primal call's arguments rebuilt from them.
    shim_params: Vec<Tokens>,
    shim_tys: Vec<Tokens>,
    rebuilt: Vec<Tokens>,
    /// The entry point's arguments after the shim, and their types.
    call_args: Vec<Tokens>,
    call_tys: Vec<Tokens>,
    /// Statements before the call (zeroed adjoint slots) and after it.
    before: Vec<Tokens>,
    after: Vec<Tokens>,
    /// Values returned after the primal result: adjoints of active parameters.
    outs: Vec<Tokens>,
    out_tys: Vec<Tokens>,
    unsafe_fn: bool,
    /// Type hints the shim gives the engine before the primal call: what a
    /// slice or reference of floats points to (`__enzyme_double(p)`), or a
    /// string's bytes (`__enzyme_integer(p)`), so copies out of it (`to_vec`,
    /// `to_string`) are typed.
    hints: Vec<Tokens>,
}

impl Expansion {
    fn arg(&mut self, value: Tokens, ty: Tokens) {
        self.call_args.push(value);
        self.call_tys.push(ty);
    }

    /// The memory at shim parameter `arg` holds `elem` (a float, an array of
    /// floats, or bytes): say so to the engine. Other types (generic ones
    /// too) say nothing.
    fn hint(&mut self, arg: &Ident, elem: &Tokens) {
        let t = elem.to_string().replace(' ', "");
        let scalar = t.strip_prefix('[').and_then(|r| r.split(';').next()).unwrap_or(&t);
        let hint = match scalar {
            "f64" => quote!(__enzyme_double),
            "f32" => quote!(__enzyme_float),
            "u8" => quote!(__enzyme_integer),
            _ => return,
        };
        self.hints.push(quote!(unsafe { #hint(#arg as *const ::core::ffi::c_void); }));
    }

    fn marker(&mut self, name: &str) {
        let id = Ident::new(name, Span::call_site());
        self.arg(quote!(&raw const #id), quote!(*const ::core::ffi::c_int));
    }
}

/// What the attribute's arguments say: the derivative's name, the width,
/// and one activity per parameter (and result), with its span.
struct Attr {
    name: Ident,
    width: usize,
    activities: Vec<(Activity, Span)>,
}

fn parse_activities(mode: Mode, args: &Punctuated<Expr, Token![,]>) -> Result<Attr, TokenStream> {
    let mut it = args.iter();
    let name = match it.next() {
        Some(Expr::Path(p)) if p.path.get_ident().is_some() => p.path.get_ident().unwrap().clone(),
        other => {
            return Err(err(
                other.map(|e| e.span()).unwrap_or(Span::call_site()),
                "expected the name of the derivative function first",
            ))
        }
    };
    let mut activities = Vec::new();
    let mut width: usize = 1;
    for a in it {
        match a {
            Expr::Lit(l) => {
                let w = match &l.lit {
                    syn::Lit::Int(i) if activities.is_empty() => {
                        i.base10_parse::<usize>().ok().filter(|w| (1..=64).contains(w))
                    }
                    _ => None,
                };
                let Some(w) = w else {
                    return Err(err(l.span(), "expected a width from 1 to 64 right after the name"));
                };
                width = w;
            }
            Expr::Path(p) if p.path.get_ident().is_some() => {
                let id = p.path.get_ident().unwrap();
                let act = match id.to_string().as_str() {
                    "Const" => Activity::Const,
                    "Active" => Activity::Active,
                    "ActiveOnly" => Activity::ActiveOnly,
                    "Duplicated" => Activity::Duplicated,
                    "DuplicatedOnly" => Activity::DuplicatedOnly,
                    "Dual" => Activity::Dual,
                    "DualOnly" => Activity::DualOnly,
                    other => return Err(err(id.span(), format!("unknown activity `{other}`"))),
                };
                let ok = match mode {
                    Mode::Reverse => !matches!(act, Activity::Dual | Activity::DualOnly),
                    Mode::Forward => matches!(act, Activity::Const | Activity::Dual | Activity::DualOnly),
                };
                if !ok {
                    let m = if mode == Mode::Reverse { "autodiff_reverse" } else { "autodiff_forward" };
                    return Err(err(id.span(), format!("activity `{id}` does not belong to `{m}`")));
                }
                activities.push((act, id.span()));
            }
            other => return Err(err(other.span(), "expected an activity such as `Active` or `Duplicated`")),
        }
    }
    Ok(Attr { name, width, activities })
}

fn expand_inner(mode: Mode, args: Punctuated<Expr, Token![,]>, f: ItemFn) -> Result<Tokens, TokenStream> {
    let Attr { name, width, activities } = parse_activities(mode, &args)?;
    let ret_ty: Option<Type> = match &f.sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, t) if matches!(&**t, Type::Tuple(t) if t.elems.is_empty()) => None,
        ReturnType::Type(_, t) => Some((**t).clone()),
    };
    let n_in = f.sig.inputs.len();
    let expected = n_in + usize::from(ret_ty.is_some());
    if activities.len() != expected {
        return Err(err(
            f.sig.span(),
            format!(
                "`{}` needs {expected} activities (one per parameter{}), found {}",
                f.sig.ident,
                if ret_ty.is_some() { " and one for the result" } else { "" },
                activities.len()
            ),
        ));
    }
    let ret_act = ret_ty.as_ref().map(|_| activities[n_in].0);

    // Parameters: how the derivative names each, its type and shape.
    let mut params = Vec::new();
    let mut method = false;
    for (k, a) in f.sig.inputs.iter().enumerate() {
        let (act, span) = activities[k];
        let p = match a {
            FnArg::Receiver(r) => {
                method = true;
                let (decl, shape) = match (&r.reference, r.mutability.is_some()) {
                    (Some(_), m) => (
                        if m { quote!(&mut self) } else { quote!(&self) },
                        Shape::Ref { mutable: m, inner: quote!(Self) },
                    ),
                    (None, _) => (quote!(self), Shape::Value),
                };
                Param { expr: quote!(self), decl, ty: quote!(Self), shape, act, span, shadow: format_ident!("d_self") }
            }
            FnArg::Typed(pt) => {
                let pname = match &*pt.pat {
                    Pat::Ident(i) => i.ident.clone(),
                    _ => format_ident!("arg{k}"),
                };
                let ty = &pt.ty;
                if matches!(&**ty, Type::ImplTrait(_)) {
                    return Err(err(
                        ty.span(),
                        "`impl Trait` parameters cannot be differentiated; use a generic parameter",
                    ));
                }
                let shadow = format_ident!("d{}", pname);
                Param {
                    expr: quote!(#pname),
                    decl: quote!(#pname: #ty),
                    ty: quote!(#ty),
                    shape: shape(ty),
                    act,
                    span,
                    shadow,
                }
            }
        };
        params.push(p);
    }

    // Activity against shape.
    for p in &params {
        let ok = match (&p.shape, p.act) {
            (_, Activity::Const) => true,
            (Shape::Int | Shape::Str { .. }, _) => false,
            (Shape::Float | Shape::Value, a) => matches!(a, Activity::Active | Activity::Dual | Activity::DualOnly),
            (Shape::Ref { .. } | Shape::Slice { .. } | Shape::RawPtr { .. }, a) => {
                matches!(a, Activity::Duplicated | Activity::DuplicatedOnly | Activity::Dual | Activity::DualOnly)
            }
        };
        if !ok {
            let what = match &p.shape {
                Shape::Int => "an integer carries no derivative: mark it `Const`",
                Shape::Str { .. } => "a string carries no derivative: mark it `Const`",
                Shape::Float | Shape::Value => {
                    "a value is `Active` (reverse: its adjoint is returned), `Dual` (forward: its tangent follows) or `Const`"
                }
                _ => "a reference or pointer is `Duplicated`/`DuplicatedOnly` (reverse) or `Dual`/`DualOnly` (forward), or `Const`",
            };
            return Err(err(p.span, format!("activity `{:?}` does not fit parameter `{}`: {what}", p.act, p.expr)));
        }
    }
    let ret_shape = ret_ty.as_ref().map(shape);
    if let (Some(Shape::Int), Some(a)) = (&ret_shape, ret_act) {
        if a != Activity::Const {
            return Err(err(ret_ty.span(), "an integer result has no derivative: mark it `Const`"));
        }
    }
    if let Some(Shape::Ref { .. } | Shape::Slice { .. } | Shape::Str { .. } | Shape::RawPtr { .. }) = &ret_shape {
        return Err(err(
            ret_ty.span(),
            "results that are references or pointers cannot be differentiated; return a value, or write through a `&mut` parameter",
        ));
    }

    let mut x = Expansion::default();
    for p in &params {
        lower_param(mode, width, p, &mut x);
    }

    // The result: written by the shim through a pointer, so the primal value,
    // its tangents and its seeds all live in memory the engine sees.
    let t = &ret_ty;
    let mut result = quote!();
    let mut lanes_out = Vec::new();
    if let (Some(t), Some(act)) = (&ret_ty, ret_act) {
        x.shim_params.push(quote!(__out: *mut #t));
        x.shim_tys.push(quote!(*mut #t));
        x.before.push(quote!(let mut __out = ::core::mem::MaybeUninit::<#t>::uninit();));
        let m = match act {
            Activity::Const => "enzyme_const",
            Activity::ActiveOnly | Activity::DualOnly => "enzyme_dupnoneed",
            _ => "enzyme_dup",
        };
        x.marker(m);
        x.arg(quote!(__out.as_mut_ptr()), quote!(*mut #t));
        if act != Activity::Const {
            let names = lane_names(&format_ident!("__d_out"), width);
            let seeds = lane_names(&format_ident!("seed"), width);
            for (k, lane) in names.iter().enumerate() {
                if mode == Mode::Reverse {
                    // The seed is the result's adjoint, in its shadow.
                    let seed = &seeds[k];
                    x.d_params.push(quote!(#seed: #t));
                    x.before.push(quote!(let mut #lane: #t = #seed;));
                } else {
                    x.before.push(quote!(let mut #lane: #t = unsafe { ::core::mem::zeroed() };));
                }
                x.arg(quote!(&raw mut #lane), quote!(*mut #t));
                lanes_out.push(quote!(#lane));
            }
        }
        if !matches!(act, Activity::ActiveOnly | Activity::DualOnly) {
            result = quote!(unsafe { __out.assume_init() });
        }
    }

    // The shim over the primal: a function of pointers, integers and floats.
    let fname = &f.sig.ident;
    let turbofish = {
        let tys: Vec<Tokens> = f
            .sig
            .generics
            .params
            .iter()
            .filter_map(|g| match g {
                syn::GenericParam::Type(t) => {
                    let i = &t.ident;
                    Some(quote!(#i))
                }
                syn::GenericParam::Const(c) => {
                    let i = &c.ident;
                    Some(quote!(#i))
                }
                syn::GenericParam::Lifetime(_) => None,
            })
            .collect();
        if tys.is_empty() {
            quote!()
        } else {
            quote!(::<#(#tys),*>)
        }
    };
    let callee = if method { quote!(Self::#fname #turbofish) } else { quote!(#fname #turbofish) };
    let rebuilt = &x.rebuilt;
    let primal_call = quote!(#callee(#(#rebuilt),*));
    let hints = &x.hints;
    let shim_body = if ret_ty.is_some() {
        quote!({ #(#hints)* unsafe { __out.write(#primal_call) } })
    } else {
        quote!({ #(#hints)* #primal_call; })
    };
    let (shim_params, shim_tys) = (&x.shim_params, &x.shim_tys);

    let entry = match mode {
        Mode::Reverse => format!("__enzyme_autodiff__build_with_cargo_enzyme__{name}"),
        Mode::Forward => format!("__enzyme_fwddiff__build_with_cargo_enzyme__{name}"),
    };
    // Vector mode: `enzyme_width, N` first.
    let mut head_args = Vec::new();
    let mut head_tys = Vec::new();
    if width > 1 {
        let w = width as i32;
        head_args.push(quote!(&raw const enzyme_width));
        head_args.push(quote!(#w));
        head_tys.push(quote!(*const ::core::ffi::c_int));
        head_tys.push(quote!(i32));
    }
    let (call_args, call_tys) = (&x.call_args, &x.call_tys);

    // What the derivative returns.
    let (d_ret, ret_expr) = match mode {
        Mode::Reverse => {
            let mut outs: Vec<Tokens> = Vec::new();
            let mut tys: Vec<Tokens> = Vec::new();
            if !result.is_empty() {
                outs.push(quote!(__primal));
                tys.push(quote!(#t));
            }
            outs.extend(x.outs.iter().cloned());
            tys.extend(x.out_tys.iter().cloned());
            match outs.len() {
                0 => (quote!(), quote!(())),
                1 => {
                    let t0 = &tys[0];
                    (quote!(-> #t0), outs[0].clone())
                }
                _ => (quote!(-> (#(#tys),*)), quote!((#(#outs),*))),
            }
        }
        Mode::Forward => match (ret_act, width) {
            (Some(Activity::Dual), 1) => (quote!(-> (#t, #t)), quote!((__primal, #(#lanes_out)*))),
            (Some(Activity::Dual), w) => {
                let n = w + 1;
                (quote!(-> [#t; #n]), quote!([__primal, #(#lanes_out),*]))
            }
            (Some(Activity::DualOnly), 1) => (quote!(-> #t), quote!(#(#lanes_out)*)),
            (Some(Activity::DualOnly), w) => (quote!(-> [#t; #w]), quote!([#(#lanes_out),*])),
            (Some(_), _) => (quote!(-> #t), quote!(__primal)),
            (None, _) => (quote!(), quote!(())),
        },
    };
    let primal_binding = if result.is_empty() { quote!() } else { quote!(let __primal = #result;) };

    let vis = &f.vis;
    let generics = &f.sig.generics;
    let where_clause = &f.sig.generics.where_clause;
    let unsafety = if x.unsafe_fn || f.sig.unsafety.is_some() { quote!(unsafe) } else { quote!() };
    let d_params = &x.d_params;
    let (before, after) = (&x.before, &x.after);
    let mut primal = f.clone();
    primal.attrs.push(syn::parse_quote!(#[inline(never)]));
    // The entry point is a symbol only: called through a pointer of the
    // shim's types (which may name the function's generic parameters and
    // `Self`, unlike an `extern` item), the call is direct once optimised.
    Ok(quote! {
        #primal

        #[allow(clippy::too_many_arguments, clippy::let_unit_value, unused_mut, unused_unsafe)]
        #vis #unsafety fn #name #generics (#(#d_params),*) #d_ret #where_clause {
            #[allow(non_upper_case_globals, dead_code)]
            unsafe extern "C" {
                static enzyme_dup: ::core::ffi::c_int;
                static enzyme_dupnoneed: ::core::ffi::c_int;
                static enzyme_const: ::core::ffi::c_int;
                static enzyme_out: ::core::ffi::c_int;
                static enzyme_width: ::core::ffi::c_int;
                #[link_name = #entry]
                fn __enzyme_entry();
                fn __enzyme_double(p: *const ::core::ffi::c_void, ...);
                fn __enzyme_float(p: *const ::core::ffi::c_void, ...);
                fn __enzyme_integer(p: *const ::core::ffi::c_void, ...);
            }
            let __shim: fn(#(#shim_tys),*) = |#(#shim_params),*| #shim_body;
            #(#before)*
            unsafe {
                let __entry: unsafe extern "C" fn(fn(#(#shim_tys),*), #(#head_tys,)* #(#call_tys),*) =
                    ::core::mem::transmute(__enzyme_entry as unsafe extern "C" fn());
                __entry(__shim, #(#head_args,)* #(#call_args),*);
            }
            #primal_binding
            #(#after)*
            #ret_expr
        }
    })
}

/// The shim's parameter(s) for `p`, the entry point's arguments (marker,
/// value, shadows), and the derivative's extra parameters or results.
fn lower_param(mode: Mode, width: usize, p: &Param, x: &mut Expansion) {
    if let Shape::Str { mutable } = p.shape {
        // Its bytes, as a `[u8]` (constant, hinted to hold integers), rebuilt as a `str`.
        let bytes = Param {
            expr: p.expr.clone(),
            decl: p.decl.clone(),
            ty: p.ty.clone(),
            shape: Shape::Slice { mutable, elem: syn::parse_quote!(u8) },
            act: p.act,
            span: p.span,
            shadow: p.shadow.clone(),
        };
        lower_param(mode, width, &bytes, x);
        let slice = x.rebuilt.pop().expect("a slice is rebuilt");
        x.rebuilt.push(if mutable {
            quote!(unsafe { ::core::str::from_utf8_unchecked_mut(#slice) })
        } else {
            quote!(unsafe { ::core::str::from_utf8_unchecked(#slice) })
        });
        return;
    }
    let (expr, ty) = (&p.expr, &p.ty);
    // The primal parameter, followed by its shadows or tangents.
    x.d_params.push(p.decl.clone());
    let arg = format_ident!("__a{}", x.shim_params.len());
    let lanes = lane_names(&p.shadow, width);
    match &p.shape {
        Shape::Int => {
            x.shim_params.push(quote!(#arg: #ty));
            x.shim_tys.push(quote!(#ty));
            x.rebuilt.push(quote!(#arg));
            x.marker("enzyme_const");
            x.arg(quote!(#expr), quote!(#ty));
        }
        Shape::Float if p.act == Activity::Const => {
            x.shim_params.push(quote!(#arg: #ty));
            x.shim_tys.push(quote!(#ty));
            x.rebuilt.push(quote!(#arg));
            x.marker("enzyme_const");
            x.arg(quote!(#expr), quote!(#ty));
        }
        Shape::Float | Shape::Value => {
            // By address; the shim reads the value (the derivative forgets
            // its own copy, which the primal consumed).
            x.shim_params.push(quote!(#arg: *const #ty));
            x.shim_tys.push(quote!(*const #ty));
            x.rebuilt.push(quote!(unsafe { ::core::ptr::read(#arg) }));
            let local = format_ident!("__v{}", x.shim_params.len());
            x.before.push(quote!(let #local = ::core::mem::ManuallyDrop::new(#expr);));
            let at = quote!(&*#local as *const #ty);
            match (mode, p.act) {
                (_, Activity::Const) => {
                    x.marker("enzyme_const");
                    x.arg(at, quote!(*const #ty));
                }
                (Mode::Reverse, _) => {
                    // Adjoints accumulate in zeroed slots, returned after the call.
                    x.marker("enzyme_dup");
                    x.arg(at, quote!(*const #ty));
                    let mut outs = Vec::new();
                    for lane in &lanes {
                        x.before.push(quote!(let mut #lane: #ty = unsafe { ::core::mem::zeroed() };));
                        x.arg(quote!(&raw mut #lane), quote!(*mut #ty));
                        outs.push(quote!(#lane));
                    }
                    x.outs.push(lanes_value(&outs));
                    x.out_tys.push(if width == 1 { quote!(#ty) } else { quote!([#ty; #width]) });
                }
                (Mode::Forward, _) => {
                    // Tangents given by value, passed by address.
                    x.marker("enzyme_dup");
                    x.arg(at, quote!(*const #ty));
                    for lane in &lanes {
                        x.d_params.push(quote!(#lane: #ty));
                        x.arg(quote!(&#lane as *const #ty as *mut #ty), quote!(*mut #ty));
                    }
                }
            }
        }
        Shape::Ref { .. } | Shape::RawPtr { .. } => {
            let (raw, mutable, inner) = match &p.shape {
                Shape::Ref { mutable, inner } => (false, mutable, inner.clone()),
                Shape::RawPtr { mutable, inner } => (true, mutable, quote!(#inner)),
                _ => unreachable!("matched above"),
            };
            if raw {
                x.unsafe_fn = true;
            }
            let ptr_ty = if *mutable { quote!(*mut #inner) } else { quote!(*const #inner) };
            x.hint(&arg, &inner);
            x.shim_params.push(quote!(#arg: #ptr_ty));
            x.shim_tys.push(ptr_ty.clone());
            x.rebuilt.push(match (raw, *mutable) {
                (true, _) => quote!(#arg),
                (false, true) => quote!(unsafe { &mut *#arg }),
                (false, false) => quote!(unsafe { &*#arg }),
            });
            let value = match (raw, *mutable) {
                (true, _) => quote!(#expr),
                (false, true) => quote!(&raw mut *#expr),
                (false, false) => quote!(&raw const *#expr),
            };
            if p.act == Activity::Const {
                x.marker("enzyme_const");
                x.arg(value, ptr_ty);
                return;
            }
            x.marker(if p.act == Activity::DuplicatedOnly { "enzyme_dupnoneed" } else { "enzyme_dup" });
            x.arg(value, ptr_ty);
            // Reverse mode: the shadow is `&mut` (adjoints are added into it);
            // forward mode: it has the primal's type (std::autodiff's `Dual`).
            let shadow_mut = mode == Mode::Reverse || *mutable;
            for lane in &lanes {
                let (decl, value) = match (raw, shadow_mut) {
                    (true, true) => (quote!(#lane: *mut #inner), quote!(#lane)),
                    (true, false) => (quote!(#lane: *const #inner), quote!(#lane as *mut #inner)),
                    (false, true) => (quote!(#lane: &mut #inner), quote!(&raw mut *#lane)),
                    (false, false) => (quote!(#lane: &#inner), quote!(&raw const *#lane as *mut #inner)),
                };
                x.d_params.push(decl);
                x.arg(value, quote!(*mut #inner));
            }
        }
        Shape::Str { .. } => unreachable!("lowered as a slice above"),
        Shape::Slice { mutable, elem } => {
            let ptr_ty = if *mutable { quote!(*mut #elem) } else { quote!(*const #elem) };
            let len = format_ident!("{}_len", arg);
            x.hint(&arg, &quote!(#elem));
            x.shim_params.push(quote!(#arg: #ptr_ty));
            x.shim_params.push(quote!(#len: usize));
            x.shim_tys.push(ptr_ty.clone());
            x.shim_tys.push(quote!(usize));
            x.rebuilt.push(if *mutable {
                quote!(unsafe { ::core::slice::from_raw_parts_mut(#arg, #len) })
            } else {
                quote!(unsafe { ::core::slice::from_raw_parts(#arg, #len) })
            });
            let value = if *mutable { quote!(#expr.as_mut_ptr()) } else { quote!(#expr.as_ptr()) };
            if p.act == Activity::Const {
                x.marker("enzyme_const");
                x.arg(value, ptr_ty);
            } else {
                x.marker(if p.act == Activity::DuplicatedOnly { "enzyme_dupnoneed" } else { "enzyme_dup" });
                x.arg(value, ptr_ty);
                let shadow_mut = mode == Mode::Reverse || *mutable;
                for lane in &lanes {
                    let (decl, value) = if shadow_mut {
                        (quote!(#lane: &mut [#elem]), quote!(#lane.as_mut_ptr()))
                    } else {
                        (quote!(#lane: &[#elem]), quote!(#lane.as_ptr() as *mut #elem))
                    };
                    x.d_params.push(decl);
                    x.arg(value, quote!(*mut #elem));
                }
            }
            x.marker("enzyme_const");
            x.arg(quote!(#expr.len()), quote!(usize));
        }
    }
}
