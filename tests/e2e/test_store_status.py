"""`fabric status` and `fabric doctor` describe the store that serves: LMDB's map, or PostgreSQL's server and pool."""

from __future__ import annotations

import json

from fabricd.store.postgres.schema import LATEST
from tests.e2e.test_cli import fabric

BACKENDS = ("lmdb", "postgres")


def test_status_and_doctor_describe_the_store_in_use(daemon, backend) -> None:
    status = fabric(daemon, "status")
    doctor = fabric(daemon, "doctor")
    assert status.returncode == 0 and doctor.returncode == 0, doctor.stdout + doctor.stderr
    store_line = next(line for line in doctor.stdout.splitlines() if " store " in line)
    got = json.loads(fabric(daemon, "--json", "status").stdout)
    if backend:
        database = backend.rsplit("/", 1)[1]
        assert got["store_kind"] == "postgresql"
        p = got["postgres"]
        assert p["database"] == database and p["schema_version"] == LATEST and not p["in_recovery"]
        assert p["replicas"] == 0 and 1 <= p["pool_size"] <= p["pool_max_size"] and p["server_version"]
        for text in (f"PostgreSQL {p['server_version']}, database {database}", f"schema version {LATEST}",
                     "primary, 0 standbys streaming from it"):
            assert text in status.stdout and text in store_line, (status.stdout, store_line)
        assert "connections open" in status.stdout
        assert "data dir" not in status.stdout and "GiB" not in status.stdout and "map" not in store_line
    else:
        assert got["store_kind"] == "lmdb" and "postgres" not in got
        assert "data dir" in status.stdout and "LMDB," in status.stdout and "GiB map" in store_line
        assert "PostgreSQL" not in status.stdout + doctor.stdout
