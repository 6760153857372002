"""Table formats: `parquet` files and `hf-datasets` folders (`datasets.save_to_disk`), one record per row."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from kcorpus.transforms.files import STREAM_ERRORS, base_name, open_binary
from kcorpus.transforms.readers.base import Reader
from kcorpus.transforms.readers.options import ReadOptions
from kcorpus.transforms.readers.records import Record, object_record
from kcorpus.transforms.record import DeadLetter, raw_prefix

BATCH_ROWS = 4096


def table_records(rows: Iterable[Mapping[str, Any]], path: str, prefix: str, options: ReadOptions,
                  source: str, start: int = 0) -> Iterator[Record]:
    """A record per row (`text_field`, `id_field`; fallback id `<source>:<prefix>:<row index>`)."""
    for index, row in enumerate(rows, start):
        def dead(reason: str, index: int = index, row: Mapping[str, Any] = row) -> DeadLetter:
            return DeadLetter(path, reason, None, index, raw_prefix(json.dumps(row, ensure_ascii=False, default=str)))

        yield object_record(row, f"{source}:{prefix}:{index}", options, source, dead)


class ParquetReader(Reader):
    """`parquet`: one file at a time, read in row batches."""

    name = "parquet"

    def read(self, path: str, options: ReadOptions, source: str) -> Iterator[Record]:
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            stream = open_binary(path)
        except STREAM_ERRORS as err:
            yield DeadLetter(path, f"unreadable_file: {err}")
            return
        with stream:
            try:
                parquet = pq.ParquetFile(stream)
            except (pa.ArrowException, *STREAM_ERRORS) as err:
                yield DeadLetter(path, f"unreadable_file: {err}")
                return
            if options.text_field not in parquet.schema_arrow.names:
                rows = parquet.metadata.num_rows
                yield DeadLetter(path, f"missing_field: column {options.text_field} ({rows} rows)")
                return
            start = 0
            for batch in parquet.iter_batches(batch_size=BATCH_ROWS):
                rows = batch.to_pylist()
                yield from table_records(rows, path, base_name(path), options, source, start)
                start += len(rows)


class HfDatasetsReader(Reader):
    """`hf-datasets`: a `save_to_disk` folder (one input); every split in name order, or the `split` option."""

    name = "hf-datasets"
    folder_is_input = True

    def read(self, path: str, options: ReadOptions, source: str) -> Iterator[Record]:
        import datasets

        try:
            loaded = datasets.load_from_disk(path)
        except (FileNotFoundError, OSError, ValueError) as err:
            yield DeadLetter(path, f"unreadable_file: {err}")
            return
        splits = loaded if isinstance(loaded, datasets.DatasetDict) else {"": loaded}
        names = [options.split] if options.split else sorted(splits)
        for name in names:
            if name not in splits:
                yield DeadLetter(path, f"missing_split: {name} (has {', '.join(sorted(splits))})")
                continue
            dataset = splits[name]
            if options.text_field not in dataset.column_names:
                yield DeadLetter(path, f"missing_field: column {options.text_field} ({len(dataset)} rows)")
                continue
            prefix = f"{base_name(path)}:{name}" if name else base_name(path)
            for start in range(0, len(dataset), BATCH_ROWS):
                rows = dataset[start:start + BATCH_ROWS]
                batch = [dict(zip(rows, values)) for values in zip(*rows.values())]
                yield from table_records(batch, path, prefix, options, source, start)
