"""The URL options every verb takes (``--allow-full-download``, ``--retries``, ``--timeout``)
reach the reader of that verb's model: each is shown changing what the verb does against a
misbehaving loopback server (tests/support/http_server.py), and a bad value is a usage error.
"""

from __future__ import annotations

import pytest

import wirecodec
from tests.support.http_server import BadServer
from wirecodec.cli import main
from wirecodec.cli.common import SMALL_MODEL
from wirecodec.helper import make_graph, make_model, make_node, make_tensor_value_info
from wirecodec.numpy_helper import from_array

np = pytest.importorskip("numpy")

# Verbs that read a model by URL, each as its argv before the URL.
VERBS = {
    "inspect": ["inspect"],
    "check": ["check"],
    "tensors --list": ["tensors", "--list"],
    "dump": ["dump"],
}


@pytest.fixture(scope="module")
def served(bad_server: BadServer) -> BadServer:
    """A model past SMALL_MODEL (read by ranges, not fetched whole) on the bad server."""
    count, each = 12, 200_000  # 9.6 MB of float32
    rng = np.random.default_rng(3)
    inits = [from_array(rng.standard_normal(each).astype(np.float32), f"w{i}") for i in range(count)]
    info = [make_tensor_value_info(name, 1, [each]) for name in ("x", "y")]
    graph = make_graph([make_node("Add", ["x", "w0"], ["y"])], "g", info[:1], info[1:], initializer=inits)
    wirecodec.save(make_model(graph), bad_server.root / "big.onnx")
    assert (bad_server.root / "big.onnx").stat().st_size > SMALL_MODEL
    return bad_server


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().err


@pytest.mark.parametrize("verb", list(VERBS))
def test_allow_full_download_reaches_the_verb(
    verb: str, served: BadServer, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served.url("big.onnx")
    served.behave("ignore-range")
    code, err = _run([*VERBS[verb], url], capsys)
    assert code != 0 and "ignores Range" in err and "--allow-full-download" in err, (code, err)
    served.behave("ignore-range")
    code, err = _run([*VERBS[verb], "--allow-full-download", url], capsys)
    assert code == 0, err


@pytest.mark.parametrize("verb", ["inspect", "check"])
def test_retries_reach_the_verb(verb: str, served: BadServer, capsys: pytest.CaptureFixture[str]) -> None:
    url = served.url("big.onnx")
    served.behave("503", times=2)  # two busy answers, then served
    code, err = _run([*VERBS[verb], "--retries", "0", url], capsys)
    assert code != 0 and "503" in err, err
    served.behave("503", times=2)
    code, err = _run([*VERBS[verb], "--retries", "3", url], capsys)
    assert code == 0, err


def test_timeout_reaches_the_verb(served: BadServer, capsys: pytest.CaptureFixture[str]) -> None:
    served.behave("stall", stall=1.5)
    code, err = _run(["inspect", "--timeout", "0.3", "--retries", "0", served.url("big.onnx")], capsys)
    assert code != 0 and "timed out" in err, err


@pytest.mark.parametrize("option", [["--retries", "-1"], ["--timeout", "0"]])
def test_a_bad_url_option_is_a_usage_error(
    option: list[str], served: BadServer, capsys: pytest.CaptureFixture[str]
) -> None:
    served.behave(None)
    code, err = _run(["inspect", *option, served.url("big.onnx")], capsys)
    assert code == 2 and ("retries" in err or "timeout" in err), err
