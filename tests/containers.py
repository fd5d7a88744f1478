"""A real container with tmux inside, reached by a command instead of ssh.

The transport "a host reached by ``podman exec -i CONTAINER``" has to be
tested against a far side that really is somewhere else: its own root file
system, process table, users and tmux, reached only through the argv prefix a
user would configure.  A chroot or a second tmux socket would not show what
``exec`` does to stdin, to the environment, or to a tmux server that outlives
the command that started it.

* :func:`container` (session) - a running container (:class:`Container`) with
  tmux, bash, zsh and procps, a user ``tester`` whose login shell is zsh, and
  the argv prefixes that run a command inside as root or as that user.  Debian
  bookworm: tmux 3.3a, the one the project machine has.
* :func:`old_container` and :func:`new_container` (session) - the same made of
  Debian bullseye (tmux 3.1c) and trixie (tmux 3.5a), plus python3: the oldest
  and the newest tmux the Debian mirror gives without building one, for the
  far side of a host (the tool needs tmux 3.0 or newer there).
* :func:`host_image` - the image of a suite, built once and kept in podman's store.

The fixture lives here, not in a conftest: a test module that uses it says
``pytest_plugins = ["tests.containers"]`` (pytest loads the plugin once, so
every such module shares the one session container).

No image registry is reachable, so the image is made from the Debian mirror
apt already uses: ``debootstrap --variant=minbase`` into a folder, then
``tar -C DIR -c . | podman import - NAME``.  That takes about 40 s, so the
image stays in podman's store between runs; its tag is the suite and a digest
of the recipe (suite, variant, package list, :data:`RECIPE`), so changing any
of them builds a new image, after which the older tags of the same suite are
removed by their exact names (the other suites' images are kept).

The other suites come from the same mirror: apt here lists only bookworm, but
the mirror's ``dists/bullseye`` and ``dists/trixie`` are there (checked
2026-11-27).  Their Release files are checked, not trusted: debootstrap gets
``--keyring`` :data:`KEYRING` and ``--force-check-gpg``.  Debian 12's
``debian-archive-keyring`` (2023.3+deb12u2) holds the bullseye and the trixie
release keys (gpgv: "Good signature from Debian Stable Release Key
(11/bullseye)" and "(13/trixie)"), so no signature check is skipped.

What a project machine allows (Debian 12, podman 4.3.1, runc 1.1.5, as root):

* podman's default runtime crun fails here (``setrlimit RLIMIT_NOFILE:
  Operation not permitted``, then ``cgroups in hybrid mode not supported``), so
  every podman command names ``--runtime runc``;
* runc also fails unless the container asks for limits this machine lets a
  process raise to: as root podman asks ``nofile`` 1048576, above the hard
  limit we have (``error setting rlimit type 7: operation not permitted``),
  hence ``--ulimit nofile=1024:1024 --ulimit nproc=1024:1024``.

The container gets no network (``--network none``): nothing inside needs one,
and it spares the host podman's CNI bridge and its firewall rules.  It runs
``sleep infinity`` as PID 1, which ignores SIGTERM, so it is removed with
``podman rm -f -t 0 NAME`` - by the unique name it was made with, never by a
pattern.

Needs root, ``podman`` (podman), ``runc`` (runc), ``debootstrap``
(debootstrap) and ``tar`` (tar); tests/run.sh installs them.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import require_root, unique

RUNC = "/usr/sbin/runc"
DEBOOTSTRAP = "/usr/sbin/debootstrap"
PODMAN = ["podman", "--runtime", "runc"]  # crun fails here (module docstring)

SUITE = "bookworm"  # the default suite: the `container` fixture's
OLD_SUITE = "bullseye"  # tmux 3.1c: the oldest tmux (>= 3.0) Debian's mirror still serves
NEW_SUITE = "trixie"  # tmux 3.5a
VARIANT = "minbase"
INCLUDE = ("tmux", "bash", "zsh", "procps")
# The packages of each suite's image (INCLUDE for any other).  bookworm's list is the one its image was
# first built with, so its tag stays and the cached image is reused; the other two add python3 (about 10 s
# and 30 MB more), a program a test starts there.
SUITE_INCLUDE = {SUITE: INCLUDE, OLD_SUITE: (*INCLUDE, "python3"), NEW_SUITE: (*INCLUDE, "python3")}
RECIPE = 1  # raise it when the way the image is made changes: the tag changes, the image is rebuilt
KEYRING = Path("/usr/share/keyrings/debian-archive-keyring.gpg")  # package debian-archive-keyring
IMAGE_REPOSITORY = "localhost/tmux-tool-test-host"
USER = "tester"
USER_SHELL = "/bin/zsh"

# The build is the slow part (about 40 s); it must end, with a clear sentence, before pytest-timeout's
# 300 s for the first test that needs the container.
BUILD_TIMEOUT = 240
BUILD_FOLDER = Path("/var/tmp")  # the root file system (about 240 MB) is made here, then removed
# BUILD_FOLDER / f"tmux-tool-test-host-{suite}.lock": two pytest runs at once build a suite's image once
BUILD_LOCK_NAME = "tmux-tool-test-host-{suite}.lock"

# program -> the Debian package that brings it
PACKAGES = {"podman": "podman", RUNC: "runc", DEBOOTSTRAP: "debootstrap", "tar": "tar"}


def require(*programs: str) -> None:
    """Fail the test, naming the apt package, when a program it needs is missing (skip when not root)."""
    require_root(PACKAGES, "a container and its image need root", *programs)


def packages(suite: str = SUITE) -> tuple[str, ...]:
    """The packages debootstrap adds to ``suite``'s minimal root file system (:data:`SUITE_INCLUDE`)."""
    return SUITE_INCLUDE.get(suite, INCLUDE)


