# %% [markdown]
# # The driven damped pendulum's route to chaos, in Taylor's units
#
# Taylor (*Classical Mechanics*, ch. 12) writes φ̈ + 2β φ̇ + ω₀² sin φ = γ ω₀² cos ωt with the drive
# strength γ, and follows the period doublings at ω = 2π, ω₀ = 1.5 ω, β = ω₀/4. pendula's one-link
# chain m l² θ̈ + c θ̇ + m g l sin θ = A cos Ωt is the same equation with l = 1 m, m = 1/ω₀²,
# g = ω₀², c = 2β/ω₀² and A = γ (docs/textbooks.md), so the torque axis reads γ and the time is
# Taylor's; ω = 2π rad/s is "1 Hz".

# %%
import math

import pendula
from _common import check, figure

w0 = 1.5 * 2 * math.pi
beta = w0 / 4
taylor = pendula.Chain.preset("simple", length=1.0, mass=1 / w0**2, gravity=w0**2,
                              damping={"absolute": 2 * beta / w0**2},
                              drive={"torque": {"amplitude": 1.06, "frequency": "1 Hz"}})

# %% [markdown]
# The orbit diagram: for each γ the stroboscopic samples φ(t = n) after a transient, with λ_max
# below; the period doublings accumulate near γ = 1.083, then chaos.

# %%
diagram = pendula.orbits(taylor, action="diagram", theta=[0.0], parameter="model.drive.torque.amplitude",
                         range=[1.06, 1.09], points=240, transient_periods=200, sampled_periods=32,
                         plot=figure("taylor-diagram.png"))

# %% [markdown]
# The thresholds located by continuation of the period-1 orbit and of each doubled branch,
# against Taylor's table (four decimals; his first, 1.0663, is the located 1.06637… cut, not
# rounded):

# %%
cascade = pendula.orbits(taylor, action="continue", start="settle", theta=[0.0],
                         transient_periods=300, parameter="model.drive.torque.amplitude",
                         range=[1.06, 1.085], points=2000, step=0.002, max_step=0.005,
                         locate_tolerance=1e-10, doublings=2, plot=figure("taylor-cascade.png"))
located = cascade["bifurcations"]
# `kind` is a CF flag variable: its codes and their meanings are attributes.
kinds = dict(zip(located["kind"].attrs["flag_values"], located["kind"].attrs["flag_meanings"].split()))
found = sorted(float(g) for g, k in zip(located["parameter"].values, located["kind"].values)
               if kinds[k] == "period_doubling")
print("period doublings at γ =", ", ".join(f"{g:.10f}" for g in found))
for got, table in zip(found, (1.0663, 1.0793, 1.0821)):
    check(f"threshold near {table}", got, table, 1e-4)
assert len(found) == 3, found
check("Feigenbaum-like ratio (γ₂ − γ₁)/(γ₃ − γ₂)", (found[1] - found[0]) / (found[2] - found[1]),
      4.6692, 0.02)
