# %% [markdown]
# # The double pendulum: from its Lagrangian to pendula's trajectory
#
# Two point masses m₁, m₂ on massless rods l₁, l₂, angles θ₁, θ₂ from the downward vertical.
# The positions are x₁ = l₁ sin θ₁, y₁ = −l₁ cos θ₁, x₂ = x₁ + l₂ sin θ₂, y₂ = y₁ − l₂ cos θ₂, so
#
#     T = ½ (m₁ + m₂) l₁² θ̇₁² + ½ m₂ l₂² θ̇₂² + m₂ l₁ l₂ θ̇₁ θ̇₂ cos(θ₁ − θ₂),
#     V = −(m₁ + m₂) g l₁ cos θ₁ − m₂ g l₂ cos θ₂,
#
# and the Euler–Lagrange equations of L = T − V, solved for the accelerations, are (Δ = θ₁ − θ₂,
# D = 2m₁ + m₂ − m₂ cos 2Δ)
#
#     θ̈₁ = [−g (2m₁ + m₂) sin θ₁ − m₂ g sin(θ₁ − 2θ₂) − 2 m₂ sin Δ (θ̇₂² l₂ + θ̇₁² l₁ cos Δ)] / (l₁ D),
#     θ̈₂ = [2 sin Δ (θ̇₁² l₁ (m₁ + m₂) + g (m₁ + m₂) cos θ₁ + θ̇₂² l₂ m₂ cos Δ)] / (l₂ D).
#
# pendula integrates the same motion in its general form M(θ) θ̈ = f(θ, θ̇) for any chain. Here
# both are stepped by the classical RK4 with the same step, and must agree to round-off; the
# energy T + V of pendula's samples must match the formula above and stay constant.

# %%
import numpy as np

import pendula
from _common import check, figure

m1, m2, l1, l2, g = 1.0, 1.0, 1.0, 1.0, 9.81


def accelerations(th1, th2, w1, w2):
    d = th1 - th2
    den = 2 * m1 + m2 - m2 * np.cos(2 * d)
    a1 = (-g * (2 * m1 + m2) * np.sin(th1) - m2 * g * np.sin(th1 - 2 * th2)
          - 2 * m2 * np.sin(d) * (w2**2 * l2 + w1**2 * l1 * np.cos(d))) / (l1 * den)
    a2 = (2 * np.sin(d) * (w1**2 * l1 * (m1 + m2) + g * (m1 + m2) * np.cos(th1)
                           + w2**2 * l2 * m2 * np.cos(d))) / (l2 * den)
    return a1, a2


def rk4(x, dt):
    def f(x):
        a1, a2 = accelerations(*x)
        return np.array([x[2], x[3], a1, a2])
    k1 = f(x)
    k2 = f(x + dt / 2 * k1)
    k3 = f(x + dt / 2 * k2)
    k4 = f(x + dt * k3)
    return x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def energy(th1, th2, w1, w2):
    t = 0.5 * (m1 + m2) * l1**2 * w1**2 + 0.5 * m2 * l2**2 * w2**2 \
        + m2 * l1 * l2 * w1 * w2 * np.cos(th1 - th2)
    return t - (m1 + m2) * g * l1 * np.cos(th1) - m2 * g * l2 * np.cos(th2)


# %% [markdown]
# Released from rest at θ = (1.0, 0.5) rad, 10 s with RK4 steps of 1 ms, sampled every 10 ms:

# %%
dt, every, samples = 1e-3, 10, 1001
x = np.array([1.0, 0.5, 0.0, 0.0])
mine = [x]
for _ in range(samples - 1):
    for _ in range(every):
        x = rk4(x, dt)
    mine.append(x)
mine = np.array(mine)

chain = pendula.Chain.preset("double", gravity=g)
ds = pendula.simulate(chain, [1.0, 0.5], t_end=10.0, dt_out=0.01, method="rk4", dt=dt,
                      plot=figure("equations.png"))
theta, omega = ds["theta"].values, ds["omega"].values
check("largest |θ − θ(scalar equations)| (rad)", np.max(np.abs(theta - mine[:, :2])), 0.0, 1e-10)
check("largest |θ̇ − θ̇(scalar equations)| (rad/s)", np.max(np.abs(omega - mine[:, 2:])), 0.0, 1e-9)

# %% [markdown]
# The energy pendula stores against T + V of its own samples, and its drift over the run:

# %%
e = energy(theta[:, 0], theta[:, 1], omega[:, 0], omega[:, 1])
check("largest |E(pendula) − (T + V)| (J)", np.max(np.abs(ds["energy"].values - e)), 0.0, 1e-12)
check("energy drift over 10 s (J)", np.max(np.abs(e - e[0])), 0.0, 1e-6)
