#!/usr/bin/env bash
# Regenerates the README's figures (data/*.png) from the shipped specs, at the specs' own
# resolutions, so that every picture the README shows is what its spec produces today.
# Usage: bash analyses/make-figures.sh   (from anywhere; builds the release binary first)
# data/viewer.png is a browser screenshot: tests/browser writes it when PENDULA_SCREENSHOT is set.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin pendula
pendula=target/release/pendula
# spec (analyses/NAME.toml)         figure it writes (out/...)          README image (data/...)
figures=(
  "double-pendulum-flip           double-pendulum-flip.png           double-pendulum-flip.png"
  "triple-pendulum-equilibria     triple-pendulum-equilibria.png     triple-pendulum-modes.png"
  "triple-pendulum-spectrum       triple-pendulum-spectrum.png       triple-pendulum-spectrum.png"
  "double-pendulum-poincare       double-pendulum-poincare.png       double-pendulum-poincare.png"
  "triple-pendulum-animation      triple-pendulum-animation.png      triple-pendulum-animation.png"
  "double-pendulum-flip-dimension double-pendulum-flip-dimension.png double-pendulum-flip-dimension.png"
  "double-pendulum-lyapunov-map   double-pendulum-lyapunov-map.png   double-pendulum-lyapunov-map.png"
  "pendulum-lagrangian-descriptor pendulum-lagrangian-descriptor.png pendulum-lagrangian-descriptor.png"
  "orbits-period-doubling-cascade orbits-period-doubling-cascade.png orbits-period-doubling-cascade.png"
  "orbits-baker-gollub-diagram    orbits-baker-gollub-diagram.png    orbits-baker-gollub-diagram.png"
  "orbits-mathieu-chart           orbits-mathieu-chart.png           orbits-mathieu-chart.png"
  "orbits-kapitza-chart           orbits-kapitza-chart.png           orbits-kapitza-chart.png"
  "orbits-kapitza-double-window   orbits-kapitza-double-window.png   orbits-kapitza-double-window.png"
  "orbits-baker-gollub-curves     orbits-baker-gollub-curves.png     orbits-baker-gollub-curves.png"
  "double-pendulum-clv            double-pendulum-clv.png            double-pendulum-clv.png"
  "double-pendulum-diffusion      double-pendulum-diffusion.png      double-pendulum-diffusion.png"
  "baker-gollub-lambda-sweep      baker-gollub-lambda-sweep.png      baker-gollub-lambda-sweep.png"
  "manifolds-baker-gollub-tangle  manifolds-baker-gollub-tangle.png  manifolds-baker-gollub-tangle.png"
  "manifolds-first-tangency       manifolds-first-tangency.png       manifolds-first-tangency.png"
  "manifolds-double-pendulum      manifolds-double-pendulum.png      manifolds-double-pendulum.png"
  "manifolds-double-pendulum-sea  manifolds-double-pendulum-sea.png  manifolds-double-pendulum-sea.png"
)
# The Baker–Gollub tangle is drawn over this final-state map (its spec's map_file).
"$pendula" run analyses/manifolds-baker-gollub-basins.toml --force >/dev/null
for row in "${figures[@]}"; do
  read -r spec figure image <<<"$row"
  "$pendula" run "analyses/$spec.toml" --force >/dev/null
  cp "out/$figure" "data/$image"
  echo "data/$image <- analyses/$spec.toml" >&2
done
# The same map's second figure: ν2 against ν1 with the resonance lines.
"$pendula" render out/double-pendulum-diffusion.h5 --show frequency_map --force \
  -o data/double-pendulum-frequency-map.png
# The onset of chaos: the chaotic fraction of nine shells with its convergence ladder (2 min).
"$pendula" measure --chaotic-fraction --energies -25,-24,-23,-22,-21,-20,-19,-18,-15 --samples 200 \
  --seed 1 --t-end 3200 --force -o out/double-pendulum-onset-of-chaos.h5 >/dev/null \
  --plot data/double-pendulum-onset-of-chaos.png
# The Python example's figure (needs the package and matplotlib: python3 -m pip install ./python matplotlib).
python3 analyses/python/lyapunov-sweep.py >/dev/null  # writes data/lyapunov-sweep.png
# The gallery (analyses/gallery/, which the tests run too): every notebook draws its figures into
# out/gallery, and the README shows four of them (needs the package in ${PYTHON:-python3}).
for script in analyses/gallery/[a-z]*.py; do
  (cd analyses/gallery && PENDULA_GALLERY_OUT=../../out/gallery "${PYTHON:-python3}" "$(basename "$script")" >/dev/null)
done
cp out/gallery/equations.png data/gallery-equations.png
cp out/gallery/taylor-diagram.png data/gallery-taylor-diagram.png
cp out/gallery/kapitza.png data/gallery-kapitza.png
cp out/gallery/sections.png data/gallery-sections.png
