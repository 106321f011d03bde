//! Build script: links the HDF5 high-level library (for the dimension-scale calls in
//! `src/store/`), embeds the git commit for provenance, and probes the optional prerequisites
//! of the test suite, so that `cargo test` lists a test it cannot run as *ignored*, with the
//! reason, instead of passing it silently.
//!
//! Only the standard library is used, so the build needs no extra dependencies.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    link_hdf5_hl();
    embed_git_commit();
    probe_python_readers();
    probe_browser();
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

/// Sets `PENDULA_GIT_COMMIT` to `git rev-parse HEAD`, or leaves it unset outside git.
///
/// Reruns when HEAD moves (`.git/HEAD`, the branch ref, `packed-refs`). An environment
/// value of the same name wins, for builds from a tarball that know their commit.
fn embed_git_commit() {
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
        let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
        (!s.is_empty()).then_some(s)
    };
    let Some(git_dir) = git(&["rev-parse", "--git-dir"]) else {
        return;
    };
    let git_dir = PathBuf::from(git_dir);
    let head = git_dir.join("HEAD");
    if head.exists() {
        println!("cargo:rerun-if-changed={}", head.display());
    }
    if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
        let ref_file = git_dir.join(r);
        if ref_file.exists() {
            println!("cargo:rerun-if-changed={}", ref_file.display());
        }
    }
    let packed = git_dir.join("packed-refs");
    if packed.exists() {
        println!("cargo:rerun-if-changed={}", packed.display());
    }
    if let Some(commit) = git(&["rev-parse", "HEAD"]) {
        println!("cargo:rustc-env=PENDULA_GIT_COMMIT={commit}");
    }
}

/// Sets `cfg(have_python_readers)` when `$PYTHON` (default `python3`) imports h5py, xarray and
/// h5netcdf, the readers `tests/python/check_h5.py` opens our files with, and passes that
/// interpreter to the tests as `PENDULA_PYTHON`.
///
/// With `PENDULA_REQUIRE_PYTHON=1` (CI) a missing reader fails the build. The probe reruns when
/// `PATH` or `PYTHON` change and when the interpreter's package directories change, so a
/// `pip install` is picked up by the next `cargo test` (watching a missing path would rerun the
/// probe, and rebuild the crate, on every build, so only existing paths are watched).
fn probe_python_readers() {
    println!("cargo::rustc-check-cfg=cfg(have_python_readers)");
    println!("cargo:rerun-if-env-changed=PYTHON");
    println!("cargo:rerun-if-env-changed=PATH");
    println!("cargo:rerun-if-env-changed=PENDULA_REQUIRE_PYTHON");
    let python = env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    // Prints the interpreter, then the readers' files, or the package directories pip installs
    // into when an import fails.
    let script = r#"
import sys, sysconfig, site
print(sys.executable)
try:
    import h5py, xarray, h5netcdf
except Exception as e:
    print("missing:", type(e).__name__, e)
    paths = sysconfig.get_paths()
    print(paths["purelib"]); print(paths["platlib"]); print(site.getusersitepackages())
else:
    print("ok"); print(h5py.__file__); print(xarray.__file__); print(h5netcdf.__file__)
"#;
    let out = Command::new(&python).args(["-c", script]).output();
    let (found, why) = match &out {
        Err(e) => (false, format!("cannot run `{python}` ({e})")),
        Ok(o) if !o.status.success() => (
            false,
            format!(
                "`{python}` failed: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            ),
        ),
        Ok(o) => {
            let text = String::from_utf8_lossy(&o.stdout).to_string();
            let mut lines = text.lines();
            let exe = lines.next().unwrap_or_default().to_string();
            let verdict = lines.next().unwrap_or_default().to_string();
            for path in lines.chain([exe.as_str()]) {
                if !path.is_empty() && Path::new(path).exists() {
                    println!("cargo:rerun-if-changed={path}");
                }
            }
            if verdict == "ok" {
                println!("cargo:rustc-env=PENDULA_PYTHON={exe}");
                (true, String::new())
            } else {
                (false, format!("`{python}` ({exe}): {verdict}"))
            }
        }
    };
    if found {
        println!("cargo:rustc-cfg=have_python_readers");
    } else if env::var("PENDULA_REQUIRE_PYTHON").is_ok_and(|v| v == "1") {
        panic!(
            "PENDULA_REQUIRE_PYTHON=1 but the Python readers are missing: {why}; \
             install them with `pip install h5py xarray h5netcdf` (or set PYTHON to an \
             interpreter that has them)"
        );
    }
}

/// Sets `cfg(have_browser)` when the headless-browser test of the live viewer can run:
/// Chromium at `$PENDULA_CHROMIUM` (default `/usr/bin/chromium`), `node` on the PATH and
/// `npm ci` done in `tests/browser` (playwright-core in its `node_modules`). With
/// `PENDULA_REQUIRE_BROWSER=1` (CI) a missing piece fails the build.
fn probe_browser() {
    println!("cargo::rustc-check-cfg=cfg(have_browser)");
    println!("cargo:rerun-if-env-changed=PENDULA_CHROMIUM");
    println!("cargo:rerun-if-env-changed=PENDULA_REQUIRE_BROWSER");
    let chromium =
        PathBuf::from(env::var("PENDULA_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into()));
    let node = env::var_os("PATH").and_then(|p| {
        env::split_paths(&p)
            .map(|d| d.join("node"))
            .find(|f| f.is_file())
    });
    let browser_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    let playwright = browser_dir.join("node_modules/playwright-core");
    // The files themselves when present, else the directories they would appear in.
    for p in [&chromium, &playwright] {
        let watch = if p.exists() {
            Some(p.as_path())
        } else {
            p.parent().filter(|d| d.exists())
        };
        if let Some(w) = watch {
            println!("cargo:rerun-if-changed={}", w.display());
        }
    }
    match &node {
        Some(f) => println!("cargo:rerun-if-changed={}", f.display()),
        None => {
            for d in ["/usr/bin", "/usr/local/bin"] {
                if Path::new(d).is_dir() {
                    println!("cargo:rerun-if-changed={d}");
                }
            }
        }
    }
    let mut missing = Vec::new();
    if !chromium.is_file() {
        missing.push(format!("Chromium at {}", chromium.display()));
    }
    if node.is_none() {
        missing.push("node on the PATH".to_string());
    }
    if !playwright.is_dir() {
        missing.push("`npm ci` in tests/browser".to_string());
    }
    if missing.is_empty() {
        println!("cargo:rustc-cfg=have_browser");
    } else if env::var("PENDULA_REQUIRE_BROWSER").is_ok_and(|v| v == "1") {
        panic!(
            "PENDULA_REQUIRE_BROWSER=1 but the browser test cannot run: missing {}; \
             `bash .ci/run` installs them (Debian's chromium, then npm ci in tests/browser)",
            missing.join(", ")
        );
    }
}
