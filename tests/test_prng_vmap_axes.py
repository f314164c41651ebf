"""PRNG keys under nested `vmap` with moved axes: JAX's values for every implementation.

rbg and unsafe_rbg draw the bits of a batch of keys from the batch's first key, in the
order of the keys' data (XLA's `rng_bit_generator` batching), so the layout the batching
rules leave the keys in is observable: the batch axis of `split`/`bits`/`fold_in` stays
where it is (JAX's vectorized and broadcasting rules), `squeeze` moves it first (so
`k1, k2 = split(key)` in a sampler lays the keys out as JAX does), and a message that
broadcasts against the keys is not mapped (one unsafe_rbg draw, not one per key).
threefry is the control (elementwise, layout-blind). JAX 0.10.2's values, computed by
`/work/jaxref/bin/python` running the cases below with `jax` for `astjax`; the floats
of `uniform` are exact bit patterns of the drawn bits (no transcendental on the way).
"""
import numpy as np
import pytest

import astjax as jax

r = jax.random

FUNS = {
    "bits": lambda k: r.bits(k, (1,)),
    "split": lambda k: r.key_data(r.split(k, 2))[..., 0],
    "fold_in": lambda k: r.key_data(r.fold_in(k, 7))[..., 0],
    "uniform": lambda k: r.uniform(k, (1,)),
    "randint": lambda k: r.randint(k, (1,), 0, 1 << 20),
}
CASES = {
    "vv1_1": lambda f, k: jax.vmap(jax.vmap(f), in_axes=1, out_axes=1)(k),
    "vv-1_-1": lambda f, k: jax.vmap(jax.vmap(f), in_axes=-1, out_axes=-1)(k),
    "vvv": lambda f, k: jax.vmap(jax.vmap(jax.vmap(f), in_axes=1, out_axes=-1),
                                 in_axes=-1, out_axes=1)(k.reshape(2, 3, 1)),
}

