//! Files: reading segment batches and writing results, atomically.
