//! The project templates of `cargo enzyme new`, embedded from `templates/`.
//! `{{name}}` becomes the project's name and `{{enzyme_path}}` the path of
//! the `enzyme` crate.

/// A template: its name, what it is, its files, and how to test it.
pub struct Template {
    pub name: &'static str,
    pub about: &'static str,
    pub files: &'static [(&'static str, &'static str)],
    pub test: &'static str,
}

macro_rules! file {
    ($t:literal, $f:literal) => {
        ($f, include_str!(concat!("../../templates/", $t, "/", $f)))
    };
}

pub const TEMPLATES: &[Template] = &[
    Template {
        name: "rust",
        about: "a cargo project using the enzyme crate's #[autodiff_*] macros",
        files: &[file!("rust", "Cargo.toml"), file!("rust", "src/main.rs")],
        test: "cargo enzyme test",
    },
    Template {
        name: "c",
        about: "a C program built with enzyme-cc",
        files: &[file!("c", "Makefile"), file!("c", "main.c")],
        test: "make test",
    },
    Template {
        name: "cpp",
        about: "a C++ program built with enzyme-c++",
        files: &[file!("cpp", "Makefile"), file!("cpp", "main.cpp")],
        test: "make test",
    },
    Template {
        name: "fortran",
        about: "a Fortran program built with enzyme-fortran",
        files: &[file!("fortran", "Makefile"), file!("fortran", "main.f90")],
        test: "make test",
    },
    Template {
        name: "mixed",
        about: "C calling Fortran, differentiated across both",
        files: &[file!("mixed", "Makefile"), file!("mixed", "main.c"), file!("mixed", "kernel.f90")],
        test: "make test",
    },
    Template {
        name: "cmake",
        about: "a CMake project in C and C++",
        files: &[file!("cmake", "CMakeLists.txt"), file!("cmake", "model.c"), file!("cmake", "main.cpp")],
        test: "cmake -B build -DCMAKE_C_COMPILER=enzyme-cc -DCMAKE_CXX_COMPILER=enzyme-c++ && cmake --build build && ctest --test-dir build",
    },
];
