"""Peer: the GMM gradient and the bundle-adjustment Jacobian of kernels/gmm.c
and kernels/ba.c in JAX on the CPU (float64, jit, one core). Same inputs,
same formulas, vectorised the way a JAX user would write them.

    python jax_peers.py gmm D K MODE N REPS
    python jax_peers.py ba MODE N REPS

MODE `time` prints `name mode n best_ms peak_rss_kb` (best of REPS after the
compiling run); `dump` prints the derivative in the C kernel's order.
"""
import os
import sys

os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)
try:
    os.sched_setaffinity(0, {0})
except (AttributeError, OSError):
    pass

import resource  # noqa: E402
import time  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")


def gmm_setup(d, k, n):
    icf = d * (d + 1) // 2
    x = np.sin(0.731 * np.arange(n * d)) + 0.3 * np.cos(0.117 * np.arange(n * d))
    alphas = 0.1 * np.arange(k) - 0.2
    means = 0.5 * np.sin(1.3 * np.arange(k * d))
    icfs = 0.1 * np.cos(0.9 * np.arange(k * icf))
    return alphas, means.reshape(k, d), icfs.reshape(k, icf), x.reshape(n, d)


def gmm_objective(d, k):
    # Below-diagonal entries of Q in the C kernel's order: by columns.
    rows, cols = zip(*[(i, j) for j in range(d) for i in range(j + 1, d)])
    rows, cols = np.array(rows), np.array(cols)

    def f(alphas, means, icf, x):
        n = x.shape[0]
        qdiag = jnp.exp(icf[:, :d])
        low = jnp.zeros((k, d, d)).at[:, rows, cols].set(icf[:, d:])
        xc = x[:, None, :] - means[None, :, :]
        qxc = qdiag[None] * xc + jnp.einsum("kij,nkj->nki", low, xc)
        main = alphas[None] + jnp.sum(icf[:, :d], axis=1)[None] - 0.5 * jnp.sum(qxc**2, axis=2)
        slse = jnp.sum(jax.scipy.special.logsumexp(main, axis=1))
        prior = 0.5 * jnp.sum(jnp.exp(2 * icf[:, :d])) + 0.5 * jnp.sum(icf[:, d:] ** 2)
        const = -n * d * 0.5 * np.log(2 * np.pi)
        return const + slse - n * jax.scipy.special.logsumexp(alphas) + prior

    return f


NCAM, NPT, CAMP = 50, 2000, 11


def ba_setup(nobs):
    c = np.arange(NCAM)
    cams = np.zeros((NCAM, CAMP))
    cams[:, 0], cams[:, 1] = 0.1 * np.sin(c), 0.1 * np.cos(1.3 * c)
    cams[:, 2] = np.where(c == 0, 0.0, 0.05 * np.sin(0.7 * c))
    cams[:, 3], cams[:, 4], cams[:, 5] = 0.3 * np.sin(0.5 * c), 0.3 * np.cos(0.5 * c), -10 + 0.1 * c
    cams[:, 6], cams[:, 7], cams[:, 8] = 1 + 0.01 * c, 0.01 * np.sin(c), 0.01 * np.cos(c)
    cams[:, 9], cams[:, 10] = 1e-3 * (1 + c % 3), 1e-4
    pts = np.sin(0.91 * np.arange(NPT * 3)).reshape(NPT, 3)
    i = np.arange(nobs)
    w = 0.8 + 0.1 * np.sin(i)
    feats = np.stack([0.05 * np.sin(0.3 * i), 0.05 * np.cos(0.2 * i)], axis=1)
    return cams[i % NCAM], pts[(7 * i) % NPT], w, feats


def reproj(cam, x, w, feat):
    rot, d = cam[:3], x - cam[3:6]
    sq = jnp.sum(rot**2)
    zero = sq == 0
    theta = jnp.sqrt(jnp.where(zero, 1.0, sq))  # keeps the unused branch finite
    u = rot / theta
    c, s = jnp.cos(theta), jnp.sin(theta)
    rotated = d * c + jnp.cross(u, d) * s + u * jnp.dot(u, d) * (1 - c)
    xc = jnp.where(zero, d + jnp.cross(rot, d), rotated)
    p = xc[:2] / xc[2]
    rsq = jnp.sum(p**2)
    proj = p * (1 + cam[9] * rsq + cam[10] * rsq**2) * cam[6] + cam[7:9]
    return w * (proj - feat)


def ba_jacobian(cams, pts, w, feats):
    jc, jx, jw = jax.vmap(jax.jacrev(reproj, argnums=(0, 1, 2)))(cams, pts, w, feats)
    block = jnp.concatenate([jc, jx, jw[:, :, None]], axis=2)  # (nobs, 2, 15)
    return jnp.concatenate([block.reshape(len(w), -1), -2 * w[:, None]], axis=1)


def best_ms(run, reps):
    jax.block_until_ready(run())  # compiles
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        jax.block_until_ready(run())
        best = min(best, (time.perf_counter() - t0) * 1e3)
    return best


def main(argv):
    if argv[0] == "gmm":
        d, k, mode, n, reps = int(argv[1]), int(argv[2]), argv[3], int(argv[4]), int(argv[5])
        args = [jnp.asarray(a) for a in gmm_setup(d, k, n)]
        grad = jax.jit(jax.grad(gmm_objective(d, k), argnums=(0, 1, 2)))
        run = lambda: grad(*args)  # noqa: E731
        name = "jax-gmm"
        flat = lambda g: np.concatenate([np.ravel(a) for a in g])  # noqa: E731
    elif argv[0] == "ba":
        mode, n, reps = argv[1], int(argv[2]), int(argv[3])
        args = [jnp.asarray(a) for a in ba_setup(n)]
        jac = jax.jit(ba_jacobian)
        run = lambda: jac(*args)  # noqa: E731
        name = "jax-ba"
        flat = lambda j: np.ravel(j)  # noqa: E731
    else:
        sys.exit(f"jax_peers.py: unknown benchmark `{argv[0]}`")
    if mode == "dump":
        for v in flat(run()):
            print(repr(float(v)))
    elif mode == "time":
        ms = best_ms(run, reps)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(f"{name} time {n} {ms:.4f} {rss}")
    else:
        sys.exit(f"jax_peers.py: unknown mode `{mode}`")


if __name__ == "__main__":
    main(sys.argv[1:])
