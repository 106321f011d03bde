# %% [markdown]
# # Poincaré sections and frequency analysis: regular tori and the chaotic sea
#
# On the energy shell E = −10 J of the double pendulum (hanging rest −29.43 J, upright +29.43 J)
# every orbit started on the section θ₁ = 0 (θ̇₁ > 0) is followed through 300 returns: a regular
# orbit draws a closed curve (a torus cut), a chaotic one fills an area. pendula locates each
# crossing on the integrator's dense output and colours the orbits its finite-time Lyapunov
# exponent calls chaotic grey.
#
# Frequency analysis (NAFF) measures the same thing on one orbit: a regular orbit has fixed
# fundamental frequencies, so those of the run's two halves agree to many digits and the
# diffusion index log₁₀|Δν| is very negative; in a chaotic orbit they wander.

# %%
import math

import numpy as np

import pendula
from _common import check, figure

double = pendula.Chain.preset("double")
sections = pendula.poincare(double, energy=[-10.0], grid=[6, 4], crossings=300,
                            plot=figure("sections.png"))
shell = sections["shell_1"]
print(f"{shell.sizes['orbit']} orbits, {int(shell['count'].sum())} crossings")

# %% [markdown]
# A small oscillation, θ = (0.3, 0.2) rad: its fundamentals are the two normal modes,
# ω² = (g/l)(2 ∓ √2) in the small-angle limit, lowered a little by the amplitude.

# %%
regular = pendula.frequencies(double, [0.3, 0.2], t_end=400.0, plot=figure("frequencies.png"))
nu = np.sort(regular["fundamental_frequency"].values)
for k, sign in enumerate((-1, 1)):
    linear = math.sqrt(9.81 * (2 + sign * math.sqrt(2)))
    check(f"fundamental {k + 1} against its small-angle value (rad/s), within 2 %", nu[k], linear,
          0.02 * linear)
print(f"diffusion index: regular {regular.attrs['diffusion_index']:.2f}")
assert regular.attrs["diffusion_index"] < -8

chaotic = pendula.frequencies(double, [2.0, 2.0], t_end=400.0)
print(f"diffusion index: chaotic {chaotic.attrs['diffusion_index']:.2f}")
assert chaotic.attrs["diffusion_index"] > -4
