# %% [markdown]
# # Heyl's flip-time fractal of the double pendulum
#
# Every pixel is a release from rest at (θ₁, θ₂); its colour is the first time either arm flips
# over (passes ±π). Released from rest, the energy is E = −m g l (2 cos θ₁ + cos θ₂) (equal
# masses and lengths), and the least energy with which an arm can pass the top is that of the
# lower arm upright over the hanging upper one, −m g l; so where 2 cos θ₁ + cos θ₂ > 1 no arm can
# ever flip. pendula classifies those pixels without integrating them (grey in the figure); here
# that region is counted from the formula on the same pixel centres.

# %%
import numpy as np

import pendula
from _common import check, figure

double = pendula.Chain.preset("double")
ds = pendula.map(double, kind="flip-time", resolution=400, t_end=20.0, dt=0.01,
                 plot=figure("heyl.png"))
classes = ds["class"]
codes = dict(zip(classes.attrs["flag_meanings"].split(), classes.attrs["flag_values"]))

# %% [markdown]
# The energetically forbidden pixels against the formula, and how many flipped within 20 s:

# %%
th1, th2 = np.meshgrid(ds["theta1"].values, ds["theta2"].values)
forbidden = 2 * np.cos(th1) + np.cos(th2) > 1
check("forbidden pixels", int((classes.values == codes["energetically_forbidden"]).sum()),
      int(forbidden.sum()), 0)
flipped = (classes.values == codes["flipped"]).mean()
print(f"flipped within 20 s: {flipped:.1%} of the pixels")
assert (classes.values[forbidden] == codes["energetically_forbidden"]).all()
# The map is symmetric under (θ₁, θ₂) → (−θ₁, −θ₂) (the pixel grid is too): a check on the run.
check("largest asymmetry of the flip time (s)",
      float(np.nanmax(np.abs(ds["flip_time"].values - ds["flip_time"].values[::-1, ::-1]))), 0.0, 0.0)