def image_name(suite: str = SUITE) -> str:
    """``localhost/tmux-tool-test-host:<suite>-<12 hex>``: the tag changes whenever the recipe does."""
    recipe = f"{RECIPE}\n{suite}\n{VARIANT}\n{','.join(sorted(packages(suite)))}\n"
    return f"{IMAGE_REPOSITORY}:{suite}-{hashlib.sha256(recipe.encode()).hexdigest()[:12]}"


def _run(argv: Sequence[str], stdin: bytes | None = None, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """Run a set-up command, raising with its output on failure."""
    done = subprocess.run(list(argv), input=stdin, capture_output=True, timeout=timeout, check=False)
    if done.returncode != 0:
        output = (done.stderr or done.stdout).decode(errors="replace").strip()
        raise RuntimeError(f"{shlex.join(argv)} exited {done.returncode}: {output}")
    return done


def _exists(image: str) -> bool:
    return subprocess.run(["podman", "image", "exists", image], capture_output=True, timeout=60,
                          check=False).returncode == 0


# --------------------------------------------------------------------------- the image


def debian_mirror(suite: str = SUITE) -> str:
    """The Debian mirror apt uses here (``TMUX_TOOL_TEST_MIRROR`` overrides it).

    Read from the ``URIs:`` of the deb822 stanza in
    /etc/apt/sources.list.d/debian.sources whose ``Suites:`` has the suite
    itself (the security stanza serves ``bookworm-security`` only), or from a
    ``deb URI SUITE ...`` line of /etc/apt/sources.list.  apt here lists only
    bookworm: for another suite not listed, the mirror that serves
    :data:`SUITE` is taken (one Debian mirror serves every suite it keeps).
    """
    if override := os.environ.get("TMUX_TOOL_TEST_MIRROR"):
        return override
    for wanted in dict.fromkeys([suite, SUITE]):
        if mirror := _apt_mirror(wanted):
            return mirror
    raise RuntimeError(f"no Debian mirror for {suite} or {SUITE} in /etc/apt/sources.list.d/debian.sources "
                       "or /etc/apt/sources.list (set TMUX_TOOL_TEST_MIRROR to one)")


def _apt_mirror(suite: str) -> str | None:
    """The first URI apt's sources give for ``suite`` (main archive, not ``suite-security``), or None."""
    deb822 = Path("/etc/apt/sources.list.d/debian.sources")
    if deb822.is_file():
        for stanza in re.split(r"\n\s*\n", deb822.read_text()):
            fields = {}
            for line in stanza.splitlines():
                key, colon, value = line.partition(":")
                if colon and not line.startswith((" ", "\t", "#")):
                    fields[key.strip().lower()] = value.split()
            if "deb" in fields.get("types", []) and suite in fields.get("suites", []) and fields.get("uris"):
                return fields["uris"][0]
    one_line = Path("/etc/apt/sources.list")
    if one_line.is_file():
        for line in one_line.read_text().splitlines():
            words = re.sub(r"\[[^]]*\]", " ", line.split("#", 1)[0]).split()  # drop "[signed-by=...]"
            if len(words) >= 3 and words[0] == "deb" and words[2] == suite:
                return words[1]
    return None


def _mounts_under(folder: Path) -> list[Path]:
    """Mount points at or below ``folder`` (from /proc/self/mountinfo), deepest first."""
    found = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        point = Path(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), line.split()[4]))
        if point == folder or folder in point.parents:
            found.append(point)
    return sorted(found, key=lambda p: len(p.parts), reverse=True)


