"""The projected Moreau–Jean and the semi-explicit schemes on mechanical models with nonlinear
gaps (rocking_block) and forces (pendulum_stop), through `lcsfmu simulate`, against independent
NumPy implementations of the same schemes (Newton loops, LCPs by enumeration).

Contents
  test_rocking_block_projected_matches_numpy       moreau-jean-projected, step by step, 1e-9
  test_rocking_block_semi_explicit_matches_numpy   semi-explicit (e = 0): positions 1e-9, each
                                                   step from lcsfmu's state 1e-9
  test_fmu_equals_simulate_bit_for_bit             both schemes built into FMUs, through FMPy
  test_no_penetration                              both schemes, both models: every gap >= 0
                                                   to rounding at every step
"""
import subprocess

import numpy as np

from conftest import MODELS_DIR, assert_close, assert_same_results, cosim, run_cli

# rocking_block's defaults (models/rocking_block.toml).
MASS, WIDTH, HEIGHT, GRAV, REST = 1.0, 1.0, 1.5, 9.81, 0.5
INERTIA = MASS * (WIDTH ** 2 + HEIGHT ** 2) / 12
MASS_MATRIX = np.diag([MASS, MASS, INERTIA])
FORCE = np.array([0.0, -MASS * GRAV, 0.0])
H = 1e-3
STOP = 1.0


def block_gaps(q):
    """The two corners' gaps, their Jacobian, and the magnitudes of their terms."""
    _, y, th = q
    s, c = np.sin(th), np.cos(th)
    a, b = WIDTH / 2 * s, HEIGHT / 2 * c
    g = np.array([y - a - b, y + a - b])
    jac = np.array([[0.0, 1.0, -WIDTH / 2 * c + HEIGHT / 2 * s],
                    [0.0, 1.0, WIDTH / 2 * c + HEIGHT / 2 * s]])
    terms = np.full(2, abs(y) + abs(a) + abs(b))
    return g, jac, terms


def lcp_enum(W, qv, active):
    """0 <= W p + qv _|_ p >= 0 on the active contacts (p = 0 elsewhere), by enumeration."""
    idx = np.flatnonzero(active)
    p = np.zeros(len(qv))
    if idx.size == 0:
        return p
    tol = 1e-12 * (1 + np.abs(qv[idx]).max())
    for mask in range(1 << len(idx)):
        s = [idx[i] for i in range(len(idx)) if mask >> i & 1]
        trial = np.zeros(len(qv))
        if s:
            trial[s] = np.linalg.solve(W[np.ix_(s, s)], -qv[s])
        y = W @ trial + qv
        if (trial >= -1e-14).all() and (y[idx] >= -tol).all():
            return trial
    raise AssertionError("no LCP solution")


def converged(new, old):
    return np.max(np.abs(new - old)) <= 1e-15 * max(1.0, np.max(np.abs(new)))


def projected_moreau_jean(q, v, steps, h, theta=0.5, gamma=0.5):
    """Moreau–Jean with its Newton loop (constant forces: W = M), then the positions moved onto
    g(q) >= 0 in the mass metric (Newton on the gaps), and the impact the velocity step missed
    on projected contacts that still approach (restitution on the step's start rate). A contact
    closed to 64 eps of its terms at the step's start takes part in the velocity step."""
    minv = np.linalg.inv(MASS_MATRIX)
    out = [np.concatenate([q, v, np.zeros(2)])]
    for _ in range(steps):
        g0, G0, terms = block_gaps(q)
        rate0 = G0 @ v
        touching = g0 <= 64 * np.finfo(float).eps * terms.max()
        active = (g0 + gamma * h * rate0 <= 0) | touching
        vf = v + h * minv @ FORCE
        vb = vf.copy()
        for _ in range(100):
            qb = q + h * (theta * vb + (1 - theta) * v)
            _, Gb, _ = block_gaps(qb)
            p = lcp_enum(Gb @ minv @ Gb.T, Gb @ vf + REST * rate0, active)
            v_new = vf + minv @ Gb.T @ p
            done = converged(v_new, vb)
            vb = v_new
            if done:
                break
        q1 = q + h * (theta * vb + (1 - theta) * v)
        v1 = vb
        if (block_gaps(q1)[0] < 0).any():
            target, qb = q1.copy(), q1.copy()
            for _ in range(100):
                gb, Gb, _ = block_gaps(qb)
                mu = lcp_enum(Gb @ minv @ Gb.T, gb + Gb @ (target - qb), np.ones(2, bool))
                q_new = target + minv @ Gb.T @ mu
                done = converged(q_new, qb)
                qb = q_new
                if done:
                    break
            q1 = qb
            _, G1, _ = block_gaps(q1)
            on = mu > 0
            rate = G1 @ v1 + REST * np.minimum(rate0, 0)
            if (on & (rate < 0)).any():
                v1 = v1 + minv @ G1.T @ lcp_enum(G1 @ minv @ G1.T, rate, on)
        q, v = q1, v1
        out.append(np.concatenate([q, v, p]))
    return np.array(out)


