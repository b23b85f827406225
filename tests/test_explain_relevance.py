"""Which statements explain may skip because their results can never reach anything it
reports (bankism/explain/simt/relevance.py), and that skipping them changes no answer."""

from __future__ import annotations

from bankism.explain.analysis import _choose_kernel, _program
from bankism.explain.frontend import syntax as S
from bankism.explain.model import ExplainOptions
from bankism.explain.simt.relevance import skippable_statements
from tests.test_explain_support import run

TILE = """
__global__ void tile(const float *A, float *C, int N) {
  __shared__ float As[16][16];
  float acc[4] = {0};
  As[threadIdx.y][threadIdx.x] = A[threadIdx.y * N + threadIdx.x];
  __syncthreads();
  for (int k = 0; k < 16; ++k)
    for (int i = 0; i < 4; ++i)
      acc[i] += As[k][threadIdx.x] * 2.f;
  int row = blockIdx.y * 16 + threadIdx.y;
  reinterpret_cast<float4 *>(C + row * N)[threadIdx.x] = make_float4(acc[0], acc[1], acc[2], acc[3]);
}
int main() { tile<<<1, dim3(16, 16)>>>(0, 0, 64); }
"""


def _skipped_lines(source: str, path) -> set[int]:  # noqa: ANN001
    path.write_text(source)
    options = ExplainOptions()
    program = _program(source, str(path), options)
    kernel = _choose_kernel(program, "tile", str(path))
    skippable = skippable_statements(program, kernel)
    body = program.body(kernel)
    return {n.line for n in S.walk(body) if isinstance(n, S.ExprStmt) and id(n) in skippable}


def test_a_register_tile_stored_through_pointer_arithmetic_is_skipped(tmp_path):
    """``((float4 *)(C + row * N))[x] = acc``: the value flows into C (the pointer), not into the
    integer N that also appears there; N decides addresses, so acc must not become relevant
    (a public SIMT HGEMM ran 16.7 s instead of 4.8 s)."""
    assert 9 in _skipped_lines(TILE, tmp_path / "tile.cu")
    report = run(tmp_path / "tile.cu")
    loads = [s for s in report["sites"] if s["line"] == 9]
    assert len(loads) == 1 and loads[0]["instructions"] == 8 * 16 * 4


def test_a_name_that_is_a_pointer_somewhere_keeps_the_value_relevant(tmp_path):
    """Names are matched by spelling: when N is also declared as a pointer in reach, the store
    may write through it, so the accumulation stays."""
    source = TILE.replace("int main()", "__device__ float *N;\nint main()")
    assert 9 not in _skipped_lines(source, tmp_path / "tile.cu")
