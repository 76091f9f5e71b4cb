"""Where Modelica tools chatter: the numbers of docs/src/chattering.md.

Three cases users reported against OpenModelica and the Modelica Standard Library, written
as lcsfmu models (models/filippov_slide.toml, models/pm_braking_bridge.toml,
models/heat_losses_friction.toml). For each, this script

- computes an independent reference: the closed-form Filippov solution of the sliding
  mode, and for the other two an event-driven integration (SciPy's DOP853, rtol 1e-11)
  of the Filippov system with its mode logic written here by hand (stick/slip of each
  friction element; conduction of each bridge phase), each mode a smooth ODE;
- runs the lcsfmu FMU (built with `--interface cs,me`) through FMPy as Co-Simulation at
  the model's step and as Model Exchange under FMPy's CVode (output interval the model's
  step), counting steps (fmi2DoStep calls; CVode's internal steps, CVodeGetNumSteps summed
  over its restarts), events (fmi2EnterEventMode calls) and wall time (the best of three
  runs without the call logger), and the largest state error against the reference at the
  output points;
- runs the event-based formulation a Modelica tool simulates (the `if` of the issue, the
  friction element's direction, the ideal diode's `off = s < 0`) through SciPy's
  solve_ivp with terminal events, restarting at each zero-crossing with the relation
  re-evaluated, to show what event-based integration does there.

Usage:
    .venv/bin/python scripts/chattering.py [--lcsfmu target/release/lcsfmu] [--out DIR]
        [--cases filippov_slide,pm_braking_bridge,heat_losses_friction]

It prints one Markdown table per case: the rows of docs/src/chattering.md. The reference
functions are imported by tests/python/test_chattering.py.
"""
from __future__ import annotations

import argparse
import ctypes
import math
import re
import subprocess
import tempfile
import time as clock
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "models"
RTOL, ATOL = 1e-11, 1e-13
# The event-based runs locate a zero-crossing once the relation's function is this far past
# zero (a hysteresis band, as event-locating tools keep one), so that the crossing back is
# seen from the new side.
HYST = 1e-12


# ----------------------------------------------------------------------------- hybrid ODE

def choose(rhs, guards, candidates, t, x, old, dt):
    """The mode to continue with at (t, x): of the candidate modes the state allows, the
    ones whose own flow leaves no guard negative and decreasing after two Euler steps of
    dt (Filippov's selection: a guard at zero that decreases rules its mode out; one a hair
    below zero from the event's location but not decreasing does not; two steps see a
    guard whose first derivative is zero at a tie, such as a diode about to conduct, by
    its second); of those, the one that changes the fewest elements of the old mode."""
    ok = []
    for y, mode in candidates(t, x, old):
        y1 = y + dt * np.asarray(rhs(t, y, mode))
        y2 = y1 + dt * np.asarray(rhs(t + dt, y1, mode))
        g0, g2 = guards(t, y, mode), guards(t + 2 * dt, y2, mode)
        if all(a >= -1e-9 and (b >= 0 or b >= a) for a, b in zip(g0, g2)):
            changed = 0 if old is None else sum(a != b for a, b in zip(mode, old))
            ok.append((changed, mode, y))
    if not ok:
        raise RuntimeError(f"no consistent mode at t = {t!r}, x = {list(x)!r}, old mode {old}")
    ok.sort(key=lambda c: c[0])
    return ok[0][2], ok[0][1]


