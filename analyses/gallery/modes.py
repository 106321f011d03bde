# %% [markdown]
# # Normal modes of the double pendulum against the small-angle formulas
#
# Two equal point masses m on massless rods of length l. Linearised about the hanging rest,
# M θ̈ + K θ = 0 with M = m l² [[2, 1], [1, 1]] and K = m g l diag(2, 1); det(K − ω² M) = 0 gives
# ω² = (g/l)(2 ∓ √2): the in-phase mode (amplitudes 1 : √2) and the anti-phase mode (1 : −√2).
# pendula solves the generalised eigenproblem of the linearisation for any chain; here it
# meets the closed form, and its figure draws the mode shapes.

# %%
import math

import pendula
from _common import check, figure

g, l = 9.81, 1.0
double = pendula.Chain.preset("double", gravity=g, length=l)
ds = pendula.modes(double, plot=figure("modes.png"))
print(ds.pendula.report)

# %% [markdown]
# The squared frequencies of the hanging equilibrium, lowest first, against (g/l)(2 ∓ √2):

# %%
omega2 = ds["omega2"].values[0]
for k, sign in enumerate((-1, 1)):
    check(f"ω² of mode {k + 1} (rad²/s²)", omega2[k], g / l * (2 + sign * math.sqrt(2)), 1e-10)
