"""Launches: the record of one ``kernel<<<...>>>`` statement (``SourceLaunch``), and where a kernel is
launched when its own file does not launch it.

A header of kernels (``kernels/3_sgemm.cu``, ``gemm_shared.cuh``) is launched by a runner beside it
(``kernel_runner.cu``, ``main.cu``). explain looks for ``kernel<<<...>>>`` in the source files of the
same tree: the file's directory and the directories above it up to the repository's root (the first one
holding ``.git``), at most ``LEVELS_UP`` levels up, nearest files first. Limits: a launch written through a
macro or a function pointer is not found; at most ``MAX_FILES`` files of ``MAX_BYTES`` each,
``MAX_TOTAL_BYTES`` in all, are read.
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node

#: Source files a launch can be in.
SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".inl", ".inc")
#: How far above the kernel's directory the search goes when no ``.git`` marks the root sooner.
LEVELS_UP = 2
#: Files read at most (the nearest first), and the largest one read.
MAX_FILES = 3000
MAX_BYTES = 2_000_000
MAX_DIRECTORIES = 1000
#: Bytes read in all: a large repository is searched only as far as this reaches, nearest files first.
MAX_TOTAL_BYTES = 64_000_000
#: Directories never searched (build outputs, virtual environments, version control).
SKIPPED_DIRECTORIES = frozenset({"build", "builds", "node_modules", "__pycache__", "venv", "site-packages"})

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def search_root(path: str) -> str:
    """The top directory searched for ``path``'s launch: the repository root (the directory holding
    ``.git``) when it is at most ``LEVELS_UP`` levels above the file's directory, else that many levels up."""
    directory = os.path.dirname(os.path.abspath(path))
    for _ in range(LEVELS_UP):
        parent = os.path.dirname(directory)
        if os.path.exists(os.path.join(directory, ".git")) or parent == directory:
            return directory
        directory = parent
    return directory


def launch_pattern(kernel: str) -> re.Pattern[str]:
    """``kernel<<<``, ``ns::kernel<T, 4><<<`` (template arguments one level of ``<>`` deep)."""
    return re.compile(r"(?<![\w.>])" + re.escape(kernel) + r"\s*(?:<(?:[^<>;{}]|<[^<>;{}]*>)*>)?\s*<<<")


def _source_files(root: str, near: str) -> Iterator[tuple[int, str]]:
    """Source files under ``root`` with their distance from ``near``'s directory (directories climbed
    plus descended), nearest first: its directory breadth-first, then each directory above it with
    the subtrees not yet searched. At most ``MAX_FILES`` files and ``MAX_DIRECTORIES`` directories."""
    here = os.path.dirname(os.path.abspath(near))
    done: str | None = None
    files = directories = 0
    climbed = 0
    while True:
        queue = deque([(here, climbed)])
        while queue:
            directory, distance = queue.popleft()
            directories += 1
            try:
                entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
            except OSError:
                continue
            for entry in entries:
                try:
                    if entry.is_file() and entry.name.endswith(SOURCE_SUFFIXES):
                        files += 1
                        yield distance, entry.path
                        if files >= MAX_FILES:
                            return
                    elif entry.is_dir(follow_symlinks=False) and entry.path != done and _searched(entry.name):
                        queue.append((entry.path, distance + 1))
                except OSError:
                    continue
            if directories >= MAX_DIRECTORIES:
                return
        if here == root or os.path.dirname(here) == here:
            return
        done, here, climbed = here, os.path.dirname(here), climbed + 1


def _searched(directory: str) -> bool:
    return not directory.startswith(".") and directory.lower() not in SKIPPED_DIRECTORIES


def _text(path: str) -> str | None:
    """The file's text without comments, or None for what cannot or should not be read."""
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > MAX_BYTES:
            return None
        with open(path, "rb") as stream:
            data = stream.read(MAX_BYTES + 1)
    except OSError:
        return None
    return _COMMENTS.sub(" ", data.decode("utf-8", errors="replace"))


def launching_files(kernel_file: str, kernel: str, limit: int = 4) -> list[str]:
    """Up to ``limit`` files of ``kernel_file``'s tree that launch ``kernel``, nearest first; files that
    name ``kernel_file`` in an ``#include`` come before others at the same distance."""
    own = os.path.abspath(kernel_file)
    pattern = launch_pattern(kernel)
    include = re.compile(r'#\s*include\s*["<][^">]*\b' + re.escape(os.path.basename(own)) + r'[">]')
    found: list[tuple[int, int, str]] = []
    read = 0
    for distance, path in _source_files(search_root(own), own):
        if os.path.abspath(path) == own:
            continue
        text = _text(path)
        read += len(text or "")
        if read > MAX_TOTAL_BYTES:
            break
        if text is not None and pattern.search(text):
            found.append((distance, 0 if include.search(text) else 1, path))
    return [path for _, _, path in sorted(found)[:limit]]


def shown_path(path: str) -> str:
    """``path`` as the report shows it: relative to the working directory when under it."""
    full = os.path.abspath(path)
    here = os.getcwd()
    return os.path.relpath(full, here) if full.startswith(here + os.sep) else full


def is_file_of(filename: str, source: str) -> bool:
    """Whether ``filename`` is a file holding ``source`` (the API may name a file it did not read)."""
    try:
        if not os.path.isfile(filename):  # (never open a FIFO or a device)
            return False
        with open(filename, "rb") as stream:
            text = stream.read(4 * len(source) + 4).decode("utf-8", errors="replace").lstrip("\ufeff")
    except OSError:
        return False
    return text.replace("\r\n", "\n") == source.lstrip("\ufeff").replace("\r\n", "\n")


def beside_note(filename: str, kernel: str, located: str) -> str:
    """The assumption that names the launch (``located``: FILE:LINE) taken from another file of the tree."""
    return (f"{filename} does not launch {kernel}: the launch on {located} (a file of the same source "
            "tree) is used, compiled after this file; give --block X,Y,Z (and --grid X,Y,Z) for another "
            "launch")


@dataclass(eq=False)
class SourceLaunch:
    """One ``kernel<<<config>>>(args)`` statement, with the tree-sitter nodes to evaluate."""

    kernel: str
    template_args: list[Node]
    config: list[Node]
    args: list[Node]
    line: int
    scope: Node | None
    #: the file the launch is written in, as the preprocessor names it
    file: str = ""

    def located(self, main: str) -> str:
        """``main:LINE``, or ``OTHER:LINE`` for a launch in another file (a runner of a header's kernel)."""
        return f"{self.written_in(main)}:{self.line}"

    def place(self, main: str) -> str:
        """``line N`` of ``main``, or ``OTHER:N`` for a launch in another file."""
        return f"line {self.line}" if self.written_in(main) == main else self.located(main)

    def written_in(self, main: str) -> str:
        if not self.file or os.path.abspath(self.file) == os.path.abspath(main):
            return main
        return shown_path(self.file)