def hybrid(rhs, guards, candidates, t_span, x0, dt, breaks=(), method="DOP853", rtol=RTOL,
           atol=ATOL, max_events=100_000, wall=None, dense=True):
    """Event-driven integration of a system with modes: `rhs(t, x, mode)` is smooth in each
    mode, `guards(t, x, mode)` lists functions that are >= 0 while the mode holds (always
    as many), and `candidates(t, x, old)` lists the (state, mode) pairs the state allows;
    `choose` picks the next mode whenever a guard reaches zero. `breaks` are times where
    the right-hand side has a kink in time (integration restarts there). Returns (segments,
    events, nfev, reached); segments are solve_ivp solutions (dense output) with modes."""
    t0, t_end = t_span
    x, mode = choose(rhs, guards, candidates, t0, np.asarray(x0, dtype=float), None, dt)
    segs, events, nfev = [], 0, 0
    stops = sorted([b for b in breaks if t0 < b < t_end]) + [t_end]
    start = clock.perf_counter()
    t, stalled = t0, 0
    while t < t_end and events < max_events:
        if wall is not None and clock.perf_counter() - start > wall:
            break
        stop = next(s for s in stops if s > t)
        m = mode
        fns = []
        for k in range(len(guards(t, x, m))):
            def g(tt, xx, k=k, m=m):
                return guards(tt, xx, m)[k]
            g.terminal, g.direction = True, -1
            fns.append(g)
        sol = solve_ivp(lambda tt, xx: rhs(tt, xx, m), (t, stop), x, method=method,
                        rtol=rtol, atol=atol, events=fns, dense_output=dense)
        nfev += sol.nfev
        if dense:
            segs.append((sol, m))
        if sol.status not in (0, 1):
            raise RuntimeError(sol.message)
        events += sol.status
        t_new = float(sol.t[-1]) if sol.status == 1 else stop
        stalled = stalled + 1 if t_new <= t else 0
        if stalled > 100:
            raise RuntimeError(f"no progress at t = {t!r} (mode {m})")
        t = t_new
        x, mode = choose(rhs, guards, candidates, t, sol.y[:, -1].copy(), m, dt)
    return segs, events, nfev, t


def sample(segs, times, n):
    """The hybrid solution at `times` (each time from the last segment that covers it)."""
    out = np.full((len(times), n), np.nan)
    for sol, _ in segs:
        a, b = sol.t[0], sol.t[-1]
        sel = (times >= a) & (times <= b)
        if sel.any():
            out[sel] = sol.sol(times[sel]).T
    return out


# ----------------------------------------------------------------------------- case 1

def slide_exact(t):
    """OpenModelica #12190's Test1, exactly: s = x - y falls at 7/2 until t1 = 1/7, then
    x = y slides at -6/17 (the equivalent control u = 3/17)."""
    t = np.asarray(t, dtype=float)
    t1 = 1.0 / 7.0
    x = np.where(t < t1, 1.5 - 2.0 * t, 17.0 / 14.0 - 6.0 / 17.0 * (t - t1))
    y = np.where(t < t1, 1.0 + 1.5 * t, 17.0 / 14.0 - 6.0 / 17.0 * (t - t1))
    return {"x": x, "y": y}


def slide_events(max_events=10_000, wall=20.0):
    """Test1 as an event-based tool integrates it: der(x) = if x > y then -2 else 2,
    der(y) = if y > x then -3 else 1.5, the relations fixed between events and the
    crossing of x - y located by solve_ivp (RK45, its default tolerances); at each crossing
    the relations change sides, and the integration restarts there."""
    def rhs(t, z, side):  # side = +1: x > y
        return [-2.0, 1.5] if side > 0 else [2.0, -3.0]

    def guards(t, z, side):
        return [side * (z[0] - z[1]) + HYST]

    def select(t, z, side):
        return z, (1 if z[0] > z[1] else -1) if side is None else -side
    _, ev, nfev, reached = hybrid_rk45(rhs, guards, select, (0.0, 1.0), [1.5, 1.0],
                                      max_events=max_events, wall=wall)
    return {"events": ev, "nfev": nfev, "reached": reached}


class _OutOfTime(Exception):
    pass