def _remove_build_folder(folder: Path) -> None:
    """Remove the build folder - but never through a mount.

    debootstrap mounts /proc and /sys in the new root while it works (and, in
    some containers, binds the host's /dev nodes); it unmounts them when it
    ends, but not when it is killed.  Deleting the tree through such a mount
    would delete the host's files, so they are unmounted first (each by its
    exact path), and the folder is left in place, named in the error, if one
    stays mounted.
    """
    for point in _mounts_under(folder):
        subprocess.run(["umount", "--lazy", str(point)], capture_output=True, timeout=30, check=False)
    if left := _mounts_under(folder):
        raise RuntimeError(f"left {folder} in place: still mounted there: {', '.join(map(str, left))}")
    shutil.rmtree(folder)


def _debootstrap(suite: str, root: Path, log: Path, mirror: str) -> None:
    """``debootstrap`` the root file system into ``root``; fail the test with a sentence when it does not work.

    The suite's Release file must carry a good signature by a key of
    :data:`KEYRING` (``--force-check-gpg``: no fallback to an unchecked download).
    """
    if not KEYRING.is_file():
        pytest.fail(f"missing {KEYRING}: apt-get install debian-archive-keyring", pytrace=False)
    argv = [DEBOOTSTRAP, f"--variant={VARIANT}", f"--include={','.join(packages(suite))}",
            f"--keyring={KEYRING}", "--force-check-gpg", suite, str(root), mirror]
    with log.open("wb") as out:
        # A session of its own: on a timeout its whole process group (dpkg, chroot...) is killed by its id.
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True)
        try:
            code = proc.wait(timeout=BUILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
            code = None
    if code != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
        outcome = f"did not end within {BUILD_TIMEOUT} s" if code is None else f"exited {code}"
        pytest.fail(f"could not build the test container's image {image_name(suite)}: `{shlex.join(argv)}` "
                    f"{outcome} - is the Debian mirror {mirror} reachable? Its last lines:\n{tail}",
                    pytrace=False)


def _import(root: Path, image: str) -> None:
    """``tar -C ROOT -c . | podman import - IMAGE`` (numeric owners: the ids of the new root, not our names)."""
    tar = subprocess.Popen(["tar", "-C", str(root), "--numeric-owner", "-c", "."], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
    assert tar.stdout is not None and tar.stderr is not None
    try:
        imported = subprocess.run(["podman", "import", "--message", "tmux_tool tests (tests/containers.py)",
                                   "-", image], stdin=tar.stdout, capture_output=True, timeout=300, check=False)
    finally:
        tar.stdout.close()  # tar ends (SIGPIPE) if podman import stopped reading
        tar_error = tar.stderr.read().decode(errors="replace").strip()
        tar.stderr.close()
        tar.wait(timeout=60)
    if tar.returncode != 0 or imported.returncode != 0:
        pytest.fail(f"could not import the root file system as {image}: tar exited {tar.returncode} "
                    f"({tar_error!r}), podman import exited {imported.returncode} "
                    f"({imported.stderr.decode(errors='replace').strip()!r})", pytrace=False)


def _forget_older_images(suite: str, image: str) -> None:
    """Remove the other tags of :data:`IMAGE_REPOSITORY` for ``suite`` (older recipes), each by its exact name.

    Other suites' images stay.  One still used by a container (another run's)
    is left: ``podman rmi`` refuses it.
    """
    listed = _run(["podman", "images", "--filter", f"reference={IMAGE_REPOSITORY}",
                   "--format", "{{.Repository}}:{{.Tag}}"]).stdout.decode().split()
    for other in listed:
        if other.startswith(f"{IMAGE_REPOSITORY}:{suite}-") and other != image:
            subprocess.run(["podman", "rmi", other], capture_output=True, timeout=60, check=False)


def host_image(suite: str = SUITE) -> str:
    """The image name of ``suite`` (:func:`image_name`), built first if podman's store does not have it."""
    require("podman")
    image = image_name(suite)
    if _exists(image):
        return image
    require(DEBOOTSTRAP, "tar")
    with (BUILD_FOLDER / BUILD_LOCK_NAME.format(suite=suite)).open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another run may be building it: wait, then look again
        if _exists(image):
            return image
        mirror = debian_mirror(suite)
        folder = Path(tempfile.mkdtemp(prefix=f"tt-host-image-{suite}-", dir=BUILD_FOLDER))
        try:
            root = folder / "root"
            _debootstrap(suite, root, folder / "debootstrap.log", mirror)
            _import(root, image)
        finally:
            _remove_build_folder(folder)
        _forget_older_images(suite, image)
    return image


# --------------------------------------------------------------------------- the container


@dataclass(frozen=True)
class Container:
    """A running container: prefix a command with :attr:`exec_argv` (root) or :attr:`exec_argv_user`.

    ``-i`` keeps stdin open (a script on ``sh -s``, bytes through ``cat``);
    there is no ``-t``, so no terminal and nothing changes the bytes.  Each
    property returns a new list: a test may extend it freely.
    """

    name: str  # also the container's hostname
    image: str
    user: str  # a non-root user whose login shell is zsh (/etc/passwd), HOME /home/<user>
    suite: str = SUITE  # the Debian release inside

    @property
    def exec_argv(self) -> list[str]:
        """``podman --runtime runc exec -i NAME``: runs the rest as root, in ``/``."""
        return [*PODMAN, "exec", "-i", self.name]

    @property
    def exec_argv_user(self) -> list[str]:
        """The same as :attr:`user`, in their home folder (as a login would land)."""
        return [*PODMAN, "exec", "-i", "--user", self.user, "--workdir", f"/home/{self.user}", self.name]


def _remove_container(name: str) -> None:
    """``podman rm -f -t 0 NAME``: no 10 s wait for ``sleep``, which ignores SIGTERM as PID 1."""
    subprocess.run(["podman", "rm", "--force", "--ignore", "--time", "0", name], capture_output=True,
                   timeout=120, check=False)
    if subprocess.run(["podman", "container", "exists", name], capture_output=True, timeout=60,
                      check=False).returncode == 0:
        raise RuntimeError(f"container {name} is still there after `podman rm -f {name}`")


@contextmanager
def running_container(image: str, suite: str = SUITE) -> Iterator[Container]:
    """Run ``image`` (of Debian ``suite``) as ``tt-host-<pid>-<6 hex>`` with a user :data:`USER`; remove it afterwards.

    ``LANG=C.UTF-8`` (a locale glibc always has) so tmux inside draws UTF-8 as
    the tests' own tmux does (tests/run.sh sets the same).  The user gets a
    one-line ``~/.zshrc``: without any zsh start-up file an interactive zsh
    opens the ``zsh-newuser-install`` menu instead of a prompt.
    """
    require("podman", RUNC)
    name = unique("tt-host")
    try:
        _run([*PODMAN, "run", "--detach", "--pull", "never", "--name", name, "--hostname", name,
              "--network", "none", "--env", "LANG=C.UTF-8",
              "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024",
              image, "sleep", "infinity"], timeout=120)
        box = Container(name=name, image=image, user=USER, suite=suite)
        _run([*box.exec_argv, "useradd", "--create-home", "--shell", USER_SHELL, USER])
        _run([*box.exec_argv_user, "sh", "-c", 'echo "# tmux_tool tests: no zsh-newuser-install" >"$HOME/.zshrc"'])
        yield box
    finally:
        _remove_container(name)


@pytest.fixture(scope="session")
def container() -> Iterator[Container]:
    """A running container with tmux, bash and zsh inside, reached by ``podman exec -i`` (:class:`Container`)."""
    with running_container(host_image()) as box:
        yield box


@pytest.fixture(scope="session")
def old_container() -> Iterator[Container]:
    """The same made of Debian bullseye: tmux 3.1c, the oldest tmux we test against; python3 inside."""
    with running_container(host_image(OLD_SUITE), OLD_SUITE) as box:
        yield box


@pytest.fixture(scope="session")
def new_container() -> Iterator[Container]:
    """The same made of Debian trixie: tmux 3.5a, the newest tmux Debian gives; python3 inside."""
    with running_container(host_image(NEW_SUITE), NEW_SUITE) as box:
        yield box


__all__ = ["Container", "container", "debian_mirror", "host_image", "image_name", "new_container",
           "old_container", "packages", "require", "running_container"]
