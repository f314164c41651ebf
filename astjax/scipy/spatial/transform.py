"""`astjax.scipy.spatial.transform` (JAX's `jax.scipy.spatial.transform`): `Rotation`
and `Slerp`.

A `Rotation` holds unit quaternions `quat` of shape (4,) (one rotation, `single`) or
(n, 4), scalar last (x, y, z, w); every conversion works on any leading batch shape by
broadcasting over the components `quat[..., i]`. `Rotation` and `Slerp` are
NamedTuples, hence pytrees, so they pass through `jit`, `vmap` and `grad` as JAX's do.

Conventions (SciPy's): Euler sequences of up to three axes, lowercase extrinsic /
uppercase intrinsic; rotation vectors are axis * angle (series expansions near zero
keep them smooth); modified Rodrigues parameters are axis * tan(angle / 4) with w >= 0;
`mean` is the eigenvector of the largest eigenvalue of sum(w q q^T) (Markley et al.);
`Slerp` interpolates along the rotation vector between neighbouring key rotations."""

import re
import typing

import numpy as np

from ... import lax as _lax
from ... import numpy as jnp
from ... import random as jrandom
from ...errors import ArgumentTypeError, ArgumentValueError

__all__ = ["Rotation", "Slerp"]

_AXIS = {"x": 0, "y": 1, "z": 2}


def _norm(v):
    # (a dot product per vector, as JAX's vectorized jnp.dot: its digits, not a sum's)
    batch = tuple(range(jnp.ndim(v) - 1))
    return jnp.sqrt(_lax.dot_general(v, v, (((len(batch),), (len(batch),)), (batch, batch))))


def _normalize(quat):
    return quat / _norm(quat)[..., None]


def _compose(p, q):
    """Hamilton product p * q of scalar-last quaternions (broadcast over leading axes)."""
    px, py, pz, pw = (p[..., i] for i in range(4))
    qx, qy, qz, qw = (q[..., i] for i in range(4))
    # (the vector part's cross product by jnp.cross, compiled: JAX's digits)
    cross = jnp.cross(p[..., :3], q[..., :3])
    return jnp.stack([pw * qx + qw * px + cross[..., 0],
                      pw * qy + qw * py + cross[..., 1],
                      pw * qz + qw * pz + cross[..., 2],
                      pw * qw - px * qx - py * qy - pz * qz], axis=-1)


def _as_matrix(quat):
    x, y, z, w = (quat[..., i] for i in range(4))
    x2, y2, z2, w2 = x * x, y * y, z * z, w * w
    rows = [[x2 - y2 - z2 + w2, 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), -x2 + y2 - z2 + w2, 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), -x2 - y2 + z2 + w2]]
    return jnp.stack([jnp.stack(r, axis=-1) for r in rows], axis=-2)


def _from_matrix(m):
    """Shepperd's method: build the quaternion from the largest of the diagonal and the
    trace, the best-conditioned of the four candidate formulas."""
    m = jnp.asarray(m)
    trace = m[..., 0, 0] + m[..., 1, 1] + m[..., 2, 2]
    decision = jnp.stack([m[..., 0, 0], m[..., 1, 1], m[..., 2, 2], trace], axis=-1)
    candidates = []
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        comp = [None] * 4
        comp[i] = 1 - trace + 2 * m[..., i, i]
        comp[j] = m[..., j, i] + m[..., i, j]
        comp[k] = m[..., k, i] + m[..., i, k]
        comp[3] = m[..., k, j] - m[..., j, k]
        candidates.append(jnp.stack(comp, axis=-1))
    candidates.append(jnp.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0],
                                 m[..., 1, 0] - m[..., 0, 1], 1 + trace], axis=-1))
    choice = jnp.argmax(decision, axis=-1)
    quat = jnp.take_along_axis(jnp.stack(candidates, axis=-2), choice[..., None, None],
                               axis=-2)[..., 0, :]
    return _normalize(quat)


def _from_rotvec(rotvec, degrees):
    rotvec = jnp.asarray(rotvec)
    if degrees:
        rotvec = jnp.deg2rad(rotvec)
    angle = _norm(rotvec)
    a2 = angle * angle
    # sin(angle/2)/angle, by its Taylor series where the ratio loses precision
    small = 0.5 - a2 / 48 + a2 * a2 / 3840
    large = jnp.sin(angle / 2) / jnp.where(angle <= 1e-3, 1.0, angle)
    scale = jnp.where(angle <= 1e-3, small, large)
    return jnp.concatenate([scale[..., None] * rotvec, jnp.cos(angle / 2)[..., None]], -1)