def hybrid_rk45(rhs, guards, select, t_span, x0, max_events, wall, rtol=1e-3, atol=1e-6,
                keep=False, method="RK45"):
    """An event-based run: solve_ivp (by default RK45 at its default tolerances, as a user's
    run would have) with terminal events on `guards`, restarted after each with the mode
    `select` gives; no Filippov selection. Stops at the end, after `max_events` events or
    after `wall` seconds (checked in every evaluation of the right-hand side). Returns
    (segments if `keep`, events, nfev, the time reached)."""
    t0, t_end = t_span
    x = np.asarray(x0, dtype=float)
    mode = select(t0, x, None)[1]
    segs, events, nfev, t = [], 0, 0, t0
    start = clock.perf_counter()
    while t < t_end and events < max_events:
        m = mode
        fns = []
        for k in range(len(guards(t, x, m))):
            def g(tt, xx, k=k, m=m):
                return guards(tt, xx, m)[k]
            g.terminal, g.direction = True, -1
            fns.append(g)
        seen = {"t": t, "n": 0}

        def f(tt, xx, m=m):
            seen["n"] += 1
            if seen["n"] % 1000 == 0 and clock.perf_counter() - start > wall:
                raise _OutOfTime
            seen["t"] = max(seen["t"], tt)
            return rhs(tt, xx, m)
        try:
            sol = solve_ivp(f, (t, t_end), x, events=fns, rtol=rtol, atol=atol,
                            dense_output=keep, method=method)
        except _OutOfTime:
            nfev += seen["n"]
            t = seen["t"]
            break
        nfev += sol.nfev
        if keep:
            segs.append((sol, m))
        t = float(sol.t[-1])
        if sol.status == 1:
            events += 1
            x, mode = select(t, sol.y[:, -1].copy(), m)
        elif sol.status != 0:
            raise RuntimeError(sol.message)
        if clock.perf_counter() - start > wall:
            break
    return segs, events, nfev, t


# ----------------------------------------------------------------------------- case 3

class HeatLosses:
    """MSL Translational.Examples.HeatLosses' friction chain (models/heat_losses_friction.toml),
    state (s1, v1, s2, v2, s3, v3, s4, v4). Mode: (gap, f2, f3, f4) with gap in {0: no
    contact, 1: contact, damping at -c pen, 2: contact, damping free, 3: contact, damping
    at +c pen} and each friction mode in {-1, 0 (stuck), +1}."""
    L, NAMES, DT = 0.1, ["s1", "v1", "s2", "v2", "s3", "v3", "s4", "v4"], 1e-9

    @staticmethod
    def brake_bound(t):
        return 0.5 * 10.0 * max(10.0 * math.sin(4 * math.pi * t), 0.0)

    def other_forces(self, t, x, gap):
        """The forces on each mass but its friction (in gap mode `gap`)."""
        s1, v1, s2, v2, s3, v3, s4, v4 = x
        L = self.L
        f_sd = 100.0 * (s2 - s1 - L) + 10.0 * (v2 - v1)
        f_sp = 100.0 * (s3 - s2 - L)
        f_sd1 = 1e4 * (s4 - s3 - L) + 1e3 * (v4 - v3)
        pen = 0.03 - s1 if gap else 0.0
        fc = 100.0 * pen
        fd = (0.0, -fc, 20.0 * v1, fc)[gap]
        F1 = 20.0 * math.sin(2 * math.pi * t) - 10.0 * v1 + fc - fd + f_sd
        return F1, -f_sd + f_sp, -f_sp + f_sd1, -f_sd1

    def slide_force(self, i, t, v, sigma):
        if i == 0:
            return sigma * 1.0
        if i == 1:
            return sigma * self.brake_bound(t)
        return 0.5 * v + sigma * (1.0 + 2.0 * math.exp(-2.0 * sigma * v))

    def bound(self, i, t):
        return (1.0, self.brake_bound(t), 3.0)[i]

    def rhs(self, t, x, mode):
        gap, fr = mode[0], mode[1:]
        F = self.other_forces(t, x, gap)
        dx = np.empty(8)
        dx[0], dx[1] = x[1], F[0]
        for i in range(3):
            k = 2 + 2 * i
            if fr[i] == 0:
                dx[k] = dx[k + 1] = 0.0
            else:
                dx[k] = x[k + 1]
                dx[k + 1] = F[i + 1] - self.slide_force(i, t, x[k + 1], fr[i])
        return dx

    def guards(self, t, x, mode):
        gap, fr = mode[0], mode[1:]
        pen = 0.03 - x[0]
        g = [pen if gap else -pen]
        a, b = 20.0 * x[1] + 100.0 * pen, 100.0 * pen - 20.0 * x[1]
        g += ([1.0, 1.0], [-a, 1.0], [a, b], [-b, 1.0])[gap]
        F = self.other_forces(t, x, gap)
        for i in range(3):
            if fr[i] == 0:
                B = self.bound(i, t)
                g += [B - F[i + 1], B + F[i + 1]]
            else:
                g += [fr[i] * x[3 + 2 * i], 1.0]
        return g

    def candidates(self, t, x, old):
        """Modes the state allows: a moving mass slides its way, a mass at rest may stick or
        slide either way; the gap's region, or both regions at a boundary."""
        tol = 1e-10
        pen = 0.03 - x[0]
        a, b = 20.0 * x[1] + 100.0 * pen, 100.0 * pen - 20.0 * x[1]
        gaps = []
        if pen < tol:
            gaps.append(0)
        if pen > -tol:
            if a < tol:
                gaps.append(1)
            if a > -tol and b > -tol:
                gaps.append(2)
            if b < tol:
                gaps.append(3)
        fr = []
        for i in range(3):
            v = x[3 + 2 * i]
            fr.append([1 if v > 0 else -1] if abs(v) > tol else [0, 1, -1])
        out = []
        for g in gaps:
            for m2 in fr[0]:
                for m3 in fr[1]:
                    for m4 in fr[2]:
                        y = x.copy()
                        for i, m in enumerate((m2, m3, m4)):
                            if abs(y[3 + 2 * i]) <= tol:
                                y[3 + 2 * i] = 0.0
                        out.append((y, (g, m2, m3, m4)))
        return out

    def reference(self, stop=0.4):
        x0 = [0.0, 0.0, 0.1, 0.0, 0.2, 0.0, 0.3, 0.0]
        breaks = [0.25 * k for k in range(1, 9)]
        return hybrid(self.rhs, self.guards, self.candidates, (0.0, stop), x0,
                      dt=self.DT, breaks=breaks)


