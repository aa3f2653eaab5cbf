use enzyme::autodiff_reverse;

#[autodiff_reverse(d_f, Active, Active)]
fn f(x: f32) -> f32 {
    libm::powf(2.0 + x, 1.5)
}

fn main() {
    let (y, dx) = d_f(0.5, 1.0);
    println!("{y} {dx}");
}