def semi_explicit(q, v, steps, h):
    """The semi-explicit scheme: forces at the step's start, v_f = v + h M^-1 F, and
    M (v1 - v_f) = h G(q1)^T lam, q1 = q + h v1, 0 <= g(q1) _|_ lam >= 0, by a Newton loop
    linearizing g at the iterate."""
    minv = np.linalg.inv(MASS_MATRIX)
    out = [np.concatenate([q, v, np.zeros(2)])]
    for _ in range(steps):
        vf = v + h * minv @ FORCE
        vb = vf.copy()
        for _ in range(100):
            gb, Gb, _ = block_gaps(q + h * vb)
            lam = lcp_enum(h * h * Gb @ minv @ Gb.T, gb + h * Gb @ (vf - vb), np.ones(2, bool))
            v_new = vf + h * minv @ Gb.T @ lam
            done = converged(v_new, vb)
            vb = v_new
            if done:
                break
        q, v = q + h * vb, vb
        out.append(np.concatenate([q, v, lam]))
    return np.array(out)


def model_with(tmp_path, stem, method, plastic=False):
    text = (MODELS_DIR / f"{stem}.toml").read_text()
    text = text.replace('method = "moreau-jean"', f'method = "{method}"')
    if plastic:
        text = text.replace('restitution = "e"\n', "")
    name = f"{stem}_{method.replace('-', '_')}"
    text = text.replace(f'name = "{stem}"', f'name = "{name}"', 1)
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return path


def compare(r, ref, what):
    names = ["x", "y", "th", "vx", "vy", "vth", "p1", "p2"]
    assert len(r) == len(ref)
    for i, name in enumerate(names):
        assert_close(r[name], ref[:, i], 1e-9, f"{what}: {name}")


def test_rocking_block_projected_matches_numpy(lcsfmu_bin, tmp_path):
    model = model_with(tmp_path, "rocking_block", "moreau-jean-projected")
    _, r = run_cli(lcsfmu_bin, model, tmp_path, stop=STOP, step=H)
    ref = projected_moreau_jean(np.array([0.0, 1.0, 0.2]), np.zeros(3), int(STOP / H), H)
    compare(r, ref, "projected")
    # The run has impacts on both corners and projections.
    assert (r["p1"] > 0).any() and (r["p2"] > 0).any()


def test_rocking_block_semi_explicit_matches_numpy(lcsfmu_bin, tmp_path):
    """Positions over the whole run; every column step by step from lcsfmu's own state. A
    position-level impact turns a position difference d into a velocity difference d / h (the
    force closes the deficit within one step): the 8e-11 that the two Newton loops' stopping
    points leave while the block pivots on one corner becomes 6.6e-9 in vy at the second
    corner's impact, so velocities and forces are compared one step at a time."""
    model = model_with(tmp_path, "rocking_block", "semi-explicit", plastic=True)
    _, r = run_cli(lcsfmu_bin, model, tmp_path, stop=STOP, step=H)
    ref = semi_explicit(np.array([0.0, 1.0, 0.2]), np.zeros(3), int(STOP / H), H)
    names = ["x", "y", "th", "vx", "vy", "vth", "p1", "p2"]
    for i, name in enumerate(names[:3]):
        assert_close(r[name], ref[:, i], 1e-9, f"semi-explicit: {name}")
    rows = np.array([[r[n][k] for n in names] for k in range(len(r))])
    for k in range(len(r) - 1):
        one = semi_explicit(rows[k, :3], rows[k, 3:6], 1, H)[1]
        assert_close(rows[k + 1], one, 1e-9, f"semi-explicit step {k + 1}")
    assert (r["p1"] > 0).any() and (r["p2"] > 0).any()


def test_no_penetration(lcsfmu_bin, tmp_path):
    for method in ("moreau-jean-projected", "semi-explicit"):
        plastic = method == "semi-explicit"
        _, r = run_cli(lcsfmu_bin, model_with(tmp_path, "rocking_block", method, plastic),
                       tmp_path)
        g = np.array([block_gaps(q)[0] for q in zip(r["x"], r["y"], r["th"])])
        assert g.min() >= -1e-15, (method, g.min())
        _, r = run_cli(lcsfmu_bin, model_with(tmp_path, "pendulum_stop", method, plastic),
                       tmp_path)
        assert (r["theta"] + 0.3).min() >= -1e-15, (method, (r["theta"] + 0.3).min())
    # Plain Moreau–Jean penetrates (so the test above can fail).
    _, r = run_cli(lcsfmu_bin, MODELS_DIR / "rocking_block.toml", tmp_path)
    g = np.array([block_gaps(q)[0] for q in zip(r["x"], r["y"], r["th"])])
    assert g.min() < -1e-4, g.min()


def test_fmu_equals_simulate_bit_for_bit(lcsfmu_bin, tmp_path):
    """Both schemes on the block, as built FMUs through FMPy: the same numbers as
    `lcsfmu simulate`, bit for bit (one core steps both)."""
    models = [model_with(tmp_path, "rocking_block", "moreau-jean-projected"),
              model_with(tmp_path, "rocking_block", "semi-explicit", plastic=True)]
    out = tmp_path / "fmus"
    proc = subprocess.run([str(lcsfmu_bin), "build", *map(str, models), "-o", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    for model in models:
        _, cli = run_cli(lcsfmu_bin, model, tmp_path, stop=STOP, step=H)
        ref = cosim(out / f"{model.stem}.fmu", stop_time=STOP, output_interval=H)
        assert_same_results(cli, ref, 0.0)
