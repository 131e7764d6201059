//! Argument parsing (clap derive) and error reporting; one file per subcommand.

mod args;
mod cast;
mod clip;
mod clip_grid;
mod clip_set;
mod compare;
mod gen;
mod info;
mod lines;

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
    /// Clip every segment of a file (.npy, .csv, .f32, .f64) against one rectangle, a file of
    /// rectangles, or a convex polygon.
    Clip(clip::ClipArgs),
    /// Time every algorithm on the same data, check each against the exact reference, and show
    /// how close each comes to the memory ceiling.
    Compare(compare::CompareArgs),
    /// Write a seeded workload (segments around the unit square) to an .npy file, or lines
    /// (roads, rivers) to GeoJSON or a ragged .npz.
    Gen(gen::GenArgs),
    /// Clip lines (GeoJSON or ragged .npz) to a rectangle, or cut them into map tiles.
    Lines(lines::LinesArgs),
    /// Cast every ray of an .npy file against a rect, a segments file or a convex polygon.
    Cast(cast::CastArgs),
    /// Show the version, the algorithms, the precisions, the SIMD levels and the thread count.
    Info,
}

/// Writes `text` to stdout. A reader that closed the pipe early (`slabclip info | head -1`)
/// wants no more: that is not an error, where `print!` would panic.
fn print(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("slabclip: error: stdout: {e}");
        }
        _ => {}
    }
}

/// Runs the command line. Usage errors exit with 2 inside `Cli::parse` (and `--help` with 0);
/// a data error prints one line on stderr and exits with 1.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Clip(args) => clip::run(args),
        Command::Gen(args) => gen::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Cast(args) => cast::run(args),
        Command::Lines(args) => lines::run(args),
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
