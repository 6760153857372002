"""kcorpus: raw Korean text to pretraining data for BERT/ELECTRA/DeBERTa-style models."""

from kcorpus.transforms.record import DeadLetter, Document, Dropped
from kcorpus.transforms.text.clean import clean

__all__ = ["DeadLetter", "Document", "Dropped", "clean"]
__version__ = "0.1.0"
