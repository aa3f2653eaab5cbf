//! `#[autodiff_reverse]` and `#[autodiff_forward]`: std::autodiff's attribute
//! macros on stable Rust, expanded into calls of Enzyme's C entry points that
//! the enzyme-rs linker (run by `cargo enzyme`) replaces with derivatives.
//!
//! For `#[autodiff_reverse(df, Active, Active)] fn f(x: f64) -> f64` the
//! expansion keeps `f`, adds a C-ABI shim over it (its parameters lowered to
//! floats, integers and pointers, slices as pointer and length), and defines
//! `df(x, seed) -> (f64, f64)` calling `__enzyme_autodiff…(shim, …)` with
//! Enzyme's activity markers. The entry point's symbol name says to build with
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

/// What a parameter or result is, as far as the C ABI goes.
enum Shape {
    Float(Type),
    Int,
    /// `&T` / `&mut T` of a sized `T`.
    Ref {
        mutable: bool,
        inner: Type,
    },
    /// `&[E]` / `&mut [E]`.
    Slice {
        mutable: bool,
        elem: Type,
    },
}

fn shape(t: &Type) -> Option<Shape> {
    match t {
        Type::Path(p) if p.qself.is_none() => {
            let name = p.path.get_ident()?.to_string();
            match name.as_str() {
                "f32" | "f64" => Some(Shape::Float(t.clone())),
                "i8" | "i16" | "i32" | "i64" | "isize" | "u8" | "u16" | "u32" | "u64" | "usize" => Some(Shape::Int),
                _ => None,
            }
        }
        Type::Reference(r) => {
            let mutable = r.mutability.is_some();
            match &*r.elem {
                Type::Slice(s) => Some(Shape::Slice { mutable, elem: (*s.elem).clone() }),
                inner => Some(Shape::Ref { mutable, inner: inner.clone() }),
            }
        }
        _ => None,
    }
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

fn err(span: Span, msg: impl std::fmt::Display) -> TokenStream {
    syn::Error::new(span, msg).to_compile_error().into()
}

fn expand(mode: Mode, attr: TokenStream, item: TokenStream) -> TokenStream {
    let f = parse_macro_input!(item as ItemFn);
    let args = parse_macro_input!(attr with Punctuated::<Expr, Token![,]>::parse_terminated);
    match expand_inner(mode, args, f) {
        Ok(t) => t.into(),
        Err(e) => e,
    }
}

fn expand_inner(mode: Mode, args: Punctuated<Expr, Token![,]>, f: ItemFn) -> Result<Tokens, TokenStream> {
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
    if !f.sig.generics.params.is_empty() {
        return Err(err(f.sig.generics.span(), "generic functions cannot be differentiated yet"));
    }
    let ret_ty: Option<Type> = match &f.sig.output {
        ReturnType::Default => None,
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

    // Parameters: names, types, shapes.
    let mut params = Vec::new();
    for (k, a) in f.sig.inputs.iter().enumerate() {
        let FnArg::Typed(pt) = a else {
            return Err(err(a.span(), "methods (`self`) cannot be differentiated yet; write a free function"));
        };
        let pname = match &*pt.pat {
            Pat::Ident(i) => i.ident.clone(),
            _ => format_ident!("arg{k}"),
        };
        let Some(s) = shape(&pt.ty) else {
            return Err(err(
                pt.ty.span(),
                "parameters must be `f32`/`f64`, integers, or references (`&T`, `&mut T`, `&[T]`, `&mut [T]`)",
            ));
        };
        params.push((pname, (*pt.ty).clone(), s, activities[k]));
    }
    let ret_shape = match &ret_ty {
        None => None,
        Some(t) => match shape(t) {
            Some(s @ (Shape::Float(_) | Shape::Int)) => Some(s),
            _ => return Err(err(t.span(), "results must be `f32`, `f64` or an integer")),
        },
    };

    // Activity against shape.
    for (pname, _, s, (act, span)) in &params {
        let ok = match (s, act) {
            (_, Activity::Const) => true,
            (Shape::Float(_), Activity::Active | Activity::Dual | Activity::DualOnly) => true,
            (Shape::Ref { .. } | Shape::Slice { .. }, a) => {
                matches!(a, Activity::Duplicated | Activity::DuplicatedOnly | Activity::Dual | Activity::DualOnly)
            }
            _ => false,
        };
        if !ok {
            return Err(err(*span, format!("activity `{act:?}` does not fit parameter `{pname}`")));
        }
    }
    if let (Some(Shape::Int), Some(a)) = (&ret_shape, ret_act) {
        if a != Activity::Const {
            return Err(err(ret_ty.span(), "an integer result has no derivative: mark it `Const`"));
        }
    }

    let fname = &f.sig.ident;
    let vis = &f.vis;
    let shim = format_ident!("__enzyme_primal_{}", name);

    // The C-ABI shim over `f`.
    let mut shim_params = Vec::new();
    let mut shim_tys = Vec::new();
    let mut rebuilt = Vec::new();
    for (pname, ty, s, _) in &params {
        match s {
            Shape::Float(_) | Shape::Int => {
                shim_params.push(quote!(#pname: #ty));
                shim_tys.push(quote!(#ty));
                rebuilt.push(quote!(#pname));
            }
            Shape::Ref { mutable, inner } => {
                let pt = if *mutable { quote!(*mut #inner) } else { quote!(*const #inner) };
                shim_params.push(quote!(#pname: #pt));
                shim_tys.push(pt);
                rebuilt.push(if *mutable { quote!(unsafe { &mut *#pname }) } else { quote!(unsafe { &*#pname }) });
            }
            Shape::Slice { mutable, elem } => {
                let pt = if *mutable { quote!(*mut #elem) } else { quote!(*const #elem) };
                let len = format_ident!("{}_len", pname);
                shim_params.push(quote!(#pname: #pt, #len: usize));
                shim_tys.push(pt);
                shim_tys.push(quote!(usize));
                rebuilt.push(if *mutable {
                    quote!(unsafe { ::core::slice::from_raw_parts_mut(#pname, #len) })
                } else {
                    quote!(unsafe { ::core::slice::from_raw_parts(#pname, #len) })
                });
            }
        }
    }
    let ret_tokens = match &ret_ty {
        Some(t) => quote!(-> #t),
        None => quote!(),
    };

    // The derivative's parameters and the entry point's arguments.
    let mut d_params = Vec::new();
    let mut call_args = Vec::new();
    let mut call_tys = Vec::new();
    let mut grads: Vec<Type> = Vec::new();
    let marker = |m: &str| {
        let id = Ident::new(m, Span::call_site());
        quote!(&raw const #id)
    };
    let marker_ty = quote!(*const ::core::ffi::c_int);
    let mut mutates = false;
    for (pname, ty, s, (act, _)) in &params {
        let shadow = format_ident!("d{}", pname);
        match s {
            Shape::Float(t) => {
                d_params.push(quote!(#pname: #ty));
                match act {
                    Activity::Const => {
                        call_args.push(marker("enzyme_const"));
                        call_tys.push(marker_ty.clone());
                        call_args.push(quote!(#pname));
                        call_tys.push(quote!(#ty));
                    }
                    Activity::Active | Activity::ActiveOnly => {
                        call_args.push(marker("enzyme_out"));
                        call_tys.push(marker_ty.clone());
                        call_args.push(quote!(#pname));
                        call_tys.push(quote!(#ty));
                        grads.push(t.clone());
                    }
                    _ => {
                        // Forward: the tangent follows (one per lane).
                        call_args.push(marker("enzyme_dup"));
                        call_tys.push(marker_ty.clone());
                        call_args.push(quote!(#pname));
                        call_tys.push(quote!(#ty));
                        for lane in lane_names(&shadow, width) {
                            d_params.push(quote!(#lane: #ty));
                            call_args.push(quote!(#lane));
                            call_tys.push(quote!(#ty));
                        }
                    }
                }
            }
            Shape::Int => {
                d_params.push(quote!(#pname: #ty));
                call_args.push(marker("enzyme_const"));
                call_tys.push(marker_ty.clone());
                call_args.push(quote!(#pname));
                call_tys.push(quote!(#ty));
            }
            Shape::Ref { mutable, inner } | Shape::Slice { mutable, elem: inner } => {
                let slice = matches!(s, Shape::Slice { .. });
                mutates |= *mutable;
                d_params.push(quote!(#pname: #ty));
                // Reverse mode: the shadow is `&mut` (adjoints are added into it).
                // Forward mode: it has the primal's type (std::autodiff's `Dual`).
                let shadow_mut = mode == Mode::Reverse || *mutable;
                let (ptr, ptr_ty) = match (slice, *mutable) {
                    (true, false) => (quote!(#pname.as_ptr()), quote!(*const #inner)),
                    (true, true) => (quote!(#pname.as_mut_ptr()), quote!(*mut #inner)),
                    (false, false) => (quote!(#pname as *const #inner), quote!(*const #inner)),
                    (false, true) => (quote!(#pname as *mut #inner), quote!(*mut #inner)),
                };
                let shadow_ptr = |shadow: &Ident| match (slice, shadow_mut) {
                    (true, true) => quote!(#shadow.as_mut_ptr()),
                    (true, false) => quote!(#shadow.as_ptr() as *mut #inner),
                    (false, true) => quote!(#shadow as *mut #inner),
                    (false, false) => quote!(#shadow as *const #inner as *mut #inner),
                };
                if *act == Activity::Const {
                    call_args.push(marker("enzyme_const"));
                    call_tys.push(marker_ty.clone());
                    call_args.push(ptr);
                    call_tys.push(ptr_ty.clone());
                } else {
                    let shadow_ty = match (slice, shadow_mut) {
                        (true, true) => quote!(&mut [#inner]),
                        (true, false) => quote!(&[#inner]),
                        (false, true) => quote!(&mut #inner),
                        (false, false) => quote!(&#inner),
                    };
                    let m = if matches!(act, Activity::DuplicatedOnly) { "enzyme_dupnoneed" } else { "enzyme_dup" };
                    call_args.push(marker(m));
                    call_tys.push(marker_ty.clone());
                    call_args.push(ptr);
                    call_tys.push(ptr_ty.clone());
                    for lane in lane_names(&shadow, width) {
                        d_params.push(quote!(#lane: #shadow_ty));
                        call_args.push(shadow_ptr(&lane));
                        call_tys.push(quote!(*mut #inner));
                    }
                }
                if slice {
                    call_args.push(marker("enzyme_const"));
                    call_tys.push(marker_ty.clone());
                    call_args.push(quote!(#pname.len()));
                    call_tys.push(quote!(usize));
                }
            }
        }
    }
    let primal_args: Vec<Tokens> = params.iter().map(|(p, ..)| quote!(#p)).collect();
    // Whether `df` returns the primal result, computed by calling `f` itself.
    let wants_primal = matches!(ret_act, Some(Activity::Active | Activity::Const | Activity::Dual));
    if wants_primal && mutates {
        return Err(err(
            f.sig.span(),
            "returning the primal result of a function that mutates its arguments is not supported yet; \
             use `ActiveOnly`/`DualOnly` (or `Const`) for the result",
        ));
    }

    // Vector mode: `enzyme_width, N` first.
    let width_args = if width > 1 {
        let (m, w) = (marker("enzyme_width"), width as i32);
        vec![quote!(#m, #w,)]
    } else {
        Vec::new()
    };
    let entry = match mode {
        Mode::Reverse => format!("__enzyme_autodiff__build_with_cargo_enzyme__{name}"),
        Mode::Forward => format!("__enzyme_fwddiff__build_with_cargo_enzyme__{name}"),
    };
    let entry_fn = format_ident!("__enzyme_entry_{}", name);
    let grads_struct = format_ident!("__EnzymeGradients_{}", name);
    let mut extra_items = quote!();
    let (entry_ret, body) = match mode {
        Mode::Reverse => {
            let seeded = matches!(ret_act, Some(Activity::Active | Activity::ActiveOnly));
            if seeded {
                // One seed per lane.
                let t = ret_ty.as_ref().unwrap();
                for seed in lane_names(&format_ident!("seed"), width) {
                    d_params.push(quote!(#seed: #t));
                    call_args.push(quote!(#seed));
                    call_tys.push(quote!(#t));
                }
            }
            // Vector mode: each active float's adjoints, one per lane, as an
            // array `[T; N]` (lane `l` of the `k`th at field `k * N + l`).
            if width > 1 && !grads.is_empty() {
                let wide = (0..grads.len() * width).map(|_| quote!(f64));
                extra_items = quote! {
                    #[repr(C)]
                    #[allow(non_camel_case_types)]
                    struct #grads_struct(#(#wide),*);
                };
            }
            let lanes_of = |k: usize, g: &Type| {
                let fields = (0..width).map(|l| syn::Index::from(k * width + l));
                quote!([#(__g.#fields as #g),*])
            };
            let (entry_ret, grads_expr): (Tokens, Vec<Tokens>) = match grads.len() {
                _ if width > 1 && !grads.is_empty() => {
                    (quote!(-> #grads_struct), grads.iter().enumerate().map(|(k, g)| lanes_of(k, g)).collect())
                }
                0 => (quote!(), vec![]),
                1 => {
                    let g = &grads[0];
                    (quote!(-> #g), vec![quote!(__g)])
                }
                n => {
                    // Every field is an f64, whatever the parameter's type:
                    // Rust's C ABI returns a struct mixing f32 and f64 with
                    // the f32 in the low half of a double register, which an
                    // engine filling fields by type would widen instead. The
                    // engine converts each adjoint to f64 (exact), and the
                    // conversion back to f32 is exact too.
                    let wide = (0..n).map(|_| quote!(f64));
                    extra_items = quote! {
                        #[repr(C)]
                        #[allow(non_camel_case_types)]
                        struct #grads_struct(#(#wide),*);
                    };
                    let outs = grads.iter().enumerate().map(|(k, g)| {
                        let k = syn::Index::from(k);
                        quote!(__g.#k as #g)
                    });
                    (quote!(-> #grads_struct), outs.collect())
                }
            };
            let primal = wants_primal.then(|| quote!(#fname(#(#primal_args),*)));
            let outs: Vec<Tokens> = primal.into_iter().chain(grads_expr).collect();
            let ret = match outs.len() {
                0 => quote!(()),
                1 => outs[0].clone(),
                _ => quote!((#(#outs),*)),
            };
            let mut out_tys: Vec<Tokens> = Vec::new();
            if wants_primal {
                out_tys.push(quote!(#ret_ty));
            }
            out_tys.extend(grads.iter().map(|g| if width > 1 { quote!([#g; #width]) } else { quote!(#g) }));
            let d_ret = match out_tys.len() {
                0 => quote!(),
                1 => {
                    let t = &out_tys[0];
                    quote!(-> #t)
                }
                _ => quote!(-> (#(#out_tys),*)),
            };
            (
                entry_ret,
                (
                    d_ret,
                    quote! {
                        #[allow(clippy::let_unit_value)]
                        let __g = unsafe { #entry_fn(#shim, #(#width_args)* #(#call_args),*) };
                        #ret
                    },
                ),
            )
        }
        Mode::Forward if width > 1 => {
            // std::autodiff's shapes: `[R; N]` (DualOnly) or `[R; N + 1]`,
            // the primal first (Dual). The entry point returns the lanes as
            // a C struct of f64 (see the reverse-mode note on mixed widths).
            let dual = matches!(ret_act, Some(Activity::Dual | Activity::DualOnly));
            if dual {
                let wide = (0..width).map(|_| quote!(f64));
                extra_items = quote! {
                    #[repr(C)]
                    #[allow(non_camel_case_types)]
                    struct #grads_struct(#(#wide),*);
                };
            }
            let t = &ret_ty;
            let lanes: Vec<Tokens> = (0..width)
                .map(|k| {
                    let k = syn::Index::from(k);
                    quote!(__t.#k as #t)
                })
                .collect();
            let (entry_ret, d_ret, ret) = match ret_act {
                Some(Activity::Dual) => {
                    let n = width + 1;
                    (quote!(-> #grads_struct), quote!(-> [#t; #n]), quote!([#fname(#(#primal_args),*), #(#lanes),*]))
                }
                Some(Activity::DualOnly) => (quote!(-> #grads_struct), quote!(-> [#t; #width]), quote!([#(#lanes),*])),
                Some(_) => (quote!(), quote!(-> #t), quote!(#fname(#(#primal_args),*))),
                None => (quote!(), quote!(), quote!(())),
            };
            (
                entry_ret,
                (
                    d_ret,
                    quote! {
                        #[allow(clippy::let_unit_value)]
                        let __t = unsafe { #entry_fn(#shim, #(#width_args)* #(#call_args),*) };
                        #ret
                    },
                ),
            )
        }
        Mode::Forward => {
            let dual = matches!(ret_act, Some(Activity::Dual | Activity::DualOnly));
            let entry_ret = if dual { quote!(#ret_tokens) } else { quote!() };
            let t = &ret_ty;
            let (d_ret, ret) = match ret_act {
                Some(Activity::Dual) => (quote!(-> (#t, #t)), quote!((#fname(#(#primal_args),*), __t))),
                Some(Activity::DualOnly) => (quote!(-> #t), quote!(__t)),
                Some(_) => (quote!(-> #t), quote!(#fname(#(#primal_args),*))),
                None => (quote!(), quote!(())),
            };
            (
                entry_ret,
                (
                    d_ret,
                    quote! {
                        let __t = unsafe { #entry_fn(#shim, #(#call_args),*) };
                        #ret
                    },
                ),
            )
        }
    };
    let (d_ret, d_body) = body;
    // Vector mode: `enzyme_width, N` first.
    let width_tys = if width > 1 { vec![quote!(_: #marker_ty, _: i32,)] } else { Vec::new() };
    let mut primal = f.clone();
    primal.attrs.push(syn::parse_quote!(#[inline(never)]));
    // Everything but `f` and the derivative lives inside the derivative's
    // body, so several derivatives in one module do not collide.
    Ok(quote! {
        #primal

        #[allow(clippy::too_many_arguments)]
        #vis fn #name(#(#d_params),*) #d_ret {
            #[allow(non_snake_case)]
            extern "C" fn #shim(#(#shim_params),*) #ret_tokens {
                #fname(#(#rebuilt),*)
            }

            #extra_items

            #[allow(non_upper_case_globals, dead_code)]
            unsafe extern "C" {
                static enzyme_dup: ::core::ffi::c_int;
                static enzyme_dupnoneed: ::core::ffi::c_int;
                static enzyme_const: ::core::ffi::c_int;
                static enzyme_out: ::core::ffi::c_int;
                static enzyme_width: ::core::ffi::c_int;
                #[link_name = #entry]
                fn #entry_fn(f: extern "C" fn(#(#shim_tys),*) #ret_tokens, #(#width_tys)* #(_: #call_tys),*) #entry_ret;
            }

            #d_body
        }
    })
}
