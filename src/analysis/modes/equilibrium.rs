//! The equilibria θ*_j ∈ {0, π} of the planar chain, as sign strings, and the errors of the
//! modes analyses (shared by the dense and the structured routes).

use serde::Serialize;
use thiserror::Error;

/// Largest N for which "all equilibria" (2^N of them) is accepted.
pub const MAX_ALL_EQUILIBRIA_LINKS: usize = 16;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum ModesError {
    #[error("equilibrium `{0}`: use one character per link, `+` (hanging, θ = 0) or `-` (inverted, θ = π)")]
    BadSigns(String),
    #[error("equilibrium `{signs}` has {got} characters but the chain has {links} links")]
    WrongLength {
        signs: String,
        got: usize,
        links: usize,
    },
    #[error("all 2^{links} equilibria is too many; the limit is N = {max}: choose some with sign strings")]
    TooMany { links: usize, max: usize },
    #[error("the mass matrix at equilibrium `{0}` is not positive definite")]
    NotDefinite(String),
    /// A stop request ended the eigen-solutions before the first result (a run keeps nothing).
    #[error("interrupted")]
    Interrupted,
}

/// An equilibrium θ*_j ∈ {0, π}, written as a sign string (`+` hanging, `-` inverted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Equilibrium {
    /// s_j = cos θ*_j = ±1.
    pub signs: Vec<i8>,
}

impl Equilibrium {
    pub fn hanging(n: usize) -> Equilibrium {
        Equilibrium { signs: vec![1; n] }
    }
    /// Parses `+-+` style strings for a chain of `n` links.
    pub fn parse(s: &str, n: usize) -> Result<Equilibrium, ModesError> {
        let signs: Option<Vec<i8>> = s
            .chars()
            .map(|c| match c {
                '+' => Some(1),
                '-' => Some(-1),
                _ => None,
            })
            .collect();
        let signs = signs
            .filter(|v| !v.is_empty())
            .ok_or_else(|| ModesError::BadSigns(s.to_string()))?;
        if signs.len() != n {
            return Err(ModesError::WrongLength {
                signs: s.to_string(),
                got: signs.len(),
                links: n,
            });
        }
        Ok(Equilibrium { signs })
    }
    /// All 2^n equilibria, hanging first, in binary order of the inverted links.
    pub fn all(n: usize) -> Result<Vec<Equilibrium>, ModesError> {
        if n > MAX_ALL_EQUILIBRIA_LINKS {
            return Err(ModesError::TooMany {
                links: n,
                max: MAX_ALL_EQUILIBRIA_LINKS,
            });
        }
        Ok((0..1u64 << n)
            .map(|bits| Equilibrium {
                signs: (0..n)
                    .map(|j| if bits >> j & 1 == 1 { -1 } else { 1 })
                    .collect(),
            })
            .collect())
    }
    pub fn label(&self) -> String {
        self.signs
            .iter()
            .map(|&s| if s > 0 { '+' } else { '-' })
            .collect()
    }
    /// The angles θ*_j (0 or π).
    pub fn theta(&self) -> Vec<f64> {
        self.signs
            .iter()
            .map(|&s| if s > 0 { 0.0 } else { std::f64::consts::PI })
            .collect()
    }
    /// Number of links pointing up.
    pub fn inverted_links(&self) -> usize {
        self.signs.iter().filter(|&&s| s < 0).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_strings() {
        assert_eq!(Equilibrium::parse("+-+", 3).unwrap().signs, vec![1, -1, 1]);
        assert!(matches!(
            Equilibrium::parse("+x", 2),
            Err(ModesError::BadSigns(_))
        ));
        assert!(matches!(
            Equilibrium::parse("++", 3),
            Err(ModesError::WrongLength { .. })
        ));
        assert!(matches!(
            Equilibrium::all(17),
            Err(ModesError::TooMany { .. })
        ));
        assert_eq!(Equilibrium::all(3).unwrap().len(), 8);
    }
}
