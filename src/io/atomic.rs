//! Whole-or-nothing output: write to a temporary file beside the destination, flush and sync it,
//! then rename it over the destination in one step.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::Error;

/// The folder `path` will be written into (`.` for a bare file name), checked to exist.
///
/// A missing folder, a path with no file name (`/`, `..`, `dir/`) or an existing folder at
/// `path` is an [`Error::File`] naming `path`. Callers can check this before long work whose
/// result would otherwise be lost.
pub fn output_folder(path: &Path) -> Result<PathBuf, Error> {
    let ends_with_separator = path
        .as_os_str()
        .to_string_lossy()
        .ends_with(std::path::is_separator);
    if path.file_name().is_none() || ends_with_separator {
        return Err(Error::file(path, "output path does not name a file"));
    }
    if path.is_dir() {
        return Err(Error::file(path, "output path is a folder"));
    }
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if folder.is_dir() {
        Ok(folder.to_path_buf())
    } else {
        Err(Error::file(
            path,
            format!("output folder {} does not exist", folder.display()),
        ))
    }
}

/// A file being written under a temporary name in its destination folder, moved over the
/// destination by [`AtomicFile::commit`]. Dropped without a commit, it deletes itself and the
/// destination is untouched.
///
/// The new file gets the permissions a plain create would give (`0o666` less the umask on Unix).
/// If the process is killed mid-write, a `.slabclip-*.tmp` file may remain in the folder; the
/// destination is still either old or complete.
#[derive(Debug)]
pub(crate) struct AtomicFile {
    path: PathBuf,
    tmp: tempfile::NamedTempFile,
}

impl AtomicFile {
    /// Creates the temporary file for `path`; errors (missing folder, …) name `path`.
    pub(crate) fn create(path: &Path) -> Result<Self, Error> {
        let folder = output_folder(path)?;
        let mut builder = tempfile::Builder::new();
        builder.prefix(".slabclip-").suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(fs::Permissions::from_mode(0o666));
        }
        let tmp = builder.tempfile_in(&folder).map_err(|e| {
            Error::file(
                path,
                format!(
                    "cannot create a temporary file in {}: {e}",
                    folder.display()
                ),
            )
        })?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
        })
    }

    /// The temporary file, to write (and seek) in.
    pub(crate) fn file(&mut self) -> &mut fs::File {
        self.tmp.as_file_mut()
    }

    /// A write error, as an [`Error::File`] naming the destination.
    pub(crate) fn failed(&self, e: io::Error) -> Error {
        Error::file(&self.path, format!("cannot write: {e}"))
    }

    /// Syncs the file to disk and renames it over the destination.
    pub(crate) fn commit(self) -> Result<(), Error> {
        self.tmp.as_file().sync_all().map_err(|e| self.failed(e))?;
        let path = self.path;
        // On failure the `PersistError` owns the temporary file and deletes it when dropped.
        self.tmp.persist(&path).map_err(|e| {
            Error::file(
                &path,
                format!("cannot move the finished file into place: {}", e.error),
            )
        })?;
        Ok(())
    }
}

/// Writes `path` whole or not at all.
///
/// `write` fills a buffered temporary file in the destination folder; the file is then flushed,
/// synced to disk and renamed over `path`. On any error the temporary file is removed and an
/// existing `path` is untouched. The new file gets the permissions a plain create would give
/// (`0o666` less the umask on Unix). If the process is killed mid-write, a `.slabclip-*.tmp`
/// file may remain in the folder; the destination is still either old or complete.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), Error> {
    let mut out = AtomicFile::create(path)?;
    let written = {
        let mut buffered = BufWriter::new(out.file());
        write(&mut buffered).and_then(|()| buffered.flush())
    };
    written.map_err(|e| out.failed(e))?;
    out.commit()
}

/// Whether `a` and `b` name the same existing file (after resolving links and `..`; on Unix also
/// two hard links to one file). A path that does not exist is nobody's twin.
pub fn same_file(a: &Path, b: &Path) -> bool {
    if let (Ok(x), Ok(y)) = (fs::canonicalize(a), fs::canonicalize(b)) {
        if x == y {
            return true;
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (fs::metadata(a), fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_in(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_complete_write_replaces_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.bin");
        fs::write(&out, b"old").unwrap();
        write_atomically(&out, |w| w.write_all(b"new contents")).unwrap();
        assert_eq!(fs::read(&out).unwrap(), b"new contents");
        assert_eq!(names_in(dir.path()), ["out.bin"]);
    }

    #[test]
    fn a_failed_write_leaves_nothing_and_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.bin");
        let fresh = dir.path().join("fresh.bin");
        fs::write(&out, b"old").unwrap();
        for path in [&out, &fresh] {
            let e = write_atomically(path, |w| {
                w.write_all(&[7; 100_000])?;
                Err(io::Error::other("disk on fire"))
            })
            .unwrap_err();
            assert!(e.to_string().contains("disk on fire"), "{e}");
        }
        assert_eq!(fs::read(&out).unwrap(), b"old");
        assert_eq!(names_in(dir.path()), ["out.bin"]);
    }

    #[test]
    fn a_missing_folder_names_the_output() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("nope").join("out.bin");
        let e = write_atomically(&out, |_| Ok(())).unwrap_err();
        assert!(e.to_string().starts_with(&out.display().to_string()), "{e}");
        assert!(e.to_string().contains("does not exist"), "{e}");
        assert!(output_folder(Path::new("..")).is_err());
        assert!(output_folder(Path::new("some/dir/")).is_err());
        assert!(output_folder(dir.path())
            .unwrap_err()
            .to_string()
            .ends_with("output path is a folder"));
        assert_eq!(output_folder(Path::new("x.npy")).unwrap(), Path::new("."));
    }

    #[test]
    fn same_file_sees_through_other_spellings() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        fs::write(&a, b"x").unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        assert!(same_file(&a, &dir.path().join("sub").join("..").join("a")));
        assert!(!same_file(&a, &dir.path().join("b")));
        #[cfg(unix)]
        {
            fs::hard_link(&a, dir.path().join("c")).unwrap();
            assert!(same_file(&a, &dir.path().join("c")));
        }
    }
}
