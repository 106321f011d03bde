"""The Python route for `pendula bench orbits`' period-doubling curve (issue 50): the first
period doubling of the Baker–Gollub pendulum, theta'' + theta'/2 + sin(theta) = A cos(w t),
continued in (A, w) over 200 points, as a researcher would build it with SciPy alone.

Unknowns y = (theta0, omega0, A, w); equations G(y) = (phi(T; x0) - x0, det(M + I)) with
T = 2 pi / w and M the monodromy from the variational equations (integrated with the orbit by
solve_ivp's DOP853 at rtol = atol = 1e-11); pseudo-arclength continuation, Newton with G's
Jacobian by forward differences (each column one more integration), the tangent as the null
vector of that Jacobian. The same start as pendula's: the period doubling located on the
branch at w = 2/3 (pass it on the command line, or let the script locate it by bisection on
det(M + I) along A).

Run: python benches/python/pd_curve_scipy.py [--points 200] [--start A theta0 omega0]
Prints one JSON line: wall seconds, points, the curve's end, and a few (A, w) pairs to compare
with pendula's curve.
"""

import argparse
import json
import time

import numpy as np
from scipy.integrate import solve_ivp

RTOL = 1e-11


def rhs(t, u, a, w):
    th, om = u[0], u[1]
    m = u[2:].reshape(2, 2)
    c = np.cos(th)
    jac = np.array([[0.0, 1.0], [-c, -0.5]])
    du = np.empty(6)
    du[0] = om
    du[1] = -0.5 * om - np.sin(th) + a * np.cos(w * t)
    du[2:] = (jac @ m).ravel()
    return du


def flow(x0, a, w):
    """phi(T; x0) and the monodromy."""
    u0 = np.concatenate([x0, np.eye(2).ravel()])
    s = solve_ivp(rhs, (0.0, 2 * np.pi / w), u0, method="DOP853", rtol=RTOL, atol=RTOL,
                  args=(a, w))
    u = s.y[:, -1]
    return u[:2], u[2:].reshape(2, 2)


def residual(y):
    x, m = flow(y[:2], y[2], y[3])
    return np.array([x[0] - y[0], x[1] - y[1], np.linalg.det(m + np.eye(2))])


def jacobian(y, g):
    j = np.empty((3, 4))
    for k in range(4):
        h = 1e-7 * max(1.0, abs(y[k]))
        yk = y.copy()
        yk[k] += h
        j[:, k] = (residual(yk) - g) / h
    return j


def tangent(j, prev):
    _, _, vt = np.linalg.svd(j)
    t = vt[-1]
    return t if t @ prev >= 0 else -t


def newton(y, base, t, ds):
    for _ in range(12):
        g = residual(y)
        arc = (y - base) @ t - ds
        if max(np.abs(g).max(), abs(arc)) < 1e-10:
            return y, jacobian(y, g)
        j = jacobian(y, g)
        a = np.vstack([j, t])
        y = y + np.linalg.solve(a, -np.concatenate([g, [arc]]))
    raise RuntimeError("Newton did not converge")


def locate(a_lo, a_hi, x0, w=2.0 / 3.0):
    """The period doubling on the period-1 branch in A at fixed w, by bisection on det(M + I),
    Newton for the orbit at each A (simple, as a researcher would)."""
    def orbit(a, x):
        for _ in range(30):
            xt, m = flow(x, a, w)
            f = xt - x
            if np.abs(f).max() < 1e-11:
                return x, np.linalg.det(m + np.eye(2))
            x = x - np.linalg.solve(m - np.eye(2), f)
        raise RuntimeError("orbit Newton failed")
    x, dlo = orbit(a_lo, x0)
    _, dhi = orbit(a_hi, x)
    assert dlo * dhi < 0
    while a_hi - a_lo > 1e-10:
        am = 0.5 * (a_lo + a_hi)
        x, dm = orbit(am, x)
        if dm * dlo > 0:
            a_lo, dlo = am, dm
        else:
            a_hi = am
    return a_lo, x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=200)
    ap.add_argument("--step", type=float, default=0.01)
    ap.add_argument("--start", type=float, nargs=3, metavar=("A", "THETA0", "OMEGA0"))
    args = ap.parse_args()
    t0 = time.perf_counter()
    if args.start:
        a, th, om = args.start
        x = np.array([th, om])
    else:
        a, x = locate(1.06, 1.07, np.array([-0.5, 1.0]))
    y = np.array([x[0], x[1], a, 2.0 / 3.0])
    # The first point: w held, A free.
    e = np.array([0.0, 0.0, 0.0, 1.0])
    y, j = newton(y, y.copy(), e, 0.0)
    t = tangent(j, e)
    pts = [y.copy()]
    t_loc = time.perf_counter() - t0
    while len(pts) < args.points:
        y_new, j = newton(y + args.step * t, y, t, args.step)
        t = tangent(j, t)
        y = y_new
        pts.append(y.copy())
    wall = time.perf_counter() - t0
    pts = np.array(pts)
    print(json.dumps({
        "route": "scipy solve_ivp DOP853 + variational equations, FD Jacobian, pseudo-arclength",
        "wall_s": wall,
        "locate_s": t_loc,
        "points": len(pts),
        "from": pts[0, 2:].tolist(),
        "to": pts[-1, 2:].tolist(),
        "samples": pts[:: max(1, len(pts) // 5), :].tolist(),
    }))


if __name__ == "__main__":
    main()
