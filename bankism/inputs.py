"""Inputs: only regular files are read, each kind of input under a size cap, every long job under a
work budget; caps and budgets are raisable (``bankism --limit NAME=VALUE``, ``BANKISM_LIMITS``).

A FIFO, a device (``/dev/zero``), a socket or a directory given where bankism reads a file is refused
up front with one line, before a byte is read, so no input can hang a command or fill its memory.
Every file is read at most ``limit(kind)`` bytes (plus one, to tell that it is larger); the budgets
(``expansion``, ``nesting``, ``includes``, ``steps``, ``threads``, ``instructions``) are counted by the
parts that spend them. docs/cli.md lists every limit with its default and what it bounds; the
defaults keep each command under about 1 GB of memory and 60 s of work.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from typing import BinaryIO

from bankism.errors import BankismError

#: The environment variable that raises (or lowers) limits: ``BANKISM_LIMITS="source=64M,steps=1e8"``.
ENVIRONMENT = "BANKISM_LIMITS"


@dataclass(frozen=True)
class Limit:
    """One cap or budget: its name (as ``--limit NAME=...`` spells it), default, unit and what it bounds."""

    name: str
    default: int
    unit: str
    what: str


#: Every limit, by name. Sizes are bytes of one file; budgets count work of one command.
LIMITS: dict[str, Limit] = {item.name: item for item in (
    Limit("trace", 64 << 20, "bytes", "a trace's JSON document"),
    Limit("records", 16 << 30, "bytes", "a trace's .npz records file"),
    Limit("source", 1 << 20, "bytes", "CUDA source explain reads: the file (or stdin) and its headers"),
    Limit("data", 64 << 20, "bytes", "a file explain --data reads as a kernel pointer's input"),
    Limit("csv", 8 << 20, "bytes", "an ncu CSV export"),
    Limit("json", 8 << 20, "bytes", "an explain --json result given to advise"),
    Limit("expansion", 1 << 20, "tokens", "tokens macro expansion may produce"),
    Limit("nesting", 128, "levels", "nesting of the parsed source: blocks, parentheses, operators"),
    Limit("includes", 64, "levels", "#include files open inside one another"),
    Limit("steps", 1 << 21, "statements", "statements explain interprets, over all blocks"),
    Limit("accesses", 1 << 19, "warp-instructions", "shared-memory warp-instructions explain records"),
    Limit("uncounted", 1 << 16, "warp-instructions",
          "shared-memory warp-instructions explain lists as not counted (what decides them is not known)"),
    Limit("copies", 1 << 21, "warp-instructions",
          "shared-memory warp-instructions explain counts by copying a repeating loop's iteration"),
    Limit("threads", 1 << 18, "threads", "threads explain simulates (blocks x threads per block)"),
    Limit("instructions", 1 << 23, "warp-instructions", "warp-instructions one check() evaluates"),
)}

#: Values given on the command line (``--limit``), which win over the environment.
_given: dict[str, int] = {}

_VALUE = re.compile(r"^\s*(\d+(?:\.\d+)?(?:[eE]\d+)?)\s*([kKmMgGtT]i?[bB]?)?\s*$")
_SCALE = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def _parse_value(text: str, where: str) -> int:
    """``64M`` -> 67108864, ``1e6`` -> 1000000, ``unlimited`` -> no limit (a very large number)."""
    if text.strip().lower() in ("unlimited", "none"):
        return 1 << 62
    match = _VALUE.match(text) if text.isascii() else None
    if match is None:
        raise BankismError(f"{where}: {text!r} is not a size or count (e.g. 64M, 2G, 1e6, unlimited)")
    number = float(match[1]) if any(c in match[1] for c in ".eE") else int(match[1])
    scaled = number * _SCALE[match[2][0].lower()] if match[2] else number
    if scaled > 1 << 62:  # (1e400 is infinite as a float)
        raise BankismError(f"{where}: {text!r} is larger than any limit can be; give unlimited for none")
    value = int(scaled)
    if value < 1:
        raise BankismError(f"{where}: {text!r} must be at least 1")
    return value


def c_integer(text: str) -> int:
    """An integer as C writes it (``32``, ``0x1f``, ``0b101``, signed), ASCII digits only: ``int()`` would
    also read other scripts' digits (``'３２'`` as 32). ValueError otherwise."""
    if not text.isascii():
        raise ValueError(f"invalid literal for an integer: {text!r}")
    return int(text, 0)


