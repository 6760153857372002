"""kcorpus: raw Korean text to pretraining data for BERT/ELECTRA/DeBERTa-style models."""

from kcorpus.transforms.clean import clean
from kcorpus.transforms.record import DeadLetter, Document, Dropped

__all__ = ["DeadLetter", "Document", "Dropped", "clean"]
__version__ = "0.1.0"
