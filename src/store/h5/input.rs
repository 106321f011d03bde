//! Input files: a path checked to be a regular file before HDF5 opens it, and an HDF5 file
//! opened for reading with its refusal in one line.

use super::*;

/// Refuses, before anything opens it, an input path that is not a readable regular file: a
/// FIFO (opening one blocks until a writer comes, which may be never), a socket, a device or a
/// directory. One line naming the file and what it is.
pub fn check_input_file(path: &Path) -> Result<(), StoreError> {
    let bad = |what: String| StoreError::BadFile {
        path: path.to_path_buf(),
        what,
    };
    let meta = fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => bad("no such file".into()),
        std::io::ErrorKind::PermissionDenied => bad("cannot be read (permission denied)".into()),
        _ => bad(format!("cannot be read ({e})")),
    })?;
    let t = meta.file_type();
    if t.is_file() {
        return Ok(());
    }
    #[cfg(unix)]
    let what = {
        use std::os::unix::fs::FileTypeExt;
        if t.is_dir() {
            "a directory"
        } else if t.is_fifo() {
            "a FIFO (named pipe)"
        } else if t.is_socket() {
            "a socket"
        } else if t.is_block_device() || t.is_char_device() {
            "a device"
        } else {
            "a special file"
        }
    };
    #[cfg(not(unix))]
    let what = if t.is_dir() {
        "a directory"
    } else {
        "a special file"
    };
    Err(bad(format!("is {what}, not a regular file")))
}

/// Opens the HDF5 file `path` for reading, after [`check_input_file`]; a file that is not
/// HDF5 (or is truncated) is refused in one line naming it.
pub fn open_input(path: &Path) -> Result<File, StoreError> {
    check_input_file(path)?;
    File::open(path).map_err(|e| {
        let text = one_line(&e);
        let what = if text.contains("file signature not found") {
            "is not an HDF5 file (no HDF5 signature)".to_string()
        } else {
            format!("cannot be opened as HDF5 ({text})")
        };
        StoreError::BadFile {
            path: path.to_path_buf(),
            what,
        }
    })
}