JAX = {
    'threefry2x32 bits vv1_1': [[[3018868992], [828436750], [1797971125]], [[1889881816], [1737637518], [2296687596]]],
    'threefry2x32 bits vv-1_-1': [[[3018868992, 828436750, 1797971125]], [[1889881816, 1737637518, 2296687596]]],
    'threefry2x32 bits vvv': [[[[3018868992, 828436750, 1797971125]]], [[[1889881816, 1737637518, 2296687596]]]],
    'threefry2x32 fold_in vv1_1': [[3582594393, 1385700873, 1139382857], [1856277628, 4094187979, 89421912]],
    'threefry2x32 fold_in vv-1_-1': [[3582594393, 1385700873, 1139382857], [1856277628, 4094187979, 89421912]],
    'threefry2x32 fold_in vvv': [[[3582594393, 1385700873, 1139382857]], [[1856277628, 4094187979, 89421912]]],
    'rbg bits vv1_1': [[[2299110959], [2428899311], [1259846625]], [[3179227693], [2172912498], [1231669529]]],
    'rbg bits vv-1_-1': [[[2299110959, 2428899311, 1259846625]], [[3179227693, 2172912498, 1231669529]]],
    'rbg bits vvv': [[[[2299110959, 2428899311, 1259846625]]], [[[3179227693, 2172912498, 1231669529]]]],
    'rbg split vv1_1': [[[1623140228, 3729800623], [1296175695, 3085327769], [2890133578, 3415567578]], [[3322032844, 2671565123], [3335932367, 3323263235], [4009886487, 2479073744]]],
    'rbg split vv-1_-1': [[[1623140228, 1296175695, 2890133578], [3729800623, 3085327769, 3415567578]], [[3322032844, 3335932367, 4009886487], [2671565123, 3323263235, 2479073744]]],
    'rbg split vvv': [[[[1623140228, 1296175695, 2890133578], [3729800623, 3085327769, 3415567578]]], [[[3322032844, 3335932367, 4009886487], [2671565123, 3323263235, 2479073744]]]],
    'rbg fold_in vv1_1': [[3582594393, 1385700873, 1139382857], [1856277628, 4094187979, 89421912]],
    'rbg fold_in vv-1_-1': [[3582594393, 1385700873, 1139382857], [1856277628, 4094187979, 89421912]],
    'rbg fold_in vvv': [[[3582594393, 1385700873, 1139382857]], [[1856277628, 4094187979, 89421912]]],
    'rbg uniform vv1_1': [[[0.5353034734725952], [0.5655220746994019], [0.2933307886123657]], [[0.7402216196060181], [0.5059205293655396], [0.2867703437805176]]],
    'rbg uniform vv-1_-1': [[[0.5353034734725952, 0.5655220746994019, 0.2933307886123657]], [[0.7402216196060181, 0.5059205293655396, 0.2867703437805176]]],
    'rbg uniform vvv': [[[[0.5353034734725952, 0.5655220746994019, 0.2933307886123657]]], [[[0.7402216196060181, 0.5059205293655396, 0.2867703437805176]]]],
    'rbg randint vv1_1': [[[190311], [445006], [909556]], [[608045], [846756], [428624]]],
    'rbg randint vv-1_-1': [[[190311, 445006, 909556]], [[608045, 846756, 428624]]],
    'rbg randint vvv': [[[[190311, 445006, 909556]]], [[[608045, 846756, 428624]]]],
    'unsafe_rbg bits vv1_1': [[[3020841501], [1626401098], [232118619]], [[934122321], [564855923], [193153076]]],
    'unsafe_rbg bits vv-1_-1': [[[3020841501, 1626401098, 232118619]], [[934122321, 564855923, 193153076]]],
    'unsafe_rbg bits vvv': [[[[3020841501, 1626401098, 232118619]]], [[[934122321, 564855923, 193153076]]]],
    'unsafe_rbg split vv1_1': [[[3020841501, 2468612795], [832201877, 2957278116], [2060690131, 166612110]], [[3815072509, 1919950846], [2466649106, 3365073032], [1378910210, 2796482290]]],
    'unsafe_rbg split vv-1_-1': [[[3020841501, 832201877, 2060690131], [2468612795, 2957278116, 166612110]], [[3815072509, 2466649106, 1378910210], [1919950846, 3365073032, 2796482290]]],
    'unsafe_rbg split vvv': [[[[3020841501, 832201877, 2060690131], [2468612795, 2957278116, 166612110]]], [[[3815072509, 2466649106, 1378910210], [1919950846, 3365073032, 2796482290]]]],
    'unsafe_rbg fold_in vv1_1': [[3883747357, 519580537, 116078659], [2344564822, 3228503169, 183616603]],
    'unsafe_rbg fold_in vv-1_-1': [[3883747357, 519580537, 116078659], [2344564822, 3228503169, 183616603]],
    'unsafe_rbg fold_in vvv': [[[3883747357, 519580537, 116078659]], [[2344564822, 3228503169, 183616603]]],
    'unsafe_rbg uniform vv1_1': [[[0.703344464302063], [0.3786759376525879], [0.054044246673583984]], [[0.2174922227859497], [0.1315157413482666], [0.04497194290161133]]],
    'unsafe_rbg uniform vv-1_-1': [[[0.703344464302063, 0.3786759376525879, 0.054044246673583984]], [[0.2174922227859497, 0.1315157413482666, 0.04497194290161133]]],
    'unsafe_rbg uniform vvv': [[[[0.703344464302063, 0.3786759376525879, 0.054044246673583984]]], [[[0.2174922227859497, 0.1315157413482666, 0.04497194290161133]]]],
    'unsafe_rbg randint vv1_1': [[[405521], [359790], [278849]], [[64243], [65811], [537032]]],
    'unsafe_rbg randint vv-1_-1': [[[405521, 359790, 278849]], [[64243, 65811, 537032]]],
    'unsafe_rbg randint vvv': [[[[405521, 359790, 278849]]], [[[64243, 65811, 537032]]]]
}


@pytest.mark.parametrize("impl", ["threefry2x32", "rbg", "unsafe_rbg"])
def test_nested_vmap_moved_axes_match_jax(impl):
    # every case in one jitted function (one compilation per implementation)
    # (threefry, the layout-blind control, with two of the functions)
    funs = {fn: FUNS[fn] for fn in (("bits", "fold_in") if impl == "threefry2x32" else FUNS)}
    k = r.split(r.key(6, impl=impl), (2, 3))
    outs = jax.jit(lambda k: {f"{fn} {case}": run(f, k) for fn, f in funs.items()
                              for case, run in CASES.items()})(k)
    assert len(outs) == len(funs) * len(CASES)
    for name, got in outs.items():
        got, want = np.asarray(got), np.asarray(JAX[f"{impl} {name}"])
        assert got.shape == want.shape, (impl, name)
        np.testing.assert_array_equal(got, want.astype(got.dtype), err_msg=f"{impl} {name}")


def test_unsafe_rbg_fold_in_broadcast_message_is_one_draw():
    # JAX folds an unmapped message into every key with the same drawn row
    k = r.split(r.key(3, impl="unsafe_rbg"), 3)
    got = np.asarray(r.key_data(jax.vmap(lambda k: r.fold_in(k, 5))(k)))
    delta = got ^ np.asarray(r.key_data(k))
    assert (delta == delta[0]).all() and delta[0].any()