def heat_losses_reference(times, stop=0.4):
    hl = HeatLosses()
    segs, ev, nfev, reached = hl.reference(stop)
    y = sample(segs, np.asarray(times, dtype=float), 8)
    out = {n: y[:, i] for i, n in enumerate(hl.NAMES)}
    out["_events"], out["_nfev"] = ev, nfev
    return out


def heat_losses_events(max_events=10_000, wall=20.0):
    """The friction laws as an event-based integration sees them without a stuck mode: each
    friction element pushes against the direction of its velocity, the direction a discrete
    variable flipped where the velocity crosses zero (the ElastoGap's force computed as it
    is, its kinks integrated through). A mass at rest flips its direction at each crossing."""
    hl = HeatLosses()

    def gap_mode(x):
        pen = 0.03 - x[0]
        if pen <= 0:
            return 0
        return 1 if 20.0 * x[1] < -100.0 * pen else 3 if 20.0 * x[1] > 100.0 * pen else 2

    def rhs(t, x, fr):
        F = hl.other_forces(t, x, gap_mode(x))
        dx = np.empty(8)
        dx[0], dx[1] = x[1], F[0]
        for i in range(3):
            k = 2 + 2 * i
            dx[k] = x[k + 1]
            dx[k + 1] = F[i + 1] - hl.slide_force(i, t, x[k + 1], fr[i])
        return dx

    def guards(t, x, fr):
        return [fr[i] * x[3 + 2 * i] + HYST for i in range(3)]

    def select(t, x, fr):
        if fr is None:  # the direction the other forces push (all start at rest)
            F = hl.other_forces(t, x, gap_mode(x))
            return x, tuple(1 if F[i + 1] >= 0 else -1 for i in range(3))
        return x, tuple(-m if m * x[3 + 2 * i] <= -HYST / 2 else m for i, m in enumerate(fr))
    _, ev, nfev, reached = hybrid_rk45(rhs, guards, select, (0.0, 0.4),
                                      [0.0, 0.0, 0.1, 0.0, 0.2, 0.0, 0.3, 0.0],
                                      max_events=max_events, wall=wall)
    return {"events": ev, "nfev": nfev, "reached": reached}


