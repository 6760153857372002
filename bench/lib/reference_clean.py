"""Load the published KcELECTRA/KcBERT `clean` at run time, from the fenced block of REFERENCE.md.

The published code is not copied into the project: this module finds the ```python block in
`../shared/REFERENCE.md`, execs it and returns its `clean`. The older KcBERT variant is derived from the
same block as the prose there describes it (emoji characters appended to the whitelist class, no
`replace_emoji` step). Every edit is checked to apply exactly once, so a changed REFERENCE.md fails loudly.

Needs `emoji` and `soynlp` only (not kcorpus), so it runs in throwaway venvs:
  kcelectra: emoji>=2 (needs `emoji.replace_emoji`)
  kcbert:    emoji<2 (needs `emoji.UNICODE_EMOJI`; kss pins 1.2.0, keyed by language there)

As a filter: `python bench/lib/reference_clean.py --variant kcelectra < in.jsonl > out.jsonl`, one JSON string
per line in and out.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

VARIANTS = ("kcelectra", "kcbert")
_REPO = Path(__file__).resolve().parents[2]
_PATTERN_CLASS_END = "가-힣]+')"
_REPLACE_EMOJI_LINE = re.compile(r"^[ \t]*x = emoji\.replace_emoji\(.*\n", re.MULTILINE)
# The KcBERT README's expression: emoji 1.x keys UNICODE_EMOJI by language, emoji 0.x is flat.
_KCBERT_EMOJIS = """
if isinstance(next(iter(emoji.UNICODE_EMOJI.values())), dict):
    emojis = ''.join({y for x in emoji.UNICODE_EMOJI.values() for y in x.keys()})
else:
    emojis = ''.join(emoji.UNICODE_EMOJI.keys())
"""


class ReferenceUnavailable(RuntimeError):
    """The installed emoji package cannot run this variant."""


def find_reference_md() -> Path:
    """`../shared/REFERENCE.md` next to the checkout (main or a worktree one level deeper)."""
    for shared in (_REPO.parent / "shared", _REPO.parent.parent / "shared"):
        if (shared / "REFERENCE.md").is_file():
            return shared / "REFERENCE.md"
    raise FileNotFoundError(f"no shared/REFERENCE.md next to {_REPO}")


def reference_source(variant: str = "kcelectra", reference_md: Path | None = None) -> str:
    """The Python source of the published `clean` (kcelectra) or its derived older variant (kcbert)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; valid: {', '.join(VARIANTS)}")
    text = (reference_md or find_reference_md()).read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    if len(blocks) != 1:
        raise ValueError(f"expected exactly one ```python block in REFERENCE.md, found {len(blocks)}")
    source = blocks[0]
    if variant == "kcbert":
        source = _replace_once(source, _PATTERN_CLASS_END, "가-힣{emojis}]+')")
        source, n = _REPLACE_EMOJI_LINE.subn("", source)
        if n != 1:
            raise ValueError(f"expected one replace_emoji line in the reference, found {n}")
        source = _replace_once(source, "\npattern = ", _KCBERT_EMOJIS + "\npattern = ")
    return source


def load_reference(variant: str = "kcelectra", reference_md: Path | None = None) -> Callable[[str], str]:
    """Exec the reference source and return its `clean`; ReferenceUnavailable if emoji is the wrong version."""
    import emoji

    if variant == "kcelectra" and not hasattr(emoji, "replace_emoji"):
        raise ReferenceUnavailable(f"kcelectra reference needs emoji>=2, found {emoji.__version__}")
    if variant == "kcbert" and not hasattr(emoji, "UNICODE_EMOJI"):
        raise ReferenceUnavailable(f"kcbert reference needs emoji<2, found {emoji.__version__}")
    return _exec_reference(variant, reference_md)["clean"]


def emoji_surviving_whitelist(reference_md: Path | None = None) -> list[str] | None:
    """Emoji of the installed package made only of characters the kcelectra whitelist keeps: the only
    ones `replace_emoji` could still remove after the whitelist step (None without emoji>=2)."""
    import emoji

    if not hasattr(emoji, "EMOJI_DATA"):
        return None
    removed = _exec_reference("kcelectra", reference_md)["pattern"]
    return sorted(key for key in emoji.EMOJI_DATA if not removed.search(key))


def code_point_behaviour(clean: Callable[[str], str]) -> dict:
    """How `clean` treats each code point c (all but surrogates), alone between two x: `kept` ranges of
    c where "x{c}x" comes back unchanged, and `other` for any result besides that and "x x"."""
    kept: list[list[int]] = []
    other: dict[str, str] = {}
    for cp in range(sys.maxunicode + 1):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        text = f"x{chr(cp)}x"
        result = clean(text)
        if result == text:
            if kept and kept[-1][1] == cp - 1:
                kept[-1][1] = cp
            else:
                kept.append([cp, cp])
        elif result != "x x":
            other[f"{cp:04X}"] = result
    return {"kept": kept, "other": other}


def _exec_reference(variant: str, reference_md: Path | None) -> dict:
    code = compile(reference_source(variant, reference_md), f"<REFERENCE.md:{variant}>", "exec")
    namespace: dict = {"__name__": f"reference_{variant}"}
    exec(code, namespace)  # noqa: S102 (running the published code is the point)
    return namespace


def _replace_once(source: str, old: str, new: str) -> str:
    if source.count(old) != 1:
        raise ValueError(f"expected {old!r} exactly once in the reference block")
    return source.replace(old, new)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=VARIANTS, required=True)
    parser.add_argument("--reference-md", type=Path, default=None)
    parser.add_argument("--print-source", action="store_true", help="print the derived source and exit")
    parser.add_argument("--code-points", action="store_true", help="print code_point_behaviour as JSON")
    args = parser.parse_args(argv)
    if args.print_source:
        print(reference_source(args.variant, args.reference_md))
        return 0
    clean = load_reference(args.variant, args.reference_md)
    if args.code_points:
        print(json.dumps(code_point_behaviour(clean)))
        return 0
    out = sys.stdout
    for line in sys.stdin:
        out.write(json.dumps(clean(json.loads(line)), ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
