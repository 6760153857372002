"""Tables: parquet files and `datasets` folders."""

from __future__ import annotations

import json

from reader_fixtures import DATA, read

from kcorpus.transforms.readers import reason_code
from kcorpus.transforms.record import Document, Dropped

# --- parquet and datasets --------------------------------------------------------------------------------


def petition_rows() -> list[dict]:
    lines = (DATA / "petitions_2017-08_slice").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_parquet(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = petition_rows()
    table = pa.table({"petition_idx": [r["petition_idx"] for r in rows] + ["x"],
                      "text": [r["content"] for r in rows] + [None],
                      "num_agree": [r["num_agree"] for r in rows] + [0]})
    pq.write_table(table, tmp_path / "part-0.parquet", row_group_size=2)
    records = read("parquet", tmp_path / "part-0.parquet", id_field="petition_idx")
    assert [r.id for r in records] == ["parquet:510", "parquet:511", "parquet:512", "parquet:513", "parquet:516",
                                       "parquet:x"]
    assert isinstance(records[-1], Dropped) and records[-1].reason == "empty"
    assert records[0].text == rows[0]["content"] and records[0].metadata == {"num_agree": 88}
    no_ids = read("parquet", tmp_path / "part-0.parquet")
    assert no_ids[3].id == "parquet:part-0.parquet:3"
    assert [reason_code(r.reason) for r in read("parquet", tmp_path / "part-0.parquet", text_field="body")] == [
        "missing_field"]
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 broken")
    assert [reason_code(r.reason) for r in read("parquet", tmp_path / "bad.parquet")] == ["unreadable_file"]


def test_hf_datasets_folder(tmp_path):
    import datasets

    rows = petition_rows()
    train = datasets.Dataset.from_dict({"text": [r["title"] for r in rows[:3]], "category": [r["category"] for r in rows[:3]]})
    test = datasets.Dataset.from_dict({"text": [r["title"] for r in rows[3:]], "category": [r["category"] for r in rows[3:]]})
    datasets.DatasetDict({"train": train, "test": test}).save_to_disk(str(tmp_path / "petitions_ds"))
    records = read("hf-datasets", tmp_path / "petitions_ds", source="pet")
    assert [r.id for r in records] == ["pet:petitions_ds:test:0", "pet:petitions_ds:test:1",
                                       "pet:petitions_ds:train:0", "pet:petitions_ds:train:1",
                                       "pet:petitions_ds:train:2"]
    assert records[2] == Document("pet:petitions_ds:train:0", rows[0]["title"], "pet", {"category": "육아/교육"})
    only_train = read("hf-datasets", tmp_path / "petitions_ds", split="train")
    assert len(only_train) == 3
    assert reason_code(read("hf-datasets", tmp_path / "petitions_ds", split="dev")[0].reason) == "missing_split"
    assert reason_code(read("hf-datasets", tmp_path / "nothing")[0].reason) == "unreadable_file"
