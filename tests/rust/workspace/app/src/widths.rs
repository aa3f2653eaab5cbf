//! Every mix of `f32` and `f64` parameters and results, in both modes: the
//! adjoints come back in a struct whose C layout mixes widths (with padding
//! after an `f32`), which must not be confused with the fields' values.
use enzyme::{autodiff_forward, autodiff_reverse};

// g(a, b) = sin(a) b² + a/2, computed in f64, returned as R.
macro_rules! two_params {
    ($f:ident, $d:ident, $t:ident, $A:ident, $B:ident, $R:ident) => {
        #[autodiff_reverse($d, Active, Active, Active)]
        #[autodiff_forward($t, Dual, Dual, Dual)]
        fn $f(a: $A, b: $B) -> $R {
            let (a, b) = (a as f64, b as f64);
            (a.sin() * b * b + a * 0.5) as $R
        }
    };
}

two_params!(g_ddd, d_g_ddd, t_g_ddd, f64, f64, f64);
two_params!(g_ddf, d_g_ddf, t_g_ddf, f64, f64, f32);
two_params!(g_dfd, d_g_dfd, t_g_dfd, f64, f32, f64);
two_params!(g_dff, d_g_dff, t_g_dff, f64, f32, f32);
two_params!(g_fdd, d_g_fdd, t_g_fdd, f32, f64, f64);
two_params!(g_fdf, d_g_fdf, t_g_fdf, f32, f64, f32);
two_params!(g_ffd, d_g_ffd, t_g_ffd, f32, f32, f64);
two_params!(g_fff, d_g_fff, t_g_fff, f32, f32, f32);

// Three adjoints (returned through memory): f32, f64, f32.
#[autodiff_reverse(d_three, Active, Active, Active, Active)]
#[autodiff_forward(t_three, Dual, Dual, Dual, Dual)]
fn three(a: f32, b: f64, c: f32) -> f64 {
    (a as f64) * b + (c as f64) * (c as f64) * b.exp()
}

/// Checks all of them through `check(what, got, want, tolerance)`.
pub fn check_all(check: &mut dyn FnMut(&str, f64, f64, f64)) {
    let (a, b) = (0.7f64, -1.3f64);
    let da = a.cos() * b * b + 0.5;
    let db = 2.0 * a.sin() * b;
    // A float anywhere in the computation limits the agreement to float precision.
    macro_rules! case {
        ($name:literal, $d:ident, $t:ident, $A:ident, $B:ident, $R:ident, $tol:expr) => {{
            let (y, ga, gb) = $d(a as $A, b as $B, 1.0 as $R);
            let (a2, b2) = (a as $A as f64, b as $B as f64);
            let want_y = a2.sin() * b2 * b2 + a2 * 0.5;
            check(concat!($name, " primal"), y as f64, want_y, $tol);
            check(concat!($name, " reverse d/da"), ga as f64, da, $tol);
            check(concat!($name, " reverse d/db"), gb as f64, db, $tol);
            let (_, ta) = $t(a as $A, 1.0 as $A, b as $B, 0.0 as $B);
            let (_, tb) = $t(a as $A, 0.0 as $A, b as $B, 1.0 as $B);
            check(concat!($name, " forward d/da vs reverse"), ta as f64, ga as f64, $tol);
            check(concat!($name, " forward d/db vs reverse"), tb as f64, gb as f64, $tol);
        }};
    }
    case!("(f64, f64) -> f64", d_g_ddd, t_g_ddd, f64, f64, f64, 1e-12);
    case!("(f64, f64) -> f32", d_g_ddf, t_g_ddf, f64, f64, f32, 1e-5);
    case!("(f64, f32) -> f64", d_g_dfd, t_g_dfd, f64, f32, f64, 1e-5);
    case!("(f64, f32) -> f32", d_g_dff, t_g_dff, f64, f32, f32, 1e-5);
    case!("(f32, f64) -> f64", d_g_fdd, t_g_fdd, f32, f64, f64, 1e-5);
    case!("(f32, f64) -> f32", d_g_fdf, t_g_fdf, f32, f64, f32, 1e-5);
    case!("(f32, f32) -> f64", d_g_ffd, t_g_ffd, f32, f32, f64, 1e-5);
    case!("(f32, f32) -> f32", d_g_fff, t_g_fff, f32, f32, f32, 1e-5);

    let (a, b, c) = (0.5f32, 0.25f64, -2.0f32);
    let (y, ga, gb, gc) = d_three(a, b, c, 1.0);
    let (a2, c2) = (a as f64, c as f64);
    check("three primal", y, a2 * b + c2 * c2 * b.exp(), 1e-12);
    check("three reverse d/da", ga as f64, b, 1e-6);
    check("three reverse d/db", gb, a2 + c2 * c2 * b.exp(), 1e-12);
    check("three reverse d/dc", gc as f64, 2.0 * c2 * b.exp(), 1e-6);
    let (_, tb) = t_three(a, 0.0, b, 1.0, c, 0.0);
    let (_, tc) = t_three(a, 0.0, b, 0.0, c, 1.0);
    check("three forward d/db vs reverse", tb, gb, 1e-12);
    check("three forward d/dc vs reverse", tc, gc as f64, 1e-6);
}