class Bridge:
    """models/pm_braking_bridge.toml with three phase currents (ia + ib + ic = 0 is kept
    by every mode): state (phi, w, ia, ib, ic). Mode: (lim, ma, mb, mc), lim 1 while
    w/wN >= 0.1 (R_L proportional to w) and 0 below (R_L at its floor), each phase +1
    (its upper diode conducts, i > 0), -1 (the lower one, i < 0) or 0 (off, i = 0)."""
    p, Rs = 2.0, 0.03
    Ls = 0.4 / (2 * math.pi * 50)
    psi = 112.3 * math.sqrt(2) / (2 * math.pi * 50)
    J, wN = 0.58, 2 * math.pi * 50 / 2
    NAMES, DT = ["phi", "w", "ia", "ib", "ic"], 1e-9

    def shape(self, phi):
        th = self.p * phi
        return np.array([math.sin(th), math.sin(th - 2 * math.pi / 3),
                         math.sin(th - 4 * math.pi / 3)])

    def RL(self, x, lim):
        return math.pi ** 2 / 8 * (x[1] / self.wN if lim else 0.1)

    def solve(self, x, mode):
        """Terminal potentials above dc-, the bridge voltage and the current slopes."""
        lim, ph = mode[0], mode[1:]
        e = self.p * self.psi * x[1] * self.shape(x[0])
        i = np.asarray(x[2:5])
        vdc = self.RL(x, lim) * sum(i[k] for k in range(3) if ph[k] > 0)
        off = [k for k in range(3) if ph[k] == 0]
        on = [k for k in range(3) if ph[k] != 0]
        v = np.zeros(3)
        for k in on:
            v[k] = vdc if ph[k] > 0 else 0.0
        # the star point: the slopes sum to zero (sum e = 0, sum i = 0, off phases flat)
        vstar = 0.0 if len(off) == 3 else (sum(v[k] for k in on) + sum(e[k] for k in off)) / (3 - len(off))
        for k in off:
            v[k] = e[k] + vstar
        di = (e - self.Rs * i - v + vstar) / self.Ls
        for k in off:
            di[k] = 0.0
        return v, vdc, di

    def rhs(self, t, x, mode):
        _, _, di = self.solve(x, mode)
        torque = self.p * self.psi * float(self.shape(x[0]) @ np.asarray(x[2:5]))
        return np.array([x[1], -torque / self.J, *di])

    def guards(self, t, x, mode):
        lim, ph = mode[0], mode[1:]
        v, vdc, _ = self.solve(x, mode)
        g = [x[1] / self.wN - 0.1 if lim else 0.1 - x[1] / self.wN]
        for k in range(3):
            g += [v[k], vdc - v[k]] if ph[k] == 0 else [ph[k] * x[2 + k], 1.0]
        return g

    def candidates(self, t, x, old):
        tol = 1e-9 * max(1e-3, float(np.max(np.abs(x[2:5]))))
        r = x[1] / self.wN - 0.1
        lims = [m for m, ok in ((1, r > -1e-12), (0, r < 1e-12)) if ok]
        phs = [[1 if x[2 + k] > 0 else -1] if abs(x[2 + k]) > tol else [0, 1, -1] for k in range(3)]
        out = []
        for lim in lims:
            for ma in phs[0]:
                for mb in phs[1]:
                    for mc in phs[2]:
                        if sum(m != 0 for m in (ma, mb, mc)) == 1:
                            continue  # one phase alone cannot carry a current
                        y = x.copy()
                        for k in range(3):
                            if abs(y[2 + k]) <= tol:
                                y[2 + k] = 0.0
                        out.append((y, (lim, ma, mb, mc)))
        return out

    def reference(self, stop=0.8, **kw):
        return hybrid(self.rhs, self.guards, self.candidates, (0.0, stop),
                      [0.0, self.wN, 0.0, 0.0, 0.0], dt=self.DT, **kw)


