"""Output files: written atomically, never over one of the command's inputs, with one-line errors.

Every file bankism writes (traces, their ``.npz`` siblings, ``show --png`` pictures, ncu CSV copies)
goes through ``temporary_sibling``: the data goes to a temporary file in the target's directory,
which is renamed onto the target only when complete, so an interrupted or failed write leaves
nothing half-written. ``check_output`` refuses, before any work is done, a target that cannot be
written or that is one of the inputs.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from bankism.errors import BankismError


def new_file_mode() -> int:
    """The mode an ordinary new file gets (mkstemp makes its files private; outputs are shared)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _why(error: OSError) -> str:
    return error.strerror or str(error) or type(error).__name__


@contextlib.contextmanager
def temporary_sibling(path: str | os.PathLike[str], what: str | None = None) -> Iterator[Path]:
    """A temporary file next to ``path``, removed unless the caller renamed it onto ``path``.

    An OSError while it is made, written or renamed becomes a one-line BankismError naming
    ``what`` (default: the path).
    """
    target = Path(path)
    label = what or str(target)
    try:
        # the target's name, cut to 64 characters: a name near the file system's 255-byte limit still
        # leaves room for the temporary's prefix and suffix
        handle, name = tempfile.mkstemp(prefix=f".{target.name[:64]}.", suffix=".tmp", dir=target.parent)
    except OSError as error:
        raise BankismError(f"{label}: cannot write into {target.parent or '.'}: {_why(error)}") from None
    os.close(handle)
    temp = Path(name)
    try:
        temp.chmod(new_file_mode())
        yield temp
    except OSError as error:
        raise BankismError(f"{label}: cannot write: {_why(error)}") from None
    finally:
        with contextlib.suppress(OSError):
            if temp.exists():
                temp.unlink()


def replace(temp: Path, path: str | os.PathLike[str], what: str | None = None) -> None:
    """Rename a finished temporary onto its target (atomic on one file system)."""
    try:
        os.replace(temp, path)
    except OSError as error:
        raise BankismError(f"{what or path}: cannot write: {_why(error)}") from None


def write_text(path: str | os.PathLike[str], text: str, what: str | None = None) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with temporary_sibling(path, what) as temp:
        temp.write_text(text, encoding="utf-8")
        replace(temp, path, what)
    return Path(path)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def output_path(value: str | os.PathLike[str], option: str) -> Path:
    """An output file named on the command line, as a Path: an empty name, or one ending in ``/``
    (which names a folder), is refused before ``Path`` would turn ``out/`` into ``out``."""
    text = os.fspath(value)
    if text == "":
        raise BankismError(f"{option}: the file name is empty")
    if text.endswith(("/", os.sep)):
        raise BankismError(f"{option} {text}: ends with '/', which names a folder; give a file name")
    if "\0" in text:
        raise BankismError(f"{option}: the file name contains a NUL character")
    return Path(text)


def check_output(
    path: str | os.PathLike[str], option: str, inputs: Iterable[str | os.PathLike[str] | None] = (),
) -> Path:
    """Refuse, before any work, an output that is an input, a directory, not a regular file, or in a
    missing/read-only folder; any OSError while checking (a name too long) is one line too.

    ``option`` names the output in the message (``-o``, ``--png``, ...). Returns the path.
    """
    target = output_path(path, option)
    try:
        return _check_output(target, option, inputs)
    except OSError as error:
        raise BankismError(f"{option} {target}: {_why_short(error)}") from None


def _why_short(error: OSError) -> str:
    if error.errno == errno.ENAMETOOLONG:
        return "file name too long"
    return _why(error)


def _check_output(target: Path, option: str, inputs: Iterable[str | os.PathLike[str] | None]) -> Path:
    for given in inputs:
        if given is not None and _same_file(target, Path(given)):
            raise BankismError(f"{option} {target}: is the input {given}; bankism never overwrites "
                               "its inputs, write to another file")
    if target.is_dir():
        raise BankismError(f"{option} {target}: is a directory")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.exists():
        raise BankismError(f"{option} {target}: folder {folder} does not exist")
    if not folder.is_dir():
        raise BankismError(f"{option} {target}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise BankismError(f"{option} {target}: folder {folder} is not writable")
    if target.exists() and not stat.S_ISREG(os.stat(target).st_mode):
        raise BankismError(f"{option} {target}: is not a regular file (a device, FIFO or socket); "
                           "bankism writes only regular files")
    if target.exists() and not os.access(target, os.W_OK) and not os.access(folder, os.W_OK):
        raise BankismError(f"{option} {target}: not writable")
    return target
