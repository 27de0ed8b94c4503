"""Before Dask connects to a scheduler address: is its protocol usable here, and does a Dask scheduler answer there?

``distributed.Client`` takes any address and fails late and loudly: a ``tls://`` address without TLS settings, or
``ucx://`` (removed from ``distributed``), ends in a TypeError traceback after a 10 s close; a port where something
else listens either hangs (a server that waits for a request, e.g. HTTP) or is read as a frame of exabytes (a server
that greets first, e.g. SSH: MemoryError). `check` finds each of these in at most `dpcalc.sim.cluster.CONNECT_TIMEOUT`
seconds and says so in one line (`ClusterError`, starting with ``scheduler:`` — the CLI names ``--scheduler``).

The probe opens one connection and reads the scheduler's greeting: a scheduler writes its handshake first, as an
8-byte frame length and at most a few hundred bytes (``distributed.comm.tcp``). A length over `MAX_GREETING` is not a
Dask scheduler. The greeting is echoed back (the handshake is the same dictionary both ways), so the scheduler sees
an ordinary short-lived client, not a broken handshake.
"""

from __future__ import annotations

import socket
import struct
import time
from typing import Any

from dpcalc.sim.taskbase import ClusterError

__all__ = ["MAX_GREETING", "check"]

MAX_GREETING = 64 * 1024
"""Most bytes a scheduler's handshake may take (it is a small dictionary: compression, Python and pickle versions)."""

_FRAME = struct.Struct("<Q")


def check(distributed: Any, address: str, timeout: float) -> None:
    """Raise a one-line `ClusterError` unless ``address`` has a protocol this installation can use and, for tcp://
    and tls:// (also the default, no prefix), a Dask scheduler greets within ``timeout`` seconds."""
    from distributed.comm import registry
    from distributed.comm.addressing import parse_address, parse_host_port

    scheme, loc = parse_address(address)
    try:
        backend = registry.get_backend(scheme)
    except ValueError:
        known = ", ".join(f"{s}://" for s in sorted(registry.backends))
        raise ClusterError(f"scheduler: unknown protocol {scheme}:// in {address} (Dask's are {known})") from None
    try:
        backend.get_connector()
    except Exception as exc:  # ucx://: an abstract stub since distributed 2025 (its support moved to distributed-ucxx)
        why = "Dask's UCX support is the separate package distributed-ucxx" if scheme == "ucx" else _reason(exc)
        raise ClusterError(f"scheduler: the {scheme}:// protocol is not supported by this Dask installation ({why}); "
                           "use a tcp:// address") from None
    if scheme not in ("tcp", "tls", "ws", "wss"):
        return  # inproc:// (this process) or a transport of a plug-in: Dask's own connect decides
    try:
        host, port = parse_host_port(loc)
    except ValueError as exc:
        raise ClusterError(f"scheduler: {address} is not a host:port address ({_reason(exc)}); give e.g. "
                           "tcp://10.0.0.5:8786") from None
    context = _tls_context(distributed, address) if scheme in ("tls", "wss") else None
    deadline = time.monotonic() + timeout
    sock = _connect(address, host, port, timeout)
    try:
        if context is not None:
            sock = _wrap(context, sock, host, address, deadline)
        if scheme in ("tcp", "tls"):
            _greeting(sock, address, timeout, deadline)
    finally:
        sock.close()


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "…"


def _tls_context(distributed: Any, address: str) -> Any:
    """The client's TLS context from Dask's configuration (``distributed.comm.tls.*``), or a one-line error."""
    try:
        context = distributed.Security().get_connection_args("client").get("ssl_context")
    except (OSError, ValueError) as exc:  # a configured certificate file that is missing or unreadable
        raise ClusterError(f"scheduler: {address} uses TLS, but Dask's TLS settings cannot be loaded "
                           f"({_reason(exc)})") from None
    if context is None:
        raise ClusterError(f"scheduler: {address} uses TLS, but no TLS settings are configured for Dask (set "
                           "distributed.comm.tls.ca-file, .client.cert and .client.key in Dask's configuration), or "
                           "use a tcp:// address")
    return context


def _connect(address: str, host: str, port: int, timeout: float) -> socket.socket:
    try:
        return socket.create_connection((host, port), timeout=timeout)
    except ConnectionRefusedError:
        raise ClusterError(f"scheduler: nothing listens at {address} (connection refused); start the scheduler "
                           "(dask scheduler) or check the address") from None
    except TimeoutError:
        raise ClusterError(f"scheduler: no Dask scheduler answered at {address} within {timeout:g} s (the "
                           "connection was not accepted)") from None
    except OSError as exc:  # unknown host, unreachable network, a port out of range
        raise ClusterError(f"scheduler: cannot reach {address} ({_reason(exc)})") from None


def _wrap(context: Any, sock: socket.socket, host: str, address: str, deadline: float) -> socket.socket:
    sock.settimeout(max(deadline - time.monotonic(), 1e-3))
    try:
        return context.wrap_socket(sock, server_hostname=host if context.check_hostname else None)
    except (OSError, ValueError) as exc:
        raise ClusterError(f"scheduler: the TLS handshake with {address} failed ({_reason(exc)})") from None


def _read(sock: socket.socket, n: int, deadline: float) -> bytes:
    """Exactly ``n`` bytes, or fewer if the peer closed; TimeoutError past ``deadline``."""
    chunks, got = [], 0
    while got < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        chunk = sock.recv(n - got)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _greeting(sock: socket.socket, address: str, timeout: float, deadline: float) -> None:
    """Read the scheduler's handshake (a frame length, then the frame) and echo it back."""
    silent = (f"scheduler: no Dask scheduler answered at {address} within {timeout:g} s (the connection opened but "
              "nothing came back: is this a Dask scheduler's port?)")
    try:
        head = _read(sock, _FRAME.size, deadline)
        if len(head) < _FRAME.size:
            raise ClusterError(f"scheduler: the server at {address} closed the connection without a Dask handshake "
                               "(is this a Dask scheduler's port?)")
        (length,) = _FRAME.unpack(head)
        if not 0 < length <= MAX_GREETING:
            raise ClusterError(f"scheduler: the server at {address} does not speak Dask's protocol (it sent "
                               f"{head!r}); is this a Dask scheduler's port?")
        body = _read(sock, length, deadline)
        if len(body) < length:
            raise ClusterError(f"scheduler: the server at {address} closed the connection during the Dask handshake")
        sock.settimeout(max(deadline - time.monotonic(), 1e-3))
        sock.sendall(head + body)
    except TimeoutError:
        raise ClusterError(silent) from None
    except OSError as exc:
        raise ClusterError(f"scheduler: the connection to {address} failed during the handshake ({_reason(exc)})"
                           ) from None
