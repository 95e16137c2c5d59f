"""The table options reach the client from one declaration (engine/rules.py): ``GET
/api/rules`` lists every option ``Rules`` has, the browser keeps no list of its own, and
a new option declared on ``Rules`` is served, accepted and offered with no other edit."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from nertz.engine import PRESETS, Rules, RulesError
from nertz.server.http.app import Config, create_app
from nertz.server.http.sheets import SHEET_OPTIONS

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "nertz"
OPTION_NAMES = tuple(f.name for f in fields(Rules))


def as_text(value: object) -> str:
    """A value as a form sends it (rules.js ``formValue``): on/off for true/false."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def test_the_api_lists_every_option_rules_has_with_what_the_server_accepts(
    tmp_path: Path,
) -> None:
    with TestClient(
        create_app(Config(db=str(tmp_path / "r.db"))), base_url="http://127.0.0.1"
    ) as client:
        body = client.get("/api/rules").json()
    served = {o["name"]: o for o in body["options"]}
    assert list(served) == list(OPTION_NAMES)
    assert body["presets"] == PRESETS
    assert [o["name"] for o in body["options"] if o["sheet"]] == list(SHEET_OPTIONS)
    for name, o in served.items():
        default = getattr(Rules(), name)
        assert o["default"] == default and o["type"] == type(default).__name__, name
        assert o["help"] and o["label"] and o["allowed"] and re.fullmatch(r"R\d+", o["rule"])
        # Every value a form offers is one the server takes as text (POST /api/tables).
        offered = o["values"] if "values" in o else [o["min"], o["max"]]
        for value in offered:
            assert getattr(Rules().with_text({name: as_text(value)}), name) == value
        if "values" in o:
            assert o["values"][0] == default  # a form's list starts at the default
        else:
            with pytest.raises(RulesError, match=f"'{name}' must be {re.escape(o['allowed'])}"):
                Rules().with_text({name: str(o["max"] + 1)})
    assert served["draw"]["values"] == [3, 1] and served["target"]["max"] == 10000
    assert served["jokers"]["values"] == [False, True]


def listed_option_names(source: str) -> set[str]:
    """The option names a piece of JS spells as string literals or object keys
    (comments aside): a form of its own, a preset table, a defaults map."""
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.DOTALL)
    source = re.sub(r"(^|\s)//[^\n]*", r"\1", source)
    names = "|".join(OPTION_NAMES)
    found = re.finditer(rf"""(["'`])({names})\1|[{{,]\s*({names})\s*:""", source)
    return {m.group(2) or m.group(3) for m in found}


def test_the_client_keeps_no_list_of_option_names() -> None:
    # The check itself finds the lists the client used to carry.
    assert listed_option_names(
        'const PRESETS = { bonus: { caller_bonus: 10, tie_break: "caller" } };'
    ) == {"caller_bonus", "tie_break"}
    assert listed_option_names('const SHEET = ["penalty", "jokers"]; // "draw"') == {
        "penalty",
        "jokers",
    }
    scripts = sorted((PACKAGE / "web").rglob("*.js")) + sorted((PACKAGE / "web").rglob("*.html"))
    assert len(scripts) >= 5
    for path in scripts:
        named = listed_option_names(path.read_text(encoding="utf-8"))
        # One name alone is a word ("target" of a link or a chart), not a list of options.
        assert len(named) < 2, f"{path.name} lists options of its own: {sorted(named)}"


NEW_OPTION = """
    house_points: int = option(
        7,
        allowed=range(0, 10),
        text="0 to 9",
        rule="R30",
        help="Points a house rule adds.",
        sheet=True,
    )
"""

PROBE = """
import json, sys
import nertz
assert nertz.__file__.startswith(sys.argv[1]), nertz.__file__
from starlette.testclient import TestClient
from nertz.server.http.app import Config, create_app
with TestClient(create_app(Config(db=sys.argv[2])), base_url="http://127.0.0.1") as client:
    rules = client.get("/api/rules").json()
    sheet = client.post(
        "/api/sheets", json={"names": ["Ann", "Bob"], "options": {"house_points": "3"}}
    ).json()
    made = client.post("/api/tables", json={"options": {"house_points": "9"}}).json()
    table = client.get(f"/api/tables/{made['code']}").json()
    bad = client.post("/api/tables", json={"options": {"house_points": "10"}}).json()
print(json.dumps({"rules": rules, "sheet": sheet["options"], "table": table["rules"], "bad": bad}))
"""


def test_a_new_option_declared_on_rules_is_served_and_taken_with_no_other_edit(
    tmp_path: Path,
) -> None:
    copy = tmp_path / "src" / "nertz"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    rules_py = copy / "engine" / "rules.py"
    source = rules_py.read_text(encoding="utf-8")
    last = "\n    def __post_init__(self) -> None:"
    assert source.count(last) == 1
    rules_py.write_text(source.replace(last, NEW_OPTION + last), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-c", PROBE, str(copy), str(tmp_path / "probe.db")],
        env={"PYTHONPATH": str(copy.parent), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    served = out["rules"]["options"][-1]
    assert served == {
        "name": "house_points",
        "type": "int",
        "default": 7,
        "min": 0,
        "max": 9,
        "allowed": "0 to 9",
        "label": "house points",
        "help": "Points a house rule adds.",
        "rule": "R30",
        "sheet": True,
    }
    assert out["sheet"]["house_points"] == 3  # the score sheet takes it
    assert out["table"]["house_points"] == 9  # and so does a table
    assert out["bad"]["reason"] == "option 'house_points' must be 0 to 9, not 10"
