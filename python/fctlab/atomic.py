"""Files written whole or not at all: a temporary name in the same directory, then a rename.

A run that fails while writing (a full disk, a kill) must never leave a truncated file under a
name that looks complete, nor replace a good file from an earlier run with half of a new one.
Every result file fctlab writes goes through `write_files`: each file is first written to a
hidden temporary name beside its target, and only when all of them were written are they
renamed into place (`os.replace`, atomic within a directory on POSIX). Errors while writing
come out as `OSError` naming the file, whichever library raised them (polars reports a full
disk as its own ComputeError). A file written beforehand under its temporary name (the flows
table a run streams, `fctlab.stream`) joins the others as `prewritten`: renamed with them, and
left for its writer on failure.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path

#: Writes one file's content to the path it is given.
Writer = Callable[[Path], None]


def temp_name(target: Path) -> Path:
    """The hidden temporary name `target` is written under before its rename."""
    return target.with_name(f".{target.name}.tmp-{os.getpid()}")


def write_files(items: Sequence[tuple[Path, Writer]], prewritten: Sequence[Path] = ()) -> None:
    """Writes every (target, writer) pair to a temporary file, then renames them all into place,
    with the targets in `prewritten`, already written under their `temp_name`."""
    written: list[tuple[Path, Path]] = []
    try:
        for target, writer in items:
            tmp = temp_name(target)
            written.append((tmp, target))
            try:
                writer(tmp)
            except OSError:
                raise
            except Exception as e:  # e.g. polars' ComputeError for "No space left on device"
                raise OSError(f"cannot write {target}: {' '.join(str(e).split())}") from e
        for tmp, target in [*written, *((temp_name(t), t) for t in prewritten)]:
            os.replace(tmp, target)
    except BaseException:
        for tmp, _ in written:
            with contextlib.suppress(OSError):
                tmp.unlink()
        raise


def write_text(path: Path, text: str) -> None:
    """Writes one text file atomically."""
    write_files([(Path(path), lambda p: p.write_text(text))])
