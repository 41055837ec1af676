"""Bounds, spectra, gradients, hardness reductions and constructions the chapters audit.

* :mod:`attnlab.theory.perturbation` -- how far softmax and attention move when their logits move (tanh and chain
  bounds);
* :mod:`attnlab.theory.spectrum` -- singular values, energy counts and the softmax kernel;
* :mod:`attnlab.theory.gradient` -- the attention loss and its gradient, as printed and as derived;
* :mod:`attnlab.theory.hardness` -- the reductions from MaxIP, OV and parity to approximate attention, and their
  oracles;
* :mod:`attnlab.theory.adversarial` -- maximising a ratio over inputs from many starts;
* :mod:`attnlab.theory.sparse_patterns` -- inputs that make a fixed attention layer reproduce a sparse target
  pattern (a construction, not an approximation method).

Every public name here is also ``attnlab.<name>``; ``from attnlab.theory import *`` gives the names of these
modules' ``__all__``.
"""
from .perturbation import *  # noqa: F403
from .spectrum import *  # noqa: F403
from .gradient import *  # noqa: F403
from .hardness import *  # noqa: F403
from .adversarial import *  # noqa: F403
from .sparse_patterns import *  # noqa: F403
from . import perturbation, spectrum, gradient, hardness, adversarial, sparse_patterns

_MODULES = (perturbation, spectrum, gradient, hardness, adversarial, sparse_patterns)
__all__ = [name for _m in _MODULES for name in _m.__all__]
