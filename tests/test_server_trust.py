"""How far a model server is trusted, decided before a question is sent: plain http:// only to this
machine (or where allow_plain_http says the site accepts it), TLS verified against the site's CA, and
the API key where the site file requires one. Scripted HTTP peers (httpx.MockTransport), and a real
TLS server on 127.0.0.1 (Python's ssl, certificates made with the openssl command). The same against
llama-server itself: tests/test_llama_server_cpp.py (tier llamaserver)."""

from __future__ import annotations

import http.server
import json
import threading

import pytest

httpx = pytest.importorskip("httpx")

from engine.cli import main  # noqa: E402
from engine.errors import SiteFileError  # noqa: E402
from engine.model.remote import RemoteBackend, ServerError, is_loopback  # noqa: E402
from engine.settings import Settings, load_settings, save_settings  # noqa: E402
from engine.site import load_site  # noqa: E402

SETTINGS = Settings(n_ctx=4096, temperature=0.0)
KEY = "the-sites-key"


@pytest.fixture(autouse=True)
def _no_key(monkeypatch):
    """No API key unless a test sets one (none from this machine's keyring either)."""
    monkeypatch.delenv("HR_ASSISTANT_MODEL_API_KEY", raising=False)
    monkeypatch.setattr("engine.model.remote._keyring_key", lambda url: None)


def _peer(key: str | None = None):
    """An OpenAI-compatible server that asks for ``key`` on every path (as llama-server does) or for none."""
    seen: list = []

    def handler(request):
        seen.append(request)
        if key is not None and request.headers.get("Authorization") != f"Bearer {key}":
            return httpx.Response(401, json={"error": {"message": "Invalid API Key"}})
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"data": [{"id": "qwen.gguf"}]})
        return httpx.Response(404)
    return httpx.MockTransport(handler), seen


def _nothing_sent():
    def handler(request):
        raise AssertionError(f"a request was sent: {request.url}")
    return httpx.MockTransport(handler)


@pytest.mark.parametrize("url", ["http://10.255.255.1:8080", "http://gpu-host:8080", "http://127.0.0.1.example:80",
                                 "http://[fe80::1]:8080", "http://0.0.0.0:8080", "http://10.0.0.5:8080/v1"])
def test_plain_http_to_another_machine_is_refused_before_anything_is_sent(url):
    with pytest.raises(ServerError) as info:
        RemoteBackend(url, SETTINGS, transport=_nothing_sent())
    assert "plain http:// to another machine" in info.value.message and "unencrypted" in info.value.message
    assert "allow_plain_http = true" in info.value.hint and "settings.json" in info.value.hint


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080", "http://localhost:8080", "http://127.3.2.1:8080",
                                 "http://[::1]:8080", "https://gpu-host:8443", "https://10.0.0.5/v1"])
def test_plain_http_to_this_machine_and_https_anywhere_are_accepted(url):
    transport, seen = _peer()
    backend = RemoteBackend(url, SETTINGS, transport=transport)
    assert backend.model_id == "qwen.gguf" and seen
    assert is_loopback("127.0.0.1") and is_loopback("::1") and not is_loopback("gpu-host")


def test_the_command_line_refuses_it_with_the_setting_that_allows_it(capsys):
    # (conftest fails the test on any connection to another machine: the refusal comes first)
    assert main(["ask", "How many sick days do I have left?", "--user", "Pedro Alves",
                 "--model-url", "http://10.255.255.1:8080"]) == 2
    err = capsys.readouterr().err
    assert "http://10.255.255.1:8080 is plain http:// to another machine" in err and "allow_plain_http" in err
    assert "Traceback" not in err


def test_the_site_file_decides_plain_http_and_a_user_setting_cannot_loosen_it(site_file):
    transport, _ = _peer()
    mine = SETTINGS.replace(allow_plain_http=True)
    assert RemoteBackend("http://gpu-host:8080", mine, transport=transport).url == "http://gpu-host:8080"  # no site
    save_settings(load_settings().replace(allow_plain_http=True, model_ca="/home/me/my-ca.pem"))
    path = site_file('[site]\nkiosk = false\n')
    with pytest.raises(ServerError) as info:
        RemoteBackend("http://gpu-host:8080", mine, transport=_nothing_sent())
    assert f"the site file's [site] table ({path})" in info.value.hint
    settings = load_settings()
    assert not settings.allow_plain_http and settings.model_ca == ""  # the site's, though it sets neither
    assert {"allow_plain_http", "model_ca"} <= load_site().locked()
    site_file('[site]\nallow_plain_http = true\n')
    assert RemoteBackend("http://gpu-host:8080", SETTINGS, transport=transport).url == "http://gpu-host:8080"


def test_a_site_that_requires_the_key(site_file, monkeypatch):
    site_file('[site]\nrequire_api_key = true\n')
    with pytest.raises(ServerError, match="requires an API key .* this workstation has none") as info:
        RemoteBackend("https://gpu-host:8443", SETTINGS, transport=_nothing_sent())
    assert "HR_ASSISTANT_MODEL_API_KEY" in info.value.hint and "keyring" in info.value.hint
    monkeypatch.setenv("HR_ASSISTANT_MODEL_API_KEY", KEY)
    open_host, seen = _peer(key=None)
    with pytest.raises(ServerError, match="answered without asking for the API key .*HTTP 200.*requires one"):
        RemoteBackend("https://gpu-host:8443", SETTINGS, transport=open_host)
    assert len(seen) == 1 and "Authorization" not in seen[0].headers  # the probe carries no key
    closed_host, seen = _peer(key=KEY)
    backend = RemoteBackend("https://gpu-host:8443", SETTINGS, transport=closed_host)
    assert backend.key_asked and "the host asked for the key" in backend.describe()
    assert "Authorization" not in seen[0].headers and all(r.headers["Authorization"] == f"Bearer {KEY}"
                                                          for r in seen[1:])
    monkeypatch.setenv("HR_ASSISTANT_MODEL_API_KEY", "an-old-key")
    with pytest.raises(ServerError, match="refused this workstation's API key"):
        RemoteBackend("https://gpu-host:8443", SETTINGS, transport=closed_host)


