"""The argument parser class of the `safehold` command."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

__all__ = ["Parser"]


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one `error:` line and exit code 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"error: {message}\nhint: run `{self.prog} --help`\n")
        raise SystemExit(2)
