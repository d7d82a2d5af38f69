"""A classic-BPF seccomp filter, assembled in Python, for bwrap's `--seccomp FD`.

No libseccomp: the program is a few instructions over `struct seccomp_data`
(`nr` at offset 0, `arch` at 4, `args[i]` at 16 + 8*i, little-endian). It blocks:

- every syscall from a non-native ABI (i386 `socketcall` would bypass a `socket()` rule)
  and, on x86_64, the x32 ABI;
- `ioctl(fd, TIOCSTI | TIOCLINUX, ...)`, comparing the low 32 bits only (CVE-2019-10063:
  `TIOCSTI | 1 << 32` must be blocked too) — terminal input injection (CVE-2017-5226);
- `socket()` of every family but an allow-list: `AF_UNIX` only when unix sockets are
  allowed (`--unshare-net` does not stop connects to host socket files: docker.sock,
  ssh-agent, D-Bus), `AF_INET`/`AF_INET6` only with the network, `AF_NETLINK` only as
  `NETLINK_ROUTE` (glibc's address lookups read it). `AF_VSOCK` (the host's vsock port space
  is not namespaced), `AF_PACKET` and the rest: EPERM;
- without unix sockets, `socketpair(AF_UNIX, SOCK_DGRAM)`: a datagram socket's `sendto` and
  `connect` reach any socket file or abstract name in view (a stream pair cannot);
- memory no limit counts: `shmget` (System V), `memfd_create` and `memfd_secret` (ENOSYS:
  callers fall back to files on the sized /dev/shm or /tmp tmpfs), and shared anonymous
  `mmap` (`MAP_SHARED | MAP_ANONYMOUS`); `RLIMIT_DATA` counts private memory only;
- setting the setuid or setgid bit: `chmod`, `fchmod`, `fchmodat`, `fchmodat2`, and the
  creating calls that take a mode (`open`, `openat`, `creat`, `mknod`, `mknodat`) with
  `S_ISUID | S_ISGID` in it. A set-id file written into the workspace stays on the host, and
  a root caller's files are owned by root there. `openat2` passes its mode in a struct a
  filter cannot read, so it answers ENOSYS and callers fall back to `openat`;
- `mknod`/`mknodat` of character and block devices (as Flatpak does);
- `io_uring_*` (its SOCKET opcode creates sockets without the `socket()` syscall) and the
  keyring calls (`add_key`, `request_key`, `keyctl`), which are not namespaced.

Blocked calls fail with EPERM rather than killing the process, so tools report a clear error.
"""

from __future__ import annotations

import errno
import functools
import platform
import struct
from dataclasses import dataclass
from typing import Final

from safehold.errors import SandboxUnavailable

__all__ = ["SUPPORTED_ARCHES", "Arch", "build_filter", "native_arch"]

# Classic BPF opcodes (linux/bpf_common.h).
_LD_W_ABS: Final = 0x20
_JEQ_K: Final = 0x15
_JGE_K: Final = 0x35
_JSET_K: Final = 0x45
_AND_K: Final = 0x54
_RET_K: Final = 0x06

_RET_ALLOW: Final = 0x7FFF0000
_RET_EPERM: Final = 0x00050000 | errno.EPERM
_RET_ENOSYS: Final = 0x00050000 | errno.ENOSYS

_OFF_NR: Final = 0
_OFF_ARCH: Final = 4
_OFF_ARG0_LO: Final = 16
_OFF_ARG1_LO: Final = 24


def _arg_lo(index: int) -> int:
    return _OFF_ARG0_LO + 8 * index


TIOCSTI: Final = 0x5412
TIOCLINUX: Final = 0x541C
AF_UNIX: Final = 1
AF_INET: Final = 2
AF_INET6: Final = 10
AF_NETLINK: Final = 16
NETLINK_ROUTE: Final = 0
SOCK_DGRAM: Final = 2
SOCK_TYPE_MASK: Final = 0xF  # the type without SOCK_NONBLOCK / SOCK_CLOEXEC
MAP_SHARED: Final = 0x01  # also set in MAP_SHARED_VALIDATE (0x03)
MAP_ANONYMOUS: Final = 0x20
SET_ID_BITS: Final = 0o6000  # S_ISUID | S_ISGID
S_IFMT: Final = 0o170000
S_IFCHR: Final = 0o020000
S_IFBLK: Final = 0o060000


