"""`--sandbox docker` without a daemon: the container's command line, its users, which
containers the reaper removes, handing the run's folders to the container's user, and how
`docker` and `auto` settle when docker cannot run."""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

from activation._config import INFRASTRUCTURE_RETRIES
from activation._errors import InputError
from activation._models import ErrorClass, Trial
from activation.trials.agent.adapter import Launch
from activation.trials.agent.sandbox import View, sandbox_named, settle
from activation.trials.agent.sandbox_docker import (
    IMAGE,
    Contained,
    Container,
    Docker,
    context_digest,
    docker_argv,
    docker_problem,
    hand_over,
    orphans,
    suite_image,
    users,
)
from activation.trials.agent.sandbox_egress import RELAY, Egress, Target
from tests.support.needs import unavailable
from tests.support.skill_repo import SkillRepos
from tests.trials.agent.test_error_sources import run_one

VIEW = View(
    Path("/r/work"),
    (Path("/r/work"), Path("/r/home"), Path("/r/tmp")),
    (Path("/copies"), Path("/cli")),
)
CONTAINER = Container(
    "activation-7-abc", "img:1", 1000, 1000, {"hosts": Path("/r/hosts"), "passwd": Path("/r/pw")}
)


def test_a_container_has_no_network_no_privilege_limits_and_only_the_runs_mounts() -> None:
    routes = [(Target("127.0.0.1", 8123, tls=False), Path("/tmp/e/api-8123.sock"))]
    aliases = [(Path("/real"), Path("/named"))]
    argv = docker_argv("/usr/bin/docker", CONTAINER, 7, "/usr/bin/node",
                       ["/cli/claude", "-p", "hi"], VIEW, routes,
                       ["HOME", "ANTHROPIC_API_KEY"], aliases)  # fmt: skip
    assert argv == [
        "/usr/bin/docker", "run", "--rm", "-i", "--name", "activation-7-abc",
        "--label", "activation.pid=7", "--network", "none", "--user", "1000:1000",
        "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--read-only",
        "--tmpfs", "/tmp", "--cpus", "2", "--memory", "4g", "--pids-limit", "512",
        "--mount", "type=bind,src=/copies,dst=/copies,readonly",
        "--mount", "type=bind,src=/cli,dst=/cli,readonly",
        "--mount", "type=bind,src=/real,dst=/named,readonly",
        "--mount", "type=bind,src=/r/work,dst=/r/work",
        "--mount", "type=bind,src=/r/home,dst=/r/home",
        "--mount", "type=bind,src=/r/tmp,dst=/r/tmp",
        "--mount", "type=bind,src=/tmp/e/api-8123.sock,dst=/tmp/e/api-8123.sock",
        "--mount", "type=bind,src=/r/hosts,dst=/etc/hosts,readonly",
        "--mount", "type=bind,src=/r/pw,dst=/etc/passwd,readonly",
        "-e", "HOME", "-e", "ANTHROPIC_API_KEY",
        "--workdir", "/r/work", "img:1",
        "/usr/bin/node", "-e", RELAY, "8123=/tmp/e/api-8123.sock", "then", "/cli/claude", "-p",
        "hi",
    ]  # fmt: skip


def test_the_runs_docker_asks_the_daemon_the_probes_asked_and_the_container_gets_none_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///run/user/1000/docker.sock")
    monkeypatch.setenv("DOCKER_CONTEXT", "rootless")
    monkeypatch.delenv("DOCKER_CONFIG", raising=False)
    view = View(tmp_path, (tmp_path,), ())
    contained = Contained(view, Egress((), 16), CONTAINER)
    launch = contained.wrap(Launch([which("node"), "-v"], {"HOME": "/r/home"}))
    assert launch.env == {
        "HOME": "/r/home",
        "DOCKER_HOST": "unix:///run/user/1000/docker.sock",
        "DOCKER_CONTEXT": "rootless",
    }
    docker = launch.argv[: launch.argv.index(CONTAINER.image)]
    assert [docker[i + 1] for i, word in enumerate(docker) if word == "-e"] == ["HOME"]


def test_the_containers_users_are_root_and_the_run_at_its_home() -> None:
    assert users(1000, 1001, Path("/r/home")) == {
        "passwd": "root:x:0:0:root:/root:/bin/bash\nagent:x:1000:1001:agent:/r/home:/bin/bash\n",
        "group": "root:x:0:\nagent:x:1001:\n",
    }


def test_the_reaper_takes_only_the_containers_of_gone_processes() -> None:
    listed = "aaa 10\n\nbbb 11\nccc 12\n"
    assert orphans(listed, lambda pid: pid == 11) == ["aaa", "ccc"]
    assert orphans("", lambda pid: False) == []


