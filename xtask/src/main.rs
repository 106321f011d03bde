//! README's two commands on a fresh machine: `cargo xtask run SPEC [FLAGS]` and `cargo xtask
//! test [ARGS]`. Each first installs what pendula needs and the machine lacks, then runs cargo.
//!
//! * The HDF5 C library and pkg-config (and a C compiler): Debian's `libhdf5-dev`, `pkg-config`
//!   and `gcc`, installed with apt-get when run as root; otherwise the one `sudo apt-get` line is
//!   printed and nothing else is done.
//! * For the tests, the Python readers the tests open pendula's files with (h5py, xarray,
//!   h5netcdf), pytest and maturin, in a virtual environment `.venv` the project creates (never
//!   the system Python: Debian's refuses `pip install`, PEP 668). The tests find it through
//!   `PYTHON`; the Python package is installed there and its tests run after cargo's.
//!
//! Once set up, nothing is installed again: every check is a file or an import.

use std::path::{Path, PathBuf};
use std::process::{exit, Command};

/// The Debian packages the build needs, and how to see whether each is there.
const SYSTEM: &[(&str, &str)] = &[
    ("libhdf5-dev", "the HDF5 C library and headers"),
    ("pkg-config", "which the build finds HDF5 with"),
    ("gcc", "a C compiler and linker"),
];

/// What the test environment must import.
const PYTHON_PACKAGES: &[&str] = &["h5py", "xarray", "h5netcdf", "pytest", "maturin"];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root();
    let code = match args.first().map(String::as_str) {
        Some("run") => {
            system(&root);
            cargo(&root, &["run", "--release", "--"], &args, &[])
        }
        Some("test") => {
            system(&root);
            let python = python_env(&root);
            let env = [("PYTHON", python.as_os_str())];
            let code = cargo(&root, &["test", "--release"], &args[1..], &env);
            if code != 0 {
                code
            } else {
                python_tests(&root, &python)
            }
        }
        Some("setup") => {
            system(&root);
            python_env(&root);
            0
        }
        _ => {
            eprintln!(
                "usage: cargo xtask run SPEC [FLAGS]   (installs what is missing, then `pendula run`)\n       \
                 cargo xtask test [ARGS]       (installs what is missing, then the Rust and Python tests)\n       \
                 cargo xtask setup             (only the installation)"
            );
            2
        }
    };
    exit(code);
}

/// The checkout's root (this crate is `xtask/` in it).
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// Whether the Debian package `name` is usable: its file or command is present.
fn present(name: &str) -> bool {
    match name {
        "libhdf5-dev" => {
            ["/usr/include/hdf5/serial/hdf5.h", "/usr/include/hdf5.h"]
                .iter()
                .any(|p| Path::new(p).exists())
                || Command::new("pkg-config")
                    .args(["--exists", "hdf5"])
                    .status()
                    .is_ok_and(|s| s.success())
        }
        command => Command::new(command)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success()),
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Installs the missing Debian packages as root, or prints the line that does and stops.
fn apt_install(packages: &[&str], why: &str) {
    let list = packages.join(" ");
    if !is_root() {
        eprintln!(
            "xtask: {why} is missing; install it once with:\n  sudo apt-get install -y {list}"
        );
        exit(1);
    }
    eprintln!("xtask: installing {list} ({why}) with apt-get");
    let ok = Command::new("apt-get")
        .args(["update", "-qq"])
        .status()
        .is_ok_and(|s| s.success())
        && Command::new("apt-get")
            .args(["install", "-y", "-qq"])
            .args(packages)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("xtask: apt-get install {list} failed (see above)");
        exit(1);
    }
}

/// The build's system packages.
fn system(_root: &Path) {
    let missing: Vec<&str> = SYSTEM
        .iter()
        .filter(|(p, _)| !present(p))
        .map(|(p, _)| *p)
        .collect();
    if !missing.is_empty() {
        let why: Vec<&str> = SYSTEM
            .iter()
            .filter(|(p, _)| missing.contains(p))
            .map(|(_, w)| *w)
            .collect();
        apt_install(&missing, &why.join(", "));
    }
}

