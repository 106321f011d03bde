//! Normal modes of the equal hanging chain (benchmark M of docs/benchmarks.md, dense route):
//! the generalized symmetric-definite eigenproblem K v = ω² M v at N = 10, 100, 1000,
//! eigenvalues only and with eigenvectors; and the structured route (symmetric tridiagonal
//! reduction, `analysis::modes::structured`) at N = 10, 100, 1000, 10⁴.
//! Run: `cargo bench --bench modes` (`-- modes_structured` for the structured route only).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use nalgebra::DMatrix;
use pendula::analysis::modes::structured::TridiagonalReduction;
use pendula::analysis::modes::{generalized_symmetric_eigen, linearize, Equilibrium};
use pendula::model::{Chain, ChainParams};
use std::hint::black_box;

/// Eigenvalues only: the same Cholesky reduction, then nalgebra's symmetric eigenvalues.
fn eigenvalues_only(m: &DMatrix<f64>, k: &DMatrix<f64>) -> Vec<f64> {
    let l = m.clone().cholesky().unwrap().l();
    let x = l.solve_lower_triangular(k).unwrap();
    let c = l.solve_lower_triangular(&x.transpose()).unwrap();
    let c = (&c + c.transpose()) * 0.5;
    c.symmetric_eigenvalues().iter().copied().collect()
}

fn modes(c: &mut Criterion) {
    let mut group = c.benchmark_group("modes_dense");
    group.sample_size(10);
    for &n in &[10usize, 100, 1000] {
        let chain = Chain::new(ChainParams::equal_points(n)).unwrap();
        let (m, k) = linearize(&chain, &Equilibrium::hanging(n));
        group.bench_function(BenchmarkId::new("eigenvalues", n), |b| {
            b.iter(|| eigenvalues_only(black_box(&m), black_box(&k)))
        });
        group.bench_function(BenchmarkId::new("eigenvalues+vectors", n), |b| {
            b.iter(|| generalized_symmetric_eigen(black_box(&m), black_box(&k)).unwrap())
        });
    }
    group.finish();
}

/// Benchmark M on the structured route: the reduction is part of the timed work.
fn modes_structured(c: &mut Criterion) {
    let mut group = c.benchmark_group("modes_structured");
    group.sample_size(10);
    for &n in &[10usize, 100, 1000, 10_000] {
        let chain = Chain::new(ChainParams::equal_points(n)).unwrap();
        let eq = Equilibrium::hanging(n);
        group.bench_function(BenchmarkId::new("eigenvalues", n), |b| {
            b.iter(|| {
                TridiagonalReduction::new(black_box(&chain), &eq)
                    .unwrap()
                    .eigenvalues()
            })
        });
        group.bench_function(BenchmarkId::new("eigenvalues+vectors", n), |b| {
            b.iter(|| {
                TridiagonalReduction::new(black_box(&chain), &eq)
                    .unwrap()
                    .eigen()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, modes, modes_structured);
criterion_main!(benches);
