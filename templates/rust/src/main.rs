//! enzyme-rs Rust template: gradients with std::autodiff's attributes on
//! stable Rust. Build and run with `cargo enzyme run`, test with
//! `cargo enzyme test`.
use enzyme::{autodiff_forward, autodiff_reverse};

/// A loss over a slice of parameters.
#[autodiff_reverse(d_loss, Duplicated, Active)]
#[autodiff_forward(t_loss, Dual, Dual)]
fn loss(p: &[f64]) -> f64 {
    p.iter().enumerate().map(|(i, v)| (v - i as f64).powi(2) * (1.0 + v.sin().abs())).sum()
}

fn main() {
    let p = [0.5, 0.8, 2.5];
    let mut dp = [0.0; 3];
    let value = d_loss(&p, &mut dp, 1.0);
    println!("loss = {value:.10}, gradient = {dp:?}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gradient_matches_finite_differences_and_forward_mode() {
        let p = [0.5, 0.8, 2.5];
        let mut dp = [0.0; 3];
        d_loss(&p, &mut dp, 1.0);
        for i in 0..3 {
            let (mut pp, mut pm) = (p, p);
            pp[i] += 1e-6;
            pm[i] -= 1e-6;
            let fd = (loss(&pp) - loss(&pm)) / 2e-6;
            assert!((dp[i] - fd).abs() < 1e-6, "reverse {} vs finite difference {fd}", dp[i]);
            let mut tp = [0.0; 3];
            tp[i] = 1.0;
            let (_, t) = t_loss(&p, &tp);
            assert!((t - dp[i]).abs() < 1e-12, "forward {t} vs reverse {}", dp[i]);
        }
    }
}