def parse_limits(items: Iterable[str], where: str) -> dict[str, int]:
    """``["source=64M", "steps=1e8,threads=1M"]`` as {name: value}; unknown names are an error."""
    out: dict[str, int] = {}
    if isinstance(items, str | bytes) or not isinstance(items, Iterable):
        raise BankismError(f"{where}: expected a list of NAME=VALUE strings, got {type(items).__name__}")
    for item in items:
        if where != ENVIRONMENT and not str(item).strip():  # `--limit ''`: a value was meant
            raise BankismError(f"{where} '': expected NAME=VALUE with NAME one of {', '.join(LIMITS)}")
        for part in filter(None, (p.strip() for p in str(item).split(","))):
            name, sep, value = part.partition("=")
            name = name.strip().lower()
            if not sep or name not in LIMITS:
                known = ", ".join(LIMITS)
                raise BankismError(f"{where} {part!r}: expected NAME=VALUE with NAME one of {known}")
            out[name] = _parse_value(value, f"{where} {name}")
    return out


def set_limits(items: Iterable[str], where: str = "--limit") -> None:
    """Raise (or lower) limits for the rest of this process, as ``bankism --limit`` does."""
    _given.update(parse_limits(items, where))


def reset_limits() -> None:
    """Forget the values ``set_limits`` gave (the environment and the defaults apply again)."""
    _given.clear()


def limit(name: str) -> int:
    """The value of limit ``name`` now: ``--limit`` first, then ``BANKISM_LIMITS``, then the default."""
    if name in _given:
        return _given[name]
    from_environment = parse_limits([os.environ.get(ENVIRONMENT, "")], ENVIRONMENT)
    return from_environment.get(name, LIMITS[name].default)


def amount_text(value: int, unit: str) -> str:
    """``16777216`` bytes -> ``16 MB``; other units as plain numbers with separators."""
    if unit != "bytes":
        return f"{value:,} {unit}"
    for shift, suffix in ((40, "TB"), (30, "GB"), (20, "MB"), (10, "KB")):
        if value >= 1 << shift:
            scaled = value / (1 << shift)
            return f"{scaled:,.0f} {suffix}" if scaled == int(scaled) else f"{scaled:,.1f} {suffix}"
    return f"{value:,} bytes"


def over_limit(name: str, amount: int | None, where: str) -> BankismError:
    """The one-line error for work or input over limit ``name`` (``amount`` None: "more than")."""
    item = LIMITS[name]
    value = limit(name)
    got = "" if amount is None else f"{amount_text(amount, item.unit)}, "
    return BankismError(
        f"{where}: {got}over the {name} limit of {amount_text(value, item.unit)} ({item.what}); "
        f"raise it with `bankism --limit {name}=N` or {ENVIRONMENT}={name}=N"
    )


class Budget:
    """Counts work of one kind against its limit; ``spend`` raises the one-line error once it is over."""

    def __init__(self, name: str, where: str) -> None:
        self.name = name
        self.where = where
        self.left = limit(name)
        self.total = self.left

    def spend(self, amount: int = 1) -> None:
        self.left -= amount
        if self.left < 0:
            raise over_limit(self.name, None, self.where)


# ---------------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------------

_KIND_OF_MODE = (
    (stat.S_ISDIR, "is a directory"),
    (stat.S_ISFIFO, "is a FIFO (named pipe)"),
    (stat.S_ISCHR, "is a character device"),
    (stat.S_ISBLK, "is a block device"),
    (stat.S_ISSOCK, "is a socket"),
)

_ERRNO_TEXT = {
    errno.ENOENT: "no such file",
    errno.ENAMETOOLONG: "file name too long",
    errno.EACCES: "permission denied",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.ELOOP: "too many levels of symbolic links",
}


