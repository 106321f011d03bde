//! Build script: links the HDF5 high-level library (for the dimension-scale calls in
//! `src/store/`) and embeds the git commit for provenance.
//!
//! It reruns only when the crate's own inputs change (see `embed_git_commit`), so that
//! committing, activating a virtual environment or installing Python packages recompiles
//! nothing. The test suite's optional prerequisites (Python readers, a headless browser) are
//! probed by the tests themselves when they run (`tests/common/python.rs`, `tests/serve.rs`).
//!
//! Only the standard library is used, so the build needs no extra dependencies.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    link_hdf5_hl();
    embed_git_commit();
}

/// Links `libhdf5_hl` unless `hdf5-sys` already does.
///
/// `hdf5-sys` links the HL library itself when its `hl` feature is on (the `static-hdf5`
/// feature turns it on and builds it from source): it then exports `DEP_HDF5_HL_LIBRARY`.
/// For a system HDF5 it links only `hdf5`, so we find the HL library next to it. Debian
/// names it `hdf5_serial_hl` (with an `hdf5_hl` symlink in `hdf5/serial/`), most others
/// `hdf5_hl`. `PENDULA_HDF5_HL_LIB` overrides the name.
fn link_hdf5_hl() {
    println!("cargo:rerun-if-env-changed=PENDULA_HDF5_HL_LIB");
    println!("cargo:rerun-if-env-changed=HDF5_DIR");
    if env::var_os("DEP_HDF5_HL_LIBRARY").is_some() {
        return;
    }
    if let Ok(name) = env::var("PENDULA_HDF5_HL_LIB") {
        println!("cargo:rustc-link-lib=dylib={name}");
        return;
    }

    // Directories and library names that pkg-config reports for HDF5.
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    if let Some(libs) = pkg_config_libs() {
        for flag in libs.split_whitespace() {
            if let Some(dir) = flag.strip_prefix("-L") {
                dirs.push(PathBuf::from(dir));
            } else if let Some(lib) = flag.strip_prefix("-l") {
                if lib.starts_with("hdf5") && !lib.ends_with("_hl") {
                    names.push(format!("{lib}_hl"));
                }
            }
        }
    }
    if let Some(dir) = env::var_os("HDF5_DIR") {
        dirs.push(Path::new(&dir).join("lib"));
    }
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    for d in [
        format!("/usr/lib/{arch}-linux-gnu/hdf5/serial"),
        format!("/usr/lib/{arch}-linux-gnu"),
        "/usr/lib64".to_string(),
        "/usr/lib".to_string(),
        "/usr/local/lib".to_string(),
        "/opt/homebrew/lib".to_string(),
        "/usr/local/opt/hdf5/lib".to_string(),
    ] {
        dirs.push(PathBuf::from(d));
    }
    for n in ["hdf5_serial_hl", "hdf5_hl"] {
        if !names.iter().any(|x| x == n) {
            names.push(n.to_string());
        }
    }

    for name in &names {
        for dir in &dirs {
            if has_library(dir, name) {
                println!("cargo:rustc-link-search=native={}", dir.display());
                println!("cargo:rustc-link-lib=dylib={name}");
                return;
            }
        }
    }
    // Not found: let the linker search its default path, and say what to set if it fails.
    println!(
        "cargo:warning=pendula: HDF5 high-level library not found (tried {names:?}); \
         linking `hdf5_hl`. Set PENDULA_HDF5_HL_LIB to its name if linking fails."
    );
    println!("cargo:rustc-link-lib=dylib=hdf5_hl");
}

/// `pkg-config --libs hdf5` (or `hdf5-serial`), if pkg-config is installed.
fn pkg_config_libs() -> Option<String> {
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    for pkg in ["hdf5", "hdf5-serial"] {
        let out = Command::new("pkg-config")
            .args(["--libs", pkg])
            .output()
            .ok()?;
        if out.status.success() {
            return String::from_utf8(out.stdout).ok();
        }
    }
    None
}

fn has_library(dir: &Path, name: &str) -> bool {
    [
        format!("lib{name}.so"),
        format!("lib{name}.dylib"),
        format!("lib{name}.a"),
        format!("{name}.lib"),
    ]
    .iter()
    .any(|f| dir.join(f).exists())
}

/// The build's inputs: the script reruns when one of them changes, and only then (cargo's
/// default, any file of the package, would rerun it for a README edit). Paths are relative to
/// the package root.
const INPUTS: [&str; 4] = ["src", "Cargo.toml", "Cargo.lock", "build.rs"];

/// Sets `PENDULA_GIT_COMMIT` to the commit the sources were built from: `git rev-parse HEAD`,
/// with `-dirty` appended when [`INPUTS`] differ from that commit (`git describe`'s mark). Left
/// unset outside git; an environment value of the same name wins, for builds from a tarball
/// that know their commit.
///
/// It reruns when the inputs change, not when HEAD moves: a commit that changes no source
/// leaves the binary as it was and recompiles nothing, and its provenance still names the
/// commit whose sources it was built from. A binary built from uncommitted sources says
/// `-dirty` until the next source change, even after those sources are committed.
fn embed_git_commit() {
    for input in INPUTS {
        println!("cargo:rerun-if-changed={input}");
    }
    println!("cargo:rerun-if-env-changed=PENDULA_GIT_COMMIT");
    if let Ok(c) = env::var("PENDULA_GIT_COMMIT") {
        println!("cargo:rustc-env=PENDULA_GIT_COMMIT={c}");
        return;
    }
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").args(args).output().ok()?;
        if !out.status.success() {
            return None;
        }
        Some(String::from_utf8(out.stdout).ok()?.trim().to_string())
    };
    let Some(commit) = git(&["rev-parse", "HEAD"]).filter(|c| !c.is_empty()) else {
        return;
    };
    let mut status = vec!["status", "--porcelain", "--untracked-files=all", "--"];
    status.extend(INPUTS);
    let dirty = git(&status).is_none_or(|s| !s.is_empty());
    let mark = if dirty { "-dirty" } else { "" };
    println!("cargo:rustc-env=PENDULA_GIT_COMMIT={commit}{mark}");
}
