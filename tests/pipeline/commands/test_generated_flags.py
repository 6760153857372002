"""Every command's flags are made from dataclass fields (pipeline/profile/flags.py): one place per option."""

from __future__ import annotations

import argparse
import importlib
import inspect

import pytest

from kcorpus.pipeline.cli import COMMANDS

# build-corpus's single-key profile flags (`--num-shards` for `output.num_shards`, ...) are made in one loop
# from its `PROFILE_FLAGS` table, their values checked with the profile's: the one other place a flag is made.
MADE_FROM_A_TABLE = {"build-corpus": 1}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_no_command_writes_a_flag_by_hand(name):
    source = inspect.getsource(importlib.import_module(COMMANDS[name][0]).add_arguments)
    assert source.count(".add_argument(") == MADE_FROM_A_TABLE.get(name, 0)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_flag_has_its_help(name):
    parser = argparse.ArgumentParser(prog=f"kcorpus {name}")
    importlib.import_module(COMMANDS[name][0]).add_arguments(parser)
    missing = [a.dest for a in parser._actions if not a.help]
    assert not missing, f"kcorpus {name}: flags without help: {missing}"
