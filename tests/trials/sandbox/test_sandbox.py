"""The sandbox seam without an agent: bubblewrap's command line, the egress policy (which
addresses a run reaches, how its requests are counted), the proxy over real sockets, and how
`--sandbox` settles."""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio
import pytest

from activation._errors import InputError
from activation.commands.main import main
from activation.trials.agent import sandbox
from activation.trials.agent.adapter import Launch
from activation.trials.agent.sandbox import (
    HOST_NOTE,
    Host,
    View,
    bwrap_argv,
    install_folder,
    settle,
    system_binds,
)
from activation.trials.agent.sandbox_egress import (
    RELAY,
    Egress,
    RequestCounter,
    Target,
    hosts_file,
    request_budget,
    target_of,
    targets,
)
from tests.support.behavior_repo import SKILL_FILE, example_repo
from tests.support.messages_api import FakeMessagesAPI
from tests.support.skill_repo import case, write_cases

VIEW = View(
    Path("/r/work"),
    (Path("/r/work"), Path("/r/home"), Path("/r/tmp")),
    (Path("/copies"),),
)


def test_bwrap_binds_only_the_system_the_run_and_the_egress_socket() -> None:
    routes = [(Target("127.0.0.1", 8123, tls=False), Path("/tmp/e/api-8123.sock"))]
    argv = bwrap_argv("/usr/bin/bwrap", "/usr/bin/node", ["/cli/claude", "-p", "hi"], VIEW,
                      routes, Path("/r/hosts"), ["--ro-bind", "/usr", "/usr"])  # fmt: skip
    assert argv == [
        "/usr/bin/bwrap", "--die-with-parent", "--unshare-all", "--ro-bind", "/usr", "/usr",
        "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
        "--ro-bind", "/copies", "/copies",
        "--bind", "/r/work", "/r/work", "--bind", "/r/home", "/r/home",
        "--bind", "/r/tmp", "/r/tmp",
        "--bind", "/tmp/e/api-8123.sock", "/tmp/e/api-8123.sock",
        "--ro-bind", "/r/hosts", "/etc/hosts", "--chdir", "/r/work",
        "/usr/bin/node", "-e", RELAY, "8123=/tmp/e/api-8123.sock", "then", "/cli/claude", "-p",
        "hi",
    ]  # fmt: skip


def test_an_api_on_port_443_lets_the_relay_bind_it_and_no_route_means_no_socket() -> None:
    tls = [(Target("api.example.com", 443, tls=True), Path("/s"))]
    argv = bwrap_argv("bwrap", "node", ["cli"], VIEW, tls, Path("/h"), [])
    assert argv[argv.index("--cap-add") : argv.index("--cap-add") + 2] == [
        "--cap-add", "CAP_NET_BIND_SERVICE",
    ]  # fmt: skip
    bare = bwrap_argv("bwrap", "node", ["cli"], VIEW, [], Path("/h"), [])
    assert "--cap-add" not in bare
    assert bare[bare.index(RELAY) + 1 :] == ["then", "cli"]


def test_the_system_binds_follow_the_hosts_links(tmp_path: Path) -> None:
    (tmp_path / "usr").mkdir()
    (tmp_path / "bin").symlink_to("usr/bin")
    paths = [str(tmp_path / name) for name in ("usr", "bin", "missing")]
    assert system_binds(paths) == [
        "--ro-bind", paths[0], paths[0], "--symlink", "usr/bin", paths[1],
    ]  # fmt: skip


def test_the_install_folder_is_the_npm_prefix() -> None:
    exe = Path("/opt/cli/node_modules/@a/b/node_modules/c/bin/c.js")
    assert install_folder(exe) == Path("/opt/cli")
    assert install_folder(Path("/usr/local/bin/codex")) == Path("/usr/local/bin")


def test_targets_are_each_base_urls_host_and_port() -> None:
    assert target_of("http://127.0.0.1:8123/v1", "X") == Target("127.0.0.1", 8123, tls=False)
    assert target_of("https://api.anthropic.com", "X") == Target("api.anthropic.com", 443, True)
    assert target_of("http://localhost", "X") == Target("localhost", 80, tls=False)
    same = targets({"A_URL": "http://127.0.0.1:9/a", "B_URL": "http://127.0.0.1:9/b"})
    assert same == (Target("127.0.0.1", 9, tls=False),)


