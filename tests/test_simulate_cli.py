"""`bankism simulate`: one warp from the command line, and its one-line errors."""

import json

from tests.helpers import Ran, run_cli


def _run(*args: str) -> Ran:
    return run_cli("simulate", *args)


def test_stride_prints_explanation_and_bank_map():
    done = _run("--stride", "128", "--width", "4")
    assert done.returncode == 0
    assert "32 wavefront(s)" in done.stdout and "bank  0:" in done.stdout


def test_json_output():
    done = _run("--stride", "8", "--width", "8", "--json")
    figures = json.loads(done.stdout)
    assert figures["wavefronts"] == 2 and figures["split"] == "half-warp" and figures["conflicts"] == 0


def test_atomic_cas_from_the_command_line():
    done = _run("--stride", "0", "--width", "4", "--op", "atomic", "--atomic-op", "cas", "--json")
    assert json.loads(done.stdout)["wavefronts"] == 64


def test_bad_input_is_one_line_exit_2():
    bad = (["--stride", "4", "--width", "3"], ["--addresses", "1,2"], ["--stride", "2", "--width", "8"])
    for args in bad:
        done = _run(*args)
        assert done.returncode == 2
        assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1
        assert "Traceback" not in done.stderr


def test_atomic_popc_inc_merges_one_address():
    """ATOMS.POPC.INC.32 (an unused atomicAdd(p, 1)): 32 lanes on one word cost 1 wavefront, not 32."""
    done = _run("--stride", "0", "--width", "4", "--op", "atomic", "--atomic-op", "popc_inc", "--json")
    assert json.loads(done.stdout)["wavefronts"] == 1
    done = _run("--stride", "0", "--width", "4", "--op", "atomic", "--atomic-op", "min", "--json")
    assert json.loads(done.stdout)["wavefronts"] == 32
