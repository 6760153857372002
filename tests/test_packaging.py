"""kcorpus installs as a regular package and runs from anywhere, the checkout's root included.

A top-level `kcorpus/` folder once shadowed the installed package: Beam workers start with the current folder
first on `sys.path`, so `kcorpus build-corpus` run from the checkout's root died in every worker with
`No module named 'kcorpus.transforms'`. These tests build a wheel, install it (not editable) into a fresh
venv and run build-corpus then pack, in multi-processing mode, from the checkout's root.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import tomllib
import venv
from pathlib import Path

import pytest

from testdata_paths import ROOT, TESTDATA

SOURCE_ROOTS = {"kcorpus": ROOT / "src" / "kcorpus", "kcorpus.pipeline": ROOT / "pipeline",
                "kcorpus.transforms": ROOT / "transforms"}


def package_folders() -> set[str]:
    """Every folder with an `__init__.py` under the three package roots, as a dotted package name."""
    names = set()
    for prefix, root in SOURCE_ROOTS.items():
        for init in root.rglob("__init__.py"):
            rel = init.parent.relative_to(root).parts
            if "__pycache__" not in rel:
                names.add(".".join((prefix, *rel)))
    return names


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    assert package_folders() == listed


def data_files() -> set[str]:
    """Every file of the three package roots that is neither Python, C nor a build product, as a path in the wheel."""
    found = set()
    for prefix, root in SOURCE_ROOTS.items():
        for path in root.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix not in {".py", ".c", ".h", ".so"}:
                found.add("/".join((*prefix.split("."), *path.relative_to(root).parts)))
    return found


def test_every_data_file_is_package_data():
    """A table read with importlib.resources must match pyproject's package-data, or an install lacks it."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["*"]
    assert data_files(), "no package data found: the tables moved?"
    assert all(any(Path(name).match(pattern) for pattern in patterns) for name in data_files()), data_files()


def test_no_top_level_folder_shadows_the_package():
    assert not (ROOT / "kcorpus").exists()


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv with kcorpus installed from its wheel; dependencies come from the test venv by a .pth
    line (not a site dir, so the editable install's finder there is never loaded)."""
    tmp = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp), str(ROOT)],
        check=True, capture_output=True,
    )
    (wheel,) = tmp.glob("kcorpus-*.whl")
    env_dir = tmp / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    # The test venv's pip installs into the fresh one (`--python`): no pip of its own to bootstrap (3.5 CPU s).
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
                    str(wheel)], check=True, capture_output=True)
    site = Path(subprocess.check_output(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True).strip())
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "test_deps.pth").write_text("\n".join(sorted(deps)) + "\n")
    return env_dir


def run_in(cwd: Path, env_dir: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(env_dir / "bin" / "kcorpus"), *args], check=False, cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize("where", ["root", "elsewhere"])
def test_installed_package_is_the_one_imported(installed, tmp_path, where):
    cwd = ROOT if where == "root" else tmp_path
    out = subprocess.check_output(
        [str(installed / "bin" / "python"), "-c",
         "import kcorpus, kcorpus.pipeline.cli, kcorpus.transforms.text.clean, kcorpus.transforms.text.split; "
         + "print(kcorpus.__file__)"],
        cwd=cwd, text=True,
    )
    assert out.strip().startswith(str(installed)), out


@pytest.mark.slow
def test_the_wheel_holds_the_package_data(installed):
    """The generated tables (package data, not modules) install with the wheel and load from there."""
    site = Path(subprocess.check_output(
        [str(installed / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
    ).strip())
    assert data_files() and all((site / name).is_file() for name in data_files())
    out = subprocess.check_output(
        [str(installed / "bin" / "python"), "-c",
         "from kcorpus.transforms.text import clean; from kcorpus.transforms.text.split import odds; "
         + "print(len(odds.WEIGHTS), len(clean.EMOJI_1_2_0_RANGES))"],
        cwd=installed, text=True,
    )
    assert out.split() == ["13320", "163"], out


@pytest.mark.slow
def test_build_corpus_then_pack_from_the_checkout_root(installed, tmp_path):
    lines = (TESTDATA / "sample" / "nsmc_ratings_test_head.txt").read_text(encoding="utf-8").splitlines()
    nsmc = tmp_path / "nsmc.txt"
    nsmc.write_text("\n".join(lines[:401]) + "\n", encoding="utf-8")
    profile = tmp_path / "profile.yaml"
    profile.write_text(
        f"sources:\n  - {{name: nsmc, format: nsmc, paths: [{nsmc}], preset: kcelectra}}\n"
        "output: {num_shards: 2}\n",
        encoding="utf-8",
    )
    beam = ["--", "--direct_running_mode=multi_processing", "--direct_num_workers=2"]
    corpus = tmp_path / "corpus"
    built = run_in(ROOT, installed, "build-corpus", "--config", str(profile), "--out", str(corpus), *beam)
    assert built.returncode == 0, built.stderr[-3000:]
    stats = json.loads((corpus / "stats.json").read_text())
    assert stats["total"]["input"] == 400 and stats["total"]["kept"] > 300

    from packing_fixtures import kcbert_tokenizer_dir

    tokenizer = kcbert_tokenizer_dir(tmp_path / "tokenizer")
    pack = tmp_path / "pack"
    packed = run_in(ROOT, installed, "pack", "--corpus", str(corpus), "--tokenizer", str(tokenizer),
                    "--out", str(pack), *beam)
    assert packed.returncode == 0, packed.stderr[-3000:]
    manifest = json.loads((pack / "manifest.json").read_text())
    assert manifest["counts"]["documents"] == stats["total"]["kept"]
    assert "ModuleNotFoundError" not in built.stderr + packed.stderr