def test_the_runs_folders_and_sockets_go_to_the_containers_user_and_copies_open_to_read(
    tmp_path: Path,
) -> None:
    if os.getuid() != 0:
        unavailable("root", "handing files to another user (chown) needs it")
    work, copies = tmp_path / "work", tmp_path / "copies"
    (work / "sub").mkdir(parents=True)
    (work / "sub" / "a.txt").write_text("a")
    copies.mkdir(mode=0o700)
    socket = tmp_path / "api.sock"
    socket.write_text("")
    view = View(work, (work,), (copies,))
    hand_over(view, [socket], 1000, 1001)
    owners = {p.name: (p.stat().st_uid, p.stat().st_gid) for p in (work, *work.rglob("*"))}
    assert owners == {"work": (1000, 1001), "sub": (1000, 1001), "a.txt": (1000, 1001)}
    assert (socket.stat().st_uid, socket.stat().st_gid) == (1000, 1001)
    assert stat.S_IMODE(copies.stat().st_mode) == 0o755
    hand_over(view, [socket], os.getuid(), os.getgid())  # the tool's own user: no change
    assert (work.stat().st_uid, stat.S_IMODE(copies.stat().st_mode)) == (1000, 0o755)


def test_docker_names_its_image_and_settles_closed_where_it_cannot_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No docker on the PATH: `docker` fails in one line, `auto` goes on to bwrap."""
    sandbox = sandbox_named("docker", "img:2")
    assert isinstance(sandbox, Docker)
    assert (sandbox.name, sandbox.image, Docker().image) == ("docker", "img:2", IMAGE)
    for name in ("bwrap", "true", "node"):  # bwrap's probe runs `true`; its relay, Node
        (tmp_path / name).symlink_to(which(name))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert docker_problem(IMAGE) == "docker is not on PATH"
    with pytest.raises(InputError) as raised:
        settle("docker", works=False)
    assert str(raised.value) == (
        "--sandbox docker: docker is not on PATH; nothing runs unconfined unless you pass "
        "--sandbox host"
    )
    assert settle("auto", works=False) == "bwrap"
    assert capsys.readouterr().err == ""


def test_a_daemon_that_does_not_answer_is_its_last_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "docker").write_text(
        "#!/bin/sh\necho 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock."
        " Is the docker daemon running?' >&2\nexit 1\n"
    )
    (tmp_path / "docker").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert docker_problem("img:3") == (
        "docker cannot run img:3: Cannot connect to the Docker daemon at "
        "unix:///var/run/docker.sock. Is the docker daemon running?"
    )


def which(name: str) -> str:
    found = shutil.which(name)
    assert found is not None, name
    return found


DAEMON_GONE = (
    "docker: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker "
    "daemon running?"
)
FAKE_DOCKER = """#!{python}
import os, pathlib, sys
args = sys.argv[1:]
if args[0] != "run":
    sys.exit(0)
tries = pathlib.Path({tries!r})
tries.write_text(tries.read_text() + "run\\n" if tries.exists() else "run\\n")
if len(tries.read_text().split()) <= {failures}:
    sys.stderr.write({said!r} + "\\n\\nRun 'docker run --help' for more information\\n")
    sys.exit(125)
command = args[args.index("--workdir") + 3:]
os.execvp(command[0], command)
"""
"""A `docker` whose first `failures` runs fail as docker does when its daemon is gone, and
whose next runs start the container's command on the host (the relay, then the CLI)."""


def fake_agent_in_docker(
    failures: int, tmp_path: Path, skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch
) -> tuple[Trial | None, int, int]:
    """One trial of the fake agent in the docker sandbox through the run's slots, with the
    fake docker above on the PATH: the trial, the attempts retried and `docker run`s."""
    tries = tmp_path / "tries"
    docker = tmp_path / "docker-bin" / "docker"
    docker.parent.mkdir()
    said = DAEMON_GONE
    docker.write_text(FAKE_DOCKER.format(python=sys.executable, tries=str(tries),
                                         failures=failures, said=said))  # fmt: skip
    docker.chmod(0o755)
    monkeypatch.setenv("PATH", f"{docker.parent}{os.pathsep}{os.environ['PATH']}")
    trial, retried = run_one(tmp_path, skill_repo, monkeypatch, Docker("img:4"))
    return trial, retried, len(tries.read_text().split())


