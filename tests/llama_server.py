"""A real llama.cpp inference server for the tests: ``python -m llama_cpp.server`` on 127.0.0.1."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

#: The name every model host's certificate carries besides its own: the balancer checks it
#: (deploy/nginx/hr-assistant-models.conf, proxy_ssl_name).
HOSTS_NAME = "hr-assistant-models"


@dataclass
class SiteCertificates:
    """A site CA and a certificate it signed for this machine (127.0.0.1, localhost and HOSTS_NAME)."""

    ca: Path
    certificate: Path
    key: Path

    def context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.ca))


def make_site_certificates(folder: Path) -> SiteCertificates:
    """Made with the openssl command, as IT would make them (EC P-256, valid two days); skips the test where
    there is no openssl command."""
    import pytest

    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the openssl command is not installed (it makes the test's certificates)")
    folder.mkdir(parents=True, exist_ok=True)
    ca, ca_key = folder / "site-ca.pem", folder / "site-ca.key"
    cert, key, request = folder / "host.crt", folder / "host.key", folder / "host.csr"
    (folder / "host.ext").write_text(
        f"subjectAltName = IP:127.0.0.1, DNS:localhost, DNS:{HOSTS_NAME}\nbasicConstraints = critical, CA:FALSE\n"
        "keyUsage = critical, digitalSignature, keyEncipherment\nextendedKeyUsage = serverAuth\n"
        "subjectKeyIdentifier = hash\nauthorityKeyIdentifier = keyid:always\n")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    for cmd in ([openssl, "req", "-x509", *ec, "-keyout", ca_key, "-out", ca, "-days", "2", "-subj",
                 "/CN=HR Assistant test site CA", "-addext", "basicConstraints=critical,CA:TRUE",
                 "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
                [openssl, "req", *ec, "-keyout", key, "-out", request, "-subj", "/CN=127.0.0.1"],
                [openssl, "x509", "-req", "-in", request, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
                 "-out", cert, "-days", "2", "-extfile", folder / "host.ext"]):
        subprocess.run([str(c) for c in cmd], check=True, capture_output=True)
    return SiteCertificates(ca, cert, key)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _ServerProcess:
    """A server process the tests started: killed (as a crash would) or stopped, its log closed."""

    proc: subprocess.Popen
    _log: object

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()
        self._log.close()


class LlamaServer(_ServerProcess):
    """Starts the server on a free port and waits until it answers; its log is kept for the prefix figures."""

    def __init__(self, model: Path, log: Path, n_ctx: int = 4096, threads: int = 2) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log
        self._log = open(log, "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "engine.model.serve_llama", "--model", str(model), "--host", "127.0.0.1",
             "--port", str(self.port), "--n_ctx", str(n_ctx), "--n_threads", str(threads), "--verbose", "true",
             # queue concurrent requests instead of cutting the running answer off for the new one
             "--interrupt_requests", "false"],
            stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.time() + 180
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited: {log.read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError("llama_cpp.server did not start in 180 s")

    def prefix_hits(self) -> list[tuple[int, int]]:
        """(reused, evaluated) prompt tokens per request, from the server's own log."""
        import re

        self._log.flush()
        return [(int(a), int(b)) for a, b in re.findall(r"(\d+) prefix-match hit, remaining (\d+) prompt tokens",
                                                         self.log_path.read_text(errors="replace"))]

    def prompt_evaluated(self) -> list[int]:
        """Prompt tokens the server computed, per request (llama.cpp's own performance lines)."""
        import re

        self._log.flush()
        return [int(n) for n in re.findall(r"prompt eval time =\s+[\d.]+ ms /\s+(\d+) tokens",
                                            self.log_path.read_text(errors="replace"))]



def amx_cpu() -> bool:
    """Whether this CPU reports AMX (llama.cpp's AMX buffers crash some VMs; see engine.model.llama)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            return " amx_int8" in f.read()
    except OSError:
        return False


class CppLlamaServer(_ServerProcess):
    """llama.cpp's own ``llama-server`` (built by scripts/build_llama_server.py), on a port of 127.0.0.1,
    with ``slots`` parallel slots and continuous batching; it is ready when /health says so."""

    def __init__(self, binary: Path, model: Path, log: Path, *, slots: int = 4, n_ctx: int = 4096,
                 threads: int = 2, port: int | None = None, extra: tuple[str, ...] = (),
                 tls: SiteCertificates | None = None, api_key_file: Path | None = None) -> None:
        import os

        self.port = port or free_port()
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self.verify: ssl.SSLContext | bool = tls.context() if tls else True
        self.log_path = log
        self._log = open(log, "a")
        closed = []  # as README's host command: the key from a file, TLS with the site CA's certificate
        if api_key_file:
            closed += ["--api-key-file", str(api_key_file)]
        if tls:
            closed += ["--ssl-key-file", str(tls.key), "--ssl-cert-file", str(tls.certificate)]
        cmd = [str(binary), "-m", str(model), "--host", "127.0.0.1", "--port", str(self.port), *closed,
               "-c", str(n_ctx * slots), "--parallel", str(slots), "--cont-batching", "--kv-unified",
               "-t", str(threads), "--metrics", "--slots", "--no-webui", *extra]
        if amx_cpu() and os.environ.get("HR_ASSISTANT_LLAMA_AMX", "") != "1":
            cmd.append("--no-repack")  # the same guard as in-process: no AMX/repacked weight buffers
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT)
        self._wait_ready()

    def _wait_ready(self) -> None:
        import httpx

        deadline = time.time() + 180
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama-server exited: {self.log_path.read_text(errors='replace')[-2000:]}")
            try:
                if httpx.get(self.url + "/health", timeout=2, verify=self.verify).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        self.stop()
        raise RuntimeError("llama-server did not become ready in 180 s")

    def get(self, path: str, **kwargs):
        import httpx

        return httpx.get(self.url + path, timeout=10, verify=self.verify, **kwargs).json()