def _as_rotvec(quat, degrees):
    quat = jnp.where(quat[..., 3:] < 0, -quat, quat)    # w >= 0: angle in [0, pi]
    angle = 2.0 * jnp.arctan2(_norm(quat[..., :3]), quat[..., 3])
    a2 = angle * angle
    small = 2 + a2 / 12 + 7 * a2 * a2 / 2880
    large = angle / jnp.sin(jnp.where(angle <= 1e-3, 1.0, angle) / 2)
    scale = jnp.where(angle <= 1e-3, small, large)
    if degrees:
        scale = jnp.rad2deg(scale)
    return scale[..., None] * quat[..., :3]


def _from_mrp(mrp):
    mrp = jnp.asarray(mrp)
    sq1 = jnp.sum(mrp * mrp, axis=-1)[..., None] + 1
    return jnp.concatenate([2 * mrp[..., :3], 2 - sq1], axis=-1) / sq1


def _as_mrp(quat):
    sign = jnp.where(quat[..., 3] < 0, -1.0, 1.0)
    return (sign / (1.0 + sign * quat[..., 3]))[..., None] * quat[..., :3]


def _canonical(quat):
    """The sign of `quat` whose first nonzero of (w, x, y, z) is positive."""
    neg, zero = quat < 0, quat == 0
    flip = (neg[..., 3] | (zero[..., 3] & neg[..., 0])
            | (zero[..., 3] & zero[..., 0] & neg[..., 1])
            | (zero[..., 3] & zero[..., 0] & zero[..., 1] & neg[..., 2]))
    return jnp.where(flip[..., None], -quat, quat)


def _parse_seq(seq, exact3):
    """(axis indices, extrinsic) of an Euler sequence, checked as JAX checks it."""
    if exact3 and len(seq) != 3:
        raise ArgumentValueError(f"Expected 3 axes, got {seq}.", hint="e.g. seq='xyz'")
    if not exact3 and not 1 <= len(seq) <= 3:
        raise ArgumentValueError("Expected axis specification to be a non-empty string of "
                                 f"upto 3 characters, got {seq}", hint="e.g. seq='xyz'")
    intrinsic = re.match(r"^[XYZ]{1,3}$", seq) is not None
    extrinsic = re.match(r"^[xyz]{1,3}$", seq) is not None
    if not (intrinsic or extrinsic):
        raise ArgumentValueError("Expected axes from `seq` to be from ['x', 'y', 'z'] or "
                                 f"['X', 'Y', 'Z'], got {seq}",
                                 hint="lowercase: extrinsic, uppercase: intrinsic")
    if any(a == b for a, b in zip(seq, seq[1:])):
        raise ArgumentValueError(f"Expected consecutive axes to be different, got {seq}",
                                 hint="e.g. 'zxz' or 'xyz', not 'xxy'")
    return [_AXIS[c] for c in seq.lower()], extrinsic


def _elementary(axis, angle):
    comps = [jnp.zeros_like(angle)] * 3 + [jnp.cos(angle / 2)]
    comps[axis] = jnp.sin(angle / 2)
    return jnp.stack(comps, axis=-1)


def _euler_from_quat(quat, axes, extrinsic, degrees):
    """Euler angles by Bernardes & Viollet's quaternion method (2022)."""
    first, third = (0, 2) if extrinsic else (2, 0)
    i, j, k = axes if extrinsic else axes[::-1]
    symmetric = i == k
    if symmetric:
        k = 3 - i - j
    sign = (i - j) * (j - k) * (k - i) // 2
    q = [quat[..., n] for n in range(4)]
    if symmetric:
        a, b, c, d = q[3], q[i], q[j], q[k] * sign
    else:
        a, b, c, d = q[3] - q[j], q[i] + q[k] * sign, q[j] + q[3], q[k] * sign - q[i]
    middle = 2 * jnp.arctan2(jnp.hypot(c, d), jnp.hypot(a, b))
    eps = 1e-7
    # case 1: middle angle 0, case 2: pi (gimbal lock, the third angle is set to 0)
    case = jnp.where(jnp.abs(middle) <= eps, 1, jnp.where(jnp.abs(middle - np.pi) <= eps,
                                                          2, 0))
    half_sum, half_diff = jnp.arctan2(b, a), jnp.arctan2(d, c)
    angles = [None, middle, jnp.zeros_like(middle)]
    angles[0] = jnp.where(case == 1, 2 * half_sum, 2 * half_diff * (-1 if extrinsic else 1))
    angles[first] = jnp.where(case == 0, half_sum - half_diff, angles[first])
    angles[third] = jnp.where(case == 0, half_sum + half_diff, angles[third])
    if not symmetric:
        angles[third] = angles[third] * sign
        angles[1] = angles[1] - np.pi / 2
    out = (jnp.stack(angles, axis=-1) + np.pi) % (2 * np.pi) - np.pi
    return jnp.rad2deg(out) if degrees else out


