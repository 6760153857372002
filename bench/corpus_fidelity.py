"""Issue 24's fidelity figures of a build-corpus output of the shared petitions month and Korean Wikipedia files.

    python bench/corpus_fidelity.py OUT [DATA]     # DATA: the shared data folder (default /work/shared/data)

OUT is a corpus built from DATA/petitions/petitions_2017-08 and DATA/kowiki/wiki_* (ids `petitions:<idx>`,
`kowiki:<doc id>`). Prints, over kept documents: petitions losing any / more than 0.5% of their Hangul
syllables against their input `content`; Hanja and curly quotes kept; HTML entities, bracket or quote debris
candidates (a broad pattern: read what it lists) and templated date stubs in Wikipedia; lines that start with
closing or terminal punctuation.
"""
import glob
import html
import json
import re
import sys
import unicodedata

out = sys.argv[1]
data = sys.argv[2] if len(sys.argv) > 2 else "/work/shared/data"
HANGUL = re.compile(r"[가-힣]")
HANJA = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf\uf900-\ufaff]")
QUOTES = re.compile(r"[“”‘’「」『』]")
ENTITY = re.compile(r"&(?:[a-zA-Z]+|#\d+|#x[0-9a-fA-F]+);")
DEBRIS = re.compile(r"\(\s*[,;/·]*\s*\)|\(\s*[,;]\s*[^)]*\)|\([^)]*[,;]\s*\)|‘’|“”|''|\"\"")
DATE_STUB = re.compile(r"\d+월 \d+일은 그레고리력으로")

def jsonl(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


docs = {d["id"]: d for f in glob.glob(f"{out}/docs/*.jsonl") for d in jsonl(f)}
pet = {"petitions:" + d["petition_idx"]: d["content"] for d in jsonl(f"{data}/petitions/petitions_2017-08")}
wiki = {}
for f in sorted(glob.glob(f"{data}/kowiki/wiki_*")):
    with open(f, encoding="utf-8") as text:
        for m in re.finditer(r'<doc id="(\d+)"[^>]*>\n(.*?)</doc>', text.read(), re.DOTALL):
            wiki["kowiki:" + m.group(1)] = m.group(2)

def count(rx, s): return len(rx.findall(s))
lose = losers = n = 0
hanja_in = hanja_out = q_in = q_out = 0
for i, d in docs.items():
    src = pet.get(i)
    if src is None: continue
    n += 1
    a, b = count(HANGUL, unicodedata.normalize("NFC", src)), count(HANGUL, d["text"])
    if a and (a - b) / a > 0.005: losers += 1
    if a and b < a: lose += 1
    hanja_in += count(HANJA, src); hanja_out += count(HANJA, d["text"])
    q_in += count(QUOTES, src); q_out += count(QUOTES, d["text"])
wn = 0; w_hanja_in = w_hanja_out = 0; ent = 0; debris = 0; stubs = 0
for i, d in docs.items():
    if not i.startswith("kowiki:"): continue
    wn += 1
    ent += count(ENTITY, d["text"]); debris += count(DEBRIS, d["text"])
    stubs += bool(DATE_STUB.search(d["text"]))
    src = wiki.get(i, "")
    w_hanja_in += count(HANJA, html.unescape(src)); w_hanja_out += count(HANJA, d["text"])
lines = [l for d in docs.values() for l in d["text"].split("\n")]
BAD = set(".,?!)]}~”’」』》〉:;…")
punct = sum(1 for l in lines if l and l[0] in BAD)
print(f"petitions kept {n}: lose any Hangul {lose} ({lose/max(n,1):.1%}), lose >0.5% Hangul {losers} ({losers/max(n,1):.1%})")
print(f"petitions Hanja kept {hanja_out}/{hanja_in} ({hanja_out/max(hanja_in,1):.1%}); quotes kept {q_out}/{q_in} ({q_out/max(q_in,1):.1%})")
print(f"kowiki kept {wn}: Hanja kept {w_hanja_out}/{w_hanja_in} ({w_hanja_out/max(w_hanja_in,1):.1%}); HTML entities {ent}; bracket/quote debris {debris}; date stubs kept {stubs}")
print(f"lines {len(lines)}: starting with closing or terminal punctuation {punct} ({punct/max(len(lines),1):.3%})")
