"""The flows table streamed to Parquet while the run goes, instead of held (`fctlab run -o`).

A run of 10^7 flows has a flows table of about 2 GB as Arrow columns; `fctlab run SCENARIO -o
OUT` never holds it. The design, from the core to the file:

- **Final rows, in order.** A flow's row can no longer change once the flow retired (it
  completed and its sender is done: the core folded its counters into its record and freed its
  state). `Simulation.take_flows()` hands over, as an Arrow table built in Rust, the rows of the
  flows after the last piece up to the first flow still open (`FlowStream`, `metrics/tables.rs`
  in the core). Flows retire roughly in start order, so the pieces follow the simulated clock;
  a flow that stays open (long-lived, or stuck in timeouts) holds back the rows after it until
  it retires or the run ends, when every row left comes at once. The pieces, one after the
  other, are exactly the table an in-memory run (`fctlab.run`) returns.
- **Taken between steps.** The run goes in steps of 1/200 of its horizon (`fctlab.run`); after
  each the main thread takes the new rows and puts them on a short queue (at most
  `QUEUE_PIECES` pieces: a writer that falls behind slows the simulation down instead of
  letting the rows pile up).
- **Written by a thread.** A writer thread runs polars' streaming Parquet sink
  (`LazyFrame.sink_parquet` over an IO source, `register_io_source`) on the pieces of that
  queue. It regroups them into row groups of exactly 2^20 rows, which is how `Result.write`
  lays out a whole table, so the file is byte-identical to the one an in-memory run writes (a
  test checks). The simulation and the compression run at once, on two cores when there are.
- **Memory.** The core keeps each flow's plan and record (about 200 bytes a flow, see
  `docs/results.md`), Python at most the row group being filled plus the queued pieces: the
  table itself is never whole in memory.
- **All or nothing, and nothing lost.** The file is written under a hidden temporary name beside
  `OUT/flows.parquet` and renamed into place with the other five result files at the end
  (`fctlab.atomic`): results of an earlier run in OUT are never mixed with a new run's, nor
  replaced by half of one. A run that fails or is interrupted (an error, Ctrl-C, SIGTERM) ends
  the stream cleanly (Parquet footer written) and keeps what it wrote as
  `OUT/flows.partial.parquet`: the rows of the first flows, with their final values, in id
  order; the error says so. Only a process killed outright (SIGKILL, power loss) leaves the
  hidden temporary file unreadable.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import polars as pl

#: Pieces (`take_flows` tables) waiting for the writer thread at most.
QUEUE_PIECES = 8
#: Name of the rows a failed run kept, in its results directory.
PARTIAL_NAME = "flows.partial.parquet"

_END = object()


class FlowSink:
    """Writes the pieces of a flows table to `target`'s temporary name in a writer thread.

    `put` each piece (a DataFrame of the table's schema, in row order), then `finish` to get the
    written file; on failure, `keep_partial` ends the file and keeps it as `flows.partial.parquet`.
    """

    def __init__(self, target: Path, schema: Mapping[str, pl.DataType], row_group_rows: int, zstd_level: int) -> None:
        from fctlab.atomic import temp_name

        self.target = Path(target)
        self.path = temp_name(self.target)
        self.rows = 0
        self._schema = dict(schema)
        self._row_group_rows = row_group_rows
        self._zstd_level = zstd_level
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=QUEUE_PIECES)
        self._error: BaseException | None = None
        self._ended = False
        self._thread = threading.Thread(target=self._write, name="fctlab-flows-writer", daemon=True)
        self._thread.start()

    def put(self, piece: pl.DataFrame) -> None:
        """Queues the next rows (waits while the queue is full); raises the writer's error, if any."""
        if piece.height == 0:
            return
        self.rows += piece.height
        while True:
            self._raise_error()
            try:
                self._queue.put(piece, timeout=0.1)
                return
            except queue.Full:
                continue

    def finish(self) -> Path:
        """Ends the stream, waits for the file to be complete and returns its (temporary) path."""
        self._end()
        self._raise_error()
        return self.path

    def keep_partial(self) -> Path | None:
        """After a failure: ends the stream and keeps the rows written as `flows.partial.parquet`
        beside the target; returns its path, or None if nothing readable was written."""
        with contextlib.suppress(BaseException):
            self._end()
        if self._error is not None or not self.path.is_file():
            with contextlib.suppress(OSError):
                self.path.unlink()
            return None
        partial = self.target.with_name(PARTIAL_NAME)
        try:
            os.replace(self.path, partial)
        except OSError:
            return None
        return partial

    def _end(self) -> None:
        if not self._ended:
            self._ended = True
            while self._thread.is_alive():
                try:
                    self._queue.put(_END, timeout=0.1)
                    break
                except queue.Full:
                    continue
        self._thread.join()

    def _raise_error(self) -> None:
        if self._error is not None:
            e = self._error
            raise OSError(f"cannot write {self.target}: {' '.join(str(e).split())}") from e

    def _pieces(self) -> Iterator[pl.DataFrame]:
        """The queued pieces regrouped into frames of exactly `row_group_rows` rows (the last one
        shorter), each one chunk: the layout `write_parquet` gives a whole table."""
        held: list[pl.DataFrame] = []
        rows = 0
        while True:
            piece = self._queue.get()
            if piece is _END:
                break
            held.append(piece)
            rows += piece.height
            if rows < self._row_group_rows:
                continue
            whole = pl.concat(held, rechunk=True)
            full = rows - rows % self._row_group_rows
            for start in range(0, full, self._row_group_rows):
                yield whole.slice(start, self._row_group_rows)
            held = [whole.slice(full)] if rows > full else []
            rows -= full
        if held:
            yield pl.concat(held, rechunk=True)

    def _write(self) -> None:
        from polars.io.plugins import register_io_source

        def source(
            with_columns: list[str] | None, predicate: Any, n_rows: int | None, batch_size: int | None
        ) -> Iterator[pl.DataFrame]:
            # The sink asks for every column and row; a projection or filter is honoured anyway.
            for df in self._pieces():
                if predicate is not None:
                    df = df.filter(predicate)
                yield df.select(with_columns) if with_columns is not None else df

        try:
            frames = register_io_source(source, schema=self._schema)
            frames.sink_parquet(
                self.path,
                compression="zstd",
                compression_level=self._zstd_level,
                statistics=True,
                row_group_size=self._row_group_rows,
            )
        except BaseException as e:  # reported to the main thread by put / finish
            self._error = e
            # Unblock a producer waiting on a full queue.
            with contextlib.suppress(queue.Empty):
                while True:
                    self._queue.get_nowait()
