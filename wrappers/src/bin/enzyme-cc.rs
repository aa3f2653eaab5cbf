//! `enzyme-cc`: a drop-in C compiler that differentiates at link time.
fn main() {
    std::process::exit(driver::run_from_env(driver::Language::C));
}
