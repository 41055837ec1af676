"""The approximation rank of attention: certificates that bracket it, and the instances and geometry of its laws.

* :mod:`attnlab.rank.certificates` -- the row-l1 error, the operator identity and the upper and lower certificates
  of any matrix;
* :mod:`attnlab.rank.instances` -- random instances: points on the sphere and in the ball, their attention, planted
  and noisy heads;
* :mod:`attnlab.rank.interaction` -- the visible interaction of a head: its dimension, the Gibbs family, the SVD
  bridge;
* :mod:`attnlab.rank.lattice` -- the lattice ball of the lower law: its instance and both certificates, exactly;
* :mod:`attnlab.rank.sphere` -- the continuum sphere: cap masses, harmonic upper certificates, packings and their
  lower certificates.

Every public name here is also ``attnlab.<name>``; ``from attnlab.rank import *`` gives the names of these
modules' ``__all__``.
"""
from .certificates import *  # noqa: F403
from .instances import *  # noqa: F403
from .interaction import *  # noqa: F403
from .lattice import *  # noqa: F403
from .sphere import *  # noqa: F403
from . import certificates, instances, interaction, lattice, sphere

_MODULES = (certificates, instances, interaction, lattice, sphere)
__all__ = [name for _m in _MODULES for name in _m.__all__]
