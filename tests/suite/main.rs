//! Every integration test in one binary: the library's generic kernels are compiled and linked
//! once for all of them, where a binary per file compiled them again for each. Each file is a
//! module; run one with `cargo test --test suite <module>::`, e.g. `cargo test --test suite
//! grid_pieces::`.

mod common;
mod files;

mod bad_input;
mod bad_rects;
mod batch_shapes;
mod cli;
mod cli_cast;
mod cli_grid;
mod cli_lines;
mod cli_rects;
mod compare_cli;
mod differential;
mod edge_cases;
mod grid_pieces;
mod levels;
mod polygon_clip;
mod polygon_rays;
mod polylines;
mod rays_edge_cases;
mod rays_rect;
mod rays_segments;
mod readers;
mod rect_set;
mod scene;
mod sector_table;
mod visibility;
mod workload_files;