def os_error_text(error: OSError) -> str:
    """A short, one-line reason for an OSError (``no such file``, ``file name too long``, ...)."""
    return _ERRNO_TEXT.get(error.errno or 0) or error.strerror or str(error) or type(error).__name__


def _not_regular(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    for test, text in _KIND_OF_MODE:
        if test(mode):
            return text
    return "is not a regular file"


def file_name(path: object, label: str | None = None) -> str:
    """``path`` as a string, refused (one line) when it is not a path, is empty or holds a NUL."""
    if path is None or not isinstance(path, str | os.PathLike):
        raise BankismError(f"{label or 'input'}: expected a file name; got {type(path).__name__}")
    name = os.fspath(path)
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    if name == "":
        raise BankismError(f"{label or 'input'}: the file name is empty")
    if "\0" in name:
        raise BankismError(f"{label or 'input'}: the file name contains a NUL character")
    if name.endswith(("/", os.sep)) and not os.path.isdir(name):  # Path() would drop the "/" and read a file
        raise BankismError(f"{name}: ends with '/', which names a folder, but {name.rstrip('/')} is not one")
    return name


def check_file(path: str | os.PathLike[str], kind: str, label: str | None = None) -> int:
    """Refuse, without opening it, anything but an existing regular file within ``kind``'s size cap;
    return its size. For files a library opens itself (zipfile, the preprocessor)."""
    name = file_name(path, label)
    where = label or name
    try:
        info = os.stat(name)
    except OSError as error:
        raise BankismError(f"{where}: {os_error_text(error)}") from None
    problem = _not_regular(info.st_mode)
    if problem:
        raise BankismError(f"{where}: {problem}, not a regular file; bankism reads only regular files")
    if info.st_size > limit(kind):
        raise over_limit(kind, info.st_size, where)
    return info.st_size


def read_bytes(path: str | os.PathLike[str], kind: str, label: str | None = None) -> bytes:
    """The bytes of a regular file, refused (one line) if it is anything else or larger than the cap.

    The file is opened without blocking and checked on the open descriptor, so a FIFO swapped in after
    a check still cannot hang the command.
    """
    name = file_name(path, label)
    where = label or name
    try:
        handle = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise BankismError(f"{where}: {os_error_text(error)}") from None
    try:
        problem = _not_regular(os.fstat(handle).st_mode)
        if problem:
            raise BankismError(f"{where}: {problem}, not a regular file; bankism reads only regular files")
        with os.fdopen(handle, "rb", closefd=False) as stream:
            return read_stream(stream, kind, where)
    except OSError as error:
        raise BankismError(f"{where}: cannot read: {os_error_text(error)}") from None
    finally:
        os.close(handle)


def read_stream(stream: BinaryIO, kind: str, where: str) -> bytes:
    """At most ``limit(kind)`` bytes of an open binary stream (stdin), or the one-line cap error."""
    cap = limit(kind)
    chunks: list[bytes] = []
    size = 0
    while size <= cap:  # in pieces: an `unlimited` cap must not be allocated up front
        chunk = stream.read(min(cap + 1 - size, 1 << 24))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > cap:
        raise over_limit(kind, None, where)
    return b"".join(chunks)


_UTF16_32 = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
             (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


def decode_text(data: bytes, where: str, errors: str = "strict") -> str:
    """UTF-8 text (a UTF-8 byte-order mark dropped); UTF-16/32 and binary data are refused by name."""
    for mark, encoding in _UTF16_32:
        if data.startswith(mark):
            raise BankismError(f"{where}: is {encoding} text; bankism reads UTF-8 "
                               f"(convert it: iconv -f {encoding} -t UTF-8)")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise BankismError(f"{where}: not a text file (a NUL byte on line {line})")
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise BankismError(f"{where}: not UTF-8 text ({error.reason} on line {line})") from None


def read_text(
    path: str | os.PathLike[str], kind: str, label: str | None = None, errors: str = "strict",
) -> str:
    """``read_bytes`` decoded as UTF-8 by ``decode_text``."""
    where = label or file_name(path, label)
    return decode_text(read_bytes(path, kind, label), where, errors)

