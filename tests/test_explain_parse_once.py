"""explain preprocesses and parses a source once when every -D binds a kernel or template
parameter, and a second time only when some -D is a macro for the preprocessor."""

from __future__ import annotations

from bankism.explain import ExplainOptions, analysis, explain

SOURCE = """
#define PAD 1
template <int TILE>
__global__ void k(float *out, int n) {
  __shared__ float s[TILE][TILE + PAD];
  s[threadIdx.x % TILE][0] = n;
  out[threadIdx.x] = s[0][threadIdx.x % TILE];
}
int main() { k<32><<<1, 32>>>(0, 8); }
"""


def _parses(monkeypatch, defines: dict[str, str]) -> tuple[int, dict]:
    calls = []
    real = analysis.parse
    monkeypatch.setattr(analysis, "parse", lambda pre: calls.append(1) or real(pre))
    report = explain(SOURCE, "k.cu", ExplainOptions(defines=defines))
    return len(calls), report


def test_parameters_only_parse_once(monkeypatch):
    count, report = _parses(monkeypatch, {"TILE": "32", "n": "8"})
    assert count == 1
    assert report["sites"][0]["wavefronts"] == 1  # column 0 of a 32x33 tile: rows 33 words apart


def test_a_macro_parses_again_with_it(monkeypatch):
    count, report = _parses(monkeypatch, {"TILE": "32", "PAD": "0"})
    assert count == 2
    assert report["sites"][0]["wavefronts"] == 32  # rows 32 words apart: one bank
