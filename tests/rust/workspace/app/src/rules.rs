//! `#[inactive]`, `#[custom_forward]` and `#[custom_reverse]`: a logging
//! call that must carry no derivative, and a function whose body the engine
//! cannot differentiate (float bits through `to_bits`) given derivatives of
//! its own; both modes, in a loop, against closed forms and finite differences.
use enzyme::{autodiff_forward, autodiff_reverse, custom_forward, custom_reverse, inactive};
use std::sync::atomic::{AtomicUsize, Ordering};

static CALLS: AtomicUsize = AtomicUsize::new(0);

/// Counts and scales: inactive, so its result is a constant to derivatives.
#[inactive]
fn log_value(x: f64) -> f64 {
    CALLS.fetch_add(1, Ordering::Relaxed);
    x * 1000.0
}

/// 1/sqrt(x) by the bit trick and Newton steps.
#[custom_forward(rsqrt_fwd)]
#[custom_reverse(rsqrt_aug, rsqrt_rev)]
fn rsqrt(x: f64) -> f64 {
    let i = 0x5fe6eb50c7b537a9u64 - (x.to_bits() >> 1);
    let mut y = f64::from_bits(i);
    for _ in 0..5 {
        y *= 1.5 - 0.5 * x * y * y;
    }
    y
}
fn rsqrt_fwd(x: f64, dx: f64) -> (f64, f64) {
    let y = rsqrt(x);
    (y, -0.5 * y / x * dx)
}
fn rsqrt_aug(x: f64) -> f64 {
    rsqrt(x)
}
fn rsqrt_rev(x: f64, dy: f64) -> f64 {
    -0.5 * rsqrt(x) / x * dy
}

#[autodiff_reverse(d_uses, Active, Active)]
#[autodiff_forward(t_uses, Dual, Dual)]
fn uses(x: f64) -> f64 {
    let mut s = 0.0;
    for k in 1..4 {
        let kf = k as f64;
        s += rsqrt(x * kf + 1.0) * x + log_value(x) * 0.0 + log_value(x * kf).sin();
    }
    s
}

/// The same without the trick, for finite differences: the inactive term is
/// a constant to derivatives, so it is left out of the closed form.
fn closed(x: f64) -> f64 {
    (1..4)
        .map(|k| {
            let q = x * k as f64 + 1.0;
            q.powf(-0.5) - 0.5 * x * k as f64 * q.powf(-1.5)
        })
        .sum()
}

/// Checks them through `check(what, got, want, tolerance)`.
pub fn check_all(check: &mut dyn FnMut(&str, f64, f64, f64)) {
    for x in [0.3, 1.1, 2.6] {
        CALLS.store(0, Ordering::Relaxed);
        let (y, dx) = d_uses(x, 1.0);
        check("custom rules primal", y, uses(x), 1e-12);
        check("custom rules + inactive: reverse vs closed form", dx, closed(x), 1e-9);
        let (_, t) = t_uses(x, 1.0);
        check("custom rules + inactive: forward vs reverse", t, dx, 1e-12);
        // Six calls per evaluation of `uses`, three evaluations: d_uses and
        // t_uses each run `uses` once (the primal they return comes from
        // that run), and `uses` itself.
        check("inactive calls ran once per evaluation", CALLS.load(Ordering::Relaxed) as f64, 18.0, 0.0);
    }
}
