"""A closed stdout (``bankism analyze T.json | head -1``) as its own exception, so that the CLI ends
quietly with exit code 0 instead of click's exit code 1 (which docs/cli.md reserves for conflicts)."""

from __future__ import annotations

from typing import Any, TextIO


class StdoutClosed(Exception):
    """The reader of stdout went away. Deliberately not an OSError: click turns EPIPE into exit 1."""


class GuardedStdout:
    """sys.stdout whose writes and flushes raise StdoutClosed instead of BrokenPipeError."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise StdoutClosed from None

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise StdoutClosed from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