@pytest.mark.parametrize(
    ("urls", "line"),
    [
        ({"ANTHROPIC_BASE_URL": "ftp://host"},
         "ANTHROPIC_BASE_URL must be an http(s) URL for a sandboxed run; got 'ftp://host'"),
        ({"ANTHROPIC_BASE_URL": "http://h:99999"}, "ANTHROPIC_BASE_URL has a bad port: "
         "'http://h:99999'"),
        ({"A": "https://a.example", "B": "https://b.example"},
         "B and another API address both use port 443 (a.example, b.example): a sandboxed "
         "run reaches one host per port"),
    ],
)  # fmt: skip
def test_an_address_no_sandbox_can_route_is_one_line(urls: dict[str, str], line: str) -> None:
    with pytest.raises(InputError) as raised:
        targets(urls)
    assert str(raised.value) == line


def test_the_hosts_file_points_each_api_host_at_the_relay() -> None:
    routes = (Target("api.anthropic.com", 443, True), Target("127.0.0.1", 8123, False))
    assert hosts_file(routes) == "127.0.0.1 localhost\n127.0.0.1 api.anthropic.com\n"


def test_the_budget_grows_with_the_turns_above_a_floor() -> None:
    assert (request_budget(1), request_budget(8), request_budget(30)) == (16, 32, 120)


def test_the_counter_counts_heads_and_skips_bodies_whatever_the_chunks() -> None:
    body = b'{"x": "GET / HTTP/1.1\\r\\n\\r\\n"}'
    one = b"POST /v1/messages HTTP/1.1\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    chunked = (b"POST /v1 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
               b"5\r\nhello\r\n3;x=y\r\nabc\r\n0\r\n\r\n")  # fmt: skip
    stream = one + chunked + b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n" + one
    whole = RequestCounter()
    whole.feed(stream)
    bytewise = RequestCounter()
    for index in range(len(stream)):
        bytewise.feed(stream[index : index + 1])
    assert (whole.requests, bytewise.requests) == (4, 4)


def test_bytes_that_are_not_http_count_nothing_more() -> None:
    counter = RequestCounter()
    counter.feed(b"\x16\x03\x01" + b"x" * 70000)
    counter.feed(b"\r\n\r\nGET / HTTP/1.1\r\n\r\n")
    assert counter.requests == 0


@pytest.mark.anyio
async def test_the_proxy_forwards_only_to_its_target_and_stops_over_budget() -> None:
    """Two requests fit a budget of two; the third is not forwarded and the trial's error
    says so."""
    import tempfile

    answer = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    got: list[bytes] = []

    async def serve(stream: anyio.abc.SocketStream) -> None:
        async with stream:
            async for chunk in stream:
                got.append(chunk)
                await stream.send(answer * chunk.count(b"HTTP/1.1\r\n"))

    folder = Path(tempfile.mkdtemp(prefix="sbx-", dir="/tmp"))
    try:
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
        port = listener.extra(anyio.abc.SocketAttribute.local_port)
        socket = folder / "api.sock"
        egress = Egress(((Target("127.0.0.1", port, tls=False), socket),), budget=2)
        async with anyio.create_task_group() as group:
            group.start_soon(listener.serve, serve)
            await egress.serve(group)
            request = b"POST /v1/messages HTTP/1.1\r\nContent-Length: 0\r\n\r\n"
            async with await anyio.connect_unix(socket) as client:
                await client.send(request * 2)
                replies = b""
                while replies.count(b"ok") < 2:
                    replies += await client.receive()
                await client.send(request)
                with anyio.fail_after(5):
                    with pytest.raises(anyio.EndOfStream):
                        await client.receive()
            group.cancel_scope.cancel()
    finally:
        shutil.rmtree(folder)
    assert b"".join(got) == request * 2
    assert (egress.requests, egress.refused) == (2, 1)
    assert egress.over_budget == (
        "request budget: the agent sent more than 2 requests to the API in one trial (1 more "
        "were not forwarded)"
    )


