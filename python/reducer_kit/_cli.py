"""The ``reducer-kit`` console script: the kit's command line, in process."""

from __future__ import annotations

import os
import signal
import sys
from typing import Optional, Sequence

__all__ = ["main"]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``reducer-kit ARGS...`` as the binary does; exit with its code.

    The command line is the kit's own (``reducer_kit._native.cli_main``,
    the library's ``cli::run``): every command, option, output and exit code
    of ``cargo install reducer-kit``. Ctrl-C ends it as it ends the binary
    (``certify`` handles SIGINT itself, spec section 8.7).
    """
    from . import _native

    args = list(sys.argv if argv is None else ["reducer-kit", *argv])
    args[0] = "reducer-kit"
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.stderr.flush()
    code = _native.cli_main([os.fsdecode(a) if isinstance(a, bytes) else a for a in args])
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
