from kcorpus.pipeline.atomic import AtomicTextFile, write_atomic
from kcorpus.transforms.sharding import shard_name


def test_atomic_file_appears_only_on_close(tmp_path):
    path = tmp_path / "text" / shard_name("part", 1, 4, ".txt")
    assert path.name == "part-00001-of-00004.txt"
    f = AtomicTextFile(str(path))
    f.write("가\n")
    assert not path.exists()
    f.close()
    assert path.read_text(encoding="utf-8") == "가\n"
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_atomic_file_is_discarded_on_error(tmp_path):
    path = tmp_path / "x.txt"
    try:
        with AtomicTextFile(str(path)) as f:
            f.write("partial")
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert list(tmp_path.iterdir()) == []


def test_write_atomic_leaves_only_the_final_file(tmp_path):
    path = tmp_path / "manifest.json"
    write_atomic(str(path), b"{}\n")
    assert path.read_bytes() == b"{}\n"
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.json"]
