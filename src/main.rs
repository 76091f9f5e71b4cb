//! The `lcsfmu` command; everything but argument dispatch lives in the library.

fn main() -> std::process::ExitCode {
    lcsfmu::tool::cli::main()
}
