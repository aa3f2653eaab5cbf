//! `enzyme-fortran`: a drop-in Fortran compiler (over flang 22) that
//! differentiates at link time.
fn main() {
    std::process::exit(driver::run_from_env(driver::Language::Fortran));
}
