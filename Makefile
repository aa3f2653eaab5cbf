# enzyme-rs: compiler automatic differentiation, driven from Rust.
#
#   make demo    install what is missing, build and install the tools, run the demo
#   make test    the same install, then the whole test suite
#   make fuzz    the differential tester at length (random programs)
#
# Needs root (or sudo) for apt-get and for installing into PREFIX.

PREFIX ?= /usr/local
CARGO ?= cargo
LLVM_PREFIX = /usr/lib/llvm-22
DEB_PACKAGES = llvm-22-dev clang-22 libclang-22-dev lld-22 flang-22 libomp-22-dev libpolly-22-dev libzstd-dev \
  libclang-rt-22-dev mpich libmpich-dev cmake make valgrind libblas-dev liblapack-dev liblapacke-dev
BENCH_PACKAGES = libadolc-dev python3-venv
export LLVM_SYS_221_PREFIX ?= $(LLVM_PREFIX)

.PHONY: all deps apt-install build install demo test bench fuzz clean

all: build

# Debian packages: installed only when missing.
deps:
	@$(MAKE) -s apt-install PACKAGES="$(DEB_PACKAGES)"
	@command -v $(CARGO) >/dev/null || { echo "error: cargo not found; install Rust 1.95 (rustup) first"; exit 1; }

apt-install:
	@missing=""; for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps target/enzyme-rs-plugin.so target/enzyme-rs-rules.bc target/enzyme-rs-rules-fortran.bc \
  target/enzyme-rs-rules-mpi.bc
	$(CARGO) build --release --locked -p enzyme-wrappers -p cargo-enzyme

# The clang plugin (Enzyme's attributes, registered functions kept out of
# line until differentiation), against clang 22's own headers.
target/enzyme-rs-plugin.so: wrappers/plugin/enzyme_rs_plugin.cpp | deps
	mkdir -p target
	$(LLVM_PREFIX)/bin/clang++ -shared -fPIC -O2 -fno-rtti $$($(LLVM_PREFIX)/bin/llvm-config --cxxflags) \
	  -I/usr/include/llvm-22 $< -o $@

