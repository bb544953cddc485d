"""The tests run against the installed wheel (``ci.sh`` installs it into a
fresh virtual environment), never against the source folder."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import reducer_kit

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))


def pytest_report_header(config):
    return f"reducer_kit {reducer_kit.__version__} from {Path(reducer_kit.__file__).parent}"


@pytest.fixture(scope="session")
def installed():
    """The wheel's package is the one imported, not python/reducer_kit."""
    where = Path(reducer_kit.__file__).resolve()
    assert HERE.parent not in where.parents, f"reducer_kit imported from the source tree: {where}"
    return where


@pytest.fixture(scope="session")
def kit_cli():
    """The ``reducer-kit`` console script of the environment."""
    bindir = Path(sys.executable).parent
    name = "reducer-kit.exe" if os.name == "nt" else "reducer-kit"
    return str(bindir / name)


@pytest.fixture(scope="session")
def repo():
    return REPO
