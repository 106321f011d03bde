//! The output paths a spec names: figures by format, result files by extension, none with a
//! NUL byte.

use super::SpecError;

/// A figure path must name a format [`crate::plot::Format`] draws (.png or .svg).
pub fn figure_format(field: &str, p: &std::path::Path) -> Result<crate::plot::Format, SpecError> {
    no_nul(field, p)?;
    crate::plot::Format::from_path(p)
        .map_err(|_| SpecError::new(field, format!("`{}` must end in .png or .svg", p.display())))
}

/// A path with a NUL byte (a spec's string can hold `\u0000`; a command line cannot) names no
/// file the system can open: say so, rather than let the directory check call it unwritable.
pub fn no_nul(field: &str, p: &std::path::Path) -> Result<(), SpecError> {
    if p.as_os_str().as_encoded_bytes().contains(&0) {
        return Err(SpecError::new(
            field,
            format!(
                "the path `{}` contains a NUL byte, which no file name can hold",
                p.display().to_string().replace('\0', "\\0")
            ),
        ));
    }
    Ok(())
}

/// A result file must be HDF5 by name: `.h5` or `.hdf5` (any case).
pub fn result_format(field: &str, p: &std::path::Path) -> Result<(), SpecError> {
    no_nul(field, p)?;
    let ext = p
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if matches!(ext.as_deref(), Some("h5" | "hdf5")) {
        Ok(())
    } else {
        Err(SpecError::new(
            field,
            format!(
                "`{}` must end in .h5 or .hdf5 (results are HDF5)",
                p.display()
            ),
        ))
    }
}