@pytest.mark.anyio
async def test_on_the_host_a_run_starts_as_the_adapter_laid_it_out(tmp_path: Path) -> None:
    launch = Launch(["claude", "-p"], {"HOME": "/h"}, "prompt")
    async with Host().confined(VIEW, {"X": "http://127.0.0.1:1"}, 16, tmp_path) as confined:
        assert confined.wrap(launch) is launch
        assert confined.over_budget is None


@pytest.fixture
def said(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    fresh: set[str] = set()
    monkeypatch.setattr(sandbox, "_said", fresh)
    return fresh


def test_host_is_what_was_asked_and_stage_c_says_so_once(
    said: set[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert settle("host", works=False) == "host"
    assert capsys.readouterr().err == ""
    assert [settle("host", works=True) for _ in range(3)] == ["host"] * 3
    assert capsys.readouterr().err == f"warning: {HOST_NOTE}\n"


def test_bwrap_settles_where_it_runs(said: set[str]) -> None:
    """`auto` without the docker image (whatever the daemon) is bwrap, and says nothing."""
    absent = "activation-sandbox:absent"
    settled = (settle("bwrap", works=True), settle("auto", works=True, image=absent))
    assert settled == ("bwrap", "bwrap")
    assert said == set()


BWRAP_ONLY = "the real bwrap, and no node"
REFUSING = "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n"


@pytest.mark.parametrize(
    ("bwrap", "problem"),
    [(None, "bubblewrap (bwrap) is not on PATH"),
     (REFUSING, "bwrap cannot run here: bwrap: setting up uid map: Permission denied"),
     (BWRAP_ONLY, "Node (node) is not on PATH, and the sandbox's relay to the API runs on it")],
)  # fmt: skip
def test_bwrap_that_cannot_run_fails_closed_and_auto_falls_back_with_a_warning(
    bwrap: str | None,
    problem: str,
    said: set[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    """Missing, refused by the kernel (its last line said), or with no Node beside it."""
    if bwrap == BWRAP_ONLY:  # and `true`, which its probe runs
        for name in ("bwrap", "true"):
            (tmp_path / name).symlink_to(shutil.which(name) or name)
    elif bwrap is not None:
        (tmp_path / "bwrap").write_text(bwrap)
        (tmp_path / "bwrap").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(InputError) as raised:
        settle("bwrap", works=False)
    assert str(raised.value) == (
        f"--sandbox bwrap: {problem}; nothing runs unconfined unless you pass --sandbox host"
    )
    assert settle("auto", works=False) == "host"
    assert capsys.readouterr().err == (
        f"warning: --sandbox auto: docker is not on PATH; {problem}, so the agent runs on the "
        "host, contained only by its own settings (pass --sandbox host to choose that)\n"
    )


@pytest.mark.parametrize(
    "command",
    [["--real", "--cases", "cases.json", "--skill-path", str(SKILL_FILE), "--only", "plain"],
     ["behavior", "--judge-model", "mock"]],
)  # fmt: skip
def test_sandbox_bwrap_without_bubblewrap_is_one_line_and_exit_2_before_any_call(
    command: list[str],
    said: set[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = example_repo(tmp_path / "repo")
    write_cases(root / "cases.json", [case("plain", "greet the new users", True)])
    monkeypatch.chdir(root)
    with FakeMessagesAPI() as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-sandbox-1")
        bin = tmp_path / "bin"  # git, and no bwrap
        bin.mkdir()
        (bin / "git").symlink_to(shutil.which("git") or "git")
        monkeypatch.setenv("PATH", str(bin))
        code = main([*command, "--sandbox", "bwrap"])
    prog = "activation behavior" if command[0] == "behavior" else "activation"
    assert capsys.readouterr().err == (
        f"{prog}: error: --sandbox bwrap: bubblewrap (bwrap) is not on PATH; nothing runs "
        "unconfined unless you pass --sandbox host\n"
    )
    assert code == 2
    assert api.requests == []