def bridge_events(max_events=10_000, wall=30.0, rtol=1e-6, atol=1e-9, times=None, start=0.0,
                  method="BDF", band=1e-6):
    """The bridge as Modelica's ideal diode writes it (Modelica.Electrical.Analog.Ideal
    .IdealDiode, MSL's defaults Ron = Goff = 1e-5, Vknee = 0): v = s (off ? 1 : Ron),
    i = s (off ? Goff : 1), off = s < 0, each diode's `off` a discrete variable changed at
    the zero-crossings of its s, located by solve_ivp (RK45 at SMPM_Braking's tolerance
    1e-6, BDF for DASSL); the star point isolated as in the lcsfmu model. State (phi, w,
    ia, ib); mode: the six `off`s (upper a, b, c, lower a, b, c). The band is 1e-6 (A or
    V): an on diode's current is (v_anode - v_cathode)/Ron, whose rounding (1e-16 of 100 V
    times 1e5 S) is 1e-9 A, and a band below that would chatter on rounding alone."""
    br, Ron, Goff = Bridge(), 1e-5, 1e-5

    def network(x, off):
        i = np.array([x[2], x[3], -x[2] - x[3]])
        g = np.array([Goff if o else 1.0 / Ron for o in off])
        RL = math.pi ** 2 / 8 * max(x[1] / br.wN, 0.1)
        A = np.zeros((4, 4))
        b = np.zeros(4)
        for k in range(3):  # phase k: i_k = g_up (v_k - v_p) + g_dn v_k
            A[k, k] = g[k] + g[3 + k]
            A[k, 3] = -g[k]
            b[k] = i[k]
        A[3, :3] = g[:3]  # dc+: sum g_up (v_k - v_p) = v_p / R_L
        A[3, 3] = -g[:3].sum() - 1.0 / RL
        v = np.linalg.solve(A, b)
        return i, v[:3], v[3], g

    def rhs(t, x, off):
        i, v, vp, _ = network(x, off)
        e = br.p * br.psi * x[1] * br.shape(x[0])
        vstar = v.mean()
        di = (e - br.Rs * i - v + vstar) / br.Ls
        torque = br.p * br.psi * float(br.shape(x[0]) @ i)
        return np.array([x[1], -torque / br.J, di[0], di[1]])

    def svals(x, off):
        i, v, vp, g = network(x, off)
        vd = np.concatenate([v - vp, -v])  # anode minus cathode: upper k, lower k
        return [vd[j] if off[j] else vd[j] * g[j] for j in range(6)]  # s = v or i

    def guards(t, x, off):
        return [(-sv if off[j] else sv) + band for j, sv in enumerate(svals(x, off))]

    def select(t, x, off):
        if off is None:  # the diodes the phase currents flow through conduct
            i = [x[2], x[3], -x[2] - x[3]]
            if start == 0.0:  # at rest: those the EMF forward-biases
                i = br.shape(1e-6)
            return x, tuple([bool(ik <= 0) for ik in i] + [bool(ik >= 0) for ik in i])
        sv = svals(x, off)
        # a diode changes where its s is past zero by more than half the band (the event
        # is located at a full band past it)
        return x, tuple((sv[j] <= -band / 2) if not off[j] else (sv[j] < band / 2)
                        for j in range(6))
    x0 = [0.0, br.wN, 0.0, 0.0]
    if start > 0.0:  # from the reference's state at `start`
        ref = bridge_reference([start])
        x0 = [float(ref[n][0]) for n in ("phi", "w", "ia", "ib")]
    segs, ev, nfev, reached = hybrid_rk45(rhs, guards, select, (start, 0.8),
                                          x0, max_events=max_events,
                                          wall=wall, rtol=rtol, atol=atol, keep=times is not None,
                                          method=method)
    out = {"events": ev, "nfev": nfev, "reached": reached}
    if times is not None:
        y = sample(segs, np.asarray(times, dtype=float), 4)
        out.update({n: y[:, k] for k, n in enumerate(["phi", "w", "ia", "ib"])})
    return out


