"""The schema data read line by line (wirecodec.defs._registry._lines): each operator's line
parsed on its first lookup gives the registry the whole file's JSON parse gives, and a text
not in the generator's layout is parsed whole."""

from __future__ import annotations

import json

import pytest

from wirecodec.defs import _generate, _registry


def test_the_lines_give_the_registry_the_whole_parse_gives() -> None:
    text = _registry._data_text()
    by_lines = _registry._lines(text)
    whole = _registry.build(json.loads(text))
    assert by_lines is not None, "the shipped file is in the generator's layout"
    assert dict(by_lines._since) == dict(whole._since)
    assert sorted(by_lines.by_op) == sorted(whole.by_op)
    for key in whole.by_op:
        assert by_lines.by_op[key] == whole.by_op[key], key
    assert by_lines.onnx_version == whole.onnx_version
    assert by_lines.domain_versions == whole.domain_versions
    assert by_lines.experimental_ops == whole.experimental_ops


def test_a_lookup_parses_only_its_operators_lines() -> None:
    table = _registry._lines(_registry._data_text())
    assert table is not None
    raw = table.by_op._raw  # type: ignore[attr-defined]
    assert all(type(line) is str for lines in raw.values() for line in lines)
    schema = table.schema("Conv", 11, "")
    assert schema is not None and schema.name == "Conv" and schema.since_version == 11
    assert table.schema("Conv", 10, "").since_version == 1  # type: ignore[union-attr]
    assert ("", "Conv") in table.by_op._built and ("", "Relu") not in table.by_op._built  # type: ignore[attr-defined]


def test_the_rendered_layout_is_what_the_lines_read() -> None:
    data = json.loads(_registry._data_text())
    again = _registry._lines(_generate.render(data))
    assert again is not None and dict(again._since) == dict(_registry.registry()._since)


@pytest.mark.parametrize(
    "line",
    [
        '{"domain":"","name":"Abs","since_version":1,"x":1}',  # keys in another order
        '{"name":"A\\"b","domain":"","since_version":1,"x":1}',  # an escaped quote in the name
        '{"name":"Abs","domain":"","since_version":x1,"x":1}',  # not a number
        '{"name":"Abs","domain":"","since_version":1,"x":1',  # cut short
    ],
)
def test_a_line_not_as_the_generator_writes_it_is_not_read_by_its_start(line: str) -> None:
    assert _registry._key_of(line) is None


def test_a_text_in_another_layout_is_parsed_whole() -> None:
    text = _registry._data_text()
    compact = json.dumps(json.loads(text))  # one line: the same data
    assert _registry._lines(compact) is None
    assert _registry.build(json.loads(compact)).by_op[("", "Add")] == _registry.registry().by_op[("", "Add")]