class Rotation(typing.NamedTuple):
    """Rotations in 3-D, as JAX's `jax.scipy.spatial.transform.Rotation`: unit
    quaternions `quat` (scalar last), one (4,) or a stack (n, 4); a pytree."""
    quat: typing.Any

    @classmethod
    def concatenate(cls, rotations):
        """One `Rotation` holding all the rotations of the sequence `rotations`."""
        return cls(jnp.concatenate([jnp.atleast_2d(r.quat) for r in rotations]))

    @classmethod
    def from_euler(cls, seq, angles, degrees=False):
        """From Euler angles (..., len(seq)) about the axes `seq` ('xyz' extrinsic,
        'XYZ' intrinsic); a scalar angle for a one-axis `seq`."""
        axes, extrinsic = _parse_seq(seq, exact3=False)
        angles = jnp.atleast_1d(jnp.asarray(angles))
        if not jnp.issubdtype(angles.dtype, jnp.inexact):
            angles = angles.astype(jnp.result_type(float))
        if angles.shape[-1] != len(axes):
            raise ArgumentValueError(f"Expected {len(axes)} angles per rotation for "
                                     f"seq={seq!r}, got shape {angles.shape}",
                                     hint="give the angles a last axis of len(seq)")
        if degrees:
            angles = jnp.deg2rad(angles)
        quat = _elementary(axes[0], angles[..., 0])
        for n in range(1, len(axes)):
            step = _elementary(axes[n], angles[..., n])
            quat = _compose(step, quat) if extrinsic else _compose(quat, step)
        return cls(quat)

    @classmethod
    def from_matrix(cls, matrix):
        """From rotation matrices (..., 3, 3)."""
        return cls(_from_matrix(matrix))

    @classmethod
    def from_mrp(cls, mrp):
        """From modified Rodrigues parameters (..., 3)."""
        return cls(_from_mrp(mrp))

    @classmethod
    def from_quat(cls, quat):
        """From quaternions (..., 4), scalar last; normalized."""
        return cls(_normalize(jnp.asarray(quat)))

    @classmethod
    def from_rotvec(cls, rotvec, degrees=False):
        """From rotation vectors (..., 3): axis times angle (radians, or `degrees`)."""
        return cls(_from_rotvec(rotvec, degrees))

    @classmethod
    def identity(cls, num=None, dtype=float):
        """The identity rotation (single), or `num` of them."""
        quat = jnp.array([0.0, 0.0, 0.0, 1.0], dtype=dtype)
        return cls(quat if num is None else jnp.tile(quat, (num, 1)))

    @classmethod
    def random(cls, random_key, num=None):
        """Rotations drawn uniformly (Haar measure) with the PRNG key `random_key`: a
        normalized 4-D standard normal sample is a uniform unit quaternion."""
        shape = (4,) if num is None else (num, 4)
        return cls(_normalize(jrandom.normal(random_key, shape)))

    def __getitem__(self, indexer):
        """The rotation(s) at `indexer` of a stack."""
        if self.single:
            raise ArgumentTypeError("Single rotation is not subscriptable.",
                                    hint="index a Rotation built from a stack")
        return Rotation(self.quat[indexer])

    def __len__(self):
        """The number of rotations in a stack."""
        if self.single:
            raise ArgumentTypeError("Single rotation has no len().",
                                    hint="a single rotation has quat of shape (4,)")
        return self.quat.shape[0]

    def __mul__(self, other):
        """The composition: `other` applied first, then `self`."""
        return Rotation.from_quat(_compose(self.quat, other.quat))

    def apply(self, vectors, inverse=False):
        """Rotate `vectors` (..., 3) (by the inverse rotation with `inverse`)."""
        m = self.as_matrix()
        m = jnp.where(inverse, jnp.swapaxes(m, -1, -2), m)
        return jnp.einsum("...ij,...j->...i", m, jnp.asarray(vectors))

    def as_euler(self, seq, degrees=False):
        """Euler angles (..., 3) about the three axes `seq`."""
        axes, extrinsic = _parse_seq(seq, exact3=True)
        return _euler_from_quat(self.quat, axes, extrinsic, degrees)

    def as_matrix(self):
        """Rotation matrices (..., 3, 3)."""
        return _as_matrix(self.quat)

    def as_mrp(self):
        """Modified Rodrigues parameters (..., 3)."""
        return _as_mrp(self.quat)

    def as_rotvec(self, degrees=False):
        """Rotation vectors (..., 3), angle in [0, pi] (or degrees)."""
        return _as_rotvec(self.quat, degrees)

    def as_quat(self, canonical=False, scalar_first=False):
        """Quaternions (..., 4); `canonical`: w >= 0 (first nonzero positive);
        `scalar_first`: (w, x, y, z)."""
        quat = _canonical(self.quat) if canonical else self.quat
        return jnp.roll(quat, 1, axis=-1) if scalar_first else quat

    def inv(self):
        """The inverse rotation(s)."""
        return Rotation(self.quat * jnp.array([-1, -1, -1, 1], dtype=self.quat.dtype))

    def magnitude(self):
        """The rotation angle(s), in [0, pi]."""
        return 2.0 * jnp.arctan2(_norm(self.quat[..., :3]), jnp.abs(self.quat[..., 3]))

    def mean(self, weights=None):
        """The (weighted) mean rotation of a stack."""
        n = len(self)
        w = (jnp.ones(n, dtype=self.quat.dtype) if weights is None
             else jnp.asarray(weights, dtype=self.quat.dtype))
        if w.ndim != 1:
            raise ArgumentValueError(f"Expected `weights` to be 1 dimensional, got shape "
                                     f"{w.shape}.", hint="one weight per rotation")
        if w.shape[0] != n:
            raise ArgumentValueError("Expected `weights` to have number of values equal to "
                                     f"number of rotations, got {w.shape[0]} values and "
                                     f"{n} rotations.", hint="one weight per rotation")
        k = jnp.dot(w[None, :] * self.quat.T, self.quat)
        return Rotation(jnp.linalg.eigh(k)[1][:, -1])

    @property
    def single(self):
        """Whether this holds one rotation (quat of shape (4,))."""
        return self.quat.ndim == 1


