"""A ``--scheduler`` address Dask cannot use, or where no Dask scheduler answers: one line naming ``--scheduler`` and
the reason, exit 2, decided by `dpcalc.sim.probe` before ``distributed.Client`` sees the address.

Before: ``tls://…`` and ``ucx://…`` gave TypeError tracebacks of 85–93 lines (exit 1) after a 10 s close; a port
where an HTTP server listens hung (the handshake read has no time limit); a server that greets first (SSH) had its
greeting read as a frame length of exabytes ("out of memory … cap 2 GiB"). "Fast" is shown by what the code does, not
by a clock: the client is never constructed (it is what waited), and the one wait left (a silent server) is the
probe's own timeout.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.sim.conftest import needs_cluster
from tests.support.cli_runner import run

pytestmark = needs_cluster


@pytest.fixture
def no_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """``distributed.Client`` must not be reached: every refusal is the probe's."""
    import distributed

    class Refused(distributed.Client):  # type: ignore[misc]  # a class still: connect() asks isinstance
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise AssertionError("distributed.Client was constructed for an address the probe should refuse")

    monkeypatch.setattr(distributed, "Client", Refused)


def _server(greeting: bytes | None) -> Iterator[int]:
    """A TCP server on a free port: each connection gets ``greeting`` (None: nothing) and is held open."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            held.append(conn)
            if greeting is not None:
                conn.sendall(greeting)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield srv.getsockname()[1]
    finally:
        srv.close()
        for conn in held:
            conn.close()


@pytest.fixture
def ssh_like() -> Iterator[int]:
    yield from _server(b"SSH-2.0-OpenSSH_9.6\r\n")


@pytest.fixture
def silent() -> Iterator[int]:
    yield from _server(None)


def _closed_port() -> int:
    with socket.socket() as s:  # a free port, closed again: nothing listens there
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _error(*argv: str) -> str:
    code, out, err = run(*argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, (code, err)
    assert err.startswith("dpcalc: error: --scheduler: "), err
    return err


@pytest.mark.usefixtures("no_client")
@pytest.mark.parametrize("address, reason", [
    ("tls://127.0.0.1:9", "uses TLS, but no TLS settings are configured for Dask"),
    ("ucx://127.0.0.1:9", "the ucx:// protocol is not supported by this Dask installation"),
    ("foo://127.0.0.1:9", "unknown protocol foo://"),
    ("tcp://127.0.0.1", "is not a host:port address"),
])
def test_an_address_dask_cannot_use_is_one_line(address: str, reason: str) -> None:
    assert reason in _error("verify", "--paper", "000", "--scheduler", address)


@pytest.mark.usefixtures("no_client")
def test_nothing_listening_is_refused_at_once() -> None:
    """Connection refused is final: no retries until the connect timeout (before: 5 s of Dask's retries)."""
    port = _closed_port()
    for argv in (["verify", "--paper", "000"], ["sigma", "--eps", "1,2", "--d", "10"],
                 ["nbafl", "simulate", "--eps", "5", "--t-max", "2", "--n", "4", "--repeats", "2"]):
        err = _error(*argv, "--scheduler", f"tcp://127.0.0.1:{port}")
        assert f"nothing listens at tcp://127.0.0.1:{port} (connection refused)" in err


@pytest.mark.usefixtures("no_client")
def test_a_server_that_greets_with_something_else_is_not_dask(ssh_like: int) -> None:
    """Its greeting is not read as a frame length (b'SSH-2.0-' is 3.4e18 bytes: MemoryError before)."""
    err = _error("verify", "--paper", "000", "--scheduler", f"tcp://127.0.0.1:{ssh_like}")
    assert "does not speak Dask's protocol (it sent b'SSH-2.0-')" in err


@pytest.mark.usefixtures("no_client")
def test_a_silent_server_is_given_up_after_the_timeout(silent: int) -> None:
    """A server that waits for a request (HTTP) hung the client forever; the probe waits ``timeout`` seconds."""
    from dpcalc.sim.cluster import ClusterError, connect

    with pytest.raises(ClusterError, match=r"^scheduler: no Dask scheduler answered at .* within 0\.2 s"):
        with connect(f"tcp://127.0.0.1:{silent}", timeout=0.2):
            pass


def test_the_probe_completes_a_real_schedulers_handshake(cluster: Any) -> None:
    """Against a scheduler the probe reads its greeting and echoes it (a normal client to the scheduler); the
    connection that follows works."""
    import distributed

    from dpcalc.sim import probe
    from dpcalc.sim.cluster import connect

    lc, _ = cluster
    probe.check(distributed, lc.scheduler_address, 5.0)
    with connect(lc.scheduler_address) as ex:
        assert ex.workers == 2
