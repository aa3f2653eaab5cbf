//! `cargo enzyme`: the cargo subcommand. This first version only reports that
//! Rust support is not there yet, with a clear message and a non-zero exit.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // cargo runs us as `cargo-enzyme enzyme <args>`.
    let args: Vec<&str> = args.iter().map(String::as_str).skip_while(|a| *a == "enzyme").collect();
    match args.first().copied() {
        Some("--version") | Some("-V") => println!("cargo-enzyme {}", env!("CARGO_PKG_VERSION")),
        _ => {
            eprintln!(
                "error: `cargo enzyme` does not build Rust projects yet in this version\n\
                 \x20 = help: C and C++ are supported today through `enzyme-cc` and `enzyme-c++`"
            );
            std::process::exit(2);
        }
    }
}
