//! Argument parsing (clap derive) and error reporting; one file per subcommand.

mod cast;
mod clip;
mod info;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Batch clipping of 2D segments against rectangles, exact at every edge and corner.
#[derive(Debug, Parser)]
#[command(name = "slabclip", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Clip every segment of an .npy file against one rectangle.
    Clip(clip::ClipArgs),
    /// Cast every ray of an .npy file against a rect, a segments file or a convex polygon.
    Cast(cast::CastArgs),
    /// Show the version, the algorithms and the precisions this binary supports.
    Info,
}

/// Runs the command line. Usage errors exit with 2 inside `Cli::parse` (and `--help` with 0);
/// a data error prints one line on stderr and exits with 1.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Clip(args) => clip::run(args),
        Command::Cast(args) => cast::run(args),
        Command::Info => {
            info::run();
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line, whatever a file name or an OS message contains.
            let msg = e.to_string().replace(['\n', '\r'], " ");
            eprintln!("slabclip: error: {msg}");
            ExitCode::from(1)
        }
    }
}
