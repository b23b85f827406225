"""A closed stdout (``bankism analyze T.json | head -1``) as its own exception, so that the CLI ends
quietly with exit code 0 instead of click's exit code 1 (which docs/cli.md reserves for conflicts);
a stdout that cannot be written (a full disk) as another, which the CLI reports in one line."""

from __future__ import annotations

from typing import Any, TextIO


class StdoutClosed(Exception):
    """The reader of stdout went away. Deliberately not an OSError: click turns EPIPE into exit 1."""


class StdoutFailed(Exception):
    """Writing stdout failed for another reason (a full disk: ``>/dev/full``); the message says why."""


def _failed(error: OSError) -> StdoutFailed:
    return StdoutFailed(error.strerror or str(error) or type(error).__name__)


class GuardedStdout:
    """sys.stdout whose writes and flushes raise StdoutClosed instead of BrokenPipeError, and
    StdoutFailed instead of any other OSError (neither is an OSError, which click would swallow)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise StdoutClosed from None
        except OSError as error:
            raise _failed(error) from None

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise StdoutClosed from None
        except OSError as error:
            raise _failed(error) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