@dataclass(frozen=True, slots=True)
class Arch:
    """Syscall numbers and audit tag of one CPU architecture."""

    name: str
    audit_arch: int
    ioctl: int
    socket: int
    socketpair: int
    mmap: int
    blocked: tuple[int, ...]
    """Syscalls denied outright: io_uring_setup/enter/register, add_key, request_key, keyctl."""
    shared_memory_eperm: tuple[int, ...]
    """shmget: System V shared memory, which no memory limit counts."""
    shared_memory_enosys: tuple[int, ...]
    """memfd_create, memfd_secret: answered ENOSYS (callers fall back to a file in /dev/shm
    or /tmp, whose tmpfs has a size)."""
    modes: tuple[tuple[int, int, bool], ...] = ()
    """(syscall, index of its mode argument, creates nodes): set-id modes refused, and
    device nodes too where the call creates nodes."""
    openat2: int = 437
    """Answered ENOSYS: its mode sits in a struct the filter cannot read."""
    x32_bit: int | None = None
    """Syscall numbers at or above this are the x32 ABI (x86_64 only)."""


# io_uring_* are 425-427 on every architecture (unified numbering since 5.1).
SUPPORTED_ARCHES: Final[dict[str, Arch]] = {
    "x86_64": Arch(
        name="x86_64",
        audit_arch=0xC000003E,
        ioctl=16,
        socket=41,
        socketpair=53,
        mmap=9,
        blocked=(425, 426, 427, 248, 249, 250),
        shared_memory_eperm=(29,),
        shared_memory_enosys=(319, 447),
        # chmod, fchmod, fchmodat, fchmodat2, open, openat, creat; mknod, mknodat
        modes=(
            (90, 1, False),
            (91, 1, False),
            (268, 2, False),
            (452, 2, False),
            (2, 2, False),
            (257, 3, False),
            (85, 1, False),
            (133, 1, True),
            (259, 2, True),
        ),
        x32_bit=0x40000000,
    ),
    "aarch64": Arch(
        name="aarch64",
        audit_arch=0xC00000B7,
        ioctl=29,
        socket=198,
        socketpair=199,
        mmap=222,
        blocked=(425, 426, 427, 217, 218, 219),
        shared_memory_eperm=(194,),
        shared_memory_enosys=(279, 447),
        # fchmod, fchmodat, fchmodat2, openat; mknodat (no chmod/open/creat/mknod here)
        modes=((52, 1, False), (53, 2, False), (452, 2, False), (56, 3, False), (33, 2, True)),
    ),
}
_ALIASES: Final = {"amd64": "x86_64", "arm64": "aarch64"}


def native_arch(machine: str | None = None) -> Arch:
    """Return the syscall table for this machine; unknown ones raise `SandboxUnavailable`."""
    raw = platform.machine() if machine is None else machine
    name = _ALIASES.get(raw.lower(), raw.lower())
    try:
        return SUPPORTED_ARCHES[name]
    except KeyError:
        supported = ", ".join(f"`{a}`" for a in SUPPORTED_ARCHES)
        raise SandboxUnavailable(
            f"no seccomp filter for CPU architecture `{raw}` (supported: {supported}); "
            "the sandbox will not run without one: use a supported machine, or set "
            '`sandbox.mode = "none"` to run commands unsandboxed (explicit opt-out)'
        ) from None


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


