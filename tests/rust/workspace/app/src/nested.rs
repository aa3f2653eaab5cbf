//! Higher order in Rust: a `#[autodiff_forward]` function whose body calls
//! a `#[autodiff_reverse]` derivative (forward over reverse), and a
//! `#[autodiff_reverse]` over a `#[autodiff_forward]` derivative (reverse
//! over forward): second derivatives against the closed form.
use enzyme::{autodiff_forward, autodiff_reverse};

#[autodiff_reverse(d_g, Active, Active)]
#[autodiff_forward(t_g, Dual, Dual)]
fn g(x: f64) -> f64 {
    let mut s = 0.0;
    for k in 1..4 {
        s += (x * k as f64).sin() / k as f64;
    }
    s * x
}

// g' by reverse mode, differentiated in forward mode.
#[autodiff_forward(t_dg, Dual, Dual)]
fn dg(x: f64) -> f64 {
    d_g(x, 1.0).1
}

// g' by forward mode, differentiated in reverse mode.
#[autodiff_reverse(d_tg, Active, Active)]
fn tg(x: f64) -> f64 {
    t_g(x, 1.0).1
}

/// g'' in closed form: g = x Σ sin(kx)/k.
fn g2(x: f64) -> f64 {
    (1..4).map(|k| {
        let k = k as f64;
        2.0 * (k * x).cos() - x * k * (k * x).sin()
    })
    .sum()
}

/// Checks them through `check(what, got, want, tolerance)`.
pub fn check_all(check: &mut dyn FnMut(&str, f64, f64, f64)) {
    for x in [-0.7, 0.4, 1.9] {
        let (_, fr) = t_dg(x, 1.0);
        check("forward over reverse vs closed form", fr, g2(x), 1e-12);
        let (_, rf) = d_tg(x, 1.0);
        check("reverse over forward vs closed form", rf, g2(x), 1e-12);
    }
}