def test_without_a_site_a_host_that_asks_for_a_key_is_named_and_one_that_does_not_is_said(monkeypatch):
    closed_host, _ = _peer(key=KEY)
    with pytest.raises(ServerError, match="asks for an API key, and this workstation has none"):
        RemoteBackend("https://gpu-host:8443", SETTINGS, transport=closed_host)
    open_host, _ = _peer()
    backend = RemoteBackend("https://gpu-host:8443", SETTINGS, transport=open_host)
    assert not backend.key_asked and "the host answered without a key" in backend.describe()


@pytest.mark.parametrize("line, problem", [
    ('require_api_key = "yes"', "require_api_key must be true or false"),
    ("allow_plain_http = 1", "allow_plain_http must be true or false"),
    ('model_ca = "site-ca.pem"', "model_ca = 'site-ca.pem' must be an absolute path"),
    ("model_ca = 5", "model_ca must be a text"),
    ('model_certificate = "/etc/hr-assistant/site-ca.pem"', "unknown key 'model_certificate' in [site]"),
    ("[settings]\nallow_plain_http = true", "allow_plain_http belongs in [site], not in [settings]"),
])
def test_the_site_keys_are_checked_like_the_others(site_file, line, problem):
    with pytest.raises(SiteFileError) as info:
        load_site(site_file(f"[site]\n{line}\n"))
    assert problem in info.value.message


def test_a_ca_file_that_cannot_be_used_or_trusted_is_named(site_file, tmp_path):
    missing = tmp_path / "missing.pem"
    site_file(f'[site]\nmodel_ca = "{missing}"\n')
    with pytest.raises(ServerError, match=f"The CA certificate {missing} .* cannot be used"):
        RemoteBackend("https://gpu-host:8443", SETTINGS, transport=_nothing_sent())
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate\n")
    site_file(f'[site]\nmodel_ca = "{garbage}"\n')
    with pytest.raises(ServerError, match="cannot be used"):
        RemoteBackend("https://gpu-host:8443", SETTINGS, transport=_nothing_sent())
    garbage.chmod(0o666)
    with pytest.raises(ServerError, match="is not trusted: .* can be written by users other than root"):
        RemoteBackend("https://gpu-host:8443", SETTINGS, transport=_nothing_sent())


# -- real TLS on 127.0.0.1 -------------------------------------------------------------------------------
class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        if self.headers.get("Authorization") != f"Bearer {KEY}":
            self.send_response(401)
            self.end_headers()
            return
        body = json.dumps({"data": [{"id": "tls-model.gguf"}]}).encode()
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _serve(address: str, certificates=None):
    """A key-checking server on ``address`` (HTTPS with ``certificates``, else plain HTTP), in a thread."""
    import ssl

    server = http.server.ThreadingHTTPServer((address, 0), _Handler)
    if certificates is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificates.certificate, certificates.key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    scheme = "https" if certificates is not None else "http"
    return server, f"{scheme}://{address}:{server.server_address[1]}"


def test_tls_is_verified_against_the_sites_ca_and_never_skipped(site_file, monkeypatch, tmp_path):
    from tests.llama_server import make_site_certificates

    certificates = make_site_certificates(tmp_path / "tls")  # for 127.0.0.1 and localhost
    other = make_site_certificates(tmp_path / "another-ca")
    servers = []
    try:
        host, url = _serve("127.0.0.1", certificates)
        elsewhere, url_elsewhere = _serve("127.0.0.2", certificates)  # an address its certificate does not name
        plain, url_plain = _serve("127.0.0.1")
        servers = [host, elsewhere, plain]
        monkeypatch.setenv("HR_ASSISTANT_MODEL_API_KEY", KEY)
        site_file(f'[site]\nmodel_ca = "{certificates.ca}"\nrequire_api_key = true\n')
        backend = RemoteBackend(url, SETTINGS)
        assert backend.model_id == "tls-model.gguf" and backend.key_asked
        assert f"TLS verified against {certificates.ca}" in backend.describe()
        with pytest.raises(ServerError, match="does not trust .*(IP address mismatch|hostname)"):
            RemoteBackend(url_elsewhere, SETTINGS)
        with pytest.raises(ServerError, match="The TLS connection to the model server .* failed"):
            RemoteBackend(url_plain.replace("http://", "https://"), SETTINGS)  # https:// to a plain-HTTP port
        site_file('[site]\nrequire_api_key = true\n')  # the OS's store does not know the site's CA
        with pytest.raises(ServerError, match="TLS certificate this workstation does not trust") as info:
            RemoteBackend(url, SETTINGS)
        assert "model_ca" in info.value.hint
        site_file(f'[site]\nmodel_ca = "{other.ca}"\n')  # another CA's
        with pytest.raises(ServerError, match="does not trust"):
            RemoteBackend(url, SETTINGS)
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
