"""Class templates chosen by their partial and explicit (full) specializations, with kernels of our own
(after loostrum/wgmma_interface's ``fragment<matrix_a, M, N, K, half, row_major>``, which explain refused):
each specialization gives its own stride, so choosing a wrong one changes the wavefronts.

Ground truth, by hand from the bank rule (32 banks of 4 bytes; a warp's 4-byte accesses cost the most
distinct words any one bank serves): 32 lanes storing floats ``stride`` words apart touch
gcd(stride, 32) words in one bank, so the store costs gcd(stride, 32) wavefronts (ideal 1)."""

from __future__ import annotations

from math import gcd

import numpy as np
import pytest

from bankism.errors import BankismError
from tests.test_explain_support import BASE, DATA, check_site, run, site

KERNEL = DATA / "heldout" / "partial_specialization.cu"
LANES = np.arange(32)


@pytest.mark.parametrize("line, array, stride", [
    (21, "s", 16),       # Pad<int, 16>: the primary, stride W
    (22, "padded", 8),   # Pad<float, 7>: the partial Pad<float, W>, W + 1 (the primary would give 7)
    (23, "s", 2),        # Pad<float, 32>: the full specialization (Pad<float, W> would give 33)
    (24, "s", 8),        # Pad<double *, 32>: Pad<T *, W>, sizeof(T) (the primary would give 32)
    (25, "s", 16),       # Pad<Vec<int, 16>, 1>: Pad<Vec<T, N>, W>, N deduced inside (primary: 1)
    (26, "s", 4),        # Pad<Vec<int, 32>, 2>: Pad<Vec<T, 32>, W> is more specialized, W + 2 (not 32)
    (28, "s", 2),        # sizeof(Pad<Vec<short, 8>, 1>::elem): the member alias elem = T = short
])
def test_a_trait_is_chosen_by_its_most_specialized_pattern(line, array, stride):
    report = run(KERNEL, kernel="traits")
    base = next(a["base_offset"] for a in report["shared_arrays"] if a["name"] == array)
    found = site(report, line, array, "store")
    check_site(found, {0: (base + 4 * stride * LANES).reshape(1, 32)}, 4, "store")
    assert found["wavefronts"] == gcd(stride, 32) and found["ideal"] == 1


def test_a_specialization_sizes_a_shared_array():
    report = run(KERNEL, kernel="traits")
    shapes = {a["name"]: a["shape"] for a in report["shared_arrays"]}
    assert shapes == {"s": [1024], "padded": [256]}  # 32 * Pad<float, 7>::stride = 32 * 8
    assert report["shared_arrays"][0]["base_offset"] == BASE


def test_per_specialization_member_functions_of_a_template_only_declared():
    report = run(KERNEL, kernel="tiles")
    row = [(s["instructions"], s["wavefronts"]) for s in report["sites"] if s["line"] == 37]
    # Tile<row_tag, 32, float>::load: s[lane * 32 + i], all 32 lanes in bank i: 32 wavefronts x 4 loads;
    # Tile<row_tag, 33, float>::load: s[lane * 33 + i], bank (lane + i) % 32: 1 wavefront x 4 loads
    assert sorted(row) == [(4, 4), (4, 128)]
    # Tile<col_tag, 32, float, col_tag>::load (the other specialization): s[i * 32 + lane], 1 x 4
    assert [(s["instructions"], s["wavefronts"]) for s in report["sites"] if s["line"] == 43] == [(4, 4)]
    # first(c, tile): K deduced as 33 from the specialization's argument position, s[lane * 33]: 1
    check_site(site(report, 49, "tile", "load"), {0: (BASE + 4 * 33 * LANES).reshape(1, 32)}, 4, "load")
    # first(b, tile): the overload for Tile<col_tag, K, float, col_tag>, K = 32: s[lane * 2 + 32],
    # lanes l and l + 16 in one bank: 2 wavefronts
    found = site(report, 53, "tile", "load")
    check_site(found, {0: (BASE + 4 * (2 * LANES + 32)).reshape(1, 32)}, 4, "load")
    assert found["wavefronts"] == 2


def test_two_specializations_matching_alike_are_refused_as_ambiguous():
    message = r"partial_specialization.cu:73: ambiguous partial specializations of Pair for these template " \
              r"arguments \(lines 68, 69\)"
    with pytest.raises(BankismError, match=message):
        run(KERNEL, kernel="ambiguous")


def test_arguments_no_specialization_matches_of_a_template_only_declared_are_refused(tmp_path):
    source = tmp_path / "k.cu"
    source.write_text(
        "template <typename T, int N> struct Frag;\n"
        "template <int N> struct Frag<float, N> { static constexpr int n = N; };\n"
        "__global__ void k(float *out) {\n"
        "  __shared__ float s[64];\n"
        "  s[threadIdx.x * Frag<double, 2>::n] = 1.f;\n"
        "}\n")
    with pytest.raises(BankismError, match="k.cu:5: unsupported construct: no definition of Frag for these "
                                           "template arguments"):
        run(source, grid=(1, 1, 1), block=(32, 1, 1))
