"""``panelot-host logs [--follow]``: the host's recent log, across a rotation."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from panelot_host.cli.show_logs import follow, log_path, run_logs, tail


def write_log(home: Path, lines: list[str], suffix: str = "") -> Path:
    path = log_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    target = path.with_name(path.name + suffix)
    target.write_text("".join(f"{line}\n" for line in lines), "utf-8")
    return target


def test_tail_reaches_into_the_rotated_file(tmp_path: Path) -> None:
    write_log(tmp_path, ["old 1", "old 2"], ".1")
    write_log(tmp_path, ["new 1"])
    assert tail(log_path(tmp_path), 2) == ["old 2", "new 1"]
    assert tail(log_path(tmp_path), 10) == ["old 1", "old 2", "new 1"]


def test_logs_prints_the_last_lines(tmp_path: Path) -> None:
    write_log(tmp_path, [f"line {i}" for i in range(100)])
    out = io.StringIO()
    options = argparse.Namespace(lines=3, follow=False)
    assert run_logs(options, out=out, environ={"PANELOT_HOME": str(tmp_path)}) == 0
    assert out.getvalue() == "line 97\nline 98\nline 99\n"


def test_no_log_yet_says_when_there_will_be_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = argparse.Namespace(lines=3, follow=False)
    assert run_logs(options, out=io.StringIO(), environ={"PANELOT_HOME": str(tmp_path)}) == 1
    assert "no log yet" in capsys.readouterr().err


def append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


def test_follow_prints_appended_lines_and_survives_a_rotation(tmp_path: Path) -> None:
    path = write_log(tmp_path, ["before"])
    out = io.StringIO()
    steps = iter(
        [
            lambda: append(path, "first\nhalf"),
            lambda: append(path, " line\n"),
            lambda: (path.rename(path.with_name("host.log.1")), path.write_text("rotated\n")),
        ]
    )
    done = False

    def sleep(_: float) -> None:
        nonlocal done
        step = next(steps, None)
        if step is None:
            done = True
        else:
            step()

    follow(path, out, stop=lambda: done, sleep=sleep)
    assert out.getvalue() == "first\nhalf line\nrotated\n"
