//! `slabclip`, the command line: `slabclip clip`, `slabclip info`.
//!
//! Exit codes: 0 on success, 2 on a usage error (clap's), 1 on a data error with one line on
//! stderr, `slabclip: error: <file>: <problem>`. All the work is in the library; `cli/` only
//! parses arguments and reports.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
