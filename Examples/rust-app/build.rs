// A build script, as most crates have. It runs during the build: the instrumented build
// must leave it uninstrumented (`orderfile flags --language rust --instrument` names the
// host as --target, which keeps RUSTFLAGS away from build scripts and proc macros).
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
}
