import numpy as np

from kcorpus.pipeline.pack.write import sort_wire
from kcorpus.transforms.packing.packer import TokenizedDoc


def sort_documents(docs: list[TokenizedDoc]) -> list[TokenizedDoc]:
    return [TokenizedDoc.from_wire(w) for w in sort_wire(d.to_wire() for d in docs)]


def test_documents_sharing_an_id_sort_reproducibly():
    a = TokenizedDoc("same", np.array([5, 6], np.uint16), np.array([2], np.uint32))
    b = TokenizedDoc("same", np.array([7], np.uint16), np.array([1], np.uint32))
    c = TokenizedDoc("a-first", np.array([9], np.uint16), np.array([1], np.uint32))
    forward = [d.ids.tolist() for d in sort_documents([a, b, c])]
    assert forward == [d.ids.tolist() for d in sort_documents([b, c, a])]
    assert forward[0] == [9]
