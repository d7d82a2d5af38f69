"""The seccomp program, checked by a small cBPF interpreter for every supported architecture.

x86_64 is also exercised for real by the escape suite; aarch64 cannot run here, so its
program is verified by executing it on synthetic `seccomp_data`.
"""

from __future__ import annotations

import struct

import pytest

from safehold.adapters.bwrap import SandboxUnavailable
from safehold.adapters.bwrap._seccomp import SUPPORTED_ARCHES, Arch, build_filter, native_arch

# Pinned from the kernel headers, never imported from the code under test: a wrong constant
# there must fail here instead of moving the expectation along with it.
TIOCSTI = 0x5412
TIOCLINUX = 0x541C
AF_UNIX = 1
ALLOW = 0x7FFF0000
EPERM = 0x00050001
ENOSYS = 0x00050026
S_ISUID, S_ISGID = 0o4000, 0o2000
S_IFREG, S_IFCHR, S_IFBLK, S_IFIFO = 0o100000, 0o020000, 0o060000, 0o010000
# (syscall, mode argument index, creates nodes) from unistd_64.h / asm-generic/unistd.h
MODE_CALLS = {
    "x86_64": {
        "chmod": (90, 1),
        "fchmod": (91, 1),
        "fchmodat": (268, 2),
        "fchmodat2": (452, 2),
        "open": (2, 2),
        "openat": (257, 3),
        "creat": (85, 1),
        "mknod": (133, 1),
        "mknodat": (259, 2),
    },
    "aarch64": {
        "fchmod": (52, 1),
        "fchmodat": (53, 2),
        "fchmodat2": (452, 2),
        "openat": (56, 3),
        "mknodat": (33, 2),
    },
}
OPENAT2 = 437


