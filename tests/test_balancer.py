"""More than one model host: two llama-servers behind nginx, configured from deploy/nginx/ as README says.

Both hops are TLS with certificates of a site CA made here, and the hosts ask for the API key, which
passes through the balancer. Each conversation carries the X-HR-Conversation header; nginx hashes on
it, so a conversation stays on one host (its slot cache). When a host dies in the middle of an
answer, that answer ends with the app's clear message, once; the conversation's next request, and
every other conversation that was on that host, go to the other host without an error. nginx comes
from the system packages (Debian: ``apt install nginx-light``); without it this test is skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx")

from engine.model.remote import RemoteBackend, ServerError  # noqa: E402
from engine.settings import Settings  # noqa: E402
from tests.conftest import ROOT  # noqa: E402
from tests.llama_server import CppLlamaServer, SiteCertificates, free_port, make_site_certificates  # noqa: E402

pytestmark = [pytest.mark.llamaserver, pytest.mark.slow]
KEY = "hr-assistant-balancer-test-key"
TEMPLATE = ROOT / "deploy" / "nginx" / "hr-assistant-models.conf"


def _nginx() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx")
                                          if os.path.exists(p)), None)


class Balancer:
    """nginx with the shipped configuration, in the foreground, its files in ``folder``."""

    def __init__(self, binary: str, folder: Path, upstreams: list[str], tls: SiteCertificates) -> None:
        self.port = free_port()
        self.url = f"https://127.0.0.1:{self.port}"
        self.verify = tls.context()
        self.access_log = folder / "access.log"
        servers = "\n".join(f"    server {u} max_fails=1 fail_timeout=60s;" for u in upstreams)
        site = TEMPLATE.read_text()
        for name, value in (("servers", servers), ("listen", f"127.0.0.1:{self.port}"),
                            ("access_log", self.access_log), ("certificate", tls.certificate),
                            ("certificate_key", tls.key), ("ca", tls.ca)):
            site = site.replace("{" + name + "}", str(value))
        (folder / "models.conf").write_text(site)
        temp = "\n".join(f"  {k}_temp_path {folder / k};" for k in ("client_body", "proxy", "fastcgi", "uwsgi",
                                                                      "scgi"))
        user = "user root;\n" if hasattr(os, "geteuid") and os.geteuid() == 0 else ""
        (folder / "nginx.conf").write_text(
            f"{user}worker_processes 1;\npid {folder / 'nginx.pid'};\nerror_log {folder / 'error.log'} info;\n"
            f"events {{ worker_connections 64; }}\nhttp {{\n{temp}\n  include {folder / 'models.conf'};\n}}\n")
        self.proc = subprocess.Popen([binary, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-g",
                                      "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited: {self.proc.stderr.read().decode(errors='replace')}")
            try:
                httpx.get(self.url + "/health", timeout=2, verify=self.verify)
                return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError("nginx did not start")

    def hosts(self) -> list[tuple[str, str]]:
        """(conversation, upstream that answered) per request, in order (the last address tried, where
        nginx tried more than one)."""
        out = []
        for line in self.access_log.read_text().splitlines():
            words = line.split()  # conversation, upstream address(es) ("a, b" where nginx tried two), status, time
            out.append((words[0], " ".join(words[1:-2]).split(",")[-1].strip()))
        return out

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def test_each_conversation_stays_on_one_host_and_moves_once_when_its_host_goes(server_binary, tiny_model_path,
                                                                               tmp_path, monkeypatch):
    nginx = _nginx()
    if nginx is None:
        pytest.skip("nginx is not installed (Debian: apt install nginx-light)")
    tls = make_site_certificates(tmp_path / "tls")
    keys = tmp_path / "model-keys"
    keys.write_text(KEY + "\n")
    hosts = [CppLlamaServer(server_binary, tiny_model_path, tmp_path / f"host{i}.log", slots=1, n_ctx=2048,
                            threads=1, tls=tls, api_key_file=keys) for i in range(2)]
    balancer = None
    try:
        balancer = Balancer(nginx, tmp_path, [f"127.0.0.1:{h.port}" for h in hosts], tls)
        monkeypatch.setenv("HR_ASSISTANT_MODEL_API_KEY", KEY)
        settings = Settings(n_ctx=2048, temperature=0.0, max_answer_tokens=8, model_ca=str(tls.ca))  # no site file
        backend = RemoteBackend(balancer.url, settings)
        assert backend.kind == "llama.cpp"  # /props came through the balancer, TLS on both hops
        assert backend.key_asked  # the hosts asked for the key through the balancer
        assert httpx.get(balancer.url + "/slots", verify=balancer.verify, timeout=10).status_code == 401
        chats = [str(n) for n in range(16)]
        ids = {}
        for _ in range(2):
            for chat in chats:
                backend.set_conversation(chat)
                ids[chat] = backend.conversation
                assert backend.generate("Hello", grammar='root ::= "ok"', max_tokens=4).text == "ok"
        served = [(c, u) for c, u in balancer.hosts() if c in ids.values()]
        where = {c: {u for cc, u in served if cc == c} for c in ids.values()}
        assert all(len(u) == 1 for u in where.values()), where  # every conversation stayed on its host
        assert len(set().union(*where.values())) == 2  # and the conversations were spread over both
        assert ids["3"] != ids["4"] and backend.conversation == ids["15"]
        backend.set_conversation("3")
        assert backend.conversation == ids["3"]  # a conversation's id is stable within the workstation

        # The host of conversation 3 dies in the middle of an answer: that answer ends with the clear
        # message, once; then conversation 3, and every other one that was there, is answered elsewhere.
        victim = next(iter(where[ids["3"]]))
        dead = next(h for h in hosts if victim.endswith(f":{h.port}"))
        survivor = next(h for h in hosts if h is not dead)
        moved = [c for c in chats if where[ids[c]] == {victim}]
        logged = len(balancer.hosts())
        tokens = backend.stream("Write a long story.", grammar="root ::= [a-z ]{1200}", max_tokens=1500)
        with pytest.raises(ServerError, match="stopped answering|ended the answer"):
            for i, _ in enumerate(tokens):
                if i == 0:
                    dead.kill()
        for _ in range(600):  # nginx logs the broken request when it has closed it (up to 30 s on a busy machine)
            if len(balancer.hosts()) > logged:
                break
            time.sleep(0.05)
        before = len(balancer.hosts())
        for chat in moved:
            backend.set_conversation(chat)
            assert backend.generate("Hello", grammar='root ::= "ok"', max_tokens=4).text == "ok"  # no error
        after = balancer.hosts()[before:]
        assert {u for _, u in after} == {f"127.0.0.1:{survivor.port}"}, after
    finally:
        if balancer is not None:
            balancer.stop()
        for h in hosts:
            h.stop()
