//! Fixtures shared by the integration tests.

use pendula::model::{Chain, ChainParams, Damping, Drive, Harmonic, Link, PivotMotion};

/// Absolute + joint damping, a pivot torque and a moving pivot.
pub fn forced(links: Vec<Link>) -> Chain {
    let n = links.len();
    let mut p = ChainParams::new(links);
    p.damping = Damping {
        absolute: (0..n).map(|j| 0.05 + 0.01 * j as f64).collect(),
        joint: (0..n).map(|j| 0.03 + 0.02 * j as f64).collect(),
    };
    p.drive = Drive {
        torque: Some(Harmonic {
            amplitude: 0.7,
            frequency: 2.3,
            phase: 0.4,
        }),
        pivot: Some(PivotMotion {
            x_amplitude: 0.02,
            y_amplitude: 0.05,
            frequency: 7.0,
            phase: 0.1,
        }),
    };
    Chain::new(p).unwrap()
}