def bridge_reference(times, stop=0.8):
    br = Bridge()
    segs, ev, nfev, reached = br.reference(stop)
    y = sample(segs, np.asarray(times, dtype=float), 5)
    out = {n: y[:, i] for i, n in enumerate(br.NAMES)}
    out["_events"], out["_nfev"], out["_reached"] = ev, nfev, reached
    return out


# ----------------------------------------------------------------------------- FMPy runs

CASES = {
    "filippov_slide": dict(states=["x", "y"], reference=lambda t: slide_exact(t),
                           contrast=slide_events),
    "pm_braking_bridge": dict(states=["phi", "w", "ia", "ib"],
                              reference=lambda t: bridge_reference(t),
                              contrast=bridge_events),
    "heat_losses_friction": dict(states=["s1", "v1", "s2", "v2", "s3", "v3", "s4", "v4"],
                                 reference=lambda t: heat_losses_reference(t),
                                 contrast=heat_losses_events),
}


_CVODE_STEPS = None


def cvode_steps_counter():
    """Wraps FMPy's CVodeSolver (once) so that the internal steps of every CVode integration
    are counted (CVodeGetNumSteps before each re-initialization and after each step); the
    returned dict's "steps" is set to 0 on each call."""
    global _CVODE_STEPS
    if _CVODE_STEPS is None:
        import fmpy.sundials as sundials
        from fmpy.sundials.libraries import sundials_cvode
        get = sundials_cvode.CVodeGetNumSteps
        get.argtypes, get.restype = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_long)], ctypes.c_int
        count = {"steps": 0}
        cls = sundials.CVodeSolver
        orig_reset, orig_step = cls.reset, cls.step

        def current(solver):
            n = ctypes.c_long(0)
            get(solver.cvode_mem, ctypes.byref(n))
            return n.value

        def reset(self, time):
            count["steps"] += current(self) - getattr(self, "_counted", 0)
            self._counted = 0
            return orig_reset(self, time)

        def step(self, t, tNext):
            out = orig_step(self, t, tNext)
            n = current(self)
            count["steps"] += n - getattr(self, "_counted", 0)
            self._counted = n
            return out
        cls.reset, cls.step = reset, step
        _CVODE_STEPS = count
    _CVODE_STEPS["steps"] = 0
    return _CVODE_STEPS


def run_fmu(fmu, fmi_type, step, stop, repeats=3):
    """One FMPy run with the call logger (steps, events) and `repeats` without (wall time).
    Returns (result, steps, events, wall, error message or None)."""
    from fmpy import simulate_fmu
    kw = dict(fmi_type=fmi_type, output_interval=step, stop_time=stop)
    if fmi_type == "ModelExchange":
        kw["solver"] = "CVode"
    calls = []
    counter = cvode_steps_counter() if fmi_type == "ModelExchange" else None
    failure = None
    try:
        r = simulate_fmu(str(fmu), fmi_call_logger=calls.append, **kw)
    except Exception as e:  # a failed run is a result: where and why it stopped
        r, failure = None, str(e)
    events = sum(c.startswith("fmi2EnterEventMode") for c in calls)
    if fmi_type == "CoSimulation":
        steps = sum(c.startswith("fmi2DoStep") for c in calls)
    else:
        steps = counter["steps"]
    if failure is not None:
        times = [float(m) for c in calls if c.startswith("fmi2SetTime")
                 for m in re.findall(r"time=([-+0-9.eE]+)", c)]
        return None, steps, events, times[-1] if times else None, failure
    walls = []
    for _ in range(repeats):
        t0 = clock.perf_counter()
        simulate_fmu(str(fmu), **kw)
        walls.append(clock.perf_counter() - t0)
    return r, steps, events, min(walls), None


