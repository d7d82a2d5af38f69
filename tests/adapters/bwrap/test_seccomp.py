"""The seccomp program, checked by a small cBPF interpreter for every supported architecture.

x86_64 is also exercised for real by the escape suite; aarch64 cannot run here, so its
program is verified by executing it on synthetic `seccomp_data`.
"""

from __future__ import annotations

import struct

import pytest

from safehold.adapters.bwrap import SandboxUnavailable
from safehold.adapters.bwrap._seccomp import (
    AF_UNIX,
    SUPPORTED_ARCHES,
    TIOCLINUX,
    TIOCSTI,
    Arch,
    build_filter,
    native_arch,
)

ALLOW = 0x7FFF0000
EPERM = 0x00050001


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
        elif code in (0x15, 0x35):
            hit = acc == k if code == 0x15 else acc >= k
            pc += 1 + (jt if hit else jf)
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
    assert execute(prog, arch.socket, a, (2, 1)) == ALLOW  # AF_INET
    for nr in arch.blocked:
        assert execute(prog, nr, a) == EPERM
    assert execute(prog, 0, a) == ALLOW
    assert execute(prog, arch.socket, 0x40000003) == EPERM  # i386: foreign ABI denied outright


def test_x32_abi_is_denied_on_x86_64() -> None:
    arch = SUPPORTED_ARCHES["x86_64"]
    assert execute(build_filter(arch), 0x40000000 | 1, arch.audit_arch) == EPERM


def test_unix_sockets_can_be_allowed() -> None:
    arch = SUPPORTED_ARCHES["x86_64"]
    prog = build_filter(arch, block_unix_sockets=False)
    assert execute(prog, arch.socket, arch.audit_arch, (AF_UNIX,)) == ALLOW
    assert execute(prog, arch.ioctl, arch.audit_arch, (0, TIOCSTI)) == EPERM


def test_unknown_architecture_is_a_clear_unavailable_error() -> None:
    with pytest.raises(SandboxUnavailable, match=r"riscv64.*x86_64"):
        native_arch("riscv64")
    assert native_arch("amd64").name == "x86_64"
    assert native_arch("arm64").name == "aarch64"
