//! Which instruction set the vector kernels run with: the map lanes ([`super::map::lanes`]) and
//! NAFF's windowed sums (`frequency::naff`) are compiled for AVX-512, AVX2+FMA and the
//! baseline, and pick one at run time, so no `target-cpu=native` is needed. Their arithmetic is
//! the same in all three (explicit `mul_add`, no contraction), so the choice changes the speed,
//! never the bits.

/// An instruction set the vector kernels are compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Simd {
    Avx512,
    Avx2,
    Baseline,
}

/// The best instruction set of this CPU, or a lesser one named by the environment variable
/// `PENDULA_SIMD` (`avx512`, `avx2`, `baseline`; to benchmark the variants side by side).
/// All give the same bits.
pub fn simd() -> Simd {
    static CHOICE: std::sync::OnceLock<Simd> = std::sync::OnceLock::new();
    *CHOICE.get_or_init(|| {
        #[allow(unused_mut)]
        let mut best = Simd::Baseline;
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx2") && has!("fma") {
                best = Simd::Avx2;
                if has!("avx512f") && has!("avx512dq") && has!("avx512vl") {
                    best = Simd::Avx512;
                }
            }
        }
        let rank = |s: Simd| match s {
            Simd::Baseline => 0,
            Simd::Avx2 => 1,
            Simd::Avx512 => 2,
        };
        let asked = match std::env::var("PENDULA_SIMD").as_deref() {
            Ok("avx512") => Some(Simd::Avx512),
            Ok("avx2") => Some(Simd::Avx2),
            Ok("baseline") => Some(Simd::Baseline),
            _ => None,
        };
        match asked {
            Some(a) if rank(a) <= rank(best) => a,
            _ => best,
        }
    })
}

/// `$vis fn $name(args) -> ret` that runs `$body(args)` (an `#[inline(always)]` function, so
/// that it is compiled into each variant) as AVX-512, AVX2+FMA or baseline code, whichever
/// [`simd`] picked: for kernels whose loops LLVM vectorizes but whose binary is built for the
/// baseline instruction set. `= $wide, $mid, $base;` names one body per instruction set instead
/// (e.g. the same generic function at another lane width).
macro_rules! multiversion {
    ($(#[$m:meta])* $vis:vis fn $name:ident($($a:ident: $t:ty),* $(,)?) $(-> $r:ty)? = $body:path;) => {
        $crate::analysis::simd::multiversion! {
            $(#[$m])* $vis fn $name($($a: $t),*) $(-> $r)? = $body, $body, $body;
        }
    };
    ($(#[$m:meta])* $vis:vis fn $name:ident($($a:ident: $t:ty),* $(,)?) $(-> $r:ty)?
        = $wide:path, $mid:path, $base:path;) => {
        $(#[$m])*
        $vis fn $name($($a: $t),*) $(-> $r)? {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
            unsafe fn wide($($a: $t),*) $(-> $r)? {
                $wide($($a),*)
            }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn mid($($a: $t),*) $(-> $r)? {
                $mid($($a),*)
            }
            match $crate::analysis::simd::simd() {
                // SAFETY: `simd()` only names features detected on this CPU.
                #[cfg(target_arch = "x86_64")]
                $crate::analysis::simd::Simd::Avx512 => unsafe { wide($($a),*) },
                #[cfg(target_arch = "x86_64")]
                $crate::analysis::simd::Simd::Avx2 => unsafe { mid($($a),*) },
                _ => $base($($a),*),
            }
        }
    };
}
pub(crate) use multiversion;