def error(r, ref, states):
    """The largest difference from the reference over the states: (value, state)."""
    errs = [(float(np.nanmax(np.abs(np.asarray(r[n]) - ref[n]))), n) for n in states]
    return max(errs)


def build(lcsfmu, out, cases=CASES):
    """The cases' FMUs with both interfaces (compiled: the prebuilt runtime is CS only)."""
    models = [str(MODELS / f"{c}.toml") for c in cases]
    cmd = [str(lcsfmu), "build", *models, "-o", str(out), "--interface", "cs,me"]
    subprocess.run(cmd, check=True, capture_output=True)
    return {c: Path(out) / f"{c}.fmu" for c in cases}


def experiment(name):
    import tomllib
    e = tomllib.loads((MODELS / f"{name}.toml").read_text())["experiment"]
    return float(e["step"]), float(e["stop"])


def measure(name, fmu, repeats=3):
    """Every row of one case: {master: (steps, events, wall, error or message)}."""
    case = CASES[name]
    step, stop = experiment(name)
    rows = {}
    for label, typ in (("FMPy CS", "CoSimulation"), ("FMPy ME, CVode", "ModelExchange")):
        r, steps, events, wall, err = run_fmu(fmu, typ, step, stop, repeats)
        if r is None:  # `wall` is the time reached
            rows[label] = dict(failed=err, steps=steps, events=events, reached=wall)
            continue
        ref = case["reference"](r["time"])
        rows[label] = dict(steps=steps, events=events, wall=wall,
                           error=error(r, ref, case["states"]), reached=float(r["time"][-1]))
    t0 = clock.perf_counter()
    ref = case["reference"](np.linspace(0, stop, 11))
    wall = clock.perf_counter() - t0
    if "_events" in ref:
        rows["reference (SciPy DOP853, Filippov modes)"] = dict(
            steps=ref["_nfev"], events=ref["_events"], wall=wall, error=None, reached=stop)
    if "contrast" in case:
        t0 = clock.perf_counter()
        if name == "pm_braking_bridge":
            times = np.arange(0.0, stop + step / 2, step)
            c = case["contrast"](times=times)
            wall = clock.perf_counter() - t0
            m = times <= c["reached"]
            ref = case["reference"](times[m])
            err = error({n: c[n][m] for n in case["states"]}, ref, case["states"])
            label = "SciPy BDF, MSL's diodes (Ron = Goff = 1e-5), event-based"
        else:
            c = case["contrast"]()
            wall, err, label = clock.perf_counter() - t0, None, "SciPy RK45, event-based"
        rows[label] = dict(steps=c["nfev"], events=c["events"], wall=wall, error=err,
                           reached=c["reached"])
    return rows


def table(name, rows):
    lines = [f"### {name}", "",
             "| master / interface | steps | events | wall time | reached | largest error |",
             "|---|---|---|---|---|---|"]
    for label, r in rows.items():
        if "failed" in r:
            lines.append(f"| {label} | {r['steps']} | {r['events']} | | stopped at "
                         f"t = {r['reached']:.9g}: {r['failed']} | |")
            continue
        err = "—" if r["error"] is None else f"{r['error'][0]:.1e} ({r['error'][1]})"
        lines.append(f"| {label} | {r['steps']} | {r['events']} | {r['wall'] * 1e3:.0f} ms "
                     f"| t = {r['reached']:.9g} | {err} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lcsfmu", default=str(REPO / "target" / "release" / "lcsfmu"))
    ap.add_argument("--out", default=None, help="directory for the FMUs (default: a temporary one)")
    ap.add_argument("--cases", default=",".join(CASES))
    args = ap.parse_args()
    names = args.cases.split(",")
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="chattering-"))
    out.mkdir(parents=True, exist_ok=True)
    fmus = build(args.lcsfmu, out, names)
    for name in names:
        print(table(name, measure(name, fmus[name])))
        print()


if __name__ == "__main__":
    main()