# Derivative rules for library functions (BLAS, qsort), as one bitcode file
# that enzyme-cc links where needed. Compiled as enzyme-cc compiles a
# program's own code: some are bodies the engine differentiates
# (LAPACKE_dpotrf's layout logic), and loops unrolled or vectorised before
# differentiation only make larger derivatives (lapacke.c's built in 0.72 s
# instead of 0.94); the post-AD pipeline unrolls and vectorises them after.
RULES_CFLAGS := -O2 -flto -fno-vectorize -fno-slp-vectorize -fno-unroll-loops
RULES := $(wildcard wrappers/rules/*.c)
target/enzyme-rs-rules.bc: $(RULES) $(wildcard wrappers/rules/*.h) Makefile | deps
	mkdir -p target/rules
	for f in $(RULES); do \
	  $(LLVM_PREFIX)/bin/clang $(RULES_CFLAGS) -c -emit-llvm $$f -o target/rules/$$(basename $$f .c).bc || exit 1; \
	done
	$(LLVM_PREFIX)/bin/llvm-link $(patsubst wrappers/rules/%.c,target/rules/%.bc,$(RULES)) -o $@

# The Fortran routines as flang calls them (hidden string lengths): their
# declarations differ from the C ones above, so they are a bitcode file of their own.
target/enzyme-rs-rules-fortran.bc: $(wildcard wrappers/rules/fortran/*.c) $(wildcard wrappers/rules/*.h) Makefile | deps
	mkdir -p target/rules
	$(LLVM_PREFIX)/bin/clang $(RULES_CFLAGS) -c -emit-llvm wrappers/rules/fortran/blas.c -o $@

# MPI communication's derivatives, against MPICH's headers (a deps package):
# linked only into programs that call MPI. fortran.c (the Fortran bindings'
# rules) includes mpi.c (the C bindings'), whose rules it calls.
target/enzyme-rs-rules-mpi.bc: $(wildcard wrappers/rules/mpi/*.c) $(wildcard wrappers/rules/mpi/*.h) Makefile | deps
	mkdir -p target/rules
	$(LLVM_PREFIX)/bin/clang $(RULES_CFLAGS) -c -emit-llvm -I/usr/include/x86_64-linux-gnu/mpich wrappers/rules/mpi/fortran.c -o $@

install: build
	install -d $(PREFIX)/bin $(PREFIX)/include/enzyme $(PREFIX)/lib/enzyme-rs
	install -m 755 target/enzyme-rs-plugin.so $(PREFIX)/lib/enzyme-rs/
	install -m 644 target/enzyme-rs-rules.bc target/enzyme-rs-rules-fortran.bc target/enzyme-rs-rules-mpi.bc \
	  $(PREFIX)/lib/enzyme-rs/
	install -m 755 target/release/enzyme-cc target/release/enzyme-cxx target/release/enzyme-fortran \
	  target/release/cargo-enzyme $(PREFIX)/bin/
	ln -sf enzyme-cxx $(PREFIX)/bin/enzyme-c++
	# LLVM 22's archiver under names build systems find next to enzyme-cc
	# (CMake looks for enzyme-llvm-ar first): an older llvm-ar cannot read our bitcode.
	for t in ar llvm-ar; do ln -sf $(LLVM_PREFIX)/bin/llvm-ar $(PREFIX)/bin/enzyme-$$t; done
	for t in ranlib llvm-ranlib; do ln -sf $(LLVM_PREFIX)/bin/llvm-ranlib $(PREFIX)/bin/enzyme-$$t; done
	install -m 644 wrappers/include/enzyme/enzyme.h wrappers/include/enzyme/checkpoint.h wrappers/include/enzyme/enzyme wrappers/include/enzyme/enzyme.f90 $(PREFIX)/include/enzyme/
	# The enzyme crate's sources, for Rust projects (`cargo enzyme new` points at them).
	for c in enzyme enzyme-macros; do install -d $(PREFIX)/share/enzyme-rs/crates/$$c/src && \
	  install -m 644 $$c/Cargo.toml $(PREFIX)/share/enzyme-rs/crates/$$c/ && \
	  install -m 644 $$c/src/*.rs $(PREFIX)/share/enzyme-rs/crates/$$c/src/; done
	# The Fortran module, compiled for flang 22 (`use enzyme`).
	$(LLVM_PREFIX)/bin/flang -fsyntax-only -J $(PREFIX)/include/enzyme wrappers/include/enzyme/enzyme.f90

demo: install
	$(MAKE) -s -C templates/c CC=$(PREFIX)/bin/enzyme-cc clean run

# The peers' packages too (ADOL-C; JAX comes from PyPI on first use).
bench: install
	@$(MAKE) -s apt-install PACKAGES="$(BENCH_PACKAGES)"
	PATH=$(PREFIX)/bin:$$PATH bench/run.sh

test: install
	PATH=$(PREFIX)/bin:$$PATH CARGO=$(CARGO) tests/run-all.sh

# The differential tester at length: FUZZ_PROGRAMS programs of 10 random
# functions each (default 300, about 10 minutes on 2 cores), from a new seed
# each time; failures are reduced into tests/fuzz/found.
fuzz: install
	PATH=$(PREFIX)/bin:$$PATH CARGO=$(CARGO) FUZZ_PROGRAMS=$${FUZZ_PROGRAMS:-300} \
	  FUZZ_SEED=$${FUZZ_SEED:-$$(date +%s)} FUZZ_FOUND=$(CURDIR)/tests/fuzz/found tests/run-fuzz-tests.sh

clean:
	$(CARGO) clean
	rm -rf tests/build
	$(MAKE) -s -C templates/c clean
