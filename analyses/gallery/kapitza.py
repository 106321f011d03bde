# %% [markdown]
# # Kapitza's pendulum: standing upright on a pivot vibrated at 60 Hz
#
# A pendulum (point mass, l = 1 m) whose pivot moves up and down as a cos Ωt, at Ω = 2π·60 rad/s,
# starts upside down. pendula's model is exact (no averaging): in the pivot's frame gravity is
# g − aΩ² cos Ωt. Continuing the upright orbit in the amplitude a, the multipliers leave the unit
# circle where the upright position stops being stable; below that edge the pendulum falls.
#
# Two independent routes to the edge: Kapitza's averaging gives a²Ω² > 2 g l, i.e.
# a > √(2 g l)/Ω; and linearised about the top, with τ = Ωt/2, the motion is Mathieu's equation
# u'' + (a_M − 2 q cos 2τ) u = 0 with a_M = −4g/(lΩ²), q = 2a/l, whose even π-periodic
# solutions bound the stable region at a_M = a₀(q). a₀(q) is computed below as the least
# eigenvalue of the truncated Hill matrix (a recurrence on the Fourier cosines), no pendula in it.

# %%
import math

import numpy as np

import pendula
from _common import check, figure

g, l, Omega = 9.81, 1.0, 2 * math.pi * 60
chain = pendula.Chain.preset("simple", gravity=g, length=l,
                             drive={"pivot": {"y_amplitude": 0.03, "frequency": "60 Hz"}})
branch = pendula.orbits(chain, action="continue", theta=[math.pi], parameter="model.drive.pivot.y_amplitude",
                        range=[0.005, 0.05], direction="both", points=400, step=2e-4, max_step=5e-4,
                        newton_tolerance=1e-11, locate_tolerance=1e-12, rtol=1e-13, atol=1e-13,
                        plot=figure("kapitza.png"))
located = branch["bifurcations"]
edge = float(located["parameter"].values.min())
print(branch.pendula.report)


# %% [markdown]
# Mathieu's a₀(q) from the Hill matrix (diag 0, 4, 16, 36, …; couplings √2 q, then q), and the
# amplitude where a₀(2a/l) = −4g/(lΩ²), by bisection:

# %%
def a0(q, n=40):
    m = np.diag([(2.0 * r) ** 2 for r in range(n)])
    for r in range(n - 1):
        m[r, r + 1] = m[r + 1, r] = q * (math.sqrt(2) if r == 0 else 1.0)
    return np.linalg.eigvalsh(m)[0]


target = -4 * g / (l * Omega**2)
lo, hi = 0.0, 1.0  # in q; a₀ falls from 0 as q grows
for _ in range(200):
    mid = 0.5 * (lo + hi)
    lo, hi = (mid, hi) if a0(mid) > target else (lo, mid)
mathieu = 0.5 * (lo + hi) * l / 2
kapitza = math.sqrt(2 * g * l) / Omega
check("lower edge against Mathieu's a₀ (m)", edge, mathieu, 1e-10)
check("lower edge against Kapitza's √(2gl)/Ω (m), within 0.1 %", edge, kapitza, 1e-3 * kapitza)