def execute(program: bytes, nr: int, arch: int, args: tuple[int, ...] = ()) -> int:
    """Run a classic BPF seccomp program on one `struct seccomp_data` (a tiny interpreter)."""
    full = (*args, 0, 0, 0, 0, 0, 0)[:6]
    data = struct.pack("<iIQ6Q", nr, arch, 0, *full)
    insns = [struct.unpack("<HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = insns[pc]
        if code == 0x20:
            acc = struct.unpack_from("<I", data, k)[0]
            pc += 1
        elif code in (0x15, 0x35, 0x45):
            hit = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[code]
            pc += 1 + (jt if hit else jf)
        elif code == 0x54:  # alu and k
            acc &= k
            pc += 1
        elif code == 0x06:
            return k
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")


@pytest.mark.parametrize("arch", SUPPORTED_ARCHES.values(), ids=lambda a: a.name)
def test_filter_semantics_per_architecture(arch: Arch) -> None:
    prog = build_filter(arch)
    a = arch.audit_arch
    assert execute(prog, arch.ioctl, a, (0, TIOCSTI)) == EPERM
    assert execute(prog, arch.ioctl, a, (0, TIOCSTI | 1 << 32)) == EPERM
    assert execute(prog, arch.ioctl, a, (0, TIOCLINUX)) == EPERM
    assert execute(prog, arch.ioctl, a, (0, 0x5401)) == ALLOW  # TCGETS
    assert execute(prog, arch.socket, a, (AF_UNIX, 1)) == EPERM
    assert execute(prog, arch.socket, a, (AF_UNIX | 1 << 32, 1)) == EPERM
    assert execute(prog, arch.socket, a, (2, 1)) == EPERM  # AF_INET: only with the network
    for nr in arch.blocked:
        assert execute(prog, nr, a) == EPERM
    assert execute(prog, 0, a) == ALLOW
    assert execute(prog, arch.socket, 0x40000003) == EPERM  # i386: foreign ABI denied outright


@pytest.mark.parametrize("arch", SUPPORTED_ARCHES.values(), ids=lambda a: a.name)
def test_set_id_modes_and_device_nodes_are_refused(arch: Arch) -> None:
    prog = build_filter(arch)
    a = arch.audit_arch
    for name, (nr, index) in MODE_CALLS[arch.name].items():

        def call(mode: int, nr: int = nr, index: int = index) -> int:
            args = [0] * 6
            args[index] = mode
            return execute(prog, nr, a, tuple(args))

        assert call(0o755) == ALLOW, name
        assert call(0o4755) == EPERM, name
        assert call(0o2755) == EPERM, name
        assert call(S_ISUID | 1 << 32) == EPERM, name  # the low 32 bits decide
        if name.startswith("mknod"):
            assert call(S_IFCHR | 0o600) == EPERM, name
            assert call(S_IFBLK | 0o600) == EPERM, name
            assert call(S_IFIFO | 0o600) == ALLOW, name
            assert call(S_IFREG | 0o644) == ALLOW, name
            assert call(S_IFREG | S_ISUID | 0o755) == EPERM, name
    assert execute(prog, OPENAT2, a) == ENOSYS  # its mode is in a struct: callers fall back


def test_x32_abi_is_denied_on_x86_64() -> None:
    arch = SUPPORTED_ARCHES["x86_64"]
    assert execute(build_filter(arch), 0x40000000 | 1, arch.audit_arch) == EPERM


def test_unix_sockets_can_be_allowed() -> None:
    arch = SUPPORTED_ARCHES["x86_64"]
    prog = build_filter(arch, allow_unix_sockets=True)
    assert execute(prog, arch.socket, arch.audit_arch, (AF_UNIX,)) == ALLOW
    assert execute(prog, arch.ioctl, arch.audit_arch, (0, TIOCSTI)) == EPERM


def test_unknown_architecture_is_a_clear_unavailable_error() -> None:
    with pytest.raises(SandboxUnavailable, match=r"riscv64.*x86_64"):
        native_arch("riscv64")
    assert native_arch("amd64").name == "x86_64"
    assert native_arch("arm64").name == "aarch64"


# From unistd_64.h / asm-generic/unistd.h, pinned here: socket, socketpair, mmap,
# memfd_create, memfd_secret, shmget.
SHARED = {
    "x86_64": {"socket": 41, "socketpair": 53, "mmap": 9, "memfd": (319, 447), "shmget": 29},
    "aarch64": {"socket": 198, "socketpair": 199, "mmap": 222, "memfd": (279, 447), "shmget": 194},
}
AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_VSOCK = 2, 10, 16, 17, 40
SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET, SOCK_CLOEXEC = 1, 2, 5, 0o2000000
MAP_SHARED, MAP_PRIVATE, MAP_SHARED_VALIDATE, MAP_ANONYMOUS = 0x01, 0x02, 0x03, 0x20


@pytest.mark.parametrize("arch", SUPPORTED_ARCHES.values(), ids=lambda a: a.name)
@pytest.mark.parametrize(("unix", "network"), [(False, False), (True, False), (False, True)])
def test_socket_families_are_an_allow_list(arch: Arch, unix: bool, network: bool) -> None:
    prog = build_filter(arch, allow_unix_sockets=unix, network=network)
    nr = SHARED[arch.name]

    def sock(family: int, kind: int = SOCK_STREAM, proto: int = 0) -> int:
        return execute(prog, nr["socket"], arch.audit_arch, (family, kind, proto))

    assert sock(AF_UNIX) == (ALLOW if unix else EPERM)
    assert sock(AF_INET) == sock(AF_INET6) == (ALLOW if network else EPERM)
    assert sock(AF_INET | 1 << 32) == (ALLOW if network else EPERM)  # `int`: low bits decide
    assert sock(AF_NETLINK, 3, 0) == ALLOW  # NETLINK_ROUTE
    for proto in (9, 4, 12, 15):  # AUDIT, SOCK_DIAG, NETFILTER, KOBJECT_UEVENT
        assert sock(AF_NETLINK, 3, proto) == EPERM
    for family in (AF_VSOCK, AF_PACKET, 38, 41, 44, 3, 4, 5, 0, 46):  # ALG, QIPCRTR, XDP, ...
        assert sock(family) == EPERM, family

    def pair(family: int, kind: int) -> int:
        return execute(prog, nr["socketpair"], arch.audit_arch, (family, kind, 0))

    assert pair(AF_UNIX, SOCK_STREAM) == pair(AF_UNIX, SOCK_SEQPACKET) == ALLOW
    assert pair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC) == ALLOW
    assert pair(AF_UNIX, SOCK_DGRAM) == (ALLOW if unix else EPERM)
    assert pair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC) == (ALLOW if unix else EPERM)


@pytest.mark.parametrize("arch", SUPPORTED_ARCHES.values(), ids=lambda a: a.name)
def test_memory_no_limit_counts_is_refused(arch: Arch) -> None:
    prog = build_filter(arch)
    nr = SHARED[arch.name]
    a = arch.audit_arch
    for memfd in nr["memfd"]:
        assert execute(prog, memfd, a) == ENOSYS
    assert execute(prog, nr["shmget"], a) == EPERM

    def mmap(flags: int) -> int:
        return execute(prog, nr["mmap"], a, (0, 1 << 20, 3, flags, (1 << 64) - 1, 0))

    assert mmap(MAP_SHARED | MAP_ANONYMOUS) == EPERM
    assert mmap(MAP_SHARED_VALIDATE | MAP_ANONYMOUS) == EPERM
    assert mmap(MAP_PRIVATE | MAP_ANONYMOUS) == ALLOW  # counted by RLIMIT_DATA
    assert mmap(MAP_SHARED) == ALLOW  # a shared file mapping (SQLite's WAL index)
