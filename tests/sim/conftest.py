"""The Dask cluster the cluster tests share: a ``LocalCluster`` of 2 worker processes (1 thread each), started once
per test process; the tests that need it skip, saying why, when ``distributed`` is not installed."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest

HAVE_DISTRIBUTED = True
try:
    import distributed  # noqa: F401
except ImportError:
    HAVE_DISTRIBUTED = False
needs_cluster = pytest.mark.skipif(not HAVE_DISTRIBUTED, reason="dask.distributed is not installed "
                                   "(pip install -e '.[test]' or '.[dask]'): the cluster tests need a LocalCluster")


@pytest.fixture(scope="session")
def cluster() -> Iterator[Any]:
    """A LocalCluster of 2 worker processes (1 thread each) and a client on it."""
    from distributed import Client, LocalCluster

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Dask's own start-up notices are not the code under test
        lc = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(lc, set_as_default=False)
    try:
        yield lc, client
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            client.close()
            lc.close()
