//! `enzyme-cxx`, installed also as `enzyme-c++`: a drop-in C++ compiler that
//! differentiates at link time (cargo does not allow `+` in binary names).
fn main() {
    std::process::exit(driver::run_from_env(driver::Language::Cxx));
}