/// `.venv/bin/python` with [`PYTHON_PACKAGES`], created and filled where missing.
fn python_env(root: &Path) -> PathBuf {
    let venv = root.join(".venv");
    let python = venv.join("bin/python");
    let imports = format!("import {}", PYTHON_PACKAGES.join(", "));
    let ready = |p: &Path| {
        Command::new(p)
            .args(["-c", &imports])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if ready(&python) {
        return python;
    }
    if !python.exists() {
        eprintln!("xtask: creating the test environment {}", venv.display());
        let made = |v: &Path| {
            Command::new("python3")
                .args(["-m", "venv"])
                .arg(v)
                .status()
                .is_ok_and(|s| s.success())
        };
        if !made(&venv) {
            // Debian ships venv's pip bootstrap separately.
            let _ = std::fs::remove_dir_all(&venv);
            apt_install(&["python3-venv"], "Python's venv module");
            if !made(&venv) {
                eprintln!(
                    "xtask: python3 -m venv {} failed (see above)",
                    venv.display()
                );
                exit(1);
            }
        }
    }
    eprintln!(
        "xtask: installing {} into {}",
        PYTHON_PACKAGES.join(" "),
        venv.display()
    );
    let ok = Command::new(&python)
        .args(["-m", "pip", "install", "-q", "--disable-pip-version-check"])
        .args(PYTHON_PACKAGES)
        .status()
        .is_ok_and(|s| s.success());
    if !ok || !ready(&python) {
        eprintln!(
            "xtask: pip install {} failed (see above)",
            PYTHON_PACKAGES.join(" ")
        );
        exit(1);
    }
    python
}

/// `cargo FIXED EXTRA...` in the workspace root with `env`; its exit code.
fn cargo(root: &Path, fixed: &[&str], extra: &[String], env: &[(&str, &std::ffi::OsStr)]) -> i32 {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // Said before it runs, so a log shows which cargo command the entry point stands for.
    eprintln!("xtask: cargo {} {}", fixed.join(" "), extra.join(" "));
    let mut c = Command::new(cargo);
    c.current_dir(root).args(fixed).args(extra);
    for (k, v) in env {
        c.env(k, v);
    }
    status(c.status())
}

/// The Python package: built into the test environment from the workspace's sources (sharing
/// cargo's build of the crate), then its tests against the CLI the Rust tests built.
fn python_tests(root: &Path, python: &Path) -> i32 {
    eprintln!("xtask: installing the Python package (python/) into .venv");
    // The build backend calls `maturin` by name: the environment's bin folder goes first on
    // PATH, as activating the environment would put it (the system has no maturin of its own).
    let bin = python.parent().unwrap_or(Path::new("."));
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(
        std::iter::once(bin.to_path_buf()).chain(std::env::split_paths(&path)),
    )
    .unwrap_or(path);
    let mut install = Command::new(python);
    install
        .current_dir(root)
        .env("PATH", &path)
        .env("VIRTUAL_ENV", bin.parent().unwrap_or(Path::new(".")))
        .args(["-m", "pip", "install", "-q", "--disable-pip-version-check"])
        .args(["--no-build-isolation", "./python"]);
    let code = status(install.status());
    if code != 0 {
        return code;
    }
    let mut test = Command::new(python);
    test.current_dir(root)
        .env("PATH", &path)
        .args(["-m", "pytest", "-q", "python/tests"]);
    status(test.status())
}

fn status(s: std::io::Result<std::process::ExitStatus>) -> i32 {
    match s {
        Ok(s) => s.code().unwrap_or(1),
        Err(e) => {
            eprintln!("xtask: cannot start the command: {e}");
            1
        }
    }
}