class Slerp(typing.NamedTuple):
    """Spherical linear interpolation of key rotations at increasing `times`, as JAX's
    `jax.scipy.spatial.transform.Slerp`; build with `Slerp.init`, call with times."""
    times: typing.Any
    timedelta: typing.Any
    rotations: Rotation
    rotvecs: typing.Any

    @classmethod
    def init(cls, times, rotations):
        """The interpolator through `rotations` (at least 2) at the 1-D `times`."""
        if not isinstance(rotations, Rotation):
            raise ArgumentTypeError("`rotations` must be a `Rotation` instance.",
                                    hint="pass Rotation.from_...(...)")
        if rotations.single or len(rotations) == 1:
            raise ArgumentValueError("`rotations` must be a sequence of at least 2 "
                                     "rotations.", hint="pass a stack of rotations")
        times = jnp.asarray(times, dtype=rotations.quat.dtype)
        if times.ndim != 1:
            raise ArgumentValueError("Expected times to be specified in a 1 dimensional "
                                     f"array, got {times.ndim} dimensions.",
                                     hint="pass a 1-D array of times")
        if times.shape[0] != len(rotations):
            raise ArgumentValueError("Expected number of rotations to be equal to number "
                                     f"of timestamps given, got {len(rotations)} rotations "
                                     f"and {times.shape[0]} timestamps.",
                                     hint="one time per key rotation")
        starts = Rotation(rotations.quat[:-1])
        steps = (starts.inv() * Rotation(rotations.quat[1:])).as_rotvec()
        return cls(times=times, timedelta=jnp.diff(times), rotations=starts, rotvecs=steps)

    def __call__(self, times):
        """The interpolated rotation(s) at `times` (a scalar: a single rotation)."""
        t = jnp.asarray(times, dtype=self.times.dtype)
        if t.ndim > 1:
            raise ArgumentValueError("`times` must be at most 1-dimensional.",
                                     hint="pass a scalar or a 1-D array")
        single = t.ndim == 0
        t = jnp.atleast_1d(t)
        ind = jnp.maximum(jnp.searchsorted(self.times, t) - 1, 0)
        alpha = (t - self.times[ind]) / self.timedelta[ind]
        result = self.rotations[ind] * Rotation.from_rotvec(self.rotvecs[ind] * alpha[:, None])
        return result[0] if single else result
