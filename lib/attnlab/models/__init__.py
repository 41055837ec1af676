"""Real attention heads from pretrained models, by a NumPy forward pass.

* :mod:`attnlab.models.encoder` -- BERT encoders: weights, tokenizer and every head's Q, K, V and weights;
* :mod:`attnlab.models.decoder` -- Llama-type decoders from GGUF files: weights, tokenizer and every head's causal
  weights.

Every public name here is also ``attnlab.<name>``; ``from attnlab.models import *`` gives the names of these
modules' ``__all__``.
"""
from .encoder import *  # noqa: F403
from .decoder import *  # noqa: F403
from . import encoder, decoder

_MODULES = (encoder, decoder)
__all__ = [name for _m in _MODULES for name in _m.__all__]
