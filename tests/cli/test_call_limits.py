"""The fuzz harness's stall rule (`tests.support.call_limits`): a call that waits while processes it started compute
is not stalled; a call that only sleeps is. (Found by the 1,000-vector fuzz: ``matrix compare --stream`` hands its
blocks to a process pool, and on a loaded machine its own CPU stayed below the rule's 0.06 s in 120 s.)"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tests.support import call_limits
from tests.support.call_limits import Slow, cpu_seconds, family_cpu_seconds, limits

_BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < {s}:\n    pass\n"


def test_family_cpu_counts_a_working_child() -> None:
    own, family = cpu_seconds(), family_cpu_seconds()
    child = subprocess.Popen([sys.executable, "-c", _BURN.format(s=0.5)])
    child.wait()
    assert cpu_seconds() - own < 0.3  # the caller waited
    assert family_cpu_seconds() - family >= 0.45  # the child's 0.5 s counted (reaped)


@pytest.fixture()
def short_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(call_limits, "STALL_SECONDS", 2.0)


@pytest.mark.usefixtures("short_window")
def test_waiting_on_a_working_child_is_not_a_stall() -> None:
    with limits(60.0):
        child = subprocess.Popen([sys.executable, "-c", _BURN.format(s=5.0)])
        child.wait()  # two-second windows, each with far more than 0.06 s of the child's CPU


@pytest.mark.usefixtures("short_window")
def test_sleeping_alone_is_a_stall() -> None:
    with pytest.raises(Slow, match="stalled"), limits(60.0):
        time.sleep(30.0)  # the first window ends the call (the sleep is interrupted by the signal's exception)