@pytest.mark.parametrize(("failures", "runs", "error"), [
    (1, 2, None),
    (99, INFRASTRUCTURE_RETRIES + 1,
     f"the docker sandbox did not start: docker run exited 125: {DAEMON_GONE}"),
])  # fmt: skip
def test_a_container_that_does_not_start_is_an_infrastructure_error_retried_and_counted(
    failures: int,
    runs: int,
    error: str | None,
    tmp_path: Path,
    skill_repo: SkillRepos,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Retried until a container starts (the trial is then the fake agent's honest vote, the
    deploy skill loaded), or at most INFRASTRUCTURE_RETRIES times (then the error)."""
    trial, retried, tried = fake_agent_in_docker(failures, tmp_path, skill_repo, monkeypatch)
    assert (tried, retried) == (runs, runs - 1)
    assert trial is not None
    assert (trial.error, trial.activated) == (error, None if error else True)
    assert trial.error_class is (ErrorClass.INFRASTRUCTURE if error else None)


def test_docker_runs_own_exit_codes_say_the_container_did_not_start() -> None:
    contained = Contained(VIEW, Egress((), 16), CONTAINER)
    assert [contained.never_started(code, DAEMON_GONE) for code in (0, 1, 124, 137, None)] == [
        None
    ] * 5
    said = (
        (126, 'docker: Error response from daemon: exec: "/node": permission denied\n\nRun ...\n'),
        (127, "Error: spawn /cli/claude ENOENT\n"),
        (125, ""),
    )
    assert [contained.never_started(code, stderr) for code, stderr in said] == [
        "the docker sandbox did not start: docker run exited 126: docker: Error response from "
        'daemon: exec: "/node": permission denied',
        "the docker sandbox did not start: docker run exited 127: Error: spawn /cli/claude ENOENT",
        "the docker sandbox did not start: docker run exited 125: no output",
    ]


BUILDING_DOCKER = """#!/bin/sh
echo "$@" >> {log}
case "$1 $2" in
  "image inspect") [ "$5" = base:1 ] && exit 0; [ -e {built} ] && exit 0; exit 1 ;;
  "build "*) [ {fails} = 1 ] && {{ echo "Step 2/2 : COPY missing.txt /x" >&2;
             echo "COPY failed: file not found in build context: stat missing.txt" >&2; exit 1; }}
             : > {built}; echo sha256:abc ;;
esac
"""
"""A `docker` with the image base:1, whose builds succeed (or fail as a bad COPY does)."""


def building_docker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: bool) -> Path:
    """The docker above on the PATH (with `node`, which the probe asks for); its log."""
    log, docker = tmp_path / "docker.log", tmp_path / "bin" / "docker"
    docker.parent.mkdir()
    docker.write_text(BUILDING_DOCKER.format(log=log, built=tmp_path / "built", fails=int(fails)))
    docker.chmod(0o755)
    (docker.parent / "node").symlink_to(which("node"))
    monkeypatch.setenv("PATH", str(docker.parent))
    return log


def a_suite(folder: Path, dockerfile: str | None = "FROM base:1\n") -> Path:
    folder.mkdir(parents=True)
    (folder / "cases.yaml").write_text("cases: []\n")
    if dockerfile is not None:
        (folder / "Dockerfile").write_text(dockerfile)
    return folder


def test_a_suites_dockerfile_is_built_once_from_the_base_and_named_by_its_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = a_suite(tmp_path / "evals")
    log = building_docker(tmp_path, monkeypatch, fails=False)
    tag = f"activation-suite:{context_digest(suite, 'base:1')}"
    assert suite_image(suite / "cases.yaml", "auto", "base:1") == tag  # a case file: its folder
    assert suite_image(suite, "docker", "base:1") == tag  # built: not again
    assert log.read_text().splitlines() == [
        "image inspect --format {{.Id}} base:1",
        f"image inspect --format {{{{.Id}}}} {tag}",
        f"build -q --build-arg BASE=base:1 -t {tag} {suite}",
        "image inspect --format {{.Id}} base:1",
        f"image inspect --format {{{{.Id}}}} {tag}",
    ]


def test_a_suite_without_a_dockerfile_or_docker_runs_on_the_image_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = building_docker(tmp_path, monkeypatch, fails=False)
    plain = a_suite(tmp_path / "plain", dockerfile=None)
    assert suite_image(plain, "auto", "base:1") == "base:1"
    own = a_suite(tmp_path / "own")
    assert [suite_image(own, sandbox, "base:1") for sandbox in ("bwrap", "host")] == ["base:1"] * 2
    assert not log.exists()  # docker was not asked
    assert suite_image(own, "auto", "other:2") == "other:2"  # no such base: auto goes on


def test_a_dockerfile_that_does_not_build_is_one_line_before_any_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = a_suite(tmp_path / "evals", "FROM base:1\nCOPY missing.txt /x\n")
    building_docker(tmp_path, monkeypatch, fails=True)
    with pytest.raises(InputError) as raised:
        suite_image(suite, "docker", "base:1")
    assert str(raised.value) == (
        f"{suite / 'Dockerfile'} did not build FROM base:1: COPY failed: file not found in "
        "build context: stat missing.txt"
    )


def test_the_digest_follows_the_dockerfile_its_context_and_the_base(tmp_path: Path) -> None:
    one, two = a_suite(tmp_path / "one"), a_suite(tmp_path / "two")
    digest = context_digest(one, "base:1")
    assert len(digest) == 12 and int(digest, 16) >= 0
    assert context_digest(two, "base:1") == digest  # the same files elsewhere
    assert context_digest(one, "base:2") != digest
    (two / "Dockerfile").write_text("FROM base:1\nRUN true\n")
    assert context_digest(two, "base:1") != digest
    (one / "sub").mkdir()
    (one / "sub" / "data.txt").write_text("x")
    assert context_digest(one, "base:1") != digest