@functools.lru_cache(maxsize=8)
def build_filter(arch: Arch, *, allow_unix_sockets: bool = False, network: bool = False) -> bytes:
    """Assemble the filter for `arch` as raw `struct sock_filter[]` bytes (built once).

    `allow_unix_sockets` lets `socket(AF_UNIX)` and datagram `socketpair` through;
    `network` lets `socket(AF_INET/AF_INET6)` through. Every other family is refused.
    """
    # Layout (jumps are relative to the next instruction):
    #   ld arch; jne native -> EPERM; ld nr; [jge x32 -> EPERM]
    #   jeq each blocked nr -> EPERM; jeq each ENOSYS nr (openat2, memfd_*) -> ENOSYS
    #   jeq each mode-taking nr -> MODE<nr>
    #   jeq ioctl -> IOCTL; jeq socket -> SOCKET; [jeq socketpair -> PAIR]; jeq mmap -> MMAP
    #   ret ALLOW
    #   IOCTL: ld arg1.lo; jeq TIOCSTI -> EPERM; jeq TIOCLINUX -> EPERM; ret ALLOW
    #   SOCKET: ld arg0.lo; jeq each allowed family -> ALLOW; jeq AF_NETLINK -> NETLINK;
    #           ret EPERM.  NETLINK: ld arg2.lo; jeq NETLINK_ROUTE -> ALLOW; ret EPERM
    #   [PAIR: ld arg0.lo; jne AF_UNIX -> EPERM; ld arg1.lo; and 0xf; jeq DGRAM -> EPERM]
    #   MMAP: ld arg3.lo; and SHARED|ANONYMOUS; jeq SHARED|ANONYMOUS -> EPERM; ret ALLOW
    #   MODE<nr>: ld arg.lo; jset 06000 -> EPERM; [and S_IFMT; jeq CHR/BLK -> EPERM]; ret ALLOW
    #   ALLOW: ret ALLOW; ENOSYS: ret ENOSYS; EPERM: ret EPERM
    prog: list[tuple[int, int, str | None, str | None]] = []  # (code, k, jt label, jf label)
    labels: dict[str, int] = {}

    def emit(code: int, k: int, jt: str | None = None, jf: str | None = None) -> None:
        prog.append((code, k, jt, jf))

    def label(name: str) -> None:
        labels[name] = len(prog)

    emit(_LD_W_ABS, _OFF_ARCH)
    emit(_JEQ_K, arch.audit_arch, None, "eperm")
    emit(_LD_W_ABS, _OFF_NR)
    if arch.x32_bit is not None:
        emit(_JGE_K, arch.x32_bit, "eperm", None)
    for nr in (*arch.blocked, *arch.shared_memory_eperm):
        emit(_JEQ_K, nr, "eperm", None)
    for nr in (arch.openat2, *arch.shared_memory_enosys):
        emit(_JEQ_K, nr, "enosys", None)
    for nr, _, _ in arch.modes:
        emit(_JEQ_K, nr, f"mode{nr}", None)
    emit(_JEQ_K, arch.ioctl, "ioctl", None)
    emit(_JEQ_K, arch.socket, "socket", None)
    if not allow_unix_sockets:
        emit(_JEQ_K, arch.socketpair, "pair", None)
    emit(_JEQ_K, arch.mmap, "mmap", None)
    emit(_RET_K, _RET_ALLOW)
    label("ioctl")
    emit(_LD_W_ABS, _OFF_ARG1_LO)
    emit(_JEQ_K, TIOCSTI, "eperm", None)
    emit(_JEQ_K, TIOCLINUX, "eperm", None)
    emit(_RET_K, _RET_ALLOW)
    label("socket")
    emit(_LD_W_ABS, _OFF_ARG0_LO)  # `int domain`: the kernel reads the low 32 bits only
    families = ((AF_UNIX,) if allow_unix_sockets else ()) + ((AF_INET, AF_INET6) if network else ())
    for family in families:
        emit(_JEQ_K, family, "allow", None)
    emit(_JEQ_K, AF_NETLINK, "netlink", "eperm")
    label("netlink")
    emit(_LD_W_ABS, _arg_lo(2))
    emit(_JEQ_K, NETLINK_ROUTE, "allow", "eperm")
    if not allow_unix_sockets:
        # A connected pair cannot reach anything else, except a datagram socket: its
        # `sendto`/`connect` name any socket file or abstract name in view.
        label("pair")
        emit(_LD_W_ABS, _OFF_ARG0_LO)
        emit(_JEQ_K, AF_UNIX, None, "eperm")
        emit(_LD_W_ABS, _arg_lo(1))
        emit(_AND_K, SOCK_TYPE_MASK)
        emit(_JEQ_K, SOCK_DGRAM, "eperm", "allow")
    label("mmap")
    # Shared anonymous memory is shmem: RLIMIT_DATA does not count it (see module docstring).
    emit(_LD_W_ABS, _arg_lo(3))
    emit(_AND_K, MAP_SHARED | MAP_ANONYMOUS)
    emit(_JEQ_K, MAP_SHARED | MAP_ANONYMOUS, "eperm", "allow")
    for nr, arg, nodes in arch.modes:
        label(f"mode{nr}")
        emit(_LD_W_ABS, _arg_lo(arg))
        emit(_JSET_K, SET_ID_BITS, "eperm", None)
        if nodes:
            emit(_AND_K, S_IFMT)
            emit(_JEQ_K, S_IFCHR, "eperm", None)
            emit(_JEQ_K, S_IFBLK, "eperm", None)
        emit(_RET_K, _RET_ALLOW)
    label("allow")
    emit(_RET_K, _RET_ALLOW)
    label("enosys")
    emit(_RET_K, _RET_ENOSYS)
    label("eperm")
    emit(_RET_K, _RET_EPERM)

    out = bytearray()
    for index, (code, k, jt, jf) in enumerate(prog):
        out += _insn(code, k, _offset(labels, index, jt), _offset(labels, index, jf))
    return bytes(out)


def _offset(labels: dict[str, int], index: int, target: str | None) -> int:
    if target is None:
        return 0
    delta = labels[target] - index - 1
    # INVARIANT: conditional jumps are forward and fit in a u8 (the program is tiny).
    assert 0 <= delta < 256, (target, delta)
    return delta
